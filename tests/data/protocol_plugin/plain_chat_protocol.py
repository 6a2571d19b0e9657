"""A model protocol from outside the package: ``plain-chat``, the OpenAI chat wire format spoken with plain httpx
(no SDK), registered through the ``agentcompass.model_protocols`` entry-point group. Everything about it is here."""

from __future__ import annotations

from typing import Any

from agentcompass.errors import ModelError, ModelRetryableError
from agentcompass.interfaces import ModelResponse, ToolCall, Usage

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


def _cost(n_in: int, n_out: int, prices: Any) -> float | None:
    if prices is None:
        return None
    return (n_in * prices.input_per_mtok + n_out * prices.output_per_mtok) / 1e6


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
    if resp.status_code >= 400:
        kind = ModelRetryableError if resp.status_code >= 500 or resp.status_code == 429 else ModelError
        raise kind(f"plain-chat: HTTP {resp.status_code}", status=resp.status_code)
    reply = resp.json()
    choice = reply["choices"][0]
    message = choice["message"]
    n_in, n_out = reply["usage"]["prompt_tokens"], reply["usage"]["completion_tokens"]
    usage = Usage(input_tokens=n_in, output_tokens=n_out, cost_usd=_cost(n_in, n_out, prices), n_calls=1)
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
