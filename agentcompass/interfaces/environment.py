"""Environments: the sandbox protocol, its provider and the values that cross it."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

# --------------------------------------------------------------------------- environments


@dataclass
class ExecResult:
    """Result of one command. ``exit_code`` is -1 when the command was killed by its timeout."""

    exit_code: int
    stdout: str = ""
    stderr: str = ""
    timed_out: bool = False
    duration_s: float = 0.0
    truncated: bool = False

    @property
    def output(self) -> str:
        """stdout followed by stderr (what a person at a terminal would have seen, roughly)."""
        if self.stderr and self.stdout:
            return self.stdout + ("" if self.stdout.endswith("\n") else "\n") + self.stderr
        return self.stdout or self.stderr


@dataclass(frozen=True)
class Mount:
    """A host directory seen inside the environment at ``target`` (an absolute environment path). Docker: a bind
    mount (read-only when ``read_only``); local: ``target`` in the workspace is a symbolic link to ``source``."""

    source: Path
    target: str
    read_only: bool = True


@dataclass
class EnvSpec:
    """What an environment provider needs to open one environment for one attempt."""

    task_id: str
    benchmark: str = ""
    image: str | None = None  # an image name to use (pulled if the policy allows)
    dockerfile_dir: Path | None = None  # or a build context holding a Dockerfile
    compose_file: Path | None = None  # a Docker Compose file: a project whose "main" service is the env
    build_args: dict[str, str] = field(default_factory=dict)  # e.g. BASE_IMAGE for the demo tasks
    workdir: str = "/app"
    cpus: float | None = None
    memory_mb: int | None = None
    env: dict[str, str] = field(default_factory=dict)
    network: str | None = None  # None: provider default; "bridge" | "none"
    build_timeout_s: float | None = None
    labels: dict[str, str] = field(default_factory=dict)  # agentcompass.run_id / request / task
    keep: bool = False  # keep_environment: close() leaves it in place
    mounts: list[Mount] = field(default_factory=list)  # host directories the environment sees (ENV_MOUNTS)
    # host paths the agent must not read (the benchmark's task directories: tests, solutions); an environment
    # whose commands run on this host hides them where it can (local: hide_host_paths)
    private_paths: list[Path] = field(default_factory=list)


@runtime_checkable
class Environment(Protocol):
    """One sandbox for one attempt. Paths are the environment's own absolute paths ("/app/x").

    Optional: ``async prepare(command, *, what, timeout=None)`` stages an idempotent shell command that runs before
    anything else runs in or reads from the environment (the docker environment runs it in the same exec as the
    next command); its failure fails that operation with a SandboxError naming ``what``. Callers fall back to
    ``exec`` where it is missing."""

    id: str  # container id, workspace path...
    workdir: str  # default cwd of exec, as an environment path

    def path(self, p: str) -> str:
        """The form of environment path ``p`` to use inside commands run by :meth:`exec`."""
        ...

    async def exec(
        self,
        cmd: str | list[str],
        *,
        timeout: float | None = None,
        cwd: str | None = None,
        env: dict[str, str] | None = None,
    ) -> ExecResult:
        """Run ``cmd`` (a string runs under ``bash -c``, a list is an argv) in ``cwd`` (default :attr:`workdir`)
        with ``env`` over the spec's variables. stdout and stderr come back separately, undecodable bytes as
        U+FFFD. On timeout the whole process tree is killed and the output so far is returned (``timed_out``,
        ``exit_code`` -1); a cancelled call kills its tree too.

        Raises: SandboxError when the environment is closed or cannot run commands. A command's own failure (a
        non-zero exit, a missing binary: 127, a missing ``cwd``) is an :class:`ExecResult`, never an exception."""
        ...

    async def upload(self, src: Path, dst: str) -> None:
        """Copy a host file or directory to environment path ``dst`` (created, parents included); a relative
        ``dst`` is under :attr:`workdir`. Contents, executable bits and (where the environment has them) symlinks
        are kept. An environment may deliver it with its next operation (docker: in the next command's exec) as
        long as every later operation on it sees the file; a failure to place it then fails that operation.

        Raises: FileNotFoundError (no ``src``), PathEscapeError (``dst`` would leave the environment's root),
        SandboxError."""
        ...

    async def download(self, src: str, dst: Path) -> None:
        """Copy an environment file or directory to host path ``dst``.

        Raises: FileNotFoundError (no ``src``), PathEscapeError (a member, or a symlink, leading out of ``src``:
        nothing is written outside ``dst`` and no host file is reached through a link), SandboxError."""
        ...

    async def read_file(self, path: str) -> bytes:
        """The bytes of environment file ``path``.

        Raises: FileNotFoundError, IsADirectoryError, PathEscapeError, SandboxError."""
        ...

    async def write_file(self, path: str, data: bytes | str, mode: int = 0o644) -> None:
        """Write ``data`` (str: UTF-8) to ``path`` with ``mode``, parents created.

        Raises: PathEscapeError, SandboxError."""
        ...

    async def close(self) -> None:
        """Destroy the environment (unless it was opened with ``keep``). Idempotent: a second call does nothing.
        Any later use raises SandboxError."""
        ...

    def describe(self) -> dict[str, Any]:
        """Where the environment is (recorded in the attempt's result, e.g. under keep_environment)."""
        ...


@runtime_checkable
class EnvironmentProvider(Protocol):
    """Opens environments. ``name`` is the provider key used by ``provider_limits`` / ``env_open_qps``.
    Optional: ``prebuild(spec)`` (:data:`PREBUILD`)."""

    name: str

    async def open(self, spec: EnvSpec) -> Environment:
        """A new environment for ``spec``.

        Raises: ImageError (an image that can be neither pulled nor built; not retried), ConfigError (a spec this
        provider cannot honour, e.g. a compose file on the host), SandboxError (retried)."""
        ...

    async def cleanup(self, run_id: str | None = None) -> int:
        """Remove environments left behind by killed runs (all agentcompass ones when run_id is None)."""
        ...

    async def aclose(self) -> None:
        """Release provider-wide resources at the end of a request."""
        ...
