"""The τ²-bench telecom domain: the agent's tools, the user's phone, their sync, the env assertions."""
