"""Harbor's dataset registry (the ``registry.json`` format Harbor 0.26's ``JsonRegistryClient`` reads): a dataset
named ``NAME@VERSION`` resolved to its tasks, each fetched from its git URL at its pinned commit.

The file is a JSON list of datasets ``{name, version, description, tasks: [{name, git_url, git_commit_id, path}],
metrics}``. It is read from ``registry_path`` (a local file or mirror), else from ``registry_url`` (default:
``DEFAULT_REGISTRY_URL``, the ``registry.json`` at the root of Harbor's repository, which Harbor reads with
``--registry-url``); a fetched file is kept under ``<data_dir>/harbor/registry/`` and used when the URL cannot
be reached. ``NAME`` without a version picks the version as Harbor does: ``head``, else the highest PEP 440
version, else the last in lexical order.

Tasks: one checkout per (git URL, commit) through :func:`.source.fetch_checkout` (cached and checked under
``<data_dir>/terminal_bench/``), the task directories (``path`` in the repository; the task id is its last part,
as Harbor names it) copied into ``<data_dir>/harbor/datasets/<name>@<version>/``, which records what it holds in
``.agentcompass-registry.json`` and is reused while that record matches the registry's entry.
"""

from __future__ import annotations

import hashlib
import json
import shutil
import urllib.request
import uuid
from pathlib import Path, PurePosixPath

from agentcompass.errors import DatasetError
from agentcompass.kit import slug, write_atomic

from .shapes import RegistryDataset, RegistryRecord, RegistryTask
from .source import fetch_checkout

DEFAULT_REGISTRY_URL = "https://raw.githubusercontent.com/laude-institute/harbor/main/registry.json"
MARKER = ".agentcompass-registry.json"
FETCH_TIMEOUT_S = 60.0


def _parse(text: str, where: str) -> list[RegistryDataset]:
    try:
        data = json.loads(text)
    except ValueError as exc:
        raise DatasetError(f"{where}: not a Harbor registry file (invalid JSON: {exc})") from None
    if not isinstance(data, list) or not all(isinstance(d, dict) and "name" in d and "tasks" in d for d in data):
        raise DatasetError(f"{where}: not a Harbor registry file (a JSON list of {{name, version, tasks}} expected)")
    return data


def read_registry(registry_path: str | None, registry_url: str, data_dir: Path) -> tuple[list[RegistryDataset], str]:
    """The registry's datasets and where they were read from."""
    if registry_path:
        path = Path(registry_path).expanduser()
        if not path.is_file():
            raise DatasetError(f"registry_path {registry_path!r}: no such file")
        return _parse(path.read_text(encoding="utf-8"), str(path)), str(path)
    cached = data_dir / "harbor" / "registry" / f"{hashlib.sha256(registry_url.encode()).hexdigest()[:16]}.json"
    try:
        with urllib.request.urlopen(registry_url, timeout=FETCH_TIMEOUT_S) as resp:
            text = resp.read().decode("utf-8")
    except (OSError, ValueError) as exc:
        if cached.is_file():
            return _parse(cached.read_text(encoding="utf-8"), str(cached)), f"{registry_url} (cached copy)"
        raise DatasetError(
            f"cannot read the Harbor registry {registry_url} ({exc}); give a local copy with "
            f"benchmark_params.registry_path"
        ) from None
    datasets = _parse(text, registry_url)
    cached.parent.mkdir(parents=True, exist_ok=True)
    write_atomic(cached, text)
    return datasets, registry_url


def pick_version(versions: list[str]) -> str:
    """Harbor's choice when no version is given: ``head``, else the highest PEP 440 version, else lexically last."""
    from packaging.version import InvalidVersion, Version

    if "head" in versions:
        return "head"
    parsed = []
    for v in versions:
        try:
            parsed.append((Version(v), v))
        except InvalidVersion:
            pass
    return max(parsed)[1] if parsed else sorted(versions)[-1]


def resolve(datasets: list[RegistryDataset], ref: str, where: str) -> RegistryDataset:
    """The dataset ``NAME@VERSION`` (or ``NAME``: Harbor's version choice); unknown: one line listing the known."""
    name, _, version = ref.partition("@")
    by_name: dict[str, dict[str, RegistryDataset]] = {}
    for d in datasets:
        by_name.setdefault(str(d["name"]), {})[str(d.get("version"))] = d
    if name not in by_name:
        known = ", ".join(f"{n}@{v}" for n in sorted(by_name) for v in by_name[n]) or "(none)"
        raise DatasetError(f"dataset {name!r} is not in the Harbor registry {where}; known: {known}")
    versions = by_name[name]
    if not version:
        version = pick_version(list(versions))
    if version not in versions:
        raise DatasetError(
            f"dataset {name!r} has no version {version!r} in the Harbor registry {where}; "
            f"known versions: {', '.join(versions)}"
        )
    return versions[version]


def _task_dir_name(path: str | None) -> str:
    return PurePosixPath(str(path).replace("\\", "/")).name


def _record(spec: RegistryDataset) -> RegistryRecord:
    tasks: list[RegistryTask] = [
        {
            "name": t.get("name"),
            "git_url": t.get("git_url"),
            "git_commit_id": t.get("git_commit_id"),
            "path": t.get("path"),
        }
        for t in spec["tasks"]
    ]
    return {"name": spec["name"], "version": spec.get("version"), "tasks": tasks}


def _reusable(target: Path, record: RegistryRecord) -> bool:
    try:
        held = json.loads((target / MARKER).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    names = [_task_dir_name(t["path"]) for t in record["tasks"]]
    return held.get("dataset") == record and all((target / n).is_dir() for n in names)


def _source_dir(task: RegistryTask, data_dir: Path, timeout_s: float, commits: dict[str, str]) -> Path:
    url, commit = task.get("git_url"), task.get("git_commit_id")
    if not url:  # a local task of a local registry
        local = Path(str(task["path"])).expanduser()
        if not local.is_dir():
            raise DatasetError(f"registry task {task.get('name')!r}: local path {str(local)!r} is not a directory")
        return local
    checkout = fetch_checkout(url, commit or "HEAD", data_dir, timeout_s=timeout_s)
    commits[f"{url}@{commit or 'HEAD'}"] = checkout.commit
    folder = checkout.path / str(task["path"]).strip("/")
    if not folder.is_dir():
        raise DatasetError(
            f"registry task {task.get('name')!r}: {task['path']!r} is not a folder of {url} at {commit or 'HEAD'}"
        )
    return folder


def materialize(spec: RegistryDataset, data_dir: Path, *, timeout_s: float = 1800.0) -> Path:
    """The dataset's task directories under ``<data_dir>/harbor/datasets/<name>@<version>`` (reused when whole)."""
    record = _record(spec)
    ref = f"{spec['name']}@{spec.get('version')}"
    target = data_dir / "harbor" / "datasets" / slug(ref, keep="A-Za-z0-9_.@-", sep="_", default="dataset")
    if _reusable(target, record):
        return target
    names = [_task_dir_name(t["path"]) for t in record["tasks"]]
    dupes = sorted({n for n in names if names.count(n) > 1})
    if dupes:
        raise DatasetError(f"dataset {ref}: two tasks share the directory name {dupes[0]!r}")
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = target.with_name(f".{target.name}.tmp-{uuid.uuid4().hex[:8]}")
    commits: dict[str, str] = {}
    try:
        for task, name in zip(record["tasks"], names, strict=True):
            shutil.copytree(_source_dir(task, data_dir, timeout_s, commits), tmp / name, symlinks=True)
        tmp.mkdir(exist_ok=True)
        write_atomic(tmp / MARKER, json.dumps({"dataset": record, "commits": commits}, indent=1) + "\n")
        shutil.rmtree(target, ignore_errors=True)
        tmp.rename(target)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return target


def dataset_root(ref: str, registry_path: str | None, registry_url: str, data_dir: Path, timeout_s: float) -> Path:
    """The folder of dataset ``ref`` (``NAME@VERSION``) of the Harbor registry, fetched when needed."""
    datasets, where = read_registry(registry_path, registry_url, data_dir)
    return materialize(resolve(datasets, ref, where), data_dir, timeout_s=timeout_s)
