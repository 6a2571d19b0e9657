"""pass^k as the reference's ``tau2.metrics.agent_metrics`` computes it: a trial succeeds when its reward is 1
(within 1e-6); a task's pass^k is C(successes, k) / C(trials, k); the metric is its mean over the tasks, for k from
1 to the number of trials (at most the fewest trials any task has).

Means are summed as numpy sums (pandas' ``mean``): with the values in the reference's order they are equal to the
last bit. The reference averages pass^k over tasks sorted by their number of gold actions with an unstable sort,
an order not reproduced here, so pass^k may differ from it in the last bits."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

from agentcompass.errors import VerifierError


def numpy_sum(values: Sequence[float]) -> float:
    """The sum numpy's pairwise summation gives (8 accumulators over blocks of at most 128 values)."""
    n = len(values)
    if n < 8:
        total = 0.0
        for x in values:
            total += x
        return total
    if n > 128:
        half = n // 2 - (n // 2) % 8
        return numpy_sum(values[:half]) + numpy_sum(values[half:])
    acc = [float(x) for x in values[:8]]
    i = 8
    while i < n - n % 8:
        for j in range(8):
            acc[j] += values[i + j]
        i += 8
    total = ((acc[0] + acc[1]) + (acc[2] + acc[3])) + ((acc[4] + acc[5]) + (acc[6] + acc[7]))
    for x in values[i:]:
        total += x
    return total


def is_successful(reward: float) -> bool:
    """``agent_metrics.is_successful``."""
    return (1 - 1e-6) <= reward <= (1 + 1e-6)


def pass_hat_k(num_trials: int, success_count: int, k: int) -> float:
    """``agent_metrics.pass_hat_k``: the chance that k trials drawn without replacement all succeed."""
    if num_trials < k:
        raise VerifierError(f"Number of trials {num_trials} is less than k {k}.")
    return math.comb(success_count, k) / math.comb(num_trials, k)


def max_k(rewards: Mapping[str, Sequence[float]], num_trials: int | None = None) -> int:
    """The largest k reported: ``num_trials`` (the run's setting; default the most trials of a task), lowered to
    the fewest trials of a task."""
    counts = [len(r) for r in rewards.values()]
    if not counts:
        return 0
    return min(max(counts) if num_trials is None else num_trials, min(counts))


def pass_hat_ks(rewards: Mapping[str, Sequence[float]], num_trials: int | None = None) -> dict[int, float]:
    """``compute_metrics(...).pass_hat_ks`` from each task's trial rewards (``{task_id: [reward, ...]}``; leave out
    the trials the reference leaves out, those that ended in an infrastructure error)."""
    top = max_k(rewards, num_trials)
    out = {}
    for k in range(1, top + 1):
        values = [pass_hat_k(len(r), sum(is_successful(x) for x in r), k) for r in rewards.values()]
        out[k] = numpy_sum(values) / len(values)
    return out


def average_reward(rewards: Mapping[str, Sequence[float]]) -> float:
    """``compute_metrics(...).avg_reward``: the mean reward over all trials."""
    flat = [x for r in rewards.values() for x in r]
    return numpy_sum(flat) / len(flat) if flat else 0.0
