"""A player's presence, as their followers see it, pushed to them when it changes.

A one-way follow learns only whether the player is online here; a friend (a mutual
follow) also learns at which table and whether it has a free seat, so following a
stranger tells nothing about where they play. When a player comes, goes or enters a
table, their followers connected here are told, at most once every
``presence_interval`` seconds (changes in between are coalesced into one push). Who is
online here, to the lobby's listeners that ask, is :attr:`Whereabouts.online`.
"""

from __future__ import annotations

import asyncio
import logging
import time
from typing import Generic

from ... import wire as P
from ..base.settings import Settings
from ..store import Store
from ..store import social as db
from ..store.social import Friend
from .members import M, Rooms
from .online import OnlineList
from .roster import Roster

__all__ = ["Whereabouts"]

log = logging.getLogger("nimmt.server")


class Whereabouts(Generic[M]):
    """Where each player is, as this process sees them, and the pushes to followers."""

    def __init__(self, settings: Settings, store: Store, roster: Roster[M],
                 rooms: Rooms[M]) -> None:
        self.settings = settings
        self.store = store
        self.roster = roster
        self.rooms = rooms
        #: Who is online here, pushed to the lobby's listeners that ask for it.
        self.online: OnlineList[M] = OnlineList(settings, store, roster)
        #: When each player's presence was last pushed, and the pushes waiting their turn.
        self._pushed: dict[int, float] = {}
        self._pushing: dict[int, asyncio.Task[None]] = {}

    def moved(self, player_id: int) -> None:
        """``player_id`` came, went or changed tables here: their followers connected here
        are told, at most once every ``presence_interval`` seconds (changes coalesced)."""
        if not player_id or player_id in self._pushing:
            return
        now = time.monotonic()
        every = self.settings.presence_interval
        if len(self._pushed) > 10_000:  # forget the pushes long past their interval
            self._pushed = {p: t for p, t in self._pushed.items() if now - t < every}
        wait = max(0.0, self._pushed.get(player_id, -every) + every - now)
        self._pushing[player_id] = asyncio.get_running_loop().create_task(
            self._push(player_id, wait), name=f"presence-{player_id}")

    async def _push(self, player_id: int, wait: float) -> None:
        try:
            if wait:
                await asyncio.sleep(wait)
            followers = [f for f in await self.store.read(db.followers(player_id))
                         if self.roster.of(f.id)]
        except Exception:
            log.exception("the presence of player %d was not pushed", player_id)
            return
        finally:
            self._pushing.pop(player_id, None)
            self._pushed[player_id] = time.monotonic()
        for f in followers:
            # ``f`` is the follower, with whether the player follows them back.
            info = self.of(Friend(player_id, f.name, f.mutual))
            for c in self.roster.of(f.id):
                c.send(P.Presence(seq=c.seq, friend=info).model_dump_json())

    def of(self, f: Friend) -> P.FriendInfo:
        """Where ``f`` is, as this process sees them: online or not; for a friend (a
        mutual follow) also their table and whether it has a free seat."""
        conns = self.roster.of(f.id)
        table: str | None = None
        free: bool | None = None
        if f.mutual:
            for c in conns:
                place = self.rooms.place(c)
                if place is not None:
                    table, free = place
                    break
        return P.FriendInfo(name=f.name, mutual=f.mutual, online=bool(conns), table=table,
                            free_seat=free)
