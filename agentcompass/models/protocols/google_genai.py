"""The Gemini API: ``POST {base_url}/v1beta/models/{model}:generateContent`` through the official ``google-genai`` SDK.

Chat-form messages, tools and parameters become a ``generateContent`` request as :mod:`.._gemini` says (system
messages the ``systemInstruction``, tool calls and results ``functionCall`` / ``functionResponse`` parts, function
tools ``functionDeclarations``, ``tool_choice`` the ``toolConfig``, ``reasoning_effort`` the ``thinkingConfig``).
Finish reasons: ``STOP`` -> "stop" ("tool_calls" when the reply calls a function), ``MAX_TOKENS`` -> "length",
``SAFETY`` / ``RECITATION`` / ``BLOCKLIST`` / ``PROHIBITED_CONTENT`` / ``SPII`` -> "content_filter", others in lower
case. Usage: ``usageMetadata`` (:mod:`.._streams.gemini`). The key goes as ``x-goog-api-key``; the base URL is the
API's root (a trailing ``/v1`` or ``/v1beta`` is dropped, so one ``http://host:port/v1`` serves every protocol).
The SDK's own retries are off (``HttpRetryOptions(attempts=1)``). Its wire format is its own: the hooks the model
layer and the gateway read (``tokens``, ``summary``, ``synthesize``, ``Assembler``, ``error_event``, ``url``)
come from :mod:`.._streams.gemini`.
"""

from __future__ import annotations

import json
import uuid
from typing import Any

from agentcompass.interfaces import ModelResponse, ToolCall
from agentcompass.models import _auto, _gemini, _usage
from agentcompass.models._shapes.chat import ChatMessage
from agentcompass.models._streams.gemini import Assembler, error_event, summary, synthesize, tokens
from agentcompass.models.config import Prices

__all__ = ["Assembler", "error_event", "summary", "synthesize", "tokens"]

PROTOCOL = "google-genai"
API_VERSION = "v1beta"
PATH = f"/{API_VERSION}/models"  # + /{model}:generateContent (see url)
FAMILY = "google"
KEY_ENV = "GEMINI_API_KEY"
_RAW_SKIP = {"sdk_http_response", "automatic_function_calling_history", "parsed"}


def auto(base_url: str | None, model_id: str) -> bool:
    """The base URL is Google's (``generativelanguage.googleapis.com``), or the model id starts with ``gemini``."""
    host = _auto.host_of(base_url)
    return "generativelanguage.googleapis.com" in host or model_id.strip().lower().startswith("gemini")


def url(base: str, model_id: str, stream: bool, suffix: str = "") -> tuple[str, dict[str, str]]:
    """The URL (and query) of a request for ``model_id``: ``:generateContent``, ``:streamGenerateContent`` with
    ``alt=sse``, or the method named by ``suffix`` (``:countTokens``)."""
    method = suffix or (":streamGenerateContent" if stream else ":generateContent")
    query = {"alt": "sse"} if stream and not suffix else {}
    return f"{base}{PATH}/{model_id}{method}", query


class _Client:
    """A ``genai.Client`` closed like the other SDKs' clients (``await close()``)."""

    def __init__(self, client: Any) -> None:
        self.client = client

    async def close(self) -> None:
        await self.client.aio.aclose()


def make_client(base_url: str, api_key: str, timeout: float) -> Any:
    """A ``genai.Client`` on ``base_url`` with the SDK's own retries off (ours are the only ones); without the
    ``google-genai`` extra, a DependencyError naming its install command."""
    from agentcompass.kit import require

    require("google.genai", "google-genai", purpose="model protocol google-genai")
    from google import genai
    from google.genai import types

    options = types.HttpOptions(
        base_url=base_url + "/",
        api_version=API_VERSION,
        timeout=int(timeout * 1000),
        retry_options=types.HttpRetryOptions(attempts=1),
    )
    return _Client(genai.Client(api_key=api_key, http_options=options))


def _raw(response: Any) -> dict[str, Any]:
    """The reply in its wire form (camelCase, as the API sent it), without the SDK's own fields."""
    data = response.model_dump(mode="json", exclude_none=True, by_alias=True, exclude=_RAW_SKIP)
    return {k: v for k, v in data.items() if k not in ("sdkHttpResponse", "automaticFunctionCallingHistory")}


def _calls(raw: dict[str, Any]) -> list[ToolCall]:
    """The reply's function calls (an id made up where it has none; each signature remembered for its id)."""
    parts = ((raw.get("candidates") or [{}])[0].get("content") or {}).get("parts") or []
    calls = [p for p in parts if isinstance(p.get("functionCall"), dict)]
    out = []
    for part in calls:
        fc = part["functionCall"]
        call_id = str(fc.get("id") or f"call_{uuid.uuid4().hex[:24]}")
        if part.get("thoughtSignature"):
            _gemini.remember(call_id, str(part["thoughtSignature"]))
        args = json.dumps(fc.get("args") or {}, ensure_ascii=False)
        out.append(ToolCall(id=call_id, name=str(fc.get("name") or ""), arguments=args))
    return out


async def call(
    client: Any,
    model_id: str,
    messages: list[ChatMessage],
    params: dict[str, Any],
    prices: Prices | None,
    tools: list[dict[str, Any]] | None = None,
) -> ModelResponse:
    from google.genai import types

    body, extra = _gemini.request(messages, tools, params)
    config: dict[str, object] = dict(body.get("generationConfig") or {})
    for key in ("systemInstruction", "tools", "toolConfig"):
        if key in body:
            config[key] = body[key]
    options: dict[str, object] = {}
    if extra:
        options["extra_body"] = extra
    if params.get("extra_headers"):
        options["headers"] = dict(params["extra_headers"])
    if options:
        config["httpOptions"] = options
    cfg = types.GenerateContentConfig.model_validate(config)
    response = await client.client.aio.models.generate_content(model=model_id, contents=body["contents"], config=cfg)
    raw = _raw(response)
    text, finish, _ = summary(raw)
    return ModelResponse(
        text=text, finish_reason=finish, usage=_usage.call_usage(*tokens(raw), prices), raw=raw, tool_calls=_calls(raw)
    )
