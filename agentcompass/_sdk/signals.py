"""SIGTERM handled like SIGINT: what Slurm, Kubernetes, systemd and ``timeout`` send to stop a process.

Inside :func:`sigterm_as_interrupt` a SIGTERM does what a first Ctrl-C does: a running evaluation
(``asyncio.run`` cancels its main task on SIGINT) is cancelled, its attempts close their environments, the run
is recorded as ``cancelled`` with its summary, and ``KeyboardInterrupt`` comes out of the call. Outside an
event loop it raises ``KeyboardInterrupt`` at once. Further SIGTERMs while that cleanup runs are ignored (a
second Ctrl-C still aborts it, as it always does; SIGKILL is the sender's last resort).
"""

from __future__ import annotations

import logging
import signal
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

log = logging.getLogger("agentcompass")


@dataclass
class Termination:
    """Whether (and which) termination signal arrived while the block ran."""

    signum: int | None = None

    @property
    def received(self) -> bool:
        return self.signum is not None


@contextmanager
def sigterm_as_interrupt() -> Iterator[Termination]:
    """Within the block, SIGTERM interrupts like SIGINT (main thread only; elsewhere it changes nothing)."""
    state = Termination()
    if threading.current_thread() is not threading.main_thread():
        yield state
        return

    def on_sigterm(signum: int, frame: Any) -> None:
        if state.received:
            log.warning("SIGTERM again: already stopping (cancelled attempts are closing their environments)")
            return
        state.signum = signum
        handler = signal.getsignal(signal.SIGINT)  # asyncio.run's handler while an evaluation runs
        if callable(handler) and handler is not signal.default_int_handler:
            handler(signal.SIGINT, frame)
        else:
            raise KeyboardInterrupt

    previous = signal.signal(signal.SIGTERM, on_sigterm)
    try:
        yield state
    finally:
        signal.signal(signal.SIGTERM, previous)
