"""The run directory's file writes, in one thread, in the order they were asked for.

An attempt writes its directory, its checkpoint, its ``result.json`` and its ``results.jsonl`` line; each used to
be a round trip through the event loop's thread pool (a future, a wake-up of the loop when it was done). Most of
them need no answer: what matters is that they happen, in order (the checkpoint before the result, the result
before the run's line), off the event loop (a slow disk must not stall every other attempt). :class:`Writer`
queues them to one thread: :meth:`Writer.later` returns at once, :meth:`Writer.now` waits for its write (and so
for every write queued before it), :meth:`Writer.flush` for everything queued, raising the first error a queued
write met (and logged at DEBUG when it happens). The thread starts with the first write and ends when it has had
nothing to do for a second.
"""

from __future__ import annotations

import asyncio
import logging
import queue
import threading
from collections.abc import Callable
from typing import Any

log = logging.getLogger("agentcompass")
IDLE_S = 1.0


class Writer:
    def __init__(self) -> None:
        self._queue: queue.SimpleQueue[tuple[Callable[..., Any], tuple[Any, ...], Callable[..., None] | None]]
        self._queue = queue.SimpleQueue()
        self._lock = threading.Lock()
        self._thread: threading.Thread | None = None
        self._pending = 0
        self._idle = threading.Event()
        self._idle.set()
        self.error: BaseException | None = None  # of a later() write, until flush raises it
        self._first_error: BaseException | None = None  # of any write, kept

    def later(self, fn: Callable[..., Any], *args: Any) -> None:
        """Queue ``fn(*args)``; its error, if any, is logged and raised by the next :meth:`flush`."""
        self._put(fn, args, None)

    async def now(self, fn: Callable[..., Any], *args: Any) -> Any:
        """Queue ``fn(*args)`` and wait for it (after every write queued before it); its result or error."""
        loop = asyncio.get_running_loop()
        fut = loop.create_future()

        def done(result: Any, error: BaseException | None) -> None:
            try:
                loop.call_soon_threadsafe(_settle, fut, result, error)
            except RuntimeError:  # the loop is closed: nobody waits any more
                pass

        self._put(fn, args, done)
        return await fut

    async def flush(self) -> None:
        """Wait until every queued write is done; raise the first error a :meth:`later` write met (once)."""
        if not self._idle.is_set():
            await asyncio.to_thread(self._idle.wait)
        self.raise_error()

    def flush_sync(self, timeout: float | None = None) -> None:
        """:meth:`flush` from a thread that is not the event loop's (or at the end, when nothing else runs)."""
        self._idle.wait(timeout)
        self.raise_error()

    @property
    def failed(self) -> BaseException | None:
        """The first error any write met (None: none so far); read in the thread by the writes that must not come
        after a failed one."""
        return self._first_error

    def raise_error(self) -> None:
        error, self.error = self.error, None
        if error is not None:
            raise error

    def _put(self, fn: Callable[..., Any], args: tuple[Any, ...], done: Callable[..., None] | None) -> None:
        with self._lock:
            self._pending += 1
            self._idle.clear()
            self._queue.put((fn, args, done))
            if self._thread is None:
                self._thread = threading.Thread(target=self._work, name="agentcompass-writer", daemon=True)
                self._thread.start()

    def _work(self) -> None:
        while True:
            try:
                fn, args, done = self._queue.get(timeout=IDLE_S)
            except queue.Empty:
                with self._lock:
                    if self._pending == 0:
                        self._thread = None
                        return
                continue
            result, error = None, None
            try:
                result = fn(*args)
            except BaseException as exc:  # reported to its waiter, or kept for flush
                error = exc
                if self._first_error is None:
                    self._first_error = exc
            if done is not None:
                done(result, error)
            elif error is not None:
                log.debug("could not write the run's files: %s: %s", type(error).__name__, error)  # raised by flush
                if self.error is None:
                    self.error = error
            with self._lock:
                self._pending -= 1
                if self._pending == 0:
                    self._idle.set()


def _settle(fut: asyncio.Future[Any], result: Any, error: BaseException | None) -> None:
    if fut.done():  # its waiter was cancelled
        return
    if error is not None:
        fut.set_exception(error)
    else:
        fut.set_result(result)
