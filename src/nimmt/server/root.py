"""The composition root: builds the parts of one server process and hands each the narrow
interfaces it needs; opens them in order, drains them, and stops them.

Nothing but the entry point (:mod:`.run`) imports this module. Each part says in its own
interfaces what it needs of the others (the people's ``Rooms``, the cluster's
``ClusterHost``, the metrics' ``Sources``, the store's ``Commits``, the workers'
``BotCounts`` and ``AdviceCounts``); the small adapters here answer them from the parts
that hold each thing, so no part reaches another through a shared object.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Coroutine, Iterable
from typing import Any

from starlette.applications import Starlette

from .. import wire as P
from .base.logs import event
from .base.settings import Settings
from .cluster import Cluster
from .edge.app import Edge
from .edge.connection import Connection
from .edge.doors import Doors
from .edge.http import api_routes
from .edge.web import web_routes
from .ops.health import Readiness, health_routes
from .ops.metrics import Metrics
from .people.build import People, build_people
from .people.social import Social
from .store import LogEntry, Store
from .tables.history import Pages
from .tables.registry import Tables
from .tables.table import TableActor, TablePeer
from .workers.analyses import Analyses
from .workers.botpool import BotPool
from .workers.heavyreads import Reads
from .workers.tutor import Tutor

__all__ = ["CLOSE_STEP_SECONDS", "Server"]

log = logging.getLogger("nimmt.server")

#: Seconds each part of a stopping server may take to close (:meth:`Server.close`).
CLOSE_STEP_SECONDS = 10.0


async def _bounded(part: str, closing: Coroutine[Any, Any, None]) -> None:
    try:
        await asyncio.wait_for(closing, CLOSE_STEP_SECONDS)
    except TimeoutError:
        log.error("%s did not close within %g s: left behind", part, CLOSE_STEP_SECONDS,
                  extra=event("server.close_timeout", part=part))


class Server:
    """One server process's parts, built and joined (see the module)."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        #: What the server is doing (``/metrics``, docs/operations.md).
        self.metrics = metrics = Metrics()
        self.store = Store(settings.database_url())
        self.store.metrics = metrics.store
        #: Where every table's bots think: worker processes, fair across tables.
        self.bots = BotPool(workers=settings.bot_workers, seconds=settings.bot_seconds,
                            grace=settings.bot_grace, extra=settings.bots)
        #: Where hints and game analyses are computed: worker processes of their own.
        self.tutor = Tutor.of(settings)
        self.bots.metrics = self.tutor.metrics = metrics.work
        #: Where what must not run on the event loop is built (replays, records, speech,
        #: pages of old stream items), with its cache and its limits.
        self.reads = Reads(settings)
        #: Finished games' analyses, computed once and kept.
        self.analyses = Analyses(settings, self.tutor, self.store.finished_record,
                                 metrics.refused)
        #: Every table of this process.
        self.tables = Tables(settings, self.store, self.bots, self.tutor,
                             Pages(self.reads, self.store, settings.history_cache),
                             metrics.refused)
        #: With Redis: this process's part in a cluster of processes (docs/scaling.md).
        self.cluster: Cluster | None = None
        doors = Doors(self.tables, None)
        #: Who each connection is, and the room around the tables.
        self.people: People[Connection] = build_people(settings, self.store, doors,
                                                       metrics.refused)
        doors.moved = self.people.presence.moved
        if settings.redis:
            self.cluster = Cluster(_ClusterHost(self), metrics.cluster)
            self.tables.owners = doors.cluster = self.cluster
        #: The connections, their frames and the routes.
        self.edge = Edge(settings, metrics, self.people, self.tables, doors)
        metrics.sources = _Sources(self)
        self._watch: asyncio.Task[None] | None = None

    @property
    def draining(self) -> bool:
        """Whether this process drains (stops taking tables before it stops): ``/readyz``
        then fails, so a load balancer sends new players elsewhere."""
        return self.tables.draining

    @draining.setter
    def draining(self, on: bool) -> None:
        self.tables.draining = on

    @property
    def pages(self) -> Pages:
        return self.tables.pages

    def app(self) -> Starlette:
        """The ASGI app of this server (it stops the server when it stops)."""
        cluster = self.cluster
        ops = health_routes(Readiness(
            self.settings.ready_timeout, self.store, lambda: self.tables.draining,
            None if cluster is None else cluster.redis.ping))
        doors = self.edge.doors
        routes = [*api_routes(self.store, self.reads, self.tables, doors, self.analyses,
                              self.people.boards, self.settings.leaderboard_page),
                  # The web client: its pages under /play/ and its speech endpoints.
                  *web_routes(self.store, self.reads, doors)]
        return self.edge.app(routes, ops, self.close)

    # -- life -------------------------------------------------------------------------

    async def open(self) -> None:
        self._watch = asyncio.create_task(self.metrics.watch(), name="nimmt-watch")
        # First the operator's bots (a bad one stops the server before anything opens).
        await self.bots.start()
        await self.store.open()
        await self.people.open()
        if self.cluster is not None:
            # Tables are taken over one by one, by whichever process gets each lease.
            await self.cluster.open()
            return
        await self.tables.resume_all()

    def drain(self) -> None:
        """The server starts to stop: every hint and analysis pending is refused now, so
        nobody's request holds the shutdown up (docs/server.md, "Stopping")."""
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
        self.tables.draining = True
        self.drain()
        live = self.edge.gate.live
        held = self.tables.held
        log.info("draining: %d tables, %d connections", len(held), len(live),
                 extra=event("server.draining", tables=len(held), connections=len(live)))
        for conn in list(live):
            conn.error(P.ErrorCode.RESTARTING, P.ErrorCode.RESTARTING.description)
        actors = list(held.values())
        settle = max(0.0, end - time.monotonic()) / 2
        await asyncio.gather(*(a.settle(settle) for a in actors))
        if self.cluster is not None:
            await self.cluster.hand_over(actors)
        for conn in list(live):
            conn.drop("the server restarts: reconnect")
        while live and time.monotonic() < end:
            await asyncio.sleep(0.02)
        spent = time.monotonic() - begun
        log.info("drained in %.2f s (%d connections still open)", spent, len(live),
                 extra=event("server.drained", seconds=round(spent, 3), left=len(live)))

    async def close(self) -> None:
        """Stop every part, each within :data:`CLOSE_STEP_SECONDS`: a part that hangs (a
        lost Redis or database answer) is named in the log and left behind, and the
        process still stops, so a restart is never held up by it."""
        if self._watch is not None:
            self._watch.cancel()
        self.drain()
        if self.cluster is not None:
            await _bounded("the cluster's connections", self.cluster.close())
        for actor in list(self.tables.held.values()):
            await _bounded(f"table {actor.code}", actor.stop())
        self.tables.held.clear()
        await _bounded("the people", self.people.close())
        await _bounded("the database", self.store.close())
        await _bounded("the bot workers", self.bots.close())
        await _bounded("the advice worker", self.tutor.close())
        self.reads.close()


class _ClusterHost:
    """The process, as the cluster needs it (:class:`~.cluster.ports.ClusterHost`)."""

    def __init__(self, server: Server) -> None:
        self._tables = server.tables
        self._settings = server.settings
        self._store = server.store
        self._social: Social[Connection] = server.people.social

    @property
    def settings(self) -> Settings:
        return self._settings

    @property
    def store(self) -> Store:
        return self._store

    @property
    def social(self) -> Social[Connection]:
        return self._social

    @property
    def tables(self) -> dict[str, TableActor]:
        return self._tables.held

    @property
    def draining(self) -> bool:
        return self._tables.draining

    async def resume_table(self, row: Any, entries: list[LogEntry],
                           token: int | None = None) -> TableActor | None:
        return await self._tables.resume(row, entries, token)

    def forget_table(self, actor: TableActor) -> None:
        self._tables.forget(actor)

    def refusal(self, bot: str) -> str | None:
        return self._tables.refusal(bot)

    def drop(self, peer: TablePeer) -> None:
        """Close ``peer`` if it is a connection of this process: its table moved to another
        process (it reconnects). A remote peer's own process closes it."""
        if isinstance(peer, Connection):
            peer.drop()


class _Sources:
    """What the metrics read when scraped (:class:`~.ops.metrics.Sources`)."""

    def __init__(self, server: Server) -> None:
        self.server = server

    def connections(self) -> int:
        return self.server.edge.gate.open_connections

    def table_states(self) -> Iterable[str]:
        return self.server.tables.statuses()

    def draining(self) -> bool:
        return self.server.draining

    def bot_lanes(self) -> Iterable[tuple[str, int, int, int]]:
        return [(name, lane.waiting(), lane.busy(), sum(w.starts for w in lane.workers))
                for name, lane in self.server.bots.lanes.items()]

    def advice_lanes(self) -> Iterable[tuple[str, int, int]]:
        return [(a.name, a.pending(), a.queue) for a in self.server.tutor.lanes]

    def cluster(self) -> tuple[int, int] | None:
        c = self.server.cluster
        return None if c is None else (c.dropped, len(c.peers))
