"""Stored lines sent to the connections that hear them: each line once, in order.

The lobby chat, a player's private messages and a player's invitations are kept
in the store (any server process may write one) and sent from there to the
connections of this process that hear them. A delivery reads the lines past the
last one sent and sends them; many deliveries are asked for at once (forty
writers, a signal from another process, a new listener), and a delivery that
reads, awaits the store, sends and only then moves its mark sends whatever the
others also read: each line reached a listener seventeen times on average.

So a :class:`Channel` keeps a mark *per connection* (the newest line it was sent)
and moves it in the same step as the send, with no await between: deliveries
that overlap may read the same lines, but a connection is sent a line only past
its mark. Deliveries of one channel also run one at a time, and those asked for
while one runs become one more run after it: forty writers cost a few reads, not
forty. Lines are sent in the order of their ids, which the store gives in commit
order (the writers of one channel take its lock: :func:`.store.exclusive`).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Sequence
from typing import Any, Generic, Protocol, TypeVar

__all__ = ["Batch", "Channel"]

log = logging.getLogger("nimmt.server")

class Hearer(Protocol):
    """A connection that hears a channel: anything hashable that says whether it is gone."""

    @property
    def gone(self) -> bool: ...


C = TypeVar("C", bound=Hearer)
#: What a read gives: the lines, oldest first, and the id they bring a connection up to.
Batch = tuple[Sequence[Any], int]


class Channel(Generic[C]):
    """One stream of stored lines to this process's connections that hear it.

    ``read(after)``: the lines past id ``after``, oldest first, or with ``after`` None
    the lines a connection new to the channel is sent (the lobby's backlog, the
    invitations waiting); each line has an ``id``. With them, the id the connection has
    then heard up to: the newest line's for a newcomer, even one not sent it (a private
    message older than a minute). ``send(conn, line)`` queues a line on a connection (it
    never waits).
    """

    def __init__(self, name: str, read: Callable[[int | None], Awaitable[Batch]],
                 send: Callable[[C, Any], None]) -> None:
        self.name = name
        self._read = read
        self._send = send
        #: The connections that hear the channel, each with the newest line it was sent
        #: (None: none yet, it is sent what a newcomer is sent).
        self.marks: dict[C, int | None] = {}
        self._running: asyncio.Future[None] | None = None
        self._again = False

    def __len__(self) -> int:
        return len(self.marks)

    def join(self, conn: C) -> None:
        """``conn`` hears the channel from now (a connection already in it keeps its mark)."""
        self.marks.setdefault(conn, None)

    def leave(self, conn: C) -> None:
        self.marks.pop(conn, None)

    @property
    def delivering(self) -> bool:
        """Whether a delivery runs now."""
        return self._running is not None

    async def deliver(self) -> None:
        """Send every connection the lines it was not sent yet; returns once they are
        queued (with the lines of any delivery asked for meanwhile)."""
        self._again = True
        if self._running is None:
            self._running = asyncio.ensure_future(self._run())
        await asyncio.shield(self._running)

    async def _run(self) -> None:
        try:
            while self._again:
                self._again = False
                await self._once()
        except Exception:
            log.exception("the %s lines were not delivered", self.name)
        finally:
            self._running = None

    async def _once(self) -> None:
        for conn in [c for c in self.marks if c.gone]:
            del self.marks[conn]
        known = [m for m in self.marks.values() if m is not None]
        fresh = len(known) < len(self.marks)
        newer: Batch = await self._read(min(known)) if known else ([], 0)
        first: Batch = await self._read(None) if fresh else ([], 0)
        # From here to the end nothing awaits: marks move with the sends.
        for conn, mark in list(self.marks.items()):
            if conn.gone:
                continue
            lines, top = newer if mark is not None else first
            last = mark if mark is not None else 0
            for line in lines:
                if line.id > last:
                    self._send(conn, line)
                    last = line.id
            self.marks[conn] = max(last, top)
