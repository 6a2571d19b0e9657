"""The files a unified diff modifies, read the way SWE-bench's harness reads them.

The official eval script resets "the files the test patch modifies": the source side of every file of the
patch (as the ``unidiff`` package parses it) that is not ``/dev/null`` and starts with ``a/``, without that
prefix. :func:`modified_files` returns that list; the agreement test compares it with the package's own result
on every shape of diff (edits, new, deleted, renamed, binary, mode-only and quoted names).
"""

from __future__ import annotations

import io
import re
from typing import Any

DEV_NULL = "/dev/null"

_GIT_HEADERS = (
    re.compile(r'^diff --git (?P<source>"?a/[^\t\n]+"?) (?P<target>"?b/[^\t\n]+"?)'),
    re.compile(r"^diff --git (?P<source>.*://[^\t\n]+) (?P<target>.*://[^\t\n]+)"),
    re.compile(r"^diff --git (?P<source>[^\t\n]+) (?P<target>[^\t\n]+)"),
)
_NEW_FILE = re.compile(r"^new file mode (?P<mode>\d+)$")
_DELETED_FILE = re.compile(r"^deleted file mode (?P<mode>\d+)$")
_SOURCE = re.compile(r'^--- (?P<filename>"?[^\t\n]*"?)(?:\t(?P<timestamp>[^\n]+))?')
_TARGET = re.compile(r'^\+\+\+ (?P<filename>"?[^\t\n]*"?)(?:\t(?P<timestamp>[^\n]+))?')
_GIT_INFO = re.compile(r"^(?:old mode \d+|new mode \d+|index [0-9a-f]+\.\.[0-9a-f]+ \d+)$")
_NO_NEWLINE = re.compile(r"^\\ No newline at end of file")
_HUNK = re.compile(r"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))?\ @@[ ]?(.*)")
_BINARY = re.compile(
    r"^Binary files? (?P<source_filename>[^\t]+?)(?:\t(?P<source_timestamp>[\s0-9:\+-]+))?"
    r"(?: and (?P<target_filename>[^\t]+?)(?:\t(?P<target_timestamp>[\s0-9:\+-]+))?)? "
    r"(differ|has changed)"
)


def _skip_hunk(header: str, lines: io.StringIO) -> None:
    """Consume the body of the hunk announced by ``header``; its line counts say how long it is."""
    _, len_s, _, len_t, _ = _HUNK.match(header).groups()
    left_s, left_t = int(len_s if len_s is not None else 1), int(len_t if len_t is not None else 1)
    for line in iter(lines.readline, ""):
        kind = " " if line[0] in "\r\n" else line[0]
        if kind not in "+- \\":
            raise ValueError(f"hunk line expected: {line!r}")
        left_s -= kind in "- "
        left_t -= kind in "+ "
        if left_s < 0 or left_t < 0:
            raise ValueError("hunk is longer than its header says")
        if left_s == 0 and left_t == 0:
            return
    raise ValueError("hunk is shorter than its header says")


def _source_files(patch: str) -> list[str]:
    """The source name of every file of ``patch``, in order (``/dev/null`` for new files)."""
    return [f[0] for f in _files(patch)]


def _files(patch: str) -> list[list[Any]]:
    """``[source, target, number of hunks]`` of every file of ``patch``, in order.

    The same state machine as ``unidiff.PatchSet``: ``current`` is the file being read, ``header`` says whether
    a header block (git extended headers) is open, ``pending`` is a ``---`` name waiting for its ``+++``."""
    files: list[list[Any]] = []  # [source, target, number of hunks] per file
    current: list[Any] | None = None
    header, pending = False, None
    lines = io.StringIO(patch)
    for line in iter(lines.readline, ""):
        git = next((m for m in (rx.match(line) for rx in _GIT_HEADERS) if m), None)
        if git:
            pending = git.group("source")
            current, header = [pending, git.group("target"), 0], True
            files.append(current)
            continue
        for rx, side in ((_NEW_FILE, 0), (_DELETED_FILE, 1)):
            if rx.match(line):
                if current is None or not header:
                    raise ValueError(f"unexpected git file mode line: {line!r}")
                current[side] = DEV_NULL
                break
        else:
            if current is not None and header and _GIT_INFO.match(line):
                continue
            current, header, pending = _read_line(line, lines, files, current, header, pending)
    return files


def _read_line(
    line: str, lines: io.StringIO, files: list[list[Any]], current: list[Any] | None, header: bool, pending: str | None
) -> tuple[list[Any] | None, bool, str | None]:
    """One line that is not a git header line: ``---`` / ``+++`` names, hunks, binary-file notes."""
    if m := _SOURCE.match(line):
        return (None if current is not None and not header else current), header, m.group("filename")
    if m := _TARGET.match(line):
        target = m.group("filename")
        if current is not None and current[1] != target:
            raise ValueError(f"target without source: {line!r}")
        if current is None:
            if pending is None:
                raise ValueError(f"target without source: {line!r}")
            current, header, pending = [pending, target, 0], False, None
            files.append(current)
        return current, header, pending
    if _HUNK.match(line):
        if current is None:
            raise ValueError(f"unexpected hunk: {line!r}")
        _skip_hunk(line, lines)
        current[2] += 1
        return current, False, pending
    if _NO_NEWLINE.match(line) or (line == "\n" and current is not None and current[2]):
        return current, header, pending
    if not header:
        current, header = None, True
    if m := _BINARY.match(line):
        if current is None:
            files.append([m.group("source_filename"), m.group("target_filename") or m.group("source_filename"), 0])
        return None, False, m.group("source_filename")
    if line == "GIT binary patch\n":
        if current is None:
            raise ValueError("unexpected binary patch marker")
        return None, False, pending
    return current, header, pending


def modified_files(patch: str) -> list[str]:
    """Files of ``patch`` that exist before it applies (source side, ``a/`` prefix removed)."""
    return [name[2:] for name in _source_files(patch) if name != DEV_NULL and name.startswith("a/")]


_VCS_PREFIX = re.compile(r"^[abciow12]/")


def _path(source: str | None, target: str | None) -> str:
    """A file's path without its VCS prefix: the source name, the target name for new and renamed files."""
    name = source
    renamed = source != DEV_NULL and target != DEV_NULL and (source or "")[2:] != (target or "")[2:]
    if name in (None, DEV_NULL) or (renamed and target not in (None, DEV_NULL)):
        name = target
    quoted = name.startswith('"') and name.endswith('"')
    bare = name[1:-1] if quoted else name
    bare = bare[2:] if _VCS_PREFIX.match(bare) else bare
    return f'"{bare}"' if quoted else bare


def patched_paths(patch: str) -> list[str]:
    """The path of every file of ``patch`` (``unidiff``'s ``PatchedFile.path``), in order."""
    return [_path(source, target) for source, target, _ in _files(patch)]
