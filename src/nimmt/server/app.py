"""The server: a Starlette app with one WebSocket endpoint and a small JSON API.

The :class:`Hub` holds the tables (one :class:`~nimmt.server.table.TableActor`
each) and the connections. A connection reads frames, checks their size and
rate, parses them with the protocol models, and handles the few messages that
are not about one table (hello, create_table, join, spectate, lobby, ping);
everything else goes to the actor of the table the connection is at. Each
connection writes from its own queue, so a slow client never holds up a table.

Routes: ``/`` (redirects to the web client at ``/play/``), ``/api`` (what this
server speaks), ``/ws`` (the game), ``/protocol.json`` (the JSON Schema),
``/api/tables`` (the lobby), ``/api/tables/{code}`` (one table, for links),
``/api/tables/{code}/games`` (the ids of its stored games),
``/api/games/{id}`` (a game record), ``/api/games/{id}/analysis`` (the expert's
review of a finished game),
``/api/players/{name}`` (a player's games and rating), ``/healthz`` and ``/readyz``
(:mod:`.health`). ``/metrics`` is served only on the operations listener
(:mod:`.metrics`).
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import itertools
import json
import logging
import math
import secrets
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Coroutine, Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TypeVar

from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import JSONResponse, RedirectResponse, Response
from starlette.routing import Route, WebSocketRoute
from starlette.websockets import WebSocket, WebSocketDisconnect

from .. import wire as P
from ..advice import GameReview
from ..errors import RulesError
from ..narrate import UnknownLanguage, narrator
from ..rules import EndMode, Rules
from ..wire import Sheet
from .base.limits import Bucket, Buckets, WindowCounter, address_key
from .base.logs import Failures, event
from .base.logs import flush as flush_logs
from .base.params import (
    BadParam,
    ReadRefused,
    player_names,
    refusal,
    row_id,
    shown,
    speaker,
    table_code,
)
from .base.quota import InFlight
from .base.settings import Settings
from .base.text import clean_text
from .cluster import lobby_entry
from .commands import Shut
from .edge.headers import HeaderedStarlette
from .edge.httpguard import Link, link_of
from .edge.web import web_routes
from .fanout import echo_ref, error_frame
from .history import Pages
from .ops.counters import Traffic
from .ops.health import Readiness, health_routes
from .ops.metrics import Metrics, OpsListener
from .people.accounts import ACCOUNT_MESSAGES, Accounts
from .people.leaderboards import Leaderboards, board_params
from .people.members import Place
from .people.presence import Whereabouts
from .people.roster import Roster
from .people.sanctions import Sanctions
from .people.signals import Signals
from .people.social import SOCIAL_MESSAGES, Social
from .reads import TableRead, answer, table_answer
from .reducer import speaker_of
from .store import Conflict, LogEntry, Store
from .table import TableActor, TablePeer
from .workers.botpool import BotPool, lane_of
from .workers.heavyreads import Reads, game_read, json_bytes_response, refused_response
from .workers.tutor import Tutor, TutorBusy, TutorJob, TutorStopped

if TYPE_CHECKING:
    from .cluster import Cluster, RemoteTable

__all__ = ["Connection", "Hub", "create_app", "echo_ref", "game_json"]

log = logging.getLogger("nimmt.server")

T = TypeVar("T")

CODE_ALPHABET = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"
#: What one queued frame costs beyond its characters (the string object and its slot):
#: ``send_backlog_bytes`` counts it, so a flood of tiny frames is bounded too.
FRAME_COST = 64
#: The key under which :attr:`Hub.creating` counts every table being made (no player id
#: or address is a tuple).
ALL_TABLES = ("all",)
#: Numbers for connections (how tables tell them apart).
_CONNECTION_IDS = itertools.count(1)


class Connection:
    """One WebSocket client.

    Frames to it wait in its own queue, written by its own task (:meth:`write_loop`),
    so whoever sends (a table, the hub) never waits for the client. A client that
    stops reading is closed, never waited for: when its unsent frames pass
    ``send_backlog_bytes``, or when its transport has taken nothing for
    ``write_timeout`` seconds (the guard's :class:`~.httpguard.Link` says so). The
    close is an abort (the socket's buffers dropped, the peer reset): a polite close
    would wait for the peer to read first.
    """

    def __init__(self, ws: WebSocket, settings: Settings, address: str = "unknown",
                 counts: collections.Counter[str] | None = None,
                 metrics: Traffic | None = None) -> None:
        self.ws = ws
        #: The transport's controls, when served by the guard (server/httpguard.py).
        self.link: Link | None = link_of(ws.scope)
        if self.link is not None:
            self.link.on_stall = self._stalled
        self.backlog = settings.send_backlog_bytes
        self.write_timeout = settings.write_timeout
        #: What the server counts (closed slow readers among them): the hub's counter.
        self.counts: collections.Counter[str] = (counts if counts is not None
                                                 else collections.Counter())
        #: Bytes of frames queued and not yet handed to the transport (plus FRAME_COST each).
        self.unsent = 0
        #: Whether the server closed this client for not reading (:meth:`close_slow`).
        self.cut_slow = False
        #: This connection's number, unique in this process.
        self.id = next(_CONNECTION_IDS)
        #: The client address as counted by the limits (:func:`~.limits.address_key`).
        self.address = address
        self.player_id = 0
        self.name = ""
        #: The session this connection's ``hello`` used or made (server/accounts.py).
        self.session_id = 0
        #: The narration language of this connection (its ``hello`` says which).
        self.lang = "en"
        self.seq = 0
        #: The last sheet a table sent this connection, whole (its ``events`` carry changes).
        self.sheet: Sheet | None = None
        self.table: TableActor | None = None
        #: The table this connection is at when another server process owns it.
        self.remote: RemoteTable | None = None
        self.out: asyncio.Queue[str | None] = asyncio.Queue()
        self.gone = False
        self.bucket = Bucket(settings.rate, float(settings.burst))
        #: Frames refused for rate since the last one that passed; past ``flood_cutoff``
        #: the connection is closed.
        self.refused = 0
        self._told = 0.0
        #: Why the server closes the connection (a client that stopped reading, a flooder).
        self.close_reason = "too slow"
        #: Whether the hub counted this connection in (see :meth:`Hub.count_in`).
        self.counted = False
        #: Whether the server is closing this connection (a last frame is on its way).
        self.closing = False
        #: Whether a hint this connection asked for is being computed (one at a time).
        self.hinting = False
        #: The names of the players this one muted or blocked: their chat is not sent here.
        self.silenced: frozenset[str] = frozenset()
        #: The close code when the server closes (1008 policy; 1012 the table moved).
        self.close_code = 1008
        #: The hub's metrics (frames sent are counted there).
        self.metrics = metrics

    def send(self, text: str) -> None:
        """Send ``text``; never waits. With nothing queued before it, the frame goes to the
        transport at once (no task switch, no ASGI layers: a table sends a frame to every
        seat after every turn); else it is queued for :meth:`write_loop`. Past
        ``send_backlog_bytes`` waiting (in the queue, or in a transport the client does
        not empty) the connection is closed instead (one frame alone always fits)."""
        if self.gone:
            return
        link = self.link
        if link is not None and not self.unsent and link.write_text(text):
            if self.metrics is not None:
                self.metrics.frames_out += 1
            if link.buffered() > self.backlog:
                self.close_slow(f"more than {self.backlog} bytes waiting (send_backlog_bytes)")
            return
        size = len(text) + FRAME_COST
        if self.unsent and self.unsent + size > self.backlog:
            self.close_slow(f"more than {self.backlog} bytes waiting (send_backlog_bytes)")
            return
        self.unsent += size
        self.out.put_nowait(text)
        if self.metrics is not None:
            self.metrics.frames_out += 1

    async def write_loop(self) -> None:
        while True:
            text = await self.out.get()
            if text is None:
                with contextlib.suppress(Exception):
                    await self.ws.close(code=self.close_code, reason=self.close_reason)
                return
            try:
                await self.ws.send_text(text)
            except Exception:
                self.gone = True
                return
            self.unsent = max(0, self.unsent - len(text) - FRAME_COST)

    def close_slow(self, why: str) -> None:
        """Close a client that does not take what it is sent: logged (its address, the bytes
        it left unsent), counted (``slow_reader``), its queue dropped now, its transport
        aborted. Without the guard's link (an app served otherwise) the close is polite."""
        if self.cut_slow:
            return
        self.cut_slow = True
        buffered = self.link.buffered() if self.link is not None else 0
        log.warning("closed a connection from %s that does not read: %d bytes unsent (%s)",
                    self.address, self.unsent + buffered, why)
        self.counts["slow_reader"] += 1
        self.gone = True
        self.unsent = 0
        while not self.out.empty():
            self.out.get_nowait()
        if self.link is not None:
            self.link.abort()
        else:
            self.out.put_nowait(None)

    def _stalled(self) -> None:
        self.close_slow(f"nothing taken for {self.write_timeout:g} s (write_timeout)")

    def error(self, code: P.CodeLike, message: str, ref: P.Ref = None,
              retry_after: float | None = None) -> None:
        self.send(error_frame(self.seq, code, message, ref, self.lang, retry_after))

    def cut_off(self, code: P.CodeLike, message: str) -> None:
        """Send a last error and close (policy violation) once it has gone out."""
        self.error(code, message)
        self.close_reason = code
        self.closing = True
        self.gone = True
        self.out.put_nowait(None)

    def drop(self, reason: str = "the table moved: reconnect") -> None:
        """Close with 1012 (service restart), once what is queued has gone out: the table
        moved to another server process, or this one stops; the client reconnects (through
        any process) and carries on from its last ``seq``."""
        if self.gone:
            return
        self.close_code = 1012
        self.close_reason = reason
        self.closing = True
        self.gone = True
        self.out.put_nowait(None)

    def throttled(self, message: str, frame: str | bytes = "") -> None:
        """A frame refused for rate: say so at most once a second (no echo for a flood),
        with the frame's ``ref`` (read only then: a flood's frames are never parsed)."""
        now = time.monotonic()
        if now - self._told >= 1.0:
            self._told = now
            text = frame if isinstance(frame, str) else frame.decode("utf-8", "replace")
            self.error("rate_limited", message, echo_ref(text) if text else None)


#: Seconds each part of a stopping server may take to close (:meth:`Hub.close`).
CLOSE_STEP_SECONDS = 10.0


async def _bounded(part: str, closing: Coroutine[Any, Any, None]) -> None:
    try:
        await asyncio.wait_for(closing, CLOSE_STEP_SECONDS)
    except TimeoutError:
        log.error("%s did not close within %g s: left behind", part, CLOSE_STEP_SECONDS,
                  extra=event("server.close_timeout", part=part))


class Hub:
    """Every table and connection of one server process."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self.store = Store(settings.database_url())
        self.tables: dict[str, TableActor] = {}
        # The limits on strangers, across all their connections (docs/security.md).
        self.player_msgs = Buckets(settings.player_rate, float(settings.player_burst))
        self.address_msgs = Buckets(settings.address_rate, float(settings.address_burst))
        self.address_bytes = Buckets(settings.address_bytes, float(settings.address_bytes_burst))
        #: What the server is doing (``/metrics``, docs/operations.md); the store, the bots
        #: and the tutor count into it too.
        self.metrics = Metrics()
        #: What the server refused or cut off, by kind (``slow_reader``, ``header_timeout``,
        #: ``tcp_per_address``, …): each is also logged (docs/security.md).
        self.counts: collections.Counter[str] = self.metrics.counts
        #: Open connections: in all, and by client address.
        self.connections: dict[str, int] = {}
        self.open_connections = 0
        #: Every connection counted in (a drain tells each and closes it).
        self.live: set[Connection] = set()
        self.origins = {o.strip().rstrip("/").lower() for o in settings.allowed_origins.split(",")
                        if o.strip()}
        #: Where every table's bots think: worker processes, fair across tables.
        self.bots = BotPool(workers=settings.bot_workers, seconds=settings.bot_seconds,
                            grace=settings.bot_grace, extra=settings.bots)
        #: Where hints and game analyses are computed: worker processes of their own.
        self.tutor = Tutor.of(settings)
        #: Where what must not run on the event loop is built (replays, records, speech,
        #: pages of old stream items), with its cache and its limits.
        self.reads = Reads(settings)
        #: Pages of old stream items rebuilt from the log, kept for the pages that follow.
        self.pages = Pages(self.reads, self.store, settings.history_cache)
        #: Finished games' analyses, by game id (the newest ``analysis_cache``), and those
        #: being computed, so a game asked for twice at once is analysed once.
        self.analyses: collections.OrderedDict[int, GameReview] = collections.OrderedDict()
        self.analysing: dict[int, Analysing] = {}
        #: Whether the server is stopping (new hints and analyses are refused).
        self.stopping = False
        #: Tables being made (their row being stored), by host and by address: the quotas
        #: on tables count them (server/quota.py).
        self.creating = InFlight()
        #: Unexpected failures of messages, logged at most once a minute per type.
        self.failures = Failures(log)
        #: Analyses not yet cached that each client address asked for, per minute.
        self.new_analyses = WindowCounter(settings.analyses_per_minute, 60.0)
        #: With Redis: this process's part in a cluster of processes (docs/scaling.md).
        self.cluster: Cluster | None = None
        self._forgetting: set[asyncio.Task[None]] = set()
        #: Whether this process drains (stops taking tables before it stops): ``/readyz``
        #: then fails, so a load balancer sends new players elsewhere.
        self.draining = False
        self.metrics.sources = _Gauges(self)
        self.store.metrics = self.metrics.store
        self.bots.metrics = self.tutor.metrics = self.metrics.work
        self._watch: asyncio.Task[None] | None = None
        if settings.redis:
            from .cluster import Cluster

            self.cluster = Cluster(self, self.metrics.cluster)
        #: Who each connection is: guests, accounts, sessions, sanctions.
        self.roster: Roster[Connection] = Roster()
        self.sanctions = Sanctions()
        self.accounts = Accounts(settings, self.store, self.roster, self.sanctions,
                                 self.metrics.refused)
        #: Follows, mutes, blocks, reports (people/social.py) and the leaderboard's pages.
        self.presence = Whereabouts(settings, self.store, self.roster, self)
        self.social = Social(settings, self.store, self.roster, self.sanctions, self,
                             self.presence, self.metrics.refused)
        self.signals = Signals(settings, self.store, self.roster, self.sanctions, self.social,
                               self)
        self.boards = Leaderboards(self.store, settings)

    async def open(self) -> None:
        self._watch = asyncio.create_task(self.metrics.watch(), name="nimmt-watch")
        # First the operator's bots (a bad one stops the server before anything opens).
        await self.bots.start()
        await self.store.open()
        await self.accounts.open()
        await self.signals.open()
        if self.cluster is not None:
            # Tables are taken over one by one, by whichever process gets each lease.
            await self.cluster.open()
            return
        for row, entries in await self.store.live_tables():
            await self.resume_table(row, entries)

    async def resume_table(self, row: Any, entries: list[LogEntry],
                           token: int | None = None) -> TableActor | None:
        """Bring table ``row`` back from its log (a restart, or a take-over with fencing
        ``token``): its actor, running; None if it does not come back."""
        if row.status == "open":
            # Nobody can be at an unstarted table after a restart: close it rather
            # than bring back tables that anyone could have opened by the thousand.
            await self.store.close_table(int(row.id))
            return None
        actor = self._actor(row)
        actor.token = token
        try:
            actor.replay(entries)
        except Exception:
            log.exception("table %s does not replay; it stays closed", row.code)
            return None
        self.tables[actor.code] = actor
        actor.start()
        actor.resume()
        return actor

    def drain(self) -> None:
        """The server starts to stop: every hint and analysis pending is refused now, so
        nobody's request holds the shutdown up (docs/server.md, "Stopping")."""
        self.stopping = True
        self.tutor.stop()

    async def wind_down(self, seconds: float) -> None:
        """A stop that loses nothing (SIGTERM, SIGINT; docs/operations.md, "Rolling
        restarts"), within ``seconds``:

        1. ``draining``: ``/readyz`` answers 503 (a load balancer sends new players
           elsewhere) and tables are no longer made or entered here (``restarting``);
           pending hints and analyses are refused;
        2. every connection is told (``restarting``, a sentence in its language);
        3. every table here settles: the decisions and chat lines already received are
           stored and acknowledged, then it stops; with Redis its lease goes at once and
           its move is announced, so another process takes it over without waiting;
        4. every connection is closed with code 1012 (service restart) once its last
           frames went out: clients reconnect (to another process, or to this one when
           it is back) with their token, table and last ``seq``.

        What is left after ``seconds`` is cut off by the server's own shutdown; the log
        still holds everything that was acknowledged."""
        begun = time.monotonic()
        end = begun + seconds
        self.draining = True
        self.drain()
        log.info("draining: %d tables, %d connections", len(self.tables), len(self.live),
                 extra=event("server.draining", tables=len(self.tables),
                             connections=len(self.live)))
        for conn in list(self.live):
            conn.error(P.ErrorCode.RESTARTING, P.ErrorCode.RESTARTING.description)
        actors = list(self.tables.values())
        settle = max(0.0, end - time.monotonic()) / 2
        await asyncio.gather(*(a.settle(settle) for a in actors))
        if self.cluster is not None:
            await self.cluster.hand_over(actors)
        for conn in list(self.live):
            conn.drop("the server restarts: reconnect")
        while self.live and time.monotonic() < end:
            await asyncio.sleep(0.02)
        spent = time.monotonic() - begun
        log.info("drained in %.2f s (%d connections still open)", spent, len(self.live),
                 extra=event("server.drained", seconds=round(spent, 3), left=len(self.live)))

    async def close(self) -> None:
        """Stop every part, each within :data:`CLOSE_STEP_SECONDS`: a part that hangs (a
        lost Redis or database answer) is named in the log and left behind, and the
        process still stops, so a restart is never held up by it."""
        if self._watch is not None:
            self._watch.cancel()
        self.drain()
        if self.cluster is not None:
            await _bounded("the cluster's connections", self.cluster.close())
        for actor in list(self.tables.values()):
            await _bounded(f"table {actor.code}", actor.stop())
        self.tables.clear()
        await _bounded("the signals", self.signals.close())
        self.accounts.close()
        await _bounded("the database", self.store.close())
        await _bounded("the bot workers", self.bots.close())
        await _bounded("the advice worker", self.tutor.close())
        self.reads.close()

    def _actor(self, row: Any) -> TableActor:
        settings = json.loads(row.settings)
        return TableActor(
            store=self.store, settings=self.settings, bots=self.bots, tutor=self.tutor,
            pages=self.pages, on_close=self.forget_table, table_id=row.id, code=row.code,
            name=row.name, host_id=row.host_id, rules=Rules.from_dict(json.loads(row.rules)),
            turn_timer=settings["turn_timer"], rated=settings["rated"],
            private=settings["private"],
        )

    def forget_table(self, actor: TableActor) -> None:
        """``actor`` ended (closed, or owned by another process now)."""
        if self.tables.get(actor.code) is actor:
            del self.tables[actor.code]
            how = "moved to another process" if actor.lost else "closed"
            log.info("table %s %s", actor.code, how,
                     extra=event("table.ended", table=actor.code,
                                 reason="moved" if actor.lost else "closed"))
            if self.cluster is not None:
                task = asyncio.create_task(self.cluster.forget(actor))
                self._forgetting.add(task)
                task.add_done_callback(self._forgetting.discard)

    async def read_table(self, code: str, read: TableRead) -> str | None:
        """The answer to an HTTP ``read`` of table ``code`` (JSON text), or None if no open
        table has that code. With Redis, a table another process owns is read by its owner
        (:meth:`.cluster.Cluster.read`), never rebuilt here; that raises
        :class:`~.reads.ReadRefused` (503) when the owner cannot answer in time."""
        actor = self.tables.get(code)
        if actor is not None or self.cluster is None:
            return None if actor is None else answer(actor, read)
        return await self.cluster.read(code, read)

    async def table_exists(self, code: str) -> bool:
        """Whether an open table has ``code`` (here, or with Redis anywhere)."""
        if code in self.tables:
            return True
        return self.cluster is not None and await self.store.table_by_code(code) is not None

    def drop(self, peer: TablePeer) -> None:
        """Close ``peer`` if it is a connection of this process: its table moved to another
        process (it reconnects). A remote peer's own process closes it."""
        if isinstance(peer, Connection):
            peer.drop()

    # -- frames ---------------------------------------------------------------------

    def admit(self, conn: Connection, size: int, frame: str | bytes = "") -> bool:
        """Charge one frame of ``size`` bytes to its connection, player and address.

        Every frame is charged before it is parsed, oversized and malformed ones too,
        so a limit cannot be dodged by sending what the parser refuses. The bytes are
        taken even when the frame is then refused: they were read. The refusal carries
        ``frame``'s ``ref``.
        """
        s = self.settings
        now = time.monotonic()
        addr = conn.address
        fits = self.address_bytes.force(addr, size, now)
        conn.bucket.refill(now)
        player = conn.player_id or None
        ok = (fits and conn.bucket.tokens >= 1.0
              and (player is None or self.player_msgs.room(player, 1.0, now))
              and self.address_msgs.room(addr, 1.0, now))
        if ok:
            conn.bucket.tokens -= 1.0
            if player is not None:
                self.player_msgs.take(player, 1.0, now)
            self.address_msgs.take(addr, 1.0, now)
            conn.refused = 0
            return True
        conn.refused += 1
        # Counted under the setting of the first bucket that was short.
        if not fits:
            self.metrics.refused("address_bytes")
        elif conn.bucket.tokens < 1.0:
            self.metrics.refused("rate")
        elif player is not None and not self.player_msgs.room(player, 1.0, now):
            self.metrics.refused("player_rate")
        else:
            self.metrics.refused("address_rate")
        if conn.refused >= s.flood_cutoff:
            self.metrics.refused("flood_cutoff")
            log.warning("cut off a flooding connection from %s (player %s)", addr, player)
            conn.cut_off("flooding", f"{conn.refused} messages in a row came faster than "
                         "the server accepts; the connection is closed")
        elif not fits:
            conn.throttled(f"at most {s.address_bytes:g} bytes per second from one address; "
                           "this frame was dropped", frame)
        else:
            conn.throttled(f"at most {s.rate:g} messages per second ({s.player_rate:g} per "
                           f"player, {s.address_rate:g} per address); this one was dropped",
                           frame)
        return False

    async def on_frame(self, conn: Connection, data: str | bytes) -> None:
        """One frame from ``conn``: charged, checked, parsed, then handled."""
        size = len(data) if isinstance(data, bytes) else len(data.encode("utf-8", "replace"))
        self.metrics.traffic.frame_in(size)
        if not self.admit(conn, size, data):
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
            self.metrics.refused("store_conflict")
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
        self.metrics.traffic.messages[msg.type] += 1
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
        conn.send(P.LobbyList(seq=conn.seq, tables=await self.lobby(conn.lang),
                              ref=msg.ref).model_dump_json())

    async def _account(self, conn: Connection, msg: P.ClientMessage) -> None:
        await self.accounts.message(conn, msg)

    async def _social(self, conn: Connection, msg: P.ClientMessage) -> None:
        await self.social.message(conn, msg)

    async def _join(self, conn: Connection, msg: P.Join | P.Spectate) -> None:
        await self._enter(conn, msg.table, msg.type, msg.last_seq, msg.ref)

    async def _at_table(self, conn: Connection, msg: P.ClientMessage) -> None:
        """A table message: charged and checked here, at the connection's own process,
        then sent to the table wherever it is."""
        if conn.table is None and conn.remote is None:
            raise P.ProtocolError("not_at_table", "join or spectate a table first")
        match msg:
            case P.AskHint():
                self.charge_hint(conn)
            case P.AskHistory():
                self.charge_history(conn)
            case P.Chat():
                self.sanctions.check_chat(conn.player_id)
            case P.Sit() if conn.table is not None:
                await self.social.check_sit(conn.player_id, conn.table)
        if conn.remote is not None:
            conn.remote.message(conn, msg)
        elif conn.table is not None:
            conn.table.message(conn, msg)

    # -- the tables, as the people part uses them (people.members.Rooms) ----------------

    async def act(self, conn: Connection, msg: P.TableMessage) -> None:
        await self._at_table(conn, msg)

    def place(self, conn: Connection) -> Place | None:
        if conn.table is not None:
            return conn.table.code, any(s is None for s in conn.table.seats)
        if conn.remote is not None:
            return conn.remote.code, None
        return None

    def close_table(self, code: str) -> bool:
        actor = self.tables.get(code)
        if actor is None:
            return False
        actor.post(Shut())
        return True

    def silence(self, player_id: int, names: frozenset[str]) -> None:
        if self.cluster is not None:
            for peer in self.cluster.peers.values():
                if peer.player_id == player_id:
                    peer.silenced = names

    def charge_hint(self, conn: Connection) -> None:
        """A hint is a second of search: it costs ``hint_cost`` messages of the
        connection's rate (the frame itself paid one)."""
        extra = self.settings.hint_cost - 1.0
        conn.bucket.refill(time.monotonic())
        if conn.bucket.tokens < extra:
            self.metrics.refused("hint_cost")
            raise P.ProtocolError(
                "rate_limited", f"a hint costs {self.settings.hint_cost:g} messages of your "
                f"rate ({self.settings.rate:g} a second); ask again in a moment")
        conn.bucket.tokens -= extra

    def charge_history(self, conn: Connection) -> None:
        """A page of history may be rebuilt from the log: it costs ``history_cost``
        messages of the connection's rate and of its player's (the frame itself paid
        one of each)."""
        s = self.settings
        extra = s.history_cost - 1.0
        now = time.monotonic()
        conn.bucket.refill(now)
        if conn.bucket.tokens < extra or not self.player_msgs.room(conn.player_id, extra, now):
            raise P.ProtocolError(
                "rate_limited", f"a page of history costs {s.history_cost:g} messages of your "
                f"rate ({s.rate:g} a second, {s.player_rate:g} per player); ask again in a "
                "moment")
        conn.bucket.tokens -= extra
        self.player_msgs.take(conn.player_id, extra, now)

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
        who = await self.accounts.hello(conn, msg)
        self.metrics.traffic.player_here(who.player_id)
        await self.social.refresh(who.player_id, conn)
        log.info("player %d (%s) said hello%s", who.player_id, who.name,
                 " as a new player" if who.token is not None else "",
                 extra=event("player.hello", player=who.player_id, new=who.token is not None,
                             connection=conn.id))
        # A guest's welcome leaves ``account`` out (false), so clients older than accounts,
        # whose models forbid unknown fields, read it as before.
        conn.send(P.Welcome(seq=conn.seq, player=who.name, token=who.token, lang=lang,
                            account=who.account, ref=msg.ref)
                  .model_dump_json(exclude=None if who.account else {"account"}))
        self.social.arrived(conn)
        await self.social.deliver(who.player_id)  # invitations waiting for them
        self.presence.moved(who.player_id)
        if msg.invite is not None:
            await self.social.redeem(conn, msg.invite)  # an invitation link: seated
        elif msg.table is not None:
            await self._enter(conn, msg.table, "join", msg.last_seq, msg.ref)

    async def _create(self, conn: Connection, msg: P.CreateTable) -> None:
        s = self.settings
        if self.draining:
            raise P.ProtocolError("restarting", "this server process is stopping: reconnect "
                                  "and open the table then")
        if len(self.tables) + self.creating[ALL_TABLES] >= s.max_tables:
            self.metrics.refused("max_tables")
            raise P.ProtocolError("server_full", "the server holds as many tables as it may")
        # Unstarted tables are cheap to open and to leave; started games go on without
        # their host (the bots play them), so they count until they end.
        for statuses, per_host, per_address, what, then, limit in (
            (("open",), s.tables_per_host, s.tables_per_address, "unstarted",
             "start or leave one first", "tables"),
            (("open", "playing"), s.running_per_host, s.running_per_address, "running",
             "wait for one of their games to end", "running"),
        ):
            # Tables being made (awaiting the store) count too: they will be unstarted.
            mine = [a for a in self.tables.values() if a.status in statuses]
            hosted = sum(1 for a in mine if a.host_id == conn.player_id)
            if hosted + self.creating[conn.player_id] >= per_host:
                self.metrics.refused(f"{limit}_per_host")
                raise P.ProtocolError("quota", f"you host {per_host} {what} tables already: "
                                      f"{then}")
            sent = sum(1 for a in mine if a.address == conn.address)
            if sent + self.creating[conn.address] >= per_address:
                self.metrics.refused(f"{limit}_per_address")
                raise P.ProtocolError("quota", f"{per_address} {what} tables come from your "
                                      f"address already: {then}")
        spec = msg.rules.model_dump()
        if spec["limit"] is None:
            del spec["limit"]
        try:
            rules = Rules.from_dict(spec)
        except RulesError as exc:
            raise P.ProtocolError("bad_rules", str(exc)) from None
        if rules.end is not EndMode.ROUNDS and rules.limit > s.max_point_limit:
            raise P.ProtocolError(
                "bad_rules", f"a point limit of {rules.limit} is longer than this server plays "
                f"(at most {s.max_point_limit})")
        # A table the host did not name is named in the host's language: the lobby and
        # the table's heading say it to everyone as it is stored.
        name = clean_text(msg.name or "")[:64] or narrator(conn.lang).table_name(conn.name)
        settings = {"turn_timer": msg.turn_timer, "rated": msg.rated, "private": msg.private}
        for _ in range(20):
            code = "".join(secrets.choice(CODE_ALPHABET) for _ in range(6))
            if code not in self.tables:
                break
        with self.creating.held(conn.player_id, conn.address, ALL_TABLES):
            table_id = await self.store.create_table(
                code=code, name=name, host_id=conn.player_id,
                rules=json.dumps(rules.to_dict()), preset=rules.preset_name,
                settings=json.dumps(settings))
            actor = TableActor(
                store=self.store, settings=self.settings, bots=self.bots, tutor=self.tutor,
                pages=self.pages, on_close=self.forget_table, table_id=table_id, code=code,
                name=name, host_id=conn.player_id, rules=rules, turn_timer=msg.turn_timer,
                rated=msg.rated, private=msg.private,
            )
            actor.address = conn.address
            actor.bot_quota = self.bot_quota
            if self.cluster is not None:
                await self.cluster.created(actor)
            self.tables[code] = actor
        actor.start()
        self._leave_current(conn)
        conn.table = actor
        actor.create(conn, msg.ref, msg.hints)
        self.presence.moved(conn.player_id)
        log.info("table %s opened by player %d (%s, %d seats)", code, conn.player_id,
                 rules.name, rules.players,
                 extra=event("table.created", table=code, player=conn.player_id,
                             rules=rules.name, seats=rules.players, rated=msg.rated,
                             private=msg.private))

    def bot_quota(self, actor: TableActor, bot: str | None) -> str | None:
        """Why ``actor``'s host may not seat bot ``bot`` now (``None``: play a rematch, the
        table's bots with it), or None.

        A search bot thinks up to ``bot_seconds`` of a worker per decision, and every
        table gets its turn in the search lane's round: without a cap one player with a
        few tables of experts would take as many turns as there are tables. The search
        bots at the live tables (unstarted or playing) of the host, and at those opened
        from the table's address, are counted; the quick bots cost microseconds.
        """
        here = _search_bots(actor)
        if bot is None:
            adding = 0 if actor.status in LIVE else here
        else:
            adding = 1 if lane_of(bot) == "search" else 0
        if not adding:
            return None
        s = self.settings
        live = [a for a in self.tables.values() if a.status in LIVE]
        checks = [([a for a in live if a.host_id == actor.host_id], s.search_bots_per_host,
                   "your live tables")]
        if actor.address is not None:
            checks.append(([a for a in live if a.address == actor.address],
                           s.search_bots_per_address, "the live tables from your address"))
        for mine, cap, whose in checks:
            if sum(_search_bots(a) for a in mine) + adding > cap:
                return (f"at most {cap} search bots (hard, expert) may play at {whose} at "
                        "once: seat an easier bot, or wait for one of those games to end")
        return None

    async def enter(self, conn: Connection, code: str, mode: str, last_seq: int | None,
                    ref: P.Ref) -> None:
        """``conn`` joins (``mode``) or watches the table ``code`` (an accepted invitation)."""
        await self._enter(conn, code, mode, last_seq, ref)

    async def _enter(self, conn: Connection, code: str, mode: str, last_seq: int | None,
                     ref: P.Ref) -> None:
        if self.draining:
            # Its tables are leaving this process (wind_down): none comes or is taken here.
            raise P.ProtocolError("restarting", "this server process is stopping: reconnect "
                                  "and try again")
        code = code.strip().upper()
        found: TableActor | RemoteTable | None = self.tables.get(code)
        if found is None and self.cluster is not None:
            found = await self.cluster.locate(code)
        if found is None:
            raise P.ProtocolError("no_table", f"no open table has the code {code!r}")
        self._leave_current(conn)
        if isinstance(found, TableActor):
            conn.table = found
        else:
            conn.remote = found
        found.attach(conn, mode, last_seq, ref)
        self.presence.moved(conn.player_id)
        log.info("player %d came to table %s (%s)", conn.player_id, code, mode,
                 extra=event("player.joined", table=code, player=conn.player_id, mode=mode,
                             here=isinstance(found, TableActor)))

    def _leave_current(self, conn: Connection) -> None:
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

    def origin_allowed(self, origin: str | None, host: str | None) -> bool:
        """Whether a WebSocket from a page of ``origin`` may open, the server's ``host``.

        A browser always names the page's origin on a WebSocket upgrade, so a page
        elsewhere cannot hide it; programs (the terminal client, bots) send none and
        are let in, as they act only for whoever runs them.
        """
        if origin is None:
            return True
        o = origin.strip().rstrip("/").lower()
        if "*" in self.origins or o in self.origins:
            return True
        scheme, sep, netloc = o.partition("://")
        return (bool(sep) and scheme in ("http", "https") and host is not None
                and netloc == host.strip().lower())

    def count_in(self, conn: Connection) -> tuple[P.CodeLike, str] | None:
        """Count a new connection in, or say why it may not stay."""
        s = self.settings
        if self.open_connections >= s.max_connections:
            self.metrics.refused("max_connections")
            return "server_full", "the server holds as many connections as it may; try later"
        if self.connections.get(conn.address, 0) >= s.connections_per_address:
            self.metrics.refused("connections_per_address")
            return ("too_many_connections", f"at most {s.connections_per_address} connections "
                    "from one address")
        self.connections[conn.address] = self.connections.get(conn.address, 0) + 1
        self.open_connections += 1
        self.live.add(conn)
        conn.counted = True
        return None

    def count_out(self, conn: Connection) -> None:
        if not conn.counted:
            return
        conn.counted = False
        self.live.discard(conn)
        if conn.player_id:
            self.metrics.traffic.player_gone(conn.player_id)
        self.open_connections -= 1
        left = self.connections.get(conn.address, 0) - 1
        if left > 0:
            self.connections[conn.address] = left
        else:
            self.connections.pop(conn.address, None)

    def disconnected(self, conn: Connection) -> None:
        conn.gone = True
        self._leave_current(conn)
        self.roster.left(conn)
        self.social.left(conn)
        self.presence.moved(conn.player_id)

    async def lobby(self, lang: str = "en") -> list[P.LobbyTable]:
        """The public tables not over: of the whole cluster with Redis (as each owner last
        published them, at most a heartbeat ago), their rules named in ``lang``."""
        if self.cluster is not None:
            entries = await self.cluster.lobby.read()
        else:
            entries = [e for e in map(lobby_entry, self.tables.values()) if e is not None]
        reader = narrator(lang)
        return [e.model_copy(update={"rules_label": reader.rules_label(e.rules_name)})
                for e in entries]

    # -- the JSON API ------------------------------------------------------------------

    async def table_games(self, code: str) -> list[dict[str, Any]] | None:
        """The stored games of the newest table with ``code`` (a code is reused only once
        its table closed), by game number: what a results page needs to find the game it
        shows (its id for the record, the replay and the analysis)."""

        return await self.store.table_games(code)

    async def game(self, game_id: int) -> dict[str, Any] | None:
        """Stored game ``game_id`` as ``/api/games/{id}`` gives it, its ``record`` still the
        JSON text the store keeps (a long game's is megabytes: it is parsed in a read
        process, :func:`game_json`)."""

        return await self.store.game(game_id)

    async def analysis(self, game_id: int, address: str) -> GameReview:
        """The expert's review of finished game ``game_id``: from memory, or computed once
        in the tutor's workers (a game asked for by many at once is analysed once).

        Cancelling the call (the asker left) cancels the analysis when nobody else waits
        for it: its worker stops computing. Raises :class:`AnalysisRefused` with the HTTP
        status to answer: 404 (no such game), 409 (not finished), 429 (this address asked
        for too many new analyses, or has one being computed), 503 (the analysis lane is
        full, or the server stops), 500 (the analysis failed).
        """
        cached = self.analyses.get(game_id)
        if cached is not None:
            self.analyses.move_to_end(game_id)
            return cached
        entry = self._analysing(game_id)
        if entry is None:
            entry = await self._start_analysis(game_id, address)
        entry.waiters += 1
        try:
            return await Tutor.review(entry.job)
        except TutorStopped:
            raise AnalysisRefused(503, "the server is stopping; ask again when it is back",
                                  None) from None
        except AnalysisRefused:
            raise
        except Exception as exc:
            log.error("game %s: the analysis failed: %s", game_id, exc)
            raise AnalysisRefused(500, "the analysis failed", None) from None
        finally:
            entry.waiters -= 1
            if entry.waiters == 0:
                self.tutor.cancel(entry.job)  # nobody waits for it any more

    async def _start_analysis(self, game_id: int, address: str) -> Analysing:
        """Check that game ``game_id`` may be analysed for ``address``, and queue it."""
        if self.stopping:
            raise AnalysisRefused(503, "the server is stopping; ask again when it is back", None)
        row = await self.store.finished_record(game_id)
        if row is None:
            raise AnalysisRefused(404, f"no game {game_id}", None)
        finished, record = row
        if not finished:
            raise AnalysisRefused(409, f"game {game_id} was not finished: only finished "
                                  "games are analysed", None)
        entry = self._analysing(game_id)  # asked for while the store was read
        if entry is not None:
            return entry
        s = self.settings
        if self.new_analyses.full(address):
            self.metrics.refused("analyses_per_minute")
            raise AnalysisRefused(429, f"at most {s.analyses_per_minute} new analyses a "
                                  "minute from one address; ask again later",
                                  self.new_analyses.wait(address))
        try:
            job = self.tutor.analysis(address, record, 0, s.analysis_rollouts)
        except TutorStopped:
            raise AnalysisRefused(503, "the server is stopping; ask again when it is back",
                                  None) from None
        except TutorBusy as exc:
            if exc.own:
                raise AnalysisRefused(429, f"an analysis asked from your address is being "
                                      f"computed (at most {s.analyses_per_address} at once)",
                                      exc.wait) from None
            raise AnalysisRefused(503, "the server is computing as many analyses as it may",
                                  exc.wait) from None
        self.new_analyses.add(address)
        entry = self.analysing[game_id] = Analysing(job)
        job.future.add_done_callback(lambda _f: self._analysed(game_id, entry))
        return entry

    def _analysing(self, game_id: int) -> Analysing | None:
        """The analysis of ``game_id`` being computed, if any (one cancelled a moment ago,
        nobody waiting for it, is not)."""
        entry = self.analysing.get(game_id)
        return None if entry is None or entry.job.future.cancelled() else entry

    def _analysed(self, game_id: int, entry: Analysing) -> None:
        """An analysis ended: kept in memory if it was computed, forgotten otherwise (a
        later request computes it again)."""
        if self.analysing.get(game_id) is entry:
            del self.analysing[game_id]
        future = entry.job.future
        if future.cancelled() or future.exception() is not None:
            return
        self.analyses[game_id] = future.result()
        while len(self.analyses) > self.settings.analysis_cache:
            self.analyses.popitem(last=False)

    async def player(self, name: str) -> dict[str, Any] | None:
        """Player ``name``'s rating and newest games, as ``/api/players/{name}`` gives them."""
        return await self.store.player_games(name)


class _Gauges:
    """What the metrics read from the hub when scraped (:class:`~.ops.metrics.Sources`)."""

    def __init__(self, hub: Hub) -> None:
        self.hub = hub

    def connections(self) -> int:
        return self.hub.open_connections

    def table_states(self) -> Iterable[str]:
        return [a.status for a in self.hub.tables.values()]

    def draining(self) -> bool:
        return self.hub.draining

    def bot_lanes(self) -> Iterable[tuple[str, int, int, int]]:
        return [(name, lane.waiting(), lane.busy(), sum(w.starts for w in lane.workers))
                for name, lane in self.hub.bots.lanes.items()]

    def advice_lanes(self) -> Iterable[tuple[str, int, int]]:
        return [(a.name, a.pending(), a.queue) for a in self.hub.tutor.lanes]

    def cluster(self) -> tuple[int, int] | None:
        c = self.hub.cluster
        return None if c is None else (c.dropped, len(c.peers))


#: What answers a client message, by its class: one handler for each message of
#: :data:`~nimmt.wire.ClientMessage` (tests/server/test_server_dispatch.py checks it).
Handler = Callable[[Hub, Connection, Any], Awaitable[None]]


def _routes(*groups: tuple[Iterable[type[P.ClientMessage]], Handler]) -> dict[type, Handler]:
    routes: dict[type, Handler] = {}
    for kinds, handler in groups:
        for kind in kinds:
            if kind in routes:
                raise AssertionError(f"{kind.__name__} has two handlers")
            routes[kind] = handler
    return routes


ROUTES = _routes(
    ([P.Hello], Hub._hello),
    ([P.Ping], Hub._ping),
    ([P.Lobby], Hub._lobby),
    (ACCOUNT_MESSAGES, Hub._account),
    (SOCIAL_MESSAGES, Hub._social),
    ([P.CreateTable], Hub._create),
    ([P.Join, P.Spectate], Hub._join),
    (P.TABLE_MESSAGES, Hub._at_table),
)
#: The messages a connection may send before its ``hello``.
BEFORE_HELLO = frozenset({P.Hello, P.Ping})


def game_json(data: dict[str, Any]) -> bytes:
    """The answer of ``/api/games/{id}``: the game as :meth:`Hub.game` read it, its record
    parsed (in a read process: a long game's record is megabytes)."""
    return json.dumps({**data, "record": json.loads(data["record"])},
                      separators=(",", ":")).encode()


@dataclass(eq=False)
class Analysing:
    """A game's analysis being computed, and how many requests wait for it."""

    job: TutorJob
    waiters: int = 0


class AnalysisRefused(Exception):
    """Why an analysis is not given, with the HTTP status that says it, and for a refusal
    that passes (429, 503) the seconds to wait before asking again (an estimate)."""

    def __init__(self, status: int, message: str, wait: float | None) -> None:
        super().__init__(message)
        self.status = status
        self.message = message
        self.wait = wait


#: The statuses of a live table: it holds its seats (and its bots think, once started).
LIVE = ("open", "playing")


def _search_bots(actor: TableActor) -> int:
    """The search bots seated at ``actor`` (the search lane's: up to a second a decision)."""
    return sum(1 for seat in actor.seats
               if seat is not None and seat.bot is not None and lane_of(seat.bot.kind) == "search")


class ClientGone(Exception):
    """The HTTP client closed its connection before its answer was ready."""


async def _unless_gone(request: Request, work: Coroutine[Any, Any, T]) -> T:
    """``work``'s result, unless the client goes away first: then ``work`` is cancelled
    (an analysis nobody else waits for stops computing) and :class:`ClientGone` raised.

    The request has no body to read, so the next message of the ASGI channel is the
    client's disconnect (the server sends it when the connection closes)."""
    task = asyncio.ensure_future(work)
    gone = asyncio.ensure_future(_disconnected(request))
    try:
        await asyncio.wait({task, gone}, return_when=asyncio.FIRST_COMPLETED)
    except BaseException:  # this request is cancelled (the server stops): so is the work
        task.cancel()
        raise
    finally:
        gone.cancel()
    if not task.done():
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError, Exception):
            await task
        raise ClientGone
    return task.result()


async def _disconnected(request: Request) -> None:
    """Return when the client of ``request`` has gone."""
    while (await request.receive())["type"] != "http.disconnect":
        pass


def create_app(settings: Settings | None = None, hub: Hub | None = None) -> Starlette:
    """The ASGI app. Give an opened ``hub`` to open the store (and resume every table)
    before serving, so a bad database is reported before anything listens; otherwise
    the hub opens at startup."""
    settings = settings or Settings()
    opened = hub is not None
    hub = hub if hub is not None else Hub(settings)

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        if not opened:
            await hub.open()
        try:
            yield
        finally:
            await hub.close()
            log.info("stopped", extra=event("server.stopped"))
            # SIGTERM ends the process once the app has stopped, with no exit handlers.
            flush_logs()

    async def ws_endpoint(ws: WebSocket) -> None:
        if not hub.origin_allowed(ws.headers.get("origin"), ws.headers.get("host")):
            # Refused before the upgrade (HTTP 403): a page elsewhere may not play for
            # the person who visits it.
            log.info("refused a WebSocket from origin %r", ws.headers.get("origin"),
                     extra=event("refused.origin"))
            hub.metrics.refused("allowed_origins")
            await ws.close(code=1008)
            return
        await ws.accept()
        conn = Connection(ws, settings, address_key(ws.client.host if ws.client else None),
                          hub.counts, hub.metrics.traffic)
        writer = asyncio.create_task(conn.write_loop())
        refusal = hub.count_in(conn)
        if refusal is not None:
            conn.cut_off(*refusal)
            with contextlib.suppress(Exception):
                await asyncio.wait_for(writer, 5.0)
            writer.cancel()
            return
        try:
            while not conn.gone:
                message = await ws.receive()
                if message["type"] == "websocket.disconnect":
                    break
                text = message.get("text")
                await hub.on_frame(conn, (message.get("bytes") or b"") if text is None else text)
        except (WebSocketDisconnect, RuntimeError):
            pass
        finally:
            hub.disconnected(conn)
            hub.count_out(conn)
            if conn.closing:
                # The server closes: its last error and the close frame go out first.
                with contextlib.suppress(Exception):
                    await asyncio.wait_for(asyncio.shield(writer), 5.0)
            writer.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await writer

    async def schema(request: Request) -> JSONResponse:
        return JSONResponse(P.protocol_schema())

    async def index(request: Request) -> Response:
        # People open the address the server prints: send them to the web client.
        return RedirectResponse("/play/", status_code=307)

    async def about(request: Request) -> JSONResponse:
        return JSONResponse({"name": "nimmt", "protocol": P.PROTOCOL_VERSION,
                             "websocket": "/ws", "schema": "/protocol.json",
                             "tables": len(hub.tables)})

    async def lobby(request: Request) -> JSONResponse:
        try:
            lang = speaker(request.query_params.get("lang")).language
        except BadParam as exc:
            return refusal(exc)
        return JSONResponse({"tables": [t.model_dump() for t in await hub.lobby(lang)]})

    # Path values are checked (server/params.py) before anything is looked up: bad input
    # is answered 4xx, never passed to a database that would fail with it.
    async def table(request: Request) -> Response:
        try:
            code = table_code(request.path_params["code"])
        except BadParam as exc:
            return refusal(exc)
        return await table_answer(hub, code, TableRead(what="info"),
                                  "no open table has that code")

    async def table_games(request: Request) -> JSONResponse:
        try:
            code = table_code(request.path_params["code"])
        except BadParam as exc:
            return refusal(exc)
        found = await hub.table_games(code)
        if found is None:
            return JSONResponse({"error": "no table has that code"}, status_code=404)
        return JSONResponse({"table": code, "games": found})

    async def game(request: Request) -> Response:
        try:
            game_id = row_id(request.path_params["game_id"], "game")
        except BadParam as exc:
            return refusal(exc)
        reader = speaker_of((request.query_params.get("lang") or "en")[:35])
        address = address_key(request.client.host if request.client else None)
        try:
            # Stored games never change: built once, off the event loop, then kept.
            body = await game_read(hub.reads, ("game", game_id), address,
                                   lambda: hub.game(game_id), game_json)
        except ReadRefused as exc:
            return refused_response(exc, reader)
        if body is None:
            return JSONResponse({"error": f"no game {game_id}"}, status_code=404)
        return json_bytes_response(body)

    async def analysis(request: Request) -> Response:
        try:
            game_id = row_id(request.path_params["game_id"], "game")
        except BadParam as exc:
            return refusal(exc)
        try:
            reader = speaker(request.query_params.get("lang"))
        except BadParam as exc:
            return refusal(exc)
        address = address_key(request.client.host if request.client else None)
        try:
            review = await _unless_gone(request, hub.analysis(game_id, address))
        except AnalysisRefused as exc:
            body: dict[str, Any] = {"error": exc.message,
                                    "text": reader.analysis_refusal(exc.status, exc.wait)}
            headers = None
            if exc.wait is not None:
                wait = max(1, math.ceil(exc.wait))
                body["retry_after"] = wait
                headers = {"Retry-After": str(wait)}
            return JSONResponse(body, status_code=exc.status, headers=headers)
        except ClientGone:
            return Response(status_code=499)  # nobody reads it
        data = {"game": game_id, "language": reader.language,
                "text": reader.review_sentences(review), **review.to_dict()}
        return JSONResponse(data)

    async def leaderboard(request: Request) -> Response:
        try:
            preset, offset, limit = board_params(request.query_params,
                                                 hub.settings.leaderboard_page)
        except BadParam as exc:
            return refusal(exc)
        address = address_key(request.client.host if request.client else None)
        try:
            body = await hub.boards.page(preset, offset, limit, address)
        except ReadRefused as exc:
            return refused_response(exc, speaker_of("en"))
        return json_bytes_response(body)

    async def player(request: Request) -> JSONResponse:
        name = request.path_params["name"]
        try:
            candidates = player_names(name)
        except BadParam as exc:
            return refusal(exc)
        try:
            hub.boards.charge(address_key(request.client.host if request.client else None))
        except ReadRefused as exc:
            return refused_response(exc, speaker_of("en"))
        for candidate in candidates:
            data = await hub.player(candidate)
            if data is not None:
                return JSONResponse(data)
        return JSONResponse({"error": f"no player named {shown(name)}"}, status_code=404)

    # /healthz and /readyz: on the game's port and on the operations listener, where
    # /metrics is too (metrics_address); what comes in on that one sees nothing else.
    health = health_routes(Readiness(
        settings.ready_timeout, hub.store, lambda: hub.draining,
        None if hub.cluster is None else hub.cluster.redis.ping))
    # Every HTTP answer, error pages included, carries the security headers.
    app = HeaderedStarlette(
        routes=[
            *health,
            Route("/", index),
            Route("/api", about),
            Route("/protocol.json", schema),
            Route("/api/tables", lobby),
            Route("/api/tables/{code}", table),
            Route("/api/tables/{code}/games", table_games),
            Route("/api/games/{game_id}", game),
            Route("/api/games/{game_id}/analysis", analysis),
            Route("/api/leaderboard", leaderboard),
            Route("/api/players/{name}", player),
            WebSocketRoute("/ws", ws_endpoint),
            # The web client: its pages under /play/ and its speech endpoints.
            *web_routes(hub),
        ],
        lifespan=lifespan,
        middleware=[Middleware(OpsListener, metrics=hub.metrics, routes=health)],
    )
    app.state.hub = hub
    return app
