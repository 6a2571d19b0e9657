"""What an attempt did, as events the detectors read: the commands it ran and the files it read, wrote or deleted,
from every harness's trajectory in the attempt directory and from its submission (a diff).

Readers: mini-swe-agent's ``*.traj.json`` (``messages``: an assistant message's ``extra.actions`` commands, its
``tool_calls`` arguments, or its fenced ``bash`` blocks), ATIF ``trajectory.json`` (terminus2's keystrokes, the
installed agents' tool calls: a command, or a file path the tool read or wrote) and a unified diff submission.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

COMMAND, READ, WRITE, DELETE = "command", "read", "write", "delete"
MAX_TRAJECTORY_BYTES = 64 << 20
_FENCE = re.compile(r"```(?:bash|sh|shell)?\s*\n(.*?)```", re.S)
_COMMAND_KEYS = ("command", "cmd", "keystrokes", "script", "code", "input")
_PATH_KEYS = ("file_path", "path", "filePath", "filename", "notebook_path", "absolute_path", "target_file")
_WRITE_TOOLS = ("write", "edit", "create", "patch", "replace", "insert", "str_replace", "save")
_CONTENT_KEYS = ("content", "new_string", "new_str", "file_text", "text", "patch", "diff")


@dataclass(frozen=True)
class Event:
    """One thing the agent did: ``kind`` (command, read, write, delete), ``text`` (the command, or the content
    written), ``path`` (read / write / delete), ``step`` and ``source`` (the file it was read from)."""

    kind: str
    text: str = ""
    path: str = ""
    step: int | str | None = None
    source: str = ""


def _load(path: Path) -> Any:
    try:
        if path.stat().st_size > MAX_TRAJECTORY_BYTES:
            return None
        return json.loads(path.read_text(encoding="utf-8", errors="replace"))
    except (OSError, ValueError):
        return None


def _arguments(value: Any) -> dict[str, Any]:
    if isinstance(value, str):
        try:
            value = json.loads(value)
        except ValueError:
            return {"command": value}
    return value if isinstance(value, dict) else {}


def _command_text(value: Any) -> str:
    if isinstance(value, list):
        parts = [str(v) for v in value]
        return parts[-1] if parts[:2] in (["bash", "-lc"], ["bash", "-c"], ["sh", "-c"]) else " ".join(parts)
    return str(value) if value is not None else ""


def tool_events(name: str, args: dict[str, Any], step: Any, source: str) -> list[Event]:
    """The events of one tool call: its command, or the file it read or wrote (with the content written)."""
    out = [Event(COMMAND, _command_text(args[k]), step=step, source=source) for k in _COMMAND_KEYS if k in args]
    path = next((str(args[k]) for k in _PATH_KEYS if isinstance(args.get(k), str)), "")
    lowered = name.lower()
    if path:
        content = "\n".join(str(args[k]) for k in _CONTENT_KEYS if isinstance(args.get(k), str))
        kind = WRITE if any(w in lowered for w in _WRITE_TOOLS) else READ
        out.append(Event(kind, content if kind == WRITE else "", path, step, source))
    if "patch" in lowered:
        text = next((str(v) for v in args.values() if isinstance(v, str)), "")
        out += [e for e in diff_events(text, source, step) if e.kind != COMMAND]
    return [e for e in out if e.text or e.path]


def mini_swe_agent_events(data: Any, source: str) -> list[Event]:
    out: list[Event] = []
    messages = data.get("messages") if isinstance(data, dict) else None
    for i, msg in enumerate(messages or []):
        if not isinstance(msg, dict) or msg.get("role") != "assistant":
            continue
        actions = ((msg.get("extra") or {}).get("actions")) or []
        commands = [a.get("command") for a in actions if isinstance(a, dict) and a.get("command")]
        if not commands:
            for call in msg.get("tool_calls") or []:
                fn = (call or {}).get("function") or {}
                commands.append(_arguments(fn.get("arguments")).get("command"))
        if not commands:
            commands = _FENCE.findall(str(msg.get("content") or ""))
        out += [Event(COMMAND, _command_text(c), step=i, source=source) for c in commands if c]
    return out


def atif_events(data: Any, source: str) -> list[Event]:
    out: list[Event] = []
    for step in (data.get("steps") if isinstance(data, dict) else None) or []:
        if not isinstance(step, dict) or step.get("source") != "agent":
            continue
        for call in step.get("tool_calls") or []:
            if isinstance(call, dict):
                name = str(call.get("function_name") or "")
                out += tool_events(name, _arguments(call.get("arguments")), step.get("step_id"), source)
    return out


_DIFF_FILE = re.compile(r"^diff --git a/(\S+) b/(\S+)$")


def diff_events(patch: str, source: str, step: Any = None) -> list[Event]:
    """The files a unified diff writes (with its added lines) or deletes."""
    out: list[Event] = []
    path, deleted = "", False
    added: list[str] = []

    def close() -> None:
        if path:
            out.append(Event(DELETE if deleted else WRITE, "\n".join(added), path, step, source))

    for line in patch.splitlines():
        match = _DIFF_FILE.match(line)
        if match:
            close()
            path, added, deleted = match.group(2), [], False
        elif line.startswith("deleted file mode"):
            deleted = True
        elif line.startswith("+") and not line.startswith("+++"):
            added.append(line[1:])
    close()
    return out


def attempt_events(attempt_dir: Path, result: dict[str, Any]) -> list[Event]:
    """Every event of an attempt: its trajectories (``*.traj.json``, ``trajectory.json``), then its submission."""
    out: list[Event] = []
    directory = Path(attempt_dir)
    for path in sorted(directory.glob("*.traj.json")):
        out += mini_swe_agent_events(_load(path), path.name)
    atif = directory / "trajectory.json"
    if atif.is_file():
        out += atif_events(_load(atif), atif.name)
    submission = (result.get("agent") or {}).get("submission")
    if isinstance(submission, str) and "diff --git " in submission:
        out += diff_events(submission, "submission")
    return out
