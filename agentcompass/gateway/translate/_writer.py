"""The base of the stream writers: the events of one agent API, made from neutral steps one at a time.

A reader (``_read_*``) calls ``start``, then ``open`` / ``delta`` / ``signature`` / ``close`` per block, ``finish``
and ``usage`` as the endpoint says them, and ``end`` (or ``fail``); :meth:`take` hands over the events made so far
as ``(event name or None, data)``. The writer keeps the reply it has written (``reply``), so its last events can
carry the whole of it (Responses' ``response.completed``).
"""

from __future__ import annotations

from typing import Any, Generic, TypeVar

from ._reply import Block, Reply, Tokens

RequestT = TypeVar("RequestT")  # the agent API's request shape (agentcompass.models.wire)


class Writer(Generic[RequestT]):
    def __init__(self, request: RequestT) -> None:
        self.request = request  # the agent's request body
        self.reply = Reply()
        self.events: list[tuple[str | None, Any]] = []
        self.block: Block | None = None  # the open block
        self.started = self.ended = False

    def take(self) -> list[tuple[str | None, Any]]:
        out, self.events = self.events, []
        return out

    def emit(self, event: str | None, data: Any) -> None:
        self.events.append((event, data))

    # neutral steps -------------------------------------------------------------------------------------------
    def start(self, head: Reply) -> None:
        if self.started:
            return
        self.started = True
        self.reply.id, self.reply.model, self.reply.created = head.id, head.model, head.created
        if head.usage_known:
            self.reply.usage, self.reply.usage_known = head.usage, True
        self.on_start()

    def open(self, kind: str, id: str = "", name: str = "", text: str = "") -> None:
        if self.block is not None:
            self.close()
        self.block = Block(kind, "", id, name)
        self.reply.blocks.append(self.block)
        self.on_open(self.block)
        if text:
            self.delta(text)

    def delta(self, text: str) -> None:
        if self.block is None or not text:
            return
        self.block.text += text
        self.on_delta(self.block, text)

    def signature(self, text: str) -> None:
        if self.block is not None:
            self.block.signature += text

    def close(self) -> None:
        if self.block is not None:
            block, self.block = self.block, None
            self.on_close(block)

    def finish(self, stop: str | None, stop_sequence: str | None = None) -> None:
        if stop:
            self.reply.stop, self.reply.stop_sequence = stop, stop_sequence

    def usage(self, tokens: Tokens) -> None:
        self.reply.usage, self.reply.usage_known = tokens, True

    def end(self) -> None:
        if self.ended:
            return
        self.close()
        self.ended = True
        self.on_end()

    def fail(self, status: int, message: str) -> None:
        self.ended = True
        self.on_fail(status, message)

    # the agent API's events ------------------------------------------------------------------------------------
    def on_start(self) -> None: ...

    def on_open(self, block: Block) -> None: ...

    def on_delta(self, block: Block, text: str) -> None: ...

    def on_close(self, block: Block) -> None: ...

    def on_end(self) -> None: ...

    def on_fail(self, status: int, message: str) -> None: ...
