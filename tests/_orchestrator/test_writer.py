"""``_orchestrator.writer.Writer``: queued writes run in the order they were asked for, off the event loop;
``now`` waits for its own (and so every earlier) write and returns its result or raises its error; ``flush``
waits for everything and raises the first error of a write nobody waited for, once."""

from __future__ import annotations

import asyncio
import threading

import pytest

from agentcompass._orchestrator.writer import Writer


def test_order_results_and_errors():
    async def go() -> None:
        writer, done, loop_thread = Writer(), [], threading.get_ident()

        def write(i: int) -> int:
            assert threading.get_ident() != loop_thread  # never on the event loop
            done.append(i)
            return i * 10

        for i in range(200):
            writer.later(write, i)
        assert await writer.now(write, 200) == 2000
        assert done == list(range(201))  # now() came after every earlier write

        def broken() -> None:
            raise OSError("disk full")

        with pytest.raises(OSError, match="disk full"):
            await writer.now(broken)  # a waited-for write raises to its waiter...
        await writer.flush()  # ...and not again
        writer.later(broken)
        writer.later(write, 201)
        with pytest.raises(OSError, match="disk full"):
            await writer.flush()  # the unwaited one at the next flush, after the rest ran
        assert done[-1] == 201
        await writer.flush()  # once

    asyncio.run(go())
