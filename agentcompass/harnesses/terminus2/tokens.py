"""Token counts and model limits as Harbor's Terminus-2 computes them: with LiteLLM.

Harbor counts the chat with ``litellm.utils.token_counter(model=..., messages=...)`` and reads the context and
output limits from LiteLLM's model table (``get_model_info``: ``max_input_tokens``, else ``max_tokens``; and
``max_output_tokens``). LiteLLM is the ``terminus2`` extra (``pip install 'agentcompass[terminus2]'``).
Before its first import ``LITELLM_LOCAL_MODEL_COST_MAP`` defaults to ``True``, so LiteLLM reads the model table
it ships instead of fetching the newest one from GitHub at import time (set the variable to ``False`` to fetch).
"""

from __future__ import annotations

import logging
import os
import threading
from typing import Any

_lock = threading.Lock()
log = logging.getLogger("agentcompass.harnesses.terminus2")


def load_litellm(auto_install: bool) -> Any:
    """``litellm``, imported once (installed first with ``auto_install``); DependencyError names the extra."""
    with _lock:
        os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
        from agentcompass.kit import require

        litellm = require(
            "litellm",
            "terminus2",
            auto_install=auto_install,
            purpose="terminus2 (token counting and model limits as Harbor's Terminus-2)",
        )
        litellm.suppress_debug_info = True
        return litellm


class TokenCounter:
    """``count(messages)``, ``context_limit()``, ``output_limit()`` for one model name, as Harbor's LiteLLM."""

    def __init__(self, model_name: str, auto_install: bool = False) -> None:
        self.model_name = model_name
        self._litellm = load_litellm(auto_install)

    def count(self, messages: list[dict[str, Any]]) -> int:
        from litellm.utils import token_counter

        return int(token_counter(model=self.model_name, messages=messages))

    def _info(self) -> dict[str, Any] | None:
        try:
            return dict(self._litellm.get_model_info(self.model_name))
        except Exception as exc:
            log.debug("terminus2: no LiteLLM model info for %r: %s", self.model_name, exc)
            return None

    def context_limit(self) -> int | None:
        """LiteLLM's ``max_input_tokens`` (else ``max_tokens``) for the model, or None when it has none."""
        info = self._info() or {}
        value = info.get("max_input_tokens")
        if value is None:
            value = info.get("max_tokens")
        return int(value) if value is not None else None

    def output_limit(self) -> int | None:
        """LiteLLM's ``max_output_tokens`` for the model, or None."""
        value = (self._info() or {}).get("max_output_tokens")
        return int(value) if value is not None else None
