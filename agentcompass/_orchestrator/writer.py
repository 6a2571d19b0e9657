"""The run directory's file writes, in the order they were asked for, never stalling the event loop for long.

An attempt writes its directory, its checkpoint, its ``result.json`` and its ``results.jsonl`` line. What matters
is that they happen, in order (the checkpoint before the result, the result before the run's line), and that a
slow disk does not stall every other attempt. :class:`Writer` runs them inline while the disk answers fast: a
write that waits longer than ``slow_s`` (20 ms, off the CPU: the disk's time, not a garbage collection's) moves
every later write to one thread of their own for the rest of the run (a slow disk stalls the event loop once, for
one write). Handing every
write to a thread instead costs more than the write itself on a local disk (a wake-up of the thread, of the loop
when it is done, and both contending for the interpreter): 1,000 trivial attempts took 1.6 s that way against 1.0 s
inline.

:meth:`Writer.later` returns at once (an error is logged at DEBUG and raised by the next :meth:`Writer.flush`),
:meth:`Writer.now` waits for its write (and so for every write queued before it), :meth:`Writer.flush` for
everything queued, raising the first error a queued write met. The thread starts with the first write it gets and
ends when it has had nothing to do for a second.
"""

from __future__ import annotations

import asyncio
import logging
import queue
import threading
import time
from collections.abc import Callable
from typing import Any

log = logging.getLogger("agentcompass")
IDLE_S = 1.0
SLOW_S = 0.02  # an inline write that waits longer than this (off the CPU) sends the later ones to the thread


class Writer:
    def __init__(self, slow_s: float = SLOW_S) -> None:
        self._queue: queue.SimpleQueue[tuple[Callable[..., Any], tuple[Any, ...], Callable[..., None] | None]]
        self._queue = queue.SimpleQueue()
        self._lock = threading.Lock()
        self._thread: threading.Thread | None = None
        self._pending = 0
        self._idle = threading.Event()
        self._idle.set()
        self._slow_s = slow_s
        self.threaded = slow_s <= 0  # every write in the thread (after a slow one, or asked for)
        self.error: BaseException | None = None  # of a later() write, until flush raises it
        self._first_error: BaseException | None = None  # of any write, kept

    def later(self, fn: Callable[..., Any], *args: Any) -> None:
        """Run ``fn(*args)`` (or queue it); its error, if any, is logged and raised by the next :meth:`flush`."""
        if self._inline():
            try:
                self._timed(fn, args)
            except BaseException as exc:  # kept for flush, as in the thread
                self._kept(exc)
            return
        self._put(fn, args, None)

    async def now(self, fn: Callable[..., Any], *args: Any) -> Any:
        """Run ``fn(*args)`` after every write asked for before it; its result or error."""
        if self._inline():
            try:
                return self._timed(fn, args)
            except BaseException as exc:
                self._note(exc)
                raise
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
        """The first error any write met (None: none so far); read by the writes that must not come after a
        failed one."""
        return self._first_error

    def raise_error(self) -> None:
        error, self.error = self.error, None
        if error is not None:
            raise error

    def _inline(self) -> bool:
        """Run the next write here: the disk has been fast and nothing waits in the thread before it."""
        return not self.threaded and self._pending == 0

    def _timed(self, fn: Callable[..., Any], args: tuple[Any, ...]) -> Any:
        """``fn(*args)`` here; slow means waiting, not computing: a garbage collection or a large JSON encoding
        during the write is CPU time of this thread and does not count."""
        start, cpu = time.perf_counter(), time.thread_time()
        try:
            return fn(*args)
        finally:
            waited = (time.perf_counter() - start) - (time.thread_time() - cpu)
            if waited > self._slow_s and not self.threaded:
                self.threaded = True
                log.debug("a write of the run's files waited %.0f ms: the later ones go to a thread", waited * 1000)

    def _note(self, exc: BaseException) -> None:
        if self._first_error is None:
            self._first_error = exc

    def _kept(self, exc: BaseException) -> None:
        """The error of a write nobody waits for: logged, and raised by the next flush."""
        self._note(exc)
        log.debug("could not write the run's files: %s: %s", type(exc).__name__, exc)
        if self.error is None:
            self.error = exc

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
                self._note(exc)
            if done is not None:
                done(result, error)
            elif error is not None:
                self._kept(error)
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
