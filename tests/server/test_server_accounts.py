"""Accounts against a real server: a guest keeps their name, signs in elsewhere, and a
stranger can neither guess their way in, learn who has an account, nor keep a stolen
session.

Every test runs a real server over loopback on a real database (SQLite and PostgreSQL
where the store matters); clients connect from distinct loopback addresses (127.0.0.x)
to act as distinct hosts. Waits are for events, with generous bounds.
"""

from __future__ import annotations

import asyncio
import json
import statistics
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa
import websockets
from alembic import command
from alembic.config import Config
from server_helpers import api, close_all, eventually, play_out, seat_table

from conftest import make_settings
from nimmt.client import Client, ServerError
from nimmt.server.run import running_hub, running_server
from nimmt.server.store import hash_token
from nimmt.server.store.migrate import MIGRATIONS
from nimmt.server.store.ratings import INITIAL
from nimmt.wire import Error, Pong

pytestmark = [pytest.mark.asyncio, pytest.mark.timeout(300)]

#: Cheap argon2 for tests that do not measure it (the costs are settings).
CHEAP = {"argon2_memory": 8192, "argon2_time": 1}
RULES = {"preset": "classic", "players": 3, "end": "rounds", "rounds": 1}
PASSWORD = "correct horse battery"


def sqlite(tmp_path: Path) -> str:
    return f"sqlite+aiosqlite:///{tmp_path / 'nimmt.db'}"


async def connect(url: str, host: str = "127.0.0.1", **kw: Any) -> Client:
    return await Client.connect(url, local_addr=(host, 0), **kw)


async def refused(url: str, host: str = "127.0.0.1", **hello: Any) -> Error:
    """The refusal of a hello (the connection is closed afterwards)."""
    with pytest.raises(ServerError) as err:
        c = await connect(url, host, **hello)
        await c.close()
    return err.value.error


async def closed_with(client: Client, code: str, timeout: float = 30) -> None:
    """The server sends the error ``code``, then closes the connection."""
    loop = asyncio.get_running_loop()
    end = loop.time() + timeout
    seen: list[str] = []
    while True:
        try:
            msg = await client.recv(max(0.01, end - loop.time()))
        except websockets.ConnectionClosed:
            assert code in seen, seen
            return
        if isinstance(msg, Error):
            seen.append(msg.code)


async def pong(client: Client) -> None:
    assert isinstance(await client.request({"type": "ping"}, want="pong"), Pong)


async def speech_status(url: str, code: str, token: str) -> int:
    """The status of the speech endpoint (which reads a seat's view) for ``token``."""

    def get() -> int:
        req = urllib.request.Request(f"{url}/api/speech/{code}",
                                     headers={"X-Nimmt-Token": token})
        try:
            with urllib.request.urlopen(req, timeout=30) as resp:
                return int(resp.status)
        except urllib.error.HTTPError as exc:
            return int(exc.code)

    return await asyncio.to_thread(get)


async def test_a_guest_keeps_their_name_and_signs_in_elsewhere(
        db_url: str, tmp_path: Path) -> None:
    settings = make_settings(db_url, tmp_path, **CHEAP)
    async with running_server(settings) as url:
        # A rated game as guests: Ana's rating and history are made under her token.
        clients, code = await seat_table(url, RULES, 2, ["easy"], prefix="G", rated=True)
        await play_out(clients)
        ana = clients[0]
        before = await api(f"{url}/api/players/G0")
        assert before["rated_games"] == 1 and before["rating"]["sigma"] < INITIAL[1]
        assert ana.account is False

        codes = await ana.set_password(PASSWORD)
        assert len(codes) == len(set(codes)) == 8
        assert all(len(c) == 19 and c.count("-") == 3 for c in codes)
        # Signed in from another client (another address, the name in other letters).
        phone = await connect(url, "127.0.0.2", name="g0", password=PASSWORD)
        assert (phone.name, phone.account) == ("G0", True)
        assert phone.token not in (None, ana.token)
        assert await api(f"{url}/api/players/G0") == before  # the same rating and games
        listed = await phone.sessions()
        assert [s.current for s in listed] == [True, False]
        assert listed[0].address == "127.0.0.2" and listed[1].address == "127.0.0.1"
        # The same player: the seat at the table is theirs on the phone too.
        state = await phone.join(code)
        assert state.you == 0

        # The name is an account's now: nobody takes it as a guest, nor with a guess.
        assert (await refused(url, name="G0")).code == "name_taken"
        assert (await refused(url, name="G0", password="wrong guess")).code == "sign_in_failed"
        with pytest.raises(ServerError) as err:
            await phone.set_password("short")
        assert err.value.code == "weak_password"
        with pytest.raises(ServerError) as err:
            await phone.request({"type": "set_password", "password": "another one"})
        assert err.value.code == "sign_in_failed"  # changing needs the current password
        # Changing it ends every other session: the first client is signed out.
        await phone.set_password("a better passphrase", old=PASSWORD)
        await closed_with(ana, "signed_out")
        assert (await refused(url, token=ana.token)).code == "bad_token"
        assert (await refused(url, name="G0", password=PASSWORD)).code == "sign_in_failed"
        again = await connect(url, name="G0", password="a better passphrase")
        assert again.name == "G0"
        await pong(phone)  # the session that changed it goes on
        await close_all([again, phone, *clients[1:]])


async def test_guessing_is_slowed_then_refused_and_the_owner_still_gets_in(
        tmp_path: Path) -> None:
    settings = make_settings(sqlite(tmp_path), tmp_path, signin_free=3, signin_delay_max=2.0,
                             signin_address_free=6, signin_address_delay_max=3.0,
                             signin_window=600.0, password_checks_per_minute=1000, **CHEAP)
    async with running_server(settings) as url:
        owner = await connect(url, name="Ana")
        await owner.set_password(PASSWORD)
        thief = "127.0.0.2"
        # Per account: three failures are free, then each attempt waits 1 s, 2 s, 2 s, ...
        for i in range(3):
            assert (await refused(url, thief, name="Ana", password=f"guess {i}")).code == (
                "sign_in_failed")
        limited = await refused(url, thief, name="Ana", password="guess 3")
        assert limited.code == "sign_in_limited" and "1 s" in limited.message
        assert limited.retry_after == 1  # the wait, for a client to show and count down
        # Refused attempts cost nothing and are not counted; the right password too must
        # wait (from the thief's address nothing is known).
        assert (await refused(url, thief, name="Ana", password=PASSWORD)).code == (
            "sign_in_limited")

        async def tried(password: str, host: str = thief) -> str:
            try:
                c = await connect(url, host, name="Ana", password=password)
            except ServerError as exc:
                return exc.code
            await c.close()
            return "ok"

        async def allowed() -> bool:
            return await tried("guess 4") == "sign_in_failed"

        await eventually(allowed, "the account's first wait", 30)
        limited = await refused(url, thief, name="Ana", password="guess 5")
        assert limited.code == "sign_in_limited" and "2 s" in limited.message
        assert limited.retry_after == 2
        # The owner, anywhere else, gets in within the documented wait (signin_delay_max).
        assert await tried(PASSWORD, "127.0.0.3") == "sign_in_limited"
        t1 = time.monotonic()

        async def owner_in() -> bool:
            return await tried(PASSWORD, "127.0.0.3") == "ok"

        await eventually(owner_in, "the owner after the longest wait", 30)
        assert time.monotonic() - t1 <= 2.0 + 5.0
        # A success forgets the account's failures; a guesser starts again from none.
        other = "127.0.0.6"
        for i in range(6, 9):
            assert await tried(f"guess {i}", other) == "sign_in_failed"
        assert await tried("guess 9", other) == "sign_in_limited"
        # At an address the account has a session from, the owner is not held back.
        assert await tried(PASSWORD, "127.0.0.1") == "ok"

        # Per address: one address trying many names is slowed too, whatever the name.
        spray = "127.0.0.4"
        for i in range(3):
            assert (await refused(url, spray, name=f"Nobody{i}", password="x" * 8)).code == (
                "sign_in_failed")
        for i in range(3):
            assert (await refused(url, spray, name=f"Other{i}", password="x" * 8)).code == (
                "sign_in_failed")
        assert (await refused(url, spray, name="Fresh", password="x" * 8)).code == (
            "sign_in_limited")
        # Another address is not.
        assert (await refused(url, "127.0.0.5", name="Fresh", password="x" * 8)).code == (
            "sign_in_failed")
        await owner.close()


async def test_a_wrong_name_and_a_wrong_password_look_alike(tmp_path: Path) -> None:
    """No account's existence shows in the answer or its timing: a name without an account
    is checked against a dummy hash of the same cost. Medians of interleaved attempts over
    one connection each; a server without the dummy check answers a wrong name some
    30 times sooner."""
    settings = make_settings(sqlite(tmp_path), tmp_path, signin_free=10_000,
                             signin_address_free=10_000, password_checks_per_minute=10_000,
                             argon2_memory=19456, argon2_time=2)
    async with running_server(settings) as url:
        ana = await connect(url, name="Ana")
        await ana.set_password(PASSWORD)
        guest = await connect(url, name="Bob")  # a name with no password: also no account
        ws = await websockets.connect(url.replace("http", "ws") + "/ws", compression=None)
        answers: dict[str, list[dict[str, Any]]] = {"none": [], "wrong": [], "guest": []}
        times: dict[str, list[float]] = {k: [] for k in answers}
        names = {"none": "Nobody", "wrong": "Ana", "guest": "Bob"}
        for i in range(25):
            for kind in ("none", "wrong", "guest") if i % 2 else ("wrong", "guest", "none"):
                frame = json.dumps({"type": "hello", "name": names[kind],
                                    "password": f"not it {i}"})
                t = time.perf_counter()
                await ws.send(frame)
                raw = await asyncio.wait_for(ws.recv(), 30)
                times[kind].append(time.perf_counter() - t)
                answers[kind].append({k: v for k, v in json.loads(raw).items() if k != "ref"})
        await ws.close()
        med = {k: statistics.median(v) for k, v in times.items()}
        print("median answer, s:", {k: round(v, 4) for k, v in med.items()})
        first = answers["none"][0]
        assert first["code"] == "sign_in_failed"
        assert all(a == first for group in answers.values() for a in group)
        # Without the dummy check a wrong name is answered some 30 times sooner; a busy
        # machine (load 10 on two cores) moves these medians apart by up to about 1.7.
        for kind in ("none", "guest"):
            ratio = med[kind] / med["wrong"]
            assert 0.4 < ratio < 2.5, (kind, med)
        await close_all([ana, guest])


async def test_sign_out_everywhere_ends_a_stolen_session(db_url: str, tmp_path: Path) -> None:
    settings = make_settings(db_url, tmp_path, **CHEAP)
    async with running_server(settings) as url:
        ana = await connect(url, name="Ana")
        await ana.set_password(PASSWORD)
        state = await ana.create_table(rules=RULES)
        code = state.table.code
        # A thief copied the token of a session of hers and uses it elsewhere.
        laptop = await connect(url, "127.0.0.2", name="Ana", password=PASSWORD)
        assert laptop.token is not None
        thief = await connect(url, "127.0.0.66", token=laptop.token)
        await thief.join(code)
        assert await speech_status(url, code, laptop.token) == 200
        # From her phone she sees the sessions, then signs out everywhere else.
        phone = await connect(url, "127.0.0.3", name="Ana", password=PASSWORD)
        listed = await phone.sessions()
        assert len(listed) == 3 and sum(s.current for s in listed) == 1
        stolen = next(s for s in listed if s.last_address == "127.0.0.66")
        assert stolen.address == "127.0.0.2"
        await phone.sign_out("others")
        for victim in (thief, laptop, ana):
            await closed_with(victim, "signed_out")
        assert (await refused(url, "127.0.0.66", token=laptop.token)).code == "bad_token"
        assert await speech_status(url, code, laptop.token) == 403
        assert [s.current for s in await phone.sessions()] == [True]
        # One session ended by its id.
        tablet = await connect(url, "127.0.0.4", name="Ana", password=PASSWORD)
        mine = [s.id for s in await phone.sessions() if not s.current]
        with pytest.raises(ServerError) as err:
            await phone.end_session(999_999)
        assert err.value.code == "no_session"
        await phone.end_session(mine[0])
        await closed_with(tablet, "signed_out")
        # All of them, this one too: its ack first.
        await phone.sign_out("all")
        await closed_with(phone, "signed_out")
        assert (await refused(url, token=phone.token)).code == "bad_token"
        # A guest has one session, the only key to their name: it cannot be ended.
        bob = await connect(url, name="Bob")
        with pytest.raises(ServerError) as err:
            await bob.sign_out("all")
        assert err.value.code == "no_password"
        await bob.close()


async def test_a_session_ended_at_one_process_closes_at_another(
        pg_url: str, tmp_path: Path) -> None:
    """Two server processes over one store: a sign-out at one closes the session's
    connections at the other within its signal poll."""
    one = make_settings(pg_url, tmp_path, signal_poll=0.2, **CHEAP)
    two = make_settings(pg_url, tmp_path / "two", signal_poll=0.2, **CHEAP)
    async with running_hub(one) as (url1, _), running_hub(two) as (url2, _):
        ana = await connect(url1, name="Ana")
        await ana.set_password(PASSWORD)
        there = await connect(url2, "127.0.0.2", name="Ana", password=PASSWORD)
        t = time.monotonic()
        await ana.sign_out("others")
        await closed_with(there, "signed_out")
        print(f"closed at the other process after {time.monotonic() - t:.2f} s")
        await pong(ana)
        await ana.close()


async def test_a_sign_in_just_after_a_sign_out_outlives_its_signal(tmp_path: Path) -> None:
    """Every process reads a sign-out's signal at its next poll, this one too: it closes
    only the connections of the sessions it ended, not one signed in since."""
    settings = make_settings(sqlite(tmp_path), tmp_path, signal_poll=5.0, **CHEAP)
    async with running_hub(settings) as (url, hub):
        ana = await connect(url, name="Ana")
        await ana.set_password(PASSWORD)
        phone = await connect(url, name="Ana", password=PASSWORD)
        again = None
        for _ in range(5):
            seen = hub.people.signals.seen
            await phone.sign_out("others")
            await closed_with(ana, "signed_out")
            again = await connect(url, name="Ana", password=PASSWORD)
            if hub.people.signals.seen == seen:
                break  # signed in again before the poll read the sign-out
            ana = again
        else:
            pytest.fail("a poll came between each sign-out and the sign-in after it")

        async def polled() -> bool:
            return hub.people.signals.seen > seen

        await eventually(polled, "the sign-out's signal read", 30)
        await pong(again)
        await pong(phone)
        await close_all([again, phone])


async def test_a_recovery_code_works_once(db_url: str, tmp_path: Path) -> None:
    settings = make_settings(db_url, tmp_path, **CHEAP)
    async with running_server(settings) as url:
        ana = await connect(url, name="Ana")
        codes = await ana.set_password(PASSWORD)
        # A new password too short: refused before the code is looked at (it stays valid).
        assert (await refused(url, name="Ana", recovery_code=codes[0],
                              password="short")).code == "weak_password"
        typed = " " + codes[0].lower().replace("-", " ") + " "
        back = await connect(url, "127.0.0.2", name="Ana", recovery_code=typed,
                             password="the new passphrase")
        assert back.name == "Ana" and back.account and back.token
        await closed_with(ana, "signed_out")  # every earlier session ended
        assert (await refused(url, name="Ana", password=PASSWORD)).code == "sign_in_failed"
        assert (await refused(url, name="Ana", recovery_code=codes[0],
                              password="yet another one")).code == "sign_in_failed"
        assert (await refused(url, name="Nobody", recovery_code=codes[1],
                              password="yet another one")).code == "sign_in_failed"
        # Another code still works once; new codes replace the old ones.
        fresh = await back.recovery_codes("the new passphrase")
        assert not set(fresh) & set(codes)
        assert (await refused(url, name="Ana", recovery_code=codes[1],
                              password="yet another one")).code == "sign_in_failed"
        with pytest.raises(ServerError) as err:
            await back.recovery_codes("not the password")
        assert err.value.code == "sign_in_failed"
        again = await connect(url, name="Ana", recovery_code=fresh[7], password="yet another")
        assert again.name == "Ana"
        await again.close()


async def test_password_hashing_stays_off_the_event_loop(tmp_path: Path) -> None:
    """Costly hashes run in threads, at most hash_workers at once and hash_queue waiting:
    pings are answered meanwhile, and sign-ins past the queue are refused at once."""
    settings = make_settings(sqlite(tmp_path), tmp_path, argon2_memory=65536, argon2_time=3,
                             hash_workers=1, hash_queue=2, signin_free=10_000,
                             signin_address_free=10_000, password_checks_per_minute=10_000)
    async with running_server(settings) as url:
        ana = await connect(url, name="Ana")
        await ana.set_password(PASSWORD)
        t = time.perf_counter()
        await refused(url, name="Ana", password="one wrong try")
        one = time.perf_counter() - t
        watcher = await connect(url, "127.0.0.2", name="Watcher")
        attempts = [asyncio.create_task(refused(url, f"127.0.0.{10 + i}", name="Ana",
                                                password=f"wrong {i}")) for i in range(8)]
        rtts = []
        while not all(a.done() for a in attempts):
            t = time.perf_counter()
            await pong(watcher)
            rtts.append(time.perf_counter() - t)
            await asyncio.sleep(0.02)
        codes = sorted(a.result().code for a in attempts)
        print(f"one check {one * 1000:.0f} ms; pings during 8 at once: median "
              f"{statistics.median(rtts) * 1000:.1f} ms, max {max(rtts) * 1000:.1f} ms; {codes}")
        assert "sign_in_busy" in codes and "sign_in_failed" in codes
        assert len(rtts) >= 3 and statistics.median(rtts) < one / 2
        await close_all([ana, watcher])


def _legacy(db_url: str) -> dict[str, str]:
    """A database at migration 0004 (before accounts) with two players, one with a rated
    game; their tokens."""
    engine = sa.create_engine(db_url.replace("+aiosqlite", ""))
    tokens = {"Ana": "ana-old-token", "Bob": "bob-old-token"}
    try:
        with engine.begin() as conn:
            cfg = Config()
            cfg.set_main_option("script_location", str(MIGRATIONS))
            cfg.attributes["connection"] = conn
            command.upgrade(cfg, "0004")
            for i, (name, token) in enumerate(tokens.items()):
                conn.execute(sa.text(
                    "insert into players (name, skeleton, token_hash, mu, sigma, rated_games, "
                    "created) values (:n, :k, :t, :mu, 8.0, 1, 1000.0)"),
                    {"n": name, "k": name.lower(), "t": hash_token(token), "mu": 26.0 - i})
            conn.execute(sa.text(
                "insert into games (table_id, game_no, rated, finished, record, ended) "
                "values (1, 1, true, true, '{}', 1000.0)"))
            conn.execute(sa.text(
                "insert into game_players (game_id, seat, player_id, name, total, winner, "
                "mu_after) values (1, 0, 1, 'Ana', 10, true, 26.0), "
                "(1, 1, 2, 'Bob', 30, false, 25.0)"))
    finally:
        engine.dispose()
    return tokens


async def test_an_old_token_keeps_its_player_and_can_add_a_password(
        db_url: str, tmp_path: Path) -> None:
    tokens = _legacy(db_url)
    async with running_server(make_settings(db_url, tmp_path, **CHEAP)) as url:
        before = await api(f"{url}/api/players/Ana")
        assert before["rating"]["mu"] == 26.0 and len(before["games"]) == 1
        ana = await connect(url, token=tokens["Ana"])
        assert (ana.name, ana.account, ana.token) == ("Ana", False, tokens["Ana"])
        await ana.set_password(PASSWORD)
        phone = await connect(url, "127.0.0.2", name="Ana", password=PASSWORD)
        assert phone.name == "Ana"
        assert await api(f"{url}/api/players/Ana") == before
        bob = await connect(url, token=tokens["Bob"])
        assert bob.name == "Bob"
        assert [s.address for s in await bob.sessions()] == [None]  # older than addresses
        await close_all([ana, phone, bob])


async def test_unclaimed_guest_names_are_released_and_come_back(
        db_url: str, tmp_path: Path) -> None:
    release = 2.0  # seconds, here
    settings = make_settings(db_url, tmp_path, guest_release_days=release / 86400,
                             signal_poll=0.1, **CHEAP)
    async with running_server(settings) as url:
        ana = await connect(url, name="Ana")   # a guest who leaves
        cleo = await connect(url, name="Cleo")  # a guest who stays connected
        dan = await connect(url, name="Dan")    # an account: never released
        await dan.set_password(PASSWORD)
        token = ana.token
        await close_all([ana, dan])

        taken: list[Client] = []

        async def free() -> bool:
            try:
                taken.append(await connect(url, "127.0.0.2", name="Ana"))
            except ServerError:
                return False
            return True

        await eventually(free, "Ana's name released", 60)
        # Someone else is Ana now; the old Ana comes back as Ana 2, the same player.
        back = await connect(url, token=token)
        assert back.name == "Ana 2" and not back.account
        assert [s.current for s in await back.sessions()] == [True]
        # A guest who came later and left is released; Cleo, connected all along, is not,
        # nor is the account.
        eve = await connect(url, name="Eve")
        await eve.close()

        async def eve_free() -> bool:
            try:
                c = await connect(url, "127.0.0.3", name="Eve")
            except ServerError:
                return False
            await c.close()
            return True

        await eventually(eve_free, "Eve's name released", 60)
        assert (await refused(url, "127.0.0.3", name="Cleo")).code == "name_taken"
        assert (await refused(url, "127.0.0.3", name="Dan")).code == "name_taken"
        again = await connect(url, name="Dan", password=PASSWORD)
        assert again.name == "Dan"
        await close_all([*taken, back, cleo, again])
