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

from conftest import make_settings
from nimmt.client import Client
from nimmt.server.run import running_server
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
