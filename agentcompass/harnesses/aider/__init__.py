"""The ``aider`` harness: aider (PyPI ``aider-chat``) in its scripting mode (``--message``), on a delivered Python
(Debian's CPython with its C library, and the pinned wheel set), on the model gateway (OpenAI Chat Completions)."""

from .agent import AiderConfig, AiderHarness

__all__ = ["AiderConfig", "AiderHarness"]
