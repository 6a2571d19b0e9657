"""Agreement of our τ²-bench grading with the reference's evaluator (tau2 1.0.1), on trajectories built from the
real tasks of airline and retail: every component's RewardInfo, the reward, and the messages the NL judge is sent.
One reference call per batch (module-scoped fixtures)."""

from __future__ import annotations

import asyncio
import json
import re
from pathlib import Path
from typing import Any

import pytest

from agentcompass.benchmarks.tau2.criteria import read_criteria
from agentcompass.benchmarks.tau2.evaluate import evaluate, termination_reason
from agentcompass.benchmarks.tau2.evaluate_action import action_reward
from agentcompass.benchmarks.tau2.evaluate_communicate import communicate_reward
from agentcompass.benchmarks.tau2.evaluate_nl import JudgeMissingError, JudgeReplyError, nl_reward
from agentcompass.benchmarks.tau2.reward import Component
from agentcompass.conversation import ToolUse, Transcript
from agentcompass.errors import VerifierError
from tests.benchmarks.tau2 import eval_cases, reference_eval

pytestmark = pytest.mark.slow
DOMAINS = {"airline": "tasks.json", "retail": "tasks.json", "telecom": "tasks_small.json"}


def load_tasks(root: Path) -> dict[str, list[dict[str, Any]]]:
    base = root / "data" / "tau2" / "domains"
    return {d: json.loads((base / d / f).read_text()) for d, f in DOMAINS.items()}


def fixed_output(call: ToolUse) -> tuple[str, bool]:
    return json.dumps({"ok": call.name}), False


def component_dict(part: Component) -> dict[str, Any]:
    """A component as the reference's RewardInfo dump, without reward_basis (a component's is the default)."""
    keys = ("reward", "db_check", "env_assertions", "action_checks", "nl_assertions", "communicate_checks")
    out = {k: getattr(part, k) for k in keys}
    out.update(reward_breakdown=part.reward_breakdown, info=part.info)
    return out


class Recorder:
    def __init__(self, assertions: list[str], mode: str) -> None:
        self.assertions, self.mode, self.sent = assertions, mode, None

    async def __call__(self, messages: list[dict[str, str]]) -> str:
        self.sent = messages
        return eval_cases.judge_reply(self.assertions, self.mode)


@pytest.fixture(scope="module")
def component_cases(tau2_root, tau2_reference):
    cases = eval_cases.cases(load_tasks(tau2_root))
    for case in cases:
        case["transcript"] = eval_cases.build_transcript(tool_output=fixed_output, **case["kwargs"]).to_dict()
    payload = [{k: c[k] for k in ("domain", "task", "transcript", "judge_mode")} for c in cases]
    results = tau2_reference(reference_eval.script(), {"cases": payload, "components": True})
    return cases, results


def _no_basis(info: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in info.items() if k != "reward_basis"}


def test_components_agree_with_the_reference(component_cases, tau2_root):
    cases, results = component_cases
    assert len(cases) >= 300
    for case, ref in zip(cases, results, strict=True):
        criteria = read_criteria(case["task"])
        assert criteria is not None
        transcript = Transcript.from_dict(case["transcript"])
        label = (case["domain"], case["task"]["id"], case["name"])
        assert component_dict(action_reward(criteria, transcript.messages, None)) == _no_basis(ref["action"]), label
        assert component_dict(communicate_reward(criteria, transcript.messages)) == _no_basis(ref["communicate"]), label
        judge = Recorder(criteria.nl_assertions or [], case["judge_mode"])
        nl = asyncio.run(nl_reward(case["task"]["id"], criteria, transcript.messages, judge, tau2_root))
        assert component_dict(nl) == _no_basis(ref["nl"]), label
        assert judge.sent == ref["sent"], label


def test_the_variants_reach_every_outcome(component_cases):
    cases, results = component_cases
    for part in ("action", "communicate", "nl"):
        assert {r[part]["reward"] for r in results} == {0.0, 1.0}, part


def test_premature_terminations_score_zero_as_the_reference(tau2_reference, tau2_root):
    tasks = load_tasks(tau2_root)
    picked = [t for d in tasks.values() for t in d[:3]]
    stops = ["max_steps", "too_many_errors", "agent_error", "user_error", "harness_limit", None, "timeout"]
    cases = []
    for task, stop in ((t, s) for t in picked for s in stops):
        tr = eval_cases.build_transcript([], [], fixed_output, termination=stop)
        cases.append(
            {
                "domain": "airline",
                "task": task,
                "transcript": tr.to_dict(),
                "judge_mode": "all_met",
                "termination_reason": termination_reason(stop),
            }
        )
    results = tau2_reference(reference_eval.script(), {"cases": cases})
    for case, ref in zip(cases, results, strict=True):
        ours = asyncio.run(evaluate(case["task"], Transcript.from_dict(case["transcript"]), lambda: None))
        assert ours.to_dict() == ref["reward_info"]
        assert ours.reward == 0.0


def test_nl_grading_without_a_judge_names_the_task(tau2_root):
    retail = load_tasks(tau2_root)["retail"]
    task = next(t for t in retail if t["evaluation_criteria"].get("nl_assertions"))
    criteria = read_criteria(task)
    assert criteria is not None
    with pytest.raises(JudgeMissingError, match=repr(task["id"])):
        asyncio.run(nl_reward(task["id"], criteria, [], None, tau2_root))


@pytest.mark.parametrize(
    "reply",
    [
        "not json",
        '{"results": [{"expectedOutcome": "x"}]}',
        '{"results": [{"expectedOutcome": "x", "reasoning": "r", "metExpectation": " true"}]}',
    ],
)
def test_unreadable_judge_replies_raise(tau2_root, reply):
    retail = load_tasks(tau2_root)["retail"]
    task = next(t for t in retail if t["evaluation_criteria"].get("nl_assertions"))
    criteria = read_criteria(task)
    assert criteria is not None

    async def judge(messages):
        return reply

    with pytest.raises(JudgeReplyError):
        asyncio.run(nl_reward(task["id"], criteria, [], judge, tau2_root))


FULL_VARIANTS = ("gold", "dropped", "altered", "gold_parallel_commas", "reordered", "wrong_info", "missing_info")


def full_selection(cases: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Per task, its premature stop and one replayed variant (the next of FULL_VARIANTS it has, in turn), so that
    every variant is graded with its environment replay on some tasks (an airline or retail replay costs ~0.2-0.8 s);
    telecom's tasks with every variant."""
    by_task: dict[tuple[str, str], list[dict[str, Any]]] = {}
    for case in cases:
        by_task.setdefault((case["domain"], case["task"]["id"]), []).append(case)
    picked = []
    for i, task_cases in enumerate(by_task.values()):
        if task_cases[0]["domain"] == "telecom":  # its environments are cheap: every variant
            picked += task_cases
            continue
        names = {c["name"]: c for c in task_cases}
        order = FULL_VARIANTS[i % len(FULL_VARIANTS) :] + FULL_VARIANTS[: i % len(FULL_VARIANTS)]
        picked.append(names[next(n for n in order if n in names)])
        picked += [c for c in task_cases if c["name"].startswith("premature")]
    return picked


def unversioned(value: Any) -> Any:
    """``value`` with pydantic's docs URL version blanked (it names the installed pydantic; see reference_eval)."""
    return json.loads(re.sub(r"errors\.pydantic\.dev/[0-9.]+/", "errors.pydantic.dev/V/", json.dumps(value)))


@pytest.fixture(scope="module")
def full_cases(tau2_root, tau2_reference):
    from agentcompass.benchmarks.tau2.domains import load_domain

    tasks = load_tasks(tau2_root)
    factories = {d: load_domain(tau2_root, d) for d in tasks}
    cases = full_selection(eval_cases.cases(tasks, seed=11))
    for case in cases:
        env = eval_cases.initial_env(factories[case["domain"]], case["task"])
        tr = eval_cases.build_transcript(tool_output=eval_cases.live_output(env), **case["kwargs"])
        case["transcript"] = tr.to_dict()
        case["termination_reason"] = termination_reason(tr.termination)
    cases += tampered([c for c in cases if c["name"] == "gold"], factories)
    keys = ("domain", "task", "transcript", "judge_mode", "termination_reason")
    results = tau2_reference(reference_eval.script(), {"cases": [{k: c[k] for k in keys} for c in cases]})
    return cases, results, factories


def tampered(gold: list[dict[str, Any]], factories: dict[str, Any], per_domain: int = 3) -> list[dict[str, Any]]:
    """Gold cases whose first state-changing call has a recorded output the replay does not give: the
    reference's strict replay raises, ours raises VerifierError."""
    out: list[dict[str, Any]] = []
    for case in gold:
        env = factories[case["domain"]]()
        messages = case["transcript"]["messages"]
        calls = {c["id"]: c["name"] for m in messages for c in m.get("tool_calls") or []}
        answer = next((m for m in messages if m["role"] == "tool" and env.is_mutating(calls[m["tool_call_id"]])), None)
        if answer is None or sum(c["domain"] == case["domain"] for c in out) >= per_domain:
            continue
        copy = json.loads(json.dumps(case))
        next(m for m in copy["transcript"]["messages"] if m == answer)["content"] = '{"tampered": true}'
        out.append({**copy, "name": "tampered"})
    return out


def test_evaluate_agrees_with_the_reference(full_cases, tau2_root):
    cases, results, factories = full_cases
    assert len(cases) >= 300
    for case, ref in zip(cases, results, strict=True):
        label = (case["domain"], case["task"]["id"], case["name"])
        criteria = read_criteria(case["task"])
        judge = Recorder((criteria.nl_assertions if criteria else None) or [], case["judge_mode"])
        transcript = Transcript.from_dict(case["transcript"])
        graded = evaluate(case["task"], transcript, factories[case["domain"]], judge, root=tau2_root)
        if case["name"] == "tampered":
            assert ref.get("error", "").startswith("ValueError: Tool call:"), (label, ref)
            with pytest.raises(VerifierError, match="cannot be replayed"):
                asyncio.run(graded)
            continue
        assert "error" not in ref, (label, ref)
        ours = asyncio.run(graded)
        assert ours.to_dict() == ref["reward_info"], label
        assert unversioned(judge.sent) == unversioned(ref["sent"]), label


def test_full_grading_reaches_every_outcome(full_cases):
    cases, results, _ = full_cases
    rewards = {(c["name"], r["reward_info"]["reward"]) for c, r in zip(cases, results, strict=True) if "error" not in r}
    assert ("gold", 1.0) in rewards and ("dropped", 0.0) in rewards and ("altered", 0.0) in rewards
    assert sum(c["name"] == "tampered" for c in cases) == 9
    db = [r["reward_info"]["db_check"]["db_match"] for r in results if (r.get("reward_info") or {}).get("db_check")]
    assert True in db and False in db


def test_grading_an_nl_task_without_a_judge_names_it(tau2_root):
    from agentcompass.benchmarks.tau2.domains import load_domain

    task = next(t for t in load_tasks(tau2_root)["retail"] if t["evaluation_criteria"].get("nl_assertions"))
    transcript = eval_cases.build_transcript([], [], fixed_output)
    with pytest.raises(JudgeMissingError, match=repr(task["id"])):
        asyncio.run(evaluate(task, transcript, load_domain(tau2_root, "retail")))


def test_an_unknown_termination_is_a_verifier_error():
    with pytest.raises(VerifierError, match="unknown termination"):
        termination_reason("bored")
