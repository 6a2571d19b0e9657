"""Models: the client protocol, its responses, tool calls and usage."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol, TypedDict, runtime_checkable

if TYPE_CHECKING:
    from .benchmark import AttemptContext


# --------------------------------------------------------------------------- models


def add_cost(a: float | None, b: float | None) -> float | None:
    """The sum of two costs in USD; unknown (None) when either is unknown (an unknown price is never $0)."""
    return None if a is None or b is None else a + b


def sum_cost(values: Any) -> float | None:
    """The sum of costs in USD (None entries make it unknown; no entries: 0)."""
    total: float | None = 0.0
    for value in values:
        total = add_cost(total, value)
    return total


@dataclass
class Usage:
    """Tokens and cost of model calls. ``cost_usd`` is None when a call's price is unknown (no ``prices`` and the
    model id not in the price table). Calls answered from the response cache (or a replayed run) are not in the
    token and cost counts: ``cache_hits`` counts them and ``cost_saved_usd`` is what they cost when first made."""

    input_tokens: int = 0
    output_tokens: int = 0
    cached_tokens: int = 0
    cost_usd: float | None = 0.0
    n_calls: int = 0
    n_retries: int = 0
    cache_hits: int = 0
    cost_saved_usd: float | None = 0.0

    def add(self, other: Usage) -> Usage:
        self.input_tokens += other.input_tokens
        self.output_tokens += other.output_tokens
        self.cached_tokens += other.cached_tokens
        self.cost_usd = add_cost(self.cost_usd, other.cost_usd)
        self.n_calls += other.n_calls
        self.n_retries += other.n_retries
        self.cache_hits += other.cache_hits
        self.cost_saved_usd = add_cost(self.cost_saved_usd, other.cost_saved_usd)
        return self

    @property
    def total_tokens(self) -> int:
        return self.input_tokens + self.output_tokens

    def to_dict(self) -> dict[str, Any]:
        return {
            "input": self.input_tokens,
            "output": self.output_tokens,
            "cached": self.cached_tokens,
            "cost_usd": None if self.cost_usd is None else round(self.cost_usd, 8),
            "calls": self.n_calls,
            "retries": self.n_retries,
            "cache_hits": self.cache_hits,
            "cost_saved_usd": None if self.cost_saved_usd is None else round(self.cost_saved_usd, 8),
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any] | None) -> Usage:
        """The inverse of :meth:`to_dict` (missing keys: 0; a missing cost: 0, a null cost: unknown)."""
        data = data or {}
        return cls(
            input_tokens=int(data.get("input", 0) or 0),
            output_tokens=int(data.get("output", 0) or 0),
            cached_tokens=int(data.get("cached", 0) or 0),
            cost_usd=data.get("cost_usd", 0.0),
            n_calls=int(data.get("calls", 0) or 0),
            n_retries=int(data.get("retries", 0) or 0),
            cache_hits=int(data.get("cache_hits", 0) or 0),
            cost_saved_usd=data.get("cost_saved_usd", 0.0),
        )


class ChatFunctionCall(TypedDict):
    """The ``function`` of an OpenAI Chat Completions tool call: its name and its arguments as JSON text."""

    name: str
    arguments: str


class ChatToolCall(TypedDict):
    """An entry of an OpenAI Chat Completions assistant message's ``tool_calls``, as sent on the wire."""

    id: str
    type: str
    function: ChatFunctionCall


@dataclass
class ToolCall:
    """One function call of a model reply. ``arguments`` is the JSON text the model produced (not parsed)."""

    id: str
    name: str
    arguments: str = "{}"

    def to_message(self) -> ChatToolCall:
        """The call as an entry of an assistant message's ``tool_calls`` (OpenAI chat form)."""
        return {"id": self.id, "type": "function", "function": {"name": self.name, "arguments": self.arguments}}


@dataclass
class ModelResponse:
    text: str
    finish_reason: str = "stop"  # "stop" | "length" | "tool_calls" | provider value
    usage: Usage = field(default_factory=Usage)
    raw: Any = None
    tool_calls: list[ToolCall] = field(default_factory=list)
    source: str = "endpoint"  # endpoint | cache (the response cache) | replay (a recorded run's call)


@runtime_checkable
class ModelClient(Protocol):
    """One model endpoint. ``usage`` accumulates every call made through this client."""

    model_id: str
    provider: str
    usage: Usage

    async def complete(
        self, messages: list[dict[str, Any]], *, tools: list[dict[str, Any]] | None = None, **params: Any
    ) -> ModelResponse:
        """Send a chat and return the reply.

        Messages use the OpenAI chat form on every protocol: ``{role, content}`` with roles system / user /
        assistant / tool; an assistant message may carry ``tool_calls`` (``[{id, type: "function", function:
        {name, arguments}}]``, see :meth:`ToolCall.to_message`) and a ``tool`` message answers one call
        (``{role: "tool", tool_call_id, content}``). ``tools`` are function tools in the OpenAI chat form
        (``{type: "function", function: {name, description, parameters}}``); each protocol receives them,
        the calls and their results in its own form, and the reply's calls come back as
        :attr:`ModelResponse.tool_calls`.

        Raises: ModelRetryableError (429, 408, 5xx, a dropped connection, a timeout: after the client's own
        retries are used up), ContextLengthExceededError, ModelError (any other refusal: 400, 401, 403, 404;
        never retried). The messages never contain the API key."""
        ...

    def fork(self, attempt: AttemptContext | None = None) -> ModelClient:
        """A client sharing the connection and limits but with its own ``usage`` (one per attempt). Given the
        attempt's context, the client records each call in ``<attempt_dir>/model_calls.jsonl`` (``docs/gateway.md``),
        keys its calls by the attempt's sample in the response cache and, with ``--replay``, answers them from that
        task's recorded calls."""
        ...

    async def aclose(self) -> None: ...
