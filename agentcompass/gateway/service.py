"""``Gateway``: one per request (per worker process under Ray), started on first use, closed with the request;
``GatewayService`` is that as the request-scoped service the SDK hands to the orchestrator.

It listens on 127.0.0.1 and, as environments need it, on the address each environment reaches this host at (a
docker network's gateway IP); every listener serves the same routes and tokens. A token belongs to one attempt's
session (its model client fork) and stops working when the session closes.
"""

from __future__ import annotations

import asyncio
import logging
import secrets
from dataclasses import dataclass, field
from typing import Any

from agentcompass.errors import GatewayUnreachableError
from agentcompass.interfaces import CALL_RECORDER, HOST_ADDRESS, NET_NAMESPACE, GatewayEndpoint

LOOPBACK = "127.0.0.1"


@dataclass
class Session:
    """One attempt's use of the gateway: its token and model client; ``fatal`` an error that stops the request."""

    token: str
    model: Any
    label: str = ""
    closed: bool = False
    fatal: BaseException | None = None
    limit_hit: str | None = None  # the gateway limit that refused a call (max_model_calls, ...)
    model_map: dict[str, str] = field(default_factory=dict)  # agent's model name -> model id sent (gateway.model_map)
    inside: dict[str, tuple[Any, int]] = field(default_factory=dict)  # namespace path -> (its site, port)
    attempt: Any = None  # the attempt's AttemptContext: its conversation is served on the MCP route (mcp.py)
    mcp: Any = None  # that MCP server, made on the first MCP request


class Gateway:
    def __init__(self, logger: logging.Logger | None = None, *, port: int = 0) -> None:
        self.log = logger or logging.getLogger("agentcompass.gateway")
        self.port = port
        self.sessions: dict[str, Session] = {}
        self._sites: dict[str, Any] = {}  # host address -> its TCP site
        self._ports: dict[str, int] = {}
        self._runner: Any = None
        self._lock = asyncio.Lock()

    async def start(self) -> Gateway:
        from aiohttp import web

        from .server import Handlers

        self._runner = web.AppRunner(Handlers(self.sessions).app(), access_log=None, handle_signals=False)
        await self._runner.setup()
        await self.listen_on(LOOPBACK, self.port)
        return self

    @property
    def base_url(self) -> str:
        """The loopback URL (for clients on this host)."""
        return f"http://{LOOPBACK}:{self._ports[LOOPBACK]}"

    async def listen_on(self, host: str, port: int = 0) -> int:
        """The port the gateway listens on at ``host`` (a new listener the first time)."""
        async with self._lock:
            if host not in self._ports:
                from aiohttp import web

                before = set(map(tuple, self._runner.addresses))
                site = web.TCPSite(self._runner, host, port, reuse_address=False)
                await site.start()
                self._sites[host] = site
                added = [a for a in map(tuple, self._runner.addresses) if a not in before]
                self._ports[host] = int(added[0][1])
                self.log.debug("model gateway listening on %s:%d", host, self._ports[host])
            return self._ports[host]

    def open_session(
        self, model: Any, label: str = "", model_map: dict[str, str] | None = None, attempt: Any = None
    ) -> Session:
        """A new attempt session with a fresh random token (also redacted from the attempt's call record);
        ``attempt``: the attempt's context, whose conversation the session serves over MCP."""
        token = "acgw-" + secrets.token_urlsafe(32)
        session = Session(token, model, label, model_map=dict(model_map or {}), attempt=attempt)
        recorder = CALL_RECORDER.of(model)
        if recorder is not None:
            recorder.add_secret(session.token)
        self.sessions[session.token] = session
        return session

    def close_session(self, session: Session) -> None:
        """The token stops working (401) from now on; listeners inside its environments' namespaces stop."""
        session.closed = True
        self.sessions.pop(session.token, None)
        for site, _ in session.inside.values():
            asyncio.ensure_future(site.stop())
        session.inside.clear()

    async def endpoint(self, session: Session, env: Any = None) -> GatewayEndpoint:
        """The endpoint of ``session`` as reached from inside ``env`` (None: from this host): inside the
        environment's network namespace when it has no internet, else on the address it reaches this host at."""
        model = session.model
        denied: OSError | None = None
        if env is not None:
            inside, denied = await self._inside(session, env)
            if inside is not None:
                return GatewayEndpoint(f"http://{LOOPBACK}:{inside}", session.token, model.model_id, model.protocol)
        host = LOOPBACK if env is None else await self._host_of(env, denied)
        port = await self.listen_on(host)
        return GatewayEndpoint(f"http://{host}:{port}", session.token, model.model_id, model.protocol)

    async def _inside(self, session: Session, env: Any) -> tuple[int | None, OSError | None]:
        """The port of a listener in ``env``'s network namespace (made once per session and namespace); None when
        the environment has a network to this host, or (with the error) when the namespace cannot be entered
        (that needs root): the host address is tried then."""
        netns = NET_NAMESPACE.of(env)
        path = await netns() if netns is not None else None
        if path is None:
            return None, None
        if path not in session.inside:
            from aiohttp import web

            from .netns import listen_in

            try:
                sock = await listen_in(path)
            except OSError as exc:
                return None, exc
            site = web.SockSite(self._runner, sock)
            await site.start()
            session.inside[path] = (site, sock.getsockname()[1])
            self.log.debug("model gateway listening inside %s on port %d", path, session.inside[path][1])
        return session.inside[path][1], None

    async def _host_of(self, env: Any, denied: OSError | None) -> str:
        address = HOST_ADDRESS.of(env)
        why = f"; entering its network namespace failed ({denied}: needs root or CAP_SYS_ADMIN)" if denied else ""
        if address is None:
            raise GatewayUnreachableError(
                f"environment {type(env).__name__} {env.id!s} cannot reach the model gateway: it "
                f"has no host_address{why} (docs/gateway.md, Reachability)"
            )
        try:
            return await address()
        except GatewayUnreachableError as exc:
            raise GatewayUnreachableError(f"{exc}{why}") from None

    async def aclose(self) -> None:
        """Stop every listener and refuse every token. Idempotent."""
        for session in list(self.sessions.values()):
            session.closed = True
        self.sessions.clear()
        runner, self._runner = self._runner, None
        if runner is not None:
            await runner.cleanup()
        self._sites.clear()
        self._ports.clear()


class GatewayService:
    """The model gateway as a request-scoped service (``Hooks.services``, name ``gateway``): the gateway starts
    when the first attempt asks for an endpoint and closes with the request. ``idle_close_s`` (a Ray worker
    process, whose gateway serves every attempt it runs): the listeners also close after that long without an
    open session, and start again on the next ask."""

    name = "gateway"

    def __init__(self, logger: logging.Logger | None = None, *, idle_close_s: float | None = None) -> None:
        self.logger = logger
        self.idle_close_s = idle_close_s
        self.gateway: Gateway | None = None
        self._lock = asyncio.Lock()
        self._closed = False
        self._open = 0  # sessions open
        self._idle: asyncio.TimerHandle | None = None

    async def start(self) -> None:
        """Nothing starts before an attempt asks (a request whose harness never calls the gateway opens no port)."""

    async def get(self) -> Gateway:
        async with self._lock:
            if self._closed:
                raise GatewayUnreachableError("the request is closing: no model gateway is started any more")
            if self.gateway is None:
                self.gateway = await Gateway(self.logger).start()
            return self.gateway

    def attempt(self, ctx: Any, model: Any, label: str, config: Any = None) -> AttemptSession | None:
        """An attempt's use of the gateway (the orchestrator's per-attempt service hook), attached to the
        attempt's context as ``ctx.gateway``; None when the attempt has no model client. ``config``: the request's
        config (``gateway.model_map``); ``ctx``: the attempt's context (its conversation, once made, is served on
        the MCP route)."""
        if model is None:
            return None
        session = AttemptSession(self, model, label, config, ctx)
        if ctx is not None:
            ctx.gateway = session.endpoint
        return session

    def opened(self) -> None:
        self._open += 1
        if self._idle is not None:
            self._idle.cancel()
            self._idle = None

    def closed(self) -> None:
        self._open -= 1
        if self._open == 0 and self.idle_close_s is not None and self.gateway is not None:
            loop = asyncio.get_running_loop()
            self._idle = loop.call_later(self.idle_close_s, lambda: asyncio.ensure_future(self._close_idle()))

    async def _close_idle(self) -> None:
        async with self._lock:
            if self._open == 0 and self.gateway is not None:
                gateway, self.gateway = self.gateway, None
                await gateway.aclose()

    async def aclose(self) -> None:
        self._closed = True
        if self._idle is not None:
            self._idle.cancel()
        gateway, self.gateway = self.gateway, None
        if gateway is not None:
            await gateway.aclose()


class AttemptSession:
    """One attempt's use of the gateway (``ctx.gateway``): the session and its token are made on the first ask."""

    def __init__(self, service: GatewayService, model: Any, label: str, config: Any = None, ctx: Any = None) -> None:
        self.service, self.model, self.label, self.ctx = service, model, label, ctx
        settings = getattr(config, "gateway", None)
        self.model_map: dict[str, str] = dict(settings.model_map) if settings is not None else {}
        self.session: Session | None = None
        self.gateway: Gateway | None = None
        self._lock = asyncio.Lock()

    async def endpoint(self, env: Any = None) -> GatewayEndpoint:
        async with self._lock:
            if self.session is None:
                self.gateway = await self.service.get()
                self.session = self.gateway.open_session(self.model, self.label, self.model_map, self.ctx)
                self.service.opened()
        return await self.gateway.endpoint(self.session, env)

    @property
    def fatal(self) -> BaseException | None:
        return None if self.session is None else self.session.fatal

    @property
    def limit_hit(self) -> str | None:
        return None if self.session is None else self.session.limit_hit

    def close(self) -> None:
        if self.session is not None and not self.session.closed:
            self.gateway.close_session(self.session)
            self.service.closed()
