"""How a connection reaches a table: entering one (here or at the process that owns it),
leaving it, sending it a message, and the reads of a table over HTTP.

A table this process holds is its :class:`~nimmt.server.tables.table.TableActor`; one another
process owns (with Redis) is a :class:`~nimmt.server.cluster.RemoteTable`, whose owner
gets the messages. Either way the connection knows where it is (``table`` or
``remote``), and nothing here reads or changes a table's state: the table does.
"""

from __future__ import annotations

import logging
from collections.abc import Callable

from ... import wire as P
from ...narrate import narrator
from ..base.logs import event
from ..cluster import Cluster, RemoteTable, lobby_entry
from ..people.members import Place, Seating
from ..tables.commands import from_message, who_of
from ..tables.reads import TableRead, answer
from ..tables.registry import Tables
from ..tables.table import TableActor
from .connection import Connection

__all__ = ["Doors"]

log = logging.getLogger("nimmt.server")


def _nobody(_player_id: int) -> None:
    """Nobody follows where players are (before the people part is built)."""


class Doors:
    """The tables, as the connections of this process reach them (and the people part,
    :class:`~nimmt.server.people.members.Rooms`)."""

    def __init__(self, tables: Tables, cluster: Cluster | None) -> None:
        self.tables = tables
        self.cluster = cluster
        #: Tells a player's followers where they are now (the people's presence).
        self.moved: Callable[[int], None] = _nobody

    # -- entering and leaving ---------------------------------------------------------

    async def enter(self, conn: Connection, code: str, mode: str, last_seq: int | None,
                    ref: P.Ref) -> None:
        """``conn`` joins (``mode``) or watches the table ``code``."""
        if self.tables.draining:
            # Its tables are leaving this process (wind_down): none comes or is taken here.
            raise P.ProtocolError("restarting", "this server process is stopping: reconnect "
                                  "and try again")
        code = code.strip().upper()
        found: TableActor | RemoteTable | None = self.tables.get(code)
        if found is None and self.cluster is not None:
            found = await self.cluster.locate(code)
        if found is None:
            raise P.ProtocolError("no_table", f"no open table has the code {code!r}")
        self.leave(conn)
        if isinstance(found, TableActor):
            conn.table = found
        else:
            conn.remote = found
        found.attach(conn, mode, last_seq, ref)
        self.moved(conn.player_id)
        log.info("player %d came to table %s (%s)", conn.player_id, code, mode,
                 extra=event("player.joined", table=code, player=conn.player_id, mode=mode,
                             here=isinstance(found, TableActor)))

    def opened(self, conn: Connection, actor: TableActor, msg: P.CreateTable) -> None:
        """``conn`` made ``actor``: it takes seat 0."""
        self.leave(conn)
        conn.table = actor
        actor.create(conn, msg.ref, msg.hints)
        self.moved(conn.player_id)

    def leave(self, conn: Connection) -> None:
        """``conn`` leaves the table it is at, if any."""
        at = conn.table or conn.remote
        if at is not None:
            log.info("player %d left table %s", conn.player_id, at.code,
                     extra=event("player.left", table=at.code, player=conn.player_id))
        if conn.table is not None:
            conn.table.detach(conn)
            conn.table = None
        if conn.remote is not None:
            conn.remote.detach(conn)
            conn.remote = None

    def act(self, conn: Connection, msg: P.TableMessage) -> None:
        """A table message of ``conn``'s, its checks passed, to its table wherever it is: a
        table here gets the typed command it stands for (with a new game's seed and the
        bot registry's answer), one elsewhere the message, for its owner to do the same."""
        if conn.remote is not None:
            conn.remote.message(conn, msg)
        elif conn.table is not None:
            conn.table.take(conn, from_message(who_of(conn), msg,
                                               refusal=self.tables.refusal))

    # -- where connections are --------------------------------------------------------

    def place(self, conn: Connection) -> Place | None:
        if conn.table is not None:
            return conn.table.code, any(s is None for s in conn.table.seats)
        if conn.remote is not None:
            return conn.remote.code, None
        return None

    def seating(self, conn: Connection) -> Seating | None:
        return conn.table

    def close_table(self, code: str) -> bool:
        return self.tables.close_table(code)

    def silence(self, player_id: int, names: frozenset[str]) -> None:
        if self.cluster is not None:
            for peer in self.cluster.peers.values():
                if peer.player_id == player_id:
                    peer.silenced = names

    # -- reads ------------------------------------------------------------------------

    async def read(self, code: str, read: TableRead) -> str | None:
        """The answer to an HTTP ``read`` of table ``code`` (JSON text), or None if no open
        table has that code. With Redis, a table another process owns is read by its owner
        (:meth:`.cluster.Cluster.read`), never rebuilt here; that raises
        :class:`~nimmt.server.base.params.ReadRefused` (503) when the owner cannot answer
        in time."""
        actor = self.tables.get(code)
        if actor is not None or self.cluster is None:
            return None if actor is None else answer(actor, read)
        return await self.cluster.read(code, read)

    async def exists(self, code: str) -> bool:
        """Whether an open table has ``code`` (here, or with Redis anywhere)."""
        if self.tables.get(code) is not None:
            return True
        return (self.cluster is not None
                and await self.tables.store.table_by_code(code) is not None)

    async def lobby(self, lang: str = "en") -> list[P.LobbyTable]:
        """The public tables not over: of the whole cluster with Redis (as each owner last
        published them, at most a heartbeat ago), their rules named in ``lang``."""
        if self.cluster is not None:
            entries = await self.cluster.lobby.read()
        else:
            entries = [e for e in map(lobby_entry, self.tables.held.values()) if e is not None]
        reader = narrator(lang)
        return [e.model_copy(update={"rules_label": reader.rules_label(e.rules_name)})
                for e in entries]
