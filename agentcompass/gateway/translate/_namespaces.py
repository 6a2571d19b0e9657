"""OpenAI Responses ``namespace`` tools (function and custom tools grouped under a name the model calls them by,
``function_call.namespace``) as the flat tool names of an endpoint without namespaces: ``<namespace>__<name>``."""

from __future__ import annotations

from typing import Any

from agentcompass.models.wire import ResponsesRequest, ResponsesTool

SEP = "__"


def flat(namespace: Any, name: Any) -> str:
    """The endpoint's name of tool ``name`` of ``namespace`` (no namespace: the name itself)."""
    return f"{namespace}{SEP}{name}" if namespace else str(name)


def members(request: ResponsesRequest) -> dict[str, tuple[str, ResponsesTool]]:
    """Flat name -> (namespace, tool) for each tool inside the request's namespace tools."""
    out: dict[str, tuple[str, ResponsesTool]] = {}
    for tool in request.get("tools") or []:
        if isinstance(tool, dict) and tool.get("type") == "namespace":
            for inner in tool.get("tools") or []:
                if isinstance(inner, dict):
                    out[flat(tool.get("name"), inner.get("name"))] = (str(tool.get("name")), inner)
    return out


def tools(request: ResponsesRequest) -> list[ResponsesTool]:
    """The request's tools with each namespace tool replaced by its members (flat names, the namespace's
    description before each member's own)."""
    out: list[ResponsesTool] = []
    for tool in request.get("tools") or []:
        if not (isinstance(tool, dict) and tool.get("type") == "namespace"):
            out.append(tool)
            continue
        about = f"[{tool.get('name')}: {tool['description']}]" if tool.get("description") else ""
        for inner in tool.get("tools") or []:
            description = " ".join(d for d in (about, inner.get("description") or "") if d)
            out.append({**inner, "name": flat(tool.get("name"), inner.get("name")), "description": description or None})
    return out
