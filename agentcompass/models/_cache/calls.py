"""What a model client does around each call besides the HTTP request: the response cache, replay of a
recorded run, and the per-attempt cost limit.

:class:`CallPlan` is shared by a client and its forks (the cache database, the mode, the replay source, the
prices); :class:`AttemptCalls` is one fork's (its sample index, its call counter, how often it made each
request, its recorded calls when replaying). A call is answered, in this order: from the recording (replay:
the endpoint is never called, and a request that differs from the recorded one stops the attempt), from the
cache (``read_write`` / ``read_only``), else by the endpoint (and stored with ``read_write``).
"""

from __future__ import annotations

import asyncio
import collections
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agentcompass.errors import AttemptCostLimitReached, ConfigError
from agentcompass.interfaces import ModelResponse, ToolCall, Usage, add_cost

from .. import _usage
from .._secrets import Credentials
from ..config import Prices
from .key import cache_key, canonical_request, request_digest
from .records import CanonicalRequest, StoredReply
from .store import ResponseStore

SOURCE_ENDPOINT, SOURCE_CACHE, SOURCE_REPLAY = "endpoint", "cache", "replay"


@dataclass
class Pending:
    """One call being made: its place in the attempt, its canonical request and cache key."""

    seq: int
    request: CanonicalRequest
    key: str


def to_reply(response: ModelResponse) -> StoredReply:
    """A reply as stored (JSON): what a harness reads of a :class:`ModelResponse`."""
    raw = response.raw
    if hasattr(raw, "model_dump"):
        raw = raw.model_dump(mode="json")
    elif not isinstance(raw, (dict, list, str, int, float, type(None))):
        raw = repr(raw)
    return {
        "text": response.text,
        "finish_reason": response.finish_reason,
        "tool_calls": [{"id": c.id, "name": c.name, "arguments": c.arguments} for c in response.tool_calls],
        "usage": response.usage.to_dict(),
        "raw": raw,
    }


def from_reply(reply: StoredReply, prices: Prices | None, source: str) -> ModelResponse:
    """The :class:`ModelResponse` of a stored reply; its usage is the recorded one, priced with ``prices``."""
    usage = Usage.from_dict(reply.get("usage"))
    usage.n_retries, usage.cost_usd = 0, _usage.cost(usage, prices)
    calls = [
        ToolCall(id=c.get("id") or "", name=c["name"], arguments=c.get("arguments", "{}"))
        for c in reply.get("tool_calls") or []
    ]
    return ModelResponse(
        text=reply.get("text") or "",
        finish_reason=reply.get("finish_reason") or "stop",
        usage=usage,
        raw=reply.get("raw"),
        tool_calls=calls,
        source=source,
    )


class CallPlan:
    """The cache / replay settings of one client and its forks."""

    def __init__(
        self,
        mode: str,
        store: ResponseStore | None,
        prices: Prices | None,
        replay: Any = None,
        credentials: Credentials | None = None,
    ) -> None:
        self.mode, self.store, self.prices, self.replay = mode, store, prices, replay
        self.credentials = credentials or Credentials()  # kept out of stored replies (see .._secrets)

    @classmethod
    def from_config(cls, config: Any, data_dir: Path | None, prices: Prices | None) -> CallPlan:
        from .replay import Recording
        from .store import db_path

        store = None
        if config.cache != "off":
            if data_dir is None:
                raise ConfigError(f"model.cache={config.cache!r} needs a data_dir (runtime.data_dir)")
            store = ResponseStore(
                db_path(data_dir),
                expire_after_s=config.cache_expire_after_s(),
                max_bytes=int(config.cache_max_mb * 2**20) if config.cache_max_mb else None,
                read_only=config.cache == "read_only",
            )
        if config.replay and config.cache != "off":
            raise ConfigError(
                f"model.replay={config.replay!r} and model.cache={config.cache!r}: a replayed run never calls the "
                "endpoint, so it neither reads nor fills the cache; set one of them"
            )
        replay = Recording.open(config.replay) if config.replay else None
        return cls(config.cache, store, prices, replay, Credentials.of_config(config))

    def for_attempt(self, task_id: str | None, sample: int) -> AttemptCalls:
        return AttemptCalls(self, task_id, sample)


class AttemptCalls:
    """The calls of one attempt (or of a client that belongs to no attempt: sample 0)."""

    def __init__(self, plan: CallPlan, task_id: str | None, sample: int) -> None:
        self.plan, self.task_id, self.sample = plan, task_id, sample
        self.seq = 0
        self.cost_limit: float | None = None  # execution.attempt_cost_limit_usd
        self._seen: collections.Counter[str] = collections.Counter()
        self.recorded = plan.replay.calls_of(task_id, sample) if plan.replay is not None else None
        self.wire_recorded = plan.replay.wire_calls_of(task_id, sample) if plan.replay is not None else None

    @property
    def state(self) -> str:
        """How a call that reaches the endpoint is marked in model_calls.jsonl: ``miss`` with a cache, else off."""
        return "miss" if self.plan.store is not None else "off"

    @property
    def calls_endpoint(self) -> bool:
        return self.recorded is None

    def recorded_protocol(self, candidates: list[str]) -> str | None:
        """The protocol the recorded run used (replay keeps to it), when it is one of ``candidates``."""
        first = (self.recorded or [{}])[0].get("request", {}).get("protocol")
        return first if first in candidates else None

    def check_limit(self, usage: Usage) -> None:
        """Before a call: stop the attempt when its calls (answered from the cache included) reached the
        per-attempt cost limit."""
        limit = self.cost_limit
        spent = add_cost(usage.cost_usd, usage.cost_saved_usd)
        if limit is not None and spent is not None and spent >= limit:
            raise AttemptCostLimitReached(
                f"the attempt's model calls cost ${spent:.4f}, reaching execution.attempt_cost_limit_usd={limit}"
            )

    def begin(
        self,
        protocol: str,
        endpoint: str,
        model_id: str,
        messages: Sequence[Mapping[str, object]],
        tools: Sequence[Mapping[str, object]] | None,
        params: Mapping[str, object],
    ) -> Pending:
        self.seq += 1
        return self.begin_request(canonical_request(protocol, endpoint, model_id, messages, tools, params))

    def begin_request(self, request: CanonicalRequest) -> Pending:
        """A call of canonical ``request``: its key counts how often the attempt made the same request."""
        digest = request_digest(request)
        self._seen[digest] += 1
        return Pending(self.seq, request, cache_key(request, self.sample, self._seen[digest]))

    async def answer(self, pending: Pending) -> ModelResponse | None:
        """The reply from the recording or the cache, or None (the endpoint is to be called)."""
        if self.recorded is not None:
            reply = self.plan.replay.answer(self.recorded, pending.seq, pending.request, self.task_id, self.sample)
            return from_reply(reply, self.plan.prices, SOURCE_REPLAY)
        if self.plan.store is None:
            return None
        reply = await asyncio.to_thread(self.plan.store.get, pending.key)
        return None if reply is None else from_reply(reply, self.plan.prices, SOURCE_CACHE)

    async def keep(self, pending: Pending, response: ModelResponse) -> None:
        """Store the endpoint's reply (``read_write``)."""
        if self.plan.store is not None and self.plan.mode == "read_write":
            request, reply = pending.request, self.plan.credentials.scrub_json(to_reply(response))
            put = self.plan.store.put
            await asyncio.to_thread(put, pending.key, reply, model=request["model"], protocol=request["protocol"])


def hit_usage(response: ModelResponse) -> Usage:
    """What a call answered without the endpoint adds to the client's usage: no tokens, no cost; one hit and
    the cost saved."""
    return Usage(cache_hits=1, cost_saved_usd=response.usage.cost_usd)
