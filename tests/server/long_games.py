"""Long games made in seconds: a table's log and a game's record written straight into a store.

Playing a 100-round, ten-seat game through a server takes minutes of bots' time; the
log of one is made here by applying its entries to a table as its reducer does
(:func:`nimmt.server.tables.apply.apply`, which also gives each entry the deals it made),
with seeded random decisions, and written into the store the server opens. The server
then resumes the table from that log at its start, as after a restart, so what it
serves is what a long game played through it would be. Used by the tests of catch-up
and heavy reads and by ``bench/attack_catchup.py``.
"""

from __future__ import annotations

import json
import random
import time
from dataclasses import dataclass
from typing import Any

from nimmt import record as records
from nimmt.decisions import make_decision
from nimmt.rules import Rules
from nimmt.server.base.text import name_key
from nimmt.server.store import Store, hash_token
from nimmt.server.store.ratings import INITIAL
from nimmt.server.store.schema import games, players, sessions, table_log, tables
from nimmt.server.tables.apply import apply
from nimmt.server.tables.state import TableData
from nimmt.server.tables.tablelog import (
    AutoPlay,
    BotSeat,
    BotSeated,
    Chatted,
    Dealt,
    Decided,
    Entry,
    Sat,
    Started,
    entry_to_row,
)
from nimmt.views import Phase

__all__ = ["LongTable", "long_record", "store_game", "store_table"]


@dataclass(frozen=True)
class LongTable:
    """A long game's table as stored: its code, the host's name and token, its log rows
    ``(n, kind, data)`` and the table as its log leaves it (the truth to compare with)."""

    code: str
    host: str
    token: str
    rows: list[tuple[int, str, str]]
    table: TableData


def _play(rules: Rules, seed: int, *, host_id: int = 1, table_id: int = 1,
          stop_round: int | None, chat_every: int) -> tuple[TableData, list[Entry]]:
    """Seat the host and bots, start, let the host leave (the default player keeps the
    seat), and play at random until the game ends or reaches ``stop_round``'s fifth turn."""
    t = TableData(table_id, "LONG01", "A long game", host_id, rules, None, False, False)
    rng = random.Random(seed)
    stored: list[Entry] = []

    def log(entry: Entry, shuffle: random.Random | None = None) -> None:
        stored.append(apply(t.logged, rules, entry, shuffle))
        t.logged.n += 1

    log(Sat(0, host_id, "Ana"))
    for seat in range(1, rules.players):
        log(BotSeated(seat, BotSeat("random", seat)))
    log(Started(1), random.Random(seed))
    log(AutoPlay(0, True, "left"))
    game = t.logged.game
    assert game is not None
    decisions = 0
    while not game.is_over:
        if stop_round is not None and game.round >= stop_round and game.turn >= 5:
            break
        pend = game.pending
        assert pend is not None
        p = pend.players[0]
        log(Decided(make_decision(pend.kind, p, rng.choice(game.legal(p))), "bot"))
        if game.phase is Phase.DEAL:
            log(Dealt())  # nobody at the table: the next round at once
        decisions += 1
        if chat_every and decisions % chat_every == 0:
            log(Chatted(None, "Watcher", f"still here after {decisions} moves"))
    return t, stored


async def store_table(db_url: str, seats: int = 10, rounds: int = 100, seed: int = 1,
                      chat_every: int = 500) -> LongTable:
    """A table whose game (``end: rounds``) has run to the middle of its last round, a
    spectator chatting now and then, its host gone (so its bots wait for a person),
    written into the store at ``db_url`` (made if new): a server opening the store
    resumes it."""
    rules = Rules.from_dict({"preset": "classic", "players": seats, "end": "rounds",
                             "rounds": rounds})
    store = Store(db_url)
    await store.open()
    host, token = "Ana", f"long-token-{seed}"

    async def new_player(c: Any) -> int:
        now = time.time()
        res = await c.execute(players.insert().values(
            name=host, skeleton=name_key(host), mu=INITIAL[0], sigma=INITIAL[1],
            rated_games=0, created=now, last_seen=now))
        pid = int(res.inserted_primary_key[0])
        await c.execute(sessions.insert().values(
            player_id=pid, token_hash=hash_token(token), created=now, last_seen=now))
        return pid

    host_id: int = await store.run(new_player)

    async def new_table(c: Any) -> int:
        res = await c.execute(tables.insert().values(
            code="LONG01", name="A long game", host_id=host_id,
            rules=json.dumps(rules.to_dict()),
            settings=json.dumps({"turn_timer": None, "rated": False, "private": False}),
            status="playing", created=time.time()))
        return int(res.inserted_primary_key[0])

    table_id: int = await store.run(new_table)
    t, entries = _play(rules, seed, host_id=host_id, table_id=table_id, stop_round=rounds,
                       chat_every=chat_every)
    rows = []
    for n, entry in enumerate(entries, 1):
        kind, data = entry_to_row(entry)
        rows.append((n, kind, json.dumps(data)))

    async def write_log(c: Any) -> None:
        await c.execute(table_log.insert(), [
            {"table_id": table_id, "n": n, "kind": kind, "data": data}
            for n, kind, data in rows])

    await store.run(write_log)
    await store.close()
    return LongTable(t.code, host, token, rows, t)


def long_record(seats: int = 10, limit: int = 10_000, seed: int = 2) -> str:
    """The record (JSON) of a whole game at a point limit no server table may ask for (ten
    seats at 10,000 points play some 600 rounds): the longest game a store may hold from
    before that limit."""
    rules = Rules.from_dict({"preset": "classic", "players": seats, "limit": limit})
    t, _ = _play(rules, seed, stop_round=None, chat_every=0)
    assert t.logged.game is not None
    names = [s.name if s is not None else "?" for s in t.logged.seats]
    return records.to_json(records.record_from_game(t.logged.game, names))


async def store_game(db_url: str, record: str) -> int:
    """Write a finished game with ``record`` into the store (made if new); its id."""
    store = Store(db_url)
    await store.open()

    async def op(c: Any) -> int:
        res = await c.execute(games.insert().values(
            table_id=1, game_no=1, rated=False, finished=True, record=record,
            ended=time.time()))
        return int(res.inserted_primary_key[0])

    game_id: int = await store.run(op)
    await store.close()
    return game_id
