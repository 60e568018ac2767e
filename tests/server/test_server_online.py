"""Who is online: the list pushed to the lobby's listeners that ask for it, bounded,
coalesced, and keeping a block's two players out of each other's lists; and the lobby's
tables with their seats. On a real server over loopback, on SQLite and PostgreSQL."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
from server_helpers import close_all
from test_server_admin import connect
from test_server_crowd import one_player

from conftest import make_settings
from nimmt.client import Client
from nimmt.server.run import running_server
from nimmt.server.store import social
from nimmt.wire import Online

pytestmark = [pytest.mark.asyncio, pytest.mark.timeout(300)]


def pushes(client: Client) -> list[Online]:
    """The lists ``client`` was sent so far (taken out of its inbox)."""
    got = [m for m in client.inbox if isinstance(m, Online)]
    client.inbox[:] = [m for m in client.inbox if not isinstance(m, Online)]
    return got


async def listed(client: Client, want: Any, timeout: float = 30) -> Online:
    """The first list ``client`` is sent (from now or already in its inbox) that ``want``
    takes."""
    for m in pushes(client):
        if want(m):
            return m
    loop = asyncio.get_running_loop()
    end = loop.time() + timeout
    while True:
        m = await client.expect(lambda m: isinstance(m, Online), max(0.01, end - loop.time()))
        assert isinstance(m, Online)
        if want(m):
            return m


async def until_right(client: Client, want: Any, timeout: float = 60) -> list[Online]:
    """Every list ``client`` is sent until the newest is one ``want`` takes."""
    loop = asyncio.get_running_loop()
    end = loop.time() + timeout
    got = pushes(client)
    while not (got and want(got[-1])):
        m = await client.expect(lambda m: isinstance(m, Online), max(0.01, end - loop.time()))
        assert isinstance(m, Online)
        got.append(m)
    return got


async def quiet(client: Client, seconds: float) -> list[Online]:
    """The lists ``client`` is sent in the next ``seconds`` (other messages kept)."""
    loop = asyncio.get_running_loop()
    end = loop.time() + seconds
    got = pushes(client)
    while (left := end - loop.time()) > 0:
        try:
            m = await client.expect(lambda m: isinstance(m, Online), left)
        except TimeoutError:
            break
        assert isinstance(m, Online)
        got.append(m)
    return got


async def test_who_is_online_is_pushed_bounded_and_coalesced(db_url: str,
                                                             tmp_path: Path) -> None:
    settings = make_settings(db_url, tmp_path, online_max=3, online_interval=0.5)
    async with running_server(settings) as url:
        ana = await connect(url, name="Ana")
        await ana.act("listen_lobby", online=True)
        first = await listed(ana, lambda m: True)
        assert (first.players, first.total) == (["Ana"], 1)
        # A listener of the lobby chat alone is sent no list.
        bob = await connect(url, "127.0.0.2", name="bob")
        await bob.act("listen_lobby")

        # Six come at once: a few pushes, not one per arrival; the list holds the first
        # three names (alphabetically, case aside) and says how many are online.
        crowd = [await connect(url, f"127.0.1.{i}", name=f"Guest{i}") for i in range(6)]
        full = await listed(ana, lambda m: m.total == 8)
        assert full.players == ["Ana", "bob", "Guest0"]
        seen = await quiet(ana, 1.2)
        assert all(m.total == 8 for m in seen), seen
        assert not any(isinstance(m, Online) for m in bob.inbox)

        # Nothing changes: nothing is sent (no polling).
        assert await quiet(ana, 1.2) == []

        # Going is told too.
        await close_all(crowd[:5])
        gone = await listed(ana, lambda m: m.total == 3)
        assert gone.players == ["Ana", "bob", "Guest5"]

        # A block keeps the two out of each other's lists (both ways), and lifted, back.
        await bob.act("listen_lobby", online=True)
        await listed(bob, lambda m: m.total == 3)
        await ana.block("bob")
        assert (await listed(ana, lambda m: m.total == 2)).players == ["Ana", "Guest5"]
        assert (await listed(bob, lambda m: m.total == 2)).players == ["bob", "Guest5"]
        await ana.block("Bob", on=False)
        await listed(ana, lambda m: m.total == 3)
        # Someone who stops listening is sent nothing more.
        await bob.act("listen_lobby", on=False)
        pushes(bob)
        await crowd[5].close()
        await listed(ana, lambda m: m.total == 2)
        assert await quiet(bob, 1.0) == []
        await close_all([ana, bob])


async def test_the_lobby_lists_each_tables_seats(db_url: str, tmp_path: Path) -> None:
    async with running_server(make_settings(db_url, tmp_path)) as url:
        ana = await connect(url, name="Ana")
        code = (await ana.create_table(rules={"players": 3}, turn_timer=30,
                                       name="Evening")).table.code
        await ana.add_bot("easy")
        bob = await connect(url, "127.0.0.2", name="Bob")
        [table] = [t for t in (await bob.lobby()).tables if t.code == code]
        assert (table.name, table.host, table.taken, table.seats) == ("Evening", "Ana", 2, 3)
        assert table.turn_timer == 30 and table.rated is False
        assert [(s.kind, s.name, s.bot) for s in table.players] == [
            ("human", "Ana", None), ("bot", None, "easy"), ("empty", None, None)]
        await close_all([ana, bob])


async def test_who_is_online_holds_under_a_crowd(db_url: str, tmp_path: Path,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    """Thirty players from thirty addresses and ten connections of one player come and ask
    for the list at once, then the ten ask again and again: every connection gets a list
    that ends right (the player of ten connections counted once), a crowd's arrivals are
    coalesced into a few pushes, listening again costs the others nothing, and the store
    is read for blocks a few times, not once per listener."""
    reads = 0
    real = social.blocks_among

    def counted(ids: set[int]) -> Any:
        nonlocal reads
        reads += 1
        return real(ids)

    monkeypatch.setattr(social, "blocks_among", counted)
    interval = 0.5
    settings = make_settings(db_url, tmp_path, online_max=5, online_interval=interval)
    async with running_server(settings) as url:
        loop = asyncio.get_running_loop()
        began = loop.time()
        crowd, mine = await asyncio.gather(
            asyncio.gather(*(connect(url, f"127.0.2.{i}", name=f"Crowd{i:02}")
                             for i in range(30))),
            one_player(url, "Many", 10, "127.0.3.1"))
        everyone = [*crowd, *mine]
        await asyncio.gather(*(c.act("listen_lobby", online=True) for c in everyone))
        sent = await asyncio.gather(*(until_right(c, lambda m: m.total == 31)
                                      for c in everyone))
        assert all(got[-1].players == ["Crowd00", "Crowd01", "Crowd02", "Crowd03", "Crowd04"]
                   for got in sent), sent
        settled = await asyncio.gather(*(quiet(c, 2 * interval + 0.5) for c in everyone))
        elapsed = loop.time() - began
        # Nothing wrong after the right list; a bounded number of lists in all.
        assert all(m.total == 31 for got in settled for m in got), settled
        bound = elapsed / interval + 3
        counts = [len(a) + len(b) for a, b in zip(sent, settled, strict=True)]
        assert max(counts) <= bound, (counts, bound)
        assert reads <= bound, (reads, bound)

        # The ten connections listen again and again: each is sent its list, the others
        # nothing (nobody came or went), and the reads stay bounded by the interval.
        reads = 0
        began = loop.time()
        for _ in range(5):
            await asyncio.gather(*(c.act("listen_lobby", on=False) for c in mine))
            await asyncio.gather(*(c.act("listen_lobby", online=True) for c in mine))
        for c in mine:
            await listed(c, lambda m: m.total == 31)
        heard = await asyncio.gather(*(quiet(c, 2 * interval) for c in crowd))
        assert not any(heard), heard
        assert reads <= (loop.time() - began) / interval + 2, reads
        await close_all(everyone)
