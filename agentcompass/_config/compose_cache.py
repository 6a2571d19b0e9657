"""Hydra's compositions kept between processes: ``<data_dir>/compose/<sha256>.json``.

Every command composes its request in a new process, and Hydra takes about 0.1 s of CPU for it (plus the import
of its composer); the cache of :mod:`.compose` helps only a process that composes more than once. The same inputs
compose to the same unresolved config, so it is also kept on disk under a key made of:

- the inputs: the group choices, the user's config files as read, the overrides (:func:`.compose._hydra_compose`);
- the state of every config tree, bundled and plug-ins' (each YAML file's path, mtime and size);
- the code that composes: this package's ``compose`` and ``registry`` modules and Hydra's and OmegaConf's
  installed packages (their files' path, mtime and size).

Interpolations are still resolved at every call (``${oc.env:...}`` reads the environment of the call). A file
that cannot be read or holds another key is a miss; a config that JSON does not carry exactly (a non-string key)
is not kept; a write that fails is skipped (logged at DEBUG). At most :data:`MAX_FILES` files are kept, the
oldest removed first. ``AGENTCOMPASS_COMPOSE_CACHE=0`` turns the cache off.
"""

from __future__ import annotations

import functools
import hashlib
import json
import logging
import os
from pathlib import Path
from typing import Any

log = logging.getLogger("agentcompass")
MAX_FILES = 512
ENV_SWITCH = "AGENTCOMPASS_COMPOSE_CACHE"


def enabled() -> bool:
    return os.environ.get(ENV_SWITCH, "1").strip().lower() not in ("0", "false", "no", "off")


def folder() -> Path:
    from agentcompass.kit import default_data_dir

    return default_data_dir() / "compose"


@functools.cache
def code_stamp() -> tuple[tuple[str, int, int], ...]:
    """What composes (read once per process): the files of this package's composer and of Hydra and OmegaConf."""
    import importlib.util

    here = Path(__file__).resolve().parent
    files = [here / "compose.py", here / "registry.py"]
    for name in ("hydra", "omegaconf"):
        spec = importlib.util.find_spec(name)
        if spec is not None and spec.origin:
            files.append(Path(spec.origin))  # a new release rewrites the package's __init__.py
    return tuple((str(p), st.st_mtime_ns, st.st_size) for p in files if (st := p.stat()))


def _path(key: str) -> Path:
    return folder() / f"{hashlib.sha256(key.encode('utf-8')).hexdigest()}.json"


def get(key: str) -> tuple[dict[str, Any], bool] | None:
    """The kept (unresolved config, has interpolations) of ``key``, or None."""
    if not enabled():
        return None
    try:
        data = json.loads(_path(key).read_bytes())
    except (OSError, ValueError):
        return None
    if not isinstance(data, dict) or data.get("key") != key or not isinstance(data.get("config"), dict):
        return None
    return data["config"], bool(data.get("interpolates"))


def put(key: str, config: dict[str, Any], interpolates: bool) -> None:
    """Keep ``config`` under ``key`` (when JSON carries it exactly); never raises."""
    if not enabled():
        return
    try:
        text = json.dumps({"key": key, "config": config, "interpolates": interpolates}, allow_nan=False)
        if json.loads(text)["config"] != config:  # a non-string key, a tuple: not kept
            return
        from agentcompass.kit import write_atomic

        path = _path(key)
        write_atomic(path, text)
        _prune(path.parent)
    except (OSError, ValueError, TypeError) as exc:
        log.debug("the composed config was not kept in %s: %s", folder(), exc)


def _prune(where: Path) -> None:
    entries = [e for e in os.scandir(where) if e.name.endswith(".json")]
    if len(entries) <= MAX_FILES:
        return
    entries.sort(key=lambda e: e.stat().st_mtime_ns)
    for entry in entries[: len(entries) - MAX_FILES]:
        try:
            os.unlink(entry.path)
        except OSError:
            pass
