"""The routes the gateway serves and the error bodies of each API."""

from __future__ import annotations

import re

from agentcompass.models.wire import ApiErrorBody, chat, gemini, messages, responses

MESSAGES, RESPONSES, CHAT, GEMINI = "anthropic-messages", "openai-responses", "openai-chat", "google-genai"

# path (with or without the /v1 prefix) -> (agent protocol, suffix after the protocol's own path)
POST_ROUTES: dict[str, tuple[str, str]] = {
    "/v1/messages": (MESSAGES, ""),
    "/v1/messages/count_tokens": (MESSAGES, "/count_tokens"),
    "/v1/responses": (RESPONSES, ""),
    "/v1/chat/completions": (CHAT, ""),
}
POST_ROUTES.update({path.removeprefix("/v1"): route for path, route in list(POST_ROUTES.items())})
GET_MODELS = ("/v1/models", "/models")
MCP = "/mcp"  # the attempt's conversation as an MCP server (POST; mcp.py)
# the Gemini API: /v1beta/models/{model}:{method} (also /v1/..., and without a version); method -> suffix
_GEMINI = re.compile(r"^(?:/v1beta|/v1)?/models/(?P<model>[^/:]+):(?P<method>[A-Za-z]+)$")
GEMINI_METHODS = {"generateContent": "", "streamGenerateContent": "", "countTokens": ":countTokens"}


def gemini_route(path: str) -> tuple[str, str] | None:
    """``(model, method)`` of a Gemini API path (None: not one)."""
    found = _GEMINI.match(path)
    return (found["model"], found["method"]) if found is not None else None


def protocol_of(path: str) -> str:
    """The API a path belongs to (for the shape of its errors); OpenAI's for anything unknown."""
    route = POST_ROUTES.get(path.rstrip("/"))
    if route is not None:
        return route[0]
    if gemini_route(path.rstrip("/")) is not None or path.startswith("/v1beta"):
        return GEMINI
    return MESSAGES if "/messages" in path else CHAT


def error_body(protocol: str, status: int, message: str, code: str | None = None) -> ApiErrorBody:
    """An error body in the shape the official SDK of ``protocol`` parses."""
    if protocol == MESSAGES:
        return messages.error_body(status, message)
    if protocol == GEMINI:
        return gemini.error_body(status, message)
    return (responses if protocol == RESPONSES else chat).error_body(status, message, code)


def models_body(model_id: str) -> dict[str, object]:
    """``GET /v1/models``: the one model the gateway serves (both APIs' list shapes at once)."""
    entry = {"id": model_id, "object": "model", "created": 0, "owned_by": "agentcompass"}
    entry.update({"type": "model", "display_name": model_id, "created_at": "1970-01-01T00:00:00Z"})
    return {"object": "list", "data": [entry], "has_more": False, "first_id": model_id, "last_id": model_id}
