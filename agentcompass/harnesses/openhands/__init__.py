"""The ``openhands`` harness: the OpenHands Software Agent SDK (PyPI ``openhands-sdk`` and ``openhands-tools``) run
by Harbor's own runner script, headless, on a delivered Python (Debian's CPython with its own C library, and the
pinned wheel set), on the model gateway (OpenAI Chat Completions)."""

from .agent import OpenHandsConfig, OpenHandsHarness

__all__ = ["OpenHandsConfig", "OpenHandsHarness"]
