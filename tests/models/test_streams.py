"""The SSE wire form (``models/_streams``): parsing a stream however it is cut into chunks, with every line
ending; and each protocol's synthesized stream assembling back into the body it was made from."""

from __future__ import annotations

import json
import random

import pytest

from agentcompass.models import _streams
from agentcompass.testing.scripted_server.shapes import MESSAGES, RESPONSES, success_body

WIRE = (
    b'event: a\r\ndata: {"x":1}\r\n\r\n: a comment\ndata: line1\ndata: line2\n\nevent: b\rdata: z\r\rdata: [DONE]\n\n'
)
EVENTS = [("a", '{"x":1}'), (None, "line1\nline2"), ("b", "z"), (None, "[DONE]")]


def test_events_are_the_same_however_the_bytes_are_cut() -> None:
    rng = random.Random(7)
    for _ in range(300):
        parser, out, i = _streams.SSEParser(), [], 0
        while i < len(WIRE):
            j = i + rng.randint(1, 6)
            out += parser.feed(WIRE[i:j])
            i = j
        assert out + parser.close() == EVENTS


@pytest.mark.parametrize("path", ["/v1/chat/completions", RESPONSES, MESSAGES])
def test_a_synthesized_stream_assembles_into_its_body(path: str) -> None:
    protocol = {"/v1/chat/completions": "openai-chat", RESPONSES: "openai-responses", MESSAGES: "anthropic-messages"}
    calls = [{"id": "c1", "name": "grep", "arguments": json.dumps({"pattern": "x"})}]
    body = success_body(path, "m", "hello there", "tool_calls", {"input_tokens": 9, "output_tokens": 4}, calls)
    events = _streams.synthesize(protocol[path], body, include_usage=True)
    wire = b"".join(_streams.encode(e, d) for e, d in events)
    asm, parser = _streams.assembler(protocol[path]), _streams.SSEParser()
    for event, text in parser.feed(wire) + parser.close():
        asm.feed(event, text if text == "[DONE]" else json.loads(text))
    got = asm.body()
    if protocol[path] == "openai-chat":
        got["created"] = body["created"]
        assert got["choices"][0]["message"] == body["choices"][0]["message"] and got["usage"] == body["usage"]
    else:
        assert got == body
