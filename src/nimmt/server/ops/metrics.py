"""What the server is doing, as Prometheus metrics, on a listener of its own.

``/metrics`` is off unless ``metrics_address`` names a ``host:port``: the
server then listens there too (a second socket of the same uvicorn server),
and a request that arrived on that socket sees only ``/metrics``, ``/healthz``
and ``/readyz`` (:class:`OpsListener`); the game's port never serves
``/metrics``. So the metrics can be bound to loopback or a private network and
are never exposed with the game.

Two kinds of numbers, both in one registry per server (so several servers in one
process, as in the tests, do not add up):

- **counted as things happen** (:mod:`.counters`: one object per part that counts,
  each handed to its part through the interface the part declares): frames and
  messages, refusals by reason, bot decisions and their time, hints and analyses and
  their time, the store's commits and their latency, the age of messages between
  processes, takeovers; the event loop's lag, sampled by :meth:`Metrics.watch`;
- **read when scraped** (:class:`_Now`, from the :class:`Sources` the composition
  root gives): connections, players online, tables by state, bot jobs waiting, the
  advice queue.

No label holds a table's code, a player or an address: every label's values
are a short list fixed by the code (a lane, a table state, a refusal's
setting, a message type of the protocol), so the number of series is bounded
whatever strangers do.
"""

from __future__ import annotations

import asyncio
import collections
import logging
from collections.abc import Iterable, Iterator
from typing import Any, Protocol, get_args

from prometheus_client import CollectorRegistry, Gauge, Histogram
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily, Metric
from prometheus_client.exposition import choose_encoder
from prometheus_client.gc_collector import GCCollector
from prometheus_client.platform_collector import PlatformCollector
from prometheus_client.process_collector import ProcessCollector
from prometheus_client.registry import Collector
from starlette.requests import Request
from starlette.responses import PlainTextResponse, Response
from starlette.routing import BaseRoute, Route, Router
from starlette.types import ASGIApp, Receive, Scope, Send

from ... import __version__
from ...wire import TableStatus
from ..base.logs import event
from ..base.settings import listen_address
from .counters import LATENCY, ClusterCounts, Refusals, StoreCounts, Traffic, WorkCounts

__all__ = ["LAG_EVERY", "REFUSALS_EVERY", "STALL", "Metrics", "OpsListener", "Sources",
           "worker_address"]

log = logging.getLogger("nimmt.server")

#: Seconds between two samples of the event loop's lag.
LAG_EVERY = 0.5
#: A lag past this many seconds is logged (a warning, at most one per STALL_LOG_EVERY).
STALL = 1.0
STALL_LOG_EVERY = 10.0
#: Seconds between two summaries of the refusals in the log (only when there were some).
REFUSALS_EVERY = 60.0


def worker_address(address: str, index: int) -> str:
    """The metrics address of process ``index`` of ``--workers``: the port plus the index
    (port 0 stays 0: each picks a free one).

    >>> worker_address("127.0.0.1:9100", 2), worker_address("[::1]:0", 1)
    ('127.0.0.1:9102', '[::1]:0')
    """
    if not address:
        return address
    host, port = listen_address(address)
    shown = f"[{host}]" if ":" in host else host
    return f"{shown}:{port + index if port else 0}"


class Sources(Protocol):
    """What the gauges read when scraped: the composition root answers from the parts
    that hold each number."""

    def connections(self) -> int:
        """WebSocket connections open here."""

    def table_states(self) -> Iterable[str]:
        """The state of each table held here."""

    def draining(self) -> bool:
        """Whether this process drains (takes no new table)."""

    def bot_lanes(self) -> Iterable[tuple[str, int, int, int]]:
        """Each bot lane: its name, jobs waiting, workers busy, worker processes started."""

    def advice_lanes(self) -> Iterable[tuple[str, int, int]]:
        """Each advice lane: its name, jobs pending, jobs it may hold."""

    def cluster(self) -> tuple[int, int] | None:
        """With Redis: messages dropped (not believed) and remote connections here."""


class Metrics:
    """The metrics of one server: the parts that count (:mod:`.counters`), the gauges read
    from :class:`Sources`, the event loop's lag, and the ``/metrics`` endpoint."""

    def __init__(self, sources: Sources | None = None) -> None:
        #: Where the gauges are read when scraped (the composition root sets it).
        self.sources = sources
        #: The (host, port) of the operations listener, once bound (:mod:`nimmt.server.run`).
        self.listening: tuple[str, int] | None = None
        r = self.registry = CollectorRegistry(auto_describe=True)
        self.refusals = Refusals()
        self.traffic = Traffic()
        self.work = WorkCounts(r, self.refusals)
        self.store = StoreCounts(r)
        self.cluster = ClusterCounts(r)
        self.lag = 0.0
        self.loop_lag = Histogram(
            "nimmt_event_loop_lag_seconds", "How late the event loop woke a task sampling "
            f"it every {LAG_EVERY:g} s (time nothing else could run).",
            buckets=LATENCY, registry=r)
        info = Gauge("nimmt_info", "The server's version.", ["version"], registry=r)
        info.labels(__version__).set(1)
        r.register(_Now(self))
        ProcessCollector(registry=r)
        PlatformCollector(registry=r)
        GCCollector(registry=r)

    @property
    def counts(self) -> collections.Counter[str]:
        """Refusals by reason (the HTTP guard and the limits fill it)."""
        return self.refusals.counts

    def refused(self, reason: str) -> None:
        """A refusal by the limit named ``reason`` (a setting's name, mostly)."""
        self.refusals.refused(reason)

    # -- the sampler --------------------------------------------------------------------

    async def watch(self) -> None:
        """Sample the event loop's lag every :data:`LAG_EVERY` seconds (a long one is
        logged), and log a summary of the refusals every :data:`REFUSALS_EVERY` seconds
        when there were any; for as long as the server runs."""
        loop = asyncio.get_running_loop()
        told = -STALL_LOG_EVERY
        summary = loop.time()
        seen = collections.Counter(self.counts)
        while True:
            start = loop.time()
            await asyncio.sleep(LAG_EVERY)
            now = loop.time()
            self.lag = max(0.0, now - start - LAG_EVERY)
            self.loop_lag.observe(self.lag)
            if self.lag >= STALL and now - told >= STALL_LOG_EVERY:
                told = now
                log.warning("the event loop was held up for %.2f s", self.lag,
                            extra=event("loop.stall", seconds=round(self.lag, 3)))
            if now - summary >= REFUSALS_EVERY:
                summary = now
                counts = collections.Counter(self.counts)
                new = {k: n - seen[k] for k, n in counts.items() if n > seen[k]}
                seen = counts
                if new:
                    said = ", ".join(f"{n} {k}" for k, n in sorted(new.items()))
                    log.warning("refused in the last %g s: %s", REFUSALS_EVERY, said,
                                extra=event("refusals", seconds=REFUSALS_EVERY, counts=new))

    # -- the listener -------------------------------------------------------------------

    def on_listener(self, server: Any) -> bool:
        """Whether a request arrived on the operations listener (``server`` is its ASGI
        scope's ``server``: the local address it came in on)."""
        if self.listening is None or not isinstance(server, tuple | list) or len(server) < 2:
            return False
        host, port = self.listening
        if server[1] != port:
            return False
        return host in ("", "0.0.0.0", "::") or str(server[0]) == host

    async def endpoint(self, request: Request) -> Response:
        """``/metrics``: the registry in the format the scraper asks for (Prometheus text,
        or OpenMetrics)."""
        encoder, content_type = choose_encoder(request.headers.get("accept", ""))
        return Response(encoder(self.registry), media_type=None,
                        headers={"Content-Type": content_type})


class _Now(Collector):
    """What is read from the parts when scraped."""

    def __init__(self, metrics: Metrics) -> None:
        self.m = metrics

    def collect(self) -> Iterator[Metric]:
        m, source, traffic = self.m, self.m.sources, self.m.traffic
        if source is None:
            return
        yield GaugeMetricFamily("nimmt_connections", "WebSocket connections open here.",
                                value=source.connections())
        yield GaugeMetricFamily("nimmt_players_online", "Players with a connection here.",
                                value=len(traffic.online))
        tables = GaugeMetricFamily("nimmt_tables", "Tables held here, by state.",
                                   labels=["state"])
        states = collections.Counter(source.table_states())
        for state in get_args(TableStatus):
            tables.add_metric([state], states[state])
        yield tables
        yield GaugeMetricFamily("nimmt_draining", "1 while this process drains (it takes no "
                                "new table).", value=int(source.draining()))
        yield CounterMetricFamily("nimmt_frames_received", "Frames received from clients.",
                                  value=traffic.frames_in)
        yield CounterMetricFamily("nimmt_received_bytes", "Bytes of frames received from "
                                  "clients.", value=traffic.bytes_in)
        yield CounterMetricFamily("nimmt_frames_sent", "Frames queued to clients.",
                                  value=traffic.frames_out)
        messages = CounterMetricFamily("nimmt_messages", "Client messages handled, by type.",
                                       labels=["type"])
        for kind, n in sorted(traffic.messages.items()):
            messages.add_metric([kind], n)
        yield messages
        refusals = CounterMetricFamily(
            "nimmt_refusals", "Requests, frames and connections refused or cut off, by the "
            "limit that refused them (docs/security.md).", labels=["reason"])
        for reason, n in sorted(m.counts.items()):
            refusals.add_metric([reason], n)
        yield refusals
        yield GaugeMetricFamily("nimmt_event_loop_lag_last_seconds", "The event loop's lag "
                                "at the last sample.", value=m.lag)
        waiting = GaugeMetricFamily("nimmt_bot_jobs_waiting", "Bot decisions waiting for a "
                                    "worker, by lane.", labels=["lane"])
        busy = GaugeMetricFamily("nimmt_bot_workers_busy", "Bot workers thinking, by lane.",
                                 labels=["lane"])
        starts = CounterMetricFamily("nimmt_bot_worker_starts", "Bot worker processes "
                                     "started (the first ones and every replacement), by "
                                     "lane.", labels=["lane"])
        for name, jobs, thinking, started in source.bot_lanes():
            waiting.add_metric([name], jobs)
            busy.add_metric([name], thinking)
            starts.add_metric([name], started)
        yield from (waiting, busy, starts)
        pending = GaugeMetricFamily("nimmt_advice_pending", "Hints and analyses being "
                                    "computed or waiting for a worker, by kind.",
                                    labels=["kind"])
        capacity = GaugeMetricFamily("nimmt_advice_capacity", "Hints and analyses that may "
                                     "be pending at once, by kind (tutor_queue, "
                                     "analysis_queue); more are refused.", labels=["kind"])
        for name, jobs, room in source.advice_lanes():
            pending.add_metric([name], jobs)
            capacity.add_metric([name], room)
        yield from (pending, capacity)
        cluster = source.cluster()
        if cluster is not None:
            dropped, remote = cluster
            yield CounterMetricFamily("nimmt_cluster_dropped", "Messages from Redis not "
                                      "believed (no seal, a wrong one, stale, malformed).",
                                      value=dropped)
            yield GaugeMetricFamily("nimmt_cluster_remote_connections", "Connections of "
                                    "other processes at tables owned here.", value=remote)


class OpsListener:
    """Requests that arrived on the operations listener go to its own routes (``/metrics``,
    ``/healthz``, ``/readyz``); every other request goes to the game's app. The split is by
    the socket a request came in on, which no header can change."""

    def __init__(self, app: ASGIApp, metrics: Metrics, routes: list[BaseRoute]) -> None:
        self.app = app
        self.metrics = metrics
        self.ops = Router(routes=[Route("/metrics", metrics.endpoint), *routes],
                          default=_not_here)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] in ("http", "websocket") and \
                self.metrics.on_listener(scope.get("server")):
            await self.ops(scope, receive, send)
        else:
            await self.app(scope, receive, send)


async def _not_here(scope: Scope, receive: Receive, send: Send) -> None:
    """What the operations listener answers to anything but its routes: 404 (a WebSocket
    is closed before it opens, which its client sees as 403)."""
    if scope["type"] == "websocket":
        await send({"type": "websocket.close", "code": 1008})
        return
    await PlainTextResponse("Not Found", status_code=404)(scope, receive, send)
