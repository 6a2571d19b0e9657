"""``agentcompass view``: a read-only HTTP server over run directories (standard library only).

Routes (all GET): ``/`` the page; ``/api/runs``; ``/api/run?run=K``; ``/api/tasks?run=K``;
``/api/task?run=K&dir=tasks/<t>``; ``/api/attempt?run=K&path=P``; ``/api/call?run=K&path=P&index=I`` (one line of
the attempt's model_calls.jsonl); ``/api/file?run=K&path=P`` (a file of the run,
always as text/plain or application/json); ``/api/compare?a=K&b=K``; ``/api/stamp?run=K[&path=P]`` (change
markers the page polls). Nothing is written; no environment value is ever sent.
"""

from __future__ import annotations

import ipaddress
import json
import mimetypes
import socket
import threading
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

from agentcompass.errors import ConfigError

from . import attempts, compare, page, runs
from .calls import call_detail
from .discover import RunIndex, RunRef
from .files import inside

FILE_LIMIT = 256 * 1024 * 1024


class _NotFound(Exception):
    pass


def _loopback(host: str) -> bool:
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return host == "localhost"


class ViewApp:
    """The routes, independent of the HTTP plumbing (the tests call :meth:`handle` too)."""

    def __init__(self, index: RunIndex) -> None:
        self.index = index
        self.page = page.render({"mode": "server"})
        self.routes: dict[str, Callable[[dict[str, str]], Any]] = {
            "/api/runs": self._runs,
            "/api/run": lambda q: runs.run_detail(self._ref(q, "run")),
            "/api/tasks": self._tasks,
            "/api/task": self._task,
            "/api/attempt": self._attempt,
            "/api/call": self._call,
            "/api/compare": lambda q: compare.compare(self._ref(q, "a"), self._ref(q, "b")),
            "/api/stamp": self._stamp,
        }

    def _ref(self, q: dict[str, str], name: str) -> RunRef:
        key = q.get(name)
        if not key:
            raise ConfigError(f"query parameter {name!r} is required")
        try:
            return self.index.get(key)
        except KeyError:
            raise _NotFound(f"no run {key!r}") from None

    def _runs(self, q: dict[str, str]) -> Any:
        refs = self.index.refs()
        return {"runs": [runs.run_row(ref) for ref in refs], "stamp": self._runs_stamp(refs)}

    @staticmethod
    def _runs_stamp(refs: list[RunRef]) -> str:
        return "|".join(f"{ref.key}={runs.run_stamp(ref)}" for ref in refs)

    def _tasks(self, q: dict[str, str]) -> Any:
        ref = self._ref(q, "run")
        return {"key": ref.key, "tasks": runs.task_rows(ref), "stamp": runs.run_stamp(ref)}

    def _task(self, q: dict[str, str]) -> Any:
        ref = self._ref(q, "run")
        return {"key": ref.key, "attempts": attempts.task_attempts(ref, q.get("dir", ""))}

    def _attempt(self, q: dict[str, str]) -> Any:
        return attempts.attempt_detail(self._ref(q, "run"), q.get("path", ""))

    def _call(self, q: dict[str, str]) -> Any:
        return call_detail(attempts.attempt_dir(self._ref(q, "run"), q.get("path", "")), q.get("index", ""))

    def _stamp(self, q: dict[str, str]) -> Any:
        if not q.get("run"):
            return {"stamp": self._runs_stamp(self.index.refs())}
        ref = self._ref(q, "run")
        if q.get("path"):
            return {"stamp": attempts.attempt_stamp(attempts.attempt_dir(ref, q["path"]))}
        return {"stamp": runs.run_stamp(ref)}

    def file(self, q: dict[str, str]) -> tuple[Path, str]:
        ref = self._ref(q, "run")
        path = inside(ref.path, q.get("path", ""))
        if not path.is_file():
            raise _NotFound(f"no file {q.get('path')!r} in run {ref.key!r}")
        kind = mimetypes.guess_type(path.name)[0]
        return path, "application/json" if kind == "application/json" else "text/plain; charset=utf-8"

    def handle(self, route: str, q: dict[str, str]) -> tuple[int, Any]:
        handler = self.routes.get(route)
        if handler is None:
            return 404, {"error": f"no route {route!r}"}
        try:
            return 200, handler(q)
        except _NotFound as exc:
            return 404, {"error": str(exc)}
        except ConfigError as exc:
            return 400, {"error": str(exc)}


class _Handler(BaseHTTPRequestHandler):
    server: _Server
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: Any) -> None:
        return

    def _send(self, code: int, body: bytes, ctype: str, extra: dict[str, str] | None = None) -> None:
        self.send_response(code)
        headers = {
            "Content-Type": ctype,
            "Content-Length": str(len(body)),
            "Cache-Control": "no-store",
            "X-Content-Type-Options": "nosniff",
            "Referrer-Policy": "no-referrer",
            "X-Frame-Options": "DENY",
            **(extra or {}),
        }
        for k, v in headers.items():
            self.send_header(k, v)
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    def _json(self, code: int, obj: Any) -> None:
        self._send(code, json.dumps(obj, default=str).encode("utf-8"), "application/json")

    def _host_ok(self) -> bool:
        """Against DNS rebinding: on a loopback bind, only loopback names may address the server."""
        if not self.server.loopback:
            return True
        host = (self.headers.get("Host") or "").rsplit(":", 1)[0]
        return _loopback(host)

    def do_GET(self) -> None:
        if not self._host_ok():
            return self._json(403, {"error": "unexpected Host header"})
        url = urlsplit(self.path)
        q = {k: v[-1] for k, v in parse_qs(url.query).items()}
        app = self.server.app
        if url.path in ("/", "/index.html"):
            return self._send(
                200, app.page.encode("utf-8"), "text/html; charset=utf-8", {"Content-Security-Policy": page.CSP_SERVER}
            )
        if url.path == "/api/file":
            return self._file(q)
        self._json(*app.handle(url.path, q))

    do_HEAD = do_GET

    def _file(self, q: dict[str, str]) -> None:
        try:
            path, ctype = self.server.app.file(q)
        except _NotFound as exc:
            return self._json(404, {"error": str(exc)})
        except ConfigError as exc:
            return self._json(400, {"error": str(exc)})
        size = path.stat().st_size
        if size > FILE_LIMIT:
            return self._json(413, {"error": f"{path.name} is {size} bytes; the limit is {FILE_LIMIT}"})
        self._send(200, path.read_bytes(), ctype, {"Content-Disposition": "inline"})

    def _refuse(self) -> None:
        self._json(405, {"error": "read-only: only GET is served"})

    do_POST = do_PUT = do_DELETE = do_PATCH = _refuse


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    app: ViewApp
    loopback: bool


class _Server6(_Server):
    address_family = socket.AF_INET6


class ViewServer:
    """The server on ``host:port`` (0 = a free port); ``serve_forever`` or use as a context manager."""

    def __init__(self, roots: list[Path], host: str = "127.0.0.1", port: int = 0) -> None:
        try:
            self.httpd = (_Server6 if ":" in host else _Server)((host, port), _Handler)
        except OSError as exc:
            raise ConfigError(f"--host {host} --port {port}: cannot listen ({exc.strerror or exc})") from None
        self.httpd.app = ViewApp(RunIndex(roots))
        self.httpd.loopback = _loopback(host)
        self.host, self.port = host, self.httpd.server_address[1]
        self._thread: threading.Thread | None = None

    @property
    def url(self) -> str:
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"http://{host}:{self.port}/"

    def serve_forever(self) -> None:
        self.httpd.serve_forever()

    def __enter__(self) -> ViewServer:
        self._thread = threading.Thread(
            target=self.httpd.serve_forever, kwargs={"poll_interval": 0.1}, name="agentcompass-view", daemon=True
        )
        self._thread.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def close(self) -> None:
        if self._thread is not None:
            self.httpd.shutdown()
            self._thread.join(10)
            self._thread = None
        self.httpd.server_close()
