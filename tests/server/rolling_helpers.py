"""What the rolling-restart tests share: ``nimmt serve`` processes stopped and started
again, scripted players (:class:`~nimmt.client_sync.SyncClient`, which reconnect by
themselves) that keep what the server acknowledged, and the store's log to check it
against (tests/server/test_server_rolling.py, test_server_proxy_rolling.py).
"""

from __future__ import annotations

import asyncio
import collections
import json
import random
import signal
import socket
import subprocess
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import psycopg
from server_helpers import NIMMT

from nimmt.client import ServerError
from nimmt.client_sync import ConnectionLost, Status, SyncClient
from nimmt.wire import Error

RULES = {"preset": "classic", "players": 3, "end": "rounds", "rounds": 2}
#: What each process may take to drain and stop (NIMMT_DRAIN_SECONDS in the tests' settings).
DRAIN = 10


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class Process:
    """``nimmt serve`` on a port of its own, started again on the same port after a stop
    (``command``: its arguments, ``{port}`` where the port goes)."""

    def __init__(self, env: dict[str, str], logs: Path, name: str,
                 command: Sequence[str] = (NIMMT, "serve", "--port", "{port}")) -> None:
        self.env = env
        self.command = command
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.logs = logs
        self.name = name
        self.proc: subprocess.Popen[str] | None = None
        self.starts = 0

    async def start(self) -> None:
        self.starts += 1
        err = open(self.logs / f"{self.name}-{self.starts}.log", "w")  # noqa: SIM115
        self.proc = subprocess.Popen([arg.format(port=self.port) for arg in self.command],
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

    def dropped(self) -> list[str]:
        """The lines of every start's log that say a message from Redis was dropped: the
        cluster's own messages must all be read (a hand-over's announcement among them)."""
        return [line for n in range(1, self.starts + 1)
                for line in (self.logs / f"{self.name}-{n}.log").read_text().splitlines()
                if "from Redis" in line]

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
    # A decision's key names its game, round and turn: it is never asked again. (The
    # prompt is the newest the client has, while the messages taken here may lag behind.)
    answered: set[str] = set()
    said = 0

    def take(msg: object) -> None:
        if isinstance(msg, Error):
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
            if prompt is not None and prompt.key not in answered and not c.game_over:
                value = seat.rng.choice(prompt.options)
                you = c.state.you if c.state is not None else None
                try:
                    c.answer(value, prompt.kind)
                except ConnectionLost:
                    continue  # not acknowledged: the table says again what it asks
                except ServerError as exc:
                    seat.errors.append(exc.code)
                    answered.add(prompt.key)
                    continue
                answered.add(prompt.key)
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


async def wait_for(check: Any, what: str, timeout: float = 120, detail: Any = None) -> None:
    end = time.monotonic() + timeout
    while not check():
        assert time.monotonic() < end, (f"{what}: not within {timeout:g} s",
                                        detail() if detail else None)
        await asyncio.sleep(0.05)


def seats_detail(seats: list[Seat]) -> list[object]:
    """Where each player is, for a failing wait's message."""
    return [(s.client.name, s.client.code, len(s.decisions), s.errors, s.backs,
             s.client.game_over, s.client.prompt, s.client.seq, s.failed) for s in seats]


def moved_on(seats: list[Seat], since: list[int]) -> bool:
    """Whether every player made three decisions since ``since`` was counted."""
    return all(len(s.decisions) >= n + 3 for s, n in zip(seats, since, strict=True))


async def nothing_lost(seats: list[Seat], threads: list[threading.Thread],
                       stop: threading.Event, codes: list[str], drains: list[float],
                       procs: Sequence[Process], pg_url: str) -> None:
    """Let the games end, then check the restarts lost nothing: every player's thread
    ended well, the one error anyone was sent is the notice that the server restarts,
    each process drained within its bound and read every message of the cluster, and
    every acknowledged decision and chat line (of table ``codes[t]``, the players
    ``seats[2t]`` and ``seats[2t + 1]``) is in its table's log."""
    stop.set()
    for th in threads:
        await asyncio.to_thread(th.join, 120)
        assert not th.is_alive(), ("a game did not end", seats_detail(seats))
    for s in seats:
        assert s.failed is None, s.failed
        assert set(s.errors) <= {"restarting"}, (s.client.name, s.errors)
    assert any("restarting" in s.errors for s in seats)
    assert all(d < DRAIN + 5 for d in drains), drains
    for proc in procs:
        assert not proc.dropped(), proc.dropped()
    decisions, chats, status = stored(pg_url)
    for t, code in enumerate(codes):
        for s in seats[2 * t:2 * t + 2]:
            missing = collections.Counter(s.decisions) - decisions[code]
            assert not missing, f"acknowledged but not stored at {code}: {missing}"
            assert set(s.chats) <= chats.get(code, set())
        assert status[code] == "over"
        assert seats[2 * t].client.game_over and seats[2 * t + 1].client.game_over


async def seat_tables(urls: Sequence[tuple[str, str]]) -> tuple[list[str], list[Seat]]:
    """One table per ``(host's URL, guest's URL)``: its host, a guest and an easy bot, the
    game started; the tables' codes and the players (host, guest, host, guest, …)."""
    codes: list[str] = []
    seats: list[Seat] = []
    for t, (home, away) in enumerate(urls):
        host = await asyncio.to_thread(SyncClient.connect, home, name=f"H{t}", retries=None)
        guest = await asyncio.to_thread(SyncClient.connect, away, name=f"G{t}", retries=None)
        code = (await asyncio.to_thread(host.create_table, rules=RULES)).table.code
        await asyncio.to_thread(guest.join, code)
        await asyncio.to_thread(guest.sit)
        await asyncio.to_thread(host.add_bot, "easy")
        await asyncio.to_thread(host.start)
        codes.append(code)
        seats += [Seat(host, True, random.Random(2 * t)),
                  Seat(guest, False, random.Random(2 * t + 1))]
    return codes, seats


def play_all(seats: list[Seat]) -> tuple[list[threading.Thread], threading.Event]:
    """Each player playing (:func:`play`) in a thread of its own; the event ends them."""
    stop = threading.Event()
    threads = [threading.Thread(target=play, args=(s, stop), daemon=True) for s in seats]
    for th in threads:
        th.start()
    return threads, stop


def close_all(seats: list[Seat], procs: Sequence[Process]) -> None:
    """The players' connections closed and the processes stopped (killed if they hang)."""
    for s in seats:
        s.client.close()
    for proc in procs:
        if proc.proc is not None and proc.proc.poll() is None:
            proc.proc.send_signal(signal.SIGINT)
            try:
                proc.proc.wait(30)
            except subprocess.TimeoutExpired:
                proc.kill()
