"""Predictions files, read as SWE-bench's harness reads them: ``.jsonl`` (one record a line), ``.json`` (a list,
or a dict keyed by instance id whose values are the records), or ``gold`` (every selected row's own patch).

A record is ``{instance_id, model_name_or_path, model_patch}``; ``model_patch`` may be ``""`` or ``null`` (an
empty patch). Later records of the same instance replace earlier ones. A prediction for an instance the
dataset does not have is an error, as it is for the official harness.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from agentcompass.errors import ConfigError, DatasetError

from .shapes import Prediction, SweBenchInstance

GOLD = "gold"
FIELDS = ("instance_id", "model_name_or_path", "model_patch")


def _records(path: Path) -> list[Any]:
    text = path.read_text(encoding="utf-8")
    if path.suffix == ".jsonl":
        out = []
        for n, line in enumerate(text.splitlines(), 1):
            if line.strip():
                try:
                    out.append(json.loads(line))
                except json.JSONDecodeError as exc:
                    raise DatasetError(f"{path}: line {n} is not valid JSON: {exc.msg}") from None
        return out
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise DatasetError(f"{path}: not valid JSON: {exc.msg} (line {exc.lineno})") from None
    if isinstance(data, dict):
        data = list(data.values())
    if not isinstance(data, list):
        raise DatasetError(
            f"{path}: predictions must be a JSON list of records or a dict keyed by instance_id, "
            f"got {type(data).__name__}"
        )
    return data


def read_predictions(path_text: str) -> dict[str, Prediction]:
    """instance_id -> record, in file order."""
    path = Path(path_text).expanduser()
    if path.suffix not in (".json", ".jsonl"):
        raise ConfigError(f"benchmark_params.predictions_path={path_text!r}: must be a .jsonl or .json file, or 'gold'")
    if not path.is_file():
        raise ConfigError(f"benchmark_params.predictions_path={path_text!r}: no such file")
    preds: dict[str, Prediction] = {}
    for n, rec in enumerate(_records(path), 1):
        if not isinstance(rec, dict):
            raise DatasetError(f"{path}: prediction {n} is a {type(rec).__name__}, not an object")
        missing = [k for k in FIELDS if k not in rec]
        if missing:
            raise DatasetError(
                f"{path}: prediction {n} ({rec.get('instance_id', '?')}) has no {missing[0]!r} "
                f"(each record needs {', '.join(FIELDS)})"
            )
        if rec["model_patch"] is not None and not isinstance(rec["model_patch"], str):
            raise DatasetError(f"{path}: prediction {n} ({rec['instance_id']}): model_patch must be a string or null")
        preds[str(rec["instance_id"])] = {  # FIELDS, in its order
            "instance_id": rec["instance_id"],
            "model_name_or_path": rec["model_name_or_path"],
            "model_patch": rec["model_patch"],
        }
    return preds


def load_predictions(
    path_text: str, all_rows: list[SweBenchInstance], selected: list[SweBenchInstance]
) -> dict[str, Prediction]:
    """The predictions of ``path_text`` (or the gold patches of ``selected``), checked against ``all_rows``."""
    if path_text == GOLD:
        return {
            r["instance_id"]: {"instance_id": r["instance_id"], "model_name_or_path": GOLD, "model_patch": r["patch"]}
            for r in selected
        }
    preds = read_predictions(path_text)
    known = {r["instance_id"] for r in all_rows}
    unknown = [i for i in preds if i not in known]
    if unknown:
        shown = ", ".join(unknown[:5]) + (" ..." if len(unknown) > 5 else "")
        raise DatasetError(f"{path_text}: {len(unknown)} prediction id(s) not in the dataset: {shown}")
    return preds
