"""Our BFCL multi-turn grading against bfcl-eval's own checker, on trajectories made from the ground truth of tasks
of the four categories (right, a call dropped, an argument changed, an extra call, two turns swapped, a call in a
turn that expects none, the agent silent in the last turn, a turn past BFCL's step limit): the same verdict per task
and per turn, the same accuracy per category.

Our side drives each trajectory through :class:`BfclConversation` (the package's API classes executing it) and
grades the transcript; the reference side hands the same trajectory, as BFCL's function-calling inference writes
it, straight to the package: ``convert_to_function_call`` and ``multi_turn_checker`` (and the force-termination rule
of its eval runner), the checker run on each prefix of turns for the per-turn verdicts (it stops at the first
failing turn). Both sides are computed once, in one module-scoped batch."""

from __future__ import annotations

import asyncio
import json
import random
import uuid
from typing import Any

import pytest

from agentcompass.benchmarks.bfcl import _package
from agentcompass.benchmarks.bfcl.benchmark import CATEGORIES, BfclMultiTurnBenchmark, BfclMultiTurnConfig, scores
from agentcompass.benchmarks.bfcl.conversation import BfclConversation
from agentcompass.benchmarks.bfcl.grading import check, model_result
from agentcompass.conversation import Message, ToolUse

from .trajectories import KINDS, STEP_LIMIT, Turns, ground_truth_turns, perturb

pytestmark = pytest.mark.slow
TASKS_PER_CATEGORY = 25
SEED = 37


async def drive(entry: dict[str, Any], turns: Turns) -> Any:
    """Our conversation through the trajectory (stopped early when it has fewer turns than the task)."""
    conversation = BfclConversation(entry)
    await conversation.start()
    for t, steps in enumerate(turns):
        for s, calls in enumerate(steps):
            if calls:
                uses = [ToolUse(id=f"c{t}-{s}-{i}", name=n, arguments=a) for i, (n, a) in enumerate(calls)]
                await conversation.send(Message(role="assistant", tool_calls=uses))
            else:
                await conversation.send(Message(role="assistant", content="Done."))
    if not conversation.done:
        conversation.stop("harness_limit")
    return conversation.transcript


def reference(entry: dict[str, Any], ground_truth: list[list[str]], turns: Turns) -> tuple[bool, list[Any]]:
    """The package's verdict and per-turn verdicts on the trajectory as BFCL's inference would record it."""
    result = [[[{n: json.dumps(a)} for n, a in calls] if calls else "Done." for calls in steps] for steps in turns]
    n = len(ground_truth)
    if len(result) != n:  # eval_runner: a force-terminated result fails unchecked
        return False, [None] * n
    utils, checker = _package.multi_turn_utils(), _package.multi_turn_checker()
    decoded = []
    for steps in result:
        kept = []
        for response in steps:
            try:
                calls = _package.handler_utils().convert_to_function_call(response)
            except Exception:  # eval_runner skips what does not decode
                continue
            if not utils.is_empty_execute_response(calls):
                kept.append(calls)
        decoded.append(kept)
    category = entry["id"].rsplit("_", 1)[0]

    def valid(k: int) -> bool:
        name = f"reference_{uuid.uuid4().hex}"
        out = checker.multi_turn_checker(decoded[:k], ground_truth[:k], entry, category, name)
        _package.forget_instances(name)
        return bool(out["valid"])

    per: list[Any] = [None] * n
    for k in range(1, n + 1):
        per[k - 1] = valid(k)
        if not per[k - 1]:
            break
    return bool(per[-1]), per


@pytest.fixture(scope="module")
def batch() -> list[dict[str, Any]]:
    rng = random.Random(SEED)
    tasks = BfclMultiTurnBenchmark(BfclMultiTurnConfig()).load()
    cases = []
    for category in CATEGORIES:
        chosen = rng.sample([t for t in tasks if t.metadata["category"] == category], TASKS_PER_CATEGORY)
        for task in chosen:
            entry, truth = task.data["entry"], task.data["ground_truth"]
            right = ground_truth_turns(entry, truth)
            for kind in KINDS:
                turns = perturb(kind, right, rng)
                if turns is None:
                    continue
                ours = check(entry, truth, model_result(asyncio.run(drive(entry, turns))))
                ref_valid, ref_turns = reference(entry, truth, turns)
                cases.append(
                    {"task": task.id, "kind": kind, "ours": ours, "ref_valid": ref_valid, "ref_turns": ref_turns}
                )
    return cases


def test_the_step_limit_is_the_package_s():
    assert _package.constants().MAXIMUM_STEP_LIMIT == STEP_LIMIT


def test_enough_trajectories_of_every_kind(batch):
    assert len(batch) >= 300, len(batch)
    kinds = {c["kind"] for c in batch}
    assert kinds == set(KINDS), kinds
    assert {c["ref_valid"] for c in batch} == {True, False}  # both verdicts occur


def test_the_same_verdict_per_task_and_per_turn(batch):
    wrong = [
        (c["task"], c["kind"], c["ours"].valid, c["ref_valid"], c["ours"].turns, c["ref_turns"])
        for c in batch
        if c["ours"].valid != c["ref_valid"] or c["ours"].turns != c["ref_turns"]
    ]
    assert not wrong, wrong[:5]


def test_the_ground_truth_passes_and_the_same_accuracy_per_category(batch):
    assert all(c["ref_valid"] for c in batch if c["kind"] == "ground_truth")
    ours = scores([{"task_id": c["task"], "resolved": c["ours"].valid} for c in batch])
    for category in CATEGORIES:
        mine = [c for c in batch if c["task"].startswith(f"multi_turn_{category}_")]
        expected = sum(c["ref_valid"] for c in mine) / len(mine)
        assert ours["categories"][category]["accuracy"] == expected
        assert ours["categories"][category]["total_count"] == len(mine)
    assert ours["overall"] == sum(ours["categories"][c]["accuracy"] for c in CATEGORIES) / 4
