"""The lobby of the whole cluster: a Redis hash each owner keeps current every heartbeat,
each line sealed by its owner (a line another wrote is dropped when read)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

import redis.asyncio as aioredis

from ... import wire as P
from .nodewire import NodeRefused
from .relay import Keys, Relay

if TYPE_CHECKING:
    from ..tables.table import TableActor

__all__ = ["LobbyLines", "lobby_entry"]


def lobby_entry(actor: TableActor) -> P.LobbyTable | None:
    """``actor``'s line in the lobby, or None for a table the lobby leaves out."""
    if actor.private or actor.status not in ("open", "playing"):
        return None
    info = actor.info()
    return P.LobbyTable(
        code=actor.code, name=actor.name, host=info.host, rules_name=actor.rules.name,
        seats=len(actor.seats), taken=sum(1 for s in actor.seats if s is not None),
        status=actor.status, rated=info.rated, turn_timer=info.turn_timer,
        # A bot by its kind, which each client names in its reader's language.
        players=[P.LobbySeat(kind=s.kind, name=s.name if s.kind == "human" else None,
                             bot=s.bot if s.kind == "bot" else None) for s in info.seats],
    )


class LobbyLines:
    """The lines of the tables owned here, as last published, and the whole lobby."""

    def __init__(self, redis: aioredis.Redis, keys: Keys, relay: Relay) -> None:
        self.redis = redis
        self.keys = keys
        self.relay = relay
        self._lines: dict[str, str] = {}

    async def publish(self, actors: Iterable[TableActor]) -> None:
        """The lines of ``actors`` (the tables owned here) as they are now."""
        sealer = self.relay.sealer
        assert sealer is not None
        now: dict[str, str] = {}
        for actor in actors:
            entry = lobby_entry(actor)
            if entry is not None:
                now[actor.code] = sealer.sign(actor.code, entry.model_dump_json())
        changed = {k: v for k, v in now.items() if self._lines.get(k) != v}
        gone = [k for k in self._lines if k not in now]
        key = self.keys.key("lobby")
        if changed:
            await self.redis.hset(key, mapping=changed)  # type: ignore[arg-type]
        if gone:
            await self.redis.hdel(key, *gone)
        self._lines = now

    async def remove(self, code: str) -> None:
        """Table ``code`` left this process: its line goes."""
        self._lines.pop(code, None)
        await self.redis.hdel(self.keys.key("lobby"), code)

    async def read(self) -> list[P.LobbyTable]:
        """The lobby of the whole cluster: the lines its owners signed (others are
        dropped)."""
        sealer = self.relay.sealer
        assert sealer is not None
        out: list[P.LobbyTable] = []
        for code, raw in (await self.redis.hgetall(self.keys.key("lobby"))).items():
            try:
                name = code.decode() if isinstance(code, bytes) else code
                value = raw if isinstance(raw, bytes) else raw.encode()
                line = P.LobbyTable.model_validate_json(sealer.unsign(name, value))
            except NodeRefused as exc:
                self.relay.drops.drop(f"lobby line: {exc.reason}")
            except (UnicodeDecodeError, ValueError):
                self.relay.drops.drop("lobby line: malformed")
            else:
                if line.code == name:
                    out.append(line)
        return out
