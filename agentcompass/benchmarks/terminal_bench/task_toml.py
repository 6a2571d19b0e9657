"""``task.toml`` of a Terminal-Bench 2 / Harbor task, in the published and the normalized form.

Published (TB2): ``version = "1.0"``, ``[metadata]``, ``[verifier] timeout_sec``, ``[agent] timeout_sec``,
``[environment]`` with ``build_timeout_sec``, ``docker_image``, ``cpus``, ``memory = "2G"``, ``storage = "10G"``.
Normalized (Harbor registry): ``schema_version``, a ``[task]`` table, integer ``memory_mb`` / ``storage_mb``,
``gpus``, ``allow_internet`` or ``network_mode`` (``public | no-network | allowlist``), ``workdir`` and
``[verifier.env]`` / ``[environment.env]`` / ``[solution.env]`` / ``[agent.env]`` tables.

Sizes accept G/M/K suffixes (binary; ``Gi``, ``GB``... too) or a bare integer meaning MB. ``memory`` and
``memory_mb`` (likewise ``storage``/``storage_mb``) may both appear only when they agree. Unknown keys are kept in
:attr:`TaskSpec.extra` and never rejected. Every error is a :class:`~agentcompass.errors.DatasetError` naming the
file and the field.
"""

from __future__ import annotations

import math
import re
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from agentcompass.errors import DatasetError

DEFAULT_AGENT_TIMEOUT_S = 600.0
DEFAULT_VERIFIER_TIMEOUT_S = 600.0
DEFAULT_BUILD_TIMEOUT_S = 600.0
NETWORK_MODES = ("public", "no-network", "allowlist")

_KNOWN = {
    "": {"version", "schema_version", "metadata", "task", "verifier", "agent", "environment", "solution"},
    "verifier": {"timeout_sec", "env"},
    "agent": {"timeout_sec", "env"},
    "solution": {"env"},
    "environment": {
        "build_timeout_sec",
        "docker_image",
        "cpus",
        "memory",
        "memory_mb",
        "storage",
        "storage_mb",
        "gpus",
        "allow_internet",
        "network_mode",
        "workdir",
        "env",
    },
}
_UNITS = {
    "K": 1 / 1024,
    "KB": 1 / 1024,
    "KI": 1 / 1024,
    "KIB": 1 / 1024,
    "M": 1,
    "MB": 1,
    "MI": 1,
    "MIB": 1,
    "G": 1024,
    "GB": 1024,
    "GI": 1024,
    "GIB": 1024,
    "T": 1024**2,
    "TB": 1024**2,
    "TI": 1024**2,
    "TIB": 1024**2,
}
_SIZE_RE = re.compile(r"^\s*([0-9]+(?:\.[0-9]+)?)\s*([A-Za-z]*)\s*$")


@dataclass
class TaskSpec:
    """The typed content of one ``task.toml``."""

    path: Path
    schema_version: str | None = None
    name: str | None = None
    description: str | None = None
    metadata: dict[str, Any] = field(default_factory=dict)
    agent_timeout_s: float = DEFAULT_AGENT_TIMEOUT_S
    verifier_timeout_s: float = DEFAULT_VERIFIER_TIMEOUT_S
    build_timeout_s: float = DEFAULT_BUILD_TIMEOUT_S
    docker_image: str | None = None
    cpus: float | None = None
    memory_mb: int | None = None
    storage_mb: int | None = None
    gpus: int | None = None
    allow_internet: bool | None = None
    network_mode: str | None = None
    workdir: str | None = None
    verifier_env: dict[str, str] = field(default_factory=dict)
    agent_env: dict[str, str] = field(default_factory=dict)
    environment_env: dict[str, str] = field(default_factory=dict)
    solution_env: dict[str, str] = field(default_factory=dict)
    extra: dict[str, object] = field(default_factory=dict)

    @property
    def network(self) -> str | None:
        """``"none"`` when the task forbids the network, ``"bridge"`` when it asks for it, else None."""
        if self.network_mode == "no-network" or self.allow_internet is False:
            return "none"
        if self.network_mode in ("public", "allowlist") or self.allow_internet:
            return "bridge"
        return None


def parse_size_mb(value: Any, where: str) -> int:
    """``"2G"`` -> 2048, ``"512M"`` -> 512, ``"1024K"`` -> 1, ``2048`` (a bare integer) -> 2048 MB."""
    if isinstance(value, bool):
        raise DatasetError(f'{where}={value!r}: expected a size such as "2G", "512M" or an integer of MB')
    if isinstance(value, (int, float)):
        if value < 0 or not math.isfinite(value):
            raise DatasetError(f"{where}={value!r}: a size must be a non-negative number of MB")
        return int(value)
    match = _SIZE_RE.match(str(value))
    unit = match.group(2).upper() if match else ""
    if not match or unit not in _UNITS:
        raise DatasetError(f'{where}={value!r}: expected a size such as "2G", "512M" or "1024K"')
    return int(float(match.group(1)) * _UNITS[unit])


def _number(table: dict[str, object], key: str, where: str, *, integer: bool = False) -> Any:
    value = table.get(key)
    if value is None:
        return None
    if (
        isinstance(value, bool)
        or not isinstance(value, (int, float))
        or not (math.isfinite(value) and value >= 0)
        or (integer and int(value) != value)
    ):
        kind = "a non-negative integer" if integer else "a non-negative number"
        raise DatasetError(f"{where}.{key}={value!r}: expected {kind}")
    return int(value) if integer else float(value)


def _string(table: dict[str, object], key: str, where: str) -> str | None:
    value = table.get(key)
    if value is not None and not isinstance(value, str):
        raise DatasetError(f"{where}.{key}={value!r}: expected a string")
    return value


def _env(table: dict[str, object], where: str) -> dict[str, str]:
    value = table.get("env", {})
    if not isinstance(value, dict):
        raise DatasetError(f'{where}.env={value!r}: expected a table of NAME = "value"')
    out: dict[str, str] = {}
    for key, item in value.items():
        if isinstance(item, (dict, list)):
            raise DatasetError(f"{where}.env.{key}: expected a string, got {type(item).__name__}")
        out[str(key)] = str(item).lower() if isinstance(item, bool) else str(item)
    return out


def _table(data: dict[str, object], key: str, where: str) -> dict[str, object]:
    value = data.get(key, {})
    if not isinstance(value, dict):
        raise DatasetError(f"{where}: [{key}] must be a table, got {type(value).__name__}")
    return value


def _size(env: dict[str, object], legacy: str, current: str, where: str) -> int | None:
    old = parse_size_mb(env[legacy], f"{where}.{legacy}") if env.get(legacy) is not None else None
    new = _number(env, current, where, integer=True)
    if old is not None and new is not None and old != new:
        raise DatasetError(
            f"{where}: {legacy}={env[legacy]!r} ({old} MB) conflicts with {current}={new}; give only one of them"
        )
    return new if new is not None else old


def _network(env: dict[str, object], where: str) -> tuple[bool | None, str | None]:
    allow = env.get("allow_internet")
    if allow is not None and not isinstance(allow, bool):
        raise DatasetError(f"{where}.allow_internet={allow!r}: expected true or false")
    mode = _string(env, "network_mode", where)
    if mode is not None and mode not in NETWORK_MODES:
        raise DatasetError(f"{where}.network_mode={mode!r}: expected one of {', '.join(NETWORK_MODES)}")
    if mode is not None and allow is not None and (mode == "no-network") == allow:
        raise DatasetError(f"{where}: allow_internet={str(allow).lower()} conflicts with network_mode={mode!r}")
    return allow, mode


def _unknown(data: dict[str, object]) -> dict[str, object]:
    extra = {k: v for k, v in data.items() if k not in _KNOWN[""]}
    for section in ("verifier", "agent", "solution", "environment"):
        table = data.get(section)
        if isinstance(table, dict):
            extra.update({f"{section}.{k}": v for k, v in table.items() if k not in _KNOWN[section]})
    return extra


def parse_task_toml(path: Path) -> TaskSpec:
    """Read and check one ``task.toml``; a DatasetError names the file and the field."""
    try:
        data = tomllib.loads(Path(path).read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise DatasetError(f"{path}: file not found") from None
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise DatasetError(f"{path}: not valid TOML: {exc}") from None
    return spec_from_dict(data, Path(path))


def spec_from_dict(data: dict[str, object], path: Path) -> TaskSpec:
    """Build a :class:`TaskSpec` from parsed TOML (``path`` is only used in messages)."""
    w = str(path)
    task, ver, agent, sol = (_table(data, k, w) for k in ("task", "verifier", "agent", "solution"))
    env, meta = _table(data, "environment", w), _table(data, "metadata", w)
    version = data.get("schema_version", data.get("version"))
    allow, mode = _network(env, f"{w}: environment")
    spec = TaskSpec(
        path=path,
        schema_version=None if version is None else str(version),
        name=_string(task, "name", f"{w}: task"),
        description=_string(task, "description", f"{w}: task"),
        metadata={**meta, **{k: v for k, v in task.items() if k not in ("name", "description")}},
        docker_image=_string(env, "docker_image", f"{w}: environment"),
        cpus=_number(env, "cpus", f"{w}: environment"),
        memory_mb=_size(env, "memory", "memory_mb", f"{w}: environment"),
        storage_mb=_size(env, "storage", "storage_mb", f"{w}: environment"),
        gpus=_number(env, "gpus", f"{w}: environment", integer=True),
        allow_internet=allow,
        network_mode=mode,
        workdir=_string(env, "workdir", f"{w}: environment"),
        verifier_env=_env(ver, f"{w}: verifier"),
        agent_env=_env(agent, f"{w}: agent"),
        environment_env=_env(env, f"{w}: environment"),
        solution_env=_env(sol, f"{w}: solution"),
        extra=_unknown(data),
    )
    for attr, table, key, where in (
        ("agent_timeout_s", agent, "timeout_sec", "agent"),
        ("verifier_timeout_s", ver, "timeout_sec", "verifier"),
        ("build_timeout_s", env, "build_timeout_sec", "environment"),
    ):
        value = _number(table, key, f"{w}: {where}")
        if value is not None:
            if value <= 0:
                raise DatasetError(f"{w}: {where}.{key}={value!r}: expected a positive number of seconds")
            setattr(spec, attr, value)
    if spec.workdir is not None and not spec.workdir.startswith("/"):
        raise DatasetError(f"{w}: environment.workdir={spec.workdir!r}: expected an absolute path")
    return spec
