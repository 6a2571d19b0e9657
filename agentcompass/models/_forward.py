"""Forwarding a request in an API's wire form through a model client (what the gateway serves agents with).

The body goes to the endpoint as the agent wrote it, with the request's model id; the client's retries, fail-fast
circuit, provider slot, usage, prices and call record apply as to :meth:`Model.complete`. Retries happen only
before the first byte goes back: a non-streamed reply is read whole inside the retried step, a streamed one up to
its first chunk. A stream that fails later ends with a well-formed error event of the protocol. An endpoint that
answers a streamed request with a plain JSON body (it does not stream) is served by a stream synthesized from it;
a chat stream always asks the endpoint for its usage chunk (counted) and passes it on only when the agent asked.

When the endpoint does not speak the agent's API, the request carries a translation (``translate``, given by the
gateway: ``agentcompass.gateway.translate``): the translated body goes upstream, and the reply (a body, a stream
event by event, or a stream synthesized from a body) comes back in the agent's API.
"""

from __future__ import annotations

import contextlib
import json
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import Any

from agentcompass.errors import AttemptLimitReached, ModelError
from agentcompass.interfaces import Usage

from . import _record, _streams, _usage, _wire
from ._cache import wire as _wire_cache
from ._retry import call_with_retries

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


def _frame(event: str | None, data: str) -> bytes:
    return (f"event: {event}\ndata: {data}\n\n" if event else f"data: {data}\n\n").encode()


class Forwarded:
    """The endpoint's answer on its way to the agent: ``content_type``, then :meth:`chunks` (iterate once); always
    :meth:`aclose` (records the call, counts its usage, releases the connection and the provider slot)."""

    def __init__(self, model: Any, req: ForwardRequest, protocol: str, translation: Any = None) -> None:
        self.model, self.req, self.protocol, self.translation = model, req, protocol, translation
        self.route = model._route(protocol)
        self.model_id = req.model or model.model_id
        self.agent_body = {**req.body, "model": self.model_id}
        self.warnings: list[str] = list(translation.warnings) if translation is not None else []
        self.stream = bool(req.body.get("stream")) and not req.suffix
        self.include_usage = bool((req.body.get("stream_options") or {}).get("include_usage"))
        self.body: dict[str, Any] | None = None  # the reply as a non-streamed body (assembled)
        self.raw: bytes | None = None  # a non-streamed reply as received
        self.retries, self.http_status, self.ttft = 0, None, None
        self.upstream_sse = False
        self._stack = contextlib.AsyncExitStack()
        self._it: AsyncIterator[bytes] | None = None
        self._first = b""
        self._closed = False
        rec = model._recorder
        self._rec = rec.begin() if rec is not None else (0, time.monotonic(), "")
        self.pending: Any = None  # the response cache's entry of this call (None: no cache)
        self.hit = False

    def from_cache(self, body: dict[str, Any]) -> None:
        """Answer from the response cache: the stored body, no HTTP request."""
        self.body, self.raw, self.hit = body, json.dumps(body).encode(), True

    @property
    def content_type(self) -> str:
        return "text/event-stream" if self.stream else "application/json"

    def _upstream_body(self) -> dict[str, Any]:
        body = dict(self.agent_body if self.translation is None else self.translation.request)
        if self.stream and self.protocol == "openai-chat":
            body["stream_options"] = {**(body.get("stream_options") or {}), "include_usage": True}
        return body

    def on_retry(self) -> None:
        self.retries += 1
        self.model.usage.n_retries += 1
        self.model._shared.total.n_retries += 1

    async def open(self) -> None:
        """One try: send, then read the whole reply (not streamed) or its first chunk (streamed)."""
        await self._stack.aclose()
        self._stack = contextlib.AsyncExitStack()
        model, route = self.model, self.route
        module = route.module
        timeout = model.config.request_timeout_s
        client = model._shared.client(route.family, lambda: module.make_client(route.base, route.key, timeout))
        try:
            with model._watch(self.protocol, module):
                await self._stack.enter_async_context(_as_async(model._shared.slot()))
                answer = await client.post(
                    module.PATH + self.req.suffix,
                    cast_to=_response_type(),
                    body=self._upstream_body(),
                    stream=True,
                    options={"headers": dict(self.req.headers), "params": dict(self.req.query)},
                )
                # the anthropic SDK wraps a streamed raw response in its AsyncStream: the response is inside
                resp = answer if hasattr(answer, "aiter_bytes") else answer.response
                self._stack.push_async_callback(resp.aclose)
                self.http_status = resp.status_code
                self.upstream_sse = "text/event-stream" in resp.headers.get("content-type", "")
                self._it = resp.aiter_bytes()
                if self.stream and self.upstream_sse:
                    self._first = await anext(self._it, b"")
                else:
                    self.raw = b"".join([chunk async for chunk in self._it])
                    self.body = _assembled(self.protocol, self.raw) if self.upstream_sse else json.loads(self.raw)
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
        t0 = self._rec[1]
        if not (self.stream and self.upstream_sse):
            data = self._whole()
            self.ttft = time.monotonic() - t0
            yield data
            return
        asm, parser = _streams.assembler(self.protocol), _streams.SSEParser()
        turn = self.translation.stream() if self.translation is not None else None
        try:
            chunk = self._first
            while True:
                events = parser.feed(chunk) if chunk else parser.close()
                out = self._relay(events, asm) if turn is None else self._translated(events, asm, turn)
                if not chunk and turn is not None:
                    tail, ended = turn.finish()
                    out += b"".join(_streams.encode(e, d) for e, d in tail)
                    if not ended:
                        self._stream_error = {"message": "the endpoint's stream ended before its last event"}
                if out:
                    if self.ttft is None:
                        self.ttft = time.monotonic() - t0
                    yield out
                if not chunk:
                    break
                chunk = await anext(self._it, b"")
        except Exception as exc:
            self._error = exc
            message = f"upstream stream failed: {exc}"
            events = (
                turn.fail(502, message) if turn is not None else [_streams.error_event(self.protocol, 502, message)]
            )
            yield b"".join(_streams.encode(e, d) for e, d in events)
        finally:
            self.body = asm.body()
            self._stream_error = asm.error or getattr(self, "_stream_error", None)

    def _translated(self, events: list[tuple[str | None, str]], asm: Any, turn: Any) -> bytes:
        out = []
        for event, text in events:
            try:
                data = text if text == "[DONE]" else json.loads(text)
            except ValueError:
                data = None
            asm.feed(event, data)
            out += turn.feed(event, data)
        return b"".join(_streams.encode(e, d) for e, d in out)

    def _relay(self, events: list[tuple[str | None, str]], asm: Any) -> bytes:
        out = []
        for event, text in events:
            try:
                data = text if text == "[DONE]" else json.loads(text)
            except ValueError:
                data = None
            asm.feed(event, data)
            if (
                not self.include_usage
                and self.protocol == "openai-chat"
                and isinstance(data, dict)
                and not data.get("choices")
                and data.get("usage")
            ):
                continue  # the usage chunk the gateway asked for on its own behalf
            out.append(_frame(event, text))
        return b"".join(out)

    async def aclose(self, error: BaseException | None = None) -> None:
        """Record the call and count its usage (once); release the connection and the provider slot."""
        if self._closed:
            return
        self._closed = True
        error = error or getattr(self, "_error", None)
        try:
            await self._stack.aclose()
        finally:
            self._account(error)
        whole = error is None and getattr(self, "_stream_error", None) is None and self.body is not None
        if self.pending is not None and not self.hit and whole:
            await _wire_cache.keep(self.model._calls, self.pending, _wire_cache.reply_of(self.protocol, self.body))

    def _account(self, error: BaseException | None) -> None:
        model, body = self.model, self.body
        usage = Usage()
        if body is not None and not self.req.suffix:
            usage = _usage.call_usage(*_wire.tokens(self.protocol, body), model._shared.price.prices)
            if self.hit:  # no tokens and no cost were spent: a hit, and what it saved
                usage = Usage(cache_hits=1, cost_saved_usd=usage.cost_usd)
            model.usage.add(usage)
            model._shared.total.add(usage)
        stream_error = getattr(self, "_stream_error", None)
        failed = error is not None or stream_error is not None or (self.stream and self.upstream_sse and body is None)
        rec = model._recorder
        if rec is None:
            return
        text, finish, calls = _wire.summary(self.protocol, body)
        response = None
        if body is not None:
            response = {"text": text, "finish_reason": finish, "tool_calls": calls, "usage": _record.usage_dict(usage)}
            response["raw"] = body
        problem = _record.error_entry(error) if error is not None else stream_error
        rec.write(
            _record.line(
                *self._rec,
                source="gateway",
                agent_protocol=self.req.protocol,
                upstream_protocol=self.protocol,
                model=self.model_id,
                endpoint=self.route.endpoint + self.req.suffix,
                stream={"agent": self.stream, "upstream": self.upstream_sse},
                request={
                    "protocol": self.req.protocol,
                    "model": self.model_id,
                    "path": self.req.suffix,
                    "body": self.agent_body,
                },
                **({"upstream_request": self._upstream_body()} if self.translation is not None else {}),
                warnings=self.warnings,
                response=response,
                status="error" if failed else "ok",
                http_status=self.http_status,
                error=problem,
                usage=usage,
                retries=self.retries,
                ttft_s=None if self.ttft is None else round(self.ttft, 6),
                cache="hit" if self.hit else "off" if self.pending is None else "miss",
                key=None if self.pending is None else self.pending.key,
            )
        )


def _translated(model: Any, req: ForwardRequest) -> tuple[str, Any]:
    """The endpoint protocol to send ``req`` in and its translation (None: the agent's own protocol)."""
    shared = model._shared
    if req.protocol in shared.candidates:
        return req.protocol, None
    order = ([shared.chosen] if shared.chosen in shared.candidates else []) + list(shared.candidates)
    if req.translate is not None and not req.suffix:
        body = {**req.body, "model": req.model or model.model_id}
        for protocol in dict.fromkeys(order):
            translation = req.translate(protocol, body)
            if translation is not None:
                return protocol, translation
    what = "this route" if req.suffix else f"a request in {req.protocol}"
    raise ModelError(
        f"the endpoint of model {model.model_id!r} speaks {', '.join(shared.candidates)}; {what} has no translation "
        "to those protocols",
        status=400,
    )


async def forward(model: Any, req: ForwardRequest) -> Forwarded:
    """Send ``req`` to the model's endpoint (see the module doc). Raises the client's typed ModelErrors (after its
    retries) when no answer can be had; the caller turns them into the agent's API error."""
    if model._shared.plan.replay is not None:
        raise ModelError(
            "--replay answers the calls a harness makes itself (complete); an agent calling through the model "
            "gateway is not replayed",
            status=501,
        )
    try:
        if not req.suffix:
            model._calls.check_limit(model.usage)  # execution.attempt_cost_limit_usd
            model._limits.admit(model.usage)  # execution.attempt_max_model_calls / attempt_max_tokens_total
        protocol, translation = _translated(model, req)
    except AttemptLimitReached as exc:
        _refused(model, req, exc, "limit")
        raise
    except ModelError as exc:
        _refused(model, req, exc)
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
    if not req.suffix and translation is None:  # the response cache (not count_tokens, not translated calls)
        request = _wire_cache.wire_request(req.protocol, call.route.endpoint, call.model_id, call.agent_body)
        call.pending, stored = await _wire_cache.lookup(model._calls, request)
        if stored is not None and isinstance(stored.get("raw"), dict):
            call.from_cache(stored["raw"])
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


def _refused(model: Any, req: ForwardRequest, exc: BaseException, status: str = "error") -> None:
    """The record line of a call refused before anything was sent (no translation for it; ``limit``: a limit
    of the attempt)."""
    rec = model._recorder
    if rec is None:
        return
    model_id = req.model or model.model_id
    rec.write(
        _record.line(
            *rec.begin(),
            source="gateway",
            agent_protocol=req.protocol,
            upstream_protocol=None,
            model=model_id,
            endpoint=None,
            stream={"agent": bool(req.body.get("stream")), "upstream": False},
            request={
                "protocol": req.protocol,
                "model": model_id,
                "path": req.suffix,
                "body": {**req.body, "model": model_id},
            },
            response=None,
            status=status,
            http_status=None,
            error=_record.error_entry(exc),
            usage=Usage(),
            retries=0,
        )
    )


def _assembled(protocol: str, raw: bytes) -> dict[str, Any] | None:
    asm, parser = _streams.assembler(protocol), _streams.SSEParser()
    for event, text in parser.feed(raw) + parser.close():
        asm.feed(event, text if text == "[DONE]" else json.loads(text))
    return asm.body()


def _response_type() -> Any:
    import httpx

    return httpx.Response


@contextlib.asynccontextmanager
async def _as_async(cm: Any) -> AsyncIterator[None]:
    if hasattr(cm, "__aenter__"):
        async with cm:
            yield
    else:
        with cm:
            yield
