"""A model protocol from outside the package: ``plain-chat``, the OpenAI chat wire format spoken with plain httpx
(no SDK), registered through the ``agentcompass.model_protocols`` entry-point group. Everything about it is here."""

from __future__ import annotations

from typing import Any

from agentcompass.interfaces import ModelResponse, ToolCall, Usage
from agentcompass.models._errors import UpstreamStatus

PROTOCOL = "plain-chat"
PATH = "/chat/completions"
FAMILY = "openai"  # OPENAI_API_KEY / OPENAI_BASE_URL, Authorization: Bearer
WIRE = "openai-chat"  # its replies and streams are chat completions
RENAMES = {"max_output_tokens": "max_tokens", "stop_sequences": "stop"}


def auto(base_url: str | None, model_id: str) -> bool:
    """``api_protocol: auto`` tries it first for the models named ``plain-*``."""
    return model_id.startswith("plain-")


def make_client(base_url: str, api_key: str, timeout: float) -> Any:
    """A client with ``async close()`` (called when the model client closes)."""
    import httpx

    class Client(httpx.AsyncClient):
        async def close(self) -> None:
            await self.aclose()

    return Client(base_url=base_url + "/", headers={"Authorization": f"Bearer {api_key}"}, timeout=timeout)


def _cost(n_in: int, n_out: int, cached: int, prices: Any) -> float | None:
    if prices is None:
        return None
    cached_price = prices.input_per_mtok if prices.cached_input_per_mtok is None else prices.cached_input_per_mtok
    return ((n_in - cached) * prices.input_per_mtok + cached * cached_price + n_out * prices.output_per_mtok) / 1e6


async def call(
    client: Any,
    model_id: str,
    messages: list[dict[str, Any]],
    params: dict[str, Any],
    prices: Any,
    tools: list[dict[str, Any]] | None = None,
) -> ModelResponse:
    body = {"model": model_id, "messages": messages, **{RENAMES.get(k, k): v for k, v in params.items()}}
    if tools:
        body["tools"] = tools
    resp = await client.post(PATH.lstrip("/"), json=body)
    if resp.status_code >= 400:  # classified by the model layer: retried, context length, unsupported endpoint
        raise UpstreamStatus(resp.status_code, resp.headers, resp.json())
    reply = resp.json()
    choice = reply["choices"][0]
    message = choice["message"]
    tokens = reply.get("usage") or {}
    n_in, n_out = tokens.get("prompt_tokens", 0), tokens.get("completion_tokens", 0)
    cached = (tokens.get("prompt_tokens_details") or {}).get("cached_tokens") or 0
    cost = _cost(n_in, n_out, cached, prices)
    usage = Usage(input_tokens=n_in, output_tokens=n_out, cached_tokens=cached, cost_usd=cost, n_calls=1)
    calls = [
        ToolCall(id=c["id"], name=c["function"]["name"], arguments=c["function"]["arguments"])
        for c in message.get("tool_calls") or []
    ]
    return ModelResponse(
        text=message.get("content") or "",
        finish_reason=choice.get("finish_reason") or "stop",
        usage=usage,
        raw=reply,
        tool_calls=calls,
    )
