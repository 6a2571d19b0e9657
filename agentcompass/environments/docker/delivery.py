"""How a docker environment delivers what it staged (:mod:`.staging`): with the next command, or on its own.

A mixin of :class:`~.environment.DockerEnvironment`; every method runs with ``self._staged.lock`` held by its
caller, except :meth:`StagedDelivery.prepare` and :meth:`StagedDelivery._settle`, which take it.
"""

from __future__ import annotations

import asyncio
import time
from typing import IO, Any

from agentcompass.environments.docker import staging
from agentcompass.errors import SandboxError


class StagedDelivery:
    """Prepared commands and uploads, delivered in one exec with the next command where the container allows."""

    _staged: staging.Staged

    async def prepare(self, command: str, *, what: str, timeout: float | None = None) -> None:
        """Stage ``command`` (a shell command) to run before the next command or file operation; its failure fails
        that operation with a SandboxError naming ``what`` (e.g. ``task x: setup``). Must be idempotent."""
        self._check_open()
        async with self._staged.lock:
            if self._staged.archives:  # staged earlier: delivered first, to keep the order
                await self._settle_locked()
            self._staged.commands.append(staging.Prepared(command, what, timeout))

    async def _settle(self) -> None:
        """Deliver everything staged on its own (before files are read or copied out)."""
        if not self._staged.pending and not self._staged.lock.locked():
            return
        async with self._staged.lock:
            await self._settle_locked()

    async def _settle_locked(self) -> None:
        archives, commands = self._staged.take()
        if commands:
            await self._prepare_now(commands)
        if archives:
            await self._put_archive(await self._merged(archives))

    async def _merged(self, archives: list[IO[bytes]]) -> IO[bytes]:
        return archives[0] if len(archives) == 1 else await self._run(staging.merge, archives)

    async def _put_archive(self, archive: IO[bytes]) -> None:
        try:
            archive.seek(0)
            await self._run(self._put, archive)
        finally:
            archive.close()

    async def _prepare_now(self, commands: list[staging.Prepared]) -> None:
        """Run prepared commands in an exec of their own."""
        script, variables = staging.prepare_prefix(commands)
        timeouts = [c.timeout for c in commands]
        timeout = None if None in timeouts else sum(t for t in timeouts if t is not None)
        run = await self._start(["true"], None, variables, script + staging.PREPARED_REPORT)
        result = await self._finish(run, timeout, time.monotonic())
        self._check_prepared(run, result, commands, timeout)

    def _check_prepared(self, run: Any, result: Any, commands: list[staging.Prepared], timeout: float | None) -> None:
        failed = next((w for w in run.words if w.startswith(staging.UNPREPARED)), None)
        if failed is not None:
            what = commands[int(failed[len(staging.UNPREPARED) :] or 0)].what
            raise SandboxError(f"{what} failed (exit {result.exit_code}): {result.output.strip()[:300]}")
        if result.timed_out:
            raise SandboxError(f"{commands[0].what}: timed out after {timeout:g}s")
        if (
            staging.PREPARED not in run.words
            and staging.EXTRACTED not in run.words
            and staging.UNEXTRACTED not in run.words
        ):
            raise SandboxError(f"{commands[0].what}: the environment did not report (exit {result.exit_code})")

    async def _start_staged(
        self,
        argv: list[str],
        cwd: str | None,
        env: dict[str, str] | None,
        archives: list[IO[bytes]],
        commands: list[staging.Prepared],
        timeout: float | None,
    ) -> Any:
        """Start the command in one exec with what is staged: the prepared commands run first, then the archive
        is extracted from stdin, then the command runs. None when the archive went through ``put_archive`` (the
        caller then starts the command as usual)."""
        archive = await self._merged(archives) if archives else None
        if archive is not None and (not self._stdin_fusion or staging.size_of(archive) > staging.FUSE_MAX_BYTES):
            await self._deliver_apart(archive, commands)
            return None
        script, variables = staging.prepare_prefix(commands) if commands else ("", {})
        script += staging.EXTRACT_PREFIX if archive is not None else staging.PREPARED_REPORT
        try:
            run = await self._start(argv, cwd, {**(env or {}), **variables}, script, stdin=archive is not None)
            if archive is not None and not run.reader.native:  # a transport without stdin half-close
                run.reader.close()  # tar sees an empty stdin; everything goes the other way, now and later
                self._stdin_fusion = False
                await self._deliver_apart(archive, commands)
                return None
            word = await self._await_report(run, archive, timeout)
        except asyncio.CancelledError:  # before the report: delivered with the next operation
            self._put_back(archive, commands)
            raise
        except BaseException:
            if archive is not None:
                archive.close()
            raise
        return await self._after_report(run, word, archive, commands, timeout)

    async def _after_report(
        self,
        run: Any,
        word: str | None,
        archive: IO[bytes] | None,
        commands: list[staging.Prepared],
        timeout: float | None,
    ) -> Any:
        if run.timed_out:  # the command never started
            self._put_back(archive, commands)
            return run
        if word is not None and word.startswith(staging.UNPREPARED):
            if archive is not None:
                self._staged.put_back(archive)
            self._check_prepared(run, await self._finish(run, timeout, time.monotonic()), commands, timeout)
        if word in (staging.EXTRACTED, staging.PREPARED):
            if archive is not None:
                archive.close()
            return run
        run.reader.close()
        if word is None and commands:  # the wrapper ended without a word
            if archive is not None:
                archive.close()
            raise SandboxError(f"{commands[0].what}: the environment did not report")
        if archive is not None:  # unextracted: the command starts after put_archive
            await self._put_archive(archive)
        return None

    async def _deliver_apart(self, archive: IO[bytes], commands: list[staging.Prepared]) -> None:
        """Prepared commands in an exec of their own, then the archive through ``put_archive``."""
        try:
            if commands:
                await self._prepare_now(commands)
        except BaseException:
            archive.close()
            raise
        await self._put_archive(archive)

    def _put_back(self, archive: IO[bytes] | None, commands: list[staging.Prepared]) -> None:
        if archive is not None:
            self._staged.put_back(archive)
        self._staged.put_back_commands(commands)

    async def _await_report(self, run: Any, archive: IO[bytes] | None, timeout: float | None) -> str | None:
        """Feed ``archive`` (if any) to the command's stdin and read until the wrapper's first report; None when the
        stream ended first. A timeout here times the command out (``run.timed_out``; it never started)."""
        writer = asyncio.ensure_future(staging.feed_stdin(run.reader.raw, archive)) if archive is not None else None
        try:
            await asyncio.wait_for(run.reader.pump(run.out, run.trailer, until=lambda: bool(run.words)), timeout)
        except TimeoutError:
            run.timed_out = True
        except OSError as exc:
            run.reader.close()
            await self._kill_tree(run.token)
            raise SandboxError(f"docker environment {self.name}: exec output stream failed: {exc}") from exc
        except BaseException:
            run.reader.close()
            await asyncio.shield(self._kill_tree(run.token))
            raise
        finally:
            if writer is not None:
                writer.cancel()
                await asyncio.gather(writer, return_exceptions=True)
        if run.timed_out:
            await self._kill_tree(run.token)
            run.reader.close()
            return None
        return run.words[0] if run.words else None
