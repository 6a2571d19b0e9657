"""The platform of an environment: operating system, CPU architecture, C library; which build of an agent runs there.

Read with one command inside the environment (:data:`PROBE`), once per image (docker) and once per host (local):
the result is kept in memory by :func:`probe`, so later attempts on the same image pay nothing for it.
"""

from __future__ import annotations

import asyncio
import os
import platform as _host
from dataclasses import dataclass
from typing import Any, TypedDict

from agentcompass.errors import DependencyError
from agentcompass.interfaces import ON_HOST

_ARCH = {"x86_64": "x64", "amd64": "x64", "aarch64": "arm64", "arm64": "arm64"}
# uname -m; the C library (musl when ldd says so, or its loader exists); glibc's version; AVX2; user id; home
PROBE = (
    "uname -s; uname -m; "
    "if (ldd --version 2>&1 | grep -qi musl) || ls /lib/ld-musl-* >/dev/null 2>&1 || [ -f /etc/alpine-release ]; "
    "then echo musl; else echo glibc; fi; "
    "(getconf GNU_LIBC_VERSION 2>/dev/null || echo none) | tail -n1; "
    "if grep -qw avx2 /proc/cpuinfo 2>/dev/null; then echo avx2; else echo no-avx2; fi; "
    'id -u; printf "%s\\n" "${HOME:-/root}"'
)


class PlatformRecord(TypedDict):
    """A :class:`Platform` as an attempt's agent info records it (``platform``)."""

    os: str
    arch: str
    libc: str
    glibc: str | None
    avx2: bool


@dataclass(frozen=True)
class Platform:
    os: str  # linux | darwin
    arch: str  # x64 | arm64
    libc: str  # glibc | musl
    glibc: tuple[int, int] | None = None  # glibc's version when libc is glibc
    avx2: bool = True
    uid: int = 0
    home: str = "/root"

    @property
    def npm(self) -> str:
        """npm's name for the platform: ``linux-x64``, ``linux-arm64-musl``, ``darwin-arm64``..."""
        return f"{self.os}-{self.arch}" + ("-musl" if self.libc == "musl" else "")

    def describe(self) -> PlatformRecord:
        glibc = ".".join(map(str, self.glibc)) if self.glibc else None
        return {"os": self.os, "arch": self.arch, "libc": self.libc, "glibc": glibc, "avx2": self.avx2}


def parse(text: str) -> Platform:
    """The :data:`PROBE` output as a Platform; DependencyError for a system no build exists for."""
    lines = [line.strip() for line in text.strip().splitlines()]
    if len(lines) < 7:
        raise DependencyError(f"cannot tell the environment's platform from {text.strip()!r}")
    system, machine, libc, glibc_text, avx, uid, home = lines[-7:]
    arch = _ARCH.get(machine.lower())
    if system.lower() not in ("linux", "darwin") or arch is None:
        raise DependencyError(
            f"the environment is {system} on {machine}; agent builds exist for Linux and macOS on x86_64 and aarch64"
        )
    glibc = None
    if libc == "glibc" and glibc_text.startswith("glibc "):
        major, _, minor = glibc_text.split()[1].partition(".")
        glibc = (int(major), int(minor.split(".")[0] or 0))
    return Platform(system.lower(), arch, libc, glibc, avx == "avx2", int(uid) if uid.isdigit() else 0, home or "/root")


def host() -> Platform:
    """This host's platform (the local environment's)."""
    system = _host.system().lower()
    arch = _ARCH.get(_host.machine().lower(), _host.machine().lower())
    name, version = _host.libc_ver()
    glibc = None
    if name == "glibc" and version:
        major, _, minor = version.partition(".")
        glibc = (int(major), int(minor.split(".")[0] or 0))
    libc = "glibc" if name == "glibc" or system != "linux" else "musl"
    try:
        with open("/proc/cpuinfo", encoding="utf-8", errors="replace") as fh:
            avx2 = " avx2" in fh.read()
    except OSError:
        avx2 = True
    return Platform(system, arch, libc, glibc, avx2, os.getuid(), os.path.expanduser("~"))


_KNOWN: dict[str, Platform] = {}
_LOCKS: dict[str, asyncio.Lock] = {}


def _key(env: Any) -> str | None:
    """What the platform of ``env`` depends on: its image (docker), this host (local); None: read every time."""
    if ON_HOST.of(env):
        return "host"
    image = (env.describe() or {}).get("image")  # describe() is part of the Environment protocol
    return f"image:{image}" if image else None


async def probe(env: Any) -> Platform:
    """The platform of ``env``: read once per image (or host) and remembered."""
    if ON_HOST.of(env):
        return _KNOWN.setdefault("host", host())
    key = _key(env)
    if key is not None and key in _KNOWN:
        return _KNOWN[key]
    lock = _LOCKS.setdefault(key or "", asyncio.Lock())
    async with lock:
        if key is not None and key in _KNOWN:
            return _KNOWN[key]
        result = await env.exec(["sh", "-c", PROBE], timeout=60)
        if result.exit_code != 0:
            raise DependencyError(f"cannot read the environment's platform (exit {result.exit_code}): {result.output}")
        found = parse(result.stdout)
        if key is not None:
            _KNOWN[key] = found
        return found
