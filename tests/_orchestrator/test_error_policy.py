"""The verify-after-error policy: the table itself, then each error class through real runs (local environment,
a Terminal-Bench task made by the test, the orchestrator's attempt flow), and the oracle without a solution."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agentcompass import run_evaluation
from agentcompass.errors import (
    ERROR_CLASSES,
    HARBOR_ERROR_POLICY,
    NEVER_VERIFY_AFTER_ERROR,
    NOT_VERIFIED,
    PHASES,
    VERIFIED_COUNTED,
    VERIFIED_NOT_COUNTED,
    AfterError,
    EvaluationFailedError,
    after_error,
)
from agentcompass.interfaces import error_policy
from tests._orchestrator import policy_parts
from tests.benchmarks.tb_fixtures import make_task

PARTS = "tests._orchestrator.policy_parts"

# error class -> phase -> what Harbor's defaults do (the README table)
HARBOR_TABLE = {
    "infra": {"setup": NOT_VERIFIED, "agent": NOT_VERIFIED, "verify": NOT_VERIFIED},
    "model": {"setup": NOT_VERIFIED, "agent": VERIFIED_NOT_COUNTED, "verify": NOT_VERIFIED},
    "agent": {"setup": NOT_VERIFIED, "agent": VERIFIED_COUNTED, "verify": NOT_VERIFIED},
    "verifier": {"setup": NOT_VERIFIED, "agent": NOT_VERIFIED, "verify": NOT_VERIFIED},
    "config": {"setup": NOT_VERIFIED, "agent": NOT_VERIFIED, "verify": NOT_VERIFIED},
}
ONE_PER_CLASS = {
    "infra": "SandboxError",
    "model": "ModelError",
    "agent": "AgentError",
    "verifier": "VerifierError",
    "config": "DependencyError",
}


def test_harbor_table_for_every_error_class_and_phase():
    assert set(HARBOR_TABLE) == set(ERROR_CLASSES)
    for cls in ERROR_CLASSES:
        exc = policy_parts.make_error(ONE_PER_CLASS[cls])
        for phase in PHASES:
            assert after_error(HARBOR_ERROR_POLICY, exc, phase) == HARBOR_TABLE[cls][phase], (cls, phase)
            assert after_error(NEVER_VERIFY_AFTER_ERROR, exc, phase) == NOT_VERIFIED


def test_type_names_win_over_classes_and_unknown_errors_are_the_agents():
    ctx = policy_parts.make_error("ContextLengthExceededError")  # a model error, by type: counted
    assert after_error(HARBOR_ERROR_POLICY, ctx, "agent") == VERIFIED_COUNTED
    assert (
        after_error(HARBOR_ERROR_POLICY, policy_parts.make_error("ModelRetryableError"), "agent")
        == VERIFIED_NOT_COUNTED
    )
    assert after_error(HARBOR_ERROR_POLICY, RuntimeError("x"), "agent") == VERIFIED_COUNTED
    assert after_error(HARBOR_ERROR_POLICY, OSError("x"), "agent") == NOT_VERIFIED  # OSError: infra
    assert after_error({("RuntimeError", "setup"): AfterError(True)}, RuntimeError(), "setup").verify


def test_benchmarks_declare_their_policy():
    from agentcompass.benchmarks.terminal_bench.benchmark import TerminalBenchBenchmark

    assert error_policy(TerminalBenchBenchmark) is HARBOR_ERROR_POLICY
    assert error_policy(object()) is NEVER_VERIFY_AFTER_ERROR


# --------------------------------------------------------------------------- through the orchestrator

HALF_TEST = """\
#!/bin/bash
OUT="${AGENTCOMPASS_LOGS_DIR:-/logs}/verifier"
if [ -f "${AGENTCOMPASS_WORKDIR:-/app}/done.txt" ]; then echo 1 > "$OUT/reward.txt"
else echo 0.5 > "$OUT/reward.txt"; fi
"""


def evaluate(tmp: Path, harness: str = "nop", *, overrides=(), solution: bool = True, **kw) -> dict:
    make_task(
        tmp / "tasks",
        "t",
        test_sh=HALF_TEST,
        solve_sh=None if not solution else '#!/bin/bash\ntouch "${AGENTCOMPASS_WORKDIR:-/app}/done.txt"\n',
    )
    try:
        return run_evaluation(
            benchmark="terminal_bench",
            harness=harness,
            model="none",
            environment="local",
            benchmark_params={"dataset_path": str(tmp / "tasks")},
            progress="none",
            results_dir=str(tmp / "results"),
            data_dir=str(tmp / "data"),
            overrides=list(overrides),
            **kw,
        )
    except EvaluationFailedError as exc:  # every task ended in an error: the run failed, its result is attached
        assert exc.result["metadata"]["status"] == "failed"
        return exc.result


def attempt_result(result: dict, n: int = 1) -> dict:
    return json.loads((Path(result["paths"]["tasks"]) / "t" / "sample-1" / f"attempt-{n}" / "result.json").read_text())


@pytest.mark.parametrize(
    "error,cls,verified,counted",
    [
        ("AgentError", "agent", True, True),
        ("RuntimeError", "agent", True, True),  # an untyped crash is the agent's
        ("ContextLengthExceededError", "model", True, True),
        ("ModelError", "model", True, False),
        ("SandboxError", "infra", False, False),
        ("DependencyError", "config", False, False),
        ("VerifierError", "verifier", False, False),
    ],
)
def test_agent_phase_error_of_each_class(tmp_path, error, cls, verified, counted):
    result = evaluate(tmp_path, overrides=[f"harness._target_={PARTS}.RaisingHarness", f"+harness.error={error}"])
    [row] = result["summary"]["tasks"]
    res, m = attempt_result(result), result["metrics"]
    assert row["status"] == "error" and row["error"]["type"] == error and res["error_class"] == cls
    assert m["n_errors"] == 1 and m["errors_by_class"][cls] == 1 and m["n_retries"] == 0
    assert (Path(res["attempt_dir"]) / "error.txt").is_file()
    if verified:  # the verifier ran after the error; the harness had created done.txt, so it wrote 1
        assert res["grade"]["after_error"] is True and res["grade"]["reward"] == 1.0
        assert res["phases"]["verify"] > 0 and not (Path(res["attempt_dir"]) / "checkpoint.json").exists()
    else:
        assert res["grade"] == {} and "verify" not in res["phases"]
    assert row["reward"] == (1.0 if counted else None) and res["reward_valid"] is counted
    assert m["mean_reward"] == (1.0 if counted else 0.0) and m["n_valid_rewards"] == int(counted)
    assert m["pass_rate"] == (1.0 if counted else 0.0)


def test_oracle_without_a_solution_is_an_agent_error_verified_as_written(tmp_path):
    result = evaluate(tmp_path, "oracle", solution=False)
    [row] = result["summary"]["tasks"]
    res = attempt_result(result)
    assert row["status"] == "error" and row["error"]["type"] == "AgentError" and res["error_class"] == "agent"
    assert "oracle:" in row["error"]["message"] and "solve.sh: missing" in row["error"]["message"]
    assert row["reward"] == 0.5 and res["reward_valid"] is True  # what the verifier wrote
    assert result["metrics"]["mean_reward"] == 0.5 and result["metrics"]["n_errors"] == 1


def test_infra_error_before_the_agent_is_retried_and_never_verified(tmp_path):
    policy_parts.FlakySetupBenchmark.calls = 0
    result = evaluate(tmp_path, "oracle", max_retries=2, overrides=[f"benchmark._target_={PARTS}.FlakySetupBenchmark"])
    [row] = result["summary"]["tasks"]
    assert row["attempts"] == 3 and policy_parts.FlakySetupBenchmark.calls == 3
    assert row["status"] == "error" and row["error"]["type"] == "SandboxError" and row["reward"] is None
    for n in (1, 2, 3):
        res = attempt_result(result, n)
        assert res["error_class"] == "infra" and res["grade"] == {} and "verify" not in res["phases"]
    assert result["metrics"]["n_retries"] == 2 and result["metrics"]["errors_by_class"]["infra"] == 1


def test_a_retry_replaces_a_verified_error(tmp_path):
    result = evaluate(
        tmp_path,
        overrides=[f"harness._target_={PARTS}.RaisingHarness", "+harness.error=AgentError", "+harness.solve=false"],
        max_retries=1,
        retry_pattern_list=["raised on purpose"],
    )
    [row] = result["summary"]["tasks"]
    assert row["attempts"] == 2 and row["reward"] == 0.5 and row["status"] == "error"
    assert [attempt_result(result, n)["reward"] for n in (1, 2)] == [0.5, 0.5]
    assert result["metrics"]["n_retries"] == 1 and result["metrics"]["mean_reward"] == 0.5
