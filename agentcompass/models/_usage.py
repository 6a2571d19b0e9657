"""Token counts and cost of one call.

Normalized counts (the OpenAI convention): ``input_tokens`` is every prompt token, cache hits included;
``cached_tokens`` is the part of it read from the provider's prompt cache; ``output_tokens`` includes
reasoning tokens. Anthropic reports cache reads and cache writes apart from ``input_tokens``; they are
added in. Cost = (input - cached) * input price + cached * cached price (default: the input price)
+ output * output price, prices in USD per million tokens. Without prices (none configured and the model id
not in the price table, see :mod:`._prices`) the cost is unknown: None, never 0.
"""

from __future__ import annotations

from typing import Any

from agentcompass.interfaces import Usage

from .config import Prices


def _int(obj: Any, *names: str) -> int:
    """The first attribute / key of ``obj`` among ``names`` that is a number (0 when none is)."""
    for name in names:
        value = obj.get(name) if isinstance(obj, dict) else getattr(obj, name, None)
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            return int(value)
    return 0


def _get(obj: Any, name: str) -> Any:
    return obj.get(name) if isinstance(obj, dict) else getattr(obj, name, None)


def call_usage(input_tokens: int, output_tokens: int, cached_tokens: int, prices: Prices | None) -> Usage:
    """The Usage of one successful call (``n_calls=1``), with its cost."""
    usage = Usage(input_tokens=input_tokens, output_tokens=output_tokens, cached_tokens=cached_tokens, n_calls=1)
    usage.cost_usd = cost(usage, prices)
    return usage


def cost(usage: Usage, prices: Prices | None) -> float | None:
    if prices is None:
        return None
    cached_price = prices.cached_input_per_mtok if prices.cached_input_per_mtok is not None else prices.input_per_mtok
    uncached = max(usage.input_tokens - usage.cached_tokens, 0)
    return (
        uncached * prices.input_per_mtok
        + usage.cached_tokens * cached_price
        + usage.output_tokens * prices.output_per_mtok
    ) / 1e6


def openai_chat_tokens(usage: Any) -> tuple[int, int, int]:
    if usage is None:
        return 0, 0, 0
    details = _get(usage, "prompt_tokens_details")
    return _int(usage, "prompt_tokens"), _int(usage, "completion_tokens"), _int(details, "cached_tokens")


def openai_responses_tokens(usage: Any) -> tuple[int, int, int]:
    if usage is None:
        return 0, 0, 0
    details = _get(usage, "input_tokens_details")
    return _int(usage, "input_tokens"), _int(usage, "output_tokens"), _int(details, "cached_tokens")


def anthropic_tokens(usage: Any) -> tuple[int, int, int]:
    if usage is None:
        return 0, 0, 0
    read = _int(usage, "cache_read_input_tokens")
    written = _int(usage, "cache_creation_input_tokens")
    return _int(usage, "input_tokens") + read + written, _int(usage, "output_tokens"), read
