"""AgentDojo's figures from a run's rows: the shares as its benchmark script computes them, and their 95 % intervals
against statsmodels' Wilson interval (one sample per case) and the task-clustered interval (several samples)."""

from __future__ import annotations

import random
from typing import Any

import pytest

from agentcompass.benchmarks.agentdojo.metrics import figures

proportion = pytest.importorskip("statsmodels.stats.proportion")


def _rows(seed: int, samples: int = 1) -> list[dict[str, Any]]:
    rng = random.Random(seed)
    rows: list[dict[str, Any]] = []
    for suite, users, injections in (("banking", 16, 9), ("slack", 21, 5)):
        for u in range(users):
            for inj in [None, *range(injections)]:
                task_id = f"{suite}/user_task_{u}" + (f"/injection_task_{inj}" if inj is not None else "")
                for _ in range(samples):
                    status = "completed" if rng.random() > 0.05 else "error"
                    utility, success = float(rng.random() < 0.6), float(rng.random() < 0.3)
                    rewards = {"utility": utility} | ({"targeted_attack_success": success} if inj is not None else {})
                    reward = utility if status == "completed" else None
                    rows.append({"task_id": task_id, "status": status, "reward": reward, "rewards": rewards})
    return rows


def _expected(rows: list[dict[str, Any]], suite: str | None, figure: str) -> list[float]:
    out = []
    for r in rows:
        parts = r["task_id"].split("/")
        if suite is not None and parts[0] != suite or (len(parts) == 2) != (figure == "utility"):
            continue
        ok = r["status"] == "completed"
        key = "targeted_attack_success" if figure == "targeted_asr" else "utility"
        out.append(r["rewards"][key] if ok else 0.0)
    return out


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_shares_and_wilson_intervals_with_one_sample_per_case(seed: int) -> None:
    rows = _rows(seed)
    report = figures(rows)
    assert sorted(report) == ["banking", "overall", "slack"]
    for suite in ("banking", "slack", None):
        for figure in ("utility", "utility_under_attack", "targeted_asr"):
            values = _expected(rows, suite, figure)
            got = report[suite or "overall"][figure]
            assert got["value"] == pytest.approx(sum(values) / len(values)) and got["n"] == len(values)
            low, high = proportion.proportion_confint(int(sum(values)), len(values), alpha=0.05, method="wilson")
            assert got["ci"]["method"] == "wilson"
            assert got["ci"]["low"] == pytest.approx(low, abs=1e-6)
            assert got["ci"]["high"] == pytest.approx(high, abs=1e-6)


def test_several_samples_per_case_give_a_task_clustered_interval() -> None:
    rows = _rows(3, samples=3)
    got = figures(rows)["overall"]["utility_under_attack"]
    per_case: dict[str, list[float]] = {}
    for r in rows:
        if r["task_id"].count("/") == 2:
            per_case.setdefault(r["task_id"], []).append(r["rewards"]["utility"] if r["status"] == "completed" else 0.0)
    assert got["n"] == len(per_case) == 16 * 9 + 21 * 5
    means = [sum(v) / len(v) for v in per_case.values()]
    sm = pytest.importorskip("statsmodels.stats.weightstats")
    low, high = sm.DescrStatsW(means).tconfint_mean(alpha=0.05)
    assert got["ci"]["method"] == "cluster_t"
    assert (got["ci"]["low"], got["ci"]["high"]) == (pytest.approx(low, abs=1e-6), pytest.approx(high, abs=1e-6))
