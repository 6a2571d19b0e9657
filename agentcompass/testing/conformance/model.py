"""The model client contract (:class:`agentcompass.interfaces.ModelClient`), as tests a protocol inherits.

Subclass :class:`ModelClientSuite` and set ``PROTOCOL`` (an ``api_protocol`` value) and ``CONTEXT_ERROR`` (how the
provider says a prompt is too long: a scripted error reply); override :meth:`ModelClientSuite.make_client` for a
client class other than the bundled ``Model``. Every test talks to a
:class:`~agentcompass.testing.scripted_server.ScriptedModelServer` on 127.0.0.1 over real HTTP.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any, ClassVar

import pytest

from agentcompass.errors import ContextLengthExceededError, ModelError, ModelRetryableError
from agentcompass.interfaces import ModelClient, ModelResponse, ToolCall
from agentcompass.testing.scripted_server import ScriptedModelServer

from ._common import check_capabilities

KEY = "sk-conformance-0123456789-SECRET"
BASH = {
    "type": "function",
    "function": {
        "name": "bash",
        "description": "Run a command",
        "parameters": {"type": "object", "properties": {"command": {"type": "string"}}, "required": ["command"]},
    },
}
USER = [{"role": "system", "content": "Be brief."}, {"role": "user", "content": "say hello to the conformance suite"}]


def _run(coro: Any) -> Any:
    return asyncio.run(asyncio.wait_for(coro, 60))


class ModelClientSuite:
    PROTOCOL: ClassVar[str] = ""
    MODEL_ID: ClassVar[str] = "conformance-model"
    CONTEXT_ERROR: ClassVar[dict[str, Any]] = {
        "status": 400,
        "code": "context_length_exceeded",
        "error": "This model's maximum context length is 8192 tokens. However, you requested 9000 tokens.",
    }

    def make_client(self, base_url: str, tmp_dir: Path, **fields: Any) -> Any:
        """The client under test, built through the registry as a request builds it (fast backoff)."""
        from agentcompass._config import build
        from agentcompass.interfaces import ComponentContext

        cfg = {
            "_target_": "agentcompass.models.client.Model",
            "id": self.MODEL_ID,
            "base_url": base_url,
            "api_key": KEY,
            "api_protocol": self.PROTOCOL,
            "backoff_base_s": 0.01,
            "backoff_max_s": 0.05,
            **fields,
        }
        return build("model", cfg, ComponentContext(data_dir=tmp_dir))

    def _calls(self, client: Any, *calls: dict[str, Any]) -> list[Any]:
        """Each call (``complete`` keywords, ``messages`` defaulting to USER), then ``aclose``; exceptions kept."""

        async def go() -> list[Any]:
            out: list[Any] = []
            for call in calls:
                kw = dict(call)
                try:
                    out.append(await client.complete(kw.pop("messages", USER), **kw))
                except ModelError as exc:
                    out.append(exc)
            await client.aclose()
            return out

        return _run(go())

    # ------------------------------------------------------------------ round trip
    def test_a_round_trip_gives_text_finish_reason_and_usage(self, tmp_path: Path) -> None:
        replies = [
            {"text": "hello there", "usage": {"input_tokens": 12, "output_tokens": 3, "cached_tokens": 5}},
            {"text": "half a", "finish_reason": "length", "usage": {"input_tokens": 20, "output_tokens": 9}},
        ]
        with ScriptedModelServer(replies=replies) as srv:
            client = self.make_client(srv.base_url, tmp_path)
            assert isinstance(client, ModelClient) and client.model_id == self.MODEL_ID
            assert isinstance(client.provider, str) and client.provider
            check_capabilities(client, "model")
            first, second = self._calls(client, {}, {"max_tokens": 9})
        assert isinstance(first, ModelResponse) and (first.text, first.finish_reason) == ("hello there", "stop")
        assert (first.usage.input_tokens, first.usage.output_tokens, first.usage.cached_tokens) == (12, 3, 5)
        assert (second.text, second.finish_reason) == ("half a", "length")
        assert (client.usage.n_calls, client.usage.input_tokens, client.usage.output_tokens) == (2, 32, 12)
        assert len(srv.requests) == 2
        sent = json.dumps(srv.requests[0]["body"])
        assert "say hello to the conformance suite" in sent and "Be brief." in sent
        assert all(KEY not in json.dumps(r) for r in srv.requests)  # recorded headers are redacted

    def test_a_fork_has_its_own_usage(self, tmp_path: Path) -> None:
        with ScriptedModelServer(default_reply="ok") as srv:
            client = self.make_client(srv.base_url, tmp_path)
            fork = client.fork()
            (reply,) = self._calls(fork, {})
            _run(client.aclose())
        assert reply.text == "ok" and fork.usage.n_calls == 1 and client.usage.n_calls == 0

    # ------------------------------------------------------------------ tools
    def test_tool_calls_come_back_and_their_results_go_out(self, tmp_path: Path) -> None:
        call = {"id": "call_1", "name": "bash", "arguments": {"command": "ls"}}
        replies = [{"text": "Looking.", "tool_calls": [call]}, {"text": "done"}]
        with ScriptedModelServer(replies=replies) as srv:
            client = self.make_client(srv.base_url, tmp_path)

            async def go() -> tuple[Any, Any]:
                history = [{"role": "user", "content": "inspect"}]
                first = await client.complete(history, tools=[BASH])
                history.append(
                    {
                        "role": "assistant",
                        "content": first.text or None,
                        "tool_calls": [c.to_message() for c in first.tool_calls],
                    }
                )
                history += [{"role": "tool", "tool_call_id": c.id, "content": "output of ls"} for c in first.tool_calls]
                second = await client.complete(history, tools=[BASH])
                await client.aclose()
                return first, second

            first, second = _run(go())
        assert first.tool_calls == [ToolCall("call_1", "bash", '{"command": "ls"}')]
        assert first.finish_reason == "tool_calls" and first.text == "Looking."
        assert (second.text, second.tool_calls, second.finish_reason) == ("done", [], "stop")
        body = json.dumps(srv.requests[1]["body"])
        assert "call_1" in body and "output of ls" in body and "bash" in body
        assert "bash" in json.dumps(srv.requests[0]["body"]) and "Run a command" in json.dumps(srv.requests[0]["body"])

    # ------------------------------------------------------------------ errors
    @pytest.mark.parametrize("status", [400, 401, 404])
    def test_a_refusal_is_a_model_error_that_is_not_retried(self, tmp_path: Path, status: int) -> None:
        with ScriptedModelServer(replies=[{"status": status, "error": "refused by the conformance suite"}]) as srv:
            (error,) = self._calls(self.make_client(srv.base_url, tmp_path, max_retries=3), {})
        assert isinstance(error, ModelError) and not isinstance(error, ModelRetryableError), error
        assert error.retryable is False and error.status == status and str(status) in str(error)
        assert KEY not in str(error) and len(srv.requests) == 1

    def test_a_prompt_too_long_is_a_context_length_error(self, tmp_path: Path) -> None:
        with ScriptedModelServer(replies=[dict(self.CONTEXT_ERROR)]) as srv:
            (error,) = self._calls(self.make_client(srv.base_url, tmp_path, max_retries=3), {})
        assert isinstance(error, ContextLengthExceededError), error
        assert error.retryable is False and len(srv.requests) == 1 and KEY not in str(error)

    def test_a_server_error_is_retried_then_typed_retryable(self, tmp_path: Path) -> None:
        replies = [
            {"status": 500, "error": "boom"},
            "recovered",
            {"status": 503, "error": "boom"},
            {"status": 503, "error": "boom"},
        ]
        with ScriptedModelServer(replies=replies) as srv:
            recovered, failed = self._calls(self.make_client(srv.base_url, tmp_path, max_retries=1), {}, {})
        assert isinstance(recovered, ModelResponse) and recovered.text == "recovered"
        assert recovered.usage.n_retries == 1
        assert isinstance(failed, ModelRetryableError) and failed.retryable is True and failed.status == 503, failed
        assert len(srv.requests) == 4
