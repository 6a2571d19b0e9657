"""The benchmark contract (:class:`agentcompass.interfaces.Benchmark`), as tests an implementation inherits.

Subclass :class:`BenchmarkSuite`, set ``BENCHMARK`` (its id in ``conf/benchmark/``) and ``SUBSET`` (task ids that
the reference solution passes), and define the class-scoped fixture ``request_kwargs`` as a classmethod
(``@pytest.fixture(scope="class")`` over ``@classmethod``; pytest 9.1 deprecates class-scoped fixtures that are
instance methods), which may take other fixtures (``tmp_path_factory``...): the other
:func:`agentcompass.run_evaluation` keywords of where and how it runs (``benchmark_params``, ``environment``,
``environment_params``, ``execution_params``, ``data_dir``...). The benchmark is built exactly as a request
builds it; the ``oracle`` and ``nop`` harnesses run through :func:`agentcompass.run_evaluation` itself.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar, TypedDict

import pytest

from agentcompass.errors import ConfigError
from agentcompass.interfaces import EnvSpec, Solution, Task

from ._common import check_capabilities

if TYPE_CHECKING:
    from agentcompass import RunResult


class RequestKwargs(TypedDict, total=False):
    """The ``run_evaluation`` keywords a benchmark's suite sets (its class-scoped fixture ``request_kwargs``)."""

    environment: str
    environment_params: dict[str, object]
    benchmark_params: dict[str, object]


class BenchmarkSuite:
    BENCHMARK: ClassVar[str] = ""  # the id in conf/benchmark/
    SUBSET: ClassVar[list[str]] = []  # task ids the oracle passes (and doing nothing fails)
    RESOLVED: ClassVar[bool] = True  # grades say ``resolved`` (False: the benchmark has no such notion)

    @pytest.fixture(scope="class")
    @classmethod
    def request_kwargs(cls) -> RequestKwargs:
        raise NotImplementedError("a conformance subclass defines the class-scoped fixture request_kwargs")

    def build(self, kwargs: RequestKwargs, tmp_dir: Path, harness: str = "oracle", **params: Any) -> tuple[Any, Any]:
        """(benchmark, the result of its ``load()`` or the exception it raised), built as a request builds it."""
        from agentcompass._orchestrator.scheduling import Pool, Progress, RequestRun
        from agentcompass._sdk.evaluate import compose_from_kwargs
        from agentcompass._sdk.hooks import default_hooks

        kw = {
            **kwargs,
            "benchmark": self.BENCHMARK,
            "harness": harness,
            "model": "none",
            "results_dir": str(tmp_dir / "results"),
            "benchmark_params": {**kwargs.get("benchmark_params", {}), **params},
        }
        run = RequestRun(compose_from_kwargs(kw), "conformance", Pool(1), Progress("none", 0), default_hooks())
        try:
            loaded: Any = run.build()
        except ConfigError as exc:
            loaded = exc
        return (run.components.benchmark if run.components else None), loaded

    def tasks(self, kwargs: RequestKwargs, tmp_dir: Path, **params: Any) -> list[Task]:
        _, loaded = self.build(kwargs, tmp_dir, **params)
        if isinstance(loaded, Exception):
            raise loaded
        return loaded

    def evaluate(self, kwargs: RequestKwargs, tmp_dir: Path, harness: str) -> tuple[RunResult, list[dict[str, Any]]]:
        """``run_evaluation`` of ``harness`` on SUBSET: (its result, the rows of its results.jsonl)."""
        from agentcompass import run_evaluation

        params = {**kwargs.get("benchmark_params", {}), "sample_ids": list(self.SUBSET)}
        keywords: dict[str, Any] = {**kwargs, "benchmark_params": params}  # run_evaluation's, checked there
        result = run_evaluation(
            **keywords,
            benchmark=self.BENCHMARK,
            harness=harness,
            model="none",
            results_dir=str(tmp_dir / "results"),
            progress="none",
            log_level="WARNING",
        )
        lines = Path(result["paths"]["results"]).read_text(encoding="utf-8").splitlines()
        rows = [json.loads(line) for line in lines if line.strip()]
        assert sorted(r["task_id"] for r in rows) == sorted(self.SUBSET)
        return result, rows

    # ------------------------------------------------------------------ loading
    def test_load_gives_tasks_with_unique_ids(self, request_kwargs: RequestKwargs, tmp_path: Path) -> None:
        tasks = self.tasks(request_kwargs, tmp_path)
        assert tasks and all(isinstance(t, Task) for t in tasks)
        ids = [t.id for t in tasks]
        assert len(set(ids)) == len(ids), ids
        assert all(isinstance(t.instruction, str) and t.instruction.strip() for t in tasks)
        assert set(self.SUBSET) <= set(ids), f"SUBSET names tasks the benchmark does not have: {self.SUBSET}"

    def test_sample_ids_select_exactly_those_and_limit_cuts(
        self, request_kwargs: RequestKwargs, tmp_path: Path
    ) -> None:
        chosen = list(self.SUBSET[:2])
        assert sorted(t.id for t in self.tasks(request_kwargs, tmp_path, sample_ids=chosen)) == sorted(chosen)
        assert len(self.tasks(request_kwargs, tmp_path, limit=1)) == 1
        cut = self.tasks(request_kwargs, tmp_path, sample_ids=chosen, limit=1)
        assert len(cut) == 1 and cut[0].id in chosen

    def test_an_unknown_sample_id_is_a_config_error_naming_it(
        self, request_kwargs: RequestKwargs, tmp_path: Path
    ) -> None:
        _, loaded = self.build(request_kwargs, tmp_path, sample_ids=[self.SUBSET[0], "ac-no-such-task-1"])
        assert isinstance(loaded, ConfigError), f"load() with an unknown sample id gave {loaded!r}"
        assert "ac-no-such-task-1" in str(loaded)

    def test_env_spec_and_reference_solution_of_each_task(self, request_kwargs: RequestKwargs, tmp_path: Path) -> None:
        benchmark, tasks = self.build(request_kwargs, tmp_path, sample_ids=list(self.SUBSET))
        check_capabilities(benchmark, "benchmark")
        for task in tasks:
            spec = benchmark.env_spec(task)
            assert isinstance(spec, EnvSpec) and spec.task_id == task.id
            assert isinstance(benchmark.reference_solution(task), Solution)

    # ------------------------------------------------------------------ scores
    def test_the_oracle_scores_one(self, request_kwargs: RequestKwargs, tmp_path: Path) -> None:
        result, rows = self.evaluate(request_kwargs, tmp_path, "oracle")
        for row in rows:
            assert (row["status"], row["reward"], row["reward_valid"]) == ("completed", 1.0, True), row
            assert row["resolved"] is (True if self.RESOLVED else None), row
            assert all(v == 1.0 for v in (row["rewards"] or {}).values()), row  # every named check passes
        assert result["metrics"]["n_errors"] == 0 and result["metrics"]["mean_reward"] == 1.0

    def test_doing_nothing_scores_zero(self, request_kwargs: RequestKwargs, tmp_path: Path) -> None:
        result, rows = self.evaluate(request_kwargs, tmp_path, "nop")
        for row in rows:  # a valid reward of 0, not a verifier error
            assert (row["status"], row["reward"], row["reward_valid"]) == ("completed", 0.0, True), row
            assert row["resolved"] is (False if self.RESOLVED else None), row
        assert result["metrics"]["n_errors"] == 0 and result["metrics"]["mean_reward"] == 0.0
