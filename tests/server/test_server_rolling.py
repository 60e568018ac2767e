"""Stopping a server process loses nothing: a single process drained by SIGTERM comes back
with its games, and a cluster of ``nimmt serve --redis`` processes restarted one after
another keeps every game, acknowledged decision and chat line (docs/operations.md,
"Rolling restarts").

The players are :class:`~nimmt.client_sync.SyncClient` (the terminal client's), which
reconnect by themselves; nothing here reconnects for them.
"""

from __future__ import annotations

import asyncio
import collections
import json
import os
import random
import signal
import socket
import subprocess
import threading
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import psycopg
import pytest
import redis
from server_helpers import LIFTED_LIMITS, NIMMT

from conftest import make_settings
from nimmt.client import Client, ServerError
from nimmt.client_sync import ConnectionLost, Status, SyncClient, is_game_over
from nimmt.server.protocol import Error, Events
from nimmt.server.run import running_hub

pytestmark = [pytest.mark.asyncio, pytest.mark.timeout(400)]

REDIS = os.environ.get("NIMMT_TEST_REDIS", "redis://127.0.0.1:6379/0")
RULES = {"preset": "classic", "players": 3, "end": "rounds", "rounds": 2}
#: What each process may take to drain and stop (NIMMT_DRAIN_SECONDS in the tests' settings).
DRAIN = 10


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class Process:
    """``nimmt serve`` on a port of its own, started again on the same port after a stop."""

    def __init__(self, env: dict[str, str], logs: Path, name: str) -> None:
        self.env = env
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.logs = logs
        self.name = name
        self.proc: subprocess.Popen[str] | None = None
        self.starts = 0

    async def start(self) -> None:
        self.starts += 1
        err = open(self.logs / f"{self.name}-{self.starts}.log", "w")  # noqa: SIM115
        self.proc = subprocess.Popen([NIMMT, "serve", "--port", str(self.port)],
                                     stdout=subprocess.PIPE, stderr=err, text=True,
                                     env=self.env)
        err.close()
        assert self.proc.stdout is not None
        line = await asyncio.wait_for(asyncio.to_thread(self.proc.stdout.readline), 60)
        assert "open http://" in line, (line, self.log())

    async def stop(self) -> float:
        """SIGTERM; the seconds until the process ended (it must end by itself)."""
        assert self.proc is not None
        begun = time.monotonic()
        self.proc.send_signal(signal.SIGTERM)
        code = await asyncio.to_thread(self.proc.wait, DRAIN + 20)
        # uvicorn raises the signal again once it stopped: the status of a clean stop
        # by SIGTERM, which systemd counts as a success.
        assert code in (0, -signal.SIGTERM), self.log()
        return time.monotonic() - begun

    def log(self) -> str:
        return (self.logs / f"{self.name}-{self.starts}.log").read_text()

    def kill(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()


@dataclass
class Seat:
    """One scripted player: what the server acknowledged, and what it refused."""

    client: SyncClient
    host: bool
    rng: random.Random
    decisions: list[tuple[str, int, int]] = field(default_factory=list)
    chats: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    backs: int = 0
    games: int = 0
    failed: BaseException | None = None


_MESSAGE = {"card": "play_card", "row": "take_row", "draft": "draft_card"}


def play(seat: Seat, stop: threading.Event) -> None:
    """Answer every decision and chat now and then; the host starts a rematch while the
    restarts go on. Ends once ``stop`` is set and the game is over."""
    c = seat.client
    # A decision's key is the same in every game of the table: the games over so far
    # (counted in the order the messages came) tell them apart.
    answered: set[tuple[int, str]] = set()
    over = 0
    said = 0

    def take(msg: object) -> None:
        nonlocal over
        if isinstance(msg, Events):
            over += sum(1 for item in msg.items if is_game_over(item))
        elif isinstance(msg, Error):
            seat.errors.append(msg.code)
        elif isinstance(msg, Status):
            if msg.state == "back":
                seat.backs += 1
            elif msg.state == "gone":
                raise AssertionError(f"{c.name} gave up reconnecting: {msg.reason}")

    try:
        while True:
            if c.game_over:
                if stop.is_set():
                    return
                if seat.host:
                    try:
                        c.rematch()
                    except ConnectionLost:
                        continue  # the table says after the rejoin whether it started
                    except ServerError as exc:
                        seat.errors.append(exc.code)
                        return
                    seat.games += 1
                    # The new game's start follows the acknowledgement.
                    while c.game_over:
                        take(c.next(timeout=1))
            prompt = c.prompt
            if prompt is not None and (over, prompt.key) not in answered and not c.game_over:
                value = seat.rng.choice(prompt.options)
                you = c.state.you if c.state is not None else None
                try:
                    c.answer(value, prompt.kind)
                except ConnectionLost:
                    continue  # not acknowledged: the table says again what it asks
                except ServerError as exc:
                    seat.errors.append(exc.code)
                    answered.add((over, prompt.key))
                    continue
                answered.add((over, prompt.key))
                assert you is not None
                seat.decisions.append((_MESSAGE[prompt.kind], you, value))
                if seat.rng.random() < 0.3:
                    said += 1
                    text = f"{c.name} says {said}"
                    try:
                        c.chat(text)
                        seat.chats.append(text)
                    except ConnectionLost:
                        pass
                continue
            take(c.next(timeout=1))
    except BaseException as exc:
        seat.failed = exc


def stored(pg_url: str) -> tuple[dict[str, collections.Counter[tuple[str, int, int]]],
                                 dict[str, set[str]], dict[str, str]]:
    """Every table's logged decisions and chat lines, and its status, from PostgreSQL."""
    decisions: dict[str, collections.Counter[tuple[str, int, int]]] = {}
    chats: dict[str, set[str]] = {}
    status: dict[str, str] = {}
    with psycopg.connect(pg_url.replace("postgresql+psycopg", "postgresql")) as conn:
        rows = conn.execute("SELECT t.code, t.status, l.kind, l.data FROM tables t "
                            "JOIN table_log l ON l.table_id = t.id ORDER BY t.id, l.n")
        for code, st, kind, data in rows:
            status[code] = st
            entry = json.loads(data)
            if kind == "decision":
                d = entry["decision"]
                value = d.get("card", d.get("row"))
                decisions.setdefault(code, collections.Counter())[
                    (d["type"], int(d["player"]), int(value))] += 1
            elif kind == "chat":
                chats.setdefault(code, set()).add(entry["text"])
    return decisions, chats, status


@pytest.fixture
def rolling_env(pg_url: str, tmp_path: Path) -> Iterator[dict[str, str]]:
    """The environment of this test's server processes; its Redis keys go at the end."""
    prefix = f"nimmt-test-{uuid.uuid4().hex[:12]}:"
    r = redis.Redis.from_url(REDIS)
    try:
        r.ping()
    except redis.RedisError as exc:
        pytest.fail(f"Redis is not reachable at {REDIS}: {exc}")
    yield {**os.environ, **LIFTED_LIMITS, "NIMMT_DATA_DIR": str(tmp_path / "data"),
           "NIMMT_DB": pg_url, "NIMMT_REDIS": REDIS, "NIMMT_REDIS_PREFIX": prefix,
           "NIMMT_LEASE_TTL": "10", "NIMMT_HEARTBEAT": "0.5", "NIMMT_BOT_WORKERS": "1",
           "NIMMT_DISCONNECT_GRACE": "120", "NIMMT_BOT_SECONDS": "0.05",
           "NIMMT_DRAIN_SECONDS": str(DRAIN)}
    keys = list(r.scan_iter(f"{prefix}*"))
    if keys:
        r.delete(*keys)
    r.close()


async def wait_for(check: Any, what: str, timeout: float = 120, detail: Any = None) -> None:
    end = time.monotonic() + timeout
    while not check():
        assert time.monotonic() < end, (f"{what}: not within {timeout:g} s",
                                        detail() if detail else None)
        await asyncio.sleep(0.05)


async def test_a_rolling_restart_of_two_processes_loses_nothing(
        rolling_env: dict[str, str], pg_url: str, tmp_path: Path) -> None:
    a, b = Process(rolling_env, tmp_path, "a"), Process(rolling_env, tmp_path, "b")
    await a.start()
    await b.start()
    seats: list[Seat] = []
    try:
        # Four tables, each with a player on either process and a bot; the hosts alternate.
        codes: list[str] = []
        for t in range(4):
            home, away = (a, b) if t % 2 == 0 else (b, a)
            host = await asyncio.to_thread(SyncClient.connect, home.url, name=f"H{t}",
                                           retries=None)
            guest = await asyncio.to_thread(SyncClient.connect, away.url, name=f"G{t}",
                                            retries=None)
            code = (await asyncio.to_thread(host.create_table, rules=RULES)).table.code
            await asyncio.to_thread(guest.join, code)
            await asyncio.to_thread(guest.sit)
            await asyncio.to_thread(host.add_bot, "easy")
            await asyncio.to_thread(host.start)
            codes.append(code)
            seats += [Seat(host, True, random.Random(2 * t)),
                      Seat(guest, False, random.Random(2 * t + 1))]
        stop = threading.Event()
        threads = [threading.Thread(target=play, args=(s, stop), daemon=True) for s in seats]
        for th in threads:
            th.start()

        def moved_on(since: list[int]) -> bool:
            return all(len(s.decisions) >= n + 3 for s, n in zip(seats, since, strict=True))

        drains: list[float] = []
        for i, proc in enumerate((a, b)):
            # Games are under way (every player decided since the last restart) ...
            since = [len(s.decisions) for s in seats]
            await wait_for(lambda since=since: moved_on(since), "play before a restart")
            backs = [s.backs for s in seats]
            drains.append(await proc.stop())
            await proc.start()
            # ... every player that was on it is back, and everyone plays on.
            on_it = [s for s in seats if s.client.url == proc.url]
            await wait_for(lambda on_it=on_it, backs=backs, i=i: all(
                s.backs > backs[seats.index(s)] for s in on_it), "reconnected")
            since = [len(s.decisions) for s in seats]
            await wait_for(lambda since=since: moved_on(since), "play after a restart",
                           detail=lambda: [(s.client.name, s.client.code, len(s.decisions),
                                            s.errors, s.backs, s.client.game_over,
                                            s.client.prompt, s.failed) for s in seats])
        stop.set()
        for th in threads:
            await asyncio.to_thread(th.join, 120)
            assert not th.is_alive(), ("a game did not end", [
                (s.client.name, s.client.code, len(s.decisions), s.errors, s.backs,
                 s.client.game_over, s.client.prompt, s.client.seq, s.failed) for s in seats])
        for s in seats:
            assert s.failed is None, s.failed
            # The one error anyone was sent: the notice that the server restarts.
            assert set(s.errors) <= {"restarting"}, s.errors
        assert any("restarting" in s.errors for s in seats)
        # Each process drained well within its bound.
        assert all(d < DRAIN + 5 for d in drains), drains
        decisions, chats, status = stored(pg_url)
        for t, code in enumerate(codes):
            for s in seats[2 * t:2 * t + 2]:
                missing = collections.Counter(s.decisions) - decisions[code]
                assert not missing, f"acknowledged but not stored at {code}: {missing}"
                assert set(s.chats) <= chats.get(code, set())
            assert status[code] == "over"
            assert seats[2 * t].client.game_over and seats[2 * t + 1].client.game_over
    finally:
        for s in seats:
            s.client.close()
        for proc in (a, b):
            if proc.proc is not None and proc.proc.poll() is None:
                proc.proc.send_signal(signal.SIGINT)
                try:
                    proc.proc.wait(30)
                except subprocess.TimeoutExpired:
                    proc.kill()


async def test_a_single_process_drains_and_comes_back_with_its_games(
        tmp_path: Path) -> None:
    env = {**os.environ, **LIFTED_LIMITS, "NIMMT_DATA_DIR": str(tmp_path / "data"),
           "NIMMT_DRAIN_SECONDS": str(DRAIN), "NIMMT_BOT_WORKERS": "1",
           "NIMMT_DISCONNECT_GRACE": "120"}
    server = Process(env, tmp_path, "one")
    await server.start()
    try:
        ana = await Client.connect(server.url, name="Ana", lang="sr")
        code = (await ana.create_table(rules=RULES)).table.code
        await ana.add_bot("easy")
        await ana.add_bot("easy")
        await ana.start()
        rng = random.Random(5)
        # Mid-game: Ana chooses, and is acknowledged.
        while ana.prompt is None:
            ana.inbox.append(await ana.recv())
        prompt = ana.prompt
        await ana.answer(prompt, rng)
        chosen = ana.state
        await ana.chat("do you hear me")
        seq = ana.seq
        stopping = asyncio.create_task(server.stop())
        # She is told, in her language, then the connection closes with 1012.
        told = await ana.expect(lambda m: isinstance(m, Error), 30)
        assert isinstance(told, Error) and told.code == "restarting"
        assert told.text == "Server se ponovo pokreće. Za trenutak ćete biti ponovo povezani."
        with pytest.raises(Exception) as closed:
            while True:
                await ana.recv(30)
        rcvd = getattr(closed.value, "rcvd", None)
        assert rcvd is not None and rcvd.code == 1012, closed.value
        assert await stopping < DRAIN + 5
        await server.start()
        back = await Client.connect(server.url, token=ana.token)
        state = await back.join(code, last_seq=seq)
        assert state.table.status == "playing"
        assert chosen is not None
        # The game goes on from where it was, and ends.
        await back.play_until_over(random.Random(6), 120)
        assert back.game_over
        await back.close()
    finally:
        if server.proc is not None and server.proc.poll() is None:
            server.proc.send_signal(signal.SIGINT)
            server.proc.wait(30)


async def test_a_draining_process_takes_no_new_table(db_url: str, tmp_path: Path) -> None:
    settings = make_settings(db_url, tmp_path)
    async with running_hub(settings) as (url, hub):
        ana = await Client.connect(url, name="Ana")
        code = (await ana.create_table(rules=RULES)).table.code
        bob = await Client.connect(url, name="Bob", lang="cs")
        hub.draining = True
        for attempt in (bob.create_table(rules=RULES), bob.join(code), bob.spectate(code)):
            with pytest.raises(ServerError) as refused:
                await attempt
            assert refused.value.code == "restarting"
            assert refused.value.error.text == ("Server se restartuje. Za chvíli budete znovu "
                                                "připojeni.")
        hub.draining = False
        assert (await bob.join(code)).table.code == code
        await ana.close()
        await bob.close()
