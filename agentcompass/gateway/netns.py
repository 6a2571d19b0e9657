"""A listening socket inside another network namespace (an environment without internet).

The socket is made by a thread of its own that enters the namespace (``setns``), binds 127.0.0.1 on a free port,
listens and leaves again; a socket keeps the namespace it was made in, so the gateway then serves it from its own
event loop, and only processes of that namespace (the environment's) can connect. Entering a namespace needs
``CAP_SYS_ADMIN`` (root); a thread that cannot leave it again is left to end with it, so no other work ever runs
in the environment's namespace.
"""

from __future__ import annotations

import asyncio
import ctypes
import os
import socket
import threading

CLONE_NEWNET = 0x40000000


def _setns(fd: int) -> None:
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.setns(fd, CLONE_NEWNET) != 0:
        err = ctypes.get_errno()
        raise OSError(err, os.strerror(err))


def _listen(path: str) -> socket.socket:
    own = os.open("/proc/thread-self/ns/net", os.O_RDONLY)
    target = os.open(path, os.O_RDONLY)
    try:
        _setns(target)
        try:
            sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            try:
                sock.bind(("127.0.0.1", 0))
                sock.listen(128)
            except BaseException:
                sock.close()
                raise
        finally:
            _setns(own)  # raises when it cannot leave: the thread ends here, the socket is not used
        sock.setblocking(False)
        return sock
    finally:
        os.close(target)
        os.close(own)


async def listen_in(path: str) -> socket.socket:
    """A socket listening on 127.0.0.1 inside the network namespace at ``path``. Raises OSError (EPERM without
    the privilege to enter it)."""
    loop = asyncio.get_running_loop()
    done: asyncio.Future[socket.socket] = loop.create_future()

    def work() -> None:
        try:
            result: socket.socket | BaseException = _listen(path)
        except BaseException as exc:  # handed to the waiting coroutine
            result = exc
        loop.call_soon_threadsafe(_settle, done, result)

    threading.Thread(target=work, name="agentcompass-netns", daemon=True).start()
    return await done


def _settle(fut: asyncio.Future, result: object) -> None:
    if fut.cancelled():
        if isinstance(result, socket.socket):
            result.close()
        return
    if isinstance(result, BaseException):
        fut.set_exception(result)
    else:
        fut.set_result(result)
