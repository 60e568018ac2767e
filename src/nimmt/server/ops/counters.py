"""The numbers counted as things happen, one object per part that counts them.

Each part of the server declares the small interface it counts through (the store's
:class:`~nimmt.server.store.db.Commits`, the workers'
:class:`~nimmt.server.workers.botpool.BotCounts` and
:class:`~nimmt.server.workers.tutor.AdviceCounts`, the cluster's and the edge's), and
the composition root hands it the object here that fills it, so no part holds the
metrics of another. The counts of frames and messages are plain integers (a frame costs
an addition, not a lock); the rest are the Prometheus client's histograms and counters,
in the registry of one server (several servers in one process, as in the tests, do not
add up).
"""

from __future__ import annotations

import collections
from typing import TYPE_CHECKING

from prometheus_client import CollectorRegistry, Counter, Histogram

if TYPE_CHECKING:
    from ...bots.play import Answer

__all__ = ["LATENCY", "ClusterCounts", "Refusals", "StoreCounts", "Traffic", "WorkCounts"]

#: Bounds of the latency histograms (seconds): a millisecond to ten seconds.
LATENCY = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0)
#: Bounds of the bots' and the tutor's times: their budgets are around a second.
_THINKING = (0.001, 0.005, 0.01, 0.05, 0.1, 0.25, 0.5, 1.0, 1.5, 2.0, 3.0, 5.0, 10.0, 30.0,
             60.0)


class Refusals:
    """What the server refused or cut off, by the limit that did it (a setting's name,
    mostly: ``slow_reader``, ``header_timeout``, ``names_per_minute``, …); each is also
    logged where it happens (docs/security.md)."""

    def __init__(self) -> None:
        self.counts: collections.Counter[str] = collections.Counter()

    def refused(self, reason: str) -> None:
        """A refusal by the limit named ``reason``."""
        self.counts[reason] += 1


class Traffic:
    """The edge's counts: frames and bytes received, frames sent, messages by type, and the
    connections of each player online here."""

    def __init__(self) -> None:
        self.frames_in = 0
        self.bytes_in = 0
        self.frames_out = 0
        self.messages: collections.Counter[str] = collections.Counter()
        #: Connections of each player online here (their number is the gauge).
        self.online: collections.Counter[int] = collections.Counter()

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


class WorkCounts:
    """The workers' counts: bot decisions and their times by lane, hints' and analyses'
    times by kind, and their refusals (into :class:`Refusals`)."""

    def __init__(self, registry: CollectorRegistry, refusals: Refusals) -> None:
        self.refusals = refusals
        self.bot_seconds = Histogram(
            "nimmt_bot_decision_seconds", "From a table asking a bot to its answer (waiting "
            "for a worker included), by lane.", ["lane"], buckets=_THINKING,
            registry=registry)
        self.bot_think = Histogram(
            "nimmt_bot_think_seconds", "A bot's thinking in its worker, by lane.", ["lane"],
            buckets=_THINKING, registry=registry)
        self.bot_decisions = Counter(
            "nimmt_bot_decisions", "Bot decisions by lane and outcome (ok; timeout, raised, "
            "illegal: the default player answered).", ["lane", "outcome"], registry=registry)
        self.advice_seconds = Histogram(
            "nimmt_advice_seconds", "From asking for a hint or an analysis to its answer "
            "(waiting for a worker included).", ["kind"], buckets=_THINKING,
            registry=registry)

    def bot_decision(self, lane: str, answer: Answer, seconds: float) -> None:
        """A bot answered (or the default player for it) ``seconds`` after it was asked."""
        self.bot_seconds.labels(lane).observe(seconds)
        self.bot_think.labels(lane).observe(answer.seconds)
        outcome = "ok" if answer.fault is None else answer.fault.kind
        self.bot_decisions.labels(lane, outcome).inc()

    def advice(self, kind: str, seconds: float) -> None:
        """A hint or an analysis (``kind``) answered ``seconds`` after it was asked."""
        self.advice_seconds.labels(kind).observe(seconds)

    def refused(self, reason: str) -> None:
        self.refusals.refused(reason)


class StoreCounts:
    """The store writer's transactions: their time, their writes, their failures."""

    def __init__(self, registry: CollectorRegistry) -> None:
        self.db_commit = Histogram(
            "nimmt_db_commit_seconds", "One transaction of the store's writer (a group "
            "commit, or a table's transaction of its own), from its start to its commit.",
            buckets=LATENCY, registry=registry)
        self.db_writes = Histogram(
            "nimmt_db_commit_writes", "Writes shared by one transaction of the store's "
            "writer (group commit).", buckets=(1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000),
            registry=registry)
        self.db_errors = Counter(
            "nimmt_db_commit_errors", "Transactions of the store's writer that failed.",
            registry=registry)

    def commit(self, seconds: float, writes: int) -> None:
        self.db_commit.observe(seconds)
        self.db_writes.observe(writes)

    def commit_failed(self) -> None:
        self.db_errors.inc()


class ClusterCounts:
    """The cluster's counts: the age of messages from other processes, takeovers, leases
    lost, batches Redis did not take."""

    def __init__(self, registry: CollectorRegistry) -> None:
        self.relay_lag = Histogram(
            "nimmt_cluster_relay_lag_seconds", "Age of a message from another process when "
            "it is read here (its sender's clock against this one's).", buckets=LATENCY,
            registry=registry)
        self.takeovers = Counter(
            "nimmt_cluster_takeovers", "Tables this process took over from the store (their "
            "owner stopped, or the whole cluster restarted).", registry=registry)
        self.leases_lost = Counter(
            "nimmt_cluster_leases_lost", "Tables whose lease this process lost (another took "
            "them).", registry=registry)
        self.publish_errors = Counter(
            "nimmt_cluster_publish_errors", "Batches of messages Redis did not take.",
            registry=registry)

    def relayed(self, age: float) -> None:
        self.relay_lag.observe(age)

    def took_over(self) -> None:
        self.takeovers.inc()

    def lease_lost(self) -> None:
        self.leases_lost.inc()

    def publish_failed(self) -> None:
        self.publish_errors.inc()
