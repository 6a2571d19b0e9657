"""A Python agent's packages, installed on the host for a delivered interpreter (:mod:`.python`), with launchers.

``pip download --only-binary=:all: --platform manylinux_<glibc>_<machine> ... --python-version X.Y --implementation
cp PROJECT==VERSION`` resolves and fetches the wheel set for the target interpreter (pip checks every wheel against
the index's hash; wheels only, so nothing is built and no package's code runs), then ``pip install --target
<dir>/site --no-index`` installs exactly that set, into
``<data_dir>/agents/pyenv/<project>/<version>/<runtime>-<platform>/``.
The modules are compiled once with the delivered interpreter (the cache is mounted read-only, so the agent could not
write them), and each console script the agent is started by gets a launcher, ``bin/<name>``: a ``sh`` script
that runs the entry point on the delivered interpreter, found relative to the launcher itself (the same in every
environment, under the read-only mount or its link). The interpreter runs isolated (``-s -E``: no user site, no
``PYTHON*`` variables) and nothing like ``PYTHONPATH`` is exported, so a Python of the image, where there is one,
is never affected by the agent's packages.
"""

from __future__ import annotations

import configparser
import logging
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from agentcompass.errors import DependencyError
from agentcompass.kit import slug, write_json

from . import python, registry
from .delivery import Part
from .platform import Platform

log = logging.getLogger("agentcompass.harnesses.installed")
PIP_TIMEOUT_S = 1800.0
MAX_SDISTS = 5  # dependencies published only as source, built into wheels on the host
LAUNCHER = """#!/bin/sh
# {name}: {target} on CPython {version} (Debian {suite}), delivered read-only by agentcompass
d=$(CDPATH= cd -- "$(dirname -- "$0")/.." && pwd)
r="$d/{runtime}"
exec {argv} -c {code} "$d/site" "$@"
"""
# ``bin/python SCRIPT ARGS...``: a script run with the wheel set on the path (as a virtual environment's python would)
_RUN_SCRIPT = (
    "import os, runpy, sys; sys.path[0] = sys.argv.pop(1); sys.argv.pop(0); "
    "sys.path.insert(0, os.path.dirname(os.path.abspath(sys.argv[0]))); "
    "runpy.run_path(sys.argv[0], run_name='__main__')"
)
_CODE = (
    "import sys; sys.path[0] = sys.argv.pop(1); sys.argv[0] = {name!r}; from {module} import {func}; sys.exit({func}())"
)


def part(
    project: str,
    version: str,
    rt: python.Runtime,
    plat: Platform,
    scripts: tuple[str, ...],
    requirements: tuple[str, ...] = (),
    size: str = "",
) -> Part:
    """``project==version`` (and ``requirements``, more pinned packages installed with it) for runtime ``rt`` on
    ``plat``, with launchers for the console ``scripts`` and ``bin/python`` (runs a script file with the wheel set)."""
    where = f"{rt.suite}-{rt.version}-{plat.os}-{plat.arch}"
    rel = f"pyenv/{slug(project)}/{slug(version)}/{where}"
    reqs = (f"{project}=={version}", *requirements)
    extra = {"build": lambda dest: build(reqs, rt, plat.arch, scripts, Path(dest))}
    return Part("pypi", project, version, rel, python.wheel_platform(rt, plat.arch), size=size, extra=extra)


def bin_dir(part: Part) -> str:
    """The environment path of the launchers."""
    return f"{part.env_dir()}/bin"


def _entry_points(site: Path) -> dict[str, str]:
    found: dict[str, str] = {}
    for path in site.glob("*.dist-info/entry_points.txt"):
        parser = configparser.ConfigParser(delimiters=("=",), interpolation=None)
        parser.optionxform = str  # type: ignore[assignment,method-assign]
        parser.read(path)
        if parser.has_section("console_scripts"):
            found.update({k: v.strip() for k, v in parser.items("console_scripts")})
    return found


def _launcher(name: str, target: str, rt: python.Runtime, arch: str) -> str:
    module, _, func = target.partition(":")
    code = _RUN_SCRIPT if name == "python" else _CODE.format(name=name, module=module, func=func.split(".")[0].strip())
    runtime_rel = "../../../../" + python.rel(rt, Platform("linux", arch, "glibc"))
    argv = " ".join(f'"{a}"' if "$r" in a else shlex.quote(a) for a in python.invocation("$r", arch, rt))
    fields = {"name": name, "target": target, "version": rt.version, "suite": rt.suite, "runtime": runtime_rel}
    return LAUNCHER.format(**fields, argv=argv, code=shlex.quote(code))


def _pip(reqs: tuple[str, ...], rt: python.Runtime, arch: str, site: Path, what: str) -> None:
    """Resolve and download the wheel set for the target (``pip download`` honours ``--python-version`` in its
    resolution), then install exactly that set into ``site``."""
    target = [
        *(a for tag in python.wheel_platforms(rt, arch) for a in ("--platform", tag)),
        *("--python-version", rt.version, "--implementation", "cp", "--only-binary=:all:"),
        *("--disable-pip-version-check", "-q"),
    ]
    wheels = site.parent / "wheels"
    pip = [sys.executable, "-m", "pip"]
    for _ in range(MAX_SDISTS + 1):
        missing = _call([*pip, "download", *target, "--find-links", str(wheels), "-d", str(wheels), *reqs], what)
        if missing is None:
            break
        # a dependency published only as source: its wheel built on this host (a pure-Python one runs anywhere)
        _call([*pip, "wheel", "--no-deps", "--disable-pip-version-check", "-q", "-w", str(wheels), missing], what)
    install = ["install", "--target", str(site), "--no-compile", "--no-index", "--find-links", str(wheels)]
    _call([*pip, *install, "--ignore-requires-python", "--no-warn-script-location", *target, *reqs], what)
    shutil.rmtree(wheels, ignore_errors=True)


def _call(argv: list[str], what: str) -> str | None:
    """Run pip; the requirement it found no wheel for (``pip download``), None when it succeeded."""
    try:
        proc = subprocess.run(argv, capture_output=True, text=True, timeout=PIP_TIMEOUT_S, check=False)
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise DependencyError(f"{what}: pip {argv[3]} failed: {exc}") from None
    if proc.returncode != 0:
        found = re.search(r"No matching distribution found for (\S+)", proc.stderr)
        if argv[3] == "download" and found and "(from versions: none)" in proc.stderr:
            return found.group(1)
        tail = " | ".join((proc.stderr or proc.stdout).strip().splitlines()[-2:])
        raise DependencyError(f"{what}: pip {argv[3]} failed (exit {proc.returncode}): {tail}")
    return None


def _compile(site: Path, runtime_dir: Path, rt: python.Runtime, arch: str) -> None:
    """Byte-compile the packages with the delivered interpreter, when it runs on this host."""
    import platform as host

    if host.system() != "Linux" or {"x86_64": "x64", "aarch64": "arm64"}.get(host.machine()) != arch:
        return
    argv = [*python.invocation(str(runtime_dir), arch, rt), "-m", "compileall", "-q", "-j", "0", str(site)]
    subprocess.run(argv, capture_output=True, timeout=PIP_TIMEOUT_S, check=False)


def build(
    reqs: tuple[str, ...], rt: python.Runtime, arch: str, scripts: tuple[str, ...], dest: Path
) -> registry.BuildRecord:
    """Install ``reqs`` for the runtime into ``dest`` with launchers for ``scripts`` (a whole tree or nothing)."""
    what = f"PyPI {' '.join(reqs)} for CPython {rt.version} ({python.wheel_platform(rt, arch)})"
    dest.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix=f".{dest.name}.", dir=dest.parent) as tmp:
        tree = Path(tmp) / "tree"
        log.warning("installing %s into %s", what, dest)
        _pip(reqs, rt, arch, tree / "site", what)
        (tree / "site" / "bin").exists() and subprocess.run(["rm", "-rf", str(tree / "site" / "bin")], check=False)
        points = _entry_points(tree / "site")
        (tree / "bin").mkdir()
        points["python"] = "runpy:run_path"
        for name in (*scripts, "python"):
            if name not in points:
                raise DependencyError(f"{what}: no console script {name!r} among {sorted(points)}")
            launcher = tree / "bin" / name
            launcher.write_text(_launcher(name, points[name], rt, arch))
            launcher.chmod(0o755)
        _compile(tree / "site", dest.parents[3] / python.rel(rt, Platform("linux", arch, "glibc")), rt, arch)
        dists = sorted(p.name.removesuffix(".dist-info") for p in (tree / "site").glob("*.dist-info"))
        record: registry.BuildRecord = {"registry": "pypi", "name": reqs[0], "requirements": list(reqs)}
        record["runtime"] = rt.version
        record["platform"] = python.wheel_platform(rt, arch)
        record["distributions"] = dists
        record["scripts"] = list(scripts)
        write_json(tree / registry.RECORD, record)
        registry._place(tree, dest)
    return record
