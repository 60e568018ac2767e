"""Who is online here: each player's connections of this process, and when each player
and session was last seen.

The accounts add a connection once its ``hello`` is answered and take it away when it
closes; the social room reads it (presence, whom a line reaches), and the signals close
the connections an ended session, a ban or a rename concerns. When a player and a
session were last seen is kept in memory and written to the store every signal poll
(:meth:`Roster.flush`), not on every ``hello``.
"""

from __future__ import annotations

import time
from typing import Generic

from ... import wire as P
from ..store import Store
from ..store import accounts as db
from .members import M

__all__ = ["Roster"]


class Roster(Generic[M]):
    """The connections of this process by player, and the sightings not yet stored."""

    def __init__(self) -> None:
        #: Connections by player, for closing them when a session ends or a ban comes.
        self.online: dict[int, set[M]] = {}
        #: When each player and session was last seen, not yet written.
        self._players: dict[int, float] = {}
        self._sessions: dict[int, tuple[float, str]] = {}

    def of(self, player_id: int) -> list[M]:
        """``player_id``'s connections here that are not gone."""
        return [c for c in self.online.get(player_id, ()) if not c.gone]

    def joined(self, conn: M) -> None:
        """``conn`` said hello as its player."""
        self.online.setdefault(conn.player_id, set()).add(conn)
        self.seen(conn.player_id, conn.session_id, conn.address)

    def left(self, conn: M) -> None:
        """``conn`` is gone: forget it, and note when its player was last seen."""
        mine = self.online.get(conn.player_id)
        if mine is None or conn not in mine:
            return
        mine.discard(conn)
        if not mine:
            del self.online[conn.player_id]
        self.seen(conn.player_id, conn.session_id, conn.address)

    def seen(self, player_id: int, session_id: int, address: str) -> None:
        now = time.time()
        self._players[player_id] = now
        if session_id:
            self._sessions[session_id] = (now, address)

    def seen_all(self) -> None:
        """Everyone connected now was seen now (before a housekeeping round ends idle
        sessions, so that theirs are not among them)."""
        for pid, conns in self.online.items():
            for c in conns:
                self.seen(pid, c.session_id, c.address)

    async def flush(self, store: Store) -> None:
        """Write the sightings kept since the last flush."""
        players, self._players = self._players, {}
        sessions, self._sessions = self._sessions, {}
        if players or sessions:
            await store.run(db.write_seen(players, sessions))

    # -- closing connections ----------------------------------------------------------

    def connections(self, player_id: int | None = None) -> list[M]:
        """The connections of ``player_id`` here, or of everyone."""
        if player_id is not None:
            return list(self.online.get(player_id, ()))
        return [c for conns in self.online.values() for c in conns]

    def ended_session(self, session_id: int, code: P.CodeLike) -> int:
        """Close this process's connections of session ``session_id``; how many."""
        hit = [c for c in self.connections() if c.session_id == session_id]
        for c in hit:
            self.shut(c, code, "this session was ended")
        return len(hit)

    def ended_player(self, player_id: int, keep: int | None, code: P.CodeLike,
                     why: str = "this session was ended") -> int:
        """Close this process's connections of ``player_id`` but those of session
        ``keep``; how many."""
        hit = [c for c in self.connections(player_id) if c.session_id != keep]
        for c in hit:
            self.shut(c, code, why)
        return len(hit)

    def shut(self, conn: M, code: P.CodeLike, why: str) -> None:
        """Close ``conn`` with a last error, and forget it."""
        if conn.gone and conn.closing:
            return
        conn.cut_off(code, why)
        self.left(conn)
