"""What the Attempt page shows: result.json, the trajectory file (fetched on its own, when opened), the
verifier log, the submitted patch, the error with its traceback, the artifacts manifest, phases, usage and the
model calls (``model_calls.jsonl``, :mod:`.calls`).

Attempt directories are discovered by walking ``tasks/<task>/``: ``sample-<j>/attempt-<n>/`` and, in runs
written before samples existed, ``attempt-<n>/``. The sample is shown only for a task with several samples.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from agentcompass._analysis.shapes import AttemptFile
from agentcompass._orchestrator.record import (
    ARTIFACTS_DIR,
    CHECKPOINT_FILE,
    MANIFEST,
    RESULT_FILE,
    VERIFIER_LOG,
    AgentRecord,
)
from agentcompass.errors import ConfigError

from .calls import calls_summary
from .discover import RunRef
from .files import inside, list_files, read_json, read_text, stamp
from .payloads import AttemptDetail, AttemptEntry, AttemptIds, ErrorView, FileEntry, Patch, TrajectoryRef

_ATTEMPT = re.compile(r"^attempt-(\d+)$")
_SAMPLE = re.compile(r"^sample-(\d+)$")
TRAJECTORY_NAMES = ("trajectory.json", "agent/trajectory.json")
PATCH_NAMES = ("patch.diff", "model.patch", "submission.diff", "submission.patch")
LOG_LIMIT = 512 * 1024
PATCH_LIMIT = 1024 * 1024


def _number(name: str, pattern: re.Pattern[str]) -> int | None:
    m = pattern.match(name)
    return int(m.group(1)) if m else None


def task_attempts(ref: RunRef, task_dir: str) -> list[AttemptEntry]:
    """Every attempt directory of one task (both layouts), ordered by sample then attempt number."""
    folder = inside(ref.path, task_dir)
    if not folder.is_dir():
        return []
    found: list[tuple[int, int, Path]] = []
    for child in folder.iterdir():
        n = _number(child.name, _ATTEMPT)
        if n is not None and child.is_dir():
            found.append((-1, n, child))
        j = _number(child.name, _SAMPLE)
        if j is not None and child.is_dir():
            found += [
                (j, n2, c) for c in child.iterdir() if (n2 := _number(c.name, _ATTEMPT)) is not None and c.is_dir()
            ]
    out: list[AttemptEntry] = []
    several = len({j for j, _, _ in found}) > 1 or any(j > 1 for j, _, _ in found)
    for j, n, path in sorted(found, key=lambda t: (t[0], t[1])):
        result = read_json(path / RESULT_FILE) or {}
        out.append(
            {
                "path": path.relative_to(ref.path).as_posix(),
                "sample": j if j >= 0 and several else None,
                "attempt": n,
                "status": result.get("status") or "running",
                "reward": result.get("reward"),
            }
        )
    return out


def _trajectory(ref: RunRef, folder: Path, agent: AgentRecord, files: list[FileEntry]) -> TrajectoryRef | None:
    names = {f["name"]: f["size"] for f in files}
    declared = Path(str(agent.get("trajectory_path") or "")).name
    candidates = [declared] if declared else []
    candidates += list(TRAJECTORY_NAMES) + sorted(n for n in names if n.endswith((".traj.json", ".traj")))
    for name in candidates:
        if name in names:
            return {"path": (folder / name).relative_to(ref.path).as_posix(), "name": name, "size": names[name]}
    return None


def looks_like_diff(text: Any) -> bool:
    return isinstance(text, str) and (text.startswith(("diff --git", "--- ")) or "\n@@ -" in text)


def _patch(folder: Path, agent: AgentRecord, files: list[FileEntry]) -> Patch | None:
    names = [f["name"] for f in files]
    for name in list(PATCH_NAMES) + sorted(n for n in names if n.endswith((".patch", ".diff"))):
        if name in names:
            text = read_text(folder / name, PATCH_LIMIT)
            if text is not None:
                return {"source": name, **text}
    sub = agent.get("submission")
    if isinstance(sub, str) and looks_like_diff(sub):
        return {
            "source": "result.json: agent.submission",
            "name": "submission",
            "size": len(sub),
            "text": sub[:PATCH_LIMIT],
            "truncated": len(sub) > PATCH_LIMIT,
        }
    return None


def _error(folder: Path, result: AttemptFile) -> ErrorView | None:
    if not result.get("error") and not (folder / "error.txt").is_file():
        return None
    tb = read_text(folder / "error.txt", LOG_LIMIT)
    return {
        "type": result.get("error_type"),
        "message": result.get("error"),
        "class": result.get("error_class"),
        "retryable": result.get("retryable"),
        "traceback": tb["text"] if tb else None,
    }


def _ids(rel: str) -> AttemptIds:
    parts = rel.split("/")
    sample = next((_number(p, _SAMPLE) for p in parts if _SAMPLE.match(p)), None)
    return {"task_dir": "/".join(parts[:2]), "sample": sample, "attempt": _number(parts[-1], _ATTEMPT)}


def attempt_dir(ref: RunRef, rel: str) -> Path:
    folder = inside(ref.path, rel)
    if not rel.startswith("tasks/") or _number(folder.name, _ATTEMPT) is None or not folder.is_dir():
        raise ConfigError(f"path {rel!r}: not an attempt directory (tasks/<task>/[sample-<j>/]attempt-<n>)")
    return folder


def attempt_detail(ref: RunRef, rel: str) -> AttemptDetail:
    folder = attempt_dir(ref, rel)
    found = read_json(folder / RESULT_FILE)
    running = found is None
    result: AttemptFile = found if found else {}
    checkpoint = result.get("agent") or read_json(folder / CHECKPOINT_FILE)
    agent: AgentRecord = checkpoint if checkpoint else {}
    files = list_files(folder)
    ids = _ids(rel)
    siblings = task_attempts(ref, ids["task_dir"])
    if all(s["sample"] is None for s in siblings):
        ids["sample"] = None
    verifier = read_text(folder / VERIFIER_LOG, LOG_LIMIT)
    return {
        "key": ref.key,
        "path": rel,
        **ids,
        "task_id": result.get("task_id"),
        "running": running,
        "status": result.get("status") or "running",
        "reward": result.get("reward"),
        "rewards": result.get("rewards") or {},
        "resolved": result.get("resolved"),
        "duration_s": result.get("duration_s"),
        "phases": result.get("phases") or {},
        "usage": result.get("usage") or agent.get("usage") or {},
        "usage_by_role": result.get("usage_by_role") or {},
        "agent": _agent_summary(agent),
        "transcript": agent.get("transcript"),
        "grade": result.get("grade") or {},
        "integrity": result.get("integrity") if isinstance(result.get("integrity"), dict) else None,
        "environment": result.get("environment") or {},
        "resumed_from_checkpoint": result.get("resumed_from_checkpoint"),
        "error": _error(folder, result),
        "verifier_log": verifier,
        "patch": _patch(folder, agent, files),
        "trajectory": _trajectory(ref, folder, agent, files),
        "model_calls": calls_summary(folder),
        "files": files,
        "artifacts": read_json(folder / ARTIFACTS_DIR / MANIFEST),
        "siblings": siblings,
        "stamp": attempt_stamp(folder),
    }


def _agent_summary(agent: AgentRecord) -> dict[str, object]:
    keep = ("exit_status", "n_turns", "limit_hit", "n_format_errors", "info")
    out = {k: agent.get(k) for k in keep if k in agent}
    sub = agent.get("submission")
    if isinstance(sub, str) and not looks_like_diff(sub):
        out["submission"] = sub[:PATCH_LIMIT]
    return out


def attempt_stamp(folder: Path) -> str:
    try:
        children = sorted(folder.iterdir())
    except OSError:
        return "-"
    return stamp([folder, *children])
