"""A child process's tie to the process that started it: it ends when its parent ends.

The server's worker processes (bots, hints and analyses) and, with ``--workers``,
the server processes themselves are started with :mod:`multiprocessing`'s spawn
method. A parent that stops cleanly stops its children; a parent that is killed
(SIGKILL, the out-of-memory killer) cannot, and a child left alone would go on
computing for nobody. So each child calls :func:`exit_with_parent` first thing:

- everywhere, a thread of the child waits on the parent's *sentinel*, a pipe whose
  writing end only the parent holds (:func:`multiprocessing.parent_process`): the
  kernel closes it when the parent dies, whatever killed it, and the thread then
  ends the child;
- on Linux, the kernel is also asked (``prctl(PR_SET_PDEATHSIG)``) to send the child
  a signal when its parent dies, which reaches it even while its interpreter is
  held by a long computation that does not let the thread run. The kernel counts
  the *thread* that started the child as its parent: every process here is started
  from a thread that lives as long as its parent (a server's event loop thread, the
  supervisor's main thread).

A worker gets SIGKILL (it holds nothing worth saving); a server process gets
SIGTERM, so it stops as after ``kill``: it answers what is pending and lets its
tables' leases go.

A worker's other tie is its socket to the server: :func:`serve_frames` is the worker's
side of it (the server's is :class:`.workerproc.WorkerProcess`), each frame, both
ways, its length (:data:`HEADER`) and then its bytes. This module imports neither
asyncio nor the server, so a worker loads only what its jobs need.
"""

from __future__ import annotations

import contextlib
import ctypes
import multiprocessing
import multiprocessing.connection
import os
import signal
import struct
import sys
import threading
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import socket

__all__ = ["HEADER", "exit_with_parent", "serve_frames"]

#: Every frame between a worker and the server, both ways, starts with its length.
HEADER = struct.Struct("!I")

#: ``PR_SET_PDEATHSIG`` of ``<linux/prctl.h>``.
_PR_SET_PDEATHSIG = 1
#: The signal that ends a process at once (Windows has none by that name: there
#: ``os.kill`` ends the process whatever the signal).
_KILL = getattr(signal, "SIGKILL", signal.SIGTERM)


def exit_with_parent(*, graceful: bool = False) -> None:
    """End this process when the process that started it ends: at once (SIGKILL), or
    with SIGTERM when ``graceful`` (a server process, which has answers to finish).

    Call it first in a child started by :mod:`multiprocessing` (it does nothing in a
    process that no :mod:`multiprocessing` parent started).
    """
    sig = int(signal.SIGTERM if graceful else _KILL)
    parent = multiprocessing.parent_process()
    if parent is None or parent.sentinel is None:
        return
    if sys.platform.startswith("linux"):
        with contextlib.suppress(OSError, AttributeError):
            libc = ctypes.CDLL(None, use_errno=True)
            libc.prctl(_PR_SET_PDEATHSIG, sig, 0, 0, 0)
    if parent.pid is not None and os.getppid() != parent.pid:
        os.kill(os.getpid(), sig)  # the parent died before the kernel was asked
    threading.Thread(target=_watch, args=(parent.sentinel, sig), name="lifeline",
                     daemon=True).start()


def _watch(sentinel: int, sig: int) -> None:
    """Wait until the parent's end of the sentinel closes (it died), then end this process."""
    multiprocessing.connection.wait([sentinel])
    os.kill(os.getpid(), sig)


def _read(rfile: Any, n: int) -> bytes | None:
    data: bytes = rfile.read(n)
    return data if len(data) == n else None


def serve_frames(sock: socket.socket, ready: bytes, answer: Callable[[bytes], bytes]) -> None:
    """A worker's life on its socket: say ``ready``, then send ``answer(frame)`` for each
    frame the server sends, until the server closes the socket (it stopped, or dropped
    this worker)."""
    rfile = sock.makefile("rb")

    def send(data: bytes) -> None:
        sock.sendall(HEADER.pack(len(data)) + data)

    send(ready)
    while True:
        head = _read(rfile, HEADER.size)
        body = None if head is None else _read(rfile, HEADER.unpack(head)[0])
        if body is None:
            return
        send(answer(body))
