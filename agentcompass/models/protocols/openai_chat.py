"""OpenAI chat completions: ``POST {base_url}/chat/completions`` through the official ``openai`` SDK."""

from __future__ import annotations

from typing import Any

from agentcompass.interfaces import ModelResponse
from agentcompass.models import _params, _tools, _usage
from agentcompass.models._shapes.chat import ChatMessage, ChatTool
from agentcompass.models.config import Prices

PROTOCOL = "openai-chat"
PATH = "/chat/completions"
FAMILY = "openai"
KEY_ENV = "OPENAI_API_KEY"
RENAMES = {"stop_sequences": "stop", "max_output_tokens": "max_tokens"}


def make_client(base_url: str, api_key: str, timeout: float) -> Any:
    """An ``AsyncOpenAI`` with the SDK's own retries off (ours are the only ones)."""
    from openai import AsyncOpenAI

    return AsyncOpenAI(api_key=api_key, base_url=base_url, timeout=timeout, max_retries=0)


def normalize_finish(reason: str | None) -> str:
    return reason or "stop"


async def call(
    client: Any,
    model_id: str,
    messages: list[ChatMessage],
    params: dict[str, Any],
    prices: Prices | None,
    tools: list[ChatTool] | None = None,
) -> ModelResponse:
    """Messages and tools are already in this protocol's form; keys whose value is None are not sent. They go in
    ``extra_body`` (see ``_params.untyped``); ``messages=[]`` is the typed placeholder they replace."""
    create = client.chat.completions.create
    kwargs = _params.for_protocol(PROTOCOL, params, _params.sdk_keys(PROTOCOL, create), RENAMES)
    kwargs.pop("tools", None)
    kwargs = _params.untyped(kwargs, {"messages": _tools.chat_messages(messages), "tools": tools or None})
    completion = await create(model=model_id, messages=[], **kwargs)
    choice = completion.choices[0] if completion.choices else None
    message = choice.message if choice is not None else None
    text = (message.content or "") if message is not None else ""
    finish = normalize_finish(choice.finish_reason if choice is not None else None)
    usage = _usage.call_usage(*_usage.openai_chat_tokens(completion.usage), prices)
    return ModelResponse(
        text=text, finish_reason=finish, usage=usage, raw=completion, tool_calls=_tools.chat_tool_calls(message)
    )
