"""Anthropic Messages API: ``POST {base_url}/v1/messages`` through the official ``anthropic`` SDK.

System messages become the ``system`` parameter; tool calls and tool results become ``tool_use`` /
``tool_result`` blocks, tools and ``tool_choice`` / ``parallel_tool_calls`` Anthropic's own (see ``_tools``).
``max_tokens`` is required by the API: when ``params``
give none, ``DEFAULT_MAX_TOKENS`` is sent. Stop reasons: ``end_turn`` / ``stop_sequence`` -> "stop",
``max_tokens`` -> "length", ``tool_use`` -> "tool_calls", others as is (``refusal``, ``pause_turn``).
Sampling settings the SDK method does not name (temperature, top_p, top_k) go in the request body.
"""

from __future__ import annotations

from typing import Any

from agentcompass.interfaces import ModelResponse
from agentcompass.models import _auto, _params, _tools, _usage
from agentcompass.models.config import Prices

PROTOCOL = "anthropic-messages"
PATH = "/v1/messages"
FAMILY = "anthropic"
KEY_ENV = "ANTHROPIC_API_KEY"
RENAMES = {"max_completion_tokens": "max_tokens", "max_output_tokens": "max_tokens", "stop": "stop_sequences"}
DEFAULT_MAX_TOKENS = 8192
_STOP = {"end_turn": "stop", "stop_sequence": "stop", "max_tokens": "length", "tool_use": "tool_calls"}


def auto(base_url: str | None, model_id: str) -> bool:
    """The base URL's host contains ``anthropic``, or the model id starts with ``claude``."""
    return "anthropic" in _auto.host_of(base_url) or model_id.strip().lower().startswith("claude")


def make_client(base_url: str, api_key: str, timeout: float) -> Any:
    """An ``AsyncAnthropic`` with the SDK's own retries off (ours are the only ones)."""
    from anthropic import AsyncAnthropic

    return AsyncAnthropic(api_key=api_key, base_url=base_url, timeout=timeout, max_retries=0)


def normalize_finish(reason: str | None) -> str:
    return _STOP.get(reason or "end_turn", str(reason))


async def call(
    client: Any,
    model_id: str,
    messages: list[dict[str, Any]],
    params: dict[str, Any],
    prices: Prices | None,
    tools: list[dict[str, Any]] | None = None,
) -> ModelResponse:
    create = client.messages.create
    params = dict(params)
    choice = _tools.anthropic_tool_choice(params.pop("tool_choice", None), params.pop("parallel_tool_calls", None))
    kwargs = _params.for_protocol(PROTOCOL, params, _params.sdk_keys(PROTOCOL, create), RENAMES)
    kwargs.setdefault("max_tokens", DEFAULT_MAX_TOKENS)
    system, msgs = _tools.anthropic_messages(messages)
    if system and "system" not in kwargs:
        kwargs["system"] = system
    kwargs.pop("tools", None)
    if choice is not None and tools:
        kwargs["tool_choice"] = choice
    if isinstance(kwargs.get("system"), list):
        kwargs = _params.untyped(kwargs, {"system": kwargs.pop("system")})
    kwargs = _params.untyped(kwargs, {"messages": msgs, "tools": _tools.anthropic_tools(tools) if tools else None})
    message = await create(model=model_id, messages=[], **kwargs)
    text = "".join(getattr(b, "text", "") for b in message.content if getattr(b, "type", "") == "text")
    usage = _usage.call_usage(*_usage.anthropic_tokens(message.usage), prices)
    return ModelResponse(
        text=text,
        finish_reason=normalize_finish(message.stop_reason),
        usage=usage,
        raw=message,
        tool_calls=_tools.anthropic_tool_calls(message),
    )
