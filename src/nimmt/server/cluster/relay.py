"""Frames between processes: sealed, batched, published in order, opened as strictly as a
client's frame.

Each process listens on one channel (``node:{n}``) for the commands of the tables it
owns and the frames for its connections, and on ``moved`` for the tables that changed
owner. What an owner sends to the connections of one edge within one turn of the
event loop goes out as one message, in order (:meth:`Relay.to_edge`,
:meth:`Relay.flush`). Redis is not trusted (:mod:`.nodewire`): every message is sealed
with the cluster's key, taken once and only while fresh; what fails is dropped and
counted (:class:`~.nodewire.Drops`).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
from collections.abc import Callable
from typing import Any

import redis.asyncio as aioredis

from ..base.logs import event
from ..base.settings import Settings
from .nodewire import Body, Drops, Moved, NodeRefused, Sealer, parse_body
from .ports import Counts

__all__ = ["Keys", "Relay"]

log = logging.getLogger("nimmt.server")

#: Bytes a message between processes needs besides its entries: its seal and fields.
_OVERHEAD = 256


class Keys:
    """The names of the cluster's Redis keys and channels, under ``redis_prefix``."""

    def __init__(self, prefix: str) -> None:
        self.prefix = prefix

    def key(self, *parts: object) -> str:
        return self.prefix + ":".join(str(p) for p in parts)

    def channel(self, node: int) -> str:
        return self.key("node", node)


class Relay:
    """This process's messages to and from the others, through Redis."""

    def __init__(self, settings: Settings, redis: aioredis.Redis, keys: Keys,
                 counts: Counts) -> None:
        self.redis = redis
        self.keys = keys
        self.counts = counts
        self._out: asyncio.Queue[tuple[str, bytes, asyncio.Future[int] | None]] = \
            asyncio.Queue()
        #: What goes to each edge at the end of this turn of the event loop (each entry as
        #: the JSON it is sent as).
        self._pending: dict[int, list[bytes]] = {}
        #: Bytes of entries one message may carry.
        self.room = settings.cluster_message_max - _OVERHEAD
        #: Seals this process's messages and checks everyone's (made at :meth:`open`, with
        #: the cluster's key).
        self.sealer: Sealer | None = None
        #: Messages from Redis that were not believed.
        self.drops = Drops()
        self.pubsub: Any = None
        self._tasks: list[asyncio.Task[None]] = []

    async def open(self, sealer: Sealer, node: int, receive: Callable[[Body], None]) -> None:
        """Listen on ``node``'s channel and on ``moved``, handing ``receive`` each message
        believed, and start sending."""
        self.sealer = sealer
        self.pubsub = self.redis.pubsub(ignore_subscribe_messages=True)
        await self.pubsub.subscribe(self.keys.channel(node), self.keys.key("moved"))
        self._tasks = [
            asyncio.create_task(self._listen(self.pubsub, receive), name="nimmt-cluster-listen"),
            asyncio.create_task(self._send_loop(), name="nimmt-cluster-send")]

    async def close(self) -> None:
        """Stop listening and sending (what was queued a moment before has gone out)."""
        self.flush()
        await asyncio.sleep(0)
        for task in self._tasks:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
        if self.pubsub is not None:
            with contextlib.suppress(Exception):
                await self.pubsub.aclose()

    async def listening(self, node: int) -> bool:
        """Whether process ``node`` listens on its channel (it is alive)."""
        found = await self.redis.pubsub_numsub(self.keys.channel(node))
        return bool(found) and int(found[0][1]) > 0

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
            asyncio.get_running_loop().call_soon(self.flush)
        self._pending.setdefault(node, []).append(entry)

    def flush(self) -> None:
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
        self._put(self.keys.channel(node), b'{"k":"b","e":[' + b",".join(entries) + b"]}", None)

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

    async def _listen(self, pubsub: Any, receive: Callable[[Body], None]) -> None:
        moved = self.keys.key("moved").encode()
        while True:
            try:
                async for message in pubsub.listen():
                    if message.get("type") != "message":
                        continue
                    try:
                        body = self._open(message["channel"], message["data"], moved)
                        if body is not None:
                            receive(body)
                    except Exception:
                        log.exception("a message from the cluster failed")
            except asyncio.CancelledError:
                raise
            except Exception as exc:
                log.warning("listening to Redis failed (%s); listening again", exc)
                await asyncio.sleep(0.5)

    def _open(self, channel: bytes, data: bytes, moved: bytes) -> Body | None:
        """One message from Redis, opened and read, or None (dropped and counted)."""
        assert self.sealer is not None
        try:
            opened = self.sealer.open(channel, data)
            self.counts.relayed(max(0.0, self.sealer.age))
            body = parse_body(opened)
            if (channel == moved) != isinstance(body, Moved):
                raise NodeRefused(f"a {body.k!r} message on the wrong channel")
        except NodeRefused as exc:
            self.drops.drop(exc.reason)
            return None
        return body
