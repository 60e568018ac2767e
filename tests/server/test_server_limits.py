"""Hostile clients against a real server: every input a stranger controls meets a limit.

Each test plays an attack over loopback against a real server and checks three
things: the attacker is refused with an error code, the attack's effect is
bounded by the setting, and the server stays up for everyone else. Clients
connect from distinct loopback addresses (127.0.0.x) to act as distinct hosts.
"""

from __future__ import annotations

import asyncio
import json
import urllib.error
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio
import websockets
from server_helpers import api, close_all, eventually, play_out, seat_table

from conftest import make_settings
from nimmt.client import Client, ServerError
from nimmt.server.base.settings import Settings
from nimmt.server.run import proxy_options, running_server
from nimmt.wire import Error, Events, Pong

pytestmark = [pytest.mark.asyncio, pytest.mark.timeout(300)]

RULES = {"preset": "classic", "players": 2, "end": "rounds", "rounds": 1}
#: Seconds without a message after which a flood's answers are taken to be all in.
QUIET = 1.0


def sqlite(tmp_path: Path) -> str:
    return f"sqlite+aiosqlite:///{tmp_path / 'nimmt.db'}"


async def connect(url: str, name: str, host: str = "127.0.0.1", **kw: Any) -> Client:
    return await Client.connect(url, name=name, local_addr=(host, 0), **kw)


async def pings_ok(url: str, host: str = "127.0.0.9") -> None:
    """A bystander from another address is served at once."""
    async with await connect(url, "Bystander" + host.rsplit(".", 1)[1], host) as c:
        msg = await c.request({"type": "ping"}, want="pong")
        assert isinstance(msg, Pong)


async def refusal(client: Client, message: dict[str, Any], want: str = "ack") -> str:
    with pytest.raises(ServerError) as err:
        await client.request(message, want=want)
    return err.value.code


async def closed_with(client: Client, code: str, timeout: float = 60) -> None:
    """The server sends an error ``code``, then closes the connection (policy)."""
    loop = asyncio.get_running_loop()
    end = loop.time() + timeout
    seen: list[str] = []
    while True:
        try:
            msg = await client.recv(max(0.01, end - loop.time()))
        except websockets.ConnectionClosed as exc:
            assert code in seen, seen
            assert exc.rcvd is not None and exc.rcvd.code == 1008
            return
        if isinstance(msg, Error):
            seen.append(msg.code)


@pytest_asyncio.fixture
async def strict(tmp_path: Path) -> AsyncIterator[str]:
    """A server with small limits, on SQLite."""
    settings = make_settings(
        sqlite(tmp_path), tmp_path, rate=1000.0, burst=1000, player_rate=2.0, player_burst=20,
        address_rate=4.0, address_burst=40, connections_per_address=4, names_per_minute=5,
        tables_per_host=1, tables_per_address=2, max_tables=4, flood_cutoff=30,
        address_bytes=2048.0, address_bytes_burst=40000, max_frame=4096,
    )
    async with running_server(settings) as url:
        yield url


# -- the WebSocket's origin ----------------------------------------------------------------


async def test_origin_of_other_sites_is_refused_before_any_message(tmp_path: Path) -> None:
    settings = make_settings(sqlite(tmp_path), tmp_path,
                             allowed_origins="https://play.example.org")
    async with running_server(settings) as url:
        ws_url = url.replace("http://", "ws://") + "/ws"
        host = url.split("://", 1)[1]
        for bad in ("http://evil.example", "null", f"http://{host}.evil.example",
                    "https://play.example.org.evil.example"):
            with pytest.raises(websockets.InvalidStatus) as err:
                await websockets.connect(ws_url, origin=bad)  # type: ignore[arg-type]
            assert err.value.response.status_code == 403
        for good in (f"http://{host}", "https://play.example.org", None):
            ws = await websockets.connect(ws_url, origin=good)  # type: ignore[arg-type]
            await ws.send(json.dumps({"type": "ping", "ref": 1}))
            assert json.loads(await ws.recv())["type"] == "pong"
            await ws.close()


# -- connections, names, tables --------------------------------------------------------------


async def test_connections_per_address_are_capped(strict: str) -> None:
    mine = [await connect(strict, f"C{i}", "127.0.0.2") for i in range(4)]
    ws = await websockets.connect(strict.replace("http://", "ws://") + "/ws",
                                  local_addr=("127.0.0.2", 0))
    frame = json.loads(await asyncio.wait_for(ws.recv(), 30))
    assert frame["code"] == "too_many_connections"
    with pytest.raises(websockets.ConnectionClosed):
        await asyncio.wait_for(ws.recv(), 30)
    await pings_ok(strict, "127.0.0.3")
    await mine[0].close()
    again: list[Client] = []

    async def place_came_free() -> bool:
        # The server counts a closed connection out once its handler has ended.
        try:
            again.append(await connect(strict, "C4", "127.0.0.2"))
        except websockets.ConnectionClosed:
            return False
        return True

    await eventually(place_came_free, "a closed connection's place")
    await close_all([*mine[1:], *again])


async def test_new_names_per_address_are_limited_but_tokens_still_work(strict: str) -> None:
    tokens = []
    for i in range(5):
        c = await connect(strict, f"N{i}", "127.0.0.4")
        tokens.append(c.token)
        await c.close()
    token = tokens[0]
    with pytest.raises(ServerError) as err:
        await connect(strict, "N5", "127.0.0.4")
    assert err.value.code == "quota"
    back = await Client.connect(strict, token=token, local_addr=("127.0.0.4", 0))
    assert back.name == "N0"
    await back.close()
    other = await connect(strict, "N6", "127.0.0.5")  # another address is not affected
    await other.close()
    with pytest.raises(urllib.error.HTTPError) as err:
        await api(f"{strict}/api/players/N5")
    assert err.value.code == 404


async def test_unstarted_tables_are_capped_per_host_per_address_and_in_all(strict: str) -> None:
    ana = await connect(strict, "Ana", "127.0.0.6")
    await ana.create_table(rules=RULES)
    assert await refusal(ana, {"type": "create_table", "rules": RULES},
                         "table_state") == "quota"  # one unstarted table per host
    bob = await connect(strict, "Bob", "127.0.0.6")
    await bob.create_table(rules=RULES)
    cid = await connect(strict, "Cid", "127.0.0.6")
    assert await refusal(cid, {"type": "create_table", "rules": RULES},
                         "table_state") == "quota"  # two per address
    # The cap of four tables is reached only by clients from other addresses.
    dan = await connect(strict, "Dan", "127.0.0.7")
    eve = await connect(strict, "Eve", "127.0.0.8")
    await dan.create_table(rules=RULES)
    await eve.create_table(rules=RULES)
    fay = await connect(strict, "Fay", "127.0.0.10")
    assert await refusal(fay, {"type": "create_table", "rules": RULES},
                         "table_state") == "server_full"
    await pings_ok(strict)
    await close_all([ana, bob, cid, dan, eve, fay])


async def test_running_tables_are_capped_per_host_and_per_address(tmp_path: Path) -> None:
    """A started game goes on with its bots once its host leaves: it counts against the
    host and the address until it ends, so nobody leaves dozens running."""
    settings = make_settings(sqlite(tmp_path), tmp_path, running_per_host=2,
                             running_per_address=3, tables_per_host=5,
                             tables_per_address=10)
    long = {"preset": "classic", "players": 2, "end": "classic", "limit": 250}
    async with running_server(settings) as url:
        ana = await connect(url, "Ana", "127.0.0.20")
        for _ in range(2):
            await ana.create_table(rules=long)
            await ana.add_bot("easy")
            await ana.start()
            # Opening the next table detaches Ana from this one: her seat stays hers and
            # the game goes on (the default bot plays for her once she is away).
        assert await refusal(ana, {"type": "create_table", "rules": long},
                             "table_state") == "quota"  # two running per host
        bob = await connect(url, "Bob", "127.0.0.20")
        await bob.create_table(rules=long)
        cid = await connect(url, "Cid", "127.0.0.20")
        assert await refusal(cid, {"type": "create_table", "rules": long},
                             "table_state") == "quota"  # three per address
        dan = await connect(url, "Dan", "127.0.0.21")
        await dan.create_table(rules=long)  # another address is not held back
        await pings_ok(url)
        await close_all([ana, bob, cid, dan])


async def test_search_bots_are_capped_per_host_and_per_address(tmp_path: Path) -> None:
    """Each search bot takes up to a second of a worker per decision: the hard and expert
    bots at one host's live tables, and at those from one address, are capped; the quick
    bots and other addresses are not held back."""
    settings = make_settings(sqlite(tmp_path), tmp_path, search_bots_per_host=3,
                             search_bots_per_address=5, tables_per_host=5,
                             tables_per_address=10)
    ten = {"preset": "classic", "players": 10}
    async with running_server(settings) as url:
        ana = await connect(url, "Ana", "127.0.0.30")
        await ana.create_table(rules=ten)
        for strength in ("expert", "hard", "expert"):
            await ana.add_bot(strength)
        with pytest.raises(ServerError) as err:
            await ana.add_bot("expert")
        assert err.value.code == "quota"
        assert err.value.error.message == (
            "at most 3 search bots (hard, expert) may play at your live tables at once: seat "
            "an easier bot, or wait for one of those games to end")
        await ana.add_bot("medium")  # the quick bots are not counted
        await ana.act("remove_bot", seat=1)  # a bot removed frees its place
        await ana.add_bot("expert")
        await ana.create_table(rules=ten)  # her tables count together
        assert await refusal(ana, {"type": "add_bot", "strength": "hard"}) == "quota"
        bob = await connect(url, "Bob", "127.0.0.30")
        await bob.create_table(rules=ten)
        await bob.add_bot("expert")
        await bob.add_bot("expert")
        with pytest.raises(ServerError) as err:
            await bob.add_bot("expert")  # five at tables from this address
        assert err.value.code == "quota" and "from your address" in err.value.error.message
        dan = await connect(url, "Dan", "127.0.0.31")
        await dan.create_table(rules=ten)
        for _ in range(3):
            await dan.add_bot("expert")  # another address is not held back
        await pings_ok(url)
        await close_all([ana, bob, dan])


async def test_a_rematch_counts_its_search_bots_again(tmp_path: Path) -> None:
    """A finished game's bots are not counted; a rematch brings them back, so it is
    refused while the host's other live tables hold the cap."""
    settings = make_settings(sqlite(tmp_path), tmp_path, search_bots_per_host=1)
    short = {"preset": "classic", "players": 2, "end": "rounds", "rounds": 1}
    async with running_server(settings) as url:
        ana = await connect(url, "Ana", "127.0.0.32")
        state = await ana.create_table(rules=short)
        first = state.table.code
        await ana.add_bot("expert")
        await ana.start()
        await ana.play_until_over(timeout=120)
        second = (await ana.create_table(rules=short)).table.code
        await ana.add_bot("expert")  # the finished game's expert is not counted
        await ana.join(first)
        assert await refusal(ana, {"type": "rematch"}) == "quota"
        assert ana.state is not None and ana.state.table.status == "over"
        await ana.join(second)
        await ana.act("remove_bot", seat=1)
        await ana.join(first)
        await ana.act("rematch")  # with the other expert gone, the rematch plays
        await close_all([ana])


async def test_a_game_longer_than_the_server_plays_is_refused(tmp_path: Path) -> None:
    """A point limit past ``max_point_limit`` (the length a game may take, and with it
    its catch-up) is refused; a fixed number of rounds ignores the limit."""
    settings = make_settings(sqlite(tmp_path), tmp_path, max_point_limit=250)
    async with running_server(settings) as url:
        ana = await connect(url, "Ana")
        for end in ("classic", "elimination"):
            too_long = {"preset": "classic", "players": 10, "end": end, "limit": 10_000}
            assert await refusal(ana, {"type": "create_table", "rules": too_long},
                                 "table_state") == "bad_rules"
        await ana.create_table(rules={"preset": "classic", "players": 10, "end": "classic",
                                      "limit": 250})
        bob = await connect(url, "Bob")
        await bob.create_table(rules={"preset": "classic", "players": 3, "end": "rounds",
                                      "rounds": 3, "limit": 10_000})
        await close_all([ana, bob])


async def test_abandoned_unstarted_tables_close_within_the_setting_and_not_after_restart(
    db_url: str, tmp_path: Path
) -> None:
    settings = make_settings(db_url, tmp_path, open_idle_close=0.5)
    async with running_server(settings) as url:
        ana = await connect(url, "Ana")
        code = (await ana.create_table(rules=RULES)).table.code
        await ana.close()

        async def closed() -> bool:
            return code not in {t["code"] for t in (await api(f"{url}/api/tables"))["tables"]}

        await eventually(closed, "the abandoned table's close")
    settings = make_settings(db_url, tmp_path)
    async with running_server(settings) as url:
        bob = await connect(url, "Bob")
        unstarted = (await bob.create_table(rules=RULES)).table.code
        cid = await connect(url, "Cid")
        started = (await cid.create_table(rules=RULES)).table.code
        await cid.add_bot("easy")
        await cid.start()
        await close_all([bob, cid])
    async with running_server(settings) as url:
        codes = {t["code"] for t in (await api(f"{url}/api/tables"))["tables"]}
        assert started in codes
        assert unstarted not in codes


# -- rates across connections ----------------------------------------------------------------


async def flood(clients: list[Client], frames: int, frame: str | None = None,
                since: float | None = None) -> tuple[int, int, float]:
    """Each client sends ``frames`` frames at once; count what was answered and refused.

    Also the seconds from ``since`` (by default the first frame) to the last answer: every
    frame let through was answered by then, so the buckets refilled for at most that long.
    The bounds of the tests grow with it, so a slow machine meets them too."""
    loop = asyncio.get_running_loop()
    start = loop.time() if since is None else since
    last = loop.time()
    for c in clients:
        for i in range(frames):
            await c.send_raw(frame or json.dumps({"type": "ping", "ref": i}))
    answered = refused = 0
    for c in clients:
        while True:
            try:
                msg = await c.recv(QUIET)
            except TimeoutError:
                break
            last = loop.time()
            if isinstance(msg, Pong) or (isinstance(msg, Error)
                                         and msg.code == "frame_too_large"):
                answered += 1
            elif isinstance(msg, Error) and msg.code == "rate_limited":
                refused += 1
    return answered, refused, last - start


async def test_rate_per_player_counts_every_connection_of_the_player(strict: str) -> None:
    ana = await connect(strict, "Ana", "127.0.0.11")
    same = [await Client.connect(strict, token=ana.token, local_addr=(f"127.0.0.{12 + i}", 0))
            for i in range(4)]
    answered, refused, seconds = await flood([ana, *same], 25)
    # 125 pings from five connections and five addresses: one player's burst of 20 (+ the
    # few that refill meanwhile, 2 a second) pass, and each connection is told it was
    # throttled.
    assert 20 <= answered <= 20 + 2 * seconds + 1, (answered, seconds)
    assert refused >= 1
    await pings_ok(strict)
    await close_all([ana, *same])


async def test_rate_per_address_counts_every_player_of_the_address(strict: str) -> None:
    start = asyncio.get_running_loop().time()
    many = [await connect(strict, f"R{i}", "127.0.0.20") for i in range(4)]
    answered, _, seconds = await flood(many, 15, since=start)
    # Four players of 20 each could send 60, but their address holds 40 (less their four
    # hellos, plus what refills meanwhile: 4 a second since the first hello).
    assert 34 <= answered <= 36 + 4 * seconds + 1, (answered, seconds)
    await pings_ok(strict)
    await close_all(many)


async def test_oversized_frames_cost_their_bytes_and_are_then_throttled(strict: str) -> None:
    big = "x" * 5000  # over max_frame (4096): refused, but 5 kB read
    start = asyncio.get_running_loop().time()
    a = await connect(strict, "Big", "127.0.0.21")
    b = await connect(strict, "Small", "127.0.0.21")
    answered, refused, seconds = await flood([a], 20, big, since=start)
    # 40 kB of byte burst: about eight oversized frames are answered, the rest dropped
    # (2 kB a second refill: one more frame every 2.4 s).
    assert 7 <= answered <= 8 + 2048 * seconds / 5000 + 1, (answered, seconds)
    assert refused >= 1
    # The address is in debt (60 kB, half a minute of refill): its other connections wait
    # too, others do not.
    await b.send_raw(json.dumps({"type": "ping", "ref": 1}))
    msg = await b.recv(30)
    assert isinstance(msg, Error) and msg.code == "rate_limited"
    await pings_ok(strict)
    await close_all([a, b])


async def test_a_flooder_is_cut_off_with_a_code(strict: str) -> None:
    a = await connect(strict, "Flood", "127.0.0.22")
    for i in range(80):
        await a.send_raw(json.dumps({"type": "ping", "ref": i}))
    await closed_with(a, "flooding")
    await pings_ok(strict)


# -- what a table keeps ------------------------------------------------------------------------


async def test_card_changes_chat_and_rematches_are_limited(tmp_path: Path) -> None:
    settings = make_settings(sqlite(tmp_path), tmp_path, card_changes=2, chat_per_game=3,
                             games_per_table=1)
    async with running_server(settings) as url:
        (ana, bob), _ = await seat_table(url, RULES, humans=2)
        await ana.expect(lambda m: ana.prompt is not None)
        assert ana.prompt is not None
        hand = ana.prompt.options
        for card in hand[:3]:  # the first choice and two changes
            await ana.play_card(card)
        assert await refusal(ana, {"type": "play_card", "card": hand[3]}) == "too_many_changes"
        for i in range(3):
            await bob.chat(f"hello {i}")
        assert await refusal(bob, {"type": "chat", "text": "one more"}) == "quota"
        await play_out([ana, bob])
        assert await refusal(ana, {"type": "rematch"}) == "quota"
        await close_all([ana, bob])


async def test_http_api_answers_while_frames_flood(strict: str) -> None:
    a = await connect(strict, "Noisy", "127.0.0.23")
    for i in range(60):
        await a.send_raw(json.dumps({"type": "lobby", "ref": i}))
    assert (await api(f"{strict}/api"))["name"] == "nimmt"
    await a.close()


async def test_forwarded_for_is_ignored_unless_a_proxy_is_trusted() -> None:
    assert proxy_options(Settings()) == {"proxy_headers": False, "forwarded_allow_ips": None}
    assert proxy_options(Settings(trusted_proxies="10.0.0.1, 10.1.0.0/16")) == {
        "proxy_headers": True, "forwarded_allow_ips": ["10.0.0.1", "10.1.0.0/16"]}


async def test_address_keys_group_ipv6_by_prefix() -> None:
    from nimmt.server.base.limits import address_key

    assert address_key("203.0.113.9") == "203.0.113.9"
    assert address_key("2001:db8:1:2:aaaa::1") == address_key("2001:db8:1:2:bbbb::9")
    assert address_key("2001:db8:1:3::1") != address_key("2001:db8:1:2::1")
    assert address_key("::ffff:203.0.113.9") == "203.0.113.9"
    assert address_key(None) == "unknown"



async def test_stream_is_bounded_and_a_reconnect_still_gets_what_it_missed(
    db_url: str, tmp_path: Path
) -> None:
    settings = make_settings(db_url, tmp_path, stream_keep=16)
    rules = {"preset": "classic", "players": 3, "end": "rounds", "rounds": 1}
    async with running_server(settings) as url:
        (ana,), code = await seat_table(url, rules, humans=1, bots=["easy"], record=True)
        await play_out([ana])
        back = await Client.connect(url, token=ana.token, record=True)
        last = (await back.join(code, last_seq=3)).seq
        # Everything the table said up to the rejoin, as Ana's connection got it.
        while ana.seq < last:
            await ana.recv()
        assert ana.frames is not None
        seen: dict[int, Any] = {}
        for text in ana.frames:
            frame = json.loads(text)
            for item in frame.get("items", []) if frame["type"] == "events" else []:
                seen[item["seq"]] = item
        started = min(s for s, it in seen.items() if it.get("notice") == "started")
        assert len([s for s in seen if s >= started]) > 2 * 16  # the table had to trim
        msg = await back.expect(lambda m: m.type == "events")
        assert isinstance(msg, Events)
        got = {it["seq"]: it for it in json.loads(msg.model_dump_json())["items"]}
        # The catch-up holds what the table keeps in memory at most; the rest of the game
        # comes back page by page, rebuilt from the store's log.
        assert len(got) <= 2 * 16 and msg.older is not None
        older = msg.older
        while older is not None:
            page = await back.history(older.before, older.after, limit=10)
            got.update({it["seq"]: it for it in json.loads(page.model_dump_json())["items"]})
            older = page.older
        want = {s: it for s, it in seen.items() if s >= started}
        assert got.keys() == want.keys()
        for s in want:
            assert {k: v for k, v in got[s].items() if v is not None} == {
                k: v for k, v in want[s].items() if v is not None}, s
        await close_all([ana, back])
