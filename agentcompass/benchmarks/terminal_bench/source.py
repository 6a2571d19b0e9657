"""Task directories from a git repository, checked out once into ``<data_dir>/terminal_bench/<name>@<revision>``.

``name`` is the repository name from the URL (``terminal-bench-2-1`` for ``.../terminal-bench-2-1.git``);
``revision`` is a commit, tag or branch. The ``git`` command line does the work, in a subprocess:

- the checkout is built in a temporary sibling directory (``git init``, ``git fetch --depth 1 origin <rev>``,
  falling back to a full fetch when the server refuses a shallow fetch of that revision, then a detached
  checkout) and renamed into place only when complete, so an interrupted fetch never leaves a partial
  checkout behind;
- ``.agentcompass-source.json`` in the checkout records the URL, the revision and the commit; a later run with
  the same URL and revision reuses the checkout without touching the network (a branch is therefore fetched
  once: delete the directory to refresh it);
- a failed fetch (offline, unknown revision, no access) is a :class:`~agentcompass.errors.DatasetError` saying
  how to use a local copy instead (``benchmark_params.dataset_path``).
"""

from __future__ import annotations

import json
import logging
import os
import re
import shutil
import subprocess
import uuid
from dataclasses import dataclass
from pathlib import Path

from agentcompass.errors import FULL_DISK_ERRNOS, DatasetError, StorageError, storage_error
from agentcompass.kit import slug

log = logging.getLogger("agentcompass.benchmarks.terminal_bench")

MARKER = ".agentcompass-source.json"
# a shallow fetch of this revision was refused, but a full fetch may still find it (a short commit id, a server
# that does not serve unadvertised commits, no shallow support)
_REFUSED = re.compile(r"couldn't find remote ref|not our ref|unadvertised|no such remote ref|shallow", re.IGNORECASE)


@dataclass
class Checkout:
    """A checked-out repository revision."""

    path: Path
    repo_url: str
    revision: str
    commit: str
    reused: bool = False

    def to_dict(self) -> dict[str, str | bool]:
        return {
            "path": str(self.path),
            "repo_url": self.repo_url,
            "revision": self.revision,
            "commit": self.commit,
            "reused": self.reused,
        }


def repo_name(repo_url: str) -> str:
    """``https://host/org/terminal-bench-2.git`` -> ``terminal-bench-2``."""
    tail = repo_url.rstrip("/").rsplit("/", 1)[-1].rsplit(":", 1)[-1]
    tail = tail.removesuffix(".git")
    return slug(tail, sep="_", default="repository")


def checkout_dir(data_dir: Path, repo_url: str, revision: str, folder: str = "terminal_bench") -> Path:
    return Path(data_dir) / folder / f"{repo_name(repo_url)}@{slug(revision, sep='_', default='')}"


def _git(args: list[str], cwd: Path | None, timeout_s: float) -> str:
    env = {**os.environ, "GIT_TERMINAL_PROMPT": "0", "GIT_ASKPASS": "true", "LC_ALL": "C"}
    try:
        res = subprocess.run(
            ["git", *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout_s, check=False
        )
    except FileNotFoundError:
        raise DatasetError("the git command is not installed; install git or give a local dataset_path") from None
    except subprocess.TimeoutExpired:
        raise DatasetError(f"git {args[0]} took longer than {timeout_s:g}s") from None
    if res.returncode != 0:
        full = next((code for code in FULL_DISK_ERRNOS if os.strerror(code) in res.stderr), None)
        if full is not None:  # the checkout does not fit: the caller names where it was going
            raise StorageError(cwd or Path.cwd(), full)
        lines = [ln for ln in res.stderr.strip().splitlines() if ln.strip()] or [f"exit {res.returncode}"]
        raise DatasetError(f"git {args[0]}: {lines[-1].strip()}")
    return res.stdout.strip()


def _read_marker(path: Path) -> dict[str, str] | None:
    try:
        data = json.loads((path / MARKER).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None


def _reusable(path: Path, repo_url: str, revision: str, timeout_s: float) -> Checkout | None:
    marker = _read_marker(path) if path.is_dir() else None
    if not marker or marker.get("repo_url") != repo_url or marker.get("revision") != revision:
        return None
    try:
        head = _git(["rev-parse", "HEAD"], path, timeout_s)
    except DatasetError:
        return None
    if head != marker.get("commit"):
        return None
    return Checkout(path, repo_url, revision, head, reused=True)


def _fetch_into(tmp: Path, repo_url: str, revision: str, timeout_s: float) -> str:
    _git(["init", "-q", str(tmp)], None, timeout_s)
    _git(["remote", "add", "origin", repo_url], tmp, timeout_s)
    try:
        _git(["fetch", "-q", "--depth", "1", "origin", revision], tmp, timeout_s)
        target = "FETCH_HEAD"
    except DatasetError as shallow:
        if not _REFUSED.search(str(shallow)):  # offline, no access, no such repository: give up now
            raise
        log.info("shallow fetch of %s@%s refused (%s); fetching the whole repository", repo_url, revision, shallow)
        _git(["fetch", "-q", "--tags", "origin", "+refs/heads/*:refs/remotes/origin/*"], tmp, timeout_s)
        target = revision if revision.startswith("refs/") else _resolve(tmp, revision, timeout_s)
    _git(["-c", "advice.detachedHead=false", "checkout", "-q", "--detach", target], tmp, timeout_s)
    return _git(["rev-parse", "HEAD"], tmp, timeout_s)


def _resolve(tmp: Path, revision: str, timeout_s: float) -> str:
    for candidate in (revision, f"origin/{revision}", f"refs/tags/{revision}"):
        try:
            return _git(["rev-parse", "--verify", "-q", f"{candidate}^{{commit}}"], tmp, timeout_s)
        except DatasetError:
            continue
    raise DatasetError(f"revision {revision!r} not found in the repository")


def _install(tmp: Path, target: Path, checkout: Checkout) -> Checkout:
    """Rename the finished checkout into place (a concurrent run may have won the race: then use its copy)."""
    if target.exists():
        old = target.with_name(f".{target.name}.old-{uuid.uuid4().hex[:8]}")
        try:
            os.rename(target, old)
        except OSError:
            pass
        shutil.rmtree(old, ignore_errors=True)
    try:
        os.rename(tmp, target)
    except OSError:
        shutil.rmtree(tmp, ignore_errors=True)
        existing = _reusable(target, checkout.repo_url, checkout.revision, 60)
        if existing is None:
            raise DatasetError(f"{target}: cannot install the checkout (is another run writing it?)") from None
        return existing
    checkout.path = target
    return checkout


def fetch_checkout(
    repo_url: str, revision: str, data_dir: Path, *, timeout_s: float = 1800.0, folder: str = "terminal_bench"
) -> Checkout:
    """The checkout of ``repo_url`` at ``revision`` under ``data_dir/folder`` (reused when already there)."""
    target = checkout_dir(data_dir, repo_url, revision, folder)
    existing = _reusable(target, repo_url, revision, timeout_s)
    if existing is not None:
        log.info("using cached checkout %s (commit %s)", target, existing.commit[:12])
        return existing
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = target.with_name(f".{target.name}.tmp-{uuid.uuid4().hex[:8]}")
    log.info("fetching %s@%s into %s", repo_url, revision, target)
    try:
        commit = _fetch_into(tmp, repo_url, revision, timeout_s)
        marker = {"repo_url": repo_url, "revision": revision, "commit": commit}
        (tmp / MARKER).write_text(json.dumps(marker, indent=2) + "\n", encoding="utf-8")
        return _install(tmp, target, Checkout(tmp, repo_url, revision, commit))
    except OSError as exc:  # a StorageError of git's, or of the marker's write
        full = storage_error(exc)
        if full is None:
            raise
        raise StorageError(target, full.errno, what=f"cannot fetch {repo_url}@{revision} into") from None
    except DatasetError as exc:
        raise DatasetError(
            f"cannot fetch tasks from {repo_url} at revision {revision!r}: {exc}. Offline or no "
            f"access? Clone the repository yourself (git clone {repo_url}; git checkout "
            f"{revision}) and pass benchmark_params.dataset_path=<the directory holding the task "
            f"directories>"
        ) from None
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
