"""Read a Terminal-Bench 2 reward (FORMATS.md C4).

``reward.json`` (a flat object of finite numbers, or a single number) takes precedence over ``reward.txt`` (one
float, surrounding whitespace allowed, read as ``{"reward": x}``). When ``reward.json`` exists it alone decides,
even if it is invalid. A missing, empty or non-numeric file, NaN or infinity is a
:class:`~agentcompass.errors.VerifierError` (the reward is invalid and scored 0).

The primary reward of a rewards dict is its ``"reward"`` key; without one, the only value, or else the mean of
all values (see :func:`primary_reward`).
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

from agentcompass.errors import VerifierError

REWARD_JSON = "reward.json"
REWARD_TXT = "reward.txt"
MAX_REWARD_BYTES = 1 << 16  # a reward file is a number or a flat object of numbers; anything larger is an error


def too_large(where: str, size: int) -> VerifierError:
    return VerifierError(
        f"{where} is {size:,} bytes; a reward file may hold at most {MAX_REWARD_BYTES:,} bytes "
        f"(a number, or a flat JSON object of numbers)"
    )


def _finite(value: Any, where: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise VerifierError(f"{where}: {value!r} is not a number")
    if not math.isfinite(value):
        raise VerifierError(f"{where}: {value!r} is not a finite number")
    return float(value)


def parse_reward_json(data: bytes, where: str = REWARD_JSON) -> dict[str, float]:
    """A flat object of finite numbers, or a single number (read as ``{"reward": x}``)."""
    if len(data) > MAX_REWARD_BYTES:
        raise too_large(where, len(data))
    text = data.decode("utf-8", errors="replace").strip()
    if not text:
        raise VerifierError(f"{where} is empty")
    try:
        value = json.loads(text)
    except ValueError as exc:
        raise VerifierError(f"{where} is not valid JSON: {exc}") from None
    if isinstance(value, dict):
        if not value:
            raise VerifierError(f"{where} is an empty object")
        return {str(k): _finite(v, f"{where} key {k!r}") for k, v in value.items()}
    return {"reward": _finite(value, where)}


def parse_reward_txt(data: bytes, where: str = REWARD_TXT) -> dict[str, float]:
    """One float (surrounding whitespace is fine)."""
    if len(data) > MAX_REWARD_BYTES:
        raise too_large(where, len(data))
    text = data.decode("utf-8", errors="replace").strip()
    if not text:
        raise VerifierError(f"{where} is empty")
    try:
        value = float(text)
    except ValueError:
        shown = text if len(text) <= 40 else text[:37] + "..."
        raise VerifierError(f"{where} is not a number: {shown!r}") from None
    return {"reward": _finite(value, where)}


def parse_rewards(json_data: bytes | None, txt_data: bytes | None, where: str = "") -> dict[str, float]:
    """Apply the precedence rule to the raw contents (None = file absent)."""
    prefix = f"{where.rstrip('/')}/" if where else ""
    if json_data is not None:
        return parse_reward_json(json_data, prefix + REWARD_JSON)
    if txt_data is not None:
        return parse_reward_txt(txt_data, prefix + REWARD_TXT)
    raise VerifierError(f"no reward file: neither {prefix}{REWARD_JSON} nor {prefix}{REWARD_TXT} was written")


def read_rewards_dir(directory: Path) -> dict[str, float]:
    """Rewards from a host directory (e.g. a downloaded ``/logs/verifier``)."""

    def read(name: str) -> bytes | None:
        path = Path(directory) / name
        return path.read_bytes() if path.is_file() else None

    return parse_rewards(read(REWARD_JSON), read(REWARD_TXT), str(directory))


async def read_rewards(env: Any, logs_dir: str = "/logs/verifier") -> tuple[dict[str, float], str]:
    """Rewards from an environment's ``logs_dir``; returns the rewards and the file they came from.

    The files are read with the environment's own file API (``env.read_file``), never through binaries inside the
    environment, which the agent may have replaced.
    """
    base = logs_dir.rstrip("/")
    for name in (REWARD_JSON, REWARD_TXT):
        try:
            data = bytes(await env.read_file(f"{base}/{name}"))
        except (FileNotFoundError, IsADirectoryError):
            continue
        rewards = parse_rewards(data if name == REWARD_JSON else None, data if name == REWARD_TXT else None, base)
        return rewards, name
    return parse_rewards(None, None, base), ""


def primary_reward(rewards: dict[str, float]) -> float:
    """``rewards["reward"]`` if present; else the single value; else the mean of the values."""
    if "reward" in rewards:
        return rewards["reward"]
    values = list(rewards.values())
    if not values:
        raise VerifierError("empty rewards")
    return values[0] if len(values) == 1 else sum(values) / len(values)
