"""The run directory's file writes, in the order they were asked for, never stalling the event loop for long.

An attempt writes its directory, its checkpoint, its ``result.json`` and its ``results.jsonl`` line. What matters is
that they happen, in order (the checkpoint before the result, the result before the run's line), and that a slow
disk does not stall every other attempt. :class:`Writer` runs them inline while that is cheaper: while the run's
attempts are short (agent and verifier 10 ms on average: trivial ones) and the disk answers fast. Handing each write
to a thread costs a wake-up of the thread and of the event loop when it is done, and an attempt that waits for its
write waits for both: 1,000 trivial attempts executed in 0.83-0.95 s that way, 0.43-0.54 s inline. Once attempts
last longer, the hand-off is a small part of each, and in the thread a write's system calls run beside the event
loop's work (:meth:`Writer.attempt_took`). A write that waits longer than ``slow_s`` (20 ms, off the CPU: the disk's
time, not a garbage collection's), or inline writes that wait 0.5 ms on average (a busy disk), send the later writes
to the thread too. The thread, once chosen, stays for the rest of the run.

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
SLOW_MEAN_S = 0.0005  # so do inline writes waiting this long on average (over MEAN_OVER writes at least): a thread
MEAN_OVER = 32  # hand-off costs about that much, and the thread waits while the event loop goes on
SHORT_ATTEMPT_S = 0.01  # inline only while the run's attempts are this short on average (over MEAN_OVER of them)


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
        self._waits, self._waited = 0, 0.0  # inline writes so far, the seconds they waited off the CPU
        self._attempts, self._attempt_s = 0, 0.0  # attempts ended so far, their seconds
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

    def attempt_took(self, seconds: float) -> None:
        """An attempt of the run ended, its own work (:func:`work_s`) ``seconds`` long. Writes stay inline only
        while attempts are short: then a hand-off to the thread and back would be a large part of each, and the
        attempts would wait for it. Once attempts last longer (on average over 32), the later writes go to the
        thread, where their system calls run beside the event loop's work instead of in it (4 requests of 250
        attempts of 50 ms on a pool of 32: pool utilisation 0.97-0.98 so, 0.84-0.88 inline)."""
        self._attempts += 1
        self._attempt_s += seconds
        if not self.threaded and self._attempts >= MEAN_OVER and self._attempt_s / self._attempts > SHORT_ATTEMPT_S:
            self.threaded = True
            mean = self._attempt_s / self._attempts
            log.debug("the run's attempts work %.0f ms on average: its writes go to a thread", mean * 1000)

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
            self._waits += 1
            self._waited += waited
            mean = self._waited / self._waits
            if not self.threaded and (waited > self._slow_s or (self._waits >= MEAN_OVER and mean > SLOW_MEAN_S)):
                self.threaded = True
                log.debug(
                    "a write of the run's files waited %.1f ms (%.2f ms on average): the later ones go to a thread",
                    waited * 1000,
                    mean * 1000,
                )

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


def work_s(phases: dict[str, float]) -> float:
    """An attempt's own work for :meth:`Writer.attempt_took`, from its ``phases``: its agent and verifier phases (its
    other phases and its duration also hold the time the event loop gave the other attempts)."""
    return float(phases.get("agent") or 0.0) + float(phases.get("verify") or 0.0)


def _settle(fut: asyncio.Future[Any], result: Any, error: BaseException | None) -> None:
    if fut.done():  # its waiter was cancelled
        return
    if error is not None:
        fut.set_exception(error)
    else:
        fut.set_result(result)
