"""The harness contract (:class:`agentcompass.interfaces.Harness`), as tests an implementation inherits.

Subclass :class:`HarnessSuite` (a harness without a model) or :class:`ModelHarnessSuite`, set ``HARNESS`` (its id
in ``conf/harness/``) and, where needed, ``harness_params(tmp_dir)`` (config keys over the file); override
:meth:`HarnessSuite.task`, :meth:`HarnessSuite.replies` (the scripted conversation) and
:meth:`HarnessSuite.replay_kwargs` (``benchmark``, ``files``, ``before_run``, ``protocol``... of
:func:`agentcompass.testing.replay.replay`). The conversation is replayed once per class through the scripted
model server and a real local environment; the tests check what it left behind.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, ClassVar

import pytest

from agentcompass.conversation import Termination
from agentcompass.interfaces import CONVERSES, REQUIRES_MODEL, AgentResult, ExitStatus, Task, Usage
from agentcompass.testing.replay import Replay, ReplayOptions, replay

from ._common import build_from_conf, check_capabilities


def _fragment(reply: Any) -> str | None:
    """Text of a scripted reply that the next request's history must carry (JSON-escaped, as on the wire)."""
    if isinstance(reply, str):
        text = reply
    elif reply.get("tool_calls"):
        args = reply["tool_calls"][0].get("arguments", {})
        text = next(iter(args.values()), "") if isinstance(args, dict) and args else str(args)
    else:
        text = reply.get("text") or ""
    return json.dumps(text)[1:-1] if text else None


class HarnessSuite:
    HARNESS: ClassVar[str] = ""  # the id in conf/harness/
    EXIT_STATUS: ClassVar[str | None] = None  # the exit status the conversation ends with
    TRAJECTORY: ClassVar[bool] = False  # the harness writes a trajectory file
    READ_BACK: ClassVar[dict[str, bytes]] = {}  # environment files the run must leave, with their contents

    def harness_params(self, tmp_dir: Path) -> dict[str, object]:
        """Config keys merged over ``conf/harness/<HARNESS>.yaml``."""
        return {}

    def make_harness(self, tmp_dir: Path, **params: Any) -> Any:
        """The harness under test, built from its config file as a request builds it (``params`` over it)."""
        return build_from_conf("harness", self.HARNESS, tmp_dir, **{**self.harness_params(tmp_dir), **params})

    def task(self) -> Task:
        return Task(id="conformance-1", instruction="Create the file hello.txt holding the word hi.", workdir="/app")

    def replies(self) -> list[Any]:
        return []

    def replay_kwargs(self, tmp_dir: Path) -> ReplayOptions:
        return {}

    # class-scoped fixtures are classmethods (pytest 9.1 deprecates them as instance methods); the hooks they
    # call (make_harness, task, replies, replay_kwargs) stay instance methods, called on a fresh instance
    @pytest.fixture(scope="class")
    @classmethod
    def harness(cls, tmp_path_factory: pytest.TempPathFactory) -> Any:
        return cls().make_harness(tmp_path_factory.mktemp("harness"))

    @pytest.fixture(scope="class")
    @classmethod
    def replayed(cls, harness: Any, tmp_path_factory: pytest.TempPathFactory) -> Replay:
        suite, tmp = cls(), tmp_path_factory.mktemp("replay")
        return replay(
            harness, suite.task(), suite.replies(), tmp, read_back=list(cls.READ_BACK), **suite.replay_kwargs(tmp)
        )

    def test_declared_attributes(self, harness: Any) -> None:
        assert isinstance(harness.id, str) and harness.id
        check_capabilities(harness, "harness")

    def test_the_run_ends_in_an_agent_result(self, replayed: Replay) -> None:
        if replayed.error is not None:
            raise replayed.error
        result = replayed.result
        assert isinstance(result, AgentResult) and isinstance(result.usage, Usage)
        assert isinstance(result.exit_status, str) and result.exit_status, result
        assert result.exit_status != ExitStatus.ERROR  # an error is raised, never returned
        if self.EXIT_STATUS is not None:
            assert result.exit_status == self.EXIT_STATUS, result
        assert isinstance(result.n_turns, int) and result.n_turns >= 0
        for path, content in self.READ_BACK.items():
            assert replayed.files.get(path) == content, (path, replayed.files.get(path))

    def test_model_requests_are_the_conversation(self, replayed: Replay, harness: Any) -> None:
        expected = len(self.replies()) if REQUIRES_MODEL.of(harness) else 0
        assert len(replayed.requests) == expected, [r["path"] for r in replayed.requests]

    def test_the_trajectory_file(self, replayed: Replay) -> None:
        path = replayed.result.trajectory_path if replayed.result else None
        assert (path is not None) == self.TRAJECTORY, path
        if path is not None:
            file = Path(path) if Path(path).is_absolute() else replayed.attempt_dir / path
            assert file.is_file() and file.stat().st_size > 0, file
            if file.suffix == ".json":
                assert isinstance(json.loads(file.read_text(encoding="utf-8")), (dict, list))


class ModelHarnessSuite(HarnessSuite):
    """A harness driven by a model: requests carry the conversation, usage counts them, a limit is no error."""

    TRAJECTORY = True
    LIMIT_HIT: ClassVar[str] = "step_limit"  # limit_hit under LIMIT_PARAMS

    LIMIT_PARAMS: ClassVar[dict[str, object]] = {"step_limit": 2}  # config keys setting a limit of two steps

    def forever(self) -> Any:
        """A reply that never ends the run (the limit must)."""
        raise NotImplementedError("a conformance subclass defines forever()")

    def test_declared_attributes(self, harness: Any) -> None:
        super().test_declared_attributes(harness)
        assert REQUIRES_MODEL.of(harness) is True

    def test_each_request_carries_the_conversation_so_far(self, replayed: Replay) -> None:
        bodies = [json.dumps(b) for b in replayed.bodies]
        assert json.dumps(self.task().instruction)[1:-1] in bodies[0]
        for k, reply in enumerate(self.replies()[:-1]):
            fragment = _fragment(reply)
            if fragment:
                assert fragment in bodies[k + 1], f"request {k + 2} does not carry reply {k + 1} ({fragment!r})"

    def test_usage_counts_every_call(self, replayed: Replay) -> None:
        usage = replayed.result.usage
        assert usage.n_calls == len(replayed.requests) and usage.input_tokens > 0 and usage.output_tokens > 0
        scripted = [r.get("usage") for r in self.replies() if isinstance(r, dict)]
        if len(scripted) == len(self.replies()) and all(scripted):
            assert usage.input_tokens == sum(u["input_tokens"] for u in scripted)
            assert usage.output_tokens == sum(u["output_tokens"] for u in scripted)

    def test_a_limit_ends_the_run_without_an_error(self, tmp_path: Path) -> None:
        harness, forever = self.make_harness(tmp_path / "harness", **self.LIMIT_PARAMS), self.forever()
        out = replay(harness, self.task(), lambda request: forever, tmp_path / "replay", **self.replay_kwargs(tmp_path))
        if out.error is not None:
            raise out.error
        assert (out.result.exit_status, out.result.limit_hit) == (ExitStatus.LIMITS_EXCEEDED, self.LIMIT_HIT)
        assert 1 <= len(out.requests) <= 3, len(out.requests)


class ConversingHarnessSuite(ModelHarnessSuite):
    """A harness that converses (``converses = True``): replayed on the scripted calculator conversation
    (:mod:`agentcompass.testing.conversation`), it sends the conversation's tools, hands every reply to the
    conversation, and returns its transcript, ended as the conversation ended it. ``replies()`` must solve it:
    call ``add`` with 2 and 3, answer the user, answer again (the user then says goodbye)."""

    TRAJECTORY = False

    def task(self) -> Task:
        return Task(id="syn-0", instruction="Submit the text answer-0.", workdir="/", data="answer-0")

    def replay_kwargs(self, tmp_dir: Path) -> ReplayOptions:
        from agentcompass.testing.conversation import CalculatorBenchmark, CalculatorConfig

        return {"benchmark": CalculatorBenchmark(CalculatorConfig(), None)}  # type: ignore[arg-type]

    def test_declared_attributes(self, harness: Any) -> None:
        super().test_declared_attributes(harness)
        assert CONVERSES.of(harness) is True

    def test_each_request_carries_the_conversation_so_far(self, replayed: Replay) -> None:
        from agentcompass.testing.conversation import OPENING, TOOLS

        for body in replayed.bodies:
            text = json.dumps(body)
            assert json.dumps(OPENING)[1:-1] in text
            assert all(t["function"]["name"] in text for t in TOOLS)

    def test_the_transcript_is_the_conversation(self, replayed: Replay) -> None:
        from agentcompass.testing.conversation import FAREWELL

        transcript = replayed.result.transcript
        assert transcript is not None and transcript.termination == Termination.USER_STOP
        roles = [m.role for m in transcript.messages]
        assert roles[0] == "user" and "tool" in roles and roles.count("assistant") == len(replayed.requests)
        added = [m for m in transcript.messages if m.role == "tool" and m.content == "5" and not m.error]
        assert added and transcript.messages[-1].content == FAREWELL
