"""Hydra-style ``key=value`` overrides that name a key the config does not have.

Hydra refuses them with its own advice (``Could not override 'k'. To append to your config use +k=v``), and
following it only moves the error. Such an override is composed as the append it would be (``+k=v``) instead:
the composed request then fails validation like any other unknown key, with one line naming the key, its group
and the valid keys.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

_REFUSED = re.compile(r"Could not override '([^']+)'")


def as_append(overrides: Sequence[str], exc: BaseException) -> list[str] | None:
    """``overrides`` with the one Hydra refused for a missing key turned into an append, or None when ``exc`` is
    another error (or names no plain override of the list)."""
    from omegaconf.errors import ConfigAttributeError, ConfigKeyError

    match = _REFUSED.match(str(exc))
    if match is None or not isinstance(exc.__cause__, (ConfigKeyError, ConfigAttributeError)):
        return None
    key = match.group(1)
    for i, text in enumerate(overrides):
        if not text.startswith(("+", "~")) and text.partition("=")[0].strip() == key:
            return [*overrides[:i], "+" + text, *overrides[i + 1 :]]
    return None
