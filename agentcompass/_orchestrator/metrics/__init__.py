"""What a run's results say: per-sample rows and the run metrics (:mod:`.metrics`), their cost fields and the
model roles' usage (:mod:`.costs`), the ``summary`` section and the CLI's table (:mod:`.summary`), and the integrity
scan of a run's samples (:mod:`.integrity`, whose verdicts the metrics count).

Pure computation over the record: it imports :mod:`..record` (the shapes it reads and, for the integrity scan, the
run directory it writes verdicts into) and nothing of :mod:`..scheduling`. Others import the names below from this
package, never its modules; they are imported on first use (PEP 562).
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # explicit re-exports, for the type checker
    from .integrity import ScanReport as ScanReport
    from .integrity import record_of as record_of
    from .integrity import reviewed as reviewed
    from .integrity import scan_rows as scan_rows
    from .integrity import scan_run as scan_run
    from .integrity import write_scanned_result as write_scanned_result
    from .metrics import ErrorCounted as ErrorCounted
    from .metrics import ErrorCounts as ErrorCounts
    from .metrics import by_task as by_task
    from .metrics import compute_metrics as compute_metrics
    from .metrics import passed as passed
    from .metrics import percentile as percentile
    from .metrics import reward_counts as reward_counts
    from .metrics import scored as scored
    from .metrics import task_row as task_row
    from .summary import build_summary as build_summary
    from .summary import format_table as format_table
    from .summary import not_run_reason as not_run_reason
    from .summary import not_run_rows as not_run_rows

_EXPORTS = {
    "ScanReport": "integrity",
    "record_of": "integrity",
    "reviewed": "integrity",
    "scan_rows": "integrity",
    "write_scanned_result": "integrity",
    "scan_run": "integrity",
    "ErrorCounted": "metrics",
    "ErrorCounts": "metrics",
    "by_task": "metrics",
    "compute_metrics": "metrics",
    "passed": "metrics",
    "percentile": "metrics",
    "reward_counts": "metrics",
    "scored": "metrics",
    "task_row": "metrics",
    "build_summary": "summary",
    "format_table": "summary",
    "not_run_reason": "summary",
    "not_run_rows": "summary",
}

__all__ = [
    "ErrorCounted",
    "ErrorCounts",
    "ScanReport",
    "build_summary",
    "by_task",
    "compute_metrics",
    "format_table",
    "not_run_reason",
    "not_run_rows",
    "passed",
    "percentile",
    "record_of",
    "reviewed",
    "reward_counts",
    "scan_rows",
    "scan_run",
    "scored",
    "task_row",
    "write_scanned_result",
]


def __getattr__(name: str) -> Any:
    if name in _EXPORTS:
        return vars(importlib.import_module(f"{__name__}.{_EXPORTS[name]}"))[name]
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
