"""Who is online: the players connected to this process, pushed to the connections that
listen to the lobby with ``online``.

A list is pushed when someone comes or goes (or a block changes who may see whom), at
most once every ``online_interval`` seconds: the changes in between are coalesced into
one push at the end of the interval, however many connections come and go. It holds at
most ``online_max`` names (with how many are online in all), so its frame stays small on
a crowded server. As the friends' presence, it is what this process sees; and as a block
keeps a player from a table, it keeps the two players out of each other's lists (nothing
else is told: no table, no friend).
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Coroutine
from typing import Any, Generic

from ... import wire as P
from ..base.settings import Settings
from ..store import Store
from ..store import social as db
from .members import M
from .roster import Roster

__all__ = ["OnlineList"]

log = logging.getLogger("nimmt.server")


class OnlineList(Generic[M]):
    """The connections that listen to who is online here, and the pushes to them."""

    def __init__(self, settings: Settings, store: Store, roster: Roster[M]) -> None:
        self.settings = settings
        self.store = store
        self.roster = roster
        #: The connections that asked for the list (``listen_lobby`` with ``online``).
        self.listeners: set[M] = set()
        self._pushed = -settings.online_interval
        self._pushing: asyncio.Task[None] | None = None
        #: The blocks among the players online, for whom, and when read: a new listener
        #: (who may ask again and again) is sent the list without a read of its own.
        self._blocks: tuple[frozenset[int], float, set[tuple[int, int]]] | None = None
        #: Counts the changes of blocks: a read begun before one is not kept.
        self._changes = 0
        #: New listeners waiting for their first list, and the task that sends it: those
        #: that come while a list is made wait for the next, so a crowd that listens at
        #: once (or again and again) costs one list and at most one read at a time.
        self._new: set[M] = set()
        self._greeting: asyncio.Task[None] | None = None

    def listen(self, conn: M, on: bool) -> None:
        """``conn`` starts (``on``) or stops hearing who is online; a new listener is sent
        the list at once (the others get it at the next push)."""
        if not on:
            self.listeners.discard(conn)
            self._new.discard(conn)
            return
        if conn in self.listeners:
            return
        self.listeners.add(conn)
        self._new.add(conn)
        if self._greeting is None:
            self._greeting = self._spawn(self._greet(), "online-greet")

    def left(self, conn: M) -> None:
        """``conn`` closed: it hears nothing more, and the others learn it went."""
        self.listeners.discard(conn)
        self._new.discard(conn)
        self.changed()

    def changed(self, blocks: bool = False) -> None:
        """Someone came or went here, or a block changed (``blocks``): every listener is
        sent the list, at most once every ``online_interval`` seconds (changes coalesced)."""
        if blocks:
            self._blocks = None
            self._changes += 1
        if self._pushing is not None:
            return
        wait = max(0.0, self._pushed + self.settings.online_interval - time.monotonic())
        self._pushing = self._spawn(self._push(wait), "online-push")

    @staticmethod
    def _spawn(work: Coroutine[Any, Any, None], name: str) -> asyncio.Task[None]:
        return asyncio.get_running_loop().create_task(work, name=name)

    async def _push(self, wait: float) -> None:
        try:
            if wait:
                await asyncio.sleep(wait)
        finally:
            # A change from here on is a new push: this one may already have read it.
            self._pushing = None
            self._pushed = time.monotonic()
        await self._send(list(self.listeners))

    async def _greet(self) -> None:
        try:
            while self._new:
                batch = [c for c in self._new if c in self.listeners]
                self._new.clear()
                await self._send(batch)
        finally:
            self._greeting = None

    def _people(self) -> dict[int, str]:
        """The players with a connection here that has not gone, by id, with their names."""
        return {pid: conns[0].name for pid in list(self.roster.online)
                if (conns := self.roster.of(pid))}

    async def _send(self, listeners: list[M]) -> None:
        """The list as each of ``listeners`` may see it, one frame per distinct list."""
        people = self._people()
        ids = frozenset(people)
        kept = self._blocks
        if kept is not None and kept[0] == ids and (
                time.monotonic() - kept[1] < self.settings.online_interval):
            blocks = kept[2]
        else:
            changes = self._changes
            try:
                blocks = await self.store.read(db.blocks_among(set(ids))) if ids else set()
            except Exception:
                log.exception("who is online was not pushed")
                return
            if changes == self._changes:
                self._blocks = (ids, time.monotonic(), blocks)
            if frozenset(self._people()) != ids:
                self.changed()  # someone came or went during the read: a fresher list follows
        hidden: dict[int, set[int]] = {}
        for a, b in blocks:
            hidden.setdefault(a, set()).add(b)
            hidden.setdefault(b, set()).add(a)
        everyone = sorted(people.items(), key=lambda p: (p[1].casefold(), p[1]))
        most = self.settings.online_max
        #: Frames by the players left out and the stream position they carry: nearly
        #: every listener shares one.
        frames: dict[tuple[frozenset[int], int], str] = {}
        for conn in listeners:
            if conn.gone:
                self.listeners.discard(conn)
                continue
            out = frozenset(hidden.get(conn.player_id, ()))
            key = (out, conn.seq)
            frame = frames.get(key)
            if frame is None:
                seen = [name for pid, name in everyone if pid not in out]
                frame = frames[key] = P.Online(seq=conn.seq, players=seen[:most],
                                               total=len(seen)).model_dump_json()
            conn.send(frame)
