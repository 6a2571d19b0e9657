"""``memory``: an in-process environment holding files in a dict. It cannot run commands.

For benchmarks that need no sandbox (the ``synthetic`` benchmark) and for measuring framework overhead. Paths
are normalized POSIX paths (relative ones under the workdir, ``..`` never climbs above ``/``); files keep their
mode; there are no symbolic links. It passes ``FileEnvironmentSuite`` (``agentcompass.testing.conformance``).
"""

from __future__ import annotations

import itertools
import posixpath
import stat
from pathlib import Path

from pydantic import BaseModel, ConfigDict

from agentcompass.errors import SandboxError
from agentcompass.interfaces import ComponentContext, EnvSpec, ExecResult

_ids = itertools.count(1)


class MemoryConfig(BaseModel):
    model_config = ConfigDict(extra="forbid")


class MemoryEnvironment:
    def __init__(self, spec: EnvSpec) -> None:
        self.id = f"memory-{next(_ids)}"
        self.workdir = "/" + (spec.workdir or "/").strip("/")
        self.files: dict[str, tuple[bytes, int]] = {}  # path -> (content, mode)
        self.dirs: set[str] = {"/", self.workdir}
        self._closed = False

    def path(self, p: str) -> str:
        text = p if p.startswith("/") else posixpath.join(self.workdir, p)
        return "/" + posixpath.normpath(text).lstrip("/")

    def _check_open(self) -> None:
        if self._closed:
            raise SandboxError(f"memory environment {self.id} is closed", retryable=False)

    def _is_dir(self, path: str) -> bool:
        return path in self.dirs or any(f.startswith(path.rstrip("/") + "/") for f in self.files)

    def _add_dirs(self, path: str) -> None:
        while path not in self.dirs:
            self.dirs.add(path)
            path = posixpath.dirname(path)

    def _put(self, path: str, data: bytes, mode: int) -> None:
        if self._is_dir(path):
            raise IsADirectoryError(f"{path} is a directory in memory environment {self.id}")
        self._add_dirs(posixpath.dirname(path))
        self.files[path] = (data, mode & 0o7777)

    async def exec(
        self,
        cmd: str | list[str],
        *,
        timeout: float | None = None,
        cwd: str | None = None,
        env: dict[str, str] | None = None,
    ) -> ExecResult:
        self._check_open()
        raise SandboxError(
            "the memory environment cannot run commands; use environment=local or docker", retryable=False
        )

    async def upload(self, src: Path, dst: str) -> None:
        self._check_open()
        src, dst = Path(src), self.path(dst)
        if not src.exists():
            raise FileNotFoundError(f"{src} does not exist")
        if src.is_file():
            self._put(dst, src.read_bytes(), stat.S_IMODE(src.stat().st_mode))
            return
        self._add_dirs(dst)
        for p in sorted(src.rglob("*")):
            target = posixpath.join(dst, p.relative_to(src).as_posix())
            if p.is_dir():
                self._add_dirs(target)
            else:
                self._put(target, p.read_bytes(), stat.S_IMODE(p.stat().st_mode))

    async def download(self, src: str, dst: Path) -> None:
        self._check_open()
        src, dst = self.path(src), Path(dst)
        if src in self.files:
            self._write_host(src, dst)
        elif self._is_dir(src):
            dst.mkdir(parents=True, exist_ok=True)
            prefix = src.rstrip("/") + "/"
            for d in sorted(d for d in self.dirs if d.startswith(prefix)):
                (dst / d[len(prefix) :]).mkdir(parents=True, exist_ok=True)
            for f in sorted(f for f in self.files if f.startswith(prefix)):
                self._write_host(f, dst / f[len(prefix) :])
        else:
            raise FileNotFoundError(f"{src}: no such file in memory environment {self.id}")

    def _write_host(self, path: str, target: Path) -> None:
        data, mode = self.files[path]
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)
        target.chmod(mode)

    async def read_file(self, path: str) -> bytes:
        self._check_open()
        path = self.path(path)
        if path in self.files:
            return self.files[path][0]
        if self._is_dir(path):
            raise IsADirectoryError(f"{path} is a directory in memory environment {self.id}")
        raise FileNotFoundError(f"{path}: no such file in memory environment {self.id}")

    async def write_file(self, path: str, data: bytes | str, mode: int = 0o644) -> None:
        self._check_open()
        self._put(self.path(path), data.encode() if isinstance(data, str) else data, mode)

    async def close(self) -> None:
        self._closed = True
        self.files.clear()
        self.dirs.clear()

    def describe(self) -> dict[str, str]:
        return {"provider": "memory", "id": self.id}


class MemoryProvider:
    name = "memory"
    config_class = MemoryConfig

    def __init__(self, config: MemoryConfig, ctx: ComponentContext) -> None:
        self.config = config

    async def open(self, spec: EnvSpec) -> MemoryEnvironment:
        return MemoryEnvironment(spec)

    async def cleanup(self, run_id: str | None = None) -> int:
        return 0

    async def aclose(self) -> None:
        return None
