"""The two sides of a connection whose table another process owns.

At the owner, a connection of another process (its *edge*) is a :class:`RemotePeer`:
what the table sends it goes to the edge's channel. At the edge, the table is a
:class:`RemoteTable`: the connection's table messages go to the owner's channel.
"""

from __future__ import annotations

import asyncio
import json
from typing import TYPE_CHECKING, Any, Protocol

from ... import wire as P
from ...wire import Sheet
from .nodewire import NODE_SHIFT

if TYPE_CHECKING:
    from ..tables.table import TableActor

__all__ = ["EdgeConnection", "RemotePeer", "RemoteTable", "Switchboard"]


class EdgeConnection(Protocol):
    """A connection of this process as the cluster knows it: who it is, where its table
    is when another process owns it, and how frames reach it (the edge's connection)."""

    id: int
    player_id: int
    name: str
    lang: str
    #: The newest stream position it was sent: a frame from the owner carries it.
    seq: int
    #: Its table, when another process owns it.
    remote: RemoteTable | None

    def send(self, text: str) -> None: ...

    def drop(self, reason: str = ...) -> None:
        """Close it so that it reconnects (its table moved)."""


class Switchboard(Protocol):
    """What the two sides reach of this process's part in the cluster."""

    @property
    def node(self) -> int:
        """This process's node number."""
    #: Remote connections at the tables owned here, by their number at the tables.
    peers: dict[int, RemotePeer]
    #: Connections of this process at tables owned elsewhere, by number.
    edges: dict[int, EdgeConnection]

    def channel(self, node: int) -> str: ...

    def publish(self, channel: str, data: str) -> asyncio.Future[int]: ...

    def frame_to_edge(self, node: int, conn: int, text: str, seq: int, code: str) -> None: ...

    def to_edge(self, node: int, entry: list[Any]) -> None: ...

    def drop(self, conn: EdgeConnection) -> None: ...


class RemotePeer:
    """At a table's owner, a connection of another process (its edge): what the table
    sends it goes to the edge's channel."""

    def __init__(self, cluster: Switchboard, node: int, conn: int, player_id: int, name: str,
                 lang: str) -> None:
        self.cluster = cluster
        self.node = node
        self.conn = conn
        self.id = (node << NODE_SHIFT) | conn
        self.player_id = player_id
        self.name = name
        self.lang = lang
        self.seq = 0
        #: The last sheet the table sent this connection, whole (its ``events`` carry changes).
        self.sheet: Sheet | None = None
        #: A hint this connection asked for is being computed here (one at a time).
        self.hinting = False
        #: The names whose chat this player muted or blocked (read here from the store when
        #: the connection enters, and again when they change: :meth:`.Social.refresh`).
        self.silenced: frozenset[str] = frozenset()
        self._table: TableActor | None = None

    def send(self, text: str) -> None:
        code = self._table.code if self._table is not None else ""
        self.cluster.frame_to_edge(self.node, self.conn, text, self.seq, code)

    @property
    def table(self) -> TableActor | None:
        return self._table

    @table.setter
    def table(self, actor: TableActor | None) -> None:
        if actor is None and self._table is not None:
            # The table let the connection go (it left): its edge forgets the table too.
            self.cluster.to_edge(self.node, [self.conn, "l", self._table.code, 0])
            self.cluster.peers.pop(self.id, None)
        self._table = actor


class RemoteTable:
    """At an edge, a table another process owns: table messages go to its owner."""

    def __init__(self, cluster: Switchboard, code: str, owner: int) -> None:
        self.cluster = cluster
        self.code = code
        self.owner = owner

    def _to_owner(self, conn: EdgeConnection, kind: str, **fields: Any) -> None:
        c = self.cluster
        body = {"k": kind, "t": self.code, "n": c.node, "c": conn.id, "p": conn.player_id,
                "nm": conn.name, "l": conn.lang, **fields}
        sent = c.publish(c.channel(self.owner), json.dumps(body, ensure_ascii=False))

        def check(fut: asyncio.Future[int]) -> None:
            # Nobody listens on the owner's channel: it is gone. Its tables will be taken
            # over; the client reconnects and finds the new owner.
            if not fut.cancelled() and fut.exception() is None and fut.result() == 0 \
                    and kind != "out":
                c.drop(conn)

        sent.add_done_callback(check)

    def attach(self, conn: EdgeConnection, mode: str, last_seq: int | None, ref: P.Ref) -> None:
        self.cluster.edges[conn.id] = conn
        self._to_owner(conn, "in", m=mode, s=last_seq, r=ref)

    def message(self, conn: EdgeConnection, msg: P.ClientMessage) -> None:
        self._to_owner(conn, "msg", x=msg.model_dump_json(exclude_unset=True))

    def detach(self, conn: EdgeConnection) -> None:
        self.cluster.edges.pop(conn.id, None)
        self._to_owner(conn, "out")
