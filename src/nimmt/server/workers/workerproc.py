"""The server's side of a worker process: started, spoken to, stopped.

The bots (:mod:`.botpool`) and the hints and analyses (:mod:`.tutor`) think in worker
processes of their own, each started with the spawn method and spoken to through a
socket pair in length-prefixed frames (:data:`.lifeline.HEADER`; the worker's side is
:func:`.lifeline.serve_frames`). :class:`WorkerProcess` is that much, shared: how a
process starts without the parent's main script, how a frame is read (never larger
than the worker may send) and written, and how a process is killed and reaped
without blocking the event loop. What a job is, and what is done when one fails,
belong to each pool.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import logging
import multiprocessing
import socket
import sys
import types
from collections.abc import Callable
from multiprocessing.process import BaseProcess
from typing import Any, Generic, Protocol, TypeVar

from .lifeline import HEADER

__all__ = ["START_TIMEOUT", "JobQueues", "WorkerProcess", "reaped", "start_without_main"]

log = logging.getLogger("nimmt.server")

#: Seconds a new worker has to import and warm up before it counts as failed.
START_TIMEOUT = 120.0


class _Awaited(Protocol):
    @property
    def future(self) -> asyncio.Future[Any]: ...


K = TypeVar("K")
J = TypeVar("J", bound=_Awaited)


class JobQueues(Generic[K, J]):
    """Per key (a table, a player) a queue of the jobs waiting for a worker, the keys in
    round-robin order: a key served goes to the back (dicts keep insertion order). Which
    key is served next is each pool's :meth:`pick`; a job whose asker stopped waiting
    (its future done) is dropped when its queue is looked at."""

    def __init__(self) -> None:
        self.queues: dict[K, collections.deque[J]] = {}
        self._changed = asyncio.Event()

    def put(self, key: K, job: J) -> None:
        self.queues.setdefault(key, collections.deque()).append(job)
        self._changed.set()

    def wake(self) -> None:
        """Something changed (a job cancelled, a priority raised, the lane stopping): the
        idle workers look again."""
        self._changed.set()

    def live(self) -> list[K]:
        """The keys with a job still awaited, in round-robin order (the jobs nobody waits
        for dropped from the front of their queues, and empty queues with them)."""
        for key, q in list(self.queues.items()):
            while q and q[0].future.done():
                q.popleft()
            if not q:
                del self.queues[key]
        return list(self.queues)

    def serve(self, key: K) -> J:
        """``key``'s next job; ``key`` goes to the back of the round if it has more."""
        q = self.queues.pop(key)
        job = q.popleft()
        if q:
            self.queues[key] = q
        return job

    def pick(self) -> J | None:
        """The next job (the first live key's by default), or None."""
        keys = self.live()
        return self.serve(keys[0]) if keys else None

    async def take(self) -> J:
        """The next job, waited for."""
        while True:
            job = self.pick()
            if job is not None:
                return job
            self._changed.clear()
            await self._changed.wait()


class WorkerProcess:
    """One worker process and the socket to it.

    ``max_frame``: the largest frame read from it; a larger one is a broken worker
    (:class:`ValueError`)."""

    def __init__(self, index: int, max_frame: int) -> None:
        self.index = index
        self.max_frame = max_frame
        self.process: BaseProcess | None = None
        self.reader: asyncio.StreamReader | None = None
        self.writer: asyncio.StreamWriter | None = None
        #: The task that feeds this worker jobs.
        self.task: asyncio.Task[None] | None = None
        #: Processes started (1 + restarts).
        self.starts = 0

    async def launch(self, target: Callable[..., None], name: str, args: tuple[Any, ...],
                     *, limit: int = 1 << 16) -> None:
        """Start a process running ``target(its socket, *args)`` and connect to it;
        ``limit``: the stream's buffer (as large as the frames it reads)."""
        ctx = multiprocessing.get_context("spawn")
        mine, theirs = socket.socketpair()
        proc = ctx.Process(target=target, name=name, daemon=True, args=(theirs, *args))
        self.process = proc
        try:
            # A few milliseconds (vfork and exec, the preparation data down a pipe): done
            # here rather than in a thread, so a stop never meets a half-started process.
            start_without_main(proc)
        except BaseException:
            mine.close()
            raise
        finally:
            theirs.close()
        self.starts += 1
        self.reader, self.writer = await asyncio.open_connection(sock=mine, limit=limit)

    async def read(self) -> bytes:
        """The next frame from the process."""
        assert self.reader is not None
        head = await self.reader.readexactly(HEADER.size)
        size = HEADER.unpack(head)[0]
        if size > self.max_frame:
            raise ValueError(f"a frame of {size} bytes")
        return await self.reader.readexactly(size)

    async def send(self, data: bytes) -> None:
        """One frame to the process, once the socket has taken it."""
        assert self.writer is not None
        self.writer.write(HEADER.pack(len(data)) + data)
        await self.writer.drain()

    async def stop(self, wait: float = 0.0) -> int | None:
        """Kill the process (it holds nothing worth waiting for: a search cannot be
        interrupted), reap it, and return its exit code. ``wait``: seconds to let a
        process that is ending end by itself first (to learn its own exit code)."""
        writer, proc = self.writer, self.process
        self.reader = self.writer = None
        self.process = None
        if writer is not None:
            writer.close()
        if proc is None or proc.pid is None:
            return None
        if wait > 0:
            await reaped(proc, wait, quiet=True)
        if proc.exitcode is None:
            with contextlib.suppress(OSError):
                proc.kill()
            await reaped(proc, 10.0)
        code = proc.exitcode
        with contextlib.suppress(ValueError):
            proc.close()
        return code


def start_without_main(proc: BaseProcess) -> None:
    """Start ``proc`` without running the parent's main script again in it.

    The spawn method imports the parent's ``__main__`` in every child ("safe
    importing of the main module"); under ``nimmt serve`` that is the whole
    command line, numpy included (0.3 s of CPU), in every worker, which needs
    none of it: its code is its own module (:mod:`.botworker`, :mod:`.tutorworker`),
    imported by name. The stand-in lasts the few milliseconds of ``start()``, on this
    thread, with no await.
    """
    main = sys.modules["__main__"]
    sys.modules["__main__"] = types.ModuleType("__main__")
    try:
        proc.start()
    finally:
        sys.modules["__main__"] = main


async def reaped(proc: BaseProcess, timeout: float, *, quiet: bool = False) -> None:
    """Wait (without blocking the loop) until ``proc`` has ended, and collect it (no zombie).

    First its sentinel, so nothing polls while it runs; the sentinel can say "ended" a
    moment before the process can be collected, so then ``exitcode`` (a non-blocking
    ``waitpid``) is asked until it answers.
    """
    if proc.exitcode is not None:
        return
    loop = asyncio.get_running_loop()
    end = loop.time() + timeout
    ended = loop.create_future()

    def on_end() -> None:
        if not ended.done():
            ended.set_result(None)

    sentinel = proc.sentinel
    loop.add_reader(sentinel, on_end)
    try:
        await asyncio.wait_for(ended, timeout)
    except TimeoutError:
        pass
    finally:
        loop.remove_reader(sentinel)
    while proc.exitcode is None and loop.time() < end:
        await asyncio.sleep(0.002)
    if proc.exitcode is None and not quiet:
        log.error("worker process %s did not end after SIGKILL", proc.pid)
