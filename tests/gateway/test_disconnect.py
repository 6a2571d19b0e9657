"""An agent that closes its connection during a streamed answer: after the last event (Codex does, before the end of
the HTTP body) the call is a whole answer; before it, the call is recorded as cut by the agent. The tokens the
endpoint reported are counted either way, once, and the gateway logs no error for the agent's close."""

from __future__ import annotations

import asyncio
import json
import logging
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest

from agentcompass.testing.scripted_server import ScriptedModelServer
from tests.gateway.support import Rig, rig

USAGE = {"input_tokens": 100, "output_tokens": 7}
CASES = {  # protocol: (path, body, the last event's marker)
    "anthropic-messages": (
        "/v1/messages",
        {"model": "m", "max_tokens": 50, "stream": True, "messages": [{"role": "user", "content": "hi"}]},
        b"message_stop",
    ),
    "openai-responses": ("/v1/responses", {"model": "m", "stream": True, "input": "hi"}, b"response.completed"),
    "openai-chat": (
        "/v1/chat/completions",
        {
            "model": "m",
            "stream": True,
            "stream_options": {"include_usage": True},
            "messages": [{"role": "user", "content": "hi"}],
        },
        b"[DONE]",
    ),
}


async def _post_and_close(r: Rig, path: str, body: dict[str, Any], until: bytes) -> bytes:
    """A plain HTTP/1.1 client that reads the streamed answer until the end of the event holding ``until`` and
    then closes its connection at once, without waiting for the end of the chunked body."""
    url = urlsplit(r.base_url)
    reader, writer = await asyncio.open_connection(url.hostname, url.port)
    data = json.dumps(body).encode()
    head = (
        f"POST {path} HTTP/1.1\r\nHost: {url.netloc}\r\nAuthorization: Bearer {r.token}\r\n"
        f"Content-Type: application/json\r\nContent-Length: {len(data)}\r\n\r\n"
    )
    writer.write(head.encode() + data)
    got = b""
    while not (until in got and b"\n\n" in got[got.index(until) :]):
        chunk = await reader.read(65536)
        assert chunk, f"the connection ended before {until!r}: {got!r}"
        got += chunk
    writer.close()
    await writer.wait_closed()
    return got


async def _record_line(r: Rig) -> dict[str, Any]:
    for _ in range(600):  # the line is written when the gateway ends the call
        lines = r.calls()
        if lines:
            (line,) = lines
            return line
        await asyncio.sleep(0.05)
    raise AssertionError("no record line was written")


@pytest.mark.parametrize("protocol", list(CASES))
def test_an_agent_closing_after_the_last_event_has_had_a_whole_answer(
    tmp_path: Path, protocol: str, caplog: pytest.LogCaptureFixture
) -> None:
    """The endpoint holds its stream's end back after the last event: the agent closes in between, so the
    gateway's end of the response meets a closed connection. The call is ``ok``, its usage counted once."""
    path, body, until = CASES[protocol]

    async def main() -> None:
        reply = {"text": "the whole answer", "usage": USAGE, "end_delay_s": 1.0}
        with ScriptedModelServer([reply]) as server:
            async with rig(server, protocol, tmp_path) as r:
                await _post_and_close(r, path, body, until)
                line = await _record_line(r)
                assert line["status"] == "ok" and line["error"] is None
                assert (line["usage"]["input"], line["usage"]["output"]) == (100, 7)
                assert line["response"]["text"] == "the whole answer"
                assert (r.model.usage.input_tokens, r.model.usage.output_tokens) == (100, 7)

    with caplog.at_level(logging.DEBUG):
        asyncio.run(main())
    assert not [rec for rec in caplog.records if rec.levelno >= logging.ERROR], caplog.text
    assert "closed its connection" not in caplog.text  # the whole answer was written: not a disconnect


def test_an_agent_closing_mid_stream_is_recorded_as_cut_and_its_tokens_are_counted(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """The agent goes away after the first event of a stream whose events are spaced out: the call is an error
    naming the agent's close; the input tokens the endpoint reported at the start were spent and are counted."""
    path, body, _ = CASES["anthropic-messages"]

    async def main() -> None:
        reply = {"text": "an answer the agent did not wait for", "usage": USAGE, "event_delay_s": 0.3}
        with ScriptedModelServer([reply]) as server:
            async with rig(server, "anthropic-messages", tmp_path) as r:
                await _post_and_close(r, path, body, b"message_start")
                line = await _record_line(r)
                assert line["status"] == "error"
                assert line["error"]["type"] == "AgentDisconnected", line["error"]
                assert "closed its connection" in line["error"]["message"]
                assert line["usage"]["input"] == 100 and r.model.usage.input_tokens == 100
                assert r.model.usage.n_calls == 1

    with caplog.at_level(logging.DEBUG):
        asyncio.run(main())
    assert not [rec for rec in caplog.records if rec.levelno >= logging.ERROR], caplog.text
