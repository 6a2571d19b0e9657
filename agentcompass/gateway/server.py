"""The gateway's HTTP handlers (aiohttp): authenticate the attempt's token, forward, stream the answer back."""

from __future__ import annotations

import contextlib
import json
import logging
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from aiohttp import web

from agentcompass.errors import AttemptLimitReached, ModelEndpointDownError, ModelError, ReplayMismatchError
from agentcompass.models.wire import FORWARDED_HEADERS, ForwardRequest

from . import routes, translate

if TYPE_CHECKING:
    from .service import Session

LOG = logging.getLogger("agentcompass.gateway")


def presented_token(request: web.Request) -> str | None:
    """The token as ``Authorization: Bearer``, ``x-api-key``, ``api-key``, ``x-goog-api-key`` or (the Gemini API)
    the ``key`` query parameter."""
    auth = request.headers.get("authorization", "")
    if auth[:7].lower() == "bearer ":
        return auth[7:].strip()
    headers = request.headers
    return (
        headers.get("x-api-key") or headers.get("api-key") or headers.get("x-goog-api-key") or request.query.get("key")
    )


def _error(protocol: str, status: int, message: str, code: str | None = None) -> web.Response:
    body = json.dumps(routes.error_body(protocol, status, message, code))
    return web.Response(status=status, text=body, content_type="application/json")


class _Stream(web.StreamResponse):
    """A streamed answer whose headers go out with its first chunk (one write less per call)."""

    _send_headers_immediately = False


class Handlers:
    """The routes of one gateway; ``sessions`` maps a token to its attempt's session."""

    def __init__(self, sessions: dict[str, Session]) -> None:
        self.sessions = sessions

    def app(self) -> web.Application:
        app = web.Application(client_max_size=256 * 1024 * 1024)
        app.router.add_route("*", "/{tail:.*}", self.dispatch)
        return app

    def _session(self, request: web.Request) -> Any:
        token = presented_token(request)
        session = self.sessions.get(token) if token else None
        return None if session is None or session.closed else session

    async def dispatch(self, request: web.Request) -> web.StreamResponse:
        path = request.path.rstrip("/") or "/"
        protocol = routes.protocol_of(path)
        session = self._session(request)
        if session is None:
            what = "no gateway token" if not presented_token(request) else "an unknown or expired gateway token"
            return _error(protocol, 401, f"{what} was presented", "invalid_api_key")
        if path == routes.MCP:
            return await self._mcp(request, session)
        if request.method == "GET" and path in routes.GET_MODELS:
            return web.json_response(routes.models_body(session.model.model_id))
        route = routes.POST_ROUTES.get(path) if request.method == "POST" else None
        gemini = routes.gemini_route(path) if request.method == "POST" and route is None else None
        if gemini is not None and gemini[1] in routes.GEMINI_METHODS:
            route = (routes.GEMINI, routes.GEMINI_METHODS[gemini[1]])
        if route is None:
            return _error(protocol, 404, f"the gateway has no route {request.method} {request.path}")
        raw = await request.read()
        try:
            body = json.loads(raw)
        except ValueError:
            return _error(protocol, 400, "the request body is not JSON")
        if not isinstance(body, dict):
            return _error(protocol, 400, "the request body is not a JSON object")
        if gemini is not None:  # the model and the streaming are in the URL: the body carries them on from here
            body = {**body, "model": gemini[0], **({"stream": True} if gemini[1] == "streamGenerateContent" else {})}
        return await self._forward(request, session, route, body, raw)

    async def _mcp(self, request: web.Request, session: Any) -> web.StreamResponse:
        """The attempt's conversation as an MCP server (:mod:`.mcp`); 404 when the attempt has none."""
        from .mcp import server_of

        server = server_of(session)
        if server is None:
            return _error(routes.CHAT, 404, "this attempt has no conversation to serve over MCP")
        if request.method != "POST":
            return web.Response(status=405, headers={"Allow": "POST"})
        try:
            body = json.loads(await request.read())
        except ValueError:
            return web.json_response({"jsonrpc": "2.0", "id": None, "error": {"code": -32700, "message": "not JSON"}})
        status, answer = await server.handle(body)
        if server.tools.failure is not None:  # the user's side failed: the attempt fails with it
            session.fatal = session.fatal or server.tools.failure
        return web.Response(status=status) if answer is None else web.json_response(answer, status=status)

    async def _forward(
        self, request: web.Request, session: Any, route: tuple[str, str], body: dict[str, Any], raw: bytes
    ) -> web.StreamResponse:
        protocol, suffix = route
        headers = {k: request.headers[k] for k in FORWARDED_HEADERS if k in request.headers}

        def translation(upstream: str, agent_body: Mapping[str, object]) -> Any:
            return translate.translation(protocol, upstream, agent_body)

        model = session.model_map.get(str(body.get("model"))) if session.model_map else None
        query = {k: v for k, v in request.query.items() if k not in ("key", "alt")}  # never the token upstream
        forward = ForwardRequest(protocol, body, suffix, query, headers, translation, model, raw)
        try:
            answer = await session.model.forward(forward)
        except AttemptLimitReached as exc:  # refused from now on; the attempt records which limit stopped it
            session.limit_hit = session.limit_hit or exc.limit
            return _error(protocol, 400, str(exc), "limit_reached")
        except ModelError as exc:
            status = exc.status if exc.status and 400 <= exc.status < 600 else 502
            if isinstance(exc, ModelEndpointDownError):
                session.fatal, status = exc, 503
            elif isinstance(exc, ReplayMismatchError):  # --replay: not the recorded run's request; ends the attempt
                session.fatal, status = session.fatal or exc, 400
            return _error(protocol, status, str(exc))
        error: BaseException | None = None
        try:
            if not answer.stream:
                data = b"".join([chunk async for chunk in answer.chunks()])
                return web.Response(body=data, content_type="application/json")
            response = _Stream(headers={"Content-Type": "text/event-stream", "Cache-Control": "no-cache"})
            await response.prepare(request)
            error = await _stream_to(response, answer)
            return response
        except BaseException as exc:
            error = exc
            raise
        finally:
            await answer.aclose(error)


class AgentDisconnected(ConnectionError):
    """The agent closed its connection before the whole streamed answer reached it (recorded as the call's
    error; the tokens the endpoint reported are counted all the same: they were spent)."""


async def _stream_to(response: web.StreamResponse, answer: Any) -> AgentDisconnected | None:
    """Write ``answer``'s stream to the agent; None when every byte of it was written (an agent that closes its
    connection after the last event, before the end of the HTTP body, as Codex does, has had the whole answer)."""
    sent, delivered = 0, False
    try:
        async with contextlib.aclosing(answer.chunks()) as chunks:
            async for chunk in chunks:
                if answer.finished:  # the last bytes: sent with the end of the response, in one write
                    await response.write_eof(chunk)
                    return None
                await response.write(chunk)
                sent += len(chunk)
        delivered = True  # the answer has ended and all of it was written: only the end of the body is left
        await response.write_eof()
    except ConnectionError:
        if delivered:
            return None
        LOG.debug("the agent closed its connection %d bytes into the streamed answer", sent)
        return AgentDisconnected(f"the agent closed its connection {sent} bytes into the streamed answer")
    return None
