"""The integrity scan of a run's samples (``agentcompass._integrity``): each attempt as it ends, its verdict and
flags written into its ``result.json`` (``integrity``, :func:`write_scanned_result`) and its sample's row
(``integrity``: verdict and detectors); when the run is finalised, every sample's final attempt that has no verdict
yet (a row of an earlier session, a scan that failed; resolved ones first, :func:`scan_rows`); and by
``agentcompass scan RUN_DIR``, every one again."""

from __future__ import annotations

import logging
from pathlib import Path
from typing import NotRequired

from typing_extensions import TypedDict

from agentcompass._integrity import scan_attempt, summary_of
from agentcompass.errors import ConfigError, StorageError

from ..record import (
    VERIFIER_LOG,
    AttemptRecord,
    IntegrityRecord,
    IntegrityVerdicts,
    JsonObject,
    ResultRow,
    Review,
    ReviewReport,
    RunStore,
    attempt_number,
    read_json,
    row_sample,
    upgrade_row,
)

log = logging.getLogger("agentcompass")


class Flagged(TypedDict):
    """A sample the scan did not find clean (``agentcompass scan``)."""

    task_id: str
    sample: int
    attempt_dir: str | None
    verdict: str
    resolved: bool | None
    flags: list[JsonObject]
    review: NotRequired[Review]  # its LLM review, once reviewed (``scan --review``)


class ScanReport(TypedDict):
    run_dir: str
    n_scanned: int
    verdicts: IntegrityVerdicts | dict[str, int]
    flagged: list[Flagged]
    review: NotRequired[ReviewReport]  # the LLM review's counts, usage and cost (``scan --review``)


def record_of(store: RunStore, row: ResultRow) -> AttemptRecord | None:
    """The record of a row's final attempt, found in this run directory (the row's ``attempt_dir`` may name the
    place the run was first written)."""
    n = attempt_number(row.get("attempt_dir") or "")
    return store.attempt(str(row["task_id"]), n, row_sample(row)) if n is not None else None


def scan_result(record: AttemptRecord, result: JsonObject, benchmark: str) -> IntegrityRecord:
    """The integrity verdict of one attempt from its ``result.json`` object ``result`` (as written, or about to
    be), its verifier log and its trajectories on disk; a review ``result`` already has is kept (the scan is
    deterministic: a rescan gives the same flags)."""
    try:
        verifier_log = record.file(VERIFIER_LOG).read_text(encoding="utf-8", errors="replace")
    except OSError:
        verifier_log = ""
    integrity = scan_attempt(record.dir, result, verifier_log, benchmark)
    review = (result.get("integrity") or {}).get("review")  # type: ignore[union-attr]
    if review is not None:
        integrity["review"] = review
    return integrity  # type: ignore[return-value]  # _integrity's verdict, as the record holds it


def scan_record(record: AttemptRecord, benchmark: str) -> IntegrityRecord | None:
    """Scan one attempt and write its ``integrity`` into its ``result.json``; None without a result."""
    result = record.read_result()
    if result is None:
        return None
    integrity = scan_result(record, result, benchmark)
    record.write_result({**result, "integrity": integrity})  # type: ignore[dict-item]
    return integrity


def write_scanned_result(record: AttemptRecord, result: JsonObject, benchmark: str) -> IntegrityRecord | None:
    """Write the ``result.json`` of an attempt that just ended with its integrity verdict (after the attempt's
    other files: in the run's writer). A scan that fails leaves the attempt unscanned (logged; the run's
    finalisation tries again): it never fails the attempt. Returns the verdict, None when unscanned."""
    integrity: IntegrityRecord | None = None
    try:
        integrity = scan_result(record, result, benchmark)
    except Exception as exc:
        log.warning("integrity scan of %s: %s", record.dir, exc)
    record.write_result({**result, "integrity": integrity} if integrity is not None else result)  # type: ignore[dict-item]
    return integrity


def scan_rows(store: RunStore, rows: list[ResultRow], benchmark: str, *, rescan: bool = False) -> int:
    """Scan the final attempt of every row that has no verdict yet (every row with ``rescan``), resolved ones
    first; set each row's ``integrity``. Returns how many attempts were scanned. An attempt that cannot be read
    or written is left unscanned (logged), never failing the run."""
    order = sorted(rows, key=lambda r: not r.get("resolved"))
    scanned = 0
    for row in order:
        if row.get("integrity") is not None and not rescan:
            continue
        record = record_of(store, row)
        try:
            integrity = scan_record(record, benchmark) if record is not None else None
        except (OSError, StorageError) as exc:  # the run's disk: no other attempt's verdict can be written either
            log.debug("integrity scan stopped at %s: %s", row.get("attempt_dir"), exc)
            break
        except Exception as exc:  # a scan never fails a run: the attempt stays unscanned
            log.warning("integrity scan of %s: %s", row.get("attempt_dir"), exc)
            continue
        if integrity is not None:
            row["integrity"] = summary_of(dict(integrity))  # type: ignore[typeddict-item]
            scanned += 1
    return scanned


def _benchmark_of(store: RunStore) -> str:
    summary = store.read_summary()
    return str(summary["metadata"].get("benchmark") or "") if summary and summary.get("metadata") else ""


def scan_run(run_dir: str | Path) -> ScanReport:
    """Scan every sample's final attempt of a run directory again: each ``result.json`` gets its ``integrity``,
    ``results.jsonl`` its rows' verdicts, and ``summary.json`` (when there is one) its integrity metrics and task
    rows. Returns ``{run_dir, n_scanned, verdicts, flagged: [{task_id, sample, attempt_dir, verdict, flags}]}``."""
    from .metrics import compute_metrics
    from .summary import build_summary

    store = RunStore.at(run_dir)
    if not store.results_path.exists():
        raise ConfigError(f"{store.run_dir}: no {store.results_path.name}; not a run directory, or nothing finished")
    rows = [upgrade_row(row) for row in store.finished_rows().values()]
    n = scan_rows(store, rows, _benchmark_of(store), rescan=True)
    store.rewrite_results(rows)
    summary = store.read_summary()
    if summary is not None:
        metrics = compute_metrics(rows)
        summary["metrics"] = {**summary.get("metrics", {}), **metrics}
        summary["summary"] = {**build_summary(rows), "not_run": (summary.get("summary") or {}).get("not_run", [])}
        store.write_summary(summary)
    return {
        "run_dir": str(store.run_dir),
        "n_scanned": n,
        "verdicts": compute_metrics(rows).get("integrity_verdicts", {}),
        "flagged": [_flagged(store, row) for row in rows if (row.get("integrity") or {}).get("verdict") != "clean"],
    }


def reviewed(flagged: list[Flagged]) -> list[Flagged]:
    """The flagged attempts of :func:`scan_run`'s report, each with its ``review`` as now recorded."""
    out: list[Flagged] = []
    for item in flagged:
        try:
            result = read_json(Path(item["attempt_dir"] or "") / "result.json")
        except (OSError, ValueError, TypeError, KeyError):
            result = None
        review = ((result if isinstance(result, dict) else {}).get("integrity") or {}).get("review")
        if review:
            item = item.copy()
            item["review"] = review
        out.append(item)
    return out


def _flagged(store: RunStore, row: ResultRow) -> Flagged:
    record = record_of(store, row)
    result = (record.read_result() if record is not None else None) or {}
    integrity: IntegrityRecord = result.get("integrity") or {}  # type: ignore[assignment]
    return {
        "task_id": row["task_id"],
        "sample": row_sample(row),
        "attempt_dir": str(record.dir) if record is not None else row.get("attempt_dir"),
        "verdict": integrity.get("verdict", "unscanned"),
        "resolved": row.get("resolved"),
        "flags": integrity.get("flags", []),
    }
