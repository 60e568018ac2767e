"""Who owns each table: leases and fencing tokens in Redis, and the heartbeat that keeps
them.

One owner per table, by a lease (``lease:{table}``: the owner's node number,
``lease_ttl`` seconds, renewed every ``heartbeat``). Taking a lease gives a **fencing
token** (``fence:{table}``, one more for every owner); every write of the table's log
carries it and the store refuses it once a newer token has written, so an owner that
lost its lease without knowing can never write over the next one. Each process keeps
``alive:{n}`` while it beats, and ``owned:{n}``: the tables it took, which the others
take over once it stops beating (:meth:`Leases.orphans`).
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Sequence
from typing import Any

import redis.asyncio as aioredis

from .relay import Keys

__all__ = ["Leases", "number"]

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


def number(raw: Any) -> int | None:
    """A number read from a Redis key or set, or None for a value that is not one (Redis
    is not trusted to hold what this program wrote)."""
    if isinstance(raw, bytes | str) and 0 < len(raw) <= 19 and raw.isdigit():
        return int(raw)
    return None


class Leases:
    """The leases of this process (node ``node``, once it has joined)."""

    def __init__(self, redis: aioredis.Redis, keys: Keys, ttl: float) -> None:
        self.redis = redis
        self.keys = keys
        self.ttl_ms = int(ttl * 1000)
        #: This process's number in the cluster (from a counter in Redis: never reused).
        self.node = 0
        self._acquire = redis.register_script(_ACQUIRE)
        self._renew = redis.register_script(_RENEW)
        self._release = redis.register_script(_RELEASE)
        self._raise = redis.register_script(_RAISE)

    async def number_this(self) -> int:
        """This process's new node number (one more than any process had)."""
        self.node = int(await self.redis.incr(self.keys.key("nodes", "next")))
        return self.node

    async def beat(self) -> None:
        """This process is alive for another ``lease_ttl``."""
        await self.redis.set(self.keys.key("alive", self.node), 1, px=self.ttl_ms)
        await self.redis.sadd(self.keys.key("nodes"), self.node)

    async def alive(self, node: int) -> bool:
        return bool(await self.redis.exists(self.keys.key("alive", node)))

    async def leave(self) -> None:
        """This process stops beating at once (the others need not wait for ``alive``)."""
        await self.redis.delete(self.keys.key("alive", self.node))

    async def acquire(self, table_id: int) -> int:
        """The lease of table ``table_id`` and a new fencing token, or 0 if it is held."""
        token = await self._acquire(keys=[self.keys.key("lease", table_id),
                                          self.keys.key("fence", table_id)],
                                    args=[self.node, self.ttl_ms])
        if token:
            await self.redis.sadd(self.keys.key("owned", self.node), table_id)
        return int(token)

    async def release(self, table_id: int) -> None:
        """Let the lease of ``table_id`` go, if it is still ours (the table stays in
        ``owned``: the others take it over once this process has left)."""
        await self._release(keys=[self.keys.key("lease", table_id)], args=[self.node])

    async def let_go(self, table_id: int) -> None:
        """Let ``table_id`` go for good: its lease, and its place in ``owned``."""
        await self.release(table_id)
        await self.redis.srem(self.keys.key("owned", self.node), table_id)

    async def renew(self, table_ids: Sequence[int]) -> list[bool]:
        """Renew the leases of ``table_ids``; whether each was still held."""
        held = await self._renew(keys=[self.keys.key("lease", t) for t in table_ids],
                                 args=[self.node, self.ttl_ms])
        return [bool(ok) for ok in held]

    async def raise_fence(self, table_id: int, newest: int) -> None:
        """The token counter of ``table_id`` to at least ``newest`` (the store's)."""
        await self._raise(keys=[self.keys.key("fence", table_id)], args=[newest])

    async def holder(self, table_id: int) -> tuple[bool, int | None]:
        """Whether ``table_id``'s lease is held, and by which node (None: not a number)."""
        raw = await self.redis.get(self.keys.key("lease", table_id))
        return raw is not None, number(raw)

    async def orphans(self) -> AsyncIterator[int]:
        """The tables of processes that stopped beating and whose leases ran out, one by
        one (each is forgotten from its process's ``owned`` once the caller took it)."""
        nodes = self.keys.key("nodes")
        for raw in await self.redis.smembers(nodes):
            node = number(raw)
            if node is None:
                await self.redis.srem(nodes, raw)
                continue
            if node == self.node or await self.alive(node):
                continue
            owned = self.keys.key("owned", node)
            left = False
            for raw_id in await self.redis.smembers(owned):
                table_id = number(raw_id)
                if table_id is None:
                    await self.redis.srem(owned, raw_id)
                    continue
                if await self.redis.exists(self.keys.key("lease", table_id)):
                    left = True  # its lease has not run out yet (or another took it)
                    continue
                yield table_id
                await self.redis.srem(owned, table_id)
            if not left:
                await self.redis.srem(nodes, node)
