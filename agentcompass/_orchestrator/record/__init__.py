"""The run record: the run directory and every file in it, and the typed shapes those files hold.

:mod:`.store` (``RunStore``: every file name and every write), :mod:`.writer` (writes in order, off the event
loop when the disk is slow), :mod:`.runlock` (one live process per run), :mod:`.jsontext` (fast readable JSON);
:mod:`.records` / :mod:`.result` / :mod:`.outcome` (an attempt's ``result.json``, a results row, ``summary.json``
and ``run.json`` as types), :mod:`.schema` (their JSON Schemas), :mod:`.runrecord` and :mod:`.sessions`
(``run.json`` kept current, a run's sessions), :mod:`.artifacts` (files saved from an environment) and
:mod:`.logs` (console and ``run.log`` logging: the run's log file is part of its record, and the console handler
sits beside it).

The lowest layer of the orchestrator: it imports nothing of :mod:`..metrics` or :mod:`..scheduling`. Others import
the names below from this package, never its modules; they are imported on first use (PEP 562), so reading a run
directory loads only what it reads.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # explicit re-exports, for the type checker
    from agentcompass.kit import write_atomic as write_atomic  # the store's atomic write (kit's)

    from .artifacts import MANIFEST as MANIFEST
    from .artifacts import prepare_artifacts as prepare_artifacts
    from .artifacts import save_artifacts as save_artifacts
    from .logs import LOGGER as LOGGER
    from .logs import console_logging as console_logging
    from .logs import current_request as current_request
    from .logs import file_logging as file_logging
    from .logs import live_bars as live_bars
    from .outcome import AgentRecord as AgentRecord
    from .outcome import AttemptOutcome as AttemptOutcome
    from .outcome import GradeRecord as GradeRecord
    from .outcome import IntegrityRecord as IntegrityRecord
    from .outcome import agent_from_dict as agent_from_dict
    from .outcome import agent_to_dict as agent_to_dict
    from .outcome import new_outcome as new_outcome
    from .outcome import record_failure as record_failure
    from .records import IntegritySummary as IntegritySummary
    from .records import Interval as Interval
    from .records import JsonObject as JsonObject
    from .records import ResultRow as ResultRow
    from .records import Review as Review
    from .records import ReviewReport as ReviewReport
    from .records import Tokens as Tokens
    from .records import UsageRecord as UsageRecord
    from .records import upgrade_row as upgrade_row
    from .records import usage_record as usage_record
    from .result import BudgetRecord as BudgetRecord
    from .result import ErrorsByClass as ErrorsByClass
    from .result import Fingerprint as Fingerprint
    from .result import IntegrityVerdicts as IntegrityVerdicts
    from .result import MetadataExtras as MetadataExtras
    from .result import NotRunSample as NotRunSample
    from .result import NotRunTask as NotRunTask
    from .result import RunMetadata as RunMetadata
    from .result import RunMetrics as RunMetrics
    from .result import RunPaths as RunPaths
    from .result import RunRecord as RunRecord
    from .result import RunResult as RunResult
    from .result import RunSummary as RunSummary
    from .result import TaskSummary as TaskSummary
    from .runlock import RunLock as RunLock
    from .runrecord import ThrottledRecord as ThrottledRecord
    from .schema import DOC_PAGE as DOC_PAGE
    from .schema import KINDS as KINDS
    from .schema import SCHEMA_VERSION as SCHEMA_VERSION
    from .schema import json_schema as json_schema
    from .schema import results_page as results_page
    from .sessions import Sessions as Sessions
    from .store import ANALYSIS_JSON as ANALYSIS_JSON
    from .store import ANALYSIS_MD as ANALYSIS_MD
    from .store import ARTIFACTS_DIR as ARTIFACTS_DIR
    from .store import CHECKPOINT_FILE as CHECKPOINT_FILE
    from .store import CONFIG_FILE as CONFIG_FILE
    from .store import ERROR_FILE as ERROR_FILE
    from .store import FINGERPRINT_FILE as FINGERPRINT_FILE
    from .store import RECIPES_LOG as RECIPES_LOG
    from .store import RESULT_FILE as RESULT_FILE
    from .store import RESULTS_FILE as RESULTS_FILE
    from .store import RUN_FILE as RUN_FILE
    from .store import SUMMARY_FILE as SUMMARY_FILE
    from .store import TASKS_DIR as TASKS_DIR
    from .store import VERIFIER_LOG as VERIFIER_LOG
    from .store import AttemptRecord as AttemptRecord
    from .store import RunStore as RunStore
    from .store import attempt_number as attempt_number
    from .store import find_reusable as find_reusable
    from .store import new_run_id as new_run_id
    from .store import read_json as read_json
    from .store import record_write_error as record_write_error
    from .store import row_sample as row_sample
    from .store import safe_name as safe_name
    from .writer import work_s as work_s

_EXPORTS = {
    "MANIFEST": "artifacts",
    "prepare_artifacts": "artifacts",
    "save_artifacts": "artifacts",
    "LOGGER": "logs",
    "console_logging": "logs",
    "current_request": "logs",
    "file_logging": "logs",
    "live_bars": "logs",
    "AgentRecord": "outcome",
    "AttemptOutcome": "outcome",
    "GradeRecord": "outcome",
    "IntegrityRecord": "outcome",
    "agent_from_dict": "outcome",
    "agent_to_dict": "outcome",
    "new_outcome": "outcome",
    "record_failure": "outcome",
    "IntegritySummary": "records",
    "Interval": "records",
    "JsonObject": "records",
    "ResultRow": "records",
    "Review": "records",
    "ReviewReport": "records",
    "Tokens": "records",
    "UsageRecord": "records",
    "upgrade_row": "records",
    "usage_record": "records",
    "BudgetRecord": "result",
    "ErrorsByClass": "result",
    "Fingerprint": "result",
    "IntegrityVerdicts": "result",
    "MetadataExtras": "result",
    "NotRunSample": "result",
    "NotRunTask": "result",
    "RunMetadata": "result",
    "RunMetrics": "result",
    "RunPaths": "result",
    "RunRecord": "result",
    "RunResult": "result",
    "RunSummary": "result",
    "TaskSummary": "result",
    "RunLock": "runlock",
    "ThrottledRecord": "runrecord",
    "DOC_PAGE": "schema",
    "KINDS": "schema",
    "SCHEMA_VERSION": "schema",
    "json_schema": "schema",
    "results_page": "schema",
    "Sessions": "sessions",
    "ANALYSIS_JSON": "store",
    "ANALYSIS_MD": "store",
    "ARTIFACTS_DIR": "store",
    "AttemptRecord": "store",
    "CHECKPOINT_FILE": "store",
    "CONFIG_FILE": "store",
    "ERROR_FILE": "store",
    "FINGERPRINT_FILE": "store",
    "RECIPES_LOG": "store",
    "RESULTS_FILE": "store",
    "RESULT_FILE": "store",
    "RUN_FILE": "store",
    "RunStore": "store",
    "SUMMARY_FILE": "store",
    "TASKS_DIR": "store",
    "VERIFIER_LOG": "store",
    "attempt_number": "store",
    "find_reusable": "store",
    "new_run_id": "store",
    "read_json": "store",
    "record_write_error": "store",
    "row_sample": "store",
    "safe_name": "store",
    "write_atomic": "store",
    "work_s": "writer",
}

__all__ = [
    "ANALYSIS_JSON",
    "ANALYSIS_MD",
    "ARTIFACTS_DIR",
    "AgentRecord",
    "AttemptOutcome",
    "GradeRecord",
    "AttemptRecord",
    "BudgetRecord",
    "CHECKPOINT_FILE",
    "CONFIG_FILE",
    "DOC_PAGE",
    "ERROR_FILE",
    "ErrorsByClass",
    "FINGERPRINT_FILE",
    "Fingerprint",
    "IntegrityRecord",
    "IntegritySummary",
    "IntegrityVerdicts",
    "Interval",
    "JsonObject",
    "KINDS",
    "LOGGER",
    "MANIFEST",
    "MetadataExtras",
    "NotRunSample",
    "NotRunTask",
    "RECIPES_LOG",
    "RESULTS_FILE",
    "RESULT_FILE",
    "RUN_FILE",
    "ResultRow",
    "Review",
    "ReviewReport",
    "Tokens",
    "RunLock",
    "RunMetadata",
    "RunMetrics",
    "RunPaths",
    "RunRecord",
    "RunResult",
    "RunStore",
    "RunSummary",
    "SCHEMA_VERSION",
    "SUMMARY_FILE",
    "Sessions",
    "TASKS_DIR",
    "TaskSummary",
    "ThrottledRecord",
    "UsageRecord",
    "VERIFIER_LOG",
    "agent_from_dict",
    "agent_to_dict",
    "attempt_number",
    "console_logging",
    "current_request",
    "file_logging",
    "find_reusable",
    "json_schema",
    "live_bars",
    "new_outcome",
    "new_run_id",
    "prepare_artifacts",
    "read_json",
    "record_failure",
    "record_write_error",
    "results_page",
    "row_sample",
    "safe_name",
    "save_artifacts",
    "upgrade_row",
    "usage_record",
    "work_s",
    "write_atomic",
]


def __getattr__(name: str) -> Any:
    if name in _EXPORTS:
        return vars(importlib.import_module(f"{__name__}.{_EXPORTS[name]}"))[name]
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
