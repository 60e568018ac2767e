"""What the server is doing, as Prometheus metrics, on a listener of its own.

``/metrics`` is off unless ``metrics_address`` names a ``host:port``: the
server then listens there too (a second socket of the same uvicorn server),
and a request that arrived on that socket sees only ``/metrics``, ``/healthz``
and ``/readyz`` (:class:`OpsListener`); the game's port never serves
``/metrics``. So the metrics can be bound to loopback or a private network and
are never exposed with the game.

Two kinds of numbers, both in one registry per :class:`~.app.Hub` (so several
servers in one process, as in the tests, do not add up):

- **counted as things happen** (:class:`Metrics`' methods, called by thin hooks
  in the hub, the store, the bot scheduler, the tutor and the cluster): bot
  decisions and their time, hints and analyses and their time, the store's
  commits and their latency, the age of messages between processes, takeovers;
  the event loop's lag, sampled by :meth:`Metrics.watch`. The counts of frames
  and messages are plain integers (a frame costs an addition, not a lock);
- **read when scraped** (:class:`_Now`): connections, players online, tables by
  state, refusals by reason (the hub's ``counts``, which the HTTP guard and the
  limits fill), bot jobs waiting, the advice queue.

No label holds a table's code, a player or an address: every label's values
are a short list fixed by the code (a lane, a table state, a refusal's
setting, a message type of the protocol), so the number of series is bounded
whatever strangers do.
"""

from __future__ import annotations

import asyncio
import collections
import logging
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any, get_args

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram
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

from .. import __version__
from ..wire import TableStatus
from .base.logs import event
from .base.settings import listen_address

if TYPE_CHECKING:
    from ..bots.play import Answer
    from .app import Hub

__all__ = ["LAG_EVERY", "REFUSALS_EVERY", "STALL", "Metrics", "OpsListener", "worker_address"]

log = logging.getLogger("nimmt.server")

#: Seconds between two samples of the event loop's lag.
LAG_EVERY = 0.5
#: A lag past this many seconds is logged (a warning, at most one per STALL_LOG_EVERY).
STALL = 1.0
STALL_LOG_EVERY = 10.0
#: Seconds between two summaries of the refusals in the log (only when there were some).
REFUSALS_EVERY = 60.0
#: Bounds of the latency histograms (seconds): a millisecond to ten seconds.
_LATENCY = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0)
#: Bounds of the bots' and the tutor's times: their budgets are around a second.
_THINKING = (0.001, 0.005, 0.01, 0.05, 0.1, 0.25, 0.5, 1.0, 1.5, 2.0, 3.0, 5.0, 10.0, 30.0,
             60.0)


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


class Metrics:
    """The metrics of one hub; each hook is one call."""

    def __init__(self, hub: Hub) -> None:
        self.hub = hub
        #: The (host, port) of the operations listener, once bound (:mod:`.run`).
        self.listening: tuple[str, int] | None = None
        r = self.registry = CollectorRegistry(auto_describe=True)
        # Counted as they happen: plain integers where it is once a frame.
        self.frames_in = 0
        self.bytes_in = 0
        self.frames_out = 0
        self.messages: collections.Counter[str] = collections.Counter()
        #: Connections of each player online here (their number is the gauge).
        self.online: collections.Counter[int] = collections.Counter()
        self.lag = 0.0
        self.loop_lag = Histogram(
            "nimmt_event_loop_lag_seconds", "How late the event loop woke a task sampling "
            f"it every {LAG_EVERY:g} s (time nothing else could run).",
            buckets=_LATENCY, registry=r)
        self.bot_seconds = Histogram(
            "nimmt_bot_decision_seconds", "From a table asking a bot to its answer (waiting "
            "for a worker included), by lane.", ["lane"], buckets=_THINKING, registry=r)
        self.bot_think = Histogram(
            "nimmt_bot_think_seconds", "A bot's thinking in its worker, by lane.", ["lane"],
            buckets=_THINKING, registry=r)
        self.bot_decisions = Counter(
            "nimmt_bot_decisions", "Bot decisions by lane and outcome (ok; timeout, raised, "
            "illegal: the default player answered).", ["lane", "outcome"], registry=r)
        self.advice_seconds = Histogram(
            "nimmt_advice_seconds", "From asking for a hint or an analysis to its answer "
            "(waiting for a worker included).", ["kind"], buckets=_THINKING, registry=r)
        self.db_commit = Histogram(
            "nimmt_db_commit_seconds", "One transaction of the store's writer (a group "
            "commit, or a table's transaction of its own), from its start to its commit.",
            buckets=_LATENCY, registry=r)
        self.db_writes = Histogram(
            "nimmt_db_commit_writes", "Writes shared by one transaction of the store's "
            "writer (group commit).", buckets=(1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000),
            registry=r)
        self.db_errors = Counter(
            "nimmt_db_commit_errors", "Transactions of the store's writer that failed.",
            registry=r)
        self.relay_lag = Histogram(
            "nimmt_cluster_relay_lag_seconds", "Age of a message from another process when "
            "it is read here (its sender's clock against this one's).", buckets=_LATENCY,
            registry=r)
        self.takeovers = Counter(
            "nimmt_cluster_takeovers", "Tables this process took over from the store (their "
            "owner stopped, or the whole cluster restarted).", registry=r)
        self.leases_lost = Counter(
            "nimmt_cluster_leases_lost", "Tables whose lease this process lost (another took "
            "them).", registry=r)
        self.publish_errors = Counter(
            "nimmt_cluster_publish_errors", "Batches of messages Redis did not take.",
            registry=r)
        info = Gauge("nimmt_info", "The server's version.", ["version"], registry=r)
        info.labels(__version__).set(1)
        r.register(_Now(self))
        ProcessCollector(registry=r)
        PlatformCollector(registry=r)
        GCCollector(registry=r)

    # -- hooks --------------------------------------------------------------------------

    def frame_in(self, size: int) -> None:
        self.frames_in += 1
        self.bytes_in += size

    def player_here(self, player_id: int) -> None:
        self.online[player_id] += 1

    def player_gone(self, player_id: int) -> None:
        left = self.online[player_id] - 1
        if left > 0:
            self.online[player_id] = left
        else:
            del self.online[player_id]

    def bot_decision(self, lane: str, answer: Answer, seconds: float) -> None:
        """A bot answered (or the default player for it) ``seconds`` after it was asked."""
        self.bot_seconds.labels(lane).observe(seconds)
        self.bot_think.labels(lane).observe(answer.seconds)
        outcome = "ok" if answer.fault is None else answer.fault.kind
        self.bot_decisions.labels(lane, outcome).inc()

    def commit(self, seconds: float, writes: int) -> None:
        self.db_commit.observe(seconds)
        self.db_writes.observe(writes)

    def commit_failed(self) -> None:
        self.db_errors.inc()

    def advice(self, kind: str, seconds: float) -> None:
        """A hint or an analysis (``kind``) answered ``seconds`` after it was asked."""
        self.advice_seconds.labels(kind).observe(seconds)

    def refused(self, reason: str) -> None:
        """A refusal by the limit named ``reason`` (a setting's name, mostly)."""
        self.hub.counts[reason] += 1

    # -- the sampler --------------------------------------------------------------------

    async def watch(self) -> None:
        """Sample the event loop's lag every :data:`LAG_EVERY` seconds (a long one is
        logged), and log a summary of the refusals every :data:`REFUSALS_EVERY` seconds
        when there were any; for as long as the server runs."""
        loop = asyncio.get_running_loop()
        told = -STALL_LOG_EVERY
        summary = loop.time()
        seen = collections.Counter(self.hub.counts)
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
                counts = collections.Counter(self.hub.counts)
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
    """What is read from the hub when scraped."""

    def __init__(self, metrics: Metrics) -> None:
        self.m = metrics

    def collect(self) -> Iterator[Metric]:
        m, hub = self.m, self.m.hub
        yield GaugeMetricFamily("nimmt_connections", "WebSocket connections open here.",
                                value=hub.open_connections)
        yield GaugeMetricFamily("nimmt_players_online", "Players with a connection here.",
                                value=len(m.online))
        tables = GaugeMetricFamily("nimmt_tables", "Tables held here, by state.",
                                   labels=["state"])
        states = collections.Counter(a.status for a in hub.tables.values())
        for state in get_args(TableStatus):
            tables.add_metric([state], states[state])
        yield tables
        yield GaugeMetricFamily("nimmt_draining", "1 while this process drains (it takes no "
                                "new table).", value=int(hub.draining))
        yield CounterMetricFamily("nimmt_frames_received", "Frames received from clients.",
                                  value=m.frames_in)
        yield CounterMetricFamily("nimmt_received_bytes", "Bytes of frames received from "
                                  "clients.", value=m.bytes_in)
        yield CounterMetricFamily("nimmt_frames_sent", "Frames queued to clients.",
                                  value=m.frames_out)
        messages = CounterMetricFamily("nimmt_messages", "Client messages handled, by type.",
                                       labels=["type"])
        for kind, n in sorted(m.messages.items()):
            messages.add_metric([kind], n)
        yield messages
        refusals = CounterMetricFamily(
            "nimmt_refusals", "Requests, frames and connections refused or cut off, by the "
            "limit that refused them (docs/security.md).", labels=["reason"])
        for reason, n in sorted(hub.counts.items()):
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
        for name, lane in hub.bots.lanes.items():
            waiting.add_metric([name], lane.waiting())
            busy.add_metric([name], lane.busy())
            starts.add_metric([name], sum(w.starts for w in lane.workers))
        yield from (waiting, busy, starts)
        pending = GaugeMetricFamily("nimmt_advice_pending", "Hints and analyses being "
                                    "computed or waiting for a worker, by kind.",
                                    labels=["kind"])
        capacity = GaugeMetricFamily("nimmt_advice_capacity", "Hints and analyses that may "
                                     "be pending at once, by kind (tutor_queue, "
                                     "analysis_queue); more are refused.", labels=["kind"])
        for advice in hub.tutor.lanes:
            pending.add_metric([advice.name], advice.pending())
            capacity.add_metric([advice.name], advice.queue)
        yield from (pending, capacity)
        cluster = hub.cluster
        if cluster is not None:
            yield CounterMetricFamily("nimmt_cluster_dropped", "Messages from Redis not "
                                      "believed (no seal, a wrong one, stale, malformed).",
                                      value=cluster.drops.total)
            yield GaugeMetricFamily("nimmt_cluster_remote_connections", "Connections of "
                                    "other processes at tables owned here.",
                                    value=len(cluster.peers))


class OpsListener:
    """Requests that arrived on the operations listener go to its own routes (``/metrics``,
    ``/healthz``, ``/readyz``); every other request goes to the game's app. The split is by
    the socket a request came in on, which no header can change."""

    def __init__(self, app: ASGIApp, hub: Hub, routes: list[BaseRoute]) -> None:
        self.app = app
        self.hub = hub
        self.ops = Router(routes=[Route("/metrics", hub.metrics.endpoint), *routes],
                          default=_not_here)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] in ("http", "websocket") and \
                self.hub.metrics.on_listener(scope.get("server")):
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
