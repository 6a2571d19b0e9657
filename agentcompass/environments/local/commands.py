"""The processes of one local environment: commands run through its supervisor, and the end of all of them.

Containment, strongest first, each where the machine allows it:

1. a cgroup v2 of the environment's own (:mod:`.cgroup`): the supervisor joins it before it starts anything,
   so every process the environment starts is born in it; ``close`` kills the cgroup, which ends even processes
   that left the supervisor's tree (because the supervisor itself was killed);
2. the supervisor (:mod:`.supervisor`), a child subreaper that forks every command: whatever a process does to
   its session, environment or command line, it and its orphans stay descendants of the supervisor, which kills
   them all when the environment closes (and when the process owning the environment dies, even by SIGKILL);
3. each command's process group, killed on its timeout or cancellation;
4. the ``AGENTCOMPASS_ROOT`` marker in the environment of commands, scanned for when the supervisor was lost and
   there is no cgroup (and by ``cleanup`` of a dead run's workspaces).
"""

from __future__ import annotations

import asyncio
import logging
import os
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING

from agentcompass.environments.local import cgroup as _cgroup
from agentcompass.environments.local import procs as procs
from agentcompass.environments.local.supervise import Spawned, SupervisedProcesses
from agentcompass.interfaces import ExecResult

if TYPE_CHECKING:
    from agentcompass.environments.local.shapes import HideSpec

log = logging.getLogger("agentcompass.environments.local")


CONTAINED = sys.platform.startswith("linux")  # subreapers, cgroups and /proc: Linux only


async def _spawn_direct(argv: list[str], cwd: str, env: dict[str, str], out: int, err: int) -> Spawned:
    """Elsewhere than on Linux: the command as a child of this process, in a session of its own (only its
    process group and its descendants that keep AGENTCOMPASS_ROOT are ended at close)."""
    try:
        proc = await asyncio.create_subprocess_exec(
            *argv, cwd=cwd, env=env, stdin=asyncio.subprocess.DEVNULL, stdout=out, stderr=err, start_new_session=True
        )
    finally:
        os.close(out)
        os.close(err)
    code = asyncio.ensure_future(proc.wait())
    status = asyncio.get_running_loop().create_future()
    code.add_done_callback(lambda done: status.set_result(done.result() << 8 if done.result() >= 0 else -done.result()))
    return Spawned(proc.pid, status)


class Processes:
    """Runs the commands of the environment rooted at ``root`` and ends them all at :meth:`close`."""

    def __init__(
        self, root: Path, *, output_limit: int, grace_s: float, cgroup: Path | None, hide: HideSpec | None = None
    ) -> None:
        self.root = root
        self.hide = hide  # host paths its commands must not see (:mod:`.hide`)
        self.output_limit = output_limit
        self.grace_s = grace_s
        self.cgroup = cgroup  # made by the provider with the workspace (its marker names it)
        self._sup: SupervisedProcesses | None = None
        self._starting = asyncio.Lock()
        self._prestart: asyncio.Future[SupervisedProcesses] | None = None
        self._pgids: set[int] = set()
        self._drains: set[asyncio.Task] = set()
        self._opened_ticks = procs.boot_ticks() - 2
        self.n_exec = 0

    def prestart(self) -> None:
        """Start the supervisor now, in the background: its start-up overlaps the attempt's preparation, and the
        first command waits only for what is left of it."""
        if self._prestart is None and CONTAINED:
            self._prestart = asyncio.ensure_future(self._supervisor())

    @property
    def supervisor(self) -> SupervisedProcesses | None:
        return self._sup

    async def ready(self) -> None:
        """Wait until the supervisor runs (started now when it was not)."""
        if CONTAINED:
            await self._supervisor()

    async def _supervisor(self) -> SupervisedProcesses:
        async with self._starting:
            if self._sup is None:
                sup = SupervisedProcesses(str(self.root), str(self.cgroup) if self.cgroup else None, self.hide)
                await sup.start()
                if sup.cgroup_error and self.cgroup is not None:
                    log.debug("local environment %s: no cgroup (%s)", self.root, sup.cgroup_error)
                    await asyncio.to_thread(_cgroup.kill_and_remove, self.cgroup)  # empty: only removed
                    self.cgroup = None
                if sup.hide_error:
                    log.debug("local environment %s: host paths not hidden: %s", self.root, sup.hide_error)
                self._sup = sup
            return self._sup

    async def run(self, argv: list[str], cwd: str, env: dict[str, str], timeout: float | None) -> ExecResult:
        """Run ``argv`` to its end (or its timeout, which kills its process group)."""
        sup = await self._supervisor() if CONTAINED else None
        self.n_exec += 1
        start = time.monotonic()
        (out_r, out_w), (err_r, err_w) = os.pipe(), os.pipe()
        try:
            spawned = await (sup.spawn if sup else _spawn_direct)(argv, cwd, env, out_w, err_w)
        except OSError as exc:
            os.close(out_r)
            os.close(err_r)
            return ExecResult(exit_code=127, stderr=f"cannot run {argv[0]!r}: {exc}\n")
        except BaseException:
            os.close(out_r)
            os.close(err_r)
            raise
        self._pgids.add(spawned.pid)
        return await self._collect(spawned, [out_r, err_r], timeout, start)

    async def _collect(self, spawned: Spawned, fds: list[int], timeout: float | None, start: float) -> ExecResult:
        bufs = (procs.HeadTail(self.output_limit), procs.HeadTail(self.output_limit))
        readers = [asyncio.ensure_future(b.drain_fd(fd)) for b, fd in zip(bufs, fds, strict=True)]
        timed_out = False
        try:
            status = await asyncio.wait_for(asyncio.shield(spawned.status), timeout)
        except TimeoutError:
            timed_out = True
            procs.kill_group(spawned.pid)
            status = await spawned.status
        except BaseException:
            procs.kill_group(spawned.pid)
            for r in readers:
                r.cancel()
            raise
        if procs.group_is_empty(spawned.pid):
            self._pgids.discard(spawned.pid)
        _done, pending = await asyncio.wait(readers, timeout=self.grace_s) if self.grace_s > 0 else (set(), readers)
        for task in pending:  # background children hold the pipes: keep draining, stop recording
            self._drains.add(task)
            task.add_done_callback(self._drains.discard)
        for b in bufs:
            b.frozen = True
        return ExecResult(
            exit_code=-1 if timed_out else os.waitstatus_to_exitcode(status),
            stdout=bufs[0].text(),
            stderr=bufs[1].text(),
            timed_out=timed_out,
            duration_s=time.monotonic() - start,
            truncated=any(b.elided for b in bufs),
        )

    async def end_all(self) -> list[str]:
        """End every process the environment started (the supervisor stays for the commands that follow): the
        command lines of those ended. Without a supervisor (not Linux): their process groups only."""
        ended: list[str] = []
        if self._sup is not None:
            ended = await self._sup.end_all()
        for pgid in list(self._pgids):
            procs.kill_group(pgid)
        self._pgids.clear()
        return ended

    async def close(self) -> None:
        """End every process the environment started; what could not be ended is logged as a warning."""
        for pgid in list(self._pgids):
            procs.kill_group(pgid)
        if self._prestart is not None:
            await asyncio.wait([self._prestart])
            if not self._prestart.cancelled() and self._prestart.exception() is not None:
                log.debug("local environment %s: %s", self.root, self._prestart.exception())
        clean = True
        if self._sup is not None:
            left = await self._sup.stop()
            clean = left == [] and not self._sup.lost
            if not clean:
                why = self._sup.lost or (f"could not end processes {left}" if left else "did not finish")
                log.warning("local environment %s: its supervisor %s", self.root, why)
        if self.cgroup is not None:
            left = await asyncio.to_thread(_cgroup.kill_and_remove, self.cgroup)
            if left:
                log.warning("local environment %s: processes %s survived the kill of %s", self.root, left, self.cgroup)
        elif self.n_exec and not clean:
            await asyncio.to_thread(procs.kill_workspace_processes, self.root, self._opened_ticks)
        for task in list(self._drains):
            task.cancel()
