"""pass^1..4 of a k = 4 τ²-bench run (summary.json's ``pass_hat_k``) equal the reference's formula
(:func:`agentcompass.benchmarks.tau2.passk.pass_hat_ks`, itself checked against the reference's ``compute_metrics``
in test_passk_agreement.py) over the run's own rewards. The harness alternates by sample between the gold solution
and stopping at once, so tasks have 2 or 4 passing samples of 4."""

from __future__ import annotations

import json
from collections import defaultdict
from pathlib import Path
from typing import ClassVar

import pytest

from agentcompass import run_evaluation
from agentcompass.benchmarks.tau2.passk import pass_hat_ks
from agentcompass.harnesses.oracle import OracleHarness

pytestmark = pytest.mark.slow


class HalfOracle(OracleHarness):
    """The oracle on odd samples, ``nop`` on even ones."""

    converses: ClassVar[bool] = True

    async def run(self, task, env, model, ctx):
        if ctx.sample % 2:
            return await super().run(task, env, model, ctx)
        from agentcompass.harnesses.nop import NopConfig, NopHarness

        return await NopHarness(NopConfig(), None).run(task, env, model, ctx)  # type: ignore[arg-type]


def test_pass_hat_k_of_a_k4_run_is_the_references(tmp_path, tau2_root):
    result = run_evaluation(
        benchmark="tau2_airline",
        harness="oracle",
        model="none",
        environment="memory",
        harness_params={"_target_": "tests.benchmarks.tau2.test_passk_run.HalfOracle"},
        benchmark_params={"dataset_path": str(tau2_root), "sample_ids": ["0", "1", "3", "7", "8", "11"]},
        execution_params={"n_attempts": 4},
        task_concurrency=8,
        results_dir=tmp_path / "results",
        progress="none",
    )
    rewards: dict[str, list[float]] = defaultdict(list)
    for line in Path(result["paths"]["results"]).read_text().splitlines():
        row = json.loads(line)
        rewards[row["task_id"]].append(row["reward"])
    assert sorted(len(r) for r in rewards.values()) == [4] * 6
    assert {sum(r) for r in rewards.values()} == {2.0, 4.0}  # both kinds of task, or the test shows nothing
    expected = pass_hat_ks(rewards)
    got = result["metrics"]["pass_hat_k"]
    assert set(got) == {"1", "2", "3", "4"}
    for k, value in expected.items():
        assert got[str(k)] == pytest.approx(value, abs=1e-6), (k, got, expected)
