"""The one driver: request-scoped services start before a request's first attempt and close on every path it
ends by; run_evaluation is an orchestration of one request, raising from its outcome."""

from __future__ import annotations

import asyncio
import dataclasses

import pytest

from agentcompass._launch.run import Orchestration, result_of, run_orchestration
from agentcompass._orchestrator.scheduling.progress import AttemptFinished, AttemptStarted
from agentcompass._sdk.evaluate import compose_from_kwargs
from agentcompass._sdk.hooks import default_hooks
from agentcompass.errors import ConfigError, RunTimeoutError
from agentcompass.interfaces import RunStatus

SLEEP = "agentcompass.testing.sleep_harness.SleepHarness"


class Recorder:
    """A request service writing what happens to it into a shared list."""

    def __init__(self, name: str, events: list[str], fail_start: bool = False) -> None:
        self.name, self.events, self.fail_start = name, events, fail_start

    async def start(self) -> None:
        self.events.append(f"start {self.name}")
        if self.fail_start:
            raise ConfigError(f"service {self.name} cannot start")

    async def aclose(self) -> None:
        self.events.append(f"close {self.name}")


def _request(results_dir, sleep_s: float = 0.0, n: int = 3, **kw):
    return compose_from_kwargs(
        dict(
            benchmark="synthetic",
            harness="nop",
            model="none",
            environment="memory",
            overrides=[f"harness._target_={SLEEP}", f"+harness.sleep_s={sleep_s}", f"benchmark.n_tasks={n}"],
            results_dir=str(results_dir),
            progress="none",
            **kw,
        )
    )


def _run(resolved, events, *services: Recorder, name: str = ""):
    seen_by = {}

    def factory(service):
        def make(rt):
            seen_by[service.name] = rt.run_id
            return service

        return make

    def on_progress(event):
        if isinstance(event, (AttemptStarted, AttemptFinished)):
            events.append(event.kind)

    hooks = dataclasses.replace(default_hooks(), services=[factory(s) for s in services])
    done = asyncio.run(run_orchestration(Orchestration.single(resolved, name), hooks=hooks, on_progress=on_progress))
    (outcome,) = done.requests.values()
    return outcome, seen_by


def test_services_start_before_the_first_attempt_and_close_after_the_last(results_dir):
    events: list[str] = []
    outcome, seen_by = _run(_request(results_dir), events, Recorder("a", events), Recorder("b", events))
    assert outcome.status == RunStatus.COMPLETED
    assert events[:2] == ["start a", "start b"] and events[-2:] == ["close b", "close a"]  # reverse order
    assert events.count("attempt_started") == 3 and events.count("attempt_finished") == 3
    assert seen_by["a"] == outcome.result["metadata"]["run_id"]  # made for this request's runtime
    assert result_of(outcome, None)["metrics"]["n_tasks"] == 3


def test_services_close_on_timeout(results_dir):
    events: list[str] = []
    resolved = _request(results_dir, sleep_s=30, n=2, timeout_seconds=1)
    outcome, _ = _run(resolved, events, Recorder("a", events))
    assert outcome.status == RunStatus.TIMEOUT
    assert events[0] == "start a" and events[-1] == "close a"
    with pytest.raises(RunTimeoutError) as err:
        result_of(outcome, 1)
    assert err.value.result["metadata"]["status"] == RunStatus.TIMEOUT


def test_services_close_when_the_request_is_cancelled(results_dir):
    events: list[str] = []
    hooks = dataclasses.replace(default_hooks(), services=[lambda rt: Recorder("a", events)])
    resolved = _request(results_dir, sleep_s=30, n=2)

    async def main():
        task = asyncio.ensure_future(run_orchestration(Orchestration.single(resolved), hooks=hooks))
        while "start a" not in events:
            await asyncio.sleep(0.01)
        await asyncio.sleep(0.2)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task

    asyncio.run(main())
    assert events == ["start a", "close a"]
    run_json = next(results_dir.glob("*/*/run.json")).read_text()
    assert '"cancelled"' in run_json


def test_a_service_that_fails_to_start_fails_the_request_and_the_started_ones_close(results_dir):
    events: list[str] = []
    outcome, _ = _run(_request(results_dir), events, Recorder("a", events), Recorder("b", events, fail_start=True))
    assert outcome.status == RunStatus.FAILED
    assert "service b cannot start" in outcome.error
    assert "attempt_started" not in events  # no attempt ran
    assert events == ["start a", "start b", "close b", "close a"]
    with pytest.raises(ConfigError, match="service b cannot start"):
        result_of(outcome, None)
