"""``execution.executor: ray``: the driver's side of attempts that run on a Ray cluster.

Each attempt takes its slot of the pool here, then runs as one streaming Ray task (:mod:`.worker`) reserving
``ray.num_cpus_per_attempt`` CPUs and ``ray.resources`` on whichever node Ray places it. What every attempt of a
request shares (the resolved config, recipes, which limits are cluster-wide) is put in Ray's object store once
per request and fetched once per worker process (:mod:`.state`); the task's argument is the attempt's own few
fields. The services actor (:mod:`.services`) exists only when a request has cluster-wide limits
(``env_open_qps``, a model provider's ``provider_limits``): otherwise an attempt is one task and its stream. The
driver writes every file the worker streams back into the run directory, then the attempt's ``result.json``
(``node`` says where it ran; phase ``dispatch`` is the time the attempt spent outside its own run: scheduling,
transfers). A node or worker process that dies mid-attempt makes the attempt an ``infra`` error
(:class:`~agentcompass.errors.NodeLostError`, retryable), retried under the request's retry rules on a node
that is alive; a cancel (``timeout_seconds``, Ctrl-C) cancels the remote task and waits, within the close
timeout, for the end of its stream, which comes once the worker has closed its environments (a task cancelled
before it started never starts).
"""

from __future__ import annotations

import asyncio
import collections
import itertools
import logging
import os
import time
import uuid
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from agentcompass._config import RequestConfig
from agentcompass._deps import auto_install_scope, require
from agentcompass._orchestrator.record import (
    AttemptOutcome,
    AttemptRecord,
    JsonObject,
    agent_to_dict,
    new_outcome,
    work_s,
    write_atomic,
)
from agentcompass._orchestrator.scheduling import AttemptFrame as Frame
from agentcompass._orchestrator.scheduling import (
    AttemptStarted,
    AttemptTimeouts,
    FailureRecord,
    PhaseChanged,
    Pool,
    RequestRuntime,
    attempt_timeouts,
    classify_failure,
    stopping_error,
)
from agentcompass.errors import ConfigError, NodeLostError, PathEscapeError, SandboxError
from agentcompass.interfaces import AgentResult, Task

from .services import ClusterServices, actor_options
from .worker import attempt_stream

CANCEL_MARGIN_S = 5.0


class RayExecutor:
    kind = "ray"

    def __init__(
        self, configs: list[RequestConfig], pool: Pool, logger: logging.Logger, worker_services: tuple[Any, ...] = ()
    ) -> None:
        """``worker_services``: factories of the services each worker process keeps for the attempts it runs (the
        model gateway), shipped with each request's shared parts (module-level functions: pickled by reference)."""
        self.config, self.pool, self.log = configs[0], pool, logger
        self.worker_services = tuple(worker_services)
        self.ray: Any = None
        self.services: Any = None  # the services actor, made when a request first needs it
        self._owned = False
        self._node = ""
        self._remote: dict[tuple[str, str | None], Any] = {}
        self._shared: dict[str, tuple[list[Any], dict[str, Any]]] = {}
        self._freed: collections.deque[str] = collections.deque(maxlen=4096)  # nodes where attempts ended
        self._affinity: Any = None  # NodeAffinitySchedulingStrategy, once Ray is imported
        self._ids = itertools.count(1)  # attempt keys: unique within this executor (run ids make them unique)

    # ------------------------------------------------------------------ connection
    async def start(self) -> None:
        await asyncio.to_thread(self._connect)

    def _connect(self) -> None:
        runtime, settings = self.config.runtime, self.config.execution.ray
        with auto_install_scope(runtime.auto_install_dependencies):
            self.ray = require("ray", "ray", purpose="execution.executor=ray")
        ray = self.ray
        if not ray.is_initialized():
            address = settings.address or os.environ.get("RAY_ADDRESS") or None
            try:
                ray.init(
                    address=address,
                    logging_level=logging.WARNING,
                    include_dashboard=False if address is None else None,
                    configure_logging=False,
                )
            except Exception as exc:
                raise ConfigError(
                    f"execution.ray.address={address!r}: cannot connect to a Ray cluster: "
                    f"{str(exc).splitlines()[0] if str(exc) else type(exc).__name__}"
                ) from None
            self._owned = True
        self._node = ray.get_runtime_context().get_node_id()
        from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy

        self._affinity = NodeAffinitySchedulingStrategy
        self.log.info("executor ray: connected (%d nodes alive)", sum(1 for n in ray.nodes() if n.get("Alive")))

    async def aclose(self) -> None:
        if self.ray is None:
            return
        ray, self.ray = self.ray, None
        if self.services is not None:
            try:
                ray.kill(self.services)
            except Exception as exc:
                self.log.debug("ray: killing the services actor failed: %s", exc)
        if self._owned:
            await asyncio.to_thread(ray.shutdown)

    def _services(self) -> Any:
        """The services actor (made on first use: Ray queues calls until it has started)."""
        if self.services is None:
            runtime = self.config.runtime
            actor = self.ray.remote(ClusterServices).options(**actor_options(self._node))
            self.services = actor.remote(dict(runtime.env_open_qps), dict(runtime.provider_limits))
        return self.services

    def _request(self, rt: RequestRuntime) -> tuple[list[Any], dict[str, Any]]:
        """``([token, ObjectRef of the request's shared parts], the parts)``, put in the object store once."""
        if rt.name not in self._shared:
            runtime = rt.config.runtime
            provider = rt.model.provider if rt.model is not None else None
            model_gate = provider if provider in runtime.provider_limits else None
            rated = sorted(runtime.env_open_qps)
            shared = {
                "config": rt.config.model_dump(mode="json"),
                "run_id": rt.run_id,
                "run_name": rt.store.run_name,
                "name": rt.name,
                "recipes": rt.recipes,
                "model_gate": model_gate,
                "rated": rated,
                "services": self._services() if model_gate or rated else None,
                "worker_services": self.worker_services,
            }
            token = f"{rt.run_id}/{rt.name}/{uuid.uuid4().hex}"
            self._shared[rt.name] = ([token, self.ray.put(shared)], shared)
        return self._shared[rt.name]

    def _task_fn(self, rt: RequestRuntime, node: str | None = None) -> Any:
        """The streaming Ray task of ``rt``'s request, with its per-attempt resources (and a soft affinity to
        ``node``)."""
        if (rt.name, node) not in self._remote:
            settings = rt.config.execution.ray
            options: dict[str, Any] = {
                "num_returns": "streaming",
                "max_retries": 0,
                "num_cpus": settings.num_cpus_per_attempt,
            }
            if settings.resources:
                options["resources"] = dict(settings.resources)
            if settings.runtime_env:
                options["runtime_env"] = dict(settings.runtime_env)
            if node is not None:
                options["scheduling_strategy"] = self._affinity(node, soft=True)
            self._remote[rt.name, node] = self.ray.remote(attempt_stream).options(**options)
        return self._remote[rt.name, node]

    # ------------------------------------------------------------------ one attempt
    def attempt(self, rt: RequestRuntime, task: Task, n: int, checkpoint: AgentResult | None, sample: int) -> Frame:
        return _RayAttempt(self, rt, task, n, checkpoint, sample)

    async def _attempt(self, a: _RayAttempt) -> list[tuple[str, bytes, bool]]:
        """Submit the admitted attempt ``a``, then make its directory while the task travels; the files of the
        stream's last batch are returned, for the driver to write with ``result.json``."""
        rt, task, n, sample, key, record, out = a.rt, a.task, a.n, a.sample, a.key, a.record, a.out
        payload = self._payload(rt, task, n, sample, a.checkpoint, key, a.timeouts)
        stream = self._submit(rt, payload)
        gated = self._request(rt)[1]["services"] is not None
        files: list[tuple[str, bytes, bool]] = []
        try:
            await asyncio.to_thread(record.mkdir)
            rt.progress.emit(AttemptStarted(rt.name, task.id, n, sample=sample))
            result, files = await self._consume(rt, stream, record, out)
        except asyncio.CancelledError:
            await asyncio.shield(self._cancel(stream, key, payload["grace_s"], gated))
            raise
        except Exception as exc:
            lost = self._lost(exc)
            if lost is not None:
                released = await self.services.forget.remote(key) if gated else 0
                self.log.warning(
                    "%s sample %d attempt %d: %s%s",
                    task.id,
                    sample,
                    n,
                    lost,
                    f" ({released} model tokens handed back)" if released else "",
                )
            carried = getattr(exc, "cause", None)  # a Ray task's error carries the error raised on the worker
            a.failures.add(lost or classify_failure(carried if isinstance(carried, BaseException) else exc))
            return files
        if result is None:
            a.failures.add(SandboxError("the attempt's stream ended without its result"))
            return files
        self._merge(out, result, record)
        if (out.node or {}).get("node_id"):
            self._freed.append(out.node["node_id"])
        stopped = stopping_error(out)
        if stopped is not None:  # e.g. a dead model endpoint on the worker: the request ends
            rt.stopped = stopped
        return files

    def _submit(self, rt: RequestRuntime, payload: dict[str, Any]) -> Any:
        """Start the attempt's Ray task, preferring (soft node affinity) the node where an attempt ended last:
        its resources were just freed there, so Ray grants the task there without asking another node first."""
        node = self._freed.popleft() if self._freed else None
        return self._task_fn(rt, node).remote(payload)

    def _payload(
        self,
        rt: RequestRuntime,
        task: Task,
        n: int,
        sample: int,
        checkpoint: AgentResult | None,
        key: str,
        timeouts: AttemptTimeouts,
    ) -> dict[str, Any]:
        """The task's argument: the attempt's own fields and its request's token and shared parts' reference
        (in a list, so that Ray passes the reference as it is: the worker fetches it once per process)."""
        return {
            "key": key,
            "request": self._request(rt)[0],
            "task_id": task.id,
            "n": n,
            "sample": sample,
            "checkpoint": agent_to_dict(checkpoint) if checkpoint is not None else None,
            "log_level": rt.config.runtime.file_log_level,
            "grace_s": timeouts.close + CANCEL_MARGIN_S,
        }

    async def _consume(
        self, rt: RequestRuntime, stream: Any, record: AttemptRecord, out: AttemptOutcome
    ) -> tuple[dict[str, Any] | None, list[tuple[str, bytes, bool]]]:
        """Handle the stream's batches as they come; ``(the result, the files of the last batch)``. The result is
        the stream's last item: once it is here the attempt's slot is free (its environments are closed, its
        files are here), without waiting for Ray to report the end of the task."""
        files: list[tuple[str, bytes, bool]] = []
        async for ref in stream:
            if files:
                await asyncio.to_thread(_write_files, record.dir, files)
                files = []
            for item in self.ray.get(ref):  # ready: the stream hands out a reference once its object is here
                kind = item[0]
                if kind == "event":
                    rt.progress.emit(
                        PhaseChanged(rt.name, out.task_id, out.attempt, phase=item[1]["phase"], sample=out.sample)
                    )
                elif kind == "log":
                    logging.getLogger(item[2]).log(item[1], "%s", item[3])
                elif kind == "file":
                    files.append(item[1:])
                elif kind == "result":
                    return item[1], files
        return None, files

    async def _cancel(self, stream: Any, key: str, grace_s: float, gated: bool) -> None:
        """Cancel the remote task and wait for the end of its stream: a task that had not started never starts,
        a running one ends once its worker has closed the attempt's environments (Ray reports the task's end
        only then)."""
        try:
            self.ray.cancel(stream)
        except Exception as exc:
            self.log.debug("ray.cancel failed: %s", exc)
        try:
            await asyncio.wait_for(_drain(stream), grace_s + CANCEL_MARGIN_S)
        except TimeoutError:
            self.log.warning("cancelled attempt %s: its environments may not be closed (timeout)", key)
        if gated:
            await self.services.forget.remote(key)

    def _lost(self, exc: BaseException) -> NodeLostError | None:
        """A NodeLostError for the Ray errors that mean the attempt's node or worker process is gone."""
        errors = self.ray.exceptions
        lost = tuple(
            getattr(errors, name)
            for name in (
                "NodeDiedError",
                "WorkerCrashedError",
                "LocalRayletDiedError",
                "ObjectLostError",
                "OwnerDiedError",
                "RaySystemError",
                "OutOfMemoryError",
                "ActorDiedError",
                "ActorUnavailableError",
                "ObjectFetchTimedOutError",
            )
            if hasattr(errors, name)
        )
        if isinstance(exc, lost):
            first = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
            return NodeLostError(
                f"the Ray node or worker running the attempt was lost ({type(exc).__name__}: {first[:300]})"
            )
        return None

    def _merge(self, out: AttemptOutcome, result: dict[str, Any], record: AttemptRecord) -> None:
        remote = _rebase(result["outcome"], result["staging"], str(record.dir))
        for key, value in remote.items():
            if key not in ("attempt_dir", "duration_s", "queue_s") and hasattr(out, key):
                setattr(out, key, value)
        out.phases = {**out.phases, "remote": result["duration_s"]}

    def _finish(
        self,
        record: AttemptRecord,
        out: AttemptOutcome,
        start: float,
        files: Sequence[tuple[str, bytes, bool]] = (),
        writer: Any = None,
        write_result: Callable[[AttemptRecord, JsonObject], None] | None = None,
    ) -> None:
        """Complete the outcome (phase ``dispatch``: the time in the slot that the attempt did not spend running
        on its node), then write the last files and ``result.json``: queued to the run's ``writer`` when given (as
        a local attempt queues its ``result.json``: after its earlier writes, before the run's line of this
        sample; a file outside the attempt directory is refused here first), by ``write_result`` (the frame's,
        which scans the attempt), else at once and unscanned (a cancelled attempt)."""
        remote = out.phases.pop("remote", None)
        now = time.monotonic()
        if remote is not None:
            out.phases["dispatch"] = round(max(0.0, now - start - remote), 4)
        out.duration_s = round(now - start, 4)
        write = write_result or AttemptRecord.write_result  # without it: unscanned
        if writer is None:
            _write_files(record.dir, files)
            write(record, out.record())
            return
        for rel, _data, _append in files:
            _target(record.dir, rel)
        writer.later(_write_last, record, files, out.record(), write)
        writer.attempt_took(work_s(out.phases))

    # ------------------------------------------------------------------ every node
    async def cleanup(self, rt: RequestRuntime) -> int:
        from .nodes import on_every_node

        counts = await on_every_node(self.ray, "cleanup", rt.config.model_dump(mode="json"), rt.run_id)
        return sum(int(c) for c in counts.values())


class _RayAttempt(Frame):
    """An attempt run as a Ray task from its slot of the driver's pool (the shared frame:
    :class:`~agentcompass._orchestrator.AttemptFrame`); its spending counts for the budgets once it ends (the
    driver cannot see a worker's calls live)."""

    def __init__(
        self, ex: RayExecutor, rt: RequestRuntime, task: Task, n: int, checkpoint: AgentResult | None, sample: int
    ) -> None:
        self.ex, self.task, self.n, self.checkpoint, self.sample = ex, task, n, checkpoint, sample
        self.timeouts = attempt_timeouts(task, rt.config)[1]  # the worker resolves the same from the same parts
        self.record = rt.store.attempt(task.id, n, sample)
        key = f"{rt.run_id}/{rt.name}/{task.id}/{sample}/{n}/{next(ex._ids)}"
        super().__init__(rt, new_outcome(task.id, n, sample, self.record, checkpoint is not None), key)
        self.failures = FailureRecord(self.out, self.record, rt.logger)

    async def admitted(self, start: float) -> None:
        files = await self.ex._attempt(self)
        self.ex._finish(self.record, self.out, start, files, self.rt.store.writer, self.write_result)

    def cancelled(self, start: float) -> None:
        self.failures.add(asyncio.CancelledError("attempt cancelled"))
        self.ex._finish(self.record, self.out, start)


async def _drain(stream: Any) -> None:
    """Until the stream ends (its last item is the task's error when it was cancelled)."""
    while True:
        try:
            await (await stream.__anext__())
        except StopAsyncIteration:
            return
        except Exception:  # the task's error: the stream ends with it
            return


def _rebase(value: Any, old: str, new: str) -> Any:
    """``value`` with paths under the worker's staging directory ``old`` moved under ``new``."""
    if isinstance(value, str):
        return new + value[len(old) :] if value == old or value.startswith(old + "/") else value
    if isinstance(value, dict):
        return {k: _rebase(v, old, new) for k, v in value.items()}
    if isinstance(value, list):
        return [_rebase(v, old, new) for v in value]
    return value


def _write_files(folder: Path, files: Sequence[tuple[str, bytes, bool]]) -> None:
    for rel, data, append in files:
        _write_file(folder, rel, data, append)


def _write_last(
    record: AttemptRecord,
    files: Sequence[tuple[str, bytes, bool]],
    outcome: JsonObject,
    write_result: Callable[[AttemptRecord, JsonObject], None],
) -> None:
    _write_files(record.dir, files)
    write_result(record, outcome)


def _target(folder: Path, rel: str) -> str:
    """Where a streamed file goes in the attempt directory: a relative path without ``..`` (a path leaving the
    directory is refused). The check is on the path's text: the attempt directory holds only what this driver
    wrote there (directories and regular files, no links), so the text says where the file lands."""
    parts = rel.split("/")
    if ".." in parts or "" in parts or "\0" in rel or os.path.isabs(rel):  # "" in parts: empty, "/x", "a//b"
        raise PathEscapeError(f"a worker sent a file outside the attempt directory: {rel!r}")
    return f"{folder}/{rel}"


def _write_file(folder: Path, rel: str, data: bytes, append: bool) -> None:
    """Write a streamed file into the attempt directory (a path leaving it is refused)."""
    target = _target(folder, rel)
    if append:
        with open(target, "ab") as fh:
            fh.write(data)
    else:
        write_atomic(target, data)
