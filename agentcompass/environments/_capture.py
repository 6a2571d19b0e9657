"""Head+tail capture of command output, shared by the environments."""

from __future__ import annotations


class HeadTail:
    """Keeps the first and last ``limit // 2`` bytes of a stream and counts what lies between.

    ``frozen`` stops further feeding (a killed command's stragglers are ignored).
    """

    def __init__(self, limit: int) -> None:
        self.half = max(1, limit // 2)
        self.head = bytearray()
        self.tail = bytearray()
        self.total = 0
        self.frozen = False

    def feed(self, data: bytes) -> None:
        if self.frozen:
            return
        self.total += len(data)
        room = self.half - len(self.head)
        if room > 0:
            self.head += data[:room]
            data = data[room:]
        if data:
            self.tail += data
            if len(self.tail) > 2 * self.half:  # trim in batches, not on every chunk
                del self.tail[: len(self.tail) - self.half]

    @property
    def elided(self) -> int:
        return max(0, self.total - len(self.head) - min(len(self.tail), self.half))

    def text(self) -> str:
        tail = bytes(self.tail[-self.half :]) if len(self.tail) > self.half else bytes(self.tail)
        if not self.elided:
            return (bytes(self.head) + tail).decode("utf-8", errors="replace")
        head = self.head.decode("utf-8", errors="replace")
        return head + f"\n[... {self.elided} bytes elided ...]\n" + tail.decode("utf-8", errors="replace")
