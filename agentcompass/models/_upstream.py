"""The gateway's way to the endpoint: plain HTTP on a connection pool of its own (aiohttp), no SDK in between.

A forwarded call needs none of what an SDK adds (typed request building, response models, its own retries): the
body is already in the endpoint's wire form. One :class:`RawPool` per client and its forks (per event loop) keeps
the connections; :func:`send` posts the JSON body with the endpoint's authentication (``Authorization: Bearer``
for OpenAI, ``x-api-key`` and ``anthropic-version`` for Anthropic) and the agent's own API headers, and returns
the response with its status checked: an error status raises :class:`~._errors.UpstreamStatus` (classified and
retried like an SDK's status error), a transport failure the client library's own exception (classified by
name: connection errors, timeouts). Proxies from the environment (``HTTP(S)_PROXY``, ``NO_PROXY``) are honoured,
as the SDKs do; they are read once per pool (aiohttp's own ``trust_env`` would read them, and ``.netrc``, in a
worker thread on every request).
"""

from __future__ import annotations

import asyncio
import json
import os
import urllib.request
from typing import Any
from urllib.parse import urlsplit

from ._errors import UpstreamStatus

ANTHROPIC_VERSION = "2023-06-01"  # what the anthropic SDK sends unless told otherwise


def _user_agent() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return f"agentcompass/{version('agentcompass')}"
    except PackageNotFoundError:
        return "agentcompass"


class RawPool:
    """An aiohttp session per event loop (made on first use), closed with the client."""

    def __init__(self, timeout_s: float) -> None:
        self.timeout_s = timeout_s
        self._sessions: dict[Any, Any] = {}
        self.user_agent = _user_agent()
        self._proxies = urllib.request.getproxies()
        self._proxy_of: dict[tuple[str, str], str | None] = {}

    def proxy(self, url: str) -> str | None:
        """The proxy for ``url`` from the environment (None: none, or the host is in ``NO_PROXY``)."""
        parts = urlsplit(url)
        key = (parts.scheme, parts.netloc)
        if key not in self._proxy_of:
            proxy = self._proxies.get(parts.scheme)
            if proxy and urllib.request.proxy_bypass(parts.hostname or ""):
                proxy = None
            self._proxy_of[key] = proxy or None
        return self._proxy_of[key]

    def session(self) -> Any:
        loop = asyncio.get_running_loop()
        held = self._sessions.get(loop)
        if held is None or held.closed:
            import aiohttp

            timeout = aiohttp.ClientTimeout(total=None, connect=self.timeout_s, sock_read=self.timeout_s)
            connector = aiohttp.TCPConnector(limit=0, ttl_dns_cache=300)
            held = aiohttp.ClientSession(
                connector=connector,
                timeout=timeout,
                auto_decompress=True,
                skip_auto_headers=("User-Agent",),
            )
            self._sessions[loop] = held
        return held

    async def aclose(self) -> None:
        loop = asyncio.get_running_loop()
        for owner, session in list(self._sessions.items()):
            if owner is loop:
                await session.close()
                del self._sessions[owner]


def pool_of(shared: Any, timeout_s: float) -> RawPool:
    """The raw pool of a client and its forks (kept on what they share)."""
    pool = shared.__dict__.get("raw_pool")
    if pool is None:
        pool = shared.__dict__["raw_pool"] = RawPool(timeout_s)
    return pool


def url_of(route: Any, model_id: str, stream: bool, suffix: str, query: dict[str, str]) -> tuple[str, dict[str, str]]:
    """The URL and query a forwarded request goes to: the protocol's ``PATH``, or its ``url`` hook's (the Gemini
    API, whose model and streaming are in the URL)."""
    hook = getattr(route.module, "url", None)
    if hook is None:
        return route.base + route.module.PATH + suffix, query
    url, extra = hook(route.base, model_id, stream, suffix)
    return url, {**query, **extra}


def headers(family: str, key: str, agent: dict[str, str], user_agent: str) -> dict[str, str]:
    out = {
        "content-type": "application/json",
        "accept": "application/json, text/event-stream",
        "user-agent": user_agent,
    }
    if family == "google":
        if key and key != "EMPTY":
            out["x-goog-api-key"] = key
    elif family == "anthropic":
        out["anthropic-version"] = ANTHROPIC_VERSION
        if key and key != "EMPTY":
            out["x-api-key"] = key
    else:
        if key:
            out["authorization"] = f"Bearer {key}"
        for env, name in (("OPENAI_ORG_ID", "openai-organization"), ("OPENAI_PROJECT_ID", "openai-project")):
            if os.environ.get(env):
                out[name] = os.environ[env]
    out.update({k.lower(): v for k, v in agent.items()})  # anthropic-version / -beta, openai-beta as the agent sent
    return out


async def send(pool: RawPool, url: str, body: bytes, head: dict[str, str], query: dict[str, str]) -> Any:
    """POST ``body``; the response (its body unread) when the status is 2xx, else UpstreamStatus."""
    resp = await pool.session().post(url, data=body, headers=head, params=query or None, proxy=pool.proxy(url))
    if resp.status >= 400:
        try:
            raw = await resp.read()
        finally:
            resp.release()
        try:
            payload: Any = json.loads(raw)
        except ValueError:
            payload = raw.decode("utf-8", "replace")[:2000]
        raise UpstreamStatus(resp.status, resp.headers, payload)
    return resp
