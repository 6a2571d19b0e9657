"""Typed progress events, the user's ``on_progress`` callback, and the console display (tqdm or plain)."""

from __future__ import annotations

import asyncio
import logging
import sys
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from typing import Any

from agentcompass.interfaces import AttemptStatus, RunStatus

log = logging.getLogger("agentcompass")


@dataclass
class ProgressEvent:
    request: str
    task_id: str = ""
    attempt: int = 0
    kind: str = "event"
    sample: int = 1
    time: float = field(default_factory=time.time)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass
class AttemptStarted(ProgressEvent):
    kind: str = "attempt_started"


@dataclass
class PhaseChanged(ProgressEvent):
    phase: str = ""
    kind: str = "phase_changed"


@dataclass
class AttemptFinished(ProgressEvent):
    status: AttemptStatus = AttemptStatus.COMPLETED
    reward: float | None = None
    error: str | None = None
    duration_s: float = 0.0
    final: bool = True
    model_retries: int = 0  # retried model calls inside this attempt
    kind: str = "attempt_finished"


@dataclass
class RetryScheduled(ProgressEvent):
    error: str = ""
    kind: str = "retry_scheduled"


@dataclass
class RequestFinished(ProgressEvent):
    status: RunStatus = RunStatus.COMPLETED
    metrics: dict[str, Any] = field(default_factory=dict)
    kind: str = "request_finished"


LEGEND = (
    "progress: N/M = samples finished / to run (a sample: one run of a task, -k); running = attempts in progress; "
    "mean_reward = over the finished samples (errors as 0); errors = samples that ended in an error; "
    "retries = attempts scheduled again after an error"
)


@dataclass
class _Tally:
    """What one request has finished so far."""

    total: int = 0
    done: int = 0
    errors: int = 0
    reward_sum: float = 0.0

    def text(self, counts: bool = True) -> str:
        mean = f"{self.reward_sum / self.done:.3f}" if self.done else "-"
        return f"{f'{self.done}/{self.total} ' if counts else ''}mean_reward={mean} errors={self.errors}"


class Progress:
    """Counts, shows and forwards events. One instance per request or per orchestration; counts are per
    request (a ``launch`` never mixes its requests' rewards into one mean)."""

    def __init__(
        self, mode: str, total: int, callback: Callable[[ProgressEvent], Any] | None = None, desc: str = "agentcompass"
    ) -> None:
        self.mode = "bar" if mode == "auto" and _interactive() else ("none" if mode == "none" else "plain")
        self.callback, self.total, self.desc = callback, total, desc
        self.done = self.running = self.errors = self.retries = self.model_retries = 0
        self.per_request: dict[str, _Tally] = {}
        self._legend = False
        self._bar = None
        if self.mode == "bar":
            from tqdm.auto import tqdm  # a widget in notebooks, the terminal bar elsewhere

            from ..record import live_bars

            self._bar = tqdm(total=total, desc=desc, unit="sample", dynamic_ncols=True, file=sys.stderr)
            live_bars.append(type(self._bar))

    def add_total(self, n: int, request: str = "") -> None:
        self.total += n
        self.per_request.setdefault(request, _Tally()).total += n
        if self._bar is not None:
            self._bar.total = self.total
            self._bar.refresh()

    def emit(self, event: ProgressEvent) -> None:
        self._count(event)
        self._show(event)
        if self.callback is not None:
            self._forward(event)

    def _count(self, e: ProgressEvent) -> None:
        if isinstance(e, AttemptStarted):
            self.running += 1
        elif isinstance(e, AttemptFinished):
            self.running -= 1
            self.model_retries += e.model_retries
            if e.final:
                self.done += 1
                self.errors += e.status == AttemptStatus.ERROR
                tally = self.per_request.get(e.request) or self.per_request.setdefault("", _Tally())
                tally.done += 1
                tally.errors += e.status == AttemptStatus.ERROR
                tally.reward_sum += e.reward or 0.0
        elif isinstance(e, RetryScheduled):
            self.retries += 1

    def postfix(self) -> str:
        """``running=R retries=N`` then, per request, its finished / total samples, mean reward and errors."""
        text = f"running={self.running} retries={self.retries}"
        if self.model_retries:
            text += f" api_retries={self.model_retries}"
        tallies = {k: v for k, v in self.per_request.items() if v.total or v.done}
        if len(tallies) == 1:
            return f"{text} {next(iter(tallies.values())).text(counts=False)}"
        return text + "".join(f" | {k or '-'} {v.text()}" for k, v in sorted(tallies.items()))

    def _show(self, e: ProgressEvent) -> None:
        if self._bar is not None:
            if isinstance(e, AttemptFinished) and e.final:
                self._bar.update(1)
            self._bar.set_postfix_str(self.postfix(), refresh=False)
            self._bar.refresh()
        elif self.mode == "plain" and isinstance(e, (AttemptFinished, RetryScheduled)):
            if not self._legend:
                self._legend = True
                print(LEGEND, file=sys.stderr, flush=True)
            tag = f"[{e.request}] " if e.request else ""
            if isinstance(e, RetryScheduled):
                line = f"{tag}retry {_name(e)} (attempt {e.attempt + 1}): {e.error}"
            else:
                tally = self.per_request.get(e.request) or self.per_request.get("") or _Tally()
                line = f"{tag}{tally.done}/{tally.total} {_name(e)}: {e.status} reward={e.reward}"
            print(f"{line} | {self.postfix()}", file=sys.stderr, flush=True)

    def _forward(self, event: ProgressEvent) -> None:
        try:
            out = self.callback(event)  # type: ignore[misc]
            if asyncio.iscoroutine(out):
                task = asyncio.ensure_future(out)
                task.add_done_callback(_log_callback_error)
        except Exception as exc:  # a broken callback never kills the run
            log.warning("on_progress callback raised %s: %s", type(exc).__name__, exc)

    def close(self) -> None:
        if self._bar is not None:
            from ..record import live_bars

            self._bar.close()
            if type(self._bar) in live_bars:
                live_bars.remove(type(self._bar))
            self._bar = None


def _name(e: ProgressEvent) -> str:
    return e.task_id if e.sample == 1 else f"{e.task_id}#{e.sample}"


def _interactive() -> bool:
    """A terminal on stderr, or a notebook kernel (where tqdm.auto draws a widget)."""
    return sys.stderr.isatty() or "ipykernel" in sys.modules


def _log_callback_error(task: asyncio.Future) -> None:
    if not task.cancelled() and task.exception() is not None:
        exc = task.exception()
        log.warning("on_progress callback raised %s: %s", type(exc).__name__, exc)
