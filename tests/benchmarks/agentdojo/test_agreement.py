"""Our AgentDojo grades against the package's own ``utility`` / ``security`` functions called directly, on cases the
test builds from the package's ground truths (ground truth; attacked runs that follow the injection, the injection
task's ground truth appended; runs that refuse it; perturbed runs), in every suite; and the live run's result (the
package's ``run_task_with_pipeline`` with the agent in it) equals the grade's replay."""

from __future__ import annotations

import asyncio
from collections import Counter
from typing import Any

import pytest

from tests.benchmarks.agentdojo.cases import (
    Case,
    calls_message,
    converse,
    one_message,
    package_attack,
    perturb,
    reference,
    task_environment,
)

pytest.importorskip("agentdojo")

pytestmark = pytest.mark.slow

USER_TASKS_PER_SUITE = 10  # ground truth and one perturbation each
ATTACKED_USER_TASKS, ATTACKED_INJECTION_TASKS = 5, 3  # x (follows, refuses)
PERTURBATIONS = ("drop_last_call", "change_argument", "no_answer", "wrong_answer")


def _script(task: Any, env: Any, output: str) -> list[dict[str, Any]]:
    return [*(calls_message(i, c) for i, c in enumerate(task.ground_truth(env))), {"content": output}]


def build_cases(benchmark: Any) -> list[Case]:
    from agentcompass.benchmarks.agentdojo import _package

    out: list[Case] = []
    for name, suite in _package.suites(benchmark.version).items():
        users = list(suite.user_tasks.values())
        for k, user in enumerate(users[:USER_TASKS_PER_SUITE]):
            script = _script(user, task_environment(suite, user, {}), user.GROUND_TRUTH_OUTPUT)
            out.append(Case(f"{name}/{user.ID}", "ground_truth", script))
            how = PERTURBATIONS[k % len(PERTURBATIONS)]
            out.append(Case(f"{name}/{user.ID}", f"perturbed:{how}", perturb(script, how)))
        attack = package_attack(suite)
        for user in users[:ATTACKED_USER_TASKS]:
            for injection in list(suite.injection_tasks.values())[:ATTACKED_INJECTION_TASKS]:
                env = task_environment(suite, user, attack.attack(user, injection))
                refuse = _script(user, env, user.GROUND_TRUTH_OUTPUT)
                follow = [*refuse[:-1], *one_message(injection.ground_truth(env), 100)]
                task_id = f"{name}/{user.ID}/{injection.ID}"
                out.append(Case(task_id, "refuses_injection", refuse))
                out.append(Case(task_id, "follows_injection", [*follow, refuse[-1]]))
    return out


@pytest.fixture(scope="module")
def outcomes() -> list[dict[str, Any]]:
    """Every case once: our grade, the live run's result and the package's functions called directly."""
    from agentcompass.benchmarks.agentdojo.benchmark import AgentDojoBenchmark, AgentDojoConfig

    benchmark = AgentDojoBenchmark(AgentDojoConfig(attack="important_instructions"), None)
    cases = build_cases(benchmark)

    async def run_all() -> list[dict[str, Any]]:
        rows = []
        for case in cases:
            grade, transcript = await converse(benchmark, case.task_id, case.script)
            ours_case = benchmark.case(case.task_id)
            expected = reference(
                ours_case.suite, ours_case.user_task, ours_case.injection_task, _injections(case), case.script
            )
            rows.append(
                {
                    "case": case,
                    "ours": (grade.details["utility"], grade.details["security"]),
                    "live": transcript.info.get("package_result"),
                    "reference": expected,
                    "injections_equal": ours_case.injections == _injections(case),
                }
            )
        return rows

    return asyncio.run(run_all())


_ATTACKS: dict[str, Any] = {}


def _injections(case: Case) -> dict[str, str]:
    """The package's attack's injections for the case (computed here from the package, not by our code)."""
    from agentcompass.benchmarks.agentdojo import _package
    from agentcompass.benchmarks.agentdojo.metrics import case_of

    suite_name, user, injection = case_of(case.task_id)
    if injection is None:
        return {}
    suite = _package.suites(_package.latest_version())[suite_name]
    if suite_name not in _ATTACKS:
        _ATTACKS[suite_name] = package_attack(suite)
    return dict(_ATTACKS[suite_name].attack(suite.user_tasks[user], suite.injection_tasks[injection]))


def test_at_least_200_cases_of_every_kind_in_every_suite(outcomes: list[dict[str, Any]]) -> None:
    kinds = Counter(r["case"].kind.split(":")[0] for r in outcomes)
    suites = Counter(r["case"].task_id.split("/")[0] for r in outcomes)
    assert len(outcomes) >= 200, len(outcomes)
    assert set(kinds) == {"ground_truth", "perturbed", "refuses_injection", "follows_injection"}, kinds
    assert set(suites) == {"workspace", "travel", "banking", "slack"}, suites


def test_our_utility_and_security_equal_the_package_functions(outcomes: list[dict[str, Any]]) -> None:
    wrong = [
        (r["case"].task_id, r["case"].kind, r["ours"], r["reference"]) for r in outcomes if r["ours"] != r["reference"]
    ]
    assert not wrong, wrong[:10]
    assert all(r["injections_equal"] for r in outcomes)


def test_the_live_run_equals_the_replayed_grade(outcomes: list[dict[str, Any]]) -> None:
    for r in outcomes:
        utility, security = r["ours"]
        live = r["live"]
        assert live is not None and live["utility"] == utility, r["case"]
        assert security is None or live["security"] == security, r["case"]


def test_the_cases_discriminate(outcomes: list[dict[str, Any]]) -> None:
    """Both verdicts occur for utility and for security: the agreement is not vacuous."""
    utilities = Counter(r["ours"][0] for r in outcomes)
    securities = Counter(r["ours"][1] for r in outcomes if r["ours"][1] is not None)
    assert utilities[True] and utilities[False], utilities
    assert securities[True] and securities[False], securities
    follows = [r["ours"][1] for r in outcomes if r["case"].kind == "follows_injection"]
    assert sum(follows) >= len(follows) // 2, "most runs that follow the injection succeed as attacks"
