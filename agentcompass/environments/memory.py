"""``memory``: an in-process environment holding files in a dict. It cannot run commands.

For benchmarks that need no sandbox (the ``synthetic`` benchmark) and for measuring framework overhead.
"""

from __future__ import annotations

import itertools
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict

from agentcompass.errors import SandboxError
from agentcompass.interfaces import ComponentContext, EnvSpec, ExecResult

_ids = itertools.count(1)


class MemoryConfig(BaseModel):
    model_config = ConfigDict(extra="forbid")


class MemoryEnvironment:
    def __init__(self, spec: EnvSpec) -> None:
        self.id = f"memory-{next(_ids)}"
        self.workdir = spec.workdir
        self.files: dict[str, bytes] = {}

    def path(self, p: str) -> str:
        return p

    async def exec(self, cmd: str | list[str], *, timeout: float | None = None, cwd: str | None = None,
                   env: dict[str, str] | None = None) -> ExecResult:
        raise SandboxError("the memory environment cannot run commands; use environment=local or docker",
                           retryable=False)

    async def upload(self, src: Path, dst: str) -> None:
        for f in ([src] if src.is_file() else sorted(p for p in src.rglob("*") if p.is_file())):
            rel = "" if f == src else "/" + f.relative_to(src).as_posix()
            self.files[dst.rstrip("/") + rel] = f.read_bytes()

    async def download(self, src: str, dst: Path) -> None:
        dst.parent.mkdir(parents=True, exist_ok=True)
        dst.write_bytes(await self.read_file(src))

    async def read_file(self, path: str) -> bytes:
        if path not in self.files:
            raise SandboxError(f"{path}: no such file in memory environment {self.id}", retryable=False)
        return self.files[path]

    async def write_file(self, path: str, data: bytes | str, mode: int = 0o644) -> None:
        self.files[path] = data.encode() if isinstance(data, str) else data

    async def close(self) -> None:
        self.files.clear()

    def describe(self) -> dict[str, Any]:
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
