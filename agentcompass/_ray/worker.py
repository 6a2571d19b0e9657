"""What runs on a worker node: one attempt per Ray task, streaming back its events, log lines and files.

:func:`attempt_stream` is the body of a streaming Ray task. It runs the ordinary attempt
(:func:`agentcompass._orchestrator.scheduling.attempt.run_attempt`: open environment, agent, verify, close) on the event
loop of this worker process, against the components of its request built on this node (:mod:`.state`: once per
worker process and request, from the parts the driver ships once per request; the benchmark's tasks are loaded
here, so task files and datasets are this node's). The task's own argument is small: the attempt's key, task,
attempt and sample numbers, its checkpoint, and the request's token with the reference of its shared parts.
The attempt writes into a private staging directory; the driver receives:

- ``("event", {...})``: phase changes, re-emitted as progress events;
- ``("log", level, logger name, message)``: log records, written to the driver's console and run.log;
- ``("file", relative path, bytes, append)``: the attempt's files (``checkpoint.json`` within ``BATCH_S`` of its
  writing, the rest when the attempt ends: trajectories, logs, error.txt, artifacts/ already cut to their budgets);
- ``("result", {...})``: the outcome, last.

Items travel in batches (what arrives within ``BATCH_S`` of a batch's first item, up to about ``CHUNK`` bytes; the
attempt's end closes its batch at once), so an attempt of a few phases costs the driver two or three objects: its
first phases, then (checkpoint, last phases, files, result) together.

The slot of the pool is the driver's; with cluster-wide limits, environment opens and model calls ask the
driver's services actor for their turn (``env_open_qps``, ``provider_limits``); without them the attempt makes no
call outside its stream. A cancel (``ray.cancel``) cancels the attempt here, which closes its environments
before the task ends: the driver waits for the end of the stream.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import logging
import os
import queue
import shutil
import socket
import stat
import tempfile
import time
from collections.abc import Iterator
from functools import cache
from pathlib import Path
from typing import Any, TypedDict

from agentcompass._orchestrator.record import AgentRecord, AttemptRecord, JsonObject, RunStore
from agentcompass.interfaces import WAIT_REMOVED

from .parts import worker_runtime
from .state import STATE

CHUNK = 8 * 2**20
INLINE_READ = 256 * 2**10  # the attempt's files read on the loop up to this many bytes in all
BATCH_S = 0.1  # items arriving within this window travel together
_DONE = object()


class AttemptPayload(TypedDict):
    """One attempt as the driver hands it to a worker (:func:`attempt_stream`)."""

    key: str  # the attempt's key (its model-gate holder)
    request: list[Any]  # the request's token and the object-store reference of its SharedRequest
    task_id: str
    n: int
    sample: int
    checkpoint: AgentRecord | None  # the agent phase to resume from
    log_level: str
    grace_s: float  # how long a cancelled attempt may take to end


class AttemptDone(TypedDict):
    """The stream's last item: the attempt's result.json object, where its files were staged, how long it took."""

    outcome: JsonObject
    staging: str
    duration_s: float


def attempt_stream(payload: AttemptPayload) -> Iterator[list[tuple[Any, ...]]]:
    """The Ray task: yield the attempt's events, log lines and files in batches (what arrives within
    ``BATCH_S`` of the batch's first item, up to about CHUNK bytes; each yield is one object to transfer), the
    last one ending with ``("result", ...)``."""
    events: queue.SimpleQueue = queue.SimpleQueue()
    fut: concurrent.futures.Future | None = None
    try:
        fut = asyncio.run_coroutine_threadsafe(_attempt(payload, events), STATE.loop())
        fut.add_done_callback(lambda _: events.put(_DONE))
        done = False
        while not done:
            try:
                batch = [events.get(timeout=1.0)]
            except queue.Empty:
                continue
            size, until = _size(batch[0]), time.monotonic() + BATCH_S
            while batch[-1] is not _DONE and size < CHUNK:
                try:
                    batch.append(events.get(timeout=max(0.0, until - time.monotonic())))
                except queue.Empty:
                    break
                size += _size(batch[-1])
            done = batch[-1] is _DONE
            batch = [item for item in batch if item is not _DONE]
            if done:
                batch.append(("result", fut.result()))
            yield batch
    except BaseException:  # cancelled (GeneratorExit / KeyboardInterrupt): close the environments first
        if fut is not None:
            fut.cancel()
            concurrent.futures.wait([fut], timeout=payload["grace_s"])
        raise


def _size(item: Any) -> int:
    """The bytes a queued item adds to its batch (a file's data; the rest counts as nothing)."""
    return len(item[2]) if isinstance(item, tuple) and item[0] == "file" else 0


class _Events:
    """The attempt's progress: phase changes go to the driver (the slot and start event are the driver's)."""

    def __init__(self, events: queue.SimpleQueue) -> None:
        self.events = events

    def emit(self, event: Any) -> None:
        if event.kind == "phase_changed":
            self.events.put(("event", {"kind": event.kind, "phase": event.phase}))


class _Forward(logging.Handler):
    def __init__(self, events: queue.SimpleQueue, level: int) -> None:
        super().__init__(level)
        self.events = events

    def emit(self, record: logging.LogRecord) -> None:
        try:
            self.events.put(("log", record.levelno, record.name, record.getMessage()))
        except Exception:
            pass


@contextlib.contextmanager
def _forwarded_logs(events: queue.SimpleQueue, level: str) -> Iterator[None]:
    """The package's log records go to the driver only (not to this worker's stderr, which Ray would echo)."""
    logger = logging.getLogger("agentcompass")
    handler = _Forward(events, min(logging.getLevelName(level), logging.INFO))
    saved = (logger.level, logger.propagate)
    logger.addHandler(handler)
    logger.setLevel(logging.DEBUG)
    logger.propagate = False
    try:
        yield
    finally:
        logger.removeHandler(handler)
        logger.setLevel(saved[0])
        logger.propagate = saved[1]


class _StagingStore(RunStore):
    """The run directory of one attempt on this node; ``checkpoint.json`` is streamed as soon as written (and not
    sent again with the attempt's other files when it has not changed since)."""

    def __init__(self, root: Path, run_name: str, run_id: str, events: queue.SimpleQueue) -> None:
        super().__init__(root, run_name, run_id)
        self.events = events
        self.streamed: dict[str, bytes] = {}

    def attempt(self, task_id: str, n: int, sample: int = 1) -> AttemptRecord:
        record = super().attempt(task_id, n, sample)
        events, streamed = self.events, self.streamed

        class Streaming(AttemptRecord):
            def write_checkpoint(self, agent: AgentRecord) -> None:
                super().write_checkpoint(agent)
                streamed["checkpoint.json"] = data = (self.dir / "checkpoint.json").read_bytes()
                events.put(("file", "checkpoint.json", data, False))

        return Streaming(record.dir, record.n, record.sample)


@cache
def node_info() -> dict[str, Any]:
    """Where this worker process runs (the same for every attempt it runs)."""
    import ray

    ctx = ray.get_runtime_context()
    return {
        "executor": "ray",
        "node_id": ctx.get_node_id(),
        "node_ip": ray.util.get_node_ip_address(),
        "hostname": socket.gethostname(),
        "pid": os.getpid(),
    }


async def _attempt(p: AttemptPayload, events: queue.SimpleQueue) -> AttemptDone:
    from agentcompass._orchestrator.record import agent_from_dict
    from agentcompass._orchestrator.scheduling import run_attempt

    staging = Path(tempfile.mkdtemp(prefix="agentcompass-attempt-"))
    started = time.monotonic()
    try:
        with _forwarded_logs(events, p["log_level"]):
            async with STATE.attempt(p["request"]) as state:
                shared, parts = state.shared, state.parts
                store = _StagingStore(staging, shared["run_name"], shared["run_id"], events)
                rt = worker_runtime(shared, p["key"], parts, store, _Events(events))
                rt.services = STATE.services(shared.get("worker_services") or (), rt)
                checkpoint = agent_from_dict(p["checkpoint"]) if p["checkpoint"] else None
                out = await run_attempt(rt, parts.task(p["task_id"]), p["n"], checkpoint, p["sample"])
                await store.writer.flush()  # its files are on the staging disk before they are read
                wait_removed = WAIT_REMOVED.of(parts.components.environment)
                if wait_removed is not None:  # this worker's provider outlives the request: removals end here
                    await wait_removed()
            out.node = node_info()
            record = store.attempt(p["task_id"], p["n"], p["sample"])
            for item in await _read_files(record.dir, store.streamed):
                events.put(item)
            return {
                "outcome": out.record(),
                "staging": str(record.dir),
                "duration_s": round(time.monotonic() - started, 4),
            }
    finally:  # off the result's path: the files were read
        asyncio.get_running_loop().run_in_executor(None, shutil.rmtree, staging, True)


async def _read_files(folder: Path, streamed: dict[str, bytes]) -> list[tuple[str, str, bytes, bool]]:
    """The attempt's files (:func:`_files`), read on the loop when they are small (a few KB: the usual case, where
    a thread's round trip would cost more than the reads), else in a thread."""
    found = _listing(folder)
    if sum(size for _, _, size in found) <= INLINE_READ:
        return list(_files(found, streamed))
    return await asyncio.to_thread(lambda: list(_files(found, streamed)))


def _listing(folder: Path) -> list[tuple[str, str, int]]:
    """``(path, relative path, size)`` of every regular file under ``folder`` (symlinks left out), sorted."""
    out: list[tuple[str, str, int]] = []
    for root, _dirs, names in os.walk(folder):
        for name in names:
            path = os.path.join(root, name)
            st = os.lstat(path)
            if stat.S_ISREG(st.st_mode):
                out.append((path, os.path.relpath(path, folder).replace(os.sep, "/"), st.st_size))
    return sorted(out, key=lambda f: f[1])


def _files(found: list[tuple[str, str, int]], streamed: dict[str, bytes]) -> Iterator[tuple[str, str, bytes, bool]]:
    """Every file found but result.json (the driver writes its own) and a streamed file unchanged since, in
    chunks: ``("file", relative path, bytes, append)``."""
    for path, rel, _size in found:
        if rel == "result.json":
            continue
        data = Path(path).read_bytes()
        if streamed.get(rel) == data:
            continue
        for start in range(0, max(len(data), 1), CHUNK):
            yield ("file", rel, data[start : start + CHUNK], start > 0)
