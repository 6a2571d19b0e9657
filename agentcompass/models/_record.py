"""``model_calls.jsonl``: one JSON line per model call of an attempt, written by the attempt's client.

The line format is documented in ``docs/gateway.md`` ("The call record"). No credential is written
(:mod:`._secrets`): the request's ``params`` are masked by position (credential-named values, header values, URL
user info), then every credential the recorder knows (the client's API key and credential parameters, the gateway
tokens of the attempt) and every secret the run registered is replaced by ``<redacted>`` in the serialized line.
Lines are appended with one ``write`` each (``O_APPEND``), so a crash leaves whole lines.
"""

from __future__ import annotations

import json
import os
import threading
import time
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from agentcompass.errors import AttemptLimitReached
from agentcompass.interfaces import ModelResponse, Usage

from ._cache.records import RecordedError, StoredReply
from ._secrets import MARK, Credentials, request_params

REDACTED = MARK
FILE_NAME = "model_calls.jsonl"
VERSION = 1


class CallRecorder:
    """Appends call lines to ``path`` (created with its parents on the first line)."""

    def __init__(self, path: Path, secrets: list[str] | None = None) -> None:
        self.path = path
        self._secrets = Credentials(set(secrets or ()))
        self._seq = 0
        self._made = False  # the directory exists (made with the first line)
        self._lock = threading.Lock()
        self.tags: dict[str, object] = {}  # fields every line carries (a model role's client: {"role": name})

    def add_secret(self, value: str | None) -> None:
        self._secrets.add(value)

    def begin(self) -> tuple[int, float, str]:
        """A new call: its ``seq``, monotonic start and ISO start time."""
        with self._lock:
            self._seq += 1
            return self._seq, time.monotonic(), datetime.now(UTC).isoformat(timespec="milliseconds")

    def write(self, line: dict[str, object]) -> None:
        request = line.get("request")
        if isinstance(request, dict) and isinstance(request.get("params"), dict):
            line = {**line, "request": {**request, "params": request_params(request["params"])}}
        text = json.dumps({"v": VERSION, **self.tags, **line}, ensure_ascii=False, default=str, separators=(",", ":"))
        text = self._secrets.scrub(text)
        data = (text + "\n").encode()
        with self._lock:
            if not self._made:
                self.path.parent.mkdir(parents=True, exist_ok=True)
                self._made = True
            fd = os.open(self.path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
            try:
                os.write(fd, data)
            finally:
                os.close(fd)


def usage_dict(usage: Usage) -> dict[str, object]:
    return {
        "input": usage.input_tokens,
        "output": usage.output_tokens,
        "cached": usage.cached_tokens,
        "cost_usd": None if usage.cost_usd is None else round(usage.cost_usd, 8),  # None: unknown price
        **({"cache_hits": usage.cache_hits} if usage.cache_hits else {}),
    }


def raw_json(raw: Any) -> Any:
    """The JSON body of an SDK response object (as received: unset fields left out)."""
    if raw is None or isinstance(raw, (dict, list)):
        return raw
    for name in ("to_dict", "model_dump"):
        dump = getattr(raw, name, None)
        if dump is not None:
            try:
                return dump(mode="json", exclude_unset=True) if name == "model_dump" else dump()
            except TypeError:
                return dump()
    return str(raw)


def response_entry(response: ModelResponse, raw: Any = None) -> StoredReply:
    return {
        "text": response.text,
        "finish_reason": response.finish_reason,
        "tool_calls": [{"id": c.id, "name": c.name, "arguments": c.arguments} for c in response.tool_calls],
        "usage": usage_dict(response.usage),
        "raw": raw_json(response.raw if raw is None else raw),
    }


def error_entry(exc: BaseException) -> RecordedError:
    return {"type": type(exc).__name__, "message": str(exc)[:2000]}


def line(
    seq: int,
    t0: float,
    started: str,
    *,
    source: str,
    upstream_protocol: str,
    model: str,
    endpoint: str,
    request: dict[str, object],
    response: StoredReply | None,
    status: str,
    usage: Usage,
    retries: int,
    **extra: Any,
) -> dict[str, object]:
    """One record line (see the module doc for the fields' meaning)."""
    out: dict[str, object] = {
        "seq": seq,
        "time": started,
        "source": source,
        "agent_protocol": extra.pop("agent_protocol", None),
        "upstream_protocol": upstream_protocol,
        "model": model,
        "endpoint": endpoint,
        "stream": extra.pop("stream", {"agent": False, "upstream": False}),
        "request": request,
        "response": response,
        "status": status,
        "http_status": extra.pop("http_status", None),
        "error": extra.pop("error", None),
        "usage": usage_dict(usage),
        "latency_s": round(time.monotonic() - t0, 6),
        "retries": retries,
        "cache": extra.pop("cache", "off"),
        "key": extra.pop("key", None),
        "warnings": extra.pop("warnings", []),
    }
    out.update(extra)
    return out


def complete_line(
    began: tuple[int, float, str],
    model_id: str,
    endpoint: str,
    protocol: str,
    messages: Sequence[Mapping[str, object]],
    params: Mapping[str, object],
    tools: Sequence[Mapping[str, object]] | None,
    response: ModelResponse | None,
    retries: int,
    error: BaseException | None,
    *,
    cache: str = "off",
    key: str | None = None,
    usage: Usage | None = None,
) -> dict[str, object]:
    """The line of one ``Model.complete`` call: the request in chat form, as the client got it. ``cache``: off,
    miss, hit (answered from the response cache) or replay (from a recorded run); ``usage``: what the call added
    to the attempt's usage when it is not the response's (a hit adds no tokens and no cost)."""
    request: dict[str, object] = {
        "protocol": protocol,
        "model": model_id,
        "messages": messages,
        "tools": tools,
        "params": params,
    }
    return line(
        *began,
        source="client",
        upstream_protocol=protocol,
        model=model_id,
        endpoint=endpoint,
        request=request,
        response=response_entry(response) if response is not None else None,
        status="ok" if error is None else "limit" if isinstance(error, AttemptLimitReached) else "error",
        usage=usage if usage is not None else response.usage if response is not None else Usage(),
        retries=retries,
        http_status=None if cache in ("hit", "replay") else 200 if error is None else getattr(error, "status", None),
        error=None if error is None else error_entry(error),
        cache=cache,
        key=key,
    )
