"""``--replay RUN_DIR``: answer every model call from the calls a run recorded, never calling the endpoint.

The run's ``results.jsonl`` names the final attempt of each (task, sample); that attempt's ``model_calls.jsonl``
(docs/gateway.md, "The call record") holds its calls in order. Call n of an attempt of this run is answered by
recorded call n of the same task and sample, once its request is checked against the recorded one: a call whose
canonical request differs (messages, tools, params, model, protocol, endpoint), or a call beyond the recorded
ones, stops the attempt with a :class:`~agentcompass.errors.ReplayMismatchError` naming the call and the first
field that differs. A recorded call that failed fails again, with the recorded error's type where it is one the
harness may handle (the context length), else as a model error. Calls an agent made through the model gateway
are replayed by their request (:mod:`.wire_replay`).
"""

from __future__ import annotations

import json
import threading
from pathlib import Path
from typing import Any

from agentcompass.errors import ConfigError, ContextLengthExceededError, ModelError, ReplayMismatchError

from .key import canonical_request, first_difference
from .records import CanonicalRequest, RecordedCall, StoredReply
from .wire_replay import WireReplay, wire_entry

CALLS_FILE = "model_calls.jsonl"
_ERRORS = {"ContextLengthExceededError": ContextLengthExceededError}


def _attempt_dir(run_dir: Path, recorded: str) -> Path:
    """The attempt directory of a results.jsonl row, inside ``run_dir`` wherever the run was recorded."""
    parts = Path(recorded).parts
    if "tasks" in parts:
        i = len(parts) - 1 - parts[::-1].index("tasks")
        return run_dir.joinpath(*parts[i:])
    return run_dir / recorded


def _entry(line: dict[str, Any]) -> RecordedCall | None:
    """A recorded client call as replay uses it: the canonical request, the reply or the error."""
    req = line.get("request")
    if line.get("source", "client") != "client" or not isinstance(req, dict) or "messages" not in req:
        return None
    request = canonical_request(
        req.get("protocol") or line.get("upstream_protocol") or "",
        line.get("endpoint") or "",
        req.get("model") or line.get("model") or "",
        req.get("messages") or [],
        req.get("tools"),
        req.get("params") or {},
    )
    return {"seq": line.get("seq", 0), "request": request, "response": line.get("response"), "error": line.get("error")}


def read_calls(path: Path) -> tuple[list[RecordedCall], list[RecordedCall]]:
    """The recorded calls of one attempt, in call order: the client's own, and the gateway's."""
    calls: list[RecordedCall] = []
    wire: list[RecordedCall] = []
    with open(path, encoding="utf-8") as fh:
        for text in fh:
            if text.strip():
                line = json.loads(text)
                entry = _entry(line)
                if entry is not None:
                    calls.append(entry)
                elif (gateway := wire_entry(line)) is not None:
                    wire.append(gateway)
    return sorted(calls, key=lambda e: e["seq"]), sorted(wire, key=lambda e: e["seq"])


class Recording:
    """The recorded calls of a run, read per (task, sample) on first use."""

    def __init__(self, run_dir: Path, attempts: dict[tuple[str, int], Path]) -> None:
        self.run_dir, self.attempts = run_dir, attempts
        self._calls: dict[tuple[str, int], tuple[list[RecordedCall], list[RecordedCall]]] = {}
        self._lock = threading.Lock()

    @classmethod
    def open(cls, run_dir: str | Path) -> Recording:
        root = Path(run_dir).expanduser()
        results = root / "results.jsonl"
        if not results.is_file():
            raise ConfigError(f"model.replay={str(run_dir)!r}: no results.jsonl there (expected a run directory)")
        attempts: dict[tuple[str, int], Path] = {}
        for line in results.read_text(encoding="utf-8").splitlines():
            if line.strip():
                row = json.loads(line)
                attempts[(str(row["task_id"]), int(row.get("sample") or 1))] = _attempt_dir(root, row["attempt_dir"])
        return cls(root, attempts)

    def _read(self, task_id: str | None, sample: int) -> tuple[list[RecordedCall], list[RecordedCall]]:
        key = (str(task_id), sample)
        with self._lock:
            if key not in self._calls:
                where = self.attempts.get(key)
                path = where / CALLS_FILE if where is not None else None
                self._calls[key] = read_calls(path) if path is not None and path.is_file() else ([], [])
            return self._calls[key]

    def calls_of(self, task_id: str | None, sample: int) -> list[RecordedCall]:
        """The recorded client calls of (task, sample), in order."""
        return self._read(task_id, sample)[0]

    def wire_calls_of(self, task_id: str | None, sample: int) -> WireReplay:
        """The recorded gateway calls of (task, sample), for one replayed attempt."""
        return WireReplay(f"{self.run_dir}: task {task_id} sample {sample}", self._read(task_id, sample)[1])

    def answer(
        self, calls: list[RecordedCall], seq: int, request: CanonicalRequest, task_id: str | None, sample: int
    ) -> StoredReply:
        """The recorded reply of call ``seq`` (1-based) once its request is checked against the recording."""
        where = f"--replay {self.run_dir}: task {task_id} sample {sample}"
        if seq > len(calls):
            raise ReplayMismatchError(f"{where}: request {seq} was not made by the recorded run ({len(calls)} calls)")
        recorded = calls[seq - 1]
        diff = first_difference(recorded["request"], request)
        if diff is not None:
            raise ReplayMismatchError(f"{where}: request {seq} differs from the recorded one at {diff}")
        if recorded["response"] is None:
            error = recorded.get("error") or {}
            cls = _ERRORS.get(error.get("type", ""), ModelError)
            raise cls(f"{error.get('message') or 'the recorded call failed'} (replayed)")
        return recorded["response"]
