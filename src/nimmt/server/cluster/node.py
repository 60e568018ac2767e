"""Many server processes, one set of tables: leases, fencing tokens and frames through Redis.

With ``nimmt serve --redis URL`` (and PostgreSQL as the store) any number of
processes, on one machine or many, serve the same tables; docs/scaling.md has
the design. In short:

- **Any process accepts any connection.** A connection's own process (its
  *edge*) reads and checks its frames, as with one process; a table message goes
  to the table's *owner*, which may be the edge itself.
- **One owner per table**, by a lease in Redis (``lease:{table}``, the owner's
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
  timeout (:meth:`Cluster.read`); the owner answers from the table in memory.
- **Redis is not trusted** (:mod:`.nodewire`): every message is sealed with the
  cluster's key, taken once and only while fresh, and read as strictly as a
  client's frame; what fails is dropped. Values read back from Redis keys are
  checked too: a lobby line carries its seal, a number that is not one is absent.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import logging
import time
from typing import TYPE_CHECKING, Any, Protocol, cast

import redis.asyncio as aioredis

from ... import wire as P
from ...wire import Sheet
from ..base.logs import event, set_context
from ..base.params import ReadRefused
from ..fanout import echo_ref, error_frame
from ..reads import TableRead, answer
from ..store import StaleOwner
from .nodewire import (
    NODE_MAX,
    NODE_SHIFT,
    Batch,
    Drops,
    Enter,
    Forward,
    Moved,
    NodeAnswer,
    NodeAsk,
    NodeLeave,
    NodeRefused,
    Sealer,
    moved,
    parse_body,
)

if TYPE_CHECKING:
    from ..base.settings import Settings
    from ..store import LogEntry, Store
    from ..table import TableActor, TablePeer

__all__ = ["Cluster", "ClusterHost", "EdgeConnection", "RemotePeer", "RemoteTable",
           "TableMoving", "lobby_entry"]

log = logging.getLogger("nimmt.server")

#: Bytes a message between processes needs besides its entries: its seal and fields.
_OVERHEAD = 256

# Take a free lease and the next fencing token, in one step.
_ACQUIRE = """
if redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) then
  return redis.call('INCR', KEYS[2])
end
return 0
"""
# Renew the leases still held; 0 for each one lost.
_RENEW = """
local out = {}
for i, k in ipairs(KEYS) do
  if redis.call('GET', k) == ARGV[1] then
    redis.call('PEXPIRE', k, ARGV[2])
    out[i] = 1
  else
    out[i] = 0
  end
end
return out
"""
# Let a lease go, only if it is still ours.
_RELEASE = """
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
"""
# Raise a table's token counter to at least ARGV[1] (a Redis that forgot its counters).
_RAISE = """
local now = tonumber(redis.call('GET', KEYS[1]) or '0')
if now < tonumber(ARGV[1]) then redis.call('SET', KEYS[1], ARGV[1]) end
return 1
"""


class EdgeConnection(Protocol):
    """A connection of this process as the cluster knows it: who it is, where its table
    is when another process owns it, and how frames reach it (the hub's
    :class:`~.app.Connection`)."""

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


class Counts(Protocol):
    """Where the cluster counts what happens between processes (the server's metrics)."""

    def relayed(self, age: float) -> None:
        """A message from another process read here, ``age`` seconds after it was sent."""

    def took_over(self) -> None:
        """A table taken over from the store."""

    def lease_lost(self) -> None:
        """A table's lease lost to another process."""

    def publish_failed(self) -> None:
        """A batch of messages Redis did not take."""


class Checks(Protocol):
    """The people's checks a remote connection passes here, as a local one does at its
    own process: whose chat it hears not, and whether someone at a table blocked it."""

    async def silenced_of(self, player_id: int) -> frozenset[str]: ...

    async def check_sit(self, player_id: int, table: TableActor) -> None: ...


class ClusterHost(Protocol):
    """What the cluster needs of the process it runs in (the :class:`~.app.Hub`): its
    settings, store and social checks, the tables it holds, and how to bring a table
    back, let one go and drop a connection. The cluster reaches nothing else of the
    hub, so neither module needs the other's code."""

    settings: Settings
    store: Store
    social: Checks
    #: The tables this process holds, by code.
    tables: dict[str, TableActor]
    #: Whether this process is stopping (it takes no table over).
    draining: bool

    async def resume_table(self, row: Any, entries: list[LogEntry],
                           token: int | None = None) -> TableActor | None:
        """Table ``row`` running here again from its log, owned with fencing ``token``."""

    def forget_table(self, actor: TableActor) -> None:
        """``actor`` ended here (closed, or lost to another process)."""

    def drop(self, peer: TablePeer) -> None:
        """Close ``peer`` (a connection of this process) so that it reconnects."""


class TableMoving(P.ProtocolError):
    """The table is between owners (its owner died and its lease has not run out)."""

    def __init__(self, code: str) -> None:
        super().__init__("no_table", f"the table {code!r} is moving to another server "
                         "process; try again in a moment")


def _number(raw: Any) -> int | None:
    """A number read from a Redis key or set, or None for a value that is not one (Redis
    is not trusted to hold what this program wrote)."""
    if isinstance(raw, bytes | str) and 0 < len(raw) <= 19 and raw.isdigit():
        return int(raw)
    return None


def lobby_entry(actor: TableActor) -> P.LobbyTable | None:
    """``actor``'s line in the lobby, or None for a table the lobby leaves out."""
    if actor.private or actor.status not in ("open", "playing"):
        return None
    return P.LobbyTable(
        code=actor.code, name=actor.name, host=actor.info().host, rules_name=actor.rules.name,
        seats=len(actor.seats), taken=sum(1 for s in actor.seats if s is not None),
        status=actor.status,
    )


class RemotePeer:
    """At a table's owner, a connection of another process (its edge): what the table
    sends it goes to the edge's channel."""

    def __init__(self, cluster: Cluster, node: int, conn: int, player_id: int, name: str,
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

    def __init__(self, cluster: Cluster, code: str, owner: int) -> None:
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


class Cluster:
    """This process's part in a cluster of server processes sharing one Redis."""

    def __init__(self, hub: ClusterHost, counts: Counts) -> None:
        self.hub = hub
        self.counts = counts
        s = hub.settings
        self.settings = s
        # The URL as given: a password (redis://:pw@host) and TLS (rediss://, with its
        # ssl_* query options) are redis-py's to apply. It is never logged.
        self.redis: aioredis.Redis = aioredis.from_url(s.redis)
        self.prefix = s.redis_prefix
        self.ttl_ms = int(s.lease_ttl * 1000)
        #: This process's number in the cluster (from a counter in Redis: never reused).
        self.node = 0
        #: Remote connections at the tables owned here, by their number at the tables.
        self.peers: dict[int, RemotePeer] = {}
        #: Connections of this process at tables owned elsewhere, by number.
        self.edges: dict[int, EdgeConnection] = {}
        self._out: asyncio.Queue[tuple[str, bytes, asyncio.Future[int] | None]] = \
            asyncio.Queue()
        #: What goes to each edge at the end of this turn of the event loop (each entry as
        #: the JSON it is sent as).
        self._pending: dict[int, list[bytes]] = {}
        #: Bytes of entries one message may carry.
        self.room = s.cluster_message_max - _OVERHEAD
        #: Seals this process's messages and checks everyone's (made at :meth:`open`, with
        #: the cluster's key).
        self.sealer: Sealer | None = None
        #: Messages from Redis that were not believed.
        self.drops = Drops()
        #: HTTP reads sent to other processes, waiting for their answers, by number.
        self._asked: dict[int, asyncio.Future[str | None]] = {}
        self._asks = itertools.count(1)
        self._lobby: dict[str, str] = {}
        self._taking: dict[int, asyncio.Task[TableActor | None]] = {}
        #: Per remote connection, the last of its messages that waits for the store here
        #: (its mutes on entering, the blocks on sitting): its later ones follow it.
        self._steps: dict[int, asyncio.Task[None]] = {}
        self._tasks: list[asyncio.Task[None]] = []
        self._acquire = self.redis.register_script(_ACQUIRE)
        self._renew = self.redis.register_script(_RENEW)
        self._release = self.redis.register_script(_RELEASE)
        self._raise = self.redis.register_script(_RAISE)
        self.pubsub: Any = None

    def key(self, *parts: object) -> str:
        return self.prefix + ":".join(str(p) for p in parts)

    def channel(self, node: int) -> str:
        return self.key("node", node)

    # -- life ---------------------------------------------------------------------------

    async def open(self) -> None:
        """Join the cluster: a node number, the channels, the heartbeat; then take over
        every table nobody owns (after a restart of the whole cluster)."""
        s = self.settings
        # Redis first: a Redis that cannot be used stops the start before anything is
        # written to the database.
        self.node = int(await self.redis.incr(self.key("nodes", "next")))
        if self.node > NODE_MAX:
            raise RuntimeError(f"Redis numbered this process {self.node}, past {NODE_MAX}: "
                               f"delete the key {self.key('nodes', 'next')} while no process "
                               "runs")
        set_context(node=self.node)
        secret = s.cluster_secret.get_secret_value() or await self.hub.store.cluster_secret()
        self.sealer = Sealer(secret.encode(), s.cluster_window, s.cluster_message_max)
        await self._beat()
        self.pubsub = self.redis.pubsub(ignore_subscribe_messages=True)
        await self.pubsub.subscribe(self.channel(self.node), self.key("moved"))
        self._tasks = [asyncio.create_task(self._listen(), name="nimmt-cluster-listen"),
                       asyncio.create_task(self._send_loop(), name="nimmt-cluster-send"),
                       asyncio.create_task(self._heartbeat(), name="nimmt-cluster-heartbeat")]

        for table_id in await self.hub.store.live_table_ids():
            await self.take(table_id)

    async def close(self) -> None:
        """Leave the cluster: the tables owned here stop and their leases go at once, so
        other processes take them over without waiting for the leases to run out."""
        for task in self._tasks[2:]:
            task.cancel()
        actors = list(self.hub.tables.values())
        for actor in actors:
            await actor.stop()
        with contextlib.suppress(Exception):
            for actor in actors:
                await self._release(keys=[self.key("lease", actor.id)], args=[self.node])
            await self.redis.delete(self.key("alive", self.node))
        self._flush()
        await asyncio.sleep(0)
        for task in self._tasks:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
        if self.pubsub is not None:
            with contextlib.suppress(Exception):
                await self.pubsub.aclose()
        await self.redis.aclose()
        set_context(node=None)  # no longer a node of the cluster

    async def hand_over(self, actors: list[TableActor]) -> None:
        """A drain: the tables owned here (settled, their logs complete) leave this process
        now. Each lease goes and each move is announced (``moved``, to no process), so the
        edges elsewhere send their connections to reconnect and whichever process gets a
        connection at the table first takes it over, at once rather than after
        ``lease_ttl``; the others' sweep takes the rest once this process has left."""
        for actor in actors:
            if self.hub.tables.get(actor.code) is actor:
                del self.hub.tables[actor.code]
            for peer in list(actor.peers.values()):
                if isinstance(peer, RemotePeer):
                    self.peers.pop(peer.id, None)
        sent: list[asyncio.Future[int]] = []
        with contextlib.suppress(Exception):
            for actor in actors:
                self._lobby.pop(actor.code, None)
                await self.redis.hdel(self.key("lobby"), actor.code)
                # Only the lease goes: the table stays in this process's ``owned`` set, so
                # once this process has left, the others' sweep takes over what no player
                # came back to (a table of bots goes on too).
                await self._release(keys=[self.key("lease", actor.id)], args=[self.node])
                sent.append(self.publish(self.key("moved"), moved(actor.code, 0)))
            self._flush()
        if sent:
            # Out before this process closes its Redis connection (a lost announcement
            # only makes those clients wait for their connection's own close).
            await asyncio.wait(sent, timeout=5.0)
        for actor in actors:
            log.info("node %d handed table %s over", self.node, actor.code,
                     extra=event("cluster.handover", table=actor.code))

    # -- leases -------------------------------------------------------------------------

    async def acquire(self, table_id: int) -> int:
        """The lease of table ``table_id`` and a new fencing token, or 0 if it is held."""
        token = await self._acquire(keys=[self.key("lease", table_id), self.key("fence", table_id)],
                                    args=[self.node, self.ttl_ms])
        if token:
            await self.redis.sadd(self.key("owned", self.node), table_id)
        return int(token)

    async def created(self, actor: TableActor) -> None:
        """A table made here: it is ours."""
        token = await self.acquire(actor.id)
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
        hub = self.hub
        if hub.draining:
            return None  # a process that stops takes nothing over (its own tables leave)
        for mine in hub.tables.values():
            if mine.id == table_id:
                return mine
        token = await self.acquire(table_id)
        if not token:
            return None
        try:
            try:
                # Fence first: from now on the old owner's writes are refused, so the log
                # read next is the whole log.
                await hub.store.fence(table_id, token)
            except StaleOwner:
                newest = await hub.store.fence_of(table_id)
                await self._raise(keys=[self.key("fence", table_id)], args=[newest])
                raise
            row, entries = await hub.store.table_with_log(table_id)
            if row is None or row.status == "closed":
                await self._let_go(table_id)
                return None
            actor = await hub.resume_table(row, entries, token)
        except Exception:
            await self._let_go(table_id)
            raise
        if actor is None:
            await self._let_go(table_id)
            return None
        log.info("node %d took table %s over (token %d)", self.node, actor.code, token,
                 extra=event("cluster.takeover", table=actor.code, token=token))
        self.counts.took_over()
        self.publish(self.key("moved"), moved(actor.code, self.node))
        return actor

    async def _let_go(self, table_id: int) -> None:
        await self._release(keys=[self.key("lease", table_id)], args=[self.node])
        await self.redis.srem(self.key("owned", self.node), table_id)

    async def forget(self, actor: TableActor) -> None:
        """``actor`` ended here: closed (its lease goes) or lost to another process (its
        connections are sent on to the new owner)."""
        for peer in list(actor.peers.values()):
            if isinstance(peer, RemotePeer):
                self.to_edge(peer.node, [peer.conn, "d" if actor.lost else "l", actor.code, 0])
                self.peers.pop(peer.id, None)
            elif actor.lost:
                self.hub.drop(peer)
        self._lobby.pop(actor.code, None)
        with contextlib.suppress(Exception):
            await self.redis.hdel(self.key("lobby"), actor.code)
            await self._let_go(actor.id)

    async def locate(self, code: str) -> TableActor | RemoteTable:
        """The table with ``code``: here, or at its owner (taking it over if nobody owns
        it). A dead owner's lease is waited out (``lease_ttl``)."""
        hub = self.hub
        row = await hub.store.table_by_code(code)
        if row is None:
            raise P.ProtocolError("no_table", f"no open table has the code {code!r}")
        table_id = int(row.id)
        end = time.monotonic() + self.settings.lease_ttl + 3 * self.settings.heartbeat + 2
        while True:
            actor = hub.tables.get(code)
            if actor is not None:
                return actor
            raw = await self.redis.get(self.key("lease", table_id))
            owner = _number(raw)
            if raw is None:
                taken = await self.take(table_id)
                if taken is not None:
                    return taken
            elif owner is not None and owner != self.node and owner <= NODE_MAX:
                listening = await self.redis.pubsub_numsub(self.channel(owner))
                if listening and int(listening[0][1]) > 0:
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
            text = await self.ask(found.owner, code, read)
            if text is not None:
                return text
            # The owner had let the table go meanwhile: look for it once more.
        raise ReadRefused(503, TableMoving(code).message)

    async def ask(self, owner: int, code: str, read: TableRead) -> str | None:
        """Send ``read`` to process ``owner`` and wait (``cluster_read_timeout``) for its
        answer: the JSON text, or None if the table is not there."""
        s = self.settings
        if len(self._asked) >= s.cluster_reads:
            raise ReadRefused(503, f"this server process waits for {s.cluster_reads} answers "
                              "from other processes already; try again in a moment")
        number = next(self._asks)
        waiting: asyncio.Future[str | None] = asyncio.get_running_loop().create_future()
        self._asked[number] = waiting
        body = {"k": "rq", "t": code, "n": self.node, "i": number,
                "q": read.model_dump()}
        try:
            async with asyncio.timeout(s.cluster_read_timeout):
                listened = await self.publish(self.channel(owner),
                                              json.dumps(body, ensure_ascii=False))
                if not listened:
                    raise ReadRefused(503, TableMoving(code).message)
                return await waiting
        except TimeoutError:
            raise ReadRefused(503, f"the server process that holds table {code!r} did not "
                              f"answer within {s.cluster_read_timeout:g} s; try again in a "
                              "moment") from None
        finally:
            self._asked.pop(number, None)

    def _answer(self, ask: NodeAsk) -> None:
        """At the owner: answer an HTTP read another process sent."""
        actor = self.hub.tables.get(ask.t)
        text = None if actor is None else answer(actor, ask.q)
        body = json.dumps({"k": "rs", "i": ask.i, "a": text}, ensure_ascii=False)
        if len(body) > self.room // 4 and len(body.encode()) > self.room:
            log.warning("table %s: an answer of %d characters is larger than a message "
                        "between processes may be (cluster_message_max)", ask.t, len(body))
            return
        self.publish(self.channel(ask.n), body)

    # -- the heartbeat ------------------------------------------------------------------

    async def _beat(self) -> None:
        await self.redis.set(self.key("alive", self.node), 1, px=self.ttl_ms)
        await self.redis.sadd(self.key("nodes"), self.node)

    async def _heartbeat(self) -> None:
        while True:
            await asyncio.sleep(self.settings.heartbeat)
            try:
                await self._beat()
                await self._renew_all()
                await self._publish_lobby()
                await self._sweep()
                await self._dead_edges()
                if self.sealer is not None:
                    self.sealer.forget()
                self.drops.flush()
            except asyncio.CancelledError:
                raise
            except Exception:
                log.exception("cluster heartbeat failed")

    async def _renew_all(self) -> None:
        actors = [a for a in self.hub.tables.values() if a.token is not None]
        if not actors:
            return
        held = await self._renew(keys=[self.key("lease", a.id) for a in actors],
                                 args=[self.node, self.ttl_ms])
        for actor, ok in zip(actors, held, strict=True):
            if not ok:
                log.warning("table %s: the lease was lost; the table stops here", actor.code,
                            extra=event("cluster.lease_lost", table=actor.code))
                self.counts.lease_lost()
                actor.lose()
                await actor.stop()
                self.hub.forget_table(actor)

    async def _publish_lobby(self) -> None:
        assert self.sealer is not None
        now: dict[str, str] = {}
        for actor in self.hub.tables.values():
            entry = lobby_entry(actor)
            if entry is not None:
                now[actor.code] = self.sealer.sign(actor.code, entry.model_dump_json())
        changed = {k: v for k, v in now.items() if self._lobby.get(k) != v}
        gone = [k for k in self._lobby if k not in now]
        if changed:
            await self.redis.hset(self.key("lobby"), mapping=changed)  # type: ignore[arg-type]
        if gone:
            await self.redis.hdel(self.key("lobby"), *gone)
        self._lobby = now

    async def _sweep(self) -> None:
        """Take over the tables of processes that stopped beating."""
        for raw in await self.redis.smembers(self.key("nodes")):
            node = _number(raw)
            if node is None:
                await self.redis.srem(self.key("nodes"), raw)
                continue
            if node == self.node or await self.redis.exists(self.key("alive", node)):
                continue
            owned = self.key("owned", node)
            left = False
            for raw_id in await self.redis.smembers(owned):
                table_id = _number(raw_id)
                if table_id is None:
                    await self.redis.srem(owned, raw_id)
                    continue
                if await self.redis.exists(self.key("lease", table_id)):
                    left = True  # its lease has not run out yet (or another took it)
                    continue
                await self.take(table_id)
                await self.redis.srem(owned, table_id)
            if not left:
                await self.redis.srem(self.key("nodes"), node)

    async def _dead_edges(self) -> None:
        """The processes whose connections sit at the tables owned here and that stopped
        beating: those connections are gone (the disconnect grace starts, then the default
        player takes their seats). Each owner looks for itself: which process first sees a
        process dead does not matter."""
        for node in {p.node for p in self.peers.values()}:
            if not await self.redis.exists(self.key("alive", node)):
                self._gone(node)

    def _gone(self, node: int) -> None:
        """Process ``node`` is dead: let its connections at the tables owned here go."""
        for peer in [p for p in self.peers.values() if p.node == node]:
            self.peers.pop(peer.id, None)
            if peer.table is not None:
                peer.table.detach(peer)

    async def lobby(self) -> list[P.LobbyTable]:
        """The lobby of the whole cluster: the lines its owners signed (others are
        dropped)."""
        assert self.sealer is not None
        out: list[P.LobbyTable] = []
        for code, raw in (await self.redis.hgetall(self.key("lobby"))).items():
            try:
                name = code.decode() if isinstance(code, bytes) else code
                value = raw if isinstance(raw, bytes) else raw.encode()
                line = P.LobbyTable.model_validate_json(self.sealer.unsign(name, value))
            except NodeRefused as exc:
                self.drops.drop(f"lobby line: {exc.reason}")
            except (UnicodeDecodeError, ValueError):
                self.drops.drop("lobby line: malformed")
            else:
                if line.code == name:
                    out.append(line)
        return out

    # -- frames -------------------------------------------------------------------------

    def publish(self, channel: str, data: str) -> asyncio.Future[int]:
        """Send ``data`` on ``channel`` after everything sent before it; the future says
        how many processes listened."""
        fut: asyncio.Future[int] = asyncio.get_running_loop().create_future()
        self._put(channel, data.encode(), fut)
        return fut

    def _put(self, channel: str, body: bytes, fut: asyncio.Future[int] | None) -> None:
        # Sealed as queued: the queue is the order they are published in, so each
        # sender's numbers rise as they arrive.
        assert self.sealer is not None
        self._out.put_nowait((channel, self.sealer.seal(channel.encode(), body), fut))

    def frame_to_edge(self, node: int, conn: int, text: str, seq: int, code: str) -> None:
        """A frame for connection ``conn`` of ``node``, at table ``code``. A frame too large
        for one message sends the connection to reconnect instead (and is logged): the
        other process would drop it."""
        entry = json.dumps([conn, "f", text, seq], ensure_ascii=False).encode()
        if len(entry) > self.room:
            log.warning("table %s: a frame of %d bytes is larger than a message between "
                        "processes may be (cluster_message_max); its connection reconnects",
                        code, len(entry))
            self.to_edge(node, [conn, "d", code, 0])
            return
        self._pend(node, entry)

    def to_edge(self, node: int, entry: list[Any]) -> None:
        """One note for a connection of ``node`` (``l``: it left table ``code``; ``d``: it
        reconnects): sent with the others of this turn of the event loop, in one
        message."""
        self._pend(node, json.dumps(entry, ensure_ascii=False).encode())

    def _pend(self, node: int, entry: bytes) -> None:
        if not self._pending:
            asyncio.get_running_loop().call_soon(self._flush)
        self._pending.setdefault(node, []).append(entry)

    def _flush(self) -> None:
        pending, self._pending = self._pending, {}
        for node, entries in pending.items():
            # As few messages as fit: a batch larger than one message may be is split.
            start = size = 0
            for i, entry in enumerate(entries):
                if i > start and size + len(entry) + 1 > self.room:
                    self._batch(node, entries[start:i])
                    start, size = i, 0
                size += len(entry) + 1
            self._batch(node, entries[start:])

    def _batch(self, node: int, entries: list[bytes]) -> None:
        self._put(self.channel(node), b'{"k":"b","e":[' + b",".join(entries) + b"]}", None)

    async def _send_loop(self) -> None:
        while True:
            batch = [await self._out.get()]
            while not self._out.empty():
                batch.append(self._out.get_nowait())
            try:
                # One pipeline on one connection: messages leave in the order they came.
                pipe = self.redis.pipeline(transaction=False)
                for channel, data, _ in batch:
                    pipe.publish(channel, data)
                counts = await pipe.execute()
            except Exception as exc:
                log.warning("publishing to Redis failed: %s", exc,
                            extra=event("cluster.publish_failed", messages=len(batch)))
                self.counts.publish_failed()
                counts = [exc] * len(batch)
            for (_, _, fut), n in zip(batch, counts, strict=True):
                if fut is not None and not fut.done():
                    if isinstance(n, Exception):
                        fut.set_exception(n)
                    else:
                        fut.set_result(int(n))

    async def _listen(self) -> None:
        moved = self.key("moved").encode()
        while True:
            try:
                async for message in self.pubsub.listen():
                    if message.get("type") != "message":
                        continue
                    try:
                        self._receive(message["channel"], message["data"], moved)
                    except Exception:
                        log.exception("a message from the cluster failed")
            except asyncio.CancelledError:
                raise
            except Exception as exc:
                log.warning("listening to Redis failed (%s); listening again", exc)
                await asyncio.sleep(0.5)

    def _receive(self, channel: bytes, data: bytes, moved: bytes) -> None:
        """One message from Redis: opened, read and acted on, or dropped."""
        assert self.sealer is not None
        try:
            opened = self.sealer.open(channel, data)
            self.counts.relayed(max(0.0, self.sealer.age))
            body = parse_body(opened)
            if (channel == moved) != isinstance(body, Moved):
                raise NodeRefused(f"a {body.k!r} message on the wrong channel")
        except NodeRefused as exc:
            self.drops.drop(exc.reason)
            return
        if isinstance(body, Batch):
            self._at_edge(body)
        elif isinstance(body, Enter | Forward | NodeLeave):
            self._at_owner(body)
        elif isinstance(body, NodeAsk):
            self._answer(body)
        elif isinstance(body, NodeAnswer):
            waiting = self._asked.get(body.i)
            if waiting is not None and not waiting.done():
                waiting.set_result(body.a)
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
                silenced = await self.hub.social.silenced_of(body.p) if entering else None
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
        if peer is None or peer.table is None or peer.table is not self.hub.tables.get(body.t):
            return True  # not at this table: the table itself answers
        try:
            await self.hub.social.check_sit(peer.player_id, peer.table)
        except P.ProtocolError as exc:
            self._refuse(peer, exc, cast(Forward, body).x)
            return False
        return True

    def _owner_step(self, body: Enter | Forward | NodeLeave, pid: int, msg: P.ClientMessage | None,
                    silenced: frozenset[str] | None = None) -> None:
        code, node, conn_id = body.t, body.n, body.c
        actor = self.hub.tables.get(code)
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
            actor.message(peer, msg)
        except P.ProtocolError as exc:
            self._refuse(peer, exc, body.x)

    def _refuse(self, peer: RemotePeer, exc: P.ProtocolError, frame: str) -> None:
        peer.send(error_frame(peer.seq, exc.code, exc.message, echo_ref(frame), peer.lang))

    def drop(self, conn: EdgeConnection) -> None:
        """Close ``conn``, a connection of this process at a table owned elsewhere: the
        table moved (or its owner is gone), so it reconnects."""
        self.edges.pop(conn.id, None)
        conn.drop()
