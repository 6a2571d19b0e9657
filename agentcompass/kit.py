"""The helper kit: what plug-ins (and the core) share, so that no plug-in keeps a copy of its own.

Plug-ins may import this module, :mod:`agentcompass.interfaces` and :mod:`agentcompass.errors`, and nothing
else of the package (``docs/plugins.md``).

- Files: :func:`write_atomic` (text or bytes) and :func:`write_json`: a temporary file in the same directory,
  then a rename, so a reader never sees a partial file and a crash leaves the old one; :func:`replacing` is
  the same for a file another program writes (``tar -cf``, a download); :func:`place` moves a downloaded
  file or tree to its destination (a directory merges into an existing one). A full disk (or quota) is a
  :class:`~agentcompass.errors.StorageError` naming the file (:func:`writing` does the same for any write).
- Processes: :func:`start_ticks` and :func:`process_alive` (a pid that still runs and is not a reused one).
- Names: :func:`slug`, a string reduced to the characters a file, container or image name may hold.
- Tasks: :func:`select_ids`, a benchmark's ``sample_ids`` then ``limit`` over its task ids.
- Figures: :func:`share_with_interval`, a share over tasks with the 95 % interval every summary figure carries.
- Places: :func:`default_data_dir` and :func:`data_dir` (datasets, checkouts, caches).
- Dependencies: :func:`require` imports an optional dependency (a missing one is a DependencyError naming
  ``pip install 'agentcompass[<extra>]'``, or it is installed with ``auto_install_dependencies``);
  :func:`ensure_tools` makes sure commands exist inside an environment (installed with the image's package
  manager under ``auto_install_dependencies``, never on the host).
"""

from __future__ import annotations

import contextlib
import itertools
import json
import os
import re
import shutil
import uuid
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING, Any, TypedDict

if TYPE_CHECKING:
    from agentcompass._stats.shapes import Interval
    from agentcompass.interfaces import Environment

__all__ = [
    "data_dir",
    "default_data_dir",
    "ensure_tools",
    "place",
    "process_alive",
    "replacing",
    "require",
    "select_ids",
    "slug",
    "start_ticks",
    "write_atomic",
    "write_json",
    "writing",
]

# --------------------------------------------------------------------------- files


@contextmanager
def writing(path: str | Path) -> Iterator[None]:
    """Around a write of ``path``: an OSError of a full disk or quota (``ENOSPC``, ``EDQUOT``) becomes a
    :class:`~agentcompass.errors.StorageError` naming ``path`` (the request stops; nothing half-written stays)."""
    try:
        yield
    except OSError as exc:
        from agentcompass.errors import storage_error

        full = storage_error(exc, path)
        if full is None or full is exc:
            raise
        raise full from exc


@contextmanager
def replacing(path: str | Path) -> Iterator[Path]:
    """A temporary path next to ``path`` (parents created) that becomes ``path`` by a rename when the block ends
    without an error; on an error it is removed and ``path`` is left as it was.

    ``with kit.replacing(tarball) as part: subprocess.run(["tar", "-cf", str(part), "."], check=True)``"""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.{uuid.uuid4().hex[:8]}.tmp")
    try:
        yield tmp
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


def write_atomic(path: str | Path, data: str | bytes, *, mode: int | None = None, durable: bool = False) -> None:
    """Write ``data`` (str: UTF-8) to ``path`` through a temporary file in the same directory and a rename.

    Parents are created. The file gets ``mode`` when given, else the mode a new file gets (0o666 less the
    umask). ``durable`` also fsyncs before the rename (survives a power loss; costs a blocking disk flush)."""
    raw = data.encode("utf-8") if isinstance(data, str) else data
    target = os.fspath(path)
    folder, name = os.path.split(target)
    with writing(path):
        tmp, fd = _create_temp(folder or ".", name)
        try:
            try:
                _write_all(fd, raw)
                if mode is not None:
                    os.fchmod(fd, mode)
                if durable:
                    os.fsync(fd)
            finally:
                os.close(fd)
            os.replace(tmp, target)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
            raise


def _write_all(fd: int, raw: bytes) -> None:
    """``raw`` to ``fd`` whole (a write may take less than all of it)."""
    done = os.write(fd, raw)
    if done < len(raw):
        view = memoryview(raw)[done:]
        while view:
            view = view[os.write(fd, view) :]


_temp_numbers = itertools.count()


def _create_temp(folder: str, name: str) -> tuple[str, int]:
    """A new temporary file next to ``folder/name`` (the folder created when missing): (its path, an fd open for
    writing). Named by process and a counter (``.NAME.PID.N.tmp``); a name left by a process that died with the
    same pid is passed over."""
    for attempt in range(3):
        suffix = next(_temp_numbers) if attempt < 2 else uuid.uuid4().hex[:8]
        tmp = f"{folder}/.{name}.{os.getpid()}.{suffix}.tmp"
        try:
            return tmp, os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
        except FileNotFoundError:
            os.makedirs(folder, exist_ok=True)
        except FileExistsError:
            continue
    return tmp, os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)


def place(top: str | Path, dst: str | Path) -> None:
    """Move ``top`` to ``dst``: a directory merges into an existing directory, anything else replaces ``dst``.

    Symbolic links are moved as links, never followed (check them before, e.g. that they stay inside a tree)."""
    top, dst = Path(top), Path(dst)
    if top.is_dir() and not top.is_symlink() and dst.is_dir() and not dst.is_symlink():
        shutil.copytree(top, dst, symlinks=True, dirs_exist_ok=True)
        return
    if dst.is_dir() and not dst.is_symlink():
        shutil.rmtree(dst)
    elif dst.exists() or dst.is_symlink():
        dst.unlink()
    os.replace(top, dst)


def start_ticks(pid: int) -> int | None:
    """When process ``pid`` started (clock ticks since boot, Linux /proc), or None when there is no such process."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as fh:
            return int(fh.read(4096).rsplit(b")", 1)[1].split()[19])
    except (OSError, IndexError, ValueError):
        return None


def process_alive(pid: int, ticks: int | None = None) -> bool:
    """True when ``pid`` runs and (given ``ticks``) is the process that started then, not a reused pid."""
    if pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        pass
    now = start_ticks(pid)
    return ticks is None or now is None or now == ticks


def write_json(
    path: str | Path,
    obj: Any,
    *,
    indent: int | None = 2,
    ensure_ascii: bool = True,
    default: Callable[[Any], Any] | None = None,
    durable: bool = False,
) -> str:
    """:func:`write_atomic` of ``obj`` as JSON (``indent`` None: one line), with a final newline; returns the
    path as a string (what a benchmark's ``finalize`` lists under ``paths``)."""
    text = json.dumps(obj, indent=indent, ensure_ascii=ensure_ascii, default=default)
    write_atomic(path, text + "\n", durable=durable)
    return str(path)


# --------------------------------------------------------------------------- names

_SLUG_PATTERNS: dict[str, re.Pattern[str]] = {}


def slug(
    text: str,
    *,
    keep: str = "A-Za-z0-9_.-",
    sep: str = "-",
    lower: bool = False,
    strip: str = "",
    limit: int | None = None,
    default: str = "x",
) -> str:
    """``text`` with every run of characters outside ``keep`` (a regex character-class body) replaced by ``sep``.

    ``lower`` lower-cases first; ``strip`` characters are removed from both ends; the result is cut to
    ``limit`` characters; an empty result is ``default``. Examples: ``slug("Build Me/1", keep="a-z0-9",
    lower=True, strip="-")`` is ``"build-me-1"``; ``slug("a/b", sep="__")`` is ``"a__b"``."""
    pattern = _SLUG_PATTERNS.get(keep)
    if pattern is None:
        pattern = _SLUG_PATTERNS[keep] = re.compile(f"[^{keep}]+")
    out = pattern.sub(sep, text.lower() if lower else text)
    if strip:
        out = out.strip(strip)
    if limit is not None:
        out = out[:limit]
    return out or default


# --------------------------------------------------------------------------- tasks


def select_ids(ids: Sequence[str], sample_ids: Sequence[str] | None, limit: int | None, where: str = "") -> list[str]:
    """The task ids a benchmark's config selects from ``ids``: exactly ``sample_ids`` in their order (when given),
    then the first ``limit``. An unknown sample id is a ConfigError naming it, ``where`` the ids come from, and the
    first valid ids."""
    out = list(ids)
    if sample_ids is not None:
        known = set(out)
        unknown = [i for i in sample_ids if i not in known]
        if unknown:
            from agentcompass.errors import ConfigError

            more = " ..." if len(out) > 20 else ""
            raise ConfigError(
                f"benchmark.sample_ids: unknown task id(s) {unknown}{' in ' + where if where else ''}; "
                f"valid: {', '.join(out[:20])}{more}"
            )
        out = list(sample_ids)
    return out if limit is None else out[:limit]


# --------------------------------------------------------------------------- figures


class ShareFigure(TypedDict):
    """A benchmark figure over tasks (:func:`share_with_interval`): the share, the number of tasks, the interval."""

    value: float | None
    n: int
    ci: Interval


def share_with_interval(outcomes: dict[str, Sequence[float]]) -> ShareFigure:
    """A benchmark figure over tasks, ``{value, n, ci}``: ``outcomes`` maps each task to its samples' values (0 to
    1); ``value`` is their mean over all samples, ``n`` the number of tasks and ``ci`` its 95 % interval over
    tasks, as the summary's ``<figure>_ci`` (Wilson for binary per-task outcomes, else task-clustered t;
    ``docs/statistics.md``)."""
    from agentcompass._stats.intervals import ratio_interval, rounded

    totals = [float(sum(v)) for v in outcomes.values()]
    sizes = [len(v) for v in outcomes.values()]
    ci = rounded(ratio_interval(totals, sizes, bounds=(0.0, 1.0)))
    return {"value": sum(totals) / sum(sizes) if sum(sizes) else None, "n": len(totals), "ci": ci}


# --------------------------------------------------------------------------- places


def default_data_dir() -> Path:
    """Datasets, cloned task repositories and caches: ``$AGENTCOMPASS_DATA_DIR``, else ``~/.cache/agentcompass``."""
    return Path(os.environ.get("AGENTCOMPASS_DATA_DIR") or Path.home() / ".cache" / "agentcompass")


def data_dir(ctx: Any = None) -> Path:
    """The request's data directory (``ctx.data_dir`` of a ComponentContext), else :func:`default_data_dir`."""
    configured = getattr(ctx, "data_dir", None) if ctx is not None else None
    return Path(configured).expanduser() if configured else default_data_dir()


# --------------------------------------------------------------------------- dependencies


def require(
    module: str, extra: str, *, auto_install: bool | None = None, package: str | None = None, purpose: str = ""
) -> ModuleType:
    """Import ``module`` (of the ``extra`` extra); when it is missing, a DependencyError names the exact
    ``pip install 'agentcompass[<extra>]'`` command, or with ``auto_install`` (default: the request's
    ``auto_install_dependencies``) it is installed into the running interpreter and the import is retried."""
    from agentcompass._deps import require as _require

    return _require(module, extra, auto_install=auto_install, package=package, purpose=purpose)


async def ensure_tools(
    env: Environment, tools: Sequence[str], *, auto_install: bool, image_hint: str = ""
) -> list[str]:
    """Make sure the commands ``tools`` exist inside environment ``env``; return the ones it installed.

    Missing tools are installed with the image's package manager (apt-get, apk, dnf, yum, microdnf; sudo -n
    when not root) only with ``auto_install``, and never in an environment on the host (``interfaces.ON_HOST``).
    Raises DependencyError naming the tools, the environment (``image_hint``: its image) and the flag."""
    from agentcompass._deps import ensure_tools as _ensure

    return await _ensure(env, tools, auto_install=auto_install, image_hint=image_hint)
