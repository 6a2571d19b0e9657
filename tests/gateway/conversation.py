"""Conversations and replies of the three APIs in one neutral form, to compare what an agent sent and got with what
the endpoint got and sent (the translation agreement tests). Written independently of the gateway's code."""

from __future__ import annotations

import json
from typing import Any


def _text(content: Any) -> str:
    """Text of a content value; images as ``[image <url>]``."""
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    out = []
    for part in content:
        kind = part.get("type")
        if kind in ("text", "input_text", "output_text"):
            out.append(part["text"])
        elif kind == "image_url":
            out.append(f"[image {part['image_url']['url']}]")
        elif kind == "input_image":
            out.append(f"[image {part['image_url']}]")
        elif kind == "image":
            src = part["source"]
            out.append(
                f"[image data:{src['media_type']};base64,{src['data']}]"
                if src["type"] == "base64"
                else f"[image {src['url']}]"
            )
        else:
            raise AssertionError(f"unexpected content part {kind}")
    return "".join(out)


def _add(out: list[tuple], entry: tuple) -> None:
    """Consecutive assistant entries are one turn; consecutive system entries one system prompt."""
    if out and entry[0] == out[-1][0] == "assistant":
        out[-1] = ("assistant", out[-1][1] + entry[1], out[-1][2] + entry[2])
    elif out and entry[0] == out[-1][0] == "system":
        out[-1] = ("system", out[-1][1] + entry[1])
    else:
        out.append(entry)


def conversation(protocol: str, body: dict[str, Any]) -> list[tuple]:
    """``[("system", text) | ("user", text) | ("assistant", text, [(id, name, args)]) | ("tool", id, text)]``."""
    out: list[tuple] = []
    if protocol == "openai-chat":
        for m in body["messages"]:
            if m["role"] in ("system", "developer"):
                _add(out, ("system", _text(m["content"])))
            elif m["role"] == "user":
                _add(out, ("user", _text(m["content"])))
            elif m["role"] == "assistant":
                calls = [
                    (c["id"], c["function"]["name"], json.loads(c["function"]["arguments"]))
                    for c in m.get("tool_calls") or []
                ]
                _add(out, ("assistant", _text(m.get("content")), calls))
            else:
                _add(out, ("tool", m["tool_call_id"], _text(m["content"])))
    elif protocol == "anthropic-messages":
        if body.get("system"):
            _add(out, ("system", _text(body["system"])))
        for m in body["messages"]:
            content = m["content"] if isinstance(m["content"], list) else [{"type": "text", "text": m["content"]}]
            if m["role"] == "assistant":
                text = _text([b for b in content if b["type"] == "text"])
                calls = [(b["id"], b["name"], b["input"]) for b in content if b["type"] == "tool_use"]
                _add(out, ("assistant", text, calls))
                continue
            for b in content:
                if b["type"] == "tool_result":
                    _add(out, ("tool", b["tool_use_id"], _text(b["content"])))
            rest = [b for b in content if b["type"] != "tool_result"]
            if rest:
                _add(out, ("user", _text(rest)))
    else:
        if body.get("instructions"):
            _add(out, ("system", body["instructions"]))
        items = body["input"] if isinstance(body["input"], list) else [{"role": "user", "content": body["input"]}]
        for item in items:
            kind = item.get("type", "message")
            if kind == "message" and item["role"] in ("system", "developer"):
                _add(out, ("system", _text(item["content"])))
            elif kind == "message":
                entry = (
                    ("assistant", _text(item["content"]), [])
                    if item["role"] == "assistant"
                    else ("user", _text(item["content"]))
                )
                _add(out, entry)
            elif kind == "function_call":
                _add(out, ("assistant", "", [(item["call_id"], item["name"], json.loads(item["arguments"]))]))
            elif kind == "function_call_output":
                _add(out, ("tool", item["call_id"], _text(item["output"])))
            elif kind != "reasoning":
                raise AssertionError(f"unexpected input item {kind}")
    return out


def reply(protocol: str, body: dict[str, Any]) -> dict[str, Any]:
    """``{text, calls: [(id, name, args)], finish: stop | tool_calls | length, input, output}`` of a reply body
    (``input``: every prompt token, cached ones included)."""
    if protocol == "openai-chat":
        choice = body["choices"][0]
        calls = [
            (c["id"], c["function"]["name"], json.loads(c["function"]["arguments"]))
            for c in choice["message"].get("tool_calls") or []
        ]
        usage = body["usage"]
        return {
            "text": choice["message"].get("content") or "",
            "calls": calls,
            "finish": choice["finish_reason"],
            "input": usage["prompt_tokens"],
            "output": usage["completion_tokens"],
        }
    if protocol == "anthropic-messages":
        blocks = body["content"]
        usage = body["usage"]
        stop = {"end_turn": "stop", "tool_use": "tool_calls", "max_tokens": "length"}[body["stop_reason"]]
        return {
            "text": "".join(b["text"] for b in blocks if b["type"] == "text"),
            "calls": [(b["id"], b["name"], b["input"]) for b in blocks if b["type"] == "tool_use"],
            "finish": stop,
            "input": usage["input_tokens"]
            + (usage.get("cache_read_input_tokens") or 0)
            + (usage.get("cache_creation_input_tokens") or 0),
            "output": usage["output_tokens"],
        }
    text, calls = "", []
    for item in body["output"]:
        if item["type"] == "message":
            text += "".join(p["text"] for p in item["content"] if p["type"] == "output_text")
        elif item["type"] == "function_call":
            calls.append((item["call_id"], item["name"], json.loads(item["arguments"])))
    finish = (
        "length"
        if (body.get("incomplete_details") or {}).get("reason") == "max_output_tokens"
        else ("tool_calls" if calls else "stop")
    )
    return {
        "text": text,
        "calls": calls,
        "finish": finish,
        "input": body["usage"]["input_tokens"],
        "output": body["usage"]["output_tokens"],
    }


def tools(protocol: str, body: dict[str, Any]) -> list[tuple]:
    """``[(name, description, parameters schema)]`` of the function tools offered."""
    out = []
    for t in body.get("tools") or []:
        if protocol == "openai-chat":
            fn = t["function"]
            out.append((fn["name"], fn.get("description"), fn.get("parameters")))
        elif protocol == "anthropic-messages":
            out.append((t["name"], t.get("description"), t["input_schema"]))
        elif t["type"] == "function":
            out.append((t["name"], t.get("description"), t.get("parameters")))
    return out
