"""A real HTTP/1.1 server on 127.0.0.1 that answers like OpenAI / Anthropic / Gemini endpoints from a script."""

from __future__ import annotations

import json
import socket
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from agentcompass.models.wire import encode, synthesize

from . import gemini, shapes
from .script import FaultPlan, Reply, ReplySource, Script, load_yaml

_SECRET_HEADERS = {"authorization", "x-api-key", "api-key", "x-goog-api-key"}
_REASONS = {
    200: "OK",
    400: "Bad Request",
    401: "Unauthorized",
    404: "Not Found",
    405: "Method Not Allowed",
    408: "Request Timeout",
    429: "Too Many Requests",
    500: "Internal Server Error",
    502: "Bad Gateway",
    503: "Service Unavailable",
}


class _HTTPServer(ThreadingHTTPServer):
    daemon_threads = True
    request_queue_size = 1024
    owner: ScriptedModelServer

    def handle_error(self, request: Any, client_address: Any) -> None:
        """A client that went away (timeout, cancel) is normal here; anything else is printed."""
        import sys

        if not isinstance(sys.exc_info()[1], (ConnectionError, TimeoutError)):
            super().handle_error(request, client_address)


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    timeout = 120  # idle keep-alive connections are closed after this many seconds
    server: _HTTPServer

    def setup(self) -> None:
        super().setup()
        self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.server.owner._track(self.connection, True)

    def finish(self) -> None:
        self.server.owner._track(self.connection, False)
        super().finish()

    def log_message(self, format: str, *args: Any) -> None:
        return

    def do_GET(self) -> None:
        if self.path.rstrip("/") == "/v1/models":
            self.send_json(200, {"object": "list", "data": [{"id": "scripted", "object": "model"}]})
        else:
            self.send_json(404, shapes.error_body(self.path, 404, f"no route GET {self.path}"))

    def do_POST(self) -> None:
        raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        try:
            body = json.loads(raw or b"{}")
        except ValueError:
            self.send_json(400, shapes.error_body(self.path, 400, "request body is not JSON"))
            return
        self.server.owner._serve(self, body)

    def send_json(self, status: int, payload: Any, headers: dict[str, str] | None = None) -> None:
        data = payload if isinstance(payload, bytes) else json.dumps(payload).encode()
        self.send_raw(status, data, headers)

    def send_raw(self, status: int, data: bytes, headers: dict[str, str] | None = None) -> None:
        """Status line, headers and body in one write (no Nagle delay between them)."""
        lines = [
            f"HTTP/1.1 {status} {_REASONS.get(status, 'Status')}",
            "Content-Type: application/json",
            f"Content-Length: {len(data)}",
        ]
        lines += [f"{k}: {v}" for k, v in (headers or {}).items()]
        self.wfile.write(("\r\n".join(lines) + "\r\n\r\n").encode("latin-1") + data)

    def send_events(
        self, events: list[bytes], drop_after: int | None = None, delay_s: float = 0.0, end_delay_s: float = 0.0
    ) -> None:
        """A 200 ``text/event-stream`` reply, one HTTP chunk per event (``drop_after``: cut the connection after
        that many events, without the terminating chunk; ``end_delay_s``: the pause before the terminating chunk)."""
        head = "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n"
        self.wfile.write((head + "Cache-Control: no-cache\r\n\r\n").encode("latin-1"))
        for i, event in enumerate(events):
            if drop_after is not None and i >= drop_after:
                self.wfile.flush()
                self.drop()
                return
            if delay_s and i:
                time.sleep(delay_s)
            self.wfile.write(b"%x\r\n%s\r\n" % (len(event), event))
        if end_delay_s:
            time.sleep(end_delay_s)
        self.wfile.write(b"0\r\n\r\n")

    def drop(self) -> None:
        self.close_connection = True
        try:
            self.connection.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass


class ScriptedModelServer:
    """Serves ``/v1/chat/completions``, ``/v1/responses``, ``/v1/messages`` and the Gemini API
    (``/v1beta/models/{model}:generateContent`` / ``:streamGenerateContent`` / ``:countTokens``, :mod:`.gemini`)
    from a script.

    ``replies``: a list (each a string or ``{text, tool_calls, finish_reason, usage, status, headers, body,
    error, code, delay_s}``), handed out in order, a YAML file path (or a shipped example's name), or a callable
    ``f(request) -> reply``. ``tasks`` instead: a mapping of marker text to a task's replies, each request answered
    from the task whose marker occurs in its opening text, at its number of assistant turns (:mod:`.keyed`).
    ``tool_calls`` (``[{name, arguments, id?}]``, arguments a JSON string or a mapping) come back in the protocol's own
    form (chat ``tool_calls``, Responses ``function_call`` items, Anthropic ``tool_use`` blocks) with the
    finish reason ``tool_calls`` unless the reply names another. ``faults`` /
    ``fault_rate`` inject 429/5xx, ``drop``, ``slow`` and ``malformed`` replies without consuming the
    script. A request with ``stream: true`` gets the protocol's SSE stream (one HTTP chunk per event; chat adds the
    usage chunk under ``stream_options.include_usage``); a reply's ``drop_after_events`` cuts the connection after
    that many events, ``event_delay_s`` spaces them and ``end_delay_s`` holds the terminating chunk back after the
    last event (an endpoint slow to end its stream); ``streaming=False`` answers every request unstreamed (an
    endpoint that does not stream). ``unsupported_paths`` answers 404 (a list) or the given status (a mapping) on
    those paths.
    ``api_key``: when set, requests with another key get 401 (checked after fault injection: faults
    model the network in front of the API). ``latency_s`` is added to every request. A context manager.
    ``requests`` holds each request with its credential headers shown as ``<redacted>``; ``keep_headers=True``
    also keeps every request's headers as received, in memory only, in ``raw_headers`` (a test that checks the
    endpoint got each credential).
    """

    def __init__(
        self,
        replies: ReplySource = None,
        faults: list[dict[str, Any]] | None = None,
        *,
        latency_s: float = 0.0,
        host: str = "127.0.0.1",
        port: int = 0,
        default_reply: Reply | None = None,
        fault_rate: float = 0.0,
        fault_kinds: list[str] | None = None,
        seed: int | None = 0,
        unsupported_paths: list[str] | dict[str, int] | None = None,
        api_key: str | None = None,
        record: bool = True,
        streaming: bool = True,
        keep_headers: bool = False,
        tasks: dict[str, list[Reply]] | None = None,
    ) -> None:
        self._script = Script(replies, default_reply, tasks)
        self._faults = FaultPlan(faults, fault_rate, fault_kinds, seed)
        self.latency_s, self.host, self.port = latency_s, host, port
        paths = unsupported_paths or {}
        self.unsupported_paths = dict.fromkeys(paths, 404) if isinstance(paths, list) else dict(paths)
        self._api_key, self._record, self.streaming = api_key, record, streaming
        self.requests: list[dict[str, Any]] = []
        self.keep_headers = keep_headers
        self.raw_headers: list[dict[str, str]] = []  # with keep_headers: every request's headers as received
        self.n_requests = self.n_faults_injected = self.max_concurrency = self._in_flight = 0
        self.faults_by_kind: dict[str, int] = {}
        self._lock = threading.Lock()
        self._conns: set[socket.socket] = set()
        self._httpd: _HTTPServer | None = None
        self._thread: threading.Thread | None = None

    @classmethod
    def from_yaml(cls, path: str, **kwargs: Any) -> ScriptedModelServer:
        """A server configured by a script file or example name (``replies`` or ``tasks``, plus any keyword)."""
        data = load_yaml(path)
        return cls(**{**data, **kwargs})

    # ------------------------------------------------------------------ lifecycle
    @property
    def base_url(self) -> str:
        """``http://127.0.0.1:<port>/v1`` (valid once started)."""
        return f"http://{self.host}:{self.port}/v1"

    @property
    def n_replies_used(self) -> int:
        return self._script.n_used

    def start(self) -> ScriptedModelServer:
        self._httpd = _HTTPServer((self.host, self.port), _Handler)
        self._httpd.owner = self
        self.port = self._httpd.server_address[1]
        self._thread = threading.Thread(
            target=self._httpd.serve_forever,
            kwargs={"poll_interval": 0.1},
            name=f"scripted-model-server:{self.port}",
            daemon=True,
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        """Stop serving and close every open connection. Idempotent."""
        if self._httpd is None:
            return
        self._httpd.shutdown()
        self._httpd.server_close()
        with self._lock:
            conns = list(self._conns)
        for conn in conns:
            try:
                conn.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
        self._httpd = None

    def __enter__(self) -> ScriptedModelServer:
        return self.start()

    def __exit__(self, *exc: Any) -> None:
        self.stop()

    def _track(self, conn: socket.socket, add: bool) -> None:
        with self._lock:
            (self._conns.add if add else self._conns.discard)(conn)

    # ------------------------------------------------------------------ serving
    def _serve(self, handler: _Handler, body: dict[str, Any]) -> None:
        path = handler.path.split("?", 1)[0].rstrip("/")
        with self._lock:
            self.n_requests += 1
            n = self.n_requests
            self._in_flight += 1
            self.max_concurrency = max(self.max_concurrency, self._in_flight)
            fault = None if path in self.unsupported_paths else self._faults.pick(n, path)
            if fault is not None:
                self.n_faults_injected += 1
                self.faults_by_kind[fault["kind"]] = self.faults_by_kind.get(fault["kind"], 0) + 1
            request = {
                "n": n,
                "path": path,
                "body": body,
                "headers": _redacted(handler.headers),
                "protocol": shapes.protocol_of(path),
                "fault": fault and fault["kind"],
            }
            if self._record:
                self.requests.append(request)
            if self.keep_headers:
                self.raw_headers.append({k.lower(): v for k, v in handler.headers.items()})
        try:
            self._answer(handler, path, body, fault, request)
        finally:
            with self._lock:
                self._in_flight -= 1

    def _answer(
        self, handler: _Handler, path: str, body: dict[str, Any], fault: dict[str, Any] | None, request: dict[str, Any]
    ) -> None:
        if path in self.unsupported_paths:
            status = self.unsupported_paths[path]
            handler.send_json(status, shapes.error_body(path, status, f"{path} is not supported by this server"))
            return
        if request["protocol"] is None:
            handler.send_json(404, shapes.error_body(path, 404, f"no route POST {path}"))
            return
        if self.latency_s:
            time.sleep(self.latency_s)
        if fault is not None and fault["kind"] != "slow":
            self._inject(handler, path, fault)
            return
        if fault is not None:
            time.sleep(float(fault.get("delay_s", 1.0)))
        if self._api_key is not None and _presented_key(handler.headers) != self._api_key:
            handler.send_json(401, shapes.error_body(path, 401, "Incorrect API key provided."))
            return
        found = gemini.route(path)
        if found is not None and found[1] == "countTokens":  # no reply of the script is used
            handler.send_json(200, {"totalTokens": gemini.words(body)})
            return
        self._reply(handler, path, body, self._script.next(request))

    def _inject(self, handler: _Handler, path: str, fault: dict[str, Any]) -> None:
        kind = fault["kind"]
        if kind == "drop":
            handler.drop()
        elif kind == "malformed":
            handler.send_raw(200, b'{"id": "truncated", "choices": [')
        else:
            headers = {}
            if fault.get("retry_after") is not None:
                headers["Retry-After"] = str(fault["retry_after"])
            if fault.get("retry_after_ms") is not None:
                headers["retry-after-ms"] = str(fault["retry_after_ms"])
            status = int(kind)
            handler.send_json(status, shapes.error_body(path, status, f"scripted fault {kind}"), headers)

    def _reply(self, handler: _Handler, path: str, body: dict[str, Any], reply: dict[str, Any]) -> None:
        if reply.get("delay_s"):
            time.sleep(float(reply["delay_s"]))
        status, headers = int(reply.get("status", 200)), {k: str(v) for k, v in (reply.get("headers") or {}).items()}
        if "body" in reply:
            raw = reply["body"]
            handler.send_raw(status, raw.encode() if isinstance(raw, str) else json.dumps(raw).encode(), headers)
        elif status >= 400 or reply.get("error"):
            message = str(reply.get("error") or f"scripted error {status}")
            handler.send_json(status, shapes.error_body(path, status, message, reply.get("code")), headers)
        else:
            text = str(reply.get("text", ""))
            calls = shapes.with_ids(reply.get("tool_calls") or [])
            usage = {**shapes.default_usage(body, text, calls), **(reply.get("usage") or {})}
            finish = str(reply.get("finish_reason", "tool_calls" if calls else "stop"))
            if gemini.route(path) is not None:
                gemini.answer(handler, path, (text, finish, usage, calls), reply, self.streaming)
                return
            try:
                payload = shapes.success_body(path, str(body.get("model", "scripted")), text, finish, usage, calls)
            except ValueError as exc:
                handler.send_json(
                    500, shapes.error_body(path, 500, f"scripted server: {exc}"), {"x-should-retry": "false"}
                )
                return
            if body.get("stream") and self.streaming and status == 200:
                include = bool((body.get("stream_options") or {}).get("include_usage"))
                events = synthesize(shapes.PROTOCOL_OF_PATH[path], payload, include_usage=include)
                frames = [encode(name, data) for name, data in events]
                spacing = float(reply.get("event_delay_s", 0.0))
                handler.send_events(
                    frames, reply.get("drop_after_events"), spacing, float(reply.get("end_delay_s", 0.0))
                )
                return
            handler.send_json(status, payload, headers)


def _presented_key(headers: Any) -> str | None:
    auth = headers.get("authorization") or ""
    if auth.lower().startswith("bearer "):
        return auth[7:]
    key: str | None = headers.get("x-api-key") or headers.get("api-key") or headers.get("x-goog-api-key")
    return key


def _redacted(headers: Any) -> dict[str, str]:
    return {k.lower(): ("<redacted>" if k.lower() in _SECRET_HEADERS else v) for k, v in headers.items()}
