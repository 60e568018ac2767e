"""The store's named reads and writes of tables, their logs, games and players.

:class:`Store` is the one object the server holds of its database: the
:class:`~.db.Database` (its connections and its one writer) with the statements the
tables, the cluster and the JSON API ask for by name. The players' accounts, the room
around the tables and the operator's actions are operations of their own modules
(:mod:`.accounts`, :mod:`.social`, :mod:`.operator`), run through
:meth:`~.db.Database.run` and :meth:`~.db.Database.read`.

What a table's change writes (:meth:`Store.write_step`): its log entries, its status and
the games it ends, with the ratings they change, in one transaction. A change that only
adds entries (nearly every one) goes through the group commit, which shares one
transaction among every table writing at that moment; one that changes the table's status
or ends a game writes everything it changes in one transaction of its own.
"""

from __future__ import annotations

import json
import secrets
import time
from collections.abc import Collection, Sequence
from typing import Any, Protocol

import sqlalchemy as sa
from sqlalchemy.dialects.postgresql import insert as pg_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlalchemy.ext.asyncio import AsyncConnection

from .db import Database, LogEntry, fence
from .ratings import rate, rated_seats
from .schema import game_players, games, meta, players, sessions, table_log, tables
from .tokens import hash_token

__all__ = ["FinishedGame", "Store"]

#: The key of the cluster's signing key in ``meta``.
CLUSTER_SECRET = "cluster_secret"


class FinishedGame(Protocol):
    """A game to keep in ``games`` (finished, or cut short by its table closing): its
    record and, by seat, the player (None for a bot), the name, the total and the win."""

    @property
    def game_no(self) -> int: ...
    @property
    def finished(self) -> bool: ...
    @property
    def rated(self) -> bool: ...
    @property
    def record(self) -> str: ...
    @property
    def players(self) -> Sequence[int | None]: ...
    @property
    def names(self) -> Sequence[str]: ...
    @property
    def totals(self) -> Sequence[int]: ...
    @property
    def winners(self) -> Collection[int]: ...


class Store(Database):
    """The database of one server process, with its named reads and writes."""

    # -- a table's writes --------------------------------------------------------------

    async def write_step(self, table_id: int, rows: list[LogEntry], status: str | None,
                         results: Sequence[FinishedGame], token: int | None) -> None:
        """Store what one change of table ``table_id`` logged (``rows``), its new
        ``status`` if it changed, and the games it ended; returns once it is committed.
        With a fencing ``token`` (many processes) it is refused, as a whole, when the table
        has seen a newer owner (:class:`~.errors.StaleOwner`)."""
        if status is None and not results:
            await self.append_all(rows, token)
            return

        async def op(conn: AsyncConnection) -> None:
            if token is not None:
                await fence(conn, table_id, token)
            await conn.execute(table_log.insert(), [
                {"table_id": e.table_id, "n": e.n, "kind": e.kind, "data": json.dumps(e.data)}
                for e in rows])
            if status is not None:
                await conn.execute(tables.update().where(tables.c.id == table_id)
                                   .values(status=status))
            for result in results:
                await _save_game(conn, table_id, result)

        await self.run(op)

    async def fence(self, table_id: int, token: int) -> None:
        """Take table ``table_id`` over with fencing ``token`` (a transaction of the writer
        of its own), or raise :class:`~.errors.StaleOwner`: a newer owner has written."""
        await self.run(lambda c: fence(c, table_id, token))

    # -- reads --------------------------------------------------------------------------

    async def player_by_token(self, token: str) -> sa.Row[Any] | None:
        """The player whose session ``token`` is, with the session's ``session_id``."""

        async def q(conn: AsyncConnection) -> sa.Row[Any] | None:
            res = await conn.execute(
                sa.select(players, sessions.c.id.label("session_id"))
                .join(sessions, sessions.c.player_id == players.c.id)
                .where(sessions.c.token_hash == hash_token(token))
            )
            return res.first()

        row: sa.Row[Any] | None = await self.read(q)
        return row

    async def player_by_skeleton(self, skeleton: str) -> sa.Row[Any] | None:
        """The player whose name looks like a name of this skeleton (``text.name_key``)."""

        async def q(conn: AsyncConnection) -> sa.Row[Any] | None:
            res = await conn.execute(sa.select(players).where(players.c.skeleton == skeleton))
            return res.first()

        row: sa.Row[Any] | None = await self.read(q)
        return row

    async def player_by_name(self, name: str) -> sa.Row[Any] | None:
        async def q(conn: AsyncConnection) -> sa.Row[Any] | None:
            res = await conn.execute(sa.select(players).where(players.c.name == name))
            return res.first()

        row: sa.Row[Any] | None = await self.read(q)
        return row

    async def live_tables(self) -> list[tuple[sa.Row[Any], list[LogEntry]]]:
        """Every table not closed, with its whole log, for resuming after a restart."""

        async def q(conn: AsyncConnection) -> list[tuple[sa.Row[Any], list[LogEntry]]]:
            res = await conn.execute(
                sa.select(tables).where(tables.c.status != "closed").order_by(tables.c.id)
            )
            return [(row, await _entries(conn, int(row.id))) for row in list(res)]

        result: list[tuple[sa.Row[Any], list[LogEntry]]] = await self.read(q)
        return result

    async def table_by_code(self, code: str) -> sa.Row[Any] | None:
        """The table with ``code``, if it is not closed."""

        async def q(conn: AsyncConnection) -> sa.Row[Any] | None:
            res = await conn.execute(sa.select(tables).where(tables.c.code == code,
                                                             tables.c.status != "closed"))
            return res.first()

        row: sa.Row[Any] | None = await self.read(q)
        return row

    async def table_with_log(self, table_id: int) -> tuple[sa.Row[Any] | None, list[LogEntry]]:
        """Table ``table_id`` and its whole log, read together (to take it over)."""

        async def q(conn: AsyncConnection) -> tuple[sa.Row[Any] | None, list[LogEntry]]:
            row = (await conn.execute(sa.select(tables).where(tables.c.id == table_id))).first()
            return row, ([] if row is None else await _entries(conn, table_id))

        result: tuple[sa.Row[Any] | None, list[LogEntry]] = await self.read(q)
        return result

    async def cluster_secret(self) -> str:
        """The key the processes of a cluster sign their messages with: made (32 random
        bytes, hex) by the first process that asks and kept in ``meta``, so every process
        of the cluster reads the same one from the database they all trust. Processes
        asking at once all get the first one stored."""
        insert = (sqlite_insert if self.is_sqlite else pg_insert)(meta)

        async def op(c: AsyncConnection) -> str:
            await c.execute(insert.values(key=CLUSTER_SECRET, value=secrets.token_hex(32))
                            .on_conflict_do_nothing(index_elements=["key"]))
            res = await c.execute(sa.select(meta.c.value).where(meta.c.key == CLUSTER_SECRET))
            return str(res.scalar_one())

        secret: str = await self.run(op)
        return secret

    async def table_entries(self, table_id: int) -> list[LogEntry]:
        """One table's whole log, in order."""

        async def q(conn: AsyncConnection) -> list[LogEntry]:
            return await _entries(conn, table_id)

        result: list[LogEntry] = await self.read(q)
        return result

    async def log_rows(self, table_id: int, first: int, last: int) -> list[tuple[int, str, str]]:
        """Entries ``first`` to ``last`` of a table's log, in order, as stored: ``(n, kind,
        data as JSON text)``, left for the caller to parse (off the event loop: a page of
        old stream items is rebuilt from them in a read thread)."""

        async def q(conn: AsyncConnection) -> list[tuple[int, str, str]]:
            res = await conn.execute(
                sa.select(table_log.c.n, table_log.c.kind, table_log.c.data)
                .where(table_log.c.table_id == table_id, table_log.c.n >= first,
                       table_log.c.n <= last)
                .order_by(table_log.c.n))
            return [(int(r.n), str(r.kind), str(r.data)) for r in res]

        result: list[tuple[int, str, str]] = await self.read(q)
        return result

    async def live_table_ids(self) -> list[int]:
        """The ids of every table not closed (a cluster's first process takes each over)."""

        async def q(conn: AsyncConnection) -> list[int]:
            res = await conn.execute(sa.select(tables.c.id).where(tables.c.status != "closed"))
            return [int(r[0]) for r in res]

        result: list[int] = await self.read(q)
        return result

    async def fence_of(self, table_id: int) -> int:
        """The newest fencing token that wrote table ``table_id``'s log (0: none)."""

        async def q(conn: AsyncConnection) -> int:
            res = await conn.execute(sa.select(tables.c.fence).where(tables.c.id == table_id))
            return int(res.scalar() or 0)

        result: int = await self.read(q)
        return result

    async def create_table(self, *, code: str, name: str, host_id: int, rules: str,
                           preset: str | None, settings: str) -> int:
        """A new open table (``rules`` and ``settings`` as JSON text): its id, once stored."""

        async def op(c: AsyncConnection) -> int:
            res = await c.execute(
                tables.insert().values(code=code, name=name, host_id=host_id, rules=rules,
                                       preset=preset, settings=settings, status="open",
                                       created=time.time()))
            return int(res.inserted_primary_key[0])  # type: ignore[index]

        table_id: int = await self.run(op)
        return table_id

    async def close_table(self, table_id: int) -> None:
        """Mark table ``table_id`` closed."""

        async def op(c: AsyncConnection) -> None:
            await c.execute(tables.update().where(tables.c.id == table_id)
                            .values(status="closed"))

        await self.run(op)

    # -- the JSON API's reads of finished games and players ------------------------

    async def table_games(self, code: str) -> list[dict[str, Any]] | None:
        """The stored games (id, number, finished) of the newest table with ``code``, by
        number, or None if no table ever had that code."""

        async def q(c: AsyncConnection) -> list[dict[str, Any]] | None:
            table_id = (await c.execute(sa.select(sa.func.max(tables.c.id)).where(
                tables.c.code == code))).scalar()
            if table_id is None:
                return None
            rows = await c.execute(sa.select(games.c.id, games.c.game_no, games.c.finished)
                                   .where(games.c.table_id == table_id)
                                   .order_by(games.c.game_no).limit(1000))
            return [{"id": r.id, "game_no": r.game_no, "finished": r.finished} for r in rows]

        result: list[dict[str, Any]] | None = await self.read(q)
        return result

    async def game(self, game_id: int) -> dict[str, Any] | None:
        """Stored game ``game_id`` with its table's code and its players by seat; its
        ``record`` the JSON text as stored (left for the caller to parse)."""

        async def q(c: AsyncConnection) -> dict[str, Any] | None:
            row = (await c.execute(sa.select(games).where(games.c.id == game_id))).first()
            if row is None:
                return None
            code = (await c.execute(sa.select(tables.c.code).where(
                tables.c.id == row.table_id))).scalar()
            seats = await c.execute(sa.select(game_players).where(
                game_players.c.game_id == game_id).order_by(game_players.c.seat))
            return {
                "id": row.id, "table": code, "game_no": row.game_no, "rated": row.rated,
                "finished": row.finished, "ended": row.ended,
                "players": [{"seat": s.seat, "name": s.name, "total": s.total,
                             "winner": s.winner, "human": s.player_id is not None,
                             "mu_after": s.mu_after} for s in seats],
                "record": str(row.record),
            }

        result: dict[str, Any] | None = await self.read(q)
        return result

    async def finished_record(self, game_id: int) -> tuple[bool, str] | None:
        """Whether game ``game_id`` was finished, and its record (JSON text); None if there
        is no such game."""

        async def q(c: AsyncConnection) -> tuple[bool, str] | None:
            row = (await c.execute(sa.select(games.c.finished, games.c.record)
                                   .where(games.c.id == game_id))).first()
            return None if row is None else (bool(row.finished), str(row.record))

        result: tuple[bool, str] | None = await self.read(q)
        return result

    async def player_games(self, name: str) -> dict[str, Any] | None:
        """Player ``name``'s rating and newest 200 games, or None for no such player."""

        async def q(c: AsyncConnection) -> dict[str, Any] | None:
            row = (await c.execute(sa.select(players).where(players.c.name == name))).first()
            if row is None:
                return None
            res = await c.execute(
                sa.select(game_players, games.c.rated, games.c.finished, games.c.ended)
                .join(games, games.c.id == game_players.c.game_id)
                .where(game_players.c.player_id == row.id)
                .order_by(games.c.id.desc()).limit(200)
            )
            return {
                "name": row.name,
                "rating": {"mu": row.mu, "sigma": row.sigma,
                           "ordinal": row.mu - 3 * row.sigma},
                "rated_games": row.rated_games,
                "games": [{"id": g.game_id, "seat": g.seat, "total": g.total,
                           "winner": g.winner, "rated": g.rated, "finished": g.finished,
                           "ended": g.ended} for g in res],
            }

        result: dict[str, Any] | None = await self.read(q)
        return result


async def _entries(conn: AsyncConnection, table_id: int) -> list[LogEntry]:
    res = await conn.execute(
        sa.select(table_log).where(table_log.c.table_id == table_id).order_by(table_log.c.n)
    )
    return [LogEntry(table_id, r.n, r.kind, json.loads(r.data)) for r in res]


async def _save_game(conn: AsyncConnection, table_id: int, result: FinishedGame) -> None:
    """The game's record and seats; for a rated game, its people's new ratings."""
    res = await conn.execute(games.insert().values(
        table_id=table_id, game_no=result.game_no, rated=result.rated,
        finished=result.finished, record=result.record, ended=time.time()))
    game_id = res.inserted_primary_key[0]  # type: ignore[index]
    mu_after: dict[int, float] = {}
    people = rated_seats(result.players) if result.rated else []
    if people:
        ids = [pid for _, pid in people]
        now = {r.id: r for r in await conn.execute(
            sa.select(players).where(players.c.id.in_(ids)))}
        after = rate([(now[pid].mu, now[pid].sigma) for pid in ids],
                     [result.totals[seat] for seat, _ in people])
        for (seat, pid), (mu, sigma) in zip(people, after, strict=True):
            mu_after[seat] = mu
            await conn.execute(players.update().where(players.c.id == pid).values(
                mu=mu, sigma=sigma, rated_games=players.c.rated_games + 1))
    await conn.execute(game_players.insert(), [
        {"game_id": game_id, "seat": seat, "player_id": pid, "name": result.names[seat],
         "total": result.totals[seat], "winner": seat in result.winners,
         "mu_after": mu_after.get(seat)}
        for seat, pid in enumerate(result.players)])
