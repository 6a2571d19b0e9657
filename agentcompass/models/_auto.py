"""The rule behind ``api_protocol: auto`` (and the default base URLs per protocol family).

``auto`` becomes an ordered list of protocols, tried like an explicit list (the next one is used only
when the endpoint answers that it does not support the API: 404 / 405 / 501 / "unsupported endpoint"):
the first protocol whose module's ``auto(base_url, model_id)`` hook claims the endpoint (bundled ones first, see
:mod:`.protocols`), then ``openai-chat`` (the API every OpenAI-compatible server speaks: vLLM, SGLang, llama.cpp,
Ollama, LiteLLM, OpenRouter...). The bundled hooks:

1. anthropic-messages: the base URL's host contains ``anthropic``, or the model id starts with ``claude``;
2. google-genai: the base URL's host is ``generativelanguage.googleapis.com``, or the model id starts with
   ``gemini``;
3. openai-responses: the base URL is OpenAI's own (host ``api.openai.com``; no base URL means ``OPENAI_BASE_URL``
   or it) and the model id is a reasoning / Responses-first model (``o1``, ``o3``, ``o4-mini``..., ``gpt-5*``,
   ``codex*``, ``computer-use*``).

An explicit ``api_protocol`` always wins over this rule.
"""

from __future__ import annotations

import os
from urllib.parse import urlsplit

DEFAULT_BASE_URL = {
    "openai": "https://api.openai.com/v1",
    "anthropic": "https://api.anthropic.com",
    "google": "https://generativelanguage.googleapis.com",
}
BASE_URL_ENV = {"openai": "OPENAI_BASE_URL", "anthropic": "ANTHROPIC_BASE_URL", "google": "GOOGLE_GEMINI_BASE_URL"}
FALLBACK = "openai-chat"


def host_of(url: str | None) -> str:
    """``host[:port]`` of a URL, without user info ('' for None)."""
    if not url:
        return ""
    parts = urlsplit(url if "://" in url else f"http://{url}")
    return parts.netloc.rsplit("@", 1)[-1].lower()


def auto_protocols(base_url: str | None, model_id: str) -> list[str]:
    """The protocols ``auto`` tries for this base URL and model id, in order (see the module doc)."""
    from .protocols import auto_first

    first = auto_first(base_url, model_id)
    return [first, FALLBACK] if first is not None and first != FALLBACK else [FALLBACK]


def base_url_for(protocol: str, base_url: str | None) -> str:
    """The base URL the SDK of ``protocol`` is given (environment default; '/v1' dropped for Anthropic)."""
    from .protocols import family

    return family_base_url(family(protocol), base_url)


def family_base_url(family: str, base_url: str | None) -> str:
    """The base URL of a protocol family (``openai`` / ``anthropic`` / ``google``; see :func:`base_url_for`)."""
    url = (base_url or os.environ.get(BASE_URL_ENV[family]) or DEFAULT_BASE_URL[family]).rstrip("/")
    for tail in ("/v1", "/v1beta") if family in ("anthropic", "google") else ():
        if url.endswith(tail):
            url = url[: -len(tail)]
    return url


def display_url(url: str) -> str:
    """``url`` without user info, query or fragment: safe for messages and results."""
    parts = urlsplit(url)
    netloc = parts.netloc.rsplit("@", 1)[-1]
    return f"{parts.scheme}://{netloc}{parts.path}" if parts.scheme else url.split("?", 1)[0]


def default_provider(base_url: str | None, protocols: list[str]) -> str:
    """``host[:port]`` of the endpoint the first protocol talks to."""
    return host_of(base_url_for(protocols[0], base_url))
