"""A connection's frames: charged, checked, parsed once into the protocol's typed message,
and handed to the one handler of its class.

Every frame is charged to its connection, player and address before it is parsed
(:mod:`.admission`), then read by the wire's parser, whose models are the one check of
a message's shape. The handlers are thin: ``hello`` and ``ping``, the lobby, account
messages (the people's :mod:`~nimmt.server.people.accounts`), social messages
(:mod:`~nimmt.server.people.social`), ``create_table``, ``join`` and ``spectate``; a
table message (:data:`~nimmt.wire.TABLE_MESSAGES`) is charged and checked here, at the
connection's own process, and then goes to its table, here or at its owner
(:class:`~.doors.Doors`). A message of the protocol without a handler fails
tests/server/test_server_dispatch.py.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Iterable
from typing import Any

from ... import wire as P
from ...narrate import UnknownLanguage, narrator
from ..base.logs import Failures, event
from ..base.settings import Settings
from ..ops.counters import Traffic
from ..people.accounts import ACCOUNT_MESSAGES
from ..people.build import People
from ..people.social import SOCIAL_MESSAGES
from ..store import Conflict
from ..tables.fanout import echo_ref
from ..tables.registry import Tables
from .admission import Admission
from .connection import Connection
from .doors import Doors

__all__ = ["BEFORE_HELLO", "ROUTES", "Dispatcher"]

log = logging.getLogger("nimmt.server")


class Dispatcher:
    """What the edge does with each frame of a connection."""

    def __init__(self, settings: Settings, admission: Admission, people: People[Connection],
                 tables: Tables, doors: Doors, traffic: Traffic,
                 refused: Callable[[str], None]) -> None:
        self.settings = settings
        self.admission = admission
        self.people = people
        self.tables = tables
        self.doors = doors
        self.traffic = traffic
        self.refused = refused
        #: Unexpected failures of messages, logged at most once a minute per type.
        self.failures = Failures(log)

    async def on_frame(self, conn: Connection, data: str | bytes) -> None:
        """One frame from ``conn``: charged, checked, parsed, then handled."""
        size = len(data) if isinstance(data, bytes) else len(data.encode("utf-8", "replace"))
        self.traffic.frame_in(size)
        if not self.admission.admit(conn, size, data):
            return
        if isinstance(data, bytes):
            try:
                text = data.decode()
            except UnicodeDecodeError:
                conn.error("bad_json", "binary frames must hold UTF-8 JSON")
                return
        else:
            text = data
        if len(text) > self.settings.max_frame:
            # Read for its ref alone: the transport bounds it (8 × max_frame).
            conn.error("frame_too_large",
                       f"frames hold at most {self.settings.max_frame} bytes, not {len(text)}",
                       echo_ref(text))
            return
        try:
            msg = P.parse_client(text, self.settings.max_depth)
        except P.ProtocolError as exc:
            conn.error(exc.code, exc.message, echo_ref(text), exc.retry_after)
            return
        try:
            await self._dispatch(conn, msg)
        except P.ProtocolError as exc:
            conn.error(exc.code, exc.message, echo_ref(text), exc.retry_after)
        except Conflict:
            # A write raced another of the same row (connections of one player at once):
            # what is stored is what one of them made; this one is told, and stays.
            self.refused("store_conflict")
            conn.error("internal", "another request changed the same thing at the same "
                       "moment; ask again", echo_ref(text))
        except Exception:
            self.failures.failed(msg.type, f"a {msg.type} message from player "
                                 f"{conn.player_id} failed")
            conn.error("internal", "the server failed to answer this message; ask again",
                       echo_ref(text))

    async def _dispatch(self, conn: Connection, msg: P.ClientMessage) -> None:
        """``msg`` to its handler in :data:`ROUTES`, by its class; only ``hello`` and
        ``ping`` come before ``hello``."""
        self.traffic.messages[msg.type] += 1
        handler = ROUTES.get(type(msg))
        if handler is None:  # tests/server/test_server_dispatch.py: never
            raise P.ProtocolError("bad_message", f"{msg.type} is not a message this server "
                                  "takes")
        if not conn.player_id and type(msg) not in BEFORE_HELLO:
            raise P.ProtocolError("not_authenticated", "send hello first")
        await handler(self, conn, msg)

    async def _ping(self, conn: Connection, msg: P.Ping) -> None:
        conn.send(P.Pong(seq=conn.seq, ref=msg.ref).model_dump_json())

    async def _lobby(self, conn: Connection, msg: P.Lobby) -> None:
        conn.send(P.LobbyList(seq=conn.seq, tables=await self.doors.lobby(conn.lang),
                              ref=msg.ref).model_dump_json())

    async def _account(self, conn: Connection, msg: P.ClientMessage) -> None:
        await self.people.accounts.message(conn, msg)

    async def _social(self, conn: Connection, msg: P.ClientMessage) -> None:
        await self.people.social.message(conn, msg)

    async def _join(self, conn: Connection, msg: P.Join | P.Spectate) -> None:
        await self.doors.enter(conn, msg.table, msg.type, msg.last_seq, msg.ref)

    async def _at_table(self, conn: Connection, msg: P.TableMessage) -> None:
        """A table message: charged and checked here, at the connection's own process,
        then sent to the table wherever it is."""
        if conn.table is None and conn.remote is None:
            raise P.ProtocolError("not_at_table", "join or spectate a table first")
        match msg:
            case P.AskHint():
                self.admission.charge_hint(conn)
            case P.AskHistory():
                self.admission.charge_history(conn)
            case P.Chat():
                self.people.sanctions.check_chat(conn.player_id)
            case P.Sit() if conn.table is not None:
                await self.people.social.check_sit(conn.player_id, conn.table)
        self.doors.act(conn, msg)

    async def _hello(self, conn: Connection, msg: P.Hello) -> None:
        if msg.version != P.PROTOCOL_VERSION:
            raise P.ProtocolError(
                "version", f"this server speaks protocol version {P.PROTOCOL_VERSION}, "
                f"not {msg.version}")
        if conn.player_id:
            raise P.ProtocolError("bad_message", "hello was already said on this connection")
        lang = "en"
        if msg.lang is not None:
            try:
                lang = narrator(msg.lang).language
            except UnknownLanguage as exc:
                raise P.ProtocolError("bad_language", str(exc)) from None
        conn.lang = lang  # a refusal of this hello is said in its language
        # A token, a sign-in, a recovery or a new guest (server/accounts.py).
        people = self.people
        who = await people.accounts.hello(conn, msg)
        self.traffic.player_here(who.player_id)
        await people.social.refresh(who.player_id, conn)
        log.info("player %d (%s) said hello%s", who.player_id, who.name,
                 " as a new player" if who.token is not None else "",
                 extra=event("player.hello", player=who.player_id, new=who.token is not None,
                             connection=conn.id))
        # A guest's welcome leaves ``account`` out (false), so clients older than accounts,
        # whose models forbid unknown fields, read it as before.
        conn.send(P.Welcome(seq=conn.seq, player=who.name, token=who.token, lang=lang,
                            account=who.account, ref=msg.ref)
                  .model_dump_json(exclude=None if who.account else {"account"}))
        people.social.arrived(conn)
        await people.social.deliver(who.player_id)  # invitations waiting for them
        people.presence.moved(who.player_id)
        people.presence.online.changed()
        if msg.invite is not None:
            await people.social.redeem(conn, msg.invite)  # an invitation link: seated
        elif msg.table is not None:
            await self.doors.enter(conn, msg.table, "join", msg.last_seq, msg.ref)

    async def _create(self, conn: Connection, msg: P.CreateTable) -> None:
        actor = await self.tables.create(conn.player_id, conn.address, msg)
        self.doors.opened(conn, actor, msg)


#: What answers a client message, by its class: one handler for each message of
#: :data:`~nimmt.wire.ClientMessage` (tests/server/test_server_dispatch.py checks it).
Handler = Callable[[Dispatcher, Connection, Any], Awaitable[None]]


def _routes(*groups: tuple[Iterable[type[P.ClientMessage]], Handler]) -> dict[type, Handler]:
    routes: dict[type, Handler] = {}
    for kinds, handler in groups:
        for kind in kinds:
            if kind in routes:
                raise AssertionError(f"{kind.__name__} has two handlers")
            routes[kind] = handler
    return routes


ROUTES = _routes(
    ([P.Hello], Dispatcher._hello),
    ([P.Ping], Dispatcher._ping),
    ([P.Lobby], Dispatcher._lobby),
    (ACCOUNT_MESSAGES, Dispatcher._account),
    (SOCIAL_MESSAGES, Dispatcher._social),
    ([P.CreateTable], Dispatcher._create),
    ([P.Join, P.Spectate], Dispatcher._join),
    (P.TABLE_MESSAGES, Dispatcher._at_table),
)
#: The messages a connection may send before its ``hello``.
BEFORE_HELLO = frozenset({P.Hello, P.Ping})
