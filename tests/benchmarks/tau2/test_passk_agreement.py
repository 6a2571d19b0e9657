"""pass^k and the average reward agree with the reference's ``compute_metrics`` (tau2 1.0.1) on random success
matrices over the real airline tasks (one reference call for every matrix)."""

from __future__ import annotations

import json
import random

import pytest

from agentcompass.benchmarks.tau2.passk import average_reward, pass_hat_k, pass_hat_ks
from agentcompass.errors import VerifierError

pytestmark = pytest.mark.slow

SCRIPT = r"""
import json, sys
from tau2.data_model.simulation import AgentInfo, Info, Results, RewardInfo, SimulationRun, UserInfo
from tau2.data_model.tasks import Task
from tau2.environment.environment import EnvironmentInfo
from tau2.metrics.agent_metrics import compute_metrics

payload = json.load(sys.stdin)
tasks = [Task.model_validate(t) for t in payload["tasks"]]
out = []
for m in payload["matrices"]:
    info = Info(git_commit="x", num_trials=m["num_trials"], max_steps=1, max_errors=1,
                user_info=UserInfo(implementation="u"), agent_info=AgentInfo(implementation="a"),
                environment_info=EnvironmentInfo(domain_name="airline", policy=""))
    sims = [SimulationRun(id=f"{tid}-{i}", task_id=tid, start_time="", end_time="", duration=0.0,
                          termination_reason="user_stop", reward_info=RewardInfo(reward=r), trial=i, messages=[])
            for tid, rewards in m["rewards"].items() for i, r in enumerate(rewards)]
    metrics = compute_metrics(Results(info=info, tasks=tasks, simulations=sims))
    out.append({"pass": {str(k): v for k, v in metrics.pass_hat_ks.items()}, "avg": metrics.avg_reward})
print(json.dumps(out))
"""

VALUES = (0.0, 1.0, 1.0, 0.9999995, 1.0000004, 0.5, 0.999, 0.0)


def matrices(task_ids: list[str], n: int = 60, seed: int = 3) -> list[dict]:
    rng = random.Random(seed)
    out = []
    for _ in range(n):
        trials = rng.randint(1, 8)
        tids = rng.sample(task_ids, rng.randint(1, len(task_ids)))
        short = rng.random() < 0.25
        rewards = {t: [rng.choice(VALUES) for _ in range(trials - (short and rng.random() < 0.3))] for t in tids}
        rewards = {t: r for t, r in rewards.items() if r} or {tids[0]: [1.0]}
        out.append({"num_trials": trials, "rewards": rewards})
    return out


@pytest.fixture(scope="module")
def agreement(tau2_root, tau2_reference):
    tasks = json.loads((tau2_root / "data" / "tau2" / "domains" / "airline" / "tasks.json").read_text())
    mats = matrices([t["id"] for t in tasks])
    return mats, tau2_reference(SCRIPT, {"tasks": tasks, "matrices": mats})


def test_pass_hat_k_agrees_with_the_reference(agreement):
    mats, results = agreement
    for m, ref in zip(mats, results, strict=True):
        ours = pass_hat_ks(m["rewards"], m["num_trials"])
        assert sorted(ours) == sorted(int(k) for k in ref["pass"])
        for k, value in ours.items():
            assert value == pytest.approx(ref["pass"][str(k)], rel=1e-12, abs=1e-15)
        assert average_reward(m["rewards"]) == ref["avg"]


def test_short_tasks_lower_the_largest_k(agreement):
    mats, results = agreement
    lowered = [m for m in mats if min(len(r) for r in m["rewards"].values()) < m["num_trials"]]
    assert lowered
    for m in lowered:
        assert max(pass_hat_ks(m["rewards"], m["num_trials"])) == min(len(r) for r in m["rewards"].values())


def test_pass_hat_k_needs_k_trials():
    with pytest.raises(VerifierError):
        pass_hat_k(2, 1, 3)
