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
  newer token has written (:func:`~.store.fence`, in the same transaction as
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
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import time
from typing import TYPE_CHECKING, Any

import redis.asyncio as aioredis
import sqlalchemy as sa

from . import protocol as P
from .fanout import error_frame
from .store import StaleOwner, fence, tables

if TYPE_CHECKING:
    from .app import Connection, Hub
    from .table import TableActor

__all__ = ["Cluster", "RemotePeer", "RemoteTable", "lobby_entry"]

log = logging.getLogger("nimmt.server")

#: Remote connections' numbers at an owner: the edge's node above these bits, so they never
#: meet the owner's own connections' numbers (which count from 1) or another edge's.
NODE_SHIFT = 40

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
        #: A hint this connection asked for is being computed here (one at a time).
        self.hinting = False
        self._table: TableActor | None = None

    def send(self, text: str) -> None:
        self.cluster.to_edge(self.node, [self.conn, "f", text, self.seq])

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

    def _to_owner(self, conn: Connection, kind: str, **fields: Any) -> None:
        c = self.cluster
        body = {"k": kind, "t": self.code, "n": c.node, "c": conn.id, "p": conn.player_id,
                "nm": conn.name, "l": conn.lang, **fields}
        sent = c.publish(c.channel(self.owner), json.dumps(body))

        def check(fut: asyncio.Future[int]) -> None:
            # Nobody listens on the owner's channel: it is gone. Its tables will be taken
            # over; the client reconnects and finds the new owner.
            if not fut.cancelled() and fut.exception() is None and fut.result() == 0 \
                    and kind != "out":
                c.drop(conn)

        sent.add_done_callback(check)

    def attach(self, conn: Connection, mode: str, last_seq: int | None, ref: P.Ref) -> None:
        self.cluster.edges[conn.id] = conn
        self._to_owner(conn, "in", m=mode, s=last_seq, r=ref)

    def message(self, conn: Connection, msg: P.ClientMessage) -> None:
        self._to_owner(conn, "msg", x=msg.model_dump_json(exclude_unset=True))

    def detach(self, conn: Connection) -> None:
        self.cluster.edges.pop(conn.id, None)
        self._to_owner(conn, "out")


class Cluster:
    """This process's part in a cluster of server processes sharing one Redis."""

    def __init__(self, hub: Hub) -> None:
        self.hub = hub
        s = hub.settings
        self.settings = s
        self.redis: aioredis.Redis = aioredis.from_url(s.redis)
        self.prefix = s.redis_prefix
        self.ttl_ms = int(s.lease_ttl * 1000)
        #: This process's number in the cluster (from a counter in Redis: never reused).
        self.node = 0
        #: Remote connections at the tables owned here, by their number at the tables.
        self.peers: dict[int, RemotePeer] = {}
        #: Connections of this process at tables owned elsewhere, by number.
        self.edges: dict[int, Connection] = {}
        self._out: asyncio.Queue[tuple[str, str, asyncio.Future[int] | None]] = asyncio.Queue()
        #: What goes to each edge at the end of this turn of the event loop.
        self._pending: dict[int, list[list[Any]]] = {}
        self._lobby: dict[str, str] = {}
        self._taking: dict[int, asyncio.Task[TableActor | None]] = {}
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
        self.node = int(await self.redis.incr(self.key("nodes", "next")))
        await self._beat()
        self.pubsub = self.redis.pubsub(ignore_subscribe_messages=True)
        await self.pubsub.subscribe(self.channel(self.node), self.key("moved"))
        self._tasks = [asyncio.create_task(self._listen(), name="nimmt-cluster-listen"),
                       asyncio.create_task(self._send_loop(), name="nimmt-cluster-send"),
                       asyncio.create_task(self._heartbeat(), name="nimmt-cluster-heartbeat")]

        async def live(c: Any) -> list[int]:
            res = await c.execute(sa.select(tables.c.id).where(tables.c.status != "closed"))
            return [int(r[0]) for r in res]

        for table_id in await self.hub.store.read(live):
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
                await hub.store.run(lambda c: fence(c, table_id, token))
            except StaleOwner:
                newest = await hub.store.read(lambda c: _fence_of(c, table_id))
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
        log.info("node %d took table %s over (token %d)", self.node, actor.code, token)
        self.publish(self.key("moved"), json.dumps({"t": actor.code, "n": self.node}))
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
                self.hub.drop(peer)  # type: ignore[arg-type]
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
            owner = await self.redis.get(self.key("lease", table_id))
            if owner is None:
                taken = await self.take(table_id)
                if taken is not None:
                    return taken
            elif int(owner) != self.node:
                listening = await self.redis.pubsub_numsub(self.channel(int(owner)))
                if listening and int(listening[0][1]) > 0:
                    return RemoteTable(self, code, int(owner))
            if time.monotonic() > end:
                raise P.ProtocolError("no_table", f"the table {code!r} is moving to another "
                                      "server process; try again in a moment")
            await asyncio.sleep(0.1)

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
                log.warning("table %s: the lease was lost; the table stops here", actor.code)
                actor.lose()
                await actor.stop()
                self.hub.forget_table(actor)

    async def _publish_lobby(self) -> None:
        now: dict[str, str] = {}
        for actor in self.hub.tables.values():
            entry = lobby_entry(actor)
            if entry is not None:
                now[actor.code] = entry.model_dump_json()
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
            node = int(raw)
            if node == self.node or await self.redis.exists(self.key("alive", node)):
                continue
            owned = self.key("owned", node)
            left = False
            for raw_id in await self.redis.smembers(owned):
                table_id = int(raw_id)
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
        """The lobby of the whole cluster."""
        entries = await self.redis.hgetall(self.key("lobby"))
        return [P.LobbyTable.model_validate_json(v) for v in entries.values()]

    # -- frames -------------------------------------------------------------------------

    def publish(self, channel: str, data: str) -> asyncio.Future[int]:
        """Send ``data`` on ``channel`` after everything sent before it; the future says
        how many processes listened."""
        fut: asyncio.Future[int] = asyncio.get_running_loop().create_future()
        self._out.put_nowait((channel, data, fut))
        return fut

    def to_edge(self, node: int, entry: list[Any]) -> None:
        """One frame (or note) for a connection of ``node``: sent with the others of this
        turn of the event loop, in one message."""
        if not self._pending:
            asyncio.get_running_loop().call_soon(self._flush)
        self._pending.setdefault(node, []).append(entry)

    def _flush(self) -> None:
        pending, self._pending = self._pending, {}
        for node, entries in pending.items():
            self._out.put_nowait((self.channel(node), json.dumps({"k": "b", "e": entries}),
                                  None))

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
                log.warning("publishing to Redis failed: %s", exc)
                counts = [exc] * len(batch)
            for (_, _, fut), n in zip(batch, counts, strict=True):
                if fut is not None and not fut.done():
                    if isinstance(n, Exception):
                        fut.set_exception(n)
                    else:
                        fut.set_result(int(n))

    async def _listen(self) -> None:
        while True:
            try:
                async for message in self.pubsub.listen():
                    if message.get("type") != "message":
                        continue
                    try:
                        self._receive(json.loads(message["data"]))
                    except Exception:
                        log.exception("a message from the cluster failed")
            except asyncio.CancelledError:
                raise
            except Exception as exc:
                log.warning("listening to Redis failed (%s); listening again", exc)
                await asyncio.sleep(0.5)

    def _receive(self, body: dict[str, Any]) -> None:
        kind = body.get("k")
        if kind == "b":
            self._at_edge(body["e"])
        elif kind in ("in", "msg", "out"):
            self._at_owner(kind, body)
        elif "t" in body:  # a table moved to node n
            code, node = body["t"], int(body["n"])
            for conn in list(self.edges.values()):
                remote = conn.remote
                if remote is not None and remote.code == code and remote.owner != node:
                    self.drop(conn)

    def _at_edge(self, entries: list[list[Any]]) -> None:
        for conn_id, what, text, seq in entries:
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

    def _at_owner(self, kind: str, body: dict[str, Any]) -> None:
        code = body["t"]
        node, conn_id = int(body["n"]), int(body["c"])
        actor = self.hub.tables.get(code)
        if actor is None:
            if kind != "out":  # not ours (any more): the connection finds the new owner
                self.to_edge(node, [conn_id, "d", code, 0])
            return
        pid = (node << NODE_SHIFT) | conn_id
        peer = self.peers.get(pid)
        if kind == "out":
            if peer is not None:
                actor.detach(peer)
            return
        if peer is None:
            peer = self.peers[pid] = RemotePeer(self, node, conn_id, int(body["p"]),
                                                str(body["nm"]), str(body["l"]))
        if kind == "in":
            actor.attach(peer, body["m"], body["s"], body["r"])
            return
        text = body["x"]
        try:
            actor.message(peer, P.parse_client(text, self.settings.max_depth))
        except P.ProtocolError as exc:
            from .app import echo_ref  # the app imports this module

            peer.send(error_frame(peer.seq, exc.code, exc.message, echo_ref(text), peer.lang))

    def drop(self, conn: Connection) -> None:
        self.edges.pop(conn.id, None)
        self.hub.drop(conn)


async def _fence_of(conn: Any, table_id: int) -> int:
    res = await conn.execute(sa.select(tables.c.fence).where(tables.c.id == table_id))
    return int(res.scalar() or 0)

