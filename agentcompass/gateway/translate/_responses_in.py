"""An OpenAI Responses request read into a neutral conversation (what both Responses translations start from).

Turns: ``{"role": "system", "text"}``, ``{"role": "user", "parts": [text | image]}``, ``{"role": "assistant",
"parts": [text | tool | reasoning]}``, ``{"role": "tool", "id", "output": str | parts}``. A ``custom`` (free-form)
tool is a function taking one string ``input``; its calls and outputs are tool calls like the others; the members of
``namespace`` tools are flat tools (``_namespaces``). Hosted tools and ``client_metadata`` (the client's labels of
its session) are dropped with a warning; server state (``previous_response_id``, ``item_reference``,
``conversation``) and any other item, part or field are refused.
"""

from __future__ import annotations

from typing import Any, TypedDict

from agentcompass.models.wire import AnthropicBlock, JsonObject, ResponsesContent, ResponsesItem, ResponsesRequest

from . import _common, _namespaces
from ._common import Refuser
from ._write_responses import unseal

KNOWN = frozenset(
    {"model", "input", "instructions", "tools", "tool_choice", "parallel_tool_calls", "max_output_tokens", "stream"}
    | {"temperature", "top_p", "reasoning", "text", "store", "include", "prompt_cache_key", "metadata", "user"}
    | {"safety_identifier", "service_tier", "truncation", "background", "stream_options", "client_metadata"}
)
INCLUDE_OK = {"reasoning.encrypted_content"}


class TurnPart(TypedDict, total=False):
    """A part of a neutral turn read from a Responses request: ``text``, ``image`` (its ``url``), ``tool`` (a
    call: ``id``, ``name``, ``arguments``) or ``reasoning`` (``summary``, the ``sealed`` Anthropic block)."""

    type: str
    text: str
    url: str
    id: str | None
    name: str
    arguments: str | None
    summary: str
    sealed: AnthropicBlock | None


class Turn(TypedDict, total=False):
    """A neutral turn read from a Responses request: ``system`` (``text``), ``user``/``assistant`` (``parts``),
    ``tool`` (the call's ``id`` and its ``output``)."""

    role: str
    text: str
    parts: list[TurnPart]
    id: str | None
    output: str | list[TurnPart]


class FunctionSpec(TypedDict, total=False):
    """A function tool read from a Responses request (a custom tool: one string ``input``)."""

    name: str | None
    description: str | None
    parameters: JsonObject
    strict: bool | None


def _part(part: ResponsesContent, refuse: Refuser, what: str) -> TurnPart:
    kind = part.get("type")
    if kind in ("input_text", "output_text", "text"):
        return {"type": "text", "text": part.get("text") or ""}
    if kind == "refusal":
        return {"type": "text", "text": part.get("refusal") or ""}
    if kind == "input_image" and part.get("image_url"):
        return {"type": "image", "url": part["image_url"]}
    raise refuse(f"{what}: content part type {kind!r}" + (" (by file_id)" if kind == "input_image" else ""))


def _parts(content: Any, refuse: Refuser, what: str) -> list[TurnPart]:
    if isinstance(content, str):
        return [{"type": "text", "text": content}]
    return [_part(p, refuse, what) for p in content or []]


def _output(value: Any, refuse: Refuser) -> str | list[TurnPart]:
    if value is None or isinstance(value, str):
        return value or ""
    parts = _parts(value, refuse, "function_call_output")
    return "".join(p["text"] for p in parts) if all(p["type"] == "text" for p in parts) else parts


def _item(item: ResponsesItem, refuse: Refuser) -> Turn:
    kind = item.get("type") or ("message" if "role" in item else None)
    if kind == "message":
        role = item.get("role")
        if role in ("system", "developer"):
            text = "".join(p["text"] for p in _parts(item.get("content"), refuse, f"{role} message"))
            return {"role": "system", "text": text}
        if role not in ("user", "assistant"):
            raise refuse(f"input message role {role!r}")
        return {"role": role, "parts": _parts(item.get("content"), refuse, f"{role} message")}
    if kind in ("function_call", "custom_tool_call"):
        name = _namespaces.flat(item.get("namespace"), item.get("name"))
        args = item.get("arguments") if kind == "function_call" else _common.dumps({"input": item.get("input") or ""})
        return {
            "role": "assistant",
            "parts": [{"type": "tool", "id": item.get("call_id"), "name": name, "arguments": args}],
        }
    if kind in ("function_call_output", "custom_tool_call_output"):
        return {"role": "tool", "id": item.get("call_id"), "output": _output(item.get("output"), refuse)}
    if kind == "reasoning":
        summary = "".join(s.get("text") or "" for s in item.get("summary") or [])
        sealed = unseal(item.get("encrypted_content"))
        return {"role": "assistant", "parts": [{"type": "reasoning", "summary": summary, "sealed": sealed}]}
    raise refuse(f"input item type {kind!r}")


def conversation(agent: ResponsesRequest, refuse: Refuser) -> list[Turn]:
    turns: list[Turn] = []
    if agent.get("instructions"):
        turns.append({"role": "system", "text": str(agent["instructions"])})
    items = agent.get("input")
    if isinstance(items, str):
        items = [{"type": "message", "role": "user", "content": items}]
    for item in items or []:
        turn = _item(item, refuse)
        if turn["role"] == "assistant" and turns and turns[-1]["role"] == "assistant":
            turns[-1]["parts"] += turn["parts"]
        else:
            turns.append(turn)
    return turns


def tools(agent: ResponsesRequest, refuse: Refuser, warnings: list[str]) -> list[FunctionSpec]:
    """``[{name, description, parameters, strict?}]`` of the function and custom tools (those of namespace tools
    under their flat names)."""
    out: list[FunctionSpec] = []
    top = {t.get("name") for t in agent.get("tools") or [] if isinstance(t, dict) and t.get("type") != "namespace"}
    clash = sorted(top & set(_namespaces.members(agent)))
    if clash:
        raise refuse(f"namespace tool names {clash} are also the names of other tools")
    for tool in _namespaces.tools(agent):
        kind = tool.get("type")
        if _common.hosted_responses_tool(tool):
            warnings.append(_common.dropped(tool))
        elif kind == "function":
            params = tool.get("parameters") or {"type": "object", "properties": {}}
            spec: FunctionSpec = {
                "name": tool.get("name"),
                "description": tool.get("description"),
                "parameters": params,
            }
            if tool.get("strict") is not None:
                spec["strict"] = tool["strict"]
            out.append(spec)
        elif kind == "custom":
            out.append(
                {
                    "name": tool.get("name"),
                    "description": tool.get("description"),
                    "parameters": _common.CUSTOM_INPUT_SCHEMA,
                }
            )
        else:
            raise refuse(f"tool type {kind!r}")
    return out


def tool_choice(agent: ResponsesRequest, refuse: Refuser) -> str | None:
    """``auto`` / ``required`` / ``none`` or the name of the one tool to call; None: not given."""
    choice = agent.get("tool_choice")
    if choice is None or choice in ("auto", "required", "none"):
        return choice
    if isinstance(choice, dict) and choice.get("type") in ("function", "custom") and choice.get("name"):
        return "=" + str(choice["name"])
    raise refuse(f"tool_choice {choice!r}")


def check(agent: ResponsesRequest, refuse: Refuser, warnings: list[str]) -> None:
    refuse.unknown_keys(agent, KNOWN)
    if agent.get("client_metadata"):
        warnings.append(
            f"client_metadata not sent: the client's own labels of its session, with no counterpart on "
            f"{refuse.upstream} and no effect on the reply (gateway translation)"
        )
    include = set(agent.get("include") or []) - INCLUDE_OK
    if include:
        raise refuse(f"include {sorted(include)}")
    if agent.get("service_tier") not in (None, "auto", "default"):
        raise refuse(f"service_tier {agent['service_tier']!r}")
    if agent.get("truncation") not in (None, "disabled"):
        raise refuse(f"truncation {agent['truncation']!r}")
    if agent.get("background"):
        raise refuse("background=true")
    fmt = ((agent.get("text") or {}).get("format") or {}).get("type", "text")
    if fmt != "text":
        raise refuse(f"text.format type {fmt!r}")


def user(agent: ResponsesRequest) -> str | None:
    value = agent.get("safety_identifier") or agent.get("user")
    return str(value) if value else None
