"""A Ray worker process's state (``agentcompass._ray.state``), without Ray: the request's shared parts fetched and
its components built once per process whatever the number of attempts, per-request services made once and
closed with the request, and a request closed once idle (never while an attempt of it runs)."""

from __future__ import annotations

import asyncio
from typing import Any

from agentcompass._ray.state import WorkerState
from agentcompass._sdk import compose_from_kwargs


def _shared(run_id: str) -> dict[str, Any]:
    resolved = compose_from_kwargs(
        {"benchmark": "synthetic", "harness": "nop", "model": "none", "environment": "memory"}
        | {"benchmark_params": {"n_tasks": 3}}
    )
    return {
        "config": resolved.config.model_dump(mode="json"),
        "run_id": run_id,
        "run_name": "state",
        "name": "req",
        "recipes": None,
        "model_gate": None,
        "rated": [],
        "services": None,
    }


class Recorder:
    """A per-request service: counts how often it was made and closed."""

    made = 0

    def __init__(self) -> None:
        Recorder.made += 1
        self.closed = 0

    async def aclose(self) -> None:
        self.closed += 1


def test_one_fetch_and_build_per_request_and_services_closed_with_it():
    fetched: list[str] = []

    def fetch(ref: dict[str, Any]) -> dict[str, Any]:
        fetched.append(ref["run_id"])
        return ref

    async def go() -> None:
        state = WorkerState(fetch=fetch, idle_close_s=3600)
        one, two = _shared("r1"), _shared("r2")

        async def attempt(token: str, ref: dict[str, Any]) -> Any:
            async with state.attempt([token, ref]) as req:
                service = await req.service("recorder", Recorder)
                assert sorted(req.parts.tasks) == ["syn-0", "syn-1", "syn-2"]
                return req, service

        runs = await asyncio.gather(*(attempt("t1", one) for _ in range(5)), attempt("t2", two))
        assert fetched.count("r1") == 1 and fetched.count("r2") == 1  # once per request, not per attempt
        first = {id(req) for req, _ in runs[:5]}
        assert len(first) == 1 and Recorder.made == 2  # one state and one service per request
        assert state.requests() == ["t1", "t2"]
        await state.sweep()  # nothing idle long enough
        assert state.requests() == ["t1", "t2"] and runs[0][1].closed == 0
        state.idle_close_s = 0.0
        await state.sweep()
        assert state.requests() == [] and runs[0][1].closed == 1 and runs[-1][1].closed == 1
        await attempt("t1", one)  # used again: built again
        assert fetched.count("r1") == 2

    Recorder.made = 0
    asyncio.run(go())


def test_a_request_with_an_attempt_running_is_not_closed():
    async def go() -> None:
        state = WorkerState(fetch=lambda ref: ref, idle_close_s=0.0, max_requests=1)
        started, release = asyncio.Event(), asyncio.Event()

        async def attempt(token: str, ref: dict[str, Any], hold: bool) -> Any:
            async with state.attempt([token, ref]) as req:
                service = await req.service("recorder", Recorder)
                if hold:
                    started.set()
                    await release.wait()
                return service

        held = asyncio.ensure_future(attempt("busy", _shared("r1"), True))
        await started.wait()
        other = await attempt("idle", _shared("r2"), False)
        await state.sweep()
        assert state.requests() == ["busy"] and other.closed == 1  # the idle one closed, the busy one kept
        release.set()
        busy = await held
        assert busy.closed == 0
        await state.sweep()
        assert state.requests() == [] and busy.closed == 1

    asyncio.run(go())
