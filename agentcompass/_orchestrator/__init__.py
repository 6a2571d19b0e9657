"""The orchestrator: one asyncio pool of attempts."""
