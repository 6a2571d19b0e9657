"""Hydra multirun through the agentcompass sweeper and launcher.

Jobs are described in memory (``ComposeInput``s, which may hold secrets) and registered under a token; the
Hydra sweep only carries job numbers (``+agentcompass_job=0,1,...``) or index-encoded overrides of a ``run -m``
sweep, so no secret ever enters Hydra's config. The agentcompass sweeper (``hydra/sweeper=agentcompass``)
expands the sweep and writes nothing; the launcher records each job's overrides and number (its position in the
batch). Every job is composed after the multirun returns, outside Hydra's global state, and the batch runs on
one pool after that.

The multirun itself is started through ``GlobalHydra.instance().hydra.multirun``: Hydra 1.3 (1.3.8 here) has
no public function that runs a multirun without ``@hydra.main``, which would take over argv, the working
directory and logging (docs/architecture.md).
"""

from __future__ import annotations

import copy
import threading
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from agentcompass._config import GROUPS, ComposeInput, ResolvedRequest, compose_request, conf_dir, hydra_lock
from agentcompass.errors import ConfigError

JOB_KEY = "agentcompass_job"
OVERRIDE_KEY = "agentcompass_ov"


@dataclass
class Job:
    name: str
    inp: ComposeInput | None  # None: composed by the caller (run_evaluation)
    resolved: ResolvedRequest | None = None
    error: BaseException | None = None


@dataclass
class SweepHandle:
    """What the caller registers: how to turn a Hydra job (its number in the batch, its overrides) into a
    named compose input."""

    to_job: Callable[[int, list[str]], Job]
    check: Callable[[ResolvedRequest], None] = lambda r: None
    batch: list[tuple[int, list[str]]] = field(default_factory=list)


_handles: dict[str, SweepHandle] = {}
_handles_lock = threading.Lock()


def launch_jobs(launcher: Any, job_overrides: Sequence[Sequence[str]], initial_job_idx: int) -> list[Any]:
    """Called by the Hydra launcher: record every job of the batch on the handle, return Hydra JobReturns."""
    from hydra.core.utils import JobReturn, JobStatus

    handle = _handles[launcher.token]
    returns = []
    for number, overrides in enumerate(job_overrides, start=initial_job_idx):
        handle.batch.append((number, list(overrides)))
        ret = JobReturn(overrides=list(overrides), status=JobStatus.COMPLETED, task_name=str(number))
        ret.return_value = number
        returns.append(ret)
    return returns


def run_sweep(handle: SweepHandle, sweep_overrides: list[str]) -> list[Job]:
    """One Hydra multirun over ``sweep_overrides`` with the agentcompass sweeper and launcher, then every job
    composed and checked (a job that fails is kept with its error); returns the jobs in batch order."""
    from hydra import initialize_config_dir
    from hydra.core.global_hydra import GlobalHydra
    from hydra.errors import HydraException

    token = uuid.uuid4().hex
    with _handles_lock:
        _handles[token] = handle
    overrides = [
        *sweep_overrides,
        "hydra/sweeper=agentcompass",
        "hydra/launcher=agentcompass",
        f"hydra.launcher.token={token}",
        "hydra/job_logging=none",
        "hydra/hydra_logging=none",
        "hydra.output_subdir=null",
    ]
    try:
        with hydra_lock(), initialize_config_dir(str(conf_dir()), version_base=None, job_name="agentcompass"):
            GlobalHydra.instance().hydra.multirun(  # type: ignore[union-attr]
                config_name=None, task_function=_never_called, overrides=overrides, with_log_configuration=False
            )
    except (HydraException, ValueError) as exc:
        raise ConfigError(f"sweep: {str(exc).strip().splitlines()[0]}") from None
    finally:
        with _handles_lock:
            _handles.pop(token, None)
    return [_composed(handle, number, job_overrides) for number, job_overrides in sorted(handle.batch)]


def _composed(handle: SweepHandle, number: int, overrides: list[str]) -> Job:
    job = handle.to_job(number, overrides)
    try:
        job.resolved = compose_request(job.inp)  # type: ignore[arg-type]  # a sweep's jobs have an input
        handle.check(job.resolved)
    except Exception as exc:  # recorded in the job's own outcome, never raised through the sweep
        job.error = exc
    return job


def _never_called(cfg: Any) -> None:  # the agentcompass launcher never runs Hydra's task function
    raise AssertionError("the agentcompass launcher does not call the task function")


# --------------------------------------------------------------------------------------- run -m sweeps


def encode_sweep(overrides: list[str]) -> tuple[list[str], list[str]]:
    """``key=v1,v2`` overrides -> index-encoded Hydra sweep overrides, and the list of keys by index."""
    keys, encoded = [], []
    for i, item in enumerate(overrides):
        key, sep, value = item.partition("=")
        if not sep:
            raise ConfigError(f"override {item!r} is not key=value")
        keys.append(key)
        encoded.append(f"+{OVERRIDE_KEY}.o{i}={value}")
    return encoded, keys


def decode_job(base: ComposeInput, keys: list[str], job_overrides: list[str]) -> Job:
    """A ``run -m`` job: group keys become component choices, other keys Hydra-style overrides."""
    inp = copy.deepcopy(base)
    inp.overrides = list(inp.overrides)
    parts = []
    for item in job_overrides:
        key, _, value = item.partition("=")
        index = int(key.rsplit(".o", 1)[1])
        real = keys[index]
        parts.append(f"{real.lstrip('+~')}={value}")
        if real in GROUPS:
            inp.choices = {**inp.choices, real: value}
        else:
            inp.overrides.append(f"{real}={value}")
    return Job(name=",".join(parts) or "job", inp=inp)
