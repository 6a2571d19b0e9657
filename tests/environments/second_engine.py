"""A second Docker engine of a test's own: its socket, data root, exec root, pid file, its own bridge interface and
no iptables rules, so that killing and restarting it touches nothing else on the machine (the main engine every
test shares above all).

Never ``--bridge=none``: a dockerd started with it deletes the interface ``docker0`` at start-up (moby's
``removeDefaultBridgeInterface``), which is the main engine's bridge. The bridge here is an interface this module
makes (``acbr<6 hex>``, an unused private /24) and removes.

Its one image, ``ac-mini:1``, is made from this host's own ``bash``, ``sh``, coreutils and ``tar`` with the
libraries they load (``ldd``): a few megabytes, imported with ``docker import``; no registry and no copy of a
large image.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import time
import uuid
from pathlib import Path

IMAGE = "ac-mini:1"
TOOLS = ["bash", "sh", "sleep", "cat", "mkdir", "rm", "cp", "mv", "ls", "chmod", "touch", "env", "tar", "true"]
TOOLS += ["head", "tail", "tr", "grep", "kill", "date", "gzip", "sed", "dirname", "basename", "printf", "test"]


def _libraries(binary: str) -> list[str]:
    out = subprocess.run(["ldd", binary], capture_output=True, text=True).stdout
    found = []
    for line in out.splitlines():
        parts = line.split("=>")[-1].strip().split()
        if parts and parts[0].startswith("/"):
            found.append(parts[0])
    return found


def mini_rootfs(root: Path) -> Path:
    """A root file system with the tools a task of the tests needs (and the libraries they load)."""
    for d in ("bin", "usr/bin", "tmp", "app", "logs/agent", "logs/verifier", "etc", "proc", "sys", "dev"):
        (root / d).mkdir(parents=True, exist_ok=True)
    files: set[str] = set()
    for tool in TOOLS:
        path = shutil.which(tool)
        if path is None:
            continue
        real = os.path.realpath(path)
        files.update([real, *_libraries(real)])
        for name in {path, f"/bin/{tool}", f"/usr/bin/{tool}"}:
            target = root / name.lstrip("/")
            if not target.exists():
                target.parent.mkdir(parents=True, exist_ok=True)
                shutil.copy2(real, target)
    for f in files:
        target = root / f.lstrip("/")
        target.parent.mkdir(parents=True, exist_ok=True)
        if not target.exists():
            shutil.copy2(f, target)
    (root / "etc" / "passwd").write_text("root:x:0:0:root:/root:/bin/sh\n")
    (root / "tmp").chmod(0o1777)
    return root


class SecondEngine:
    """``dockerd`` on ``<dir>/docker.sock`` with everything of its own under ``dir``."""

    def __init__(self, directory: Path) -> None:
        self.dir = directory
        self.sock = directory / "docker.sock"
        self.host = f"unix://{self.sock}"
        self.proc: subprocess.Popen | None = None
        self.log = directory / "dockerd.log"
        self.bridge = "acbr" + uuid.uuid4().hex[:6]
        self._bridge_made = False

    def _make_bridge(self) -> None:
        if self._bridge_made:
            return
        used = subprocess.run(["ip", "-4", "route"], capture_output=True, text=True).stdout
        third = next(n for n in range(17, 250) if f"10.253.{n}." not in used)
        for args in (
            ["link", "add", self.bridge, "type", "bridge"],
            ["addr", "add", f"10.253.{third}.1/24", "dev", self.bridge],
            ["link", "set", self.bridge, "up"],
        ):
            subprocess.run(["ip", *args], check=True, capture_output=True)
        self._bridge_made = True

    def _remove_bridge(self) -> None:
        if self._bridge_made:
            subprocess.run(["ip", "link", "del", self.bridge], capture_output=True)
            self._bridge_made = False

    def argv(self) -> list[str]:
        d = self.dir
        return [
            "dockerd",
            f"--host={self.host}",
            f"--data-root={d / 'data'}",
            f"--exec-root={d / 'exec'}",
            f"--pidfile={d / 'docker.pid'}",
            f"--bridge={self.bridge}",
            "--iptables=false",
            "--ip-masq=false",
            "--storage-driver=overlay2",
            "--log-level=warn",
        ]

    def env(self) -> dict[str, str]:
        return {**os.environ, "DOCKER_HOST": self.host}

    def docker(self, *args: str, **kw) -> subprocess.CompletedProcess:
        return subprocess.run(["docker", "-H", self.host, *args], capture_output=True, text=True, **kw)

    def start(self, timeout: float = 120.0) -> None:
        self._make_bridge()
        with open(self.log, "ab") as log:
            self.proc = subprocess.Popen(self.argv(), stdout=log, stderr=log, start_new_session=True)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"dockerd exited {self.proc.returncode}: {self.log.read_text()[-2000:]}")
            if self.sock.exists() and self.docker("version", "--format", "{{.Server.Version}}").returncode == 0:
                return
            time.sleep(0.2)
        raise RuntimeError(f"dockerd did not answer in {timeout:.0f} s: {self.log.read_text()[-2000:]}")

    def kill(self) -> None:
        """SIGKILL the engine (its containers' shims and its containerd stay, as after a crash)."""
        assert self.proc is not None
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait()

    def load_mini_image(self, scratch: Path) -> None:
        rootfs = mini_rootfs(scratch / "rootfs")
        tar = subprocess.Popen(["tar", "-C", str(rootfs), "-c", "."], stdout=subprocess.PIPE)
        done = subprocess.run(
            ["docker", "-H", self.host, "import", "-", IMAGE], stdin=tar.stdout, capture_output=True, text=True
        )
        tar.wait()
        if done.returncode != 0:
            raise RuntimeError(f"docker import failed: {done.stderr}")

    def containers(self, *filters: str) -> list[str]:
        args = ["ps", "-aq", "--no-trunc", *(f"--filter={f}" for f in filters)]
        return self.docker(*args).stdout.split()

    def stop(self) -> None:
        """Stop the engine (and the containerd it started), unmount what it left, remove its directory."""
        if self.proc is not None and self.proc.poll() is None:
            for c in self.containers():
                self.docker("rm", "-f", c, timeout=60)
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(60)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self._end_containerd()
        for mount in reversed(_mounts_under(self.dir)):
            subprocess.run(["umount", "-l", mount], capture_output=True)
        shutil.rmtree(self.dir, ignore_errors=True)
        self._remove_bridge()

    def _end_containerd(self) -> None:
        """The containerd (and container shims) of this engine only: found by their use of its exec root."""
        exec_root = str(self.dir / "exec")
        for pid in _pids():
            try:
                cmd = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
            except OSError:
                continue
            if exec_root in cmd:
                try:
                    os.kill(pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass


def has_link(name: str) -> bool:
    return subprocess.run(["ip", "link", "show", name], capture_output=True).returncode == 0


def _pids() -> list[int]:
    return [int(p) for p in os.listdir("/proc") if p.isdigit()]


def _mounts_under(root: Path) -> list[str]:
    prefix = str(root) + "/"
    with open("/proc/self/mounts") as f:
        return [line.split()[1] for line in f if line.split()[1].startswith(prefix)]
