"""Catching up on a long game, and heavy reads, are bounded (docs/security.md, "Long games").

A long game's table is written straight into the store (:mod:`long_games`) and the
server resumes it, as after a restart. Then: a spectator joining late and the host
rejoining from ``last_seq`` 0 each get one small frame (the state, the newest items,
``older`` saying what was left out), and page back with ``history`` to the game's
start (the spectator) and to the table's first item (the player), every page bounded,
every item exactly as the table made it; another player's pings stay answered while
ten catch-ups run; a replay of a long game is built off the event loop, and an address
asking for too many gets 429.
"""

from __future__ import annotations

import asyncio
import json
import os
import statistics
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

import pytest
from long_games import LongTable, long_record, store_game, store_table
from server_helpers import LIFTED_LIMITS, start_server
from websockets.asyncio.client import connect

from conftest import make_settings
from nimmt.client import Client, ws_url
from nimmt.server.base.settings import Settings
from nimmt.server.run import running_hub
from nimmt.server.tables.fanout import seen
from nimmt.wire import Events, History, TableState, dump

pytestmark = [pytest.mark.asyncio, pytest.mark.timeout(600)]

#: Catch-ups each of the ten late spectators asks for, one after the other.
ROUNDS = 20


def truth(long: LongTable, viewer: int | None, after: int) -> dict[int, dict[str, Any]]:
    """Every item after ``after`` as ``viewer`` may see it, from the table the log made."""
    t = long.table
    models, _ = seen([it for it in t.logged.items if it.seq > after], viewer, {}, "en")
    return {m.seq: plain(json.loads(dump(m))) for m in models}


def plain(item: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in item.items() if v is not None}


async def page_back(client: Client, older: Any, settings: Settings) -> tuple[dict[int, Any], int]:
    """Every item ``older`` says was left out, page by page; each page checked for its
    bounds. The items by seq, and the number of pages."""
    got: dict[int, Any] = {}
    pages = 0
    after = older.after
    while older is not None:
        page = await client.history(older.before, after)
        assert isinstance(page, History)
        assert client.frames is not None
        raw = client.frames[-1]
        assert json.loads(raw)["type"] == "history"
        assert len(raw.encode()) <= settings.history_bytes
        lo = page.older.before if page.older is not None else after + 1
        assert older.before - lo <= settings.history_items
        assert all(lo <= it.seq < older.before for it in page.items)
        if any(it.kind == "event" for it in page.items):
            assert any(line.kind == "event" and line.text for line in page.lines)
        for it in page.items:
            got[it.seq] = plain(json.loads(it.model_dump_json()))
        older = page.older
        pages += 1
    return got, pages


async def test_a_late_spectator_and_a_rejoining_player_get_a_bounded_catch_up(
    db_url: str, tmp_path: Path
) -> None:
    long = await store_table(db_url, rounds=100)
    settings = make_settings(db_url, tmp_path)
    assert len(long.table.logged.items) > 25_000
    async with running_hub(settings) as (url, hub):
        # A spectator who comes late asks for the game from its start.
        late = await Client.connect(url, name="Late", record=True)
        state = await late.request({"type": "spectate", "table": long.code, "last_seq": 0},
                                   want="table_state")
        assert isinstance(state, TableState) and state.view is not None
        catch = await late.expect(lambda m: isinstance(m, Events))
        assert isinstance(catch, Events) and late.frames is not None
        size = len(late.frames[-1].encode())
        print(f"\ncatch-up of {long.table.logged.seq} items: {len(catch.items)} items, "
              f"{size} bytes")
        assert size <= settings.catchup_bytes
        assert 0 < len(catch.items) <= settings.catchup_items
        assert catch.items[-1].seq == long.table.logged.seq
        assert catch.text and catch.view is not None and catch.sheet is not None
        older = catch.older
        game_start = long.table.logged.game_seq - 1
        assert older is not None and older.after == game_start
        assert older.before == catch.items[0].seq
        got, pages = await page_back(late, older, settings)
        got.update({it.seq: plain(json.loads(it.model_dump_json())) for it in catch.items})
        assert got == truth(long, None, game_start)
        print(f"spectator paged back {pages} pages to the game's start")

        # The host comes back from nothing (last_seq 0) and pages back to the first item.
        back = await Client.connect(url, token=long.token, table=long.code, last_seq=0,
                                    record=True)
        catch = await back.expect(lambda m: isinstance(m, Events))
        assert isinstance(catch, Events) and back.state is not None and back.state.you == 0
        assert back.frames is not None and len(back.frames[-1].encode()) <= settings.catchup_bytes
        assert catch.older is not None
        got, pages = await page_back(back, type(catch.older)(after=0, before=catch.older.before),
                                     settings)
        got.update({it.seq: plain(json.loads(it.model_dump_json())) for it in catch.items})
        want = truth(long, 0, 0)
        assert got == want and min(want) == 1
        # Pages past what the table keeps were rebuilt from its log once per game (and
        # once for what came before it), then served from memory.
        assert 1 <= hub.pages.rebuilt <= 3, hub.pages.rebuilt
        await late.close()
        await back.close()


async def test_pings_are_answered_while_ten_catch_ups_run(db_url: str, tmp_path: Path) -> None:
    long = await store_table(db_url, rounds=100)
    # The server in a process of its own: the pings measure it, not these clients.
    env = {**os.environ, **LIFTED_LIMITS, "NIMMT_DATA_DIR": str(tmp_path), "NIMMT_DB": db_url}
    proc, url = await start_server([], env)
    try:
        victim = await Client.connect(url, name="Victim")
        rtts: list[float] = []
        done = asyncio.Event()

        async def ping() -> None:
            while not done.is_set():
                t0 = time.perf_counter()
                await victim.request({"type": "ping"}, want="pong")
                rtts.append(time.perf_counter() - t0)
                await asyncio.sleep(0.005)

        pinger = asyncio.create_task(ping())
        t0 = time.perf_counter()
        sizes = await asyncio.gather(*(catch_ups(url, long.code, f"Late{i}", ROUNDS)
                                       for i in range(10)))
        took = time.perf_counter() - t0
        done.set()
        await pinger
        rtts.sort()
        p99 = rtts[min(len(rtts) - 1, int(0.99 * len(rtts)))]
        print(f"\n{10 * ROUNDS} catch-ups of {long.table.logged.seq} items (largest frame "
              f"{max(sizes)} bytes) in {took:.2f} s; victim ping p99 {p99 * 1000:.1f} ms, "
              f"median {statistics.median(rtts) * 1000:.1f} ms over {len(rtts)} pings; load "
              f"{os.getloadavg()[0]:.1f}")
        assert max(sizes) <= Settings().catchup_bytes
        # Before: 5.2 s of the server's loop per catch-up, and pings waited up to 7 s.
        assert len(rtts) >= 10 and p99 < 1.0
        await victim.close()
    finally:
        proc.terminate()
        await asyncio.to_thread(proc.wait, 30)


async def catch_ups(url: str, code: str, name: str, rounds: int) -> int:
    """Spectate ``code`` from its first item ``rounds`` times over one raw WebSocket, as
    fast as the server answers (reading each frame, parsing none: the client costs next
    to nothing); the largest frame's bytes."""
    async with connect(ws_url(url), max_size=None, compression=None) as ws:
        await ws.send(json.dumps({"type": "hello", "name": name}))
        await ws.recv()
        largest = 0
        for _ in range(rounds):
            await ws.send(json.dumps({"type": "spectate", "table": code, "last_seq": 0}))
            while True:
                frame = await ws.recv()
                size = len(frame.encode() if isinstance(frame, str) else frame)
                largest = max(largest, size)
                head = frame[:60] if isinstance(frame, str) else frame[:60].decode()
                if '"type":"events"' in head:
                    assert '"older":{' in (frame if isinstance(frame, str) else frame.decode())
                    break
        return largest


def http_get(url: str) -> tuple[int, dict[str, str], Any]:
    """Status, headers (names in lower case) and JSON body of a GET, error statuses
    included."""
    try:
        with urllib.request.urlopen(url, timeout=120) as resp:
            return resp.status, {k.lower(): v for k, v in resp.headers.items()}, json.loads(
                resp.read())
    except urllib.error.HTTPError as err:
        return err.code, {k.lower(): v for k, v in err.headers.items()}, json.loads(err.read())


async def test_replays_past_the_rate_get_429(db_url: str, tmp_path: Path) -> None:
    game_id = await store_game(db_url, long_record(seats=4, limit=66))
    settings = make_settings(db_url, tmp_path, read_rate=0.001, read_burst=3)
    async with running_hub(settings) as (url, hub):
        replay = f"{url}/api/games/{game_id}/replay"
        assert (await asyncio.to_thread(http_get, replay))[0] == 200
        # The same answer again comes from memory: it costs nothing.
        assert (await asyncio.to_thread(http_get, replay))[0] == 200
        assert (await asyncio.to_thread(http_get, f"{replay}?lang=sr"))[0] == 200
        assert (await asyncio.to_thread(http_get, f"{url}/api/games/{game_id}"))[0] == 200
        status, headers, body = await asyncio.to_thread(http_get, f"{replay}?lang=cs")
        assert status == 429, body
        assert int(headers["retry-after"]) >= 1
        assert "a second" in body["error"] and body["text"]
        # Not even a game that does not exist is looked up past the rate.
        assert (await asyncio.to_thread(http_get, f"{url}/api/games/999999/replay"))[0] == 429
        # What was built is still served.
        assert (await asyncio.to_thread(http_get, replay))[0] == 200
        assert hub.reads.refused[429] == 2


async def test_a_long_replay_does_not_block_the_event_loop(db_url: str,
                                                           tmp_path: Path) -> None:
    game_id = await store_game(db_url, long_record(seats=10, limit=3000))
    settings = make_settings(db_url, tmp_path)
    async with running_hub(settings) as (url, _hub):
        lags: list[float] = []
        done = asyncio.Event()

        async def tick() -> None:
            while not done.is_set():
                t0 = time.perf_counter()
                await asyncio.sleep(0.005)
                lags.append(time.perf_counter() - t0 - 0.005)

        ticker = asyncio.create_task(tick())
        t0 = time.perf_counter()
        status, _, body = await asyncio.to_thread(http_get,
                                                  f"{url}/api/games/{game_id}/replay")
        took = time.perf_counter() - t0
        done.set()
        await ticker
        assert status == 200 and len(body["steps"]) > 1000
        lags.sort()
        p99 = lags[min(len(lags) - 1, int(0.99 * len(lags)))]
        print(f"\nreplay of {len(body['steps'])} steps took {took:.2f} s; loop lag meanwhile: "
              f"max {lags[-1] * 1000:.1f} ms, p99 {p99 * 1000:.1f} ms over {len(lags)} ticks")
        # On the event loop, the loop would have stood still for the whole replay.
        assert lags[-1] < max(0.25, took / 2)
