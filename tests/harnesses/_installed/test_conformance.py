"""The agent-program harnesses against the harness conformance suite: the real program, replayed through the
gateway (the suite's scripted server behind it) in a real local environment, with the session's agent cache."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from agentcompass.interfaces import REQUIRES_MODEL
from agentcompass.testing.conformance._common import build_from_conf
from agentcompass.testing.conformance.harness import HarnessSuite
from tests.harnesses._installed import agent_support as support


class _AgentSuite(HarnessSuite):
    """The base suite (an agent program is not a loop of ``complete`` calls, so the model suite's checks of turn
    limits and request counts are the per-agent tests' business): one write through the agent's own tool."""

    TRAJECTORY = True
    EXIT_STATUS = "completed"
    READ_BACK = {"/app/hello.txt": support.HELLO.encode()}

    def make_harness(self, tmp_dir: Path, **params: Any) -> Any:
        return build_from_conf("harness", self.HARNESS, support.agent_cache(), auto_install=True, **params)

    def replies(self) -> list[Any]:
        return [{"text": "first"}, {"text": "Done."}]  # one tool call, then the end (see replay_kwargs)

    def replay_kwargs(self, tmp_dir: Path) -> dict[str, Any]:
        return {"protocol": support.PROTOCOL[self.HARNESS]}

    @pytest.fixture(scope="class")
    @classmethod
    def replayed(cls, harness: Any, tmp_path_factory: pytest.TempPathFactory) -> Any:
        from agentcompass.testing.replay import replay

        suite, tmp = cls(), tmp_path_factory.mktemp("replay")
        reply = cls.reply(tmp / "workspaces")
        return replay(harness, suite.task(), reply, tmp, read_back=list(cls.READ_BACK), **suite.replay_kwargs(tmp))

    @classmethod
    def reply(cls, root: Path) -> Any:
        """The scripted server's reply function (the agent's own tools writing under ``root``)."""
        return support.script(cls.HARNESS, root=root)

    def test_model_requests_are_the_conversation(self, replayed: Any, harness: Any) -> None:
        assert REQUIRES_MODEL.of(harness) is True
        with_tools = [r for r in replayed.requests if r["body"].get("tools")]
        assert len(with_tools) >= 2, [r["path"] for r in replayed.requests]  # the tool call, then its result
        assert support.CALL_ID in str(with_tools[-1]["body"])
        assert replayed.result.usage.n_calls == len(replayed.requests)


@pytest.mark.slow
class TestClaudeCodeHarness(_AgentSuite):
    HARNESS = "claude_code"


@pytest.mark.slow
class TestCodexHarness(_AgentSuite):
    HARNESS = "codex"


@pytest.mark.slow
class TestOpenCodeHarness(_AgentSuite):
    HARNESS = "opencode"


@pytest.mark.slow
class TestQwenCodeHarness(_AgentSuite):
    HARNESS = "qwen_code"


@pytest.mark.slow
class TestGeminiCliHarness(_AgentSuite):
    HARNESS = "gemini_cli"


@pytest.mark.slow
class TestPiHarness(_AgentSuite):
    HARNESS = "pi"


@pytest.mark.slow
class TestClineHarness(_AgentSuite):
    HARNESS = "cline"


@pytest.mark.slow
class TestKiloHarness(_AgentSuite):
    HARNESS = "kilo"


class _PythonAgentSuite(_AgentSuite):
    """The Python agents, each on its own script (aider's edit format; OpenHands' own tools)."""

    @classmethod
    def reply(cls, root: Path) -> Any:
        from tests.harnesses._installed.test_python_agents_docker import SCRIPTS

        def reply(request: dict[str, Any]) -> dict[str, Any]:
            out = SCRIPTS[cls.HARNESS](request)
            for call in out.get("tool_calls", []):  # the workspace's workdir, as the agent states it
                if "path" in call["arguments"]:
                    workdir = support._workdir(json.dumps(request["body"]), str(root))
                    call["arguments"]["path"] = f"{workdir}/hello.txt"
            return out

        return reply

    def test_model_requests_are_the_conversation(self, replayed: Any, harness: Any) -> None:
        assert REQUIRES_MODEL.of(harness) is True
        assert len(replayed.requests) >= 2, [r["path"] for r in replayed.requests]
        assert replayed.result.usage.n_calls == len(replayed.requests)


@pytest.mark.slow
class TestAiderHarness(_PythonAgentSuite):
    HARNESS = "aider"


@pytest.mark.slow
class TestOpenHandsHarness(_PythonAgentSuite):
    HARNESS = "openhands"
