"""Forwarding a request in an API's wire form through a model client (what the gateway serves agents with).

The body goes to the endpoint as the agent wrote it, with the request's model id; the client's retries, fail-fast
circuit, provider slot, usage, prices and call record apply as to :meth:`Model.complete`. Retries happen only
before the first byte goes back: a non-streamed reply is read whole inside the retried step, a streamed one up to
its first chunk. A stream that fails later ends with a well-formed error event of the protocol. An endpoint that
answers a streamed request with a plain JSON body (it does not stream) is served by a stream synthesized from it;
a chat stream always asks the endpoint for its usage chunk (counted) and passes it on only when the agent asked.
The request goes out on the client's plain HTTP pool (:mod:`._upstream`, no SDK); a stream in the agent's own
protocol is passed on byte for byte as it arrives (only a usage chunk the agent did not ask for is cut out) and
assembled once it has ended, off the agent's path.

When the endpoint does not speak the agent's API, the request carries a translation (``translate``, given by the
gateway: ``agentcompass.gateway.translate``): the translated body goes upstream, and the reply (a body, a stream
event by event, or a stream synthesized from a body) comes back in the agent's API.
"""

from __future__ import annotations

import contextlib
import json
import re
import time
from collections.abc import AsyncIterator, Mapping
from dataclasses import dataclass, field
from typing import Any

from agentcompass.errors import AttemptLimitReached, ModelError

from . import _forward_plan, _forward_record, _streams, _upstream
from ._cache import wire as _wire_cache
from ._cache.wire_replay import replay_request
from ._retry import call_with_retries
from .protocols import wire

FORWARDED_HEADERS = ("anthropic-version", "anthropic-beta", "openai-beta")


@dataclass
class ForwardRequest:
    """One agent request: its API (``protocol``), JSON ``body``, the path after the API's own (``suffix``:
    ``/count_tokens``), query parameters and the headers among :data:`FORWARDED_HEADERS` to pass on."""

    protocol: str
    body: dict[str, Any]
    suffix: str = ""
    query: dict[str, str] = field(default_factory=dict)
    headers: dict[str, str] = field(default_factory=dict)
    # (endpoint protocol, body with the model id) -> a translation (``request``, ``warnings``, ``reply(body)``,
    # ``stream()``), None when there is none for that protocol
    translate: Any = None
    model: str | None = None  # the model id to send (``gateway.model_map``); None: the client's
    raw: bytes | None = None  # the body as received: sent unchanged when nothing in it changes


_USAGE_ONLY = re.compile(rb'"choices"\s*:\s*\[\s*\]')


class Forwarded:
    """The endpoint's answer on its way to the agent: ``content_type``, then :meth:`chunks` (iterate once); always
    :meth:`aclose` (records the call, counts its usage, releases the connection and the provider slot)."""

    def __init__(self, model: Any, req: ForwardRequest, protocol: str, translation: Any = None) -> None:
        self.model, self.req, self.protocol, self.translation = model, req, protocol, translation
        self.route = model._route(protocol)
        self.chat_wire = wire(protocol) == "openai-chat"  # a chat stream: its usage chunk is asked for
        self.model_id = req.model or model.model_id
        self.agent_body = {**req.body, "model": self.model_id}
        self.warnings: list[str] = list(translation.warnings) if translation is not None else []
        self.stream = bool(req.body.get("stream")) and not req.suffix
        self.include_usage = bool((req.body.get("stream_options") or {}).get("include_usage"))
        self.body: dict[str, Any] | None = None  # the reply as a non-streamed body (assembled)
        self.raw: bytes | None = None  # a non-streamed reply as received
        self.retries, self.http_status, self.ttft = 0, None, None
        self.upstream_sse = False
        self.stream_error: Mapping[str, object] | None = None  # an error the stream itself carried (or its early end)
        self._error: BaseException | None = None
        self._stack = contextlib.AsyncExitStack()
        self._resp: Any = None
        self._first = b""
        self._parts: list[bytes] = []  # a passed-through stream as received (assembled at the end)
        self._rest = b""
        self._data: bytes | None = None
        self._closed = False
        self.finished = False  # the bytes :meth:`chunks` just gave are the answer's last
        rec = model._recorder
        self.began = rec.begin() if rec is not None else (0, time.monotonic(), "")
        self.pending: Any = None  # the response cache's entry of this call (None: no cache)
        self.hit = False
        self.replayed = False  # answered from a recorded run (--replay)

    def from_cache(self, body: dict[str, Any]) -> None:
        """Answer from the response cache: the stored body, no HTTP request."""
        self.body, self.raw, self.hit = body, json.dumps(body).encode(), True

    @property
    def cache_mark(self) -> str:
        """How the call is marked in model_calls.jsonl: replay, hit, miss or off."""
        return "replay" if self.replayed else "hit" if self.hit else "off" if self.pending is None else "miss"

    @property
    def content_type(self) -> str:
        return "text/event-stream" if self.stream else "application/json"

    def upstream_body(self) -> dict[str, object]:
        body = dict(self.agent_body if self.translation is None else self.translation.request)
        if hasattr(self.route.module, "url"):  # the model and the streaming are in the URL (the Gemini API)
            body.pop("model", None)
            body.pop("stream", None)
        if self.stream and self.chat_wire:
            body["stream_options"] = {**(body.get("stream_options") or {}), "include_usage": True}
        return body

    def _unchanged(self) -> bytes | None:
        """The agent's own bytes, when the body sent is exactly the agent's: its API, its model name already the
        one sent, and nothing to add (a chat stream's usage chunk the agent asked for itself)."""
        req = self.req
        if req.raw is None or self.translation is not None or req.body.get("model") != self.model_id:
            return None
        if self.stream and self.chat_wire and not self.include_usage:
            return None
        return req.raw

    def on_retry(self) -> None:
        self.retries += 1
        self.model.usage.n_retries += 1
        self.model._shared.total.n_retries += 1

    async def open(self) -> None:
        """One try: send, then read the whole reply (not streamed) or its first chunk (streamed)."""
        await self._stack.aclose()
        self._stack = contextlib.AsyncExitStack()
        model, route = self.model, self.route
        pool = _upstream.pool_of(model._shared, model.config.request_timeout_s)
        if self._data is None:
            self._data = (
                self._unchanged()
                or json.dumps(self.upstream_body(), ensure_ascii=False, separators=(",", ":")).encode()
            )
        url, query = _upstream.url_of(route, self.model_id, self.stream, self.req.suffix, self.req.query)
        head = _upstream.headers(route.family, route.key, self.req.headers, pool.user_agent)
        try:
            with model._watch(self.protocol, route.module):
                await self._stack.enter_async_context(_as_async(model._shared.slot()))
                resp = self._resp = await _upstream.send(pool, url, self._data, head, query)
                self._stack.callback(resp.release)
                self.http_status = resp.status
                self.upstream_sse = "text/event-stream" in resp.headers.get("Content-Type", "")
                if self.stream and self.upstream_sse:
                    self._first = await resp.content.readany()
                else:
                    self.raw = await resp.read()
                    self.body = (
                        _forward_plan.assembled(self.protocol, self.raw)[0]
                        if self.upstream_sse
                        else json.loads(self.raw)
                    )
        except BaseException:
            await self._stack.aclose()
            raise

    def _whole(self) -> bytes:
        """The agent's answer from a whole (non-streamed) reply: the body, or a stream synthesized from it."""
        body, agent = self.body or {}, self.req.protocol
        if self.translation is not None:
            body = self.translation.reply(body)
        if self.stream:
            events = _streams.synthesize(agent, body, include_usage=self.include_usage)
            return b"".join(_streams.encode(e, d) for e, d in events)
        if self.translation is None and not self.upstream_sse:
            return self.raw
        return json.dumps(body, ensure_ascii=False).encode()

    async def chunks(self) -> AsyncIterator[bytes]:
        t0 = self.began[1]
        if not (self.stream and self.upstream_sse):
            data = self._whole()
            self.ttft, self.finished = time.monotonic() - t0, True
            yield data
            return
        relay = self._passed if self.translation is None else self._translated()
        whole = self.translation is None and (self.include_usage or not self.chat_wire)
        try:
            chunk = self._first
            while True:
                out = relay(chunk)
                self.finished = whole and bool(chunk) and self._resp.content.at_eof()  # as received, to its end
                if out:
                    if self.ttft is None:
                        self.ttft = time.monotonic() - t0
                    yield out
                if not chunk:
                    break
                chunk = await self._resp.content.readany()
        except Exception as exc:
            self._error = exc
            message = f"upstream stream failed: {exc}"
            turn = getattr(relay, "turn", None)
            events = (
                turn.fail(502, message) if turn is not None else [_streams.error_event(self.protocol, 502, message)]
            )
            yield b"".join(_streams.encode(e, d) for e, d in events)

    def _passed(self, chunk: bytes) -> bytes:
        """The agent's bytes for one chunk of a stream in its own protocol: the chunk as received, or (a chat
        stream whose usage chunk the agent did not ask for) its complete events but that one."""
        self._parts.append(chunk)
        if self.include_usage or not self.chat_wire:
            return chunk
        buf = self._rest + chunk
        if not chunk:
            self._rest = b""
            return buf
        events = buf.replace(b"\r\n", b"\n").split(b"\n\n")
        self._rest = events.pop()
        return b"".join(e + b"\n\n" for e in events if not (_USAGE_ONLY.search(e) and b'"usage"' in e))

    def _translated(self) -> Any:
        """The relay of a translated stream: the endpoint's events in, the agent's out (assembled on the way)."""
        asm, parser, turn = _streams.assembler(self.protocol), _streams.SSEParser(), self.translation.stream()

        def relay(chunk: bytes) -> bytes:
            out = []
            for event, text in parser.feed(chunk) if chunk else parser.close():
                try:
                    data = text if text == "[DONE]" else json.loads(text)
                except ValueError:
                    data = None
                asm.feed(event, data)
                out += turn.feed(event, data)
            self.body, self.stream_error = asm.body(), asm.error
            if not chunk:
                tail, ended = turn.finish()
                out += tail
                if not ended and self.stream_error is None:
                    self.stream_error = {"message": "the endpoint's stream ended before its last event"}
            return b"".join(_streams.encode(e, d) for e, d in out)

        relay.turn = turn  # type: ignore[attr-defined]
        return relay

    async def aclose(self, error: BaseException | None = None) -> None:
        """Record the call and count its usage (once); release the connection and the provider slot."""
        if self._closed:
            return
        self._closed = True
        error = error or getattr(self, "_error", None)
        try:
            await self._stack.aclose()
        finally:
            if self._parts:  # a passed-through stream: assembled now that the agent has it all
                self.body, self.stream_error = _forward_plan.assembled(self.protocol, b"".join(self._parts))
            _forward_record.account(self, error)
        whole = error is None and self.stream_error is None and self.body is not None
        if self.pending is not None and not self.hit and whole:
            await _wire_cache.keep(self.model._calls, self.pending, _wire_cache.reply_of(self.protocol, self.body))


async def forward(model: Any, req: ForwardRequest) -> Forwarded:
    """Send ``req`` to the model's endpoint (see the module doc). Raises the client's typed ModelErrors (after its
    retries) when no answer can be had; the caller turns them into the agent's API error."""
    try:
        if not req.suffix:
            model._calls.check_limit(model.usage)  # execution.attempt_cost_limit_usd
            model._limits.admit(model.usage)  # execution.attempt_max_model_calls / attempt_max_tokens_total
        protocol, translation = _forward_plan.upstream_of(model, req)
    except AttemptLimitReached as exc:
        _forward_record.refused(model, req, exc, "limit")
        raise
    except ModelError as exc:
        _forward_record.refused(model, req, exc)
        raise
    if translation is not None:
        warned = model.__dict__.setdefault("_warned", set())
        for warning in translation.warnings:
            if warning not in warned:  # once per attempt in the run log; on every call in model_calls.jsonl
                warned.add(warning)
                model._log.warning("model gateway (%s -> %s): %s", req.protocol, protocol, warning)
    call = Forwarded(model, req, protocol, translation)
    if model._recorder is not None:
        model._recorder.add_secret(call.route.key)
    if model._calls.wire_recorded is not None:  # --replay: from the recorded run, never from the endpoint
        await _replayed(call)
        return call
    if not req.suffix and translation is None:  # the response cache (not count_tokens, not translated calls)
        request = _wire_cache.wire_request(req.protocol, call.route.endpoint, call.model_id, call.agent_body)
        call.pending, stored = await _wire_cache.lookup(model._calls, request)
        if stored is not None and isinstance(raw := stored.get("raw"), dict):
            call.from_cache(raw)
            return call
    try:
        await call_with_retries(
            call.open,
            model._policy,
            protocol=req.protocol,
            endpoint=call.route.endpoint,
            secret=call.route.key,
            log=model._log,
            on_retry=call.on_retry,
        )
    except BaseException as exc:
        await call.aclose(exc)
        raise
    return call


async def _replayed(call: Forwarded) -> None:
    """Answer ``call`` with the recorded reply of the same request (its failure, or no such request, is raised
    after the call's record line is written)."""
    req, call.replayed = call.req, True
    request = replay_request(
        req.protocol, call.protocol, call.route.endpoint, req.suffix, call.model_id, call.agent_body
    )
    try:
        call.from_cache(call.model._calls.wire_recorded.answer(request))
    except ModelError as exc:
        await call.aclose(exc)
        raise


@contextlib.asynccontextmanager
async def _as_async(cm: Any) -> AsyncIterator[None]:
    if hasattr(cm, "__aenter__"):
        async with cm:
            yield
    else:
        with cm:
            yield
