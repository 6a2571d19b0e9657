"""One container for one attempt: exec through the Docker API, files through tar archives, instant close."""

from __future__ import annotations

import asyncio
import io
import logging
import posixpath
import time
import uuid
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from agentcompass.environments.docker import processes, reach, staging, tarsafe
from agentcompass.environments.docker.delivery import StagedDelivery
from agentcompass.environments.docker.execstream import (
    KILL_SCRIPT,
    OOM_WORD,
    TOKEN_VAR,
    WRAPPER,
    ExitTrailer,
    FrameReader,
    HeadTail,
)
from agentcompass.errors import GatewayUnreachableError, SandboxError
from agentcompass.interfaces import ExecResult

log = logging.getLogger("agentcompass.environments.docker")
KILL_GRACE_S = 5.0  # after a kill, how long the output stream may take to end before it is cut


class _Run:
    """One started command: its exec, output stream, captured output and the wrapper's in-band reports."""

    def __init__(self, exec_id: str, token: str, reader: FrameReader, limit: int) -> None:
        self.exec_id, self.token, self.reader = exec_id, token, reader
        self.out, self.err = HeadTail(limit), HeadTail(limit)
        self.words: list[str] = []
        self.oom_kills: int | None = None  # the container's OOM-kill count when the command ended
        self.trailer = ExitTrailer(self.err, token, self._word)
        self.timed_out = False

    def _word(self, word: str) -> None:
        if word.startswith(OOM_WORD) and word[len(OOM_WORD) :].isdigit():
            self.oom_kills = int(word[len(OOM_WORD) :])
        else:
            self.words.append(word)


class DockerEnvironment(StagedDelivery):
    """A running container. Environment paths are the container's own paths (``path`` only makes a relative one
    absolute, under the workdir)."""

    project: Any = None  # a ComposeEnvironment's compose project; None for a single container

    def __init__(
        self, provider: Any, container_id: str, name: str, image: str, workdir: str, keep: bool, output_limit: int
    ) -> None:
        self.provider = provider
        self.api = provider.api
        self._run: Callable[..., Awaitable[Any]] = provider.run
        self.id = container_id
        self.name = name
        self.image = image
        self.workdir = workdir
        self.keep = keep
        self.output_limit = output_limit
        self._closed = False
        self.memory_mb: int | None = None  # the container's memory limit (set by the provider)
        self.oom_kills = 0  # processes the kernel killed at that limit so far (reported after each command)
        self._staged = staging.Staged()
        self._stdin_fusion = True  # archives ride on a command's stdin (off for other transports)

    def path(self, p: str) -> str:
        return p if p.startswith("/") else posixpath.join(self.workdir, p)

    def describe(self) -> dict[str, str]:
        return {"provider": "docker", "container_id": self.id, "container_name": self.name, "image": self.image}

    def out_of_memory(self) -> str | None:
        """interfaces.OUT_OF_MEMORY: the processes the kernel killed at the container's memory limit so far."""
        n = self.oom_kills
        if not n:
            return None
        limit = f"its memory limit ({self.memory_mb} MB)" if self.memory_mb else "the memory it could get (no limit)"
        return f"the kernel killed {n} process{'es' if n != 1 else ''} of container {self.name} at {limit}"

    def __repr__(self) -> str:
        return f"DockerEnvironment({self.name}, {self.id[:12]})"

    async def host_address(self) -> str:
        """interfaces.HOST_ADDRESS: the gateway IP of the container's network (this host, as seen from inside)."""
        self._check_open()
        info = await self._run(self.api.inspect_container, self.id)
        networks = (info.get("NetworkSettings") or {}).get("Networks") or {}
        for net in networks.values():
            if (net or {}).get("Gateway"):
                return str(net["Gateway"])
        raise GatewayUnreachableError(
            f"docker environment {self.name} has no network with a gateway to this host "
            f"(networks: {sorted(networks) or 'none'}), and its network namespace cannot be entered from here "
            "(docs/gateway.md, Reachability)"
        )

    async def net_namespace(self) -> str | None:
        """interfaces.NET_NAMESPACE: for a container without internet, its network namespace (see :mod:`.reach`)."""
        self._check_open()
        return await reach.offline_namespace(self._run, self.api, self.id)

    async def end_processes(self) -> list[str]:
        """interfaces.END_PROCESSES: end every process the agent left (restarting the container when there is one,
        :mod:`.processes`); the command lines of those ended."""
        self._check_open()
        await self._settle()
        return await processes.end_others(self._run, self.api, self.id)

    def _check_open(self) -> None:
        if self._closed:
            raise SandboxError(f"docker environment {self.name} is closed")

    def _abs(self, p: str) -> str:
        return tarsafe.env_abspath(p, self.workdir)

    # ------------------------------------------------------------------ exec
    async def exec(
        self,
        cmd: str | list[str],
        *,
        timeout: float | None = None,
        cwd: str | None = None,
        env: dict[str, str] | None = None,
    ) -> ExecResult:
        """Run ``cmd`` (a string under ``bash -c``); on timeout its whole process tree is killed. What is staged
        (uploads, prepared commands: :mod:`.staging`) is delivered first, in the same exec where it can be."""
        self._check_open()
        argv = ["bash", "-c", cmd] if isinstance(cmd, str) else [str(a) for a in cmd]
        start = time.monotonic()
        run = None
        try:
            async with self._staged.lock:
                archives, commands = self._staged.take()
                if archives or commands:
                    run = await self._start_staged(argv, cwd, env, archives, commands, timeout)
            if run is None:
                run = await self._start(argv, cwd, env)
            return await self._finish(run, timeout, start)
        except SandboxError as exc:  # a stream cut off, no report: because the engine went away?
            down = await self.provider.engine_down(exc)
            if down is None or down is exc:
                raise
            raise down from exc

    async def _start(
        self, argv: list[str], cwd: str | None, env: dict[str, str] | None, prefix: str = "", stdin: bool = False
    ) -> _Run:
        token = uuid.uuid4().hex
        environment = {**{str(k): str(v) for k, v in (env or {}).items()}, TOKEN_VAR: token}
        full = ["sh", "-c", prefix + WRAPPER, "ac", self._abs(cwd or self.workdir), *argv]
        try:
            exec_id = (await self._run(self.api.exec_create, self.id, full, environment=environment, stdin=stdin))["Id"]
            sock = await self._run(self.api.exec_start, exec_id, socket=True)
        except Exception as exc:
            raise self._sandbox_error("exec", exc) from exc
        return _Run(exec_id, token, FrameReader(sock, self.provider.pool), self.output_limit)

    async def _finish(self, run: _Run, timeout: float | None, start: float) -> ExecResult:
        if run.timed_out:
            timed_out = True
        else:
            left = None if timeout is None else max(0.0, timeout - (time.monotonic() - start))
            timed_out = await self._collect(run.reader, run.token, left, run.out, run.trailer)
        run.trailer.close()
        if run.oom_kills is not None:
            self.oom_kills = max(self.oom_kills, run.oom_kills)
        if timed_out:
            code = -1
        else:  # in-band from the wrapper; the engine is asked only when the wrapper did not report
            code = run.trailer.code if run.trailer.code is not None else await self._exit_code(run.exec_id)
        return ExecResult(
            exit_code=code,
            stdout=run.out.text(),
            stderr=run.err.text(),
            timed_out=timed_out,
            duration_s=time.monotonic() - start,
            truncated=bool(run.out.elided or run.err.elided),
        )

    async def _collect(self, reader: FrameReader, token: str, timeout: float | None, out: HeadTail, err: Any) -> bool:
        """Read the command's output to its end; True when the timeout killed it."""
        try:
            await asyncio.wait_for(reader.pump(out, err), timeout)
            return False
        except TimeoutError:
            await self._kill_tree(token)
            await self._drain(reader, out, err)
            return True
        except OSError as exc:
            await self._kill_tree(token)
            raise SandboxError(f"docker environment {self.name}: exec output stream failed: {exc}") from exc
        except BaseException:  # cancelled (agent timeout, Ctrl-C): the tree must not outlive us
            reader.close()
            await asyncio.shield(self._kill_tree(token))
            raise
        finally:
            reader.close()

    async def _drain(self, reader: FrameReader, out: HeadTail, err: Any) -> None:
        try:
            await asyncio.wait_for(reader.pump(out, err), KILL_GRACE_S)
        except (TimeoutError, OSError):
            pass

    async def _kill_tree(self, token: str) -> None:
        try:
            exec_id = (await self._run(self.api.exec_create, self.id, ["sh", "-c", KILL_SCRIPT, "ac-kill", token]))[
                "Id"
            ]
            await self._run(self.api.exec_start, exec_id)  # returns when the script has finished
        except Exception as exc:
            level = logging.DEBUG if self._closed else logging.WARNING
            log.log(level, "%s: killing a timed-out command failed: %s", self.name, exc)

    async def _exit_code(self, exec_id: str) -> int:
        for _ in range(50):
            try:
                info = await self._run(self.api.exec_inspect, exec_id)
            except Exception as exc:
                raise self._sandbox_error("exec inspect", exc) from exc
            if not info.get("Running") and info.get("ExitCode") is not None:
                return int(info["ExitCode"])
            await asyncio.sleep(0.02)
        return -1

    def _sandbox_error(self, what: str, exc: BaseException) -> SandboxError:
        if isinstance(exc, SandboxError):
            return exc
        return SandboxError(f"docker environment {self.name}: {what} failed: {exc}")

    # ------------------------------------------------------------------ files
    async def upload(self, src: Path, dst: str) -> None:
        """Copy a host file or directory to ``dst`` (a directory's contents are merged into ``dst``). The archive is
        made now and delivered with the next command or file read (:mod:`.staging`)."""
        self._check_open()
        src = Path(src)
        if not src.exists():
            raise FileNotFoundError(f"upload source {src} does not exist")
        target = self._abs(dst)
        self._staged.add(await self._run(tarsafe.tar_of_path, src, target))

    def _put(self, data: Any) -> None:
        import docker.errors

        try:
            ok = self.api.put_archive(self.id, "/", data)
        except docker.errors.APIError as exc:
            raise self._sandbox_error("upload", exc) from exc
        if not ok:
            raise SandboxError(f"docker environment {self.name}: the engine refused an archive")

    async def download(self, src: str, dst: Path) -> None:
        """Copy an environment file or directory to host path ``dst``; escaping archive members are refused."""
        self._check_open()
        await self._settle()
        spool = await self._run(self._fetch, self._abs(src))
        try:
            await self._run(tarsafe.extract_to, spool, Path(dst))
        finally:
            spool.close()

    def _fetch(self, path: str) -> Any:
        """The archive of ``path`` (a symlink in its last component is followed) as a rewound spooled file."""
        import docker.errors

        for _ in range(40):
            try:
                stream, stat = self.api.get_archive(self.id, path)
            except docker.errors.NotFound:
                raise FileNotFoundError(f"{path} does not exist in the environment") from None
            except docker.errors.APIError as exc:
                raise self._sandbox_error(f"copy of {path}", exc) from exc
            target = (stat or {}).get("linkTarget") or ""
            if not target or target == path:
                return tarsafe.spool_chunks(stream)
            getattr(stream, "close", lambda: None)()
            path = target
        raise SandboxError(f"docker environment {self.name}: too many levels of symbolic links at {path}")

    async def read_file(self, path: str) -> bytes:
        """Bytes of an environment file (symlinks followed); FileNotFoundError when it does not exist."""
        self._check_open()
        await self._settle()
        spool = await self._run(self._fetch, self._abs(path))
        try:
            member, data = await self._run(tarsafe.single_file, spool, path)
        finally:
            spool.close()
        if data is None:
            if member.isdir():
                raise IsADirectoryError(f"{path} is a directory in the environment")
            raise FileNotFoundError(f"{path} is not a regular file in the environment")
        return data

    async def write_file(self, path: str, data: bytes | str, mode: int = 0o644) -> None:
        """Write ``data`` to ``path`` (parents created); delivered like an upload."""
        self._check_open()
        payload = data.encode() if isinstance(data, str) else data
        self._staged.add(io.BytesIO(tarsafe.tar_of_bytes(self._abs(path), payload, mode)))

    # ------------------------------------------------------------------ lifecycle
    async def close(self) -> None:
        """Kill and remove the container and its anonymous volumes (a no-op under ``keep``). Idempotent.

        The environment is unusable at once; the removal runs in the background (the provider bounds it and
        awaits it in ``aclose``, ``wait_removed`` awaits it on demand)."""
        if self._closed:
            return
        self._closed = True
        if self.keep:
            try:
                await self._settle()
            except Exception as exc:
                log.warning("%s: delivering staged uploads before keeping it failed: %s", self.name, exc)
            self.provider.forget(self)
            log.info("keeping container %s (%s)", self.name, self.id[:12])
            return
        self._staged.discard()
        try:
            await self.provider.remove_later(self.id)
        finally:
            self.provider.forget(self)
