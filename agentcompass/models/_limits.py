"""Per-attempt limits of a model client fork: ``execution.attempt_max_model_calls`` and
``execution.attempt_max_tokens_total``, checked before each call (``complete`` and the gateway's ``forward``).

A call is admitted while the attempt has made fewer than ``max_model_calls`` calls and spent fewer than
``max_tokens_total`` tokens (input + output, as counted in its usage); the call that would pass a limit is refused
with :class:`~agentcompass.errors.AttemptLimitReached` (``limit``: the setting's word) and nothing is sent.
"""

from __future__ import annotations

from dataclasses import dataclass

from agentcompass.errors import AttemptLimitReached
from agentcompass.interfaces import Usage


@dataclass
class AttemptLimits:
    max_model_calls: int | None = None
    max_tokens_total: int | None = None
    calls: int = 0  # calls admitted so far

    def admit(self, usage: Usage) -> None:
        """Count one more call, or refuse it (see the module doc)."""
        if self.max_model_calls is not None and self.calls >= self.max_model_calls:
            raise AttemptLimitReached(
                f"the attempt made {self.calls} model calls, reaching execution.attempt_max_model_calls="
                f"{self.max_model_calls}",
                "max_model_calls",
            )
        spent = usage.input_tokens + usage.output_tokens
        if self.max_tokens_total is not None and spent >= self.max_tokens_total:
            raise AttemptLimitReached(
                f"the attempt's model calls spent {spent} tokens, reaching execution.attempt_max_tokens_total="
                f"{self.max_tokens_total}",
                "max_tokens_total",
            )
        self.calls += 1
