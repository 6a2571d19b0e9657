"""A Python interpreter for agents written in Python, for environments that have none of their own.

Debian's own build of CPython, fetched on the host with ``apt-get download`` from Debian's archive (apt checks every
package against the suite's signed index), unpacked with ``dpkg-deb -x`` into
``<data_dir>/agents/python/<suite>-<version>/<platform>/`` together with the C library and every shared library the
interpreter and its standard-library modules load. The interpreter runs through that C library's own loader
(``ld-linux-*.so --library-path ...``), so it needs nothing from the image: not a Python, not a particular glibc
(a musl image should run it too; tested on Debian images only); the processes the agent starts (bash, git, the
task's programs) use the image's own libraries, since no ``LD_LIBRARY_PATH`` is set.

The host needs ``apt-get`` and ``dpkg-deb`` (Debian or Ubuntu) and Debian's archive keyring
(``/usr/share/keyrings/debian-archive-keyring.gpg``); apt runs with a private configuration (its own source list
and package lists in a temporary directory), so the host's own apt setup is neither read nor changed.
"""

from __future__ import annotations

import getpass
import hashlib
import logging
import re
import shutil
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path

from agentcompass.errors import DependencyError
from agentcompass.kit import write_json

from . import registry
from .delivery import Part
from .platform import Platform

log = logging.getLogger("agentcompass.harnesses.installed")
MIRROR = "http://deb.debian.org/debian"
KEYRING = "/usr/share/keyrings/debian-archive-keyring.gpg"
APT_TIMEOUT_S = 900.0
_DEB_ARCH = {"x64": "amd64", "arm64": "arm64"}
_TRIPLET = {"x64": "x86_64-linux-gnu", "arm64": "aarch64-linux-gnu"}
_LOADER = {"x64": "ld-linux-x86-64.so.2", "arm64": "ld-linux-aarch64.so.1"}
# what the interpreter's packages depend on but a Python does not need (tools, Perl, data a program never reads)
_SKIP = re.compile(
    r"^(dpkg|install-info|tar|perl|perl-base|perl-modules-.*|libperl.*|mailcap|mime-support|debconf|"
    r"readline-common|tzdata|base-files|.*-common)$"
)


@dataclass(frozen=True)
class Runtime:
    """One Debian suite's CPython: its version and the packages that make it up."""

    version: str  # 3.11
    suite: str  # bookworm
    glibc: str  # the suite's glibc, for the wheels' platform tag (manylinux_<glibc>)
    loader_dir: str  # where the suite's libc6 puts the loader: lib (bookworm) or usr/lib (merged /usr, trixie)
    packages: tuple[str, ...]  # the interpreter's packages; their dependencies come with them (:func:`_closure`)

    @property
    def python(self) -> str:
        return f"python{self.version}"


RUNTIMES = {
    "3.11": Runtime("3.11", "bookworm", "2_36", "lib", ("python3.11",)),
    "3.13": Runtime("3.13", "trixie", "2_41", "usr/lib", ("python3.13",)),
}


def runtime(version: str) -> Runtime:
    if version not in RUNTIMES:
        raise DependencyError(f"no Python runtime {version!r} is delivered; available: {', '.join(sorted(RUNTIMES))}")
    return RUNTIMES[version]


def rel(rt: Runtime, plat: Platform) -> str:
    """The runtime's directory under the cache root."""
    return f"python/{rt.suite}-{rt.version}/{plat.os}-{plat.arch}"


def part(rt: Runtime, plat: Platform) -> Part:
    if plat.os != "linux" or plat.arch not in _DEB_ARCH:
        raise DependencyError(f"no Python runtime is delivered for {plat.os}-{plat.arch}; Linux x64 and arm64 only")
    extra = {"build": lambda dest: build(rt, plat.arch, dest)}
    return Part("debian", rt.python, rt.suite, rel(rt, plat), size="about 55 MB", extra=extra)


def invocation(root: str, arch: str, rt: Runtime) -> list[str]:
    """The command that runs the interpreter unpacked at ``root`` (an environment path or a host path)."""
    triplet = _TRIPLET[arch]
    libs = f"{root}/lib/{triplet}:{root}/usr/lib/{triplet}"
    loader = f"{root}/{rt.loader_dir}/{triplet}/{_LOADER[arch]}"
    return [loader, "--library-path", libs, f"{root}/usr/bin/{rt.python}", "-s", "-E"]


def wheel_platform(rt: Runtime, arch: str) -> str:
    """The platform tag of the wheels that run on this runtime (its glibc's manylinux tag)."""
    return f"manylinux_{rt.glibc}_{'x86_64' if arch == 'x64' else 'aarch64'}"


def wheel_platforms(rt: Runtime, arch: str) -> list[str]:
    """Every platform tag of wheels that run on this runtime: manylinux_2_<n> from its glibc down to 2.17, and the
    older names of the same (pip takes them as given, without adding the older ones itself)."""
    machine = "x86_64" if arch == "x64" else "aarch64"
    newest = int(rt.glibc.split("_")[1])
    tags = [f"manylinux_2_{n}_{machine}" for n in range(newest, 16, -1)]
    legacy = [f"manylinux2014_{machine}"]
    if arch == "x64":
        legacy += [f"manylinux2010_{machine}", f"manylinux1_{machine}"]
    return [*tags, *legacy]


def _apt(argv: list[str], conf: Path, what: str, cwd: Path | None = None) -> str:
    # apt's own files in ``conf``; downloads run as this user (apt would switch to its _apt user, which cannot
    # write into a private directory)
    options = [
        *("-o", f"Dir::Etc::SourceList={conf / 'sources.list'}", "-o", "Dir::Etc::SourceParts=/nonexistent"),
        *("-o", f"Dir::State::Lists={conf / 'lists'}", "-o", f"Dir::Cache={conf / 'cache'}"),
        *("-o", "Dir::State::status=/dev/null", "-o", "Debug::NoLocking=1"),
        *("-o", f"APT::Sandbox::User={getpass.getuser()}"),
    ]
    try:
        proc = subprocess.run(
            [argv[0], *options, *argv[1:]], cwd=cwd or conf, capture_output=True, text=True, timeout=APT_TIMEOUT_S
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise DependencyError(f"{what}: {argv[0]} failed: {exc}") from None
    if proc.returncode != 0:
        tail = " | ".join((proc.stderr or proc.stdout).strip().splitlines()[-2:])
        raise DependencyError(f"{what}: `{' '.join(argv)}` failed (exit {proc.returncode}): {tail}")
    return proc.stdout


def _download(rt: Runtime, arch: str, into: Path, what: str) -> list[Path]:
    for tool in ("apt-get", "dpkg-deb"):
        if shutil.which(tool) is None:
            raise DependencyError(f"{what}: building it needs {tool} on this host (Debian or Ubuntu)")
    if not Path(KEYRING).is_file():
        raise DependencyError(f"{what}: building it needs Debian's archive keyring at {KEYRING}")
    conf = into / "apt"
    for sub in ("lists/partial", "cache/archives/partial", "debs"):
        (conf / sub).mkdir(parents=True, exist_ok=True)
    line = f"deb [arch={_DEB_ARCH[arch]} signed-by={KEYRING}] {MIRROR} {rt.suite} main\n"
    (conf / "sources.list").write_text(line)
    arch_opt = ["-o", f"APT::Architecture={_DEB_ARCH[arch]}"]
    _apt(["apt-get", *arch_opt, "update", "-q"], conf, what)
    debs = conf / "debs"
    _apt(["apt-get", *arch_opt, "download", *_closure(rt, arch_opt, conf, what)], conf, what, debs)
    return sorted(debs.glob("*.deb"))


def _closure(rt: Runtime, arch_opt: list[str], conf: Path, what: str) -> list[str]:
    """The interpreter's packages and, recursively, the packages they depend on (real ones; :data:`_SKIP` not)."""
    flags = ["--recurse", "--no-recommends", "--no-suggests", "--no-conflicts", "--no-breaks", "--no-replaces"]
    out = _apt(["apt-cache", *arch_opt, "depends", *flags, "--no-enhances", *rt.packages], conf, what)
    names = {line.strip() for line in out.splitlines() if line and not line.startswith((" ", "<"))}
    return sorted(n for n in names if not _SKIP.match(n))


def _check(tree: Path, rt: Runtime, arch: str, what: str) -> None:
    """Run the unpacked interpreter once on this host (when it is of the same architecture): every extension
    module the agents load must import."""
    import platform as host

    if host.system() != "Linux" or {"x86_64": "x64", "aarch64": "arm64"}.get(host.machine()) != arch:
        return
    code = "import ssl, sqlite3, ctypes, lzma, bz2, zlib, _decimal, uuid, json, asyncio, readline; print('ok')"
    proc = subprocess.run([*invocation(str(tree), arch, rt), "-c", code], capture_output=True, text=True, timeout=120)
    if proc.returncode != 0 or "ok" not in proc.stdout:
        raise DependencyError(f"{what}: the unpacked interpreter does not start: {proc.stderr.strip()[-300:]}")


def build(rt: Runtime, arch: str, dest: Path) -> registry.BuildRecord:
    """Fetch and unpack the runtime into ``dest`` (a whole, checked tree or nothing)."""
    what = f"CPython {rt.version} from Debian {rt.suite} ({_DEB_ARCH[arch]})"
    dest = Path(dest)
    dest.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix=f".{dest.name}.", dir=dest.parent) as tmp:
        log.warning("building %s into %s", what, dest)
        debs = _download(rt, arch, Path(tmp), what)
        tree = Path(tmp) / "tree"
        tree.mkdir()
        packages = []
        for deb in debs:
            subprocess.run(["dpkg-deb", "-x", str(deb), str(tree)], check=True, timeout=APT_TIMEOUT_S)
            packages.append({"file": deb.name, "sha256": hashlib.sha256(deb.read_bytes()).hexdigest()})
        _check(tree, rt, arch, what)
        record: registry.BuildRecord = {"registry": "debian", "name": rt.python, "version": rt.version}
        record["suite"] = rt.suite
        record["arch"] = _DEB_ARCH[arch]
        record["packages"] = packages
        write_json(tree / registry.RECORD, record)
        registry._place(tree, dest)
    return record
