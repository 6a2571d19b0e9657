"""Three-turn agents on the official SDKs (``anthropic`` Messages, ``openai`` Chat Completions and Responses): each
keeps its conversation in its API's own form, sends it, and appends the reply and the results of its tool calls."""

from __future__ import annotations

import json
from typing import Any

IMAGE = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="
DATA_URL = f"data:image/png;base64,{IMAGE}"
SCHEMAS = {
    "read_file": {"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]},
    "grep": {
        "type": "object",
        "properties": {"pattern": {"type": "string"}, "path": {"type": "string"}},
        "required": ["pattern"],
    },
}
DESCRIPTIONS = {"read_file": "Read a file.", "grep": "Search files for a pattern."}


def tool_output(name: str, args: dict[str, Any]) -> str:
    return f"output of {name}({json.dumps(args, sort_keys=True)})\nline 2"


class MessagesAgent:
    protocol = "anthropic-messages"

    def __init__(self, base_url: str, token: str) -> None:
        import anthropic

        self.client = anthropic.AsyncAnthropic(base_url=base_url, api_key=token, max_retries=0)
        self.body: dict[str, Any] = {
            "model": "claude-the-agent-asks-for",
            "max_tokens": 1024,
            "system": [{"type": "text", "text": "You are terse. "}, {"type": "text", "text": "Use the tools."}],
            "messages": [
                {
                    "role": "user",
                    "content": [
                        {"type": "text", "text": "Look at this: "},
                        {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": IMAGE}},
                        {"type": "text", "text": " What is in notes.txt?"},
                    ],
                }
            ],
            "tools": [{"name": n, "description": DESCRIPTIONS[n], "input_schema": s} for n, s in SCHEMAS.items()],
        }

    async def call(self, stream: bool) -> dict[str, Any]:
        if stream:
            async with self.client.messages.stream(**self.body) as s:
                message = await s.get_final_message()
        else:
            message = await self.client.messages.create(**self.body)
        return message.model_dump(mode="json", exclude_none=True)

    def append(self, reply: dict[str, Any]) -> None:
        self.body["messages"].append({"role": "assistant", "content": reply["content"]})
        results = [
            {"type": "tool_result", "tool_use_id": b["id"], "content": tool_output(b["name"], b["input"])}
            for b in reply["content"]
            if b["type"] == "tool_use"
        ]
        self.body["messages"].append({"role": "user", "content": results})

    async def aclose(self) -> None:
        await self.client.close()


class ChatAgent:
    protocol = "openai-chat"

    def __init__(self, base_url: str, token: str) -> None:
        import openai

        self.client = openai.AsyncOpenAI(base_url=base_url + "/v1", api_key=token, max_retries=0)
        self.body: dict[str, Any] = {
            "model": "gpt-the-agent-asks-for",
            "messages": [
                {"role": "system", "content": "You are terse. Use the tools."},
                {
                    "role": "user",
                    "content": [
                        {"type": "text", "text": "Look at this: "},
                        {"type": "image_url", "image_url": {"url": DATA_URL}},
                        {"type": "text", "text": " What is in notes.txt?"},
                    ],
                },
            ],
            "tools": [
                {"type": "function", "function": {"name": n, "description": DESCRIPTIONS[n], "parameters": s}}
                for n, s in SCHEMAS.items()
            ],
        }

    async def call(self, stream: bool) -> dict[str, Any]:
        if not stream:
            return (await self.client.chat.completions.create(**self.body)).model_dump(mode="json")
        chunks = await self.client.chat.completions.create(
            **self.body, stream=True, stream_options={"include_usage": True}
        )
        out: dict[str, Any] = {"role": "assistant", "content": ""}
        calls: dict[int, dict[str, Any]] = {}
        finish, usage, head = None, None, {}
        async for chunk in chunks:
            head = head or {"id": chunk.id, "model": chunk.model}
            usage = chunk.usage.model_dump() if chunk.usage else usage
            for choice in chunk.choices:
                finish = choice.finish_reason or finish
                out["content"] += choice.delta.content or ""
                for call in choice.delta.tool_calls or []:
                    held = calls.setdefault(
                        call.index, {"id": call.id, "type": "function", "function": {"name": "", "arguments": ""}}
                    )
                    held["function"]["name"] += call.function.name or ""
                    held["function"]["arguments"] += call.function.arguments or ""
        if calls:
            out["tool_calls"] = [calls[i] for i in sorted(calls)]
        return {**head, "choices": [{"index": 0, "message": out, "finish_reason": finish}], "usage": usage}

    def append(self, reply: dict[str, Any]) -> None:
        message = reply["choices"][0]["message"]
        calls = message.get("tool_calls") or []
        self.body["messages"].append(
            {"role": "assistant", "content": message.get("content") or None, "tool_calls": calls}
        )
        for c in calls:
            output = tool_output(c["function"]["name"], json.loads(c["function"]["arguments"]))
            self.body["messages"].append({"role": "tool", "tool_call_id": c["id"], "content": output})

    async def aclose(self) -> None:
        await self.client.close()


class ResponsesAgent:
    protocol = "openai-responses"

    def __init__(self, base_url: str, token: str) -> None:
        import openai

        self.client = openai.AsyncOpenAI(base_url=base_url + "/v1", api_key=token, max_retries=0)
        self.body: dict[str, Any] = {
            "model": "codex-the-agent-asks-for",
            "instructions": "You are terse. Use the tools.",
            "input": [
                {
                    "type": "message",
                    "role": "user",
                    "content": [
                        {"type": "input_text", "text": "Look at this: "},
                        {"type": "input_image", "image_url": DATA_URL, "detail": "auto"},
                        {"type": "input_text", "text": " What is in notes.txt?"},
                    ],
                }
            ],
            "tools": [
                {"type": "function", "name": n, "description": DESCRIPTIONS[n], "parameters": s, "strict": False}
                for n, s in SCHEMAS.items()
            ],
            "store": False,
        }

    async def call(self, stream: bool) -> dict[str, Any]:
        if stream:
            async with self.client.responses.stream(**self.body) as s:
                async for event in s:  # the final event: response.completed, or .incomplete (max_output_tokens)
                    if event.type in ("response.completed", "response.incomplete"):
                        response = event.response
        else:
            response = await self.client.responses.create(**self.body)
        return response.model_dump(mode="json", exclude_none=True)

    def append(self, reply: dict[str, Any]) -> None:
        for item in reply["output"]:
            if item["type"] == "message":
                content = [
                    {"type": "output_text", "text": p["text"]} for p in item["content"] if p["type"] == "output_text"
                ]
                self.body["input"].append({"type": "message", "role": "assistant", "content": content})
            elif item["type"] == "function_call":
                call = {k: item[k] for k in ("call_id", "name", "arguments")}
                self.body["input"].append({"type": "function_call", **call})
                output = tool_output(item["name"], json.loads(item["arguments"]))
                self.body["input"].append(
                    {"type": "function_call_output", "call_id": item["call_id"], "output": output}
                )

    async def aclose(self) -> None:
        await self.client.close()


AGENTS = {a.protocol: a for a in (MessagesAgent, ChatAgent, ResponsesAgent)}
