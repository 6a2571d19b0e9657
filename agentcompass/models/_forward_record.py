"""The accounting of a forwarded call (the gateway's): its usage added once to the attempt's client, and its line
in ``model_calls.jsonl`` (see ``docs/gateway.md``, the call record)."""

from __future__ import annotations

from typing import Any

from agentcompass.interfaces import Usage

from . import _record, _usage, _wire
from ._cache.records import StoredReply


def account(call: Any, error: BaseException | None) -> None:
    """Count ``call``'s usage (from the endpoint's reply) and write its record line."""
    model, body, req = call.model, call.body, call.req
    usage = Usage()
    if body is not None and not req.suffix:
        usage = _usage.call_usage(*_wire.tokens(call.protocol, body), model._shared.price.prices)
        if call.hit:  # no tokens and no cost were spent: a hit, and what it saved
            usage = Usage(cache_hits=1, cost_saved_usd=usage.cost_usd)
        model.usage.add(usage)
        model._shared.total.add(usage)
    stream_error = call.stream_error
    failed = error is not None or stream_error is not None or (call.stream and call.upstream_sse and body is None)
    rec = model._recorder
    if rec is None:
        return
    text, finish, calls = _wire.summary(call.protocol, body)
    response: StoredReply | None = None
    if body is not None:
        response = {"text": text, "finish_reason": finish, "tool_calls": calls, "usage": _record.usage_dict(usage)}
        response["raw"] = body
    extra = {"upstream_request": call.upstream_body()} if call.translation is not None else {}
    rec.write(
        _record.line(
            *call.began,
            source="gateway",
            agent_protocol=req.protocol,
            upstream_protocol=call.protocol,
            model=call.model_id,
            endpoint=call.route.endpoint + req.suffix,
            stream={"agent": call.stream, "upstream": call.upstream_sse},
            request={"protocol": req.protocol, "model": call.model_id, "path": req.suffix, "body": call.agent_body},
            **extra,
            warnings=call.warnings,
            response=response,
            status="error" if failed else "ok",
            http_status=call.http_status,
            error=_record.error_entry(error) if error is not None else stream_error,
            usage=usage,
            retries=call.retries,
            ttft_s=None if call.ttft is None else round(call.ttft, 6),
            cache=call.cache_mark,
            key=None if call.pending is None else call.pending.key,
        )
    )


def refused(model: Any, req: Any, exc: BaseException, status: str = "error") -> None:
    """The record line of a call refused before anything was sent (no translation for it; ``limit``: a limit
    of the attempt)."""
    rec = model._recorder
    if rec is None:
        return
    model_id = req.model or model.model_id
    body = {**req.body, "model": model_id}
    rec.write(
        _record.line(
            *rec.begin(),
            source="gateway",
            agent_protocol=req.protocol,
            upstream_protocol=None,
            model=model_id,
            endpoint=None,
            stream={"agent": bool(req.body.get("stream")), "upstream": False},
            request={"protocol": req.protocol, "model": model_id, "path": req.suffix, "body": body},
            response=None,
            status=status,
            http_status=None,
            error=_record.error_entry(exc),
            usage=Usage(),
            retries=0,
        )
    )
