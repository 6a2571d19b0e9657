"""Artifacts: host files uploaded before the agent runs, and environment files saved after verification.

Works with any :class:`~agentcompass.interfaces.Environment` (only its interface is used). Saved files keep
their environment path under ``dest_dir`` (``/app/out/a.txt`` -> ``<dest_dir>/app/out/a.txt``) and
``<dest_dir>/manifest.json`` lists every matched file with its status:

- ``saved``: copied whole;
- ``truncated``: larger than ``max_file_bytes``; its first ``max_file_bytes`` bytes are saved;
- ``skipped``: not copied; ``reason`` says why (``max_files``, ``max_total_bytes``, a symlink, an error).
"""

from __future__ import annotations

import os
import posixpath
import shlex
import uuid
from pathlib import Path
from typing import TypedDict

from agentcompass.errors import AgentCompassError, ConfigError
from agentcompass.interfaces import READ_HEAD, Environment
from agentcompass.kit import write_json

LIST_EXTRA = 1000  # files listed beyond max_files (the rest of a huge tree is only counted)
LIST_TIMEOUT_S = 120
MANIFEST = "manifest.json"

# Lists the files matched by each pattern as NUL-separated records: P <pattern> (a new pattern starts),
# F <size> <path> (a file), L <path> (a symlink), N <pattern> (matched nothing), X (listing cap reached).
_LIST_SCRIPT = r"""
shopt -s nullglob dotglob globstar 2>/dev/null
cap=$1; shift; n=0; IFS=
for pat in "$@"; do
  hit=0; printf 'P\0%s\0' "$pat"
  for m in $pat; do
    [ -e "$m" ] || [ -L "$m" ] || continue
    hit=1
    if [ -L "$m" ]; then printf 'L\0%s\0' "$m"; continue; fi
    if [ -d "$m" ]; then
      while IFS= read -r -d '' f; do
        n=$((n+1)); [ "$n" -gt "$cap" ] && { printf 'X\0'; exit 0; }
        if [ -L "$f" ]; then printf 'L\0%s\0' "$f"; else printf 'F\0%s\0%s\0' "$(stat -c %s -- "$f")" "$f"; fi
      done < <(find "$m" \( -type f -o -type l \) -print0)
    elif [ -f "$m" ]; then
      n=$((n+1)); [ "$n" -gt "$cap" ] && { printf 'X\0'; exit 0; }
      printf 'F\0%s\0%s\0' "$(stat -c %s -- "$m")" "$m"
    fi
  done
  [ "$hit" = 0 ] && printf 'N\0%s\0' "$pat"
done
exit 0
"""


class Listed(TypedDict):
    """A file the listing found: its environment path, size and whether it is a symlink."""

    path: str
    size: int
    symlink: bool


class Saved(TypedDict):
    """A manifest's file entry: what was saved of a listed file (``status`` saved / truncated / skipped, and why)."""

    path: str
    size: int
    bytes: int
    status: str
    reason: str | None


class Manifest(TypedDict):
    """``manifest.json`` of an attempt's artifacts (docs/results.md)."""

    patterns: list[str]
    budgets: dict[str, int]
    files: list[Saved]
    errors: list[dict[str, str]]
    totals: dict[str, int]


async def prepare_artifacts(env: Environment, items: list[dict[str, str]]) -> None:
    """Upload each ``{src: host path, dst: environment path}`` (files or directories) into ``env``."""
    for item in items:
        src = Path(os.path.expanduser(str(item["src"])))
        dst = _env_abs(env, str(item["dst"]))
        if not src.exists():
            raise ConfigError(f"execution.artifacts.prepare: src {str(src)!r} does not exist (dst {dst!r})")
        await env.upload(src, dst)


def _env_abs(env: Environment, p: str) -> str:
    return posixpath.normpath(p if p.startswith("/") else posixpath.join(env.workdir or "/", p))


async def _list(env: Environment, patterns: list[str], cap: int) -> tuple[list[Listed], list[dict[str, str]]]:
    """Expand ``patterns`` inside the environment: (file entries in order, per-pattern errors)."""
    root = env.path("/").rstrip("/")
    mapped, errors = [], []
    for pat in patterns:
        try:
            mapped.append(env.path(_env_abs(env, pat)))
        except AgentCompassError as exc:
            errors.append({"pattern": pat, "error": str(exc)})
    if not mapped:
        return [], errors
    res = await env.exec(["bash", "-c", _LIST_SCRIPT, "ac-list", str(cap), *mapped], timeout=LIST_TIMEOUT_S)
    if res.exit_code != 0:
        errors.append(
            {
                "pattern": " ".join(patterns),
                "error": f"listing failed (exit {res.exit_code}): {res.stderr.strip()[:300]}",
            }
        )
        return [], errors
    return _parse_listing(res.stdout, root, errors), errors


def _parse_listing(out: str, root: str, errors: list[dict[str, str]]) -> list[Listed]:
    """Entries in pattern order, sorted by path within a pattern; a file matched twice is listed once."""
    fields, seen, i = out.split("\0"), set(), 0
    groups: list[list[Listed]] = [[]]

    def unmap(p: str) -> str:
        return posixpath.normpath("/" + (p[len(root) :] if root and p.startswith(root + "/") else p).lstrip("/"))

    while i < len(fields) and fields[i]:
        kind = fields[i]
        if kind == "X":
            errors.append({"pattern": "*", "error": "more files matched than listed; the rest were not saved"})
            break
        if kind in ("N", "P"):
            if kind == "N":
                errors.append({"pattern": unmap(fields[i + 1]), "error": "matched nothing"})
            else:
                groups.append([])
            i += 2
            continue
        size = int(fields[i + 1]) if kind == "F" and fields[i + 1].isdigit() else 0
        path = unmap(fields[i + 2] if kind == "F" else fields[i + 1])
        i += 3 if kind == "F" else 2
        if path not in seen:
            seen.add(path)
            groups[-1].append(Listed(path=path, size=size, symlink=kind == "L"))
    return [e for group in groups for e in sorted(group, key=lambda e: e["path"])]


async def save_artifacts(
    env: Environment, patterns: list[str], dest_dir: Path, *, max_files: int, max_file_bytes: int, max_total_bytes: int
) -> Manifest:
    """Copy files matching ``patterns`` (environment paths or globs; relative ones from the workdir) out of
    ``env`` into ``dest_dir`` within the budgets; write and return the manifest."""
    dest_dir = Path(dest_dir)
    dest_dir.mkdir(parents=True, exist_ok=True)
    entries, errors = await _list(env, list(patterns), max_files + LIST_EXTRA)
    budget = {"max_files": max_files, "max_file_bytes": max_file_bytes, "max_total_bytes": max_total_bytes}
    state = {"files": 0, "bytes": 0}
    files = [await _save_one(env, e, dest_dir, budget, state) for e in entries]
    counts = {s: sum(1 for f in files if f["status"] == s) for s in ("saved", "truncated", "skipped")}
    manifest = Manifest(
        patterns=list(patterns), budgets=budget, files=files, errors=errors, totals={**counts, "bytes": state["bytes"]}
    )
    write_json(dest_dir / MANIFEST, manifest, indent=1, ensure_ascii=False)
    return manifest


async def _save_one(
    env: Environment, entry: Listed, dest_dir: Path, budget: dict[str, int], state: dict[str, int]
) -> Saved:
    path, size = entry["path"], entry["size"]
    row = Saved(path=path, size=size, bytes=0, status="skipped", reason=None)
    if entry["symlink"]:
        row["reason"] = "symlink (not followed)"
        return row
    if state["files"] >= budget["max_files"]:
        row["reason"] = f"max_files ({budget['max_files']}) reached"
        return row
    keep = min(size, budget["max_file_bytes"])
    if state["bytes"] + keep > budget["max_total_bytes"]:
        row["reason"] = f"max_total_bytes ({budget['max_total_bytes']}) would be exceeded"
        return row
    target = dest_dir / path.lstrip("/")
    try:
        if keep < size:
            await _copy_head(env, path, keep, target)
        else:
            await env.download(path, target)
    except (AgentCompassError, OSError) as exc:
        row["reason"] = f"{type(exc).__name__}: {str(exc)[:300]}"
        return row
    keep = target.stat().st_size if keep == size else keep
    row["bytes"], row["status"] = keep, "truncated" if keep < size else "saved"
    row["reason"] = f"larger than max_file_bytes ({budget['max_file_bytes']})" if keep < size else None
    state["files"] += 1
    state["bytes"] += keep
    return row


async def _copy_head(env: Environment, path: str, n: int, target: Path) -> None:
    """Save the first ``n`` bytes of environment file ``path``: through the environment's ``read_head`` when it
    has one (the local environment: confined to its workspace), else cut inside the environment and copied."""
    read_head = READ_HEAD.of(env)
    if read_head is not None:
        data = await read_head(path, n)
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)
        return
    tmp = f"/tmp/.agentcompass-artifact-{uuid.uuid4().hex}"
    cmd = (
        f"mkdir -p {shlex.quote(env.path('/tmp'))} && head -c {n} -- {shlex.quote(env.path(path))} "
        f"> {shlex.quote(env.path(tmp))}"
    )
    res = await env.exec(cmd, timeout=LIST_TIMEOUT_S)
    try:
        if res.exit_code != 0:
            raise OSError(f"cannot cut {path}: {res.stderr.strip()[:200]}")
        await env.download(tmp, target)
    finally:
        await env.exec(["rm", "-f", "--", env.path(tmp)], timeout=LIST_TIMEOUT_S)
