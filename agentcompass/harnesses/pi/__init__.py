"""The ``pi`` harness: pi, the coding agent (npm ``@earendil-works/pi-coding-agent``, a bundled Node program, with a
delivered Node runtime) run in its print mode (``pi --print --mode json``) on the model gateway (OpenAI Chat
Completions, registered as a custom provider in ``models.json``)."""

from .agent import PiConfig, PiHarness

__all__ = ["PiConfig", "PiHarness"]
