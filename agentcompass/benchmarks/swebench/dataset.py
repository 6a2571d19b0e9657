"""Load SWE-bench-format datasets: parquet (hub layout or ``<split>.parquet``), JSONL, JSON list.

Where from, in order: ``dataset_path`` (a file or a directory); ``<data_dir>/swebench/<dataset_name>``;
else a download of the hub dataset into that directory through ``huggingface_hub`` (optional extra).
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any, cast

from agentcompass.errors import DatasetError, DependencyError
from agentcompass.kit import require

from .log_parsers import PARSER_REGISTRY
from .shapes import SweBenchInstance

REQUIRED_FIELDS = (
    "instance_id",
    "repo",
    "base_commit",
    "patch",
    "test_patch",
    "problem_statement",
    "hints_text",
    "created_at",
    "version",
    "FAIL_TO_PASS",
    "PASS_TO_PASS",
    "environment_setup_commit",
)
OPTIONAL_FIELDS = ("difficulty", "image", "eval_script", "log_parser", "eval_type", "image_assets")
EVAL_TYPES = ("pass_and_fail", "fail_only")


def layout_help(dataset_name: str, split: str, data_dir: Path) -> str:
    """How to provide a local copy (used in every 'not found' error)."""
    target = data_dir / "swebench" / dataset_name
    return (
        f"provide the dataset locally: set benchmark_params.dataset_path to a .parquet/.jsonl/.json file or "
        f"to a directory holding data/{split}-*.parquet (the hub layout), {split}.parquet, {split}.jsonl or "
        f"{split}.json; or put that directory at {target}"
    )


# --------------------------------------------------------------------------- files


def _read_parquet(paths: list[Path]) -> list[dict[str, object]]:
    pq = require("pyarrow.parquet", "swebench", purpose="reading parquet datasets")
    rows: list[dict[str, object]] = []
    for path in paths:
        try:
            rows.extend(pq.read_table(path).to_pylist())
        except Exception as exc:  # pyarrow raises several unrelated types for corrupt files
            raise DatasetError(f"{path}: cannot read parquet: {exc}") from exc
    return rows


def _read_arrow_dir(folder: Path) -> list[dict[str, object]]:
    """A ``datasets.save_to_disk`` split directory (arrow stream files)."""
    pa = require("pyarrow", "swebench", purpose="reading arrow datasets")
    rows: list[dict[str, object]] = []
    for path in sorted(folder.glob("*.arrow")):
        with pa.memory_map(str(path)) as source:
            rows.extend(pa.ipc.open_stream(source).read_all().to_pylist())
    return rows


def _read_jsonl(path: Path) -> list[dict[str, object]]:
    rows = []
    for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        try:
            rows.append(json.loads(line))
        except json.JSONDecodeError as exc:
            raise DatasetError(f"{path}: line {n} is not valid JSON: {exc.msg}") from None
    return rows


def _read_json(path: Path) -> list[dict[str, object]]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise DatasetError(f"{path}: not valid JSON: {exc.msg} (line {exc.lineno})") from None
    if isinstance(data, dict) and all(isinstance(v, dict) for v in data.values()):
        data = list(data.values())  # a dict keyed by instance_id
    if not isinstance(data, list):
        raise DatasetError(f"{path}: expected a JSON list of instances, got {type(data).__name__}")
    return data


def read_file(path: Path) -> list[dict[str, object]]:
    suffix = path.suffix.lower()
    if suffix == ".parquet":
        return _read_parquet([path])
    if suffix == ".jsonl":
        return _read_jsonl(path)
    if suffix == ".json":
        return _read_json(path)
    raise DatasetError(f"{path}: unsupported dataset file type {suffix!r}; use .parquet, .jsonl or .json")


def find_split(folder: Path, split: str) -> tuple[list[Path], Path | None]:
    """(data files, save_to_disk dir) for ``split`` inside ``folder``; both empty when none matches."""
    roots = [folder, *sorted((folder / "snapshots").glob("*"))] if (folder / "snapshots").is_dir() else [folder]
    for root in roots:
        for pattern in (f"data/{split}-*.parquet", f"{split}-*.parquet", f"{split}.parquet"):
            shards = sorted(root.glob(pattern))
            if shards:
                return shards, None
        for name in (f"{split}.jsonl", f"{split}.json"):
            if (root / name).is_file():
                return [root / name], None
        if (root / split / "dataset_info.json").is_file():
            return [], root / split
    return [], None


def read_source(path: Path, split: str) -> tuple[list[dict[str, object]], str]:
    """Rows of ``path`` (a file or a directory) and a label naming where they came from."""
    if path.is_file():
        return read_file(path), str(path)
    files, arrow_dir = find_split(path, split)
    if arrow_dir is not None:
        return _read_arrow_dir(arrow_dir), str(arrow_dir)
    if not files:
        raise DatasetError(
            f"{path}: no split {split!r} found (looked for data/{split}-*.parquet, "
            f"{split}.parquet, {split}.jsonl, {split}.json)"
        )
    if files[0].suffix == ".parquet":
        return _read_parquet(files), str(files[0].parent)
    return read_file(files[0]), str(files[0])


# --------------------------------------------------------------------------- download


def download(dataset_name: str, split: str, target: Path, revision: str | None = None) -> Path:
    """Fetch the hub dataset's ``split`` files into ``target`` (needs huggingface_hub and network)."""
    snapshot_download = require("huggingface_hub", "hub", purpose="downloading the dataset").snapshot_download
    if os.environ.get("HF_HUB_OFFLINE", "").lower() in ("1", "true", "yes"):
        raise DatasetError("HF_HUB_OFFLINE is set, so nothing can be downloaded")
    snapshot_download(
        repo_id=dataset_name,
        repo_type="dataset",
        revision=revision,
        local_dir=str(target),
        allow_patterns=[f"data/{split}-*", f"{split}.*", "*.md"],
    )
    return target


def _fetch_or_explain(
    dataset_name: str, split: str, data_dir: Path, allow_download: bool, revision: str | None = None
) -> Path:
    target = data_dir / "swebench" / dataset_name
    help_text = layout_help(dataset_name, split, data_dir)
    if not allow_download:
        raise DatasetError(
            f"SWE-bench dataset {dataset_name!r} not found locally and allow_download is false; {help_text}"
        )
    try:
        return download(dataset_name, split, target, revision)
    except DependencyError as exc:
        raise DatasetError(f"SWE-bench dataset {dataset_name!r} not found locally and {exc}; {help_text}") from None
    except Exception as exc:  # network, auth, missing repo: all end the same way for the user
        reason = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise DatasetError(
            f"SWE-bench dataset {dataset_name!r} not found locally and the download failed ({reason}); {help_text}"
        ) from None


def locate(
    dataset_path: str | None,
    dataset_name: str,
    split: str,
    data_dir: Path,
    allow_download: bool = True,
    revision: str | None = None,
) -> Path:
    """The file or directory to read: ``dataset_path``, else the data_dir copy, else a fresh download."""
    if dataset_path:
        path = Path(dataset_path).expanduser()
        if not path.exists():
            raise DatasetError(
                f"dataset_path {str(path)!r} does not exist; {layout_help(dataset_name, split, data_dir)}"
            )
        return path
    local = data_dir / "swebench" / dataset_name
    if local.is_dir() and (find_split(local, split)[0] or find_split(local, split)[1]):
        return local
    return _fetch_or_explain(dataset_name, split, data_dir, allow_download, revision)


# --------------------------------------------------------------------------- rows


def _test_list(value: Any, where: str, name: str) -> list[str]:
    if isinstance(value, str):
        try:
            value = json.loads(value) if value.strip() else []
        except json.JSONDecodeError:
            raise DatasetError(f"{where}: field {name} is not a JSON list: {value[:60]!r}") from None
    if hasattr(value, "tolist"):
        value = value.tolist()
    if not isinstance(value, list) or not all(isinstance(t, str) for t in value):
        raise DatasetError(f"{where}: field {name} must be a list of test ids (or its JSON string)")
    return value


def normalize_row(raw: object, source: str, index: int) -> SweBenchInstance:
    """Check the 12 classic fields, decode the test lists, keep ``version`` a string."""
    if not isinstance(raw, dict):
        raise DatasetError(f"{source}: row {index} is not an object")
    where = f"{source}: row {index} ({raw.get('instance_id', '?')})"
    missing = [f for f in REQUIRED_FIELDS if f not in raw]
    if missing:
        raise DatasetError(f"{where}: missing field {missing[0]!r} (required: {', '.join(REQUIRED_FIELDS)})")
    row = dict(raw)
    for name in REQUIRED_FIELDS:
        if name in ("FAIL_TO_PASS", "PASS_TO_PASS"):
            row[name] = _test_list(row[name], where, name)
        elif row[name] is None and name in ("hints_text", "created_at", "environment_setup_commit"):
            row[name] = ""
        elif not isinstance(row[name], str):
            row[name] = str(row[name])
    if not row["instance_id"]:
        raise DatasetError(f"{source}: row {index}: empty instance_id")
    parser = row.get("log_parser")
    if parser and parser not in PARSER_REGISTRY:
        raise DatasetError(
            f"{where}: log_parser={parser!r} is not supported; valid: {', '.join(sorted(PARSER_REGISTRY))}"
        )
    if row.get("eval_type") and row["eval_type"] not in EVAL_TYPES:
        raise DatasetError(f"{where}: eval_type={row['eval_type']!r}; valid: {', '.join(EVAL_TYPES)}")
    return cast(SweBenchInstance, row)  # every required field checked above


def load_instances(
    dataset_path: str | None,
    dataset_name: str,
    split: str,
    data_dir: Path,
    allow_download: bool = True,
    revision: str | None = None,
) -> list[SweBenchInstance]:
    """All instances of the split, validated, in file order. Duplicate ids are an error."""
    path = locate(dataset_path, dataset_name, split, data_dir, allow_download, revision)
    raw_rows, source = read_source(path, split)
    if not raw_rows:
        raise DatasetError(f"{source}: the dataset holds no instance (an empty file or split {split!r})")
    rows = [normalize_row(raw, source, i) for i, raw in enumerate(raw_rows, 1)]
    seen: set[str] = set()
    for row in rows:
        if row["instance_id"] in seen:
            raise DatasetError(f"{source}: duplicate instance_id {row['instance_id']!r}")
        seen.add(row["instance_id"])
    return rows
