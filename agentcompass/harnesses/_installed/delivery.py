"""Where agent builds live on the host and how an environment sees them: once per machine, never per attempt.

Every build is unpacked under ``<data_dir>/agents/`` (:func:`cache_root`): ``npm/<package>/<version>/`` for an
npm package, ``node/<version>/<platform>/`` for a Node runtime. That directory is mounted read-only at
:data:`MOUNT_TARGET` into every environment of a harness that declares it (``env_mounts``): a bind mount in
docker and in a compose project's ``main`` service, a symbolic link in the local environment's workspace. So an
attempt costs no copy at all; a build missing from the cache is fetched on the host and appears in environments
already open (a bind mount shows the directory as it is now).

A build that is not in the cache is fetched only with ``auto_install_dependencies``; otherwise the error names
that flag and the command that fetches it ahead of time (``python -m agentcompass.harnesses._installed fetch``).
One fetch at a time per build, across threads and processes (a lock file), so concurrent attempts wait for the
first one instead of downloading it again.
"""

from __future__ import annotations

import asyncio
import fcntl
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from agentcompass.errors import DependencyError
from agentcompass.interfaces import Mount
from agentcompass.kit import slug

from . import registry
from .registry import BuildRecord

MOUNT_TARGET = "/opt/agentcompass/agents"
FETCH_COMMAND = "python -m agentcompass.harnesses._installed fetch"
_thread_locks: dict[str, threading.Lock] = {}
_guard = threading.Lock()


def cache_root(data_dir: Path) -> Path:
    return Path(data_dir).expanduser() / "agents"


def mount(data_dir: Path) -> Mount:
    """The read-only mount of the whole cache (made first, so docker does not create it as root-owned)."""
    root = cache_root(data_dir)
    root.mkdir(parents=True, exist_ok=True)
    return Mount(root.resolve(), MOUNT_TARGET, read_only=True)


@dataclass(frozen=True)
class Part:
    """One build to deliver: an npm package, or a wheel's files (the Node runtime)."""

    registry: str  # npm | pypi | debian
    name: str  # npm package or PyPI project
    version: str
    rel: str  # its directory under the cache root
    platform_tag: str = ""  # PyPI: the wheel's platform tag
    member_prefix: str = ""  # PyPI: the wheel's folder to unpack
    size: str = ""  # how large it is, for messages ("414 MB")
    executables: tuple[str, ...] = ()  # npm: files to make executable (glob patterns under the package)
    extra: dict[str, Callable[[Path], BuildRecord]] = field(
        default_factory=dict, compare=False
    )  # "build": dest -> record (a custom build)

    @property
    def label(self) -> str:
        sep = "@" if self.registry == "npm" else "=="
        tag = f" ({self.platform_tag})" if self.platform_tag else ""
        return f"{self.registry} {self.name}{sep}{self.version}{tag}"

    def host_dir(self, data_dir: Path) -> Path:
        return cache_root(data_dir) / self.rel

    def env_dir(self) -> str:
        """Its directory as an environment path (under the mount)."""
        return f"{MOUNT_TARGET}/{self.rel}"


def npm_part(name: str, version: str, size: str = "", executables: tuple[str, ...] = ()) -> Part:
    rel = f"npm/{slug(name.lstrip('@'), sep='+')}/{slug(version)}"
    return Part("npm", name, version, rel, size=size, executables=executables)


def is_cached(part: Part, data_dir: Path) -> bool:
    return registry.installed(part.host_dir(data_dir)) is not None


def missing_message(harness: str, part: Part, data_dir: Path, platform: str) -> str:
    size = f", {part.size}" if part.size else ""
    return (
        f"harness {harness} needs {part.label} for {platform}{size}, not yet in {cache_root(data_dir)}: pass "
        f"--auto-install-dependencies (SDK: auto_install_dependencies=True) to fetch it on this host, or run "
        f"`{FETCH_COMMAND} {harness} --platform {platform}`"
    )


def _fetch(part: Part, data_dir: Path) -> BuildRecord:
    dest = part.host_dir(data_dir)
    key = str(dest)
    with _guard:
        tlock = _thread_locks.setdefault(key, threading.Lock())
    lock_path = cache_root(data_dir) / ".locks" / (slug(part.rel, sep="+") + ".lock")
    lock_path.parent.mkdir(parents=True, exist_ok=True)
    with tlock, open(lock_path, "a") as fh:
        fcntl.flock(fh, fcntl.LOCK_EX)
        try:
            found = registry.installed(dest)
            if found is not None:
                return found
            if "build" in part.extra:  # a build made of several packages (a Python runtime, a wheel set)
                return part.extra["build"](dest)
            if part.registry == "npm":
                return registry.fetch_npm(part.name, part.version, dest, executables=part.executables)
            return registry.fetch_wheel(part.name, part.version, part.platform_tag, dest, part.member_prefix)
        finally:
            fcntl.flock(fh, fcntl.LOCK_UN)


def ensure_sync(part: Part, data_dir: Path, *, auto_install: bool, harness: str, platform: str) -> BuildRecord:
    """The record of ``part`` in the cache, fetched first when allowed (else DependencyError, one line)."""
    found = registry.installed(part.host_dir(data_dir))
    if found is not None:
        return found
    if not auto_install:
        raise DependencyError(missing_message(harness, part, data_dir, platform))
    return _fetch(part, data_dir)


async def ensure(
    parts: list[Part], data_dir: Path, *, auto_install: bool, harness: str, platform: str
) -> list[BuildRecord]:
    """:func:`ensure_sync` for each part, off the event loop when something must be fetched."""
    out: list[BuildRecord] = []
    for part in parts:
        found = registry.installed(part.host_dir(data_dir))
        if found is None:

            def call(p: Part = part) -> BuildRecord:
                return ensure_sync(p, data_dir, auto_install=auto_install, harness=harness, platform=platform)

            found = await asyncio.to_thread(call)
        out.append(found)
    return out
