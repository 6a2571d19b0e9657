"""OpenAI Responses API: ``POST {base_url}/responses`` through the official ``openai`` SDK.

System messages become ``instructions``; the other messages are the ``input`` list (tool calls and tool
results as ``function_call`` / ``function_call_output`` items, see ``_tools``). Finish reasons:
``completed`` -> "stop"; ``incomplete`` for ``max_output_tokens`` -> "length"; a function call ->
"tool_calls"; any other incomplete reason is returned as is.
"""

from __future__ import annotations

import re
from typing import Any

from agentcompass.interfaces import ModelResponse
from agentcompass.models import _auto, _params, _tools, _usage
from agentcompass.models._shapes.chat import ChatMessage
from agentcompass.models.config import Prices

from .openai_chat import make_client  # noqa: F401 - the same SDK client serves both OpenAI protocols

PROTOCOL = "openai-responses"
PATH = "/responses"
FAMILY = "openai"
KEY_ENV = "OPENAI_API_KEY"
RENAMES = {
    "max_tokens": "max_output_tokens",
    "max_completion_tokens": "max_output_tokens",
    "reasoning_effort": "reasoning.effort",
}
_RESPONSES_MODEL = re.compile(r"^(o\d+(-|$)|gpt-5|codex|computer-use)", re.IGNORECASE)


def auto(base_url: str | None, model_id: str) -> bool:
    """OpenAI's own API (``api.openai.com``, also when no base URL is given) and a reasoning / Responses-first
    model (``o1``, ``o3``, ``o4-mini``..., ``gpt-5*``, ``codex*``, ``computer-use*``)."""
    on_openai = _auto.host_of(_auto.base_url_for(PROTOCOL, base_url)) == "api.openai.com"
    return on_openai and bool(_RESPONSES_MODEL.match(model_id.strip().lower()))


def normalize_finish(response: Any) -> str:
    details = getattr(response, "incomplete_details", None)
    reason = getattr(details, "reason", None)
    if reason == "max_output_tokens":
        return "length"
    if reason:
        return str(reason)
    if any(getattr(item, "type", "") == "function_call" for item in (getattr(response, "output", None) or [])):
        return "tool_calls"
    status = getattr(response, "status", None)
    return "stop" if status in (None, "completed") else str(status)


async def call(
    client: Any,
    model_id: str,
    messages: list[ChatMessage],
    params: dict[str, Any],
    prices: Prices | None,
    tools: list[dict[str, Any]] | None = None,
) -> ModelResponse:
    create = client.responses.create
    kwargs = _params.for_protocol(PROTOCOL, params, _params.sdk_keys(PROTOCOL, create), RENAMES)
    system, items = _tools.responses_input(messages)
    if system and "instructions" not in kwargs:
        kwargs["instructions"] = system
    kwargs.pop("tools", None)
    if "tool_choice" in kwargs:
        kwargs["tool_choice"] = _tools.responses_tool_choice(kwargs["tool_choice"])
    kwargs = _params.untyped(kwargs, {"input": items, "tools": _tools.responses_tools(tools) if tools else None})
    response = await create(model=model_id, **kwargs)
    usage = _usage.call_usage(*_usage.openai_responses_tokens(response.usage), prices)
    return ModelResponse(
        text=response.output_text or "",
        finish_reason=normalize_finish(response),
        usage=usage,
        raw=response,
        tool_calls=_tools.responses_tool_calls(response),
    )
