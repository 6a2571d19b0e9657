"""``run.json`` kept current while a request runs: rewritten as tasks finish, at most once per interval."""

from __future__ import annotations

import asyncio
import logging
import threading
import time
from collections.abc import Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .result import RunRecord

log = logging.getLogger("agentcompass")


class ThrottledRecord:
    """Write a record when it changes, at most once per ``interval`` seconds and never more than ``interval``
    behind: the first change is written at once, later ones at the end of the interval. ``snapshot()`` runs
    on the event loop (it may read the request's state); ``write(record)`` runs in a worker thread.
    After :meth:`close` nothing more is written, not even a write already in a worker thread, so the record
    written last by the caller (the final status) is never overwritten by a late progress write."""

    def __init__(
        self, snapshot: Callable[[], RunRecord], write: Callable[[RunRecord], None], interval: float = 1.0
    ) -> None:
        self.snapshot, self.write, self.interval = snapshot, write, interval
        self._last = float("-inf")
        self._timer: asyncio.TimerHandle | None = None
        self._lock = threading.Lock()
        self._closed = False

    def changed(self) -> None:
        """Note a change (called on the event loop)."""
        if self._closed or self._timer is not None:
            return
        wait = self._last + self.interval - time.monotonic()
        if wait <= 0:
            self._fire()
        else:
            self._timer = asyncio.get_running_loop().call_later(wait, self._fire)

    def _fire(self) -> None:
        self._timer = None
        if self._closed:
            return
        self._last = time.monotonic()
        record = self.snapshot()
        asyncio.get_running_loop().run_in_executor(None, self._write, record)

    def _write(self, record: RunRecord) -> None:
        with self._lock:
            if self._closed:
                return
            try:
                self.write(record)
            except OSError as exc:  # a progress write that fails is not worth failing the run for
                log.warning("could not update run.json: %s", exc)

    def close(self) -> None:
        """Stop writing (safe from any thread); a write in progress finishes first."""
        with self._lock:
            self._closed = True
        timer, self._timer = self._timer, None
        if timer is not None:
            timer.cancel()
