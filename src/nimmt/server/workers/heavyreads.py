"""Reads that rebuild a game: off the event loop, bounded, cached and rate limited.

Some answers cost far more than a message: a replay narrates a whole game, a game
record of a long game is megabytes of JSON, the speech endpoint narrates a span of
the stream, a page of old stream items replays part of a table's log. Done on the
event loop, one such request stops every table of the process for as long as it
takes. So each of them runs here:

- never on the event loop: what builds a whole game's answer from its record (a
  replay, a record parsed and written again) in worker processes of its own
  (``read_processes``), whose allocations and garbage collections never pause the
  server's interpreter; what must stay in the server's memory (the stream items of a
  page of history, kept for the next pages) or is small (the speech endpoint's
  narration) in a few threads (``read_workers``). A job that finds every worker busy
  waits in a queue of ``read_queue``, and past that it is refused at once
  (:class:`ReadsBusy`: HTTP 503, or ``server_busy`` on the WebSocket) rather than
  piling up;
- an answer that cannot change (a stored game: records are written once) is kept,
  the most recently used first, up to ``read_cache_bytes``;
- each client address may have ``read_rate`` game reads built per second
  (``read_burst`` at once); what is served from memory costs nothing; the speech
  endpoint has limits of its own, per player and per address (HTTP 429, with
  ``Retry-After``).

The threads share the interpreter with the event loop, which still gets its turn
every few milliseconds (the interpreter's switch interval) while a page is rebuilt:
the loop is slowed for the rebuild's length, never stopped.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import logging
import math
import multiprocessing
import os
import time
from collections.abc import Awaitable, Callable, Hashable
from concurrent.futures import ProcessPoolExecutor, ThreadPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import TYPE_CHECKING, TypeVar

from ..base.limits import Buckets
from ..base.params import ReadRefused
from .lifeline import exit_with_parent

if TYPE_CHECKING:
    from ..base.settings import Settings

__all__ = ["Reads", "ReadsBusy", "game_read"]

T = TypeVar("T")
R = TypeVar("R")

log = logging.getLogger("nimmt.server")

#: Seconds a client refused for a busy pool is told to wait before asking again.
BUSY_RETRY = 2
#: How much lower the read processes' priority is than the server's: a replay waits for
#: the tables, not the other way round.
READ_NICE = 5


def _start_process() -> None:
    # A killed server leaves no read process behind: its call queue's pipe has writers in
    # every process of the pool, so none would ever see it close.
    exit_with_parent()
    with contextlib.suppress(OSError):
        os.nice(READ_NICE)


class ReadsBusy(Exception):
    """Every read thread is busy and the queue is full: ask again in a moment."""


class Reads:
    """The pool, the cache and the limits of one server process's heavy reads."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self._pool = ThreadPoolExecutor(max_workers=settings.read_workers,
                                        thread_name_prefix="nimmt-read")
        self._processes: ProcessPoolExecutor | None = None
        #: Jobs running or waiting for a worker.
        self.jobs = 0
        self._cache: collections.OrderedDict[Hashable, bytes] = collections.OrderedDict()
        self.cached_bytes = 0
        self._games = Buckets(settings.read_rate, float(settings.read_burst))
        self._speech_players = Buckets(settings.speech_rate, float(settings.speech_burst))
        self._speech_addresses = Buckets(settings.speech_address_rate,
                                         float(settings.speech_address_burst))
        #: Requests refused (by status), for the operator and the tests.
        self.refused: collections.Counter[int] = collections.Counter()

    def close(self) -> None:
        """Stop the workers (the server stops): nothing new starts, the processes are ended
        (a replay is not worth waiting for), the threads finish what they hold."""
        self._pool.shutdown(wait=False, cancel_futures=True)
        self._discard()

    def _discard(self) -> None:
        pool, self._processes = self._processes, None
        if pool is None:
            return
        processes = list(getattr(pool, "_processes", {}).values())
        pool.shutdown(wait=False, cancel_futures=True)
        for p in processes:
            with contextlib.suppress(OSError, ValueError):
                p.kill()
        for p in processes:
            with contextlib.suppress(OSError, ValueError):
                p.join(5.0)

    # -- the workers ------------------------------------------------------------------------

    async def run(self, fn: Callable[..., T], *args: object, process: bool = False) -> T:
        """``fn(*args)`` in a read thread (``process``: in a read process; ``fn`` and its
        arguments must then pickle); :class:`ReadsBusy` at once when
        ``read_workers + read_processes + read_queue`` jobs are in already."""
        s = self.settings
        room = s.read_workers + s.read_processes + s.read_queue
        if self.jobs >= room:
            raise ReadsBusy(f"{self.jobs} reads are being built or waiting; at most {room} "
                            "at once")
        self.jobs += 1
        try:
            loop = asyncio.get_running_loop()
            if not process:
                return await loop.run_in_executor(self._pool, fn, *args)
            if self._processes is None:
                self._processes = ProcessPoolExecutor(
                    max_workers=s.read_processes, initializer=_start_process,
                    mp_context=multiprocessing.get_context("spawn"))
            try:
                return await loop.run_in_executor(self._processes, fn, *args)
            except BrokenProcessPool:
                log.error("a read process died; starting a new one")
                self._discard()
                raise
        finally:
            self.jobs -= 1

    # -- the cache of answers that never change --------------------------------------------

    def cached(self, key: Hashable) -> bytes | None:
        body = self._cache.get(key)
        if body is not None:
            self._cache.move_to_end(key)
        return body

    def keep(self, key: Hashable, body: bytes) -> None:
        """Keep ``body``; past ``read_cache_bytes`` the least recently used go first, and
        one larger than the whole cache is not kept."""
        limit = self.settings.read_cache_bytes
        if len(body) > limit or key in self._cache:
            return
        self._cache[key] = body
        self.cached_bytes += len(body)
        while self.cached_bytes > limit:
            _, old = self._cache.popitem(last=False)
            self.cached_bytes -= len(old)

    # -- the rate limits ---------------------------------------------------------------------

    def charge_game(self, address: str) -> None:
        """One game read built for ``address``, or :class:`ReadRefused` (429)."""
        s = self.settings
        if not self._games.take(address, 1.0):
            self._refuse(429, f"at most {s.read_rate:g} game records or replays a second "
                         f"({s.read_burst} at once) are built for one address; ask again "
                         "later", self._wait(self._games, address), "rate_limited")

    def charge_speech(self, address: str, player: int | None) -> None:
        """One speech request by ``player`` (None: no token) from ``address``, or
        :class:`ReadRefused` (429)."""
        s = self.settings
        now = time.monotonic()
        key: Hashable = ("player", player) if player is not None else ("address", address)
        if not self._speech_players.room(key, 1.0, now):
            who = "player" if player is not None else "client without a token"
            self._refuse(429, f"at most {s.speech_rate:g} speech requests a second "
                         f"({s.speech_burst} at once) per {who}; ask again later",
                         self._wait(self._speech_players, key), "rate_limited")
        if not self._speech_addresses.take(address, 1.0, now):
            self._refuse(429, f"at most {s.speech_address_rate:g} speech requests a second "
                         f"({s.speech_address_burst} at once) from one address; ask again "
                         "later", self._wait(self._speech_addresses, address), "rate_limited")
        self._speech_players.take(key, 1.0, now)

    def busy(self, exc: ReadsBusy) -> ReadRefused:
        """The refusal (503) of a job the pool had no room for."""
        self.refused[503] += 1
        return ReadRefused(503, f"the server is building as many answers as it may ({exc}); "
                           "ask again in a moment", BUSY_RETRY, "server_busy")

    def _refuse(self, status: int, message: str, retry: int, code: str) -> None:
        self.refused[status] += 1
        raise ReadRefused(status, message, retry, code)

    @staticmethod
    def _wait(buckets: Buckets, key: Hashable) -> int:
        """Whole seconds until ``key``'s bucket has a token again."""
        b = buckets.bucket(key, time.monotonic())
        return max(1, math.ceil((1.0 - b.tokens) / buckets.rate))


async def game_read(reads: Reads, key: Hashable, address: str,
                    load: Callable[[], Awaitable[R | None]],
                    build: Callable[[R], bytes]) -> bytes | None:
    """The answer of a read of a stored game, ``key``: from memory, or built and kept.

    ``load`` reads what the answer is made of from the store (on the event loop: a
    query), ``build`` makes the answer's bytes from it in a read process (so it must
    pickle: a module's function, or a :func:`functools.partial` of one). None when
    ``load`` finds nothing. Raises :class:`ReadRefused` (429: ``address`` asked for too
    many; 503: the threads are busy); ``build``'s own errors come through."""
    body = reads.cached(key)
    if body is not None:
        return body
    reads.charge_game(address)
    raw = await load()
    if raw is None:
        return None
    try:
        body = await reads.run(build, raw, process=True)
    except ReadsBusy as exc:
        raise reads.busy(exc) from None
    reads.keep(key, body)
    return body
