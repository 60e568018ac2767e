"""What a table's :class:`~.commands.Persist` effect writes: its log entries, its status,
and the games it ends, with the ratings they change, in one transaction (the store
layer's part for tables, :mod:`.store`).

The table's actor awaits :func:`persist` before it answers or broadcasts
anything of the change, so nobody hears of what the store does not have. A
command that only adds entries (nearly every one) goes through the store's
group commit (:meth:`~.store.Store.append_all`), which shares one transaction
among every table writing at that moment; one that changes the table's status
or ends a game writes everything it changes in one transaction of its own.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Coroutine
from typing import Any

import sqlalchemy as sa
from sqlalchemy.ext.asyncio import AsyncConnection

from ..wire import TableStatus
from .commands import GameResult, Persist
from .store.db import LogEntry, Store, fence, game_players, games, players, table_log, tables
from .store.ratings import rate, rated_seats
from .tablelog import entry_to_row

__all__ = ["persist"]

Op = Callable[[AsyncConnection], Coroutine[Any, Any, None]]


async def persist(store: Store, table_id: int, effect: Persist,
                  token: int | None = None) -> None:
    """Write ``effect`` for table ``table_id``; returns once it is committed. With a
    fencing ``token`` (many processes) it is refused, as a whole, when the table has seen
    a newer owner (:class:`~.store.StaleOwner`)."""
    rows = [LogEntry(table_id, effect.first_n + i, *entry_to_row(entry))
            for i, entry in enumerate(effect.entries)]
    if effect.status is None and not effect.results:
        await store.append_all(rows, token)
    else:
        await store.run(_transaction(rows, table_id, effect.status, effect.results, token))


def _transaction(rows: list[LogEntry], table_id: int, status: TableStatus | None,
                 results: tuple[GameResult, ...], token: int | None) -> Op:
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

    return op


async def _save_game(conn: AsyncConnection, table_id: int, result: GameResult) -> None:
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
