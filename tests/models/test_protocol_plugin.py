"""A model protocol added by one module outside the package (``tests/data/protocol_plugin``), found through the
``agentcompass.model_protocols`` entry-point group of a distribution on ``sys.path``, and used by ``Model``."""

from __future__ import annotations

import json
from asyncio import run
from pathlib import Path

import pytest

from agentcompass.errors import ConfigError
from agentcompass.models import protocols
from agentcompass.testing.conformance.model import ModelClientSuite
from agentcompass.testing.scripted_server import ScriptedModelServer

PLUGIN = Path(__file__).resolve().parent.parent / "data" / "protocol_plugin"
BASH = {"type": "function", "function": {"name": "bash", "parameters": {"type": "object", "properties": {}}}}
USER = [{"role": "user", "content": "list the files"}]


@pytest.fixture
def plain_chat(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    yield from _installed(tmp_path, monkeypatch)


def _installed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    """The plug-in's module on sys.path with a distribution declaring its entry point (as ``pip install`` would
    leave it)."""
    protocols.refresh()
    assert "plain-chat" not in protocols.names()
    dist = tmp_path / "site" / "plain_chat_protocol-0.1.dist-info"
    dist.mkdir(parents=True)
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: plain-chat-protocol\nVersion: 0.1\n")
    (dist / "entry_points.txt").write_text("[agentcompass.model_protocols]\nplain-chat = plain_chat_protocol\n")
    monkeypatch.syspath_prepend(str(PLUGIN))
    monkeypatch.syspath_prepend(str(tmp_path / "site"))
    protocols.refresh()
    yield
    monkeypatch.undo()
    protocols.refresh()


def test_a_plugin_protocol_runs_model_calls(plain_chat, make_model) -> None:
    assert "plain-chat" in protocols.names()
    replies = [{"tool_calls": [{"id": "c1", "name": "bash", "arguments": '{"command": "ls"}'}]}, "two files"]
    with ScriptedModelServer(replies=replies) as srv:
        model = make_model(srv.base_url, api_protocol="plain-chat", prices={"input_per_mtok": 1e6})

        async def go():
            first = await model.complete(USER, tools=[BASH], max_output_tokens=7)
            answer = [{"role": "tool", "tool_call_id": "c1", "content": "a b"}]
            history = [*USER, {"role": "assistant", "tool_calls": [c.to_message() for c in first.tool_calls]}]
            second = await model.complete(history + answer)
            await model.aclose()
            return first, second

        first, second = run(go())
    assert model.protocol == "plain-chat" and model.describe()["protocol"] == "plain-chat"
    assert [(c.id, c.name, json.loads(c.arguments)) for c in first.tool_calls] == [("c1", "bash", {"command": "ls"})]
    assert (first.finish_reason, second.text, second.finish_reason) == ("tool_calls", "two files", "stop")
    assert [r["path"] for r in srv.requests] == ["/v1/chat/completions"] * 2
    body = srv.requests[0]["body"]
    assert (body["max_tokens"], body["tools"], body["model"]) == (7, [BASH], "test-model")  # its RENAMES applied
    assert srv.requests[0]["headers"]["authorization"] == "<redacted>"  # the key was sent (the server hides it)
    total = model.total_usage
    assert total.n_calls == 2 and total.input_tokens > 0 and total.cost_usd == float(total.input_tokens)


def test_auto_asks_the_plugin_protocols_too(plain_chat, make_model) -> None:
    with ScriptedModelServer(replies=["hello"]) as srv:
        model = make_model(srv.base_url, api_protocol="auto", id="plain-7b")
        assert model.protocol == "plain-chat"
        assert run(model.complete(USER)).text == "hello"
        run(model.aclose())
    other = make_model(srv.base_url, api_protocol="auto", id="test-model")
    assert other.protocol == "openai-chat"  # the bundled rule for every other model


def test_an_unknown_protocol_lists_the_plugin_ones(plain_chat, make_model) -> None:
    with pytest.raises(ConfigError, match=r"'grpc' is not a protocol; allowed: one of .*openai-chat.*plain-chat"):
        make_model("http://127.0.0.1:9/v1", api_protocol="grpc")


def test_without_the_plugin_the_name_is_unknown(make_model) -> None:
    with pytest.raises(ConfigError, match=r"'plain-chat' is not a protocol; allowed: one of anthropic-messages, "):
        make_model("http://127.0.0.1:9/v1", api_protocol="plain-chat")


class TestPlainChat(ModelClientSuite):
    """The protocol plug-in passes the model client conformance suite unchanged."""

    PROTOCOL = "plain-chat"

    @pytest.fixture(autouse=True)
    def _plugin(self, tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
        yield from _installed(tmp_path, monkeypatch)
