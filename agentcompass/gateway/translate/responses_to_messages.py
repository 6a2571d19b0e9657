"""OpenAI Responses -> Anthropic Messages (Codex CLI on an Anthropic endpoint).

Request: ``instructions`` and system / developer messages become ``system`` blocks; user and assistant messages
become turns (images as image blocks); ``function_call`` items become ``tool_use`` blocks, ``function_call_output``
items ``tool_result`` blocks of a user turn (consecutive turns of one role merged); a reasoning item that carries an
Anthropic thinking block (in its ``encrypted_content``, as the gateway sent it) becomes that block again, others are
left out. Function tools become tools (``strict``, a schema-adherence hint, is not sent), a ``custom`` tool one
taking a string ``input``; hosted tools are dropped with a warning. ``max_output_tokens`` -> ``max_tokens`` (default
8192), ``reasoning.effort`` -> ``thinking`` (low 2048, medium 8192, high 16384 budget tokens; minimal: none;
``max_tokens`` raised above the budget when it is not), ``tool_choice`` / ``parallel_tool_calls`` as Anthropic's,
``temperature``, ``top_p``, ``user`` -> ``metadata.user_id``. ``text.verbosity`` and the rest are refused (see
``_responses_in``).
"""

from __future__ import annotations

from typing import Any

from agentcompass.models.protocols.anthropic_messages import DEFAULT_MAX_TOKENS
from agentcompass.models.wire import AnthropicBlock, AnthropicToolChoice, ResponsesRequest

from . import _common, _read_messages, _responses_in, _write_responses
from ._common import Refuser
from ._responses_in import Turn, TurnPart

AGENT, UPSTREAM = "openai-responses", "anthropic-messages"
BUDGET = {"low": 2048, "medium": 8192, "high": 16384}
read, writer, body = _read_messages, _write_responses.StreamWriter, _write_responses.body


def _image(url: str) -> AnthropicBlock:
    if url.startswith("data:") and ";base64," in url:
        media, data = url[5:].split(";base64,", 1)
        return {"type": "image", "source": {"type": "base64", "media_type": media, "data": data}}
    return {"type": "image", "source": {"type": "url", "url": url}}


def _blocks(parts: list[TurnPart]) -> list[AnthropicBlock]:
    out: list[AnthropicBlock] = []
    for p in parts:
        if p["type"] == "text":
            if p["text"]:
                out.append({"type": "text", "text": p["text"]})
        elif p["type"] == "image":
            out.append(_image(p["url"]))
        elif p["type"] == "tool":
            out.append(
                {"type": "tool_use", "id": p["id"], "name": p["name"], "input": _common.arguments(p["arguments"])}
            )
        elif p["type"] == "reasoning" and p["sealed"]:
            out.append(p["sealed"])
    return out


def _turns(turns: list[Turn]) -> tuple[list[AnthropicBlock], list[dict[str, Any]]]:
    system: list[AnthropicBlock] = []
    out: list[dict[str, Any]] = []  # messages whose content grows as turns of one role are merged

    def add(role: str, blocks: list[AnthropicBlock]) -> None:
        if not blocks:
            return
        if out and out[-1]["role"] == role:
            out[-1]["content"] += blocks
        else:
            out.append({"role": role, "content": blocks})

    for turn in turns:
        if turn["role"] == "system":
            system.append({"type": "text", "text": turn["text"]})
        elif turn["role"] == "tool":
            output = turn["output"]
            content = output if isinstance(output, str) else _blocks(output)
            add("user", [{"type": "tool_result", "tool_use_id": turn["id"], "content": content}])
        else:
            add(turn["role"], _blocks(turn["parts"]))
    return system, out


def _tool_choice(choice: str | None, parallel: Any) -> AnthropicToolChoice | None:
    if choice is None and parallel is not False:
        return None
    out: AnthropicToolChoice = (
        {"type": "tool", "name": choice[1:]}
        if choice and choice.startswith("=")
        else {"type": {"required": "any"}.get(choice or "auto", choice or "auto")}
    )
    if parallel is False and out["type"] != "none":
        out["disable_parallel_tool_use"] = True
    return out


def request(agent: ResponsesRequest, warnings: list[str]) -> dict[str, object]:
    refuse = Refuser(AGENT, UPSTREAM)
    _responses_in.check(agent, refuse, warnings)
    refuse.unknown_keys(agent.get("text") or {}, {"format"}, "text.")
    system, turns = _turns(_responses_in.conversation(agent, refuse))
    out: dict[str, Any] = {"model": agent.get("model"), "messages": turns}
    if system:
        out["system"] = system
    out["max_tokens"] = agent.get("max_output_tokens") or DEFAULT_MAX_TOKENS
    tools = _responses_in.tools(agent, refuse, warnings)
    if tools:
        out["tools"] = [
            {
                k: v
                for k, v in {
                    "name": t["name"],
                    "description": t["description"],
                    "input_schema": t["parameters"],
                }.items()
                if v is not None
            }
            for t in tools
        ]
        choice = _tool_choice(_responses_in.tool_choice(agent, refuse), agent.get("parallel_tool_calls"))
        if choice is not None:
            out["tool_choice"] = choice
    for key in ("temperature", "top_p", "stream"):
        value = agent.get(key)
        if value is not None:
            out[key] = value
    reasoning = agent.get("reasoning") or {}
    refuse.unknown_keys(reasoning, {"effort", "summary", "generate_summary"}, "reasoning.")
    effort = reasoning.get("effort")
    if effort and effort != "minimal":
        if effort not in BUDGET:
            raise refuse(f"reasoning.effort {effort!r} (one of minimal, {', '.join(BUDGET)})")
        out["thinking"] = {"type": "enabled", "budget_tokens": BUDGET[effort]}
        if out["max_tokens"] <= BUDGET[effort]:
            out["max_tokens"] = BUDGET[effort] + DEFAULT_MAX_TOKENS
    user = _responses_in.user(agent)
    if user:
        out["metadata"] = {"user_id": user}
    return out
