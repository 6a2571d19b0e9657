"""Console and per-run file logging on the ``agentcompass`` logger (never the root logger).

Records are routed to a run's ``run.log`` by a context variable set for the request's tasks, so several
requests of one orchestration each keep their own file. Every handler scrubs registered secrets.
"""

from __future__ import annotations

import contextvars
import logging
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from agentcompass._config import RedactingFilter

current_request: contextvars.ContextVar[str] = contextvars.ContextVar("agentcompass_request", default="")
LOGGER = logging.getLogger("agentcompass")
_FORMAT = "%(asctime)s %(levelname)s %(name)s: %(message)s"


class _RequestFilter(logging.Filter):
    def __init__(self, request: str) -> None:
        super().__init__()
        self.request = request

    def filter(self, record: logging.LogRecord) -> bool:
        return current_request.get() in (self.request, "")


def _lower_level(level: int) -> None:
    if LOGGER.level == logging.NOTSET or LOGGER.level > level:
        LOGGER.setLevel(level)


@contextmanager
def _attached(handler: logging.Handler, level: str) -> Iterator[None]:
    """Attach ``handler`` (scrubbing secrets) to the agentcompass logger, lowering its level if needed."""
    handler.setLevel(level)
    handler.addFilter(RedactingFilter())
    previous = LOGGER.level
    _lower_level(logging.getLevelName(level))
    LOGGER.addHandler(handler)
    try:
        yield
    finally:
        LOGGER.removeHandler(handler)
        handler.close()
        LOGGER.setLevel(previous)


# the progress bar being drawn on the console, if any: console records are written through it
live_bars: list[Any] = []


class _ConsoleHandler(logging.StreamHandler):
    """A stderr handler that, while a progress bar is live, writes each record above the bar (``tqdm.write``
    clears the bar, prints the line and redraws it) instead of into the middle of its frame."""

    def emit(self, record: logging.LogRecord) -> None:
        if not live_bars:
            super().emit(record)
            return
        try:
            live_bars[-1].write(self.format(record), file=self.stream)
        except Exception:
            self.handleError(record)


@contextmanager
def console_logging(level: str | None = None) -> Iterator[None]:
    """Attach a stderr handler for the duration of an SDK / CLI call (None: the schema's ``log_level``)."""
    if level is None:
        from agentcompass._config import RuntimeConfig, default_of

        level = str(default_of(RuntimeConfig, "log_level"))
    handler = _ConsoleHandler(sys.stderr)
    handler.setFormatter(logging.Formatter("%(levelname)s %(message)s"))
    with _attached(handler, level):
        yield


class _RunLogHandler(logging.FileHandler):
    """``run.log``: a write that fails (a full disk) stops the file log, quietly; the run reports the full disk
    itself, and logging's own report would print a traceback per record on the console."""

    failed = False

    def handleError(self, record: logging.LogRecord) -> None:
        self.failed = True

    def emit(self, record: logging.LogRecord) -> None:
        if not self.failed:
            super().emit(record)

    def close(self) -> None:
        try:
            super().close()
        except OSError:  # the last flush did not fit
            self.failed = True


@contextmanager
def file_logging(path: Path, level: str, request: str) -> Iterator[None]:
    path.parent.mkdir(parents=True, exist_ok=True)
    handler = _RunLogHandler(path, encoding="utf-8")
    handler.setFormatter(logging.Formatter(_FORMAT))
    handler.addFilter(_RequestFilter(request))
    with _attached(handler, level):
        yield
