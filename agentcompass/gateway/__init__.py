"""The model gateway: agents that call model APIs themselves (Claude Code, Codex CLI, ...) call it instead.

``service.Gateway`` holds the per-attempt tokens and the listeners (one TCP site per host address an environment
reaches this host at); ``server`` serves the HTTP routes of the four APIs (aiohttp) and forwards each call through
the attempt's model client (``Model.forward``), which counts usage and records ``model_calls.jsonl``.
``docs/gateway.md`` is the reference. Nothing here is imported until a harness asks for a gateway.
"""
