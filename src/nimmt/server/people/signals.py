"""What every server process must act on at once, and the housekeeping of the people.

A **signal** is a row of the ``signals`` table, written by this process
(:func:`signal`) or by ``nimmt admin``: a session ended, a ban, a rename, a table to
close, a mute or block made, an invitation, a lobby line or a private message written.
Every process reads the new rows every ``signal_poll`` seconds (:class:`Signals`) and
acts on its own connections; a session ended here closes this process's connections at
once, without waiting for the poll.

**Housekeeping**, every few minutes: sessions of accounts unused for ``session_days``
end; guest names unused for ``guest_release_days`` are released; signals older than a
day, invitations past their time and old resolved reports go; the sanctions in force
are read again (some ran out).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from typing import Any, Generic, Protocol

from ..base.settings import Settings
from ..store import Store
from ..store import accounts as db
from .members import M, Rooms
from .roster import Roster
from .sanctions import Sanctions

__all__ = ["DAY", "SWEEP_MAX", "Listener", "Signals", "signal"]

log = logging.getLogger("nimmt.server")

#: Longest time between two housekeeping rounds.
SWEEP_MAX = 600.0
DAY = 86400.0


async def signal(store: Store, kind: str, *, player_id: int | None = None,
                 session_id: int | None = None, address: str | None = None,
                 code: str | None = None) -> None:
    """Tell every server process (this one reads it too, and acts again harmlessly: an
    ``out`` closes only connections whose session no longer exists)."""
    await store.run(db.write_signal(kind, player_id=player_id, session_id=session_id,
                                    address=address, code=code))


class Listener(Protocol):
    """The social room, as the signals tell it what other processes wrote."""

    async def refresh(self, player_id: int) -> None:
        """``player_id`` muted or blocked someone: their connections here learn."""

    async def deliver(self, player_id: int) -> None:
        """An invitation waits for ``player_id``."""

    async def lobby_deliver(self) -> None:
        """Lobby lines were written."""

    async def private_deliver(self, player_id: int) -> None:
        """Private messages wait for ``player_id``."""

    async def sweep(self) -> None:
        """Housekeeping of the room's rows."""


class Signals(Generic[M]):
    """This process's look at the signals every ``signal_poll`` seconds, and the
    housekeeping every few minutes (see the module)."""

    def __init__(self, settings: Settings, store: Store, roster: Roster[M],
                 sanctions: Sanctions, social: Listener, rooms: Rooms[M]) -> None:
        self.settings = settings
        self.store = store
        self.roster = roster
        self.sanctions = sanctions
        self.social = social
        self.rooms = rooms
        self._last = 0
        self._task: asyncio.Task[None] | None = None
        #: How many signals this process acted on (tests and the log read it).
        self.seen = 0

    async def open(self) -> None:
        self._last = await self.store.read(db.last_signal())
        await self.reload_sanctions()
        self._task = asyncio.create_task(self._loop(), name="nimmt-signals")

    async def close(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
            self._task = None
        with contextlib.suppress(Exception):
            await self.roster.flush(self.store)

    def sweep_every(self) -> float:
        """Seconds between housekeeping rounds: a tenth of the shortest time it enforces,
        at most ten minutes, at least one signal poll."""
        s = self.settings
        spans = [s.session_days * DAY]
        if s.guest_release_days > 0:
            spans.append(s.guest_release_days * DAY)
        return max(s.signal_poll, min(SWEEP_MAX, min(spans) / 10))

    async def _loop(self) -> None:
        loop = asyncio.get_running_loop()
        next_sweep = loop.time() + self.sweep_every()
        while True:
            await asyncio.sleep(self.settings.signal_poll)
            try:
                await self.roster.flush(self.store)
                await self.poll()
                if loop.time() >= next_sweep:
                    next_sweep = loop.time() + self.sweep_every()
                    await self.sweep()
            except asyncio.CancelledError:
                raise
            except Exception:
                log.exception("reading signals or housekeeping failed; trying again")

    # -- signals -----------------------------------------------------------------------

    async def poll(self) -> None:
        """Act on the signals written since the last look."""
        rows = await self.store.read(db.signals_after(self._last))
        if not rows:
            return
        if any(r.kind in ("ban", "sanctions") for r in rows):
            await self.reload_sanctions()
        # A sign-out ended the sessions that were there when it was written; one made
        # since (a sign-in a moment later) is not ended by reading it: the player's
        # sessions that still exist are kept.
        outs = {int(r.player_id) for r in rows if r.kind == "out" and r.player_id is not None}
        live = {pid: await self.store.read(db.session_ids(pid)) for pid in outs}
        for r in rows:
            self._last = max(self._last, int(r.id))
            self.seen += 1
            self.act(r, live)
        social = self.social
        # A player muted or blocked someone (on any process): their connections here learn.
        for pid in {int(r.player_id) for r in rows if r.kind == "social" and r.player_id}:
            await social.refresh(pid)
        # An invitation waits for a player (written by any process): sent to them here.
        for pid in {int(r.player_id) for r in rows if r.kind == "invite" and r.player_id}:
            await social.deliver(pid)
        # Lobby lines and private messages written (at any process): sent to them here.
        if any(r.kind == "lobby" for r in rows):
            await social.lobby_deliver()
        for pid in {int(r.player_id) for r in rows if r.kind == "private" and r.player_id}:
            await social.private_deliver(pid)

    def act(self, r: Any, live: dict[int, set[int]]) -> None:
        """One signal, here: close what it ends, close the table it names (``live``: the
        sessions that still exist of each player an ``out`` signal names)."""
        roster = self.roster
        if r.kind == "session" and r.session_id is not None:
            roster.ended_session(int(r.session_id), "signed_out")
        elif r.kind == "out" and r.player_id is not None:
            kept = live.get(int(r.player_id), set())
            for c in roster.connections(int(r.player_id)):
                if c.session_id not in kept:
                    roster.shut(c, "signed_out", "this session was ended")
        elif r.kind == "ban":
            now = time.time()
            if r.player_id is not None:
                ban = self.sanctions.player("ban", int(r.player_id), now)
                if ban is not None:
                    roster.ended_player(int(r.player_id), None, "banned",
                                        f"this player is banned {ban.said()}")
            if r.address is not None:
                for c in roster.connections():
                    ban = self.sanctions.address("ban", c.address, now)
                    if ban is not None:
                        roster.shut(c, "banned", f"this address is banned {ban.said()}")
        elif r.kind == "rename" and r.player_id is not None:
            # They come back at once (the clients reconnect) under the new name.
            for c in roster.connections(int(r.player_id)):
                c.drop()
                roster.left(c)
        elif r.kind == "close" and r.code is not None and self.rooms.close_table(str(r.code)):
            log.info("table %s closed by the operator", r.code)

    async def reload_sanctions(self) -> None:
        self.sanctions.read(await self.store.read(db.live_sanctions(time.time())))

    # -- housekeeping -------------------------------------------------------------------

    async def sweep(self) -> None:
        """End idle sessions of accounts, release unused guest names, drop old signals,
        read the sanctions again (some ran out)."""
        self.roster.seen_all()
        await self.roster.flush(self.store)
        s = self.settings
        released, expired = await self.store.run(
            db.housekeeping(s.session_days * DAY, s.guest_release_days * DAY))
        if released:
            log.info("released the names of %d guests unused for %g days", released,
                     s.guest_release_days)
        if expired:
            log.info("ended %d sessions unused for %g days", expired, s.session_days)
        await self.social.sweep()
        await self.reload_sanctions()
