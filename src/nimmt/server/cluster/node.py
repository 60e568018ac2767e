"""Many server processes, one set of tables: leases, fencing tokens and frames through Redis.

With ``nimmt serve --redis URL`` (and PostgreSQL as the store) any number of
processes, on one machine or many, serve the same tables; docs/scaling.md has
the design. In short:

- **Any process accepts any connection.** A connection's own process (its
  *edge*) reads and checks its frames, as with one process; a table message goes
  to the table's *owner*, which may be the edge itself.
- **One owner per table** (:mod:`.leases`), by a lease in Redis (``lease:{table}``, the owner's
  node number, ``lease_ttl`` seconds, renewed every ``heartbeat``). Taking a
  lease gives a **fencing token** (``fence:{table}``, one more for every owner).
  Every write of the table's log carries it and the store refuses it once a
  newer token has written (:func:`.store.db.fence`, in the same transaction as
  the log append), so an owner that lost its lease without knowing (paused,
  cut off from Redis) can never write over the next one.
- **Frames through Redis pub/sub**: each process listens on one channel
  (``node:{n}``) for the commands of the tables it owns and the frames for its
  connections. What an owner sends to the connections of one edge within one
  turn of the event loop goes out as one message, in order.
- **Failover**: a process that stops renewing (killed) loses its node key and
  then its leases; another process, looking every heartbeat, takes each of its
  tables over from the store (fencing first, then replaying the log) and resumes
  timers and bots; it says so on ``moved``, and every edge closes the
  connections that were at those tables (code 1012), which reconnect through any
  process and get the table from its new owner with what they missed.
- **The lobby** is a Redis hash each owner keeps current every heartbeat.
- **HTTP reads of a table owned elsewhere** go to the owner as a request with a
  timeout (:meth:`Cluster.read`, :mod:`.reads`); the owner answers from the table in
  memory.
- **Redis is not trusted** (:mod:`.nodewire`): every message is sealed with the
  cluster's key, taken once and only while fresh, and read as strictly as a
  client's frame; what fails is dropped. Values read back from Redis keys are
  checked too: a lobby line carries its seal, a number that is not one is absent.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from typing import TYPE_CHECKING, Any, cast

import redis.asyncio as aioredis

from ... import wire as P
from ..base.logs import event, set_context
from ..base.params import ReadRefused
from ..store import StaleOwner
from ..tables.commands import from_message, who_of
from ..tables.fanout import echo_ref, error_frame
from ..tables.reads import TableRead, answer
from .leases import Leases
from .lobby import LobbyLines
from .nodewire import (
    NODE_MAX,
    NODE_SHIFT,
    Batch,
    Body,
    Enter,
    Forward,
    NodeAnswer,
    NodeAsk,
    NodeLeave,
    Sealer,
    moved,
)
from .peers import EdgeConnection, RemotePeer, RemoteTable
from .ports import ClusterHost, Counts
from .reads import Asks, TableMoving
from .relay import Keys, Relay

if TYPE_CHECKING:
    from ..tables.table import TableActor

__all__ = ["Cluster"]

log = logging.getLogger("nimmt.server")


class Cluster:
    """This process's part in a cluster of server processes sharing one Redis."""

    def __init__(self, host: ClusterHost, counts: Counts) -> None:
        self.host = host
        self.counts = counts
        s = self.settings = host.settings
        # The URL as given: a password (redis://:pw@host) and TLS (rediss://, with its
        # ssl_* query options) are redis-py's to apply. It is never logged.
        self.redis: aioredis.Redis = aioredis.from_url(s.redis)
        self.keys = Keys(s.redis_prefix)
        self.relay = Relay(s, self.redis, self.keys, counts)
        self.leases = Leases(self.redis, self.keys, s.lease_ttl)
        self.lobby = LobbyLines(self.redis, self.keys, self.relay)
        self.asks = Asks(s, self.relay)
        #: Remote connections at the tables owned here, by their number at the tables.
        self.peers: dict[int, RemotePeer] = {}
        #: Connections of this process at tables owned elsewhere, by number.
        self.edges: dict[int, EdgeConnection] = {}
        self._taking: dict[int, asyncio.Task[TableActor | None]] = {}
        #: Per remote connection, the last of its messages that waits for the store here
        #: (its mutes on entering, the blocks on sitting): its later ones follow it.
        self._steps: dict[int, asyncio.Task[None]] = {}
        self._beating: asyncio.Task[None] | None = None

    @property
    def node(self) -> int:
        """This process's number in the cluster."""
        return self.leases.node

    @property
    def dropped(self) -> int:
        """Messages from Redis not believed, so far."""
        return self.relay.drops.total

    # -- what the peers reach (peers.Switchboard) ---------------------------------------

    def channel(self, node: int) -> str:
        return self.keys.channel(node)

    def publish(self, channel: str, data: str) -> asyncio.Future[int]:
        return self.relay.publish(channel, data)

    def frame_to_edge(self, node: int, conn: int, text: str, seq: int, code: str) -> None:
        self.relay.frame_to_edge(node, conn, text, seq, code)

    def to_edge(self, node: int, entry: list[Any]) -> None:
        self.relay.to_edge(node, entry)

    # -- life ---------------------------------------------------------------------------

    async def open(self) -> None:
        """Join the cluster: a node number, the channels, the heartbeat; then take over
        every table nobody owns (after a restart of the whole cluster)."""
        s = self.settings
        # Redis first: a Redis that cannot be used stops the start before anything is
        # written to the database.
        node = await self.leases.number_this()
        if node > NODE_MAX:
            raise RuntimeError(f"Redis numbered this process {node}, past {NODE_MAX}: "
                               f"delete the key {self.keys.key('nodes', 'next')} while no "
                               "process runs")
        set_context(node=node)
        secret = s.cluster_secret.get_secret_value() or await self.host.store.cluster_secret()
        await self.leases.beat()
        await self.relay.open(Sealer(secret.encode(), s.cluster_window, s.cluster_message_max),
                              node, self._receive)
        self._beating = asyncio.create_task(self._heartbeat(), name="nimmt-cluster-heartbeat")
        for table_id in await self.host.store.live_table_ids():
            await self.take(table_id)

    async def close(self) -> None:
        """Leave the cluster: the tables owned here stop and their leases go at once, so
        other processes take them over without waiting for the leases to run out."""
        if self._beating is not None:
            self._beating.cancel()
        actors = list(self.host.tables.values())
        for actor in actors:
            await actor.stop()
        with contextlib.suppress(Exception):
            for actor in actors:
                await self.leases.release(actor.id)
            await self.leases.leave()
        await self.relay.close()
        if self._beating is not None:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._beating
        await self.redis.aclose()
        set_context(node=None)  # no longer a node of the cluster

    async def hand_over(self, actors: list[TableActor]) -> None:
        """A drain: the tables owned here (settled, their logs complete) leave this process
        now. Each lease goes and each move is announced (``moved``, to no process), so the
        edges elsewhere send their connections to reconnect and whichever process gets a
        connection at the table first takes it over, at once rather than after
        ``lease_ttl``; the others' sweep takes the rest once this process has left."""
        for actor in actors:
            if self.host.tables.get(actor.code) is actor:
                del self.host.tables[actor.code]
            for peer in list(actor.peers.values()):
                if isinstance(peer, RemotePeer):
                    self.peers.pop(peer.id, None)
        sent: list[asyncio.Future[int]] = []
        with contextlib.suppress(Exception):
            for actor in actors:
                await self.lobby.remove(actor.code)
                # Only the lease goes: the table stays in this process's ``owned`` set, so
                # once this process has left, the others' sweep takes over what no player
                # came back to (a table of bots goes on too).
                await self.leases.release(actor.id)
                sent.append(self.publish(self.keys.key("moved"), moved(actor.code, 0)))
            self.relay.flush()
        if sent:
            # Out before this process closes its Redis connection (a lost announcement
            # only makes those clients wait for their connection's own close).
            await asyncio.wait(sent, timeout=5.0)
        for actor in actors:
            log.info("node %d handed table %s over", self.node, actor.code,
                     extra=event("cluster.handover", table=actor.code))

    # -- leases -------------------------------------------------------------------------

    async def created(self, actor: TableActor) -> None:
        """A table made here: it is ours."""
        token = await self.leases.acquire(actor.id)
        if not token:
            raise RuntimeError(f"table {actor.id} is new but its lease is held")
        actor.token = token

    async def take(self, table_id: int) -> TableActor | None:
        """Take table ``table_id`` over from the store if nobody owns it: None if another
        process does, or it is closed. One attempt at a time per table here."""
        task = self._taking.get(table_id)
        if task is None:
            task = asyncio.create_task(self._take(table_id))
            self._taking[table_id] = task
            task.add_done_callback(lambda _t: self._taking.pop(table_id, None))
        return await asyncio.shield(task)

    async def _take(self, table_id: int) -> TableActor | None:
        host = self.host
        if host.draining:
            return None  # a process that stops takes nothing over (its own tables leave)
        for mine in host.tables.values():
            if mine.id == table_id:
                return mine
        token = await self.leases.acquire(table_id)
        if not token:
            return None
        try:
            try:
                # Fence first: from now on the old owner's writes are refused, so the log
                # read next is the whole log.
                await host.store.fence(table_id, token)
            except StaleOwner:
                await self.leases.raise_fence(table_id, await host.store.fence_of(table_id))
                raise
            row, entries = await host.store.table_with_log(table_id)
            if row is None or row.status == "closed":
                await self.leases.let_go(table_id)
                return None
            actor = await host.resume_table(row, entries, token)
        except Exception:
            await self.leases.let_go(table_id)
            raise
        if actor is None:
            await self.leases.let_go(table_id)
            return None
        log.info("node %d took table %s over (token %d)", self.node, actor.code, token,
                 extra=event("cluster.takeover", table=actor.code, token=token))
        self.counts.took_over()
        self.publish(self.keys.key("moved"), moved(actor.code, self.node))
        return actor

    async def forget(self, actor: TableActor) -> None:
        """``actor`` ended here: closed (its lease goes) or lost to another process (its
        connections are sent on to the new owner)."""
        for peer in list(actor.peers.values()):
            if isinstance(peer, RemotePeer):
                self.to_edge(peer.node, [peer.conn, "d" if actor.lost else "l", actor.code, 0])
                self.peers.pop(peer.id, None)
            elif actor.lost:
                self.host.drop(peer)
        with contextlib.suppress(Exception):
            await self.lobby.remove(actor.code)
            await self.leases.let_go(actor.id)

    async def locate(self, code: str) -> TableActor | RemoteTable:
        """The table with ``code``: here, or at its owner (taking it over if nobody owns
        it). A dead owner's lease is waited out (``lease_ttl``)."""
        host = self.host
        row = await host.store.table_by_code(code)
        if row is None:
            raise P.ProtocolError("no_table", f"no open table has the code {code!r}")
        table_id = int(row.id)
        end = time.monotonic() + self.settings.lease_ttl + 3 * self.settings.heartbeat + 2
        while True:
            actor = host.tables.get(code)
            if actor is not None:
                return actor
            held, owner = await self.leases.holder(table_id)
            if not held:
                taken = await self.take(table_id)
                if taken is not None:
                    return taken
            elif (owner is not None and owner != self.node and owner <= NODE_MAX
                    and await self.relay.listening(owner)):
                return RemoteTable(self, code, owner)
            if time.monotonic() > end:
                raise TableMoving(code)
            await asyncio.sleep(0.1)

    # -- HTTP reads of tables owned elsewhere ---------------------------------------------

    async def read(self, code: str, read: TableRead) -> str | None:
        """The answer to ``read`` of table ``code`` (JSON text): from its owner, here or
        through Redis; None if no open table has that code. Raises :class:`ReadRefused`
        (503) when the owner does not answer in time or the table is between owners."""
        for _ in range(2):
            try:
                found = await self.locate(code)
            except TableMoving as exc:
                raise ReadRefused(503, exc.message) from None
            except P.ProtocolError:
                return None
            if not isinstance(found, RemoteTable):
                return answer(found, read)
            text = await self.asks.ask(self.node, found.owner, code, read)
            if text is not None:
                return text
            # The owner had let the table go meanwhile: look for it once more.
        raise ReadRefused(503, TableMoving(code).message)

    # -- the heartbeat ------------------------------------------------------------------

    async def _heartbeat(self) -> None:
        while True:
            await asyncio.sleep(self.settings.heartbeat)
            try:
                await self.leases.beat()
                await self._renew_all()
                await self.lobby.publish(self.host.tables.values())
                async for table_id in self.leases.orphans():
                    await self.take(table_id)
                await self._dead_edges()
                if self.relay.sealer is not None:
                    self.relay.sealer.forget()
                self.relay.drops.flush()
            except asyncio.CancelledError:
                raise
            except Exception:
                log.exception("cluster heartbeat failed")

    async def _renew_all(self) -> None:
        actors = [a for a in self.host.tables.values() if a.token is not None]
        if not actors:
            return
        held = await self.leases.renew([a.id for a in actors])
        for actor, ok in zip(actors, held, strict=True):
            if not ok:
                log.warning("table %s: the lease was lost; the table stops here", actor.code,
                            extra=event("cluster.lease_lost", table=actor.code))
                self.counts.lease_lost()
                actor.lose()
                await actor.stop()
                self.host.forget_table(actor)

    async def _dead_edges(self) -> None:
        """The processes whose connections sit at the tables owned here and that stopped
        beating: those connections are gone (the disconnect grace starts, then the default
        player takes their seats). Each owner looks for itself: which process first sees a
        process dead does not matter."""
        for node in {p.node for p in self.peers.values()}:
            if not await self.leases.alive(node):
                self._gone(node)

    def _gone(self, node: int) -> None:
        """Process ``node`` is dead: let its connections at the tables owned here go."""
        for peer in [p for p in self.peers.values() if p.node == node]:
            self.peers.pop(peer.id, None)
            if peer.table is not None:
                peer.table.detach(peer)

    # -- frames -------------------------------------------------------------------------

    def _receive(self, body: Body) -> None:
        """One message another process sent, believed (:class:`~.relay.Relay` opened it)."""
        if isinstance(body, Batch):
            self._at_edge(body)
        elif isinstance(body, Enter | Forward | NodeLeave):
            self._at_owner(body)
        elif isinstance(body, NodeAsk):
            self.asks.answer(body, self.host.tables.get(body.t))
        elif isinstance(body, NodeAnswer):
            self.asks.answered(body)
        else:  # a table moved to process n
            for conn in list(self.edges.values()):
                remote = conn.remote
                if remote is not None and remote.code == body.t and remote.owner != body.n:
                    self.drop(conn)

    def _at_edge(self, batch: Batch) -> None:
        for conn_id, what, text, seq in batch.e:
            conn = self.edges.get(conn_id)
            if conn is None:
                continue
            if what == "f":
                conn.seq = seq
                conn.send(text)
            elif conn.remote is not None and conn.remote.code == text:
                if what == "l":
                    conn.remote = None
                    self.edges.pop(conn_id, None)
                else:
                    self.drop(conn)

    def _at_owner(self, body: Enter | Forward | NodeLeave) -> None:
        """A remote connection's message, in the order its edge sent them. Entering reads
        the player's mutes first, and sitting checks the blocks at the table (both in the
        store), as for a connection of this process; a message that comes meanwhile waits
        for them."""
        pid = (body.n << NODE_SHIFT) | body.c
        msg: P.ClientMessage | None = None
        if isinstance(body, Forward):
            try:
                msg = P.parse_client(body.x, self.settings.max_depth)
            except P.ProtocolError as exc:
                peer = self.peers.get(pid)
                if peer is not None:
                    self._refuse(peer, exc, body.x)
                return
        before = self._steps.get(pid)
        entering = isinstance(body, Enter) and pid not in self.peers
        sitting = msg is not None and msg.type == "sit"
        if before is None and not entering and not sitting:
            self._owner_step(body, pid, msg)
            return

        async def step() -> None:
            if before is not None:
                with contextlib.suppress(Exception):
                    await before
            try:
                silenced = await self.host.social.silenced_of(body.p) if entering else None
                if sitting and not await self._may_sit(body, pid):
                    return
                self._owner_step(body, pid, msg, silenced)
            except Exception:
                log.exception("a message of connection %d of node %d failed", body.c, body.n)

        task = asyncio.create_task(step())
        self._steps[pid] = task
        task.add_done_callback(
            lambda done: self._steps.pop(pid) if self._steps.get(pid) is done else None)

    async def _may_sit(self, body: Enter | Forward | NodeLeave, pid: int) -> bool:
        """The blocks at the table checked for a remote connection's ``sit`` (refused
        ``blocked`` as at a connection of this process)."""
        peer = self.peers.get(pid)
        if peer is None or peer.table is None or peer.table is not self.host.tables.get(body.t):
            return True  # not at this table: the table itself answers
        try:
            await self.host.social.check_sit(peer.player_id, peer.table)
        except P.ProtocolError as exc:
            self._refuse(peer, exc, cast(Forward, body).x)
            return False
        return True

    def _owner_step(self, body: Enter | Forward | NodeLeave, pid: int, msg: P.ClientMessage | None,
                    silenced: frozenset[str] | None = None) -> None:
        code, node, conn_id = body.t, body.n, body.c
        actor = self.host.tables.get(code)
        if actor is None:
            if not isinstance(body, NodeLeave):  # not ours (any more): it finds the new owner
                self.to_edge(node, [conn_id, "d", code, 0])
            return
        peer = self.peers.get(pid)
        if isinstance(body, NodeLeave):
            if peer is not None:
                actor.detach(peer)
            return
        if peer is None:
            peer = self.peers[pid] = RemotePeer(self, node, conn_id, body.p, body.nm, body.l)
        if silenced is not None:
            peer.silenced = silenced
        if isinstance(body, Enter):
            actor.attach(peer, body.m, body.s, body.r)
            return
        assert msg is not None
        try:
            actor.take(peer, from_message(who_of(peer), msg, refusal=self.host.refusal))
        except P.ProtocolError as exc:
            self._refuse(peer, exc, body.x)

    def _refuse(self, peer: RemotePeer, exc: P.ProtocolError, frame: str) -> None:
        peer.send(error_frame(peer.seq, exc.code, exc.message, echo_ref(frame), peer.lang))

    def drop(self, conn: EdgeConnection) -> None:
        """Close ``conn``, a connection of this process at a table owned elsewhere: the
        table moved (or its owner is gone), so it reconnects."""
        self.edges.pop(conn.id, None)
        conn.drop()
