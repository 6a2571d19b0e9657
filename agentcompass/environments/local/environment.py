"""The ``local`` environment: one temporary workspace directory per attempt, commands as host subprocesses.

The workspace acts as the environment's root: environment path ``/app/x`` lives at ``<ws>/app/x`` and
``env.path("/app/x")`` returns that host path for use inside commands. Commands see the variables
``AGENTCOMPASS_ROOT``, ``AGENTCOMPASS_WORKDIR``, ``AGENTCOMPASS_LOGS_DIR``, ``AGENTCOMPASS_TESTS_DIR`` and
``AGENTCOMPASS_SOLUTION_DIR`` (host paths), so task scripts written as ``${AGENTCOMPASS_WORKDIR:-/app}`` run
both here and in a container.

This is NOT a security sandbox. Commands run as the current user with the host's file system, network and
(filtered) environment variables; only the file-transfer methods (``upload``, ``download``, ``read_file``,
``write_file``) are confined to the workspace. Use the ``docker`` environment for untrusted agents.

Each command runs in a session of its own, forked by the environment's supervisor; on timeout or cancellation
its whole group gets SIGKILL. ``close()`` ends every process the environment started, however it left the
group (:mod:`.commands`: the supervisor is a child subreaper, in a cgroup of the environment's own where
one can be made), then removes the workspace unless the spec says keep. A marker file
``<root_dir>/<workspace>.json`` records the run id and the cgroup so ``cleanup(run_id)`` can reap leftovers.
"""

from __future__ import annotations

import asyncio
import fnmatch
import json
import logging
import os
import tempfile
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, ConfigDict, Field

from agentcompass.environments.local import beneath as beneath
from agentcompass.environments.local import cgroup as _cgroup
from agentcompass.environments.local import fs as fs
from agentcompass.environments.local import procs as procs
from agentcompass.environments.local.commands import Processes
from agentcompass.errors import NotSupportedYetError, SandboxError
from agentcompass.interfaces import ComponentContext, EnvSpec, ExecResult
from agentcompass.kit import place, process_alive, slug, start_ticks, write_json

if TYPE_CHECKING:
    from agentcompass.environments.local.shapes import HideSpec, WorkspaceMarker

log = logging.getLogger("agentcompass.environments.local")

# Host variables passed to commands by default: an allow-list (a deny-list of secret-looking names always misses
# some: OPENAI_KEY, DATABASE_URL, SSH_AUTH_SOCK...). Shell patterns (fnmatch), matched case-sensitively.
DEFAULT_PASS_ENV = [
    "PATH",
    "HOME",
    "USER",
    "LOGNAME",
    "SHELL",
    "LANG",
    "LANGUAGE",
    "LC_*",
    "TERM",
    "COLORTERM",
    "TZ",
    "TMPDIR",
    "NO_COLOR",
    "FORCE_COLOR",
    "PYENV_ROOT",
    "PYENV_VERSION",
    "VIRTUAL_ENV",
    "CONDA_PREFIX",
    "CONDA_DEFAULT_ENV",
    "SSL_CERT_FILE",
    "SSL_CERT_DIR",
]


class LocalConfig(BaseModel):
    """Configuration of the ``local`` environment provider."""

    model_config = ConfigDict(extra="forbid")

    root_dir: str | None = Field(
        None, description="Directory holding the workspaces; default <system temp dir>/agentcompass-local-<uid>."
    )
    exec_output_limit: int = Field(
        1_000_000,
        ge=64,
        description="Bytes kept per stream of one command "
        "(the first and last half; the middle is elided with a marker).",
    )
    env: dict[str, str] = Field(default_factory=dict, description="Extra environment variables for every command.")
    inherit_env: bool = Field(True, description="Pass the host variables named by pass_env / pass_env_extra.")
    pass_env: list[str] = Field(
        default_factory=lambda: list(DEFAULT_PASS_ENV),
        description=(
            "Host variables passed to commands (shell patterns such as LC_*); every other host variable is withheld."
        ),
    )
    pass_env_extra: list[str] = Field(
        default_factory=list,
        description=("More host variables to pass, on top of pass_env (so the defaults need not be restated)."),
    )
    allow_shell_startup_env: bool = Field(
        False,
        description=(
            "Keep BASH_ENV / ENV in commands' environments (they would source the host's shell start-up files)."
        ),
    )
    cgroup: bool = Field(
        True,
        description="Put each environment's processes in a cgroup v2 of their own where this process may make "
        "one (else, and when false, its supervisor alone contains them).",
    )
    hide_host_paths: bool = Field(
        True,
        description="hardening: commands run in a mount namespace of their own (where this process may make one: "
        "root) in which the benchmark's task directories and the other workspaces are empty, and the command lines "
        "of this process and its ancestors read as empty (docs/integrity.md); the paths hidden are recorded in each "
        "attempt's environment.hidden",
    )
    background_grace_s: float = Field(
        1.0,
        ge=0,
        description="After a command exits, how long to wait for background children still holding its output open.",
    )


def _default_root() -> Path:
    return Path(tempfile.gettempdir()) / f"agentcompass-local-{os.getuid()}"


_LIVE: set[Path] = set()  # workspaces open in this process (any provider)


def _owned(ws: Path, info: WorkspaceMarker) -> bool:
    """True while the workspace's owner lives: open in this process, or its owner process still running."""
    pid = info.get("pid")
    if pid == os.getpid():
        return ws in _LIVE
    return isinstance(pid, int) and process_alive(pid, info.get("pid_start_ticks"))


class LocalProvider:
    """Opens :class:`LocalEnvironment` workspaces under ``root_dir``."""

    name = "local"
    config_class = LocalConfig

    def __init__(self, config: LocalConfig, ctx: ComponentContext | None = None) -> None:
        self.config = config
        self.ctx = ctx
        self.id = "local"
        self.root = Path(config.root_dir).expanduser() if config.root_dir else _default_root()
        self._open: set[LocalEnvironment] = set()

    async def open(self, spec: EnvSpec) -> LocalEnvironment:
        if spec.compose_file is not None:
            raise NotSupportedYetError(
                f"task {spec.task_id}: {spec.compose_file.name} defines a multi-container "
                "environment, which only the docker environment runs (--env docker)"
            )
        ws, cgroup = self._make_workspace(spec)
        env = LocalEnvironment(ws, spec, self.config, on_close=self._closed, cgroup=cgroup)
        _LIVE.add(ws)
        self._open.add(env)
        try:
            env.processes.prestart()
            await asyncio.to_thread(env.make_dirs)
            if self.config.hide_host_paths:  # what it hid is known before its describe()
                await env.processes.ready()
        except BaseException:
            await env.close()
            raise
        log.debug("opened local workspace %s for %s", ws, spec.task_id)
        return env

    def _make_workspace(self, spec: EnvSpec) -> tuple[Path, Path | None]:
        """A new workspace directory, its marker file, and its cgroup where one can be made."""
        run_id = spec.labels.get("agentcompass.run_id") or (self.ctx.run_id if self.ctx else "") or ""
        cgroup = None
        try:
            self.root.mkdir(parents=True, exist_ok=True)
            name = slug(spec.task_id, sep="_", limit=60, default="task")
            ws = Path(tempfile.mkdtemp(prefix=f"{name}-", dir=self.root)).resolve()
            cgroup = _cgroup.create(f"agentcompass-{ws.name}") if self.config.cgroup else None
            marker: WorkspaceMarker = {
                "run_id": run_id,
                "task_id": spec.task_id,
                "pid": os.getpid(),
                "pid_start_ticks": start_ticks(os.getpid()),
                "created": time.time(),
                "kept": False,
                "cgroup": str(cgroup) if cgroup else None,
            }
            write_json(ws.with_name(ws.name + ".json"), marker, indent=1)
        except OSError as exc:
            if cgroup is not None:
                _cgroup.kill_and_remove(cgroup)
            raise SandboxError(f"local environment: cannot create a workspace under {self.root}: {exc}") from exc
        return ws, cgroup

    def _closed(self, env: LocalEnvironment) -> None:
        self._open.discard(env)
        _LIVE.discard(env.root)

    async def cleanup(self, run_id: str | None = None) -> int:
        """Remove workspaces left by dead runs (of ``run_id``, or all when None); kept ones stay, and so does
        every workspace whose owner still runs (its pid alive with the same start time; in this process: still
        open), so a cleanup never pulls a workspace from under a live attempt."""
        if not self.root.is_dir():
            return 0
        count = 0
        for marker in sorted(self.root.glob("*.json")):
            try:
                info = json.loads(marker.read_text())
            except (OSError, ValueError):
                continue
            ws = marker.with_suffix("")
            if info.get("kept") or (run_id is not None and info.get("run_id") != run_id) or _owned(ws, info):
                continue
            if info.get("cgroup"):
                await asyncio.to_thread(_cgroup.kill_and_remove, Path(info["cgroup"]))
            await asyncio.to_thread(procs.kill_workspace_processes, ws)
            await asyncio.to_thread(fs.remove_tree, ws)
            marker.unlink(missing_ok=True)
            count += 1
        return count

    async def aclose(self) -> None:
        """Close environments the caller left open."""
        for env in list(self._open):
            await env.close()


class LocalEnvironment:
    """One workspace. Environment paths are absolute POSIX paths mapped under the workspace."""

    on_host = True  # interfaces.ON_HOST: commands run on this host

    def __init__(
        self, root: Path, spec: EnvSpec, config: LocalConfig, on_close: Any = None, cgroup: Path | None = None
    ) -> None:
        self.root = root
        self.spec = spec
        self.config = config
        self.id = str(root)
        self.workdir = "/" + (spec.workdir or "/app").strip("/")
        self.keep = spec.keep
        self._on_close = on_close
        self.processes = Processes(
            root,
            output_limit=config.exec_output_limit,
            grace_s=config.background_grace_s,
            cgroup=cgroup,
            hide=self._hiding() if config.hide_host_paths else None,
        )
        self._closed = False
        self._warned_startup = False
        self._base_env = self._make_base_env()

    def _hiding(self) -> HideSpec:
        from agentcompass.environments.local.hide import ancestors

        return {
            "paths": [str(p) for p in self.spec.private_paths],
            "workspace": str(self.root),
            "spare": [str(m.source) for m in self.spec.mounts],
            "pids": ancestors(os.getpid()),
        }

    # ------------------------------------------------------------------ paths
    def path(self, p: str) -> str:
        """Host path of environment path ``p`` (relative paths are relative to the workdir)."""
        return str(fs.map_path(self.root, p, self.workdir))

    def host_path(self, p: str) -> Path:
        """Host path of ``p``, refusing paths that escape the workspace (also through symlinks). For commands
        and messages only: file operations resolve paths with :mod:`.beneath`, never through this path."""
        return fs.confined(self.root, fs.map_path(self.root, p, self.workdir), p)

    def _rel(self, p: str) -> str:
        """``p`` relative to the workspace root (``..`` climbing above the root refused); SandboxError once closed."""
        if self._closed:
            raise SandboxError(f"local environment {self.root} is closed")
        return str(fs.map_path(self.root, p, self.workdir))[len(str(self.root)) :].lstrip("/")

    def make_dirs(self) -> None:
        for d in (self.workdir, "/logs/agent", "/logs/verifier"):
            beneath.make_dirs(self.root, self._rel(d), d)
        for mount in self.spec.mounts:  # a link to the host directory (nothing is copied; read_only not enforced)
            rel = self._rel(mount.target)
            parent = str(Path(rel).parent)
            if parent != ".":
                beneath.make_dirs(self.root, parent, mount.target)
            os.symlink(Path(mount.source).resolve(), self.root / rel, target_is_directory=True)

    def _make_base_env(self) -> dict[str, str]:
        env: dict[str, str] = {}
        if self.config.inherit_env:
            allow = [*self.config.pass_env, *self.config.pass_env_extra]
            env = {
                k: v
                for k, v in os.environ.items()
                if any(fnmatch.fnmatchcase(k, pat) for pat in allow) and not k.startswith("AGENTCOMPASS_")
            }
        env.update(self.config.env)
        env.update({str(k): str(v) for k, v in self.spec.env.items()})
        env.update(
            {
                "AGENTCOMPASS_ROOT": str(self.root),
                "AGENTCOMPASS_WORKDIR": self.path(self.workdir),
                "AGENTCOMPASS_LOGS_DIR": self.path("/logs"),
                "AGENTCOMPASS_TESTS_DIR": self.path("/tests"),
                "AGENTCOMPASS_SOLUTION_DIR": self.path("/solution"),
            }
        )
        return env

    def _drop_startup_hooks(self, env: dict[str, str]) -> None:
        """``BASH_ENV`` / ``ENV`` name shell start-up files. A benchmark sets them for its images (SWE-bench's
        conda activation); on the host they would source the user's own rc files (which may start shells
        that source them again), so they are dropped unless ``allow_shell_startup_env``."""
        if self.config.allow_shell_startup_env:
            return
        dropped = [k for k in ("BASH_ENV", "ENV") if env.pop(k, None) is not None]
        if dropped and not self._warned_startup:
            self._warned_startup = True
            log.warning(
                "local environment: ignoring %s (shell start-up files of the host); set "
                "allow_shell_startup_env to keep them",
                ", ".join(dropped),
            )

    # ------------------------------------------------------------------ exec
    async def exec(
        self,
        cmd: str | list[str],
        *,
        timeout: float | None = None,
        cwd: str | None = None,
        env: dict[str, str] | None = None,
    ) -> ExecResult:
        """Run ``cmd`` (a string runs under ``bash -c``) in its own session, through the environment's
        supervisor (:mod:`.commands`)."""
        if self._closed:
            raise SandboxError(f"local environment {self.root} is closed")
        argv = ["bash", "-c", cmd] if isinstance(cmd, str) else [str(a) for a in cmd]
        host_cwd = Path(self.path(cwd or self.workdir))
        if not host_cwd.is_dir():
            return ExecResult(exit_code=126, stderr=f"cwd {cwd or self.workdir} does not exist\n")
        full_env = dict(self._base_env)
        if env:
            full_env.update({str(k): str(v) for k, v in env.items()})
            full_env.update({k: v for k, v in self._base_env.items() if k.startswith("AGENTCOMPASS_")})
        self._drop_startup_hooks(full_env)
        return await self.processes.run(argv, str(host_cwd), full_env, timeout)

    # ------------------------------------------------------------------ files
    async def upload(self, src: Path, dst: str) -> None:
        """Copy a host file or directory to ``dst`` (a directory's contents are merged into ``dst``)."""
        src = Path(src)
        if not src.exists():
            raise FileNotFoundError(f"upload source {src} does not exist")
        await asyncio.to_thread(beneath.copy_in, self.root, src, self._rel(dst), dst)

    async def download(self, src: str, dst: Path) -> None:
        """Copy an environment file or directory to host path ``dst``. Symlinks are copied as links, and only
        while they stay inside the copied tree (else PathEscapeError, and nothing is written)."""
        try:
            await asyncio.to_thread(self._download, self._rel(src), Path(dst), src)
        except FileNotFoundError:
            raise FileNotFoundError(f"{src} does not exist in the environment") from None

    def _download(self, rel: str, dst: Path, original: str) -> None:
        with fs.staging(dst) as stage:
            top = stage / (dst.name or "top")
            beneath.copy_out(self.root, rel, top, original)
            fs.check_links_inside(top, original)
            place(top, dst)

    async def read_file(self, path: str) -> bytes:
        """Bytes of an environment file; FileNotFoundError when it does not exist."""
        try:
            return await asyncio.to_thread(beneath.read_bytes, self.root, self._rel(path), path)
        except FileNotFoundError:
            raise FileNotFoundError(f"{path} does not exist in the environment") from None

    async def read_head(self, path: str, n: int) -> bytes:
        """The first ``n`` bytes of an environment file (artifacts cut large files with it)."""
        return await asyncio.to_thread(beneath.read_bytes, self.root, self._rel(path), path, n)

    async def write_file(self, path: str, data: bytes | str, mode: int = 0o644) -> None:
        payload = data.encode() if isinstance(data, str) else data
        await asyncio.to_thread(beneath.write_bytes, self.root, self._rel(path), payload, mode, path)

    # ------------------------------------------------------------------ lifecycle
    async def close(self) -> None:
        """Kill leftover processes, then remove the workspace unless the spec said keep. Idempotent."""
        if self._closed:
            return
        self._closed = True
        await self.processes.close()
        marker = self.root.with_name(self.root.name + ".json")
        if self.keep:
            await asyncio.to_thread(fs.mark_kept, marker)
        else:
            await asyncio.to_thread(fs.remove_tree, self.root)
            marker.unlink(missing_ok=True)
        if self._on_close:
            self._on_close(self)

    async def end_processes(self) -> list[str]:
        """interfaces.END_PROCESSES: end every process the environment's commands started and left running
        (detached, ``nohup`` / ``setsid``, tmux, background): its supervisor kills all its descendants. The
        command lines of those ended."""
        if self._closed:
            raise SandboxError(f"local environment {self.root} is closed")
        return await self.processes.end_all()

    async def host_address(self) -> str:
        """interfaces.HOST_ADDRESS: commands run on this host, which reaches the gateway on loopback."""
        return "127.0.0.1"

    def describe(self) -> dict[str, str | list[str]]:
        out: dict[str, str | list[str]] = {"provider": "local", "workspace": str(self.root)}
        sup = self.processes.supervisor
        if self.config.hide_host_paths and sup is not None:
            out["hidden"] = list(sup.hidden)
            if sup.hide_error:
                out["hide_error"] = sup.hide_error
        return out

    def __repr__(self) -> str:
        return f"LocalEnvironment({self.root})"
