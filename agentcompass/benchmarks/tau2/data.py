"""Where τ²-bench comes from: the tau2-bench repository at a pinned commit, checked out once into
``<data_dir>/tau2/tau2-bench@<commit>`` (git, as Terminal-Bench's task repositories are), or a local checkout
(``dataset_path``); and its tasks, read as the reference reads them.

A domain's tasks are ``data/tau2/domains/<domain>/tasks.json`` (``tasks_small.json`` for telecom's ``small`` split
when the full file is absent, as in offline copies); a split is a list of task ids in ``split_<tasks file stem>.json``
(``train``, ``test``, ``base``, and telecom's ``small`` and ``full``); ``all`` takes every task of the file.
"""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

from agentcompass.errors import ConfigError, DatasetError

from .shapes import Tau2Task

REPO_URL = "https://github.com/sierra-research/tau2-bench.git"
REVISION = "a2c024725189473d2d7cea3a5cfdbcc67478e41f"  # tau2 1.0.1
DOMAINS = ("airline", "retail", "telecom")


def checkout_root(dataset_path: str | None, repo_url: str, revision: str, data_dir: Path, timeout_s: float) -> Path:
    """The tau2-bench checkout: ``dataset_path`` when given (checked), else fetched into the data dir."""
    if dataset_path:
        root = Path(dataset_path).expanduser()
        if not (root / "src" / "tau2").is_dir() or not (root / "data" / "tau2" / "domains").is_dir():
            raise DatasetError(
                f"dataset_path {str(root)!r} is not a tau2-bench checkout (it needs src/tau2/ and data/tau2/domains/)"
            )
        return root
    from agentcompass.benchmarks.terminal_bench.source import fetch_checkout

    try:
        return fetch_checkout(repo_url, revision, data_dir, timeout_s=timeout_s, folder="tau2").path
    except DatasetError as exc:
        raise DatasetError(
            f"cannot fetch tau2-bench ({repo_url} at {revision[:12]}): {str(exc).split(': ', 1)[-1]}. Offline? "
            f"Clone it yourself (git clone {repo_url}; git checkout {revision}) and pass "
            "benchmark_params.dataset_path=<the checkout>"
        ) from None


def load_tasks(root: Path, domain: str, split: str) -> list[Tau2Task]:
    """The tasks of ``split`` of ``domain``, in the file's order, as the reference's ``get_tasks`` selects them."""
    folder = root / "data" / "tau2" / "domains" / domain
    path = folder / "tasks.json"
    if not path.is_file() and split == "small" and (folder / "tasks_small.json").is_file():
        path = folder / "tasks_small.json"
    if not path.is_file():
        hint = " (offline copies of telecom hold tasks_small.json only: task_split=small)" * (domain == "telecom")
        raise DatasetError(f"{path} is missing: split {split!r} of {domain} needs it{hint}")
    tasks = _read_json(path)
    if isinstance(tasks, dict) and "tasks" in tasks:
        tasks = tasks["tasks"]
    if split == "all" or path.name == "tasks_small.json":
        return list(tasks)
    splits = _read_json(path.with_name(f"split_{path.stem}.json"))
    if split not in splits:
        raise ConfigError(f"benchmark.task_split={split!r} is not a split of {domain}; valid: all, {', '.join(splits)}")
    wanted = set(splits[split])
    return [t for t in tasks if t["id"] in wanted]


def trial_seed(seed: int | None, sample: int) -> int | None:
    """The seed of sample ``sample`` (1-based) as the reference's batch runner derives its trials' seeds from
    ``seed`` (``random.seed(seed)``, then one ``randint(0, 1000000)`` per trial)."""
    if seed is None:
        return None
    rng = random.Random(seed)
    value = 0
    for _ in range(max(sample, 1)):
        value = rng.randint(0, 1000000)
    return value


def _read_json(path: Path) -> Any:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise DatasetError(f"cannot read {path}: {exc.strerror or exc}") from None
    except ValueError as exc:
        raise DatasetError(f"{path} is not valid JSON: {exc}") from None
