"""The orchestrator: one asyncio pool of attempts."""

from .frame import AttemptFrame

__all__ = ["AttemptFrame"]
