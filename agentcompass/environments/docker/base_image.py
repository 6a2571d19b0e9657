"""The offline base image: Debian bookworm built with debootstrap and imported into the engine.

Used when the default base image (a public image, :data:`~.config.DEFAULT_BASE_IMAGE`) can be neither found
locally nor pulled, e.g. on a machine with no registry; also by ``agentcompass images build-base``. The root file
system is kept as a tarball under ``<data_dir>/base-images/`` (keyed by suite and package list), so building the
image again, under any tag, is only a ``docker import``. Building the root file system needs root and
``debootstrap`` (Debian's package of that name) and reaches the Debian mirror over HTTP.
"""

from __future__ import annotations

import fcntl
import hashlib
import logging
import os
import shutil
import subprocess
import tempfile
from pathlib import Path
from typing import Any

from agentcompass.errors import ImageError
from agentcompass.kit import replacing

log = logging.getLogger("agentcompass.environments.docker")

FALLBACK_IMAGE = "agentcompass/base:bookworm"
SUITE = "bookworm"
MIRROR = "http://deb.debian.org/debian"
# what the bundled tasks, the SWE-bench fixtures and the harnesses use inside the image
PACKAGES = ("python3", "python3-pytest", "git", "patch", "tmux", "procps", "ca-certificates")
CHANGES = ['CMD ["/bin/bash"]', "ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"]
DEBOOTSTRAP_TIMEOUT_S = 1800


def rootfs_path(data_dir: Path, suite: str = SUITE, packages: tuple[str, ...] = PACKAGES) -> Path:
    key = hashlib.sha256(f"{suite}|{','.join(sorted(packages))}".encode()).hexdigest()[:12]
    return Path(data_dir) / "base-images" / f"{suite}-{key}.tar"


def build_base_image(
    api: Any,
    tag: str,
    data_dir: Path,
    *,
    mirror: str = MIRROR,
    suite: str = SUITE,
    packages: tuple[str, ...] = PACKAGES,
    rebuild: bool = False,
    auto_install: bool = False,
) -> str:
    """Import the base image as ``tag`` (building its root file system first when it is not cached); blocking.
    One build at a time per cache file, across processes. With ``auto_install``, a missing debootstrap is
    installed with apt-get first. Returns ``tag``; raises ImageError saying why not."""
    tarball = rootfs_path(data_dir, suite, packages)
    tarball.parent.mkdir(parents=True, exist_ok=True)
    with open(tarball.with_suffix(".lock"), "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if rebuild or not tarball.is_file():
            _debootstrap_tarball(tarball, mirror, suite, packages, auto_install)
        repo, _, version = tag.rpartition(":") if ":" in tag.rsplit("/", 1)[-1] else (tag, "", "latest")
        try:
            api.import_image_from_file(str(tarball), repository=repo, tag=version, changes=CHANGES)
        except Exception as exc:
            raise ImageError(f"base image {tag}: docker import of {tarball} failed: {exc}") from exc
    log.info("imported base image %s from %s", tag, tarball)
    return tag


APT_TIMEOUT_S = 900


def _install_debootstrap() -> None:
    """``apt-get install debootstrap`` on this host (as root), or an ImageError saying why not."""
    if shutil.which("apt-get") is None:
        raise ImageError("base image: debootstrap is not installed and this host has no apt-get to install it with")
    log.warning("installing debootstrap with apt-get, to build the offline base image")
    env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
    for argv in (["apt-get", "update", "-qq"], ["apt-get", "install", "-y", "-qq", "debootstrap"]):
        try:
            proc = subprocess.run(argv, capture_output=True, text=True, timeout=APT_TIMEOUT_S, env=env, check=False)
        except subprocess.TimeoutExpired:
            raise ImageError(f"base image: {' '.join(argv[:2])} timed out after {APT_TIMEOUT_S}s") from None
        if proc.returncode != 0:
            tail = " | ".join((proc.stdout + proc.stderr).strip().splitlines()[-2:])
            raise ImageError(f"base image: {' '.join(argv[:2])} debootstrap failed ({proc.returncode}): {tail}")
    if shutil.which("debootstrap") is None:
        raise ImageError("base image: apt-get installed debootstrap, but it is not on PATH")


def _debootstrap_tarball(
    tarball: Path, mirror: str, suite: str, packages: tuple[str, ...], auto_install: bool = False
) -> None:
    how = "sudo agentcompass images build-base (needs root and Debian's debootstrap package)"
    if os.geteuid() != 0:
        raise ImageError(f"base image: building the {suite} root file system needs root; run: {how}")
    if shutil.which("debootstrap") is None:
        if not auto_install:
            raise ImageError(
                "base image: debootstrap is not installed; pass --auto-install-dependencies (SDK: "
                "auto_install_dependencies=True) to install it with apt-get and build the base image, or "
                f"apt-get install debootstrap, then: {how}"
            )
        _install_debootstrap()
    log.warning("building the %s base image with debootstrap from %s (a few minutes, once)", suite, mirror)
    with tempfile.TemporaryDirectory(prefix="agentcompass-rootfs-") as tmp:
        root = Path(tmp) / "root"
        cmd = ["debootstrap", "--variant=minbase", f"--include={','.join(packages)}", suite, str(root), mirror]
        try:
            proc = subprocess.run(cmd, capture_output=True, text=True, timeout=DEBOOTSTRAP_TIMEOUT_S, check=False)
        except subprocess.TimeoutExpired:
            raise ImageError(f"base image: debootstrap of {suite} timed out after {DEBOOTSTRAP_TIMEOUT_S}s") from None
        if proc.returncode != 0:
            tail = " | ".join((proc.stdout + proc.stderr).strip().splitlines()[-3:])
            raise ImageError(f"base image: debootstrap of {suite} from {mirror} failed ({proc.returncode}): {tail}")
        for junk in ("var/cache/apt/archives", "var/lib/apt/lists"):
            for entry in (root / junk).glob("*"):
                if entry.is_file():
                    entry.unlink()
        with replacing(tarball) as partial:
            packed = subprocess.run(
                ["tar", "-C", str(root), "-cf", str(partial), "."], capture_output=True, text=True, check=False
            )
            if packed.returncode != 0:
                raise ImageError(f"base image: cannot pack the root file system: {packed.stderr.strip()[-300:]}")
