"""``agentcompass run tau2 oracle none`` (the gold actions, then the values to communicate, then a stop) and ``nop``
(the agent stops at once) on every airline and retail task and every telecom small task: each attempt's transcript,
graded by the reference evaluator (tau2 1.0.1, one call for the batch), gets the reward and the reward info our
grading recorded. The tasks whose basis has NL assertions are graded with a ``judge`` model role on the scripted
model server (its verdicts a function of the assertions' texts, the same in the reference script)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from agentcompass import run_evaluation
from agentcompass.benchmarks.tau2.evaluate import termination_reason
from agentcompass.errors import EvaluationFailedError
from agentcompass.testing.scripted_server import ScriptedModelServer
from tests.benchmarks.tau2 import eval_cases, reference_eval

pytestmark = pytest.mark.slow
RUNS = [("airline", "all"), ("retail", "all"), ("telecom", "small")]


def _tasks(root: Path, domain: str) -> list[dict[str, Any]]:
    name = "tasks_small.json" if domain == "telecom" else "tasks.json"
    return json.loads((root / "data" / "tau2" / "domains" / domain / name).read_text())


def _judge(tasks: list[dict[str, Any]]):
    asserted = [(t["evaluation_criteria"] or {}).get("nl_assertions") or [] for t in tasks]
    asserted = [a for a in asserted if a]

    def answer(request: dict[str, Any]) -> dict[str, Any]:
        text = json.dumps(request["body"]["messages"], ensure_ascii=False)
        found = [a for a in asserted if all(json.dumps(x, ensure_ascii=False)[1:-1] in text for x in a)]
        assert found, "a judge request for no known task"
        return {"text": eval_cases.judge_reply(max(found, key=len), "bits")}

    return answer


def _run(root: Path, tmp: Path, domain: str, split: str, harness: str, server: ScriptedModelServer) -> Path:
    judge = {"id": "judge", "base_url": server.base_url, "api_key": "k-judge", "api_protocol": "openai-chat"}
    try:
        result = run_evaluation(
            benchmark="tau2",
            harness=harness,
            model="none",
            environment="memory",
            benchmark_params={"dataset_path": str(root), "domain": domain, "task_split": split},
            model_roles={"judge": judge},
            task_concurrency=8,
            results_dir=tmp / "results",
            run_name=f"{domain}-{harness}",
            progress="none",
            log_level="ERROR",
        )
    except EvaluationFailedError as exc:  # a task error shows in the comparison below, with its message
        result = exc.result
    return Path(result["paths"]["run_dir"])


def _attempts(run_dir: Path) -> dict[str, dict[str, Any]]:
    out = {}
    for path in run_dir.glob("tasks/*/sample-*/attempt-*/result.json"):
        result = json.loads(path.read_text())
        out[result["task_id"]] = result
    return out


@pytest.fixture(scope="module")
def graded(tau2_root, tau2_reference, tmp_path_factory):
    tmp = tmp_path_factory.mktemp("tau2-oracle-nop")
    cases, ours = [], []
    everything = [t for domain, _ in RUNS for t in _tasks(tau2_root, domain)]
    with ScriptedModelServer(_judge(everything)) as server:
        for domain, split in RUNS:
            tasks = {str(t["id"]): t for t in _tasks(tau2_root, domain)}
            for harness in ("oracle", "nop"):
                for task_id, result in sorted(_attempts(_run(tau2_root, tmp, domain, split, harness, server)).items()):
                    transcript = result["agent"]["transcript"]
                    cases.append(
                        {
                            "domain": domain,
                            "task": tasks[task_id],
                            "transcript": transcript,
                            "termination_reason": termination_reason(transcript["termination"]),
                            "judge_mode": "bits",
                        }
                    )
                    ours.append((domain, harness, task_id, result))
    theirs = tau2_reference(reference_eval.script(), {"cases": cases, "components": False})
    return ours, theirs


def test_every_task_is_graded_as_the_reference_grades_the_same_transcript(graded):
    ours, theirs = graded
    assert len(ours) == 2 * (50 + 114 + 20)
    mismatches = []
    for (domain, harness, task_id, result), ref in zip(ours, theirs, strict=True):
        mine = ((result.get("grade") or {}).get("details") or {}).get("reward_info")
        if result.get("error") or "error" in ref or mine != ref["reward_info"]:
            mismatches.append((domain, harness, task_id, result.get("error"), ref.get("error"), mine, ref))
    assert not mismatches, f"{len(mismatches)} differ, first: {mismatches[0]}"


def test_the_oracle_passes_and_nop_fails_where_the_reference_says_so(graded):
    """The gold passes every task but where the scripted judge rejects an NL assertion; doing nothing fails most."""
    ours, theirs = graded
    for (domain, harness, task_id, _), ref in zip(ours, theirs, strict=True):
        info = ref["reward_info"]
        failed = {k for k, v in (info.get("reward_breakdown") or {}).items() if v < 1}
        if harness == "oracle":
            assert info["reward"] == 1.0 or failed == {"NL_ASSERTION"}, (domain, task_id, info)
    nop = [ref["reward_info"]["reward"] for (_, h, _, _), ref in zip(ours, theirs, strict=True) if h == "nop"]
    assert sum(r == 1.0 for r in nop) < len(nop) / 2
