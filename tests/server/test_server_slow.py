"""Slow clients against a real server: readers that never read, and half-sent requests.

A reader that never reads is a raw socket with a 4 KiB receive buffer that does the
WebSocket handshake, says hello, spectates and then reads nothing. A half-sent
request is a TCP connection that sends the first lines of an HTTP request's
headers and never the blank line that ends them. Each test checks that the
attacker is closed by the bound meant for it, that what the server holds for it
stays bounded, and that everyone else plays on.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import json
import logging
import os
import resource
import socket
import struct
import subprocess
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from server_helpers import LIFTED_LIMITS, NIMMT, eventually, start_server

from conftest import make_settings
from nimmt.client import Client
from nimmt.server.base.settings import Settings
from nimmt.server.edge.connection import FRAME_COST
from nimmt.server.root import Server
from nimmt.server.run import running_hub, running_server
from nimmt.wire import PROTOCOL_VERSION

pytestmark = [pytest.mark.asyncio, pytest.mark.timeout(600)]

#: A long game at machine speed: ten seats, 250 points (the longest a table may ask for).
GAME = {"preset": "classic", "players": 10, "limit": 250}
SHORT = {"preset": "classic", "players": 2, "end": "rounds", "rounds": 1}
TCP_ESTABLISHED = 1


# -- raw clients ------------------------------------------------------------------------------

def ws_frame(text: str) -> bytes:
    """One masked text frame, as a client sends it."""
    data = text.encode()
    mask = os.urandom(4)
    n = len(data)
    head = bytes([0x81, 0x80 | n]) if n < 126 else bytes([0x81, 0x80 | 126]) + struct.pack(
        "!H", n)
    return head + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(data))


def non_reader(port: int, name: str, table: str) -> socket.socket:
    """A spectator of ``table`` that never reads (blocking: run it in a thread)."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    sock.settimeout(60)
    sock.connect(("127.0.0.1", port))
    key = base64.b64encode(os.urandom(16)).decode()
    sock.sendall((f"GET /ws HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nUpgrade: websocket\r\n"
                  f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\n"
                  "Sec-WebSocket-Version: 13\r\n\r\n").encode())
    answer = b""
    while b"\r\n\r\n" not in answer:
        chunk = sock.recv(1)  # byte by byte: nothing past the handshake is read
        assert chunk, "the server closed during the handshake"
        answer += chunk
    assert answer.startswith(b"HTTP/1.1 101 "), answer
    sock.sendall(ws_frame(json.dumps({"type": "hello", "version": PROTOCOL_VERSION,
                                      "name": name})))
    sock.sendall(ws_frame(json.dumps({"type": "spectate", "table": table})))
    return sock


def is_open(sock: socket.socket) -> bool:
    """Whether the server has neither closed nor reset the connection (read nothing)."""
    return sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_INFO, 8)[0] == TCP_ESTABLISHED


def half_request(port: int, source: str = "127.0.0.1", send: bool = True) -> socket.socket:
    """A connection from ``source`` that sends the start of a request's headers and never
    their end (with ``send`` false, nothing at all)."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.bind((source, 0))
    sock.settimeout(10)
    sock.connect(("127.0.0.1", port))
    if send:
        with contextlib.suppress(OSError):
            sock.sendall(b"GET /api HTTP/1.1\r\nHost: 127.0.0.1\r\nUser-Agent: slow\r\n")
    return sock


def answer_of(sock: socket.socket) -> bytes:
    """What the server sent before it closed (blocking)."""
    sock.settimeout(30)
    data = b""
    with contextlib.suppress(OSError):
        while chunk := sock.recv(4096):
            data += chunk
    return data


# -- a real player -----------------------------------------------------------------------------

class Player:
    """A person at the table: answers every decision at once, starts a rematch when a game
    ends, pings 20 times a second and notes the round trips."""

    def __init__(self, client: Client) -> None:
        self.client = client
        self.rtts: list[float] = []
        #: How many of the round trips came while the attack lasted.
        self.during = 0
        self.events = 0
        self.stop = asyncio.Event()

    async def run(self) -> None:
        ws = self.client.ws
        loop = asyncio.get_running_loop()
        sent: dict[int, float] = {}
        answered: set[str] = set()

        async def pinger() -> None:
            n = 0
            while not self.stop.is_set():
                n += 1
                sent[n] = loop.time()
                await ws.send(json.dumps({"type": "ping", "ref": n}))
                await asyncio.sleep(0.05)

        task = asyncio.create_task(pinger())
        prompt = self.client.prompt.model_dump() if self.client.prompt is not None else None
        try:
            while not self.stop.is_set():
                if prompt is not None and prompt["key"] not in answered:
                    answered.add(prompt["key"])
                    kind = {"card": "play_card", "row": "take_row", "draft": "draft_card"}
                    field = "row" if prompt["kind"] == "row" else "card"
                    await ws.send(json.dumps({"type": kind[prompt["kind"]],
                                              field: prompt["options"][0]}))
                try:
                    msg = json.loads(await asyncio.wait_for(ws.recv(), 1.0))
                except TimeoutError:
                    continue
                if msg["type"] == "pong":
                    t0 = sent.pop(msg["ref"], None)
                    if t0 is not None:
                        self.rtts.append((loop.time() - t0) * 1000)
                elif msg["type"] in ("events", "table_state"):
                    prompt = msg["prompt"]
                    if msg["type"] == "events":
                        self.events += len(msg["items"])
                        if any((it.get("event") or {}).get("type") == "game_over"
                               for it in msg["items"]):
                            await ws.send(json.dumps({"type": "rematch"}))
        finally:
            task.cancel()

    def p99(self) -> float:
        """The 99th percentile of the round trips while the attack lasted."""
        values = sorted(self.rtts[:self.during])
        return values[min(len(values) - 1, int(0.99 * len(values)))]


async def until(check: Callable[[], bool], what: str, timeout: float = 120) -> None:
    async def holds() -> bool:
        return check()

    await eventually(holds, what, timeout)


async def attack(settings: Settings, readers: int) -> tuple[Server, Player, int]:
    """A long game hosted by a real player, watched by ``readers`` spectators that never
    read, until the server has closed them all; returns the hub, the player, and the most
    bytes the server ever held queued for one connection."""
    async with running_hub(settings) as (url, hub):
        port = int(url.rsplit(":", 1)[1])
        host = await Client.connect(url, name="Host")
        code = (await host.create_table(rules=GAME)).table.code
        for _ in range(GAME["players"] - 1):  # type: ignore[operator]
            await host.add_bot("easy")
        socks = [await asyncio.to_thread(non_reader, port, f"Slow{i}", code)
                 for i in range(readers)]
        actor = hub.tables.held[code]
        await until(lambda: len(actor.peers) == readers + 1, "the readers are at the table")
        await host.start()
        player = Player(host)
        task = asyncio.create_task(player.run())
        most = 0

        def all_closed() -> bool:
            nonlocal most
            most = max([most, *(getattr(p, "unsent", 0) for p in actor.peers.values())])
            return hub.metrics.counts["slow_reader"] >= readers

        try:
            await until(all_closed, "every reader that never reads is closed", 300)
            player.during = len(player.rtts)
            # Reset, not politely closed: their sockets are gone at once, read or not.
            await until(lambda: not any(map(is_open, socks)), "their sockets are reset", 30)
            # Nothing is held for them any more: the table and the hub let them go.
            await until(lambda: len(actor.peers) == 1 and hub.edge.gate.open_connections == 1,
                        "the table and the hub let them go", 30)
            # The game goes on for the real player.
            seen = player.events
            await until(lambda: player.events > seen + 20, "the game goes on", 60)
        finally:
            player.stop.set()
            await task
            for s in socks:
                s.close()
            await host.close()
    return hub, player, most


def slow_lines(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [r.getMessage() for r in caplog.records if "does not read" in r.getMessage()]


def no_tracebacks(caplog: pytest.LogCaptureFixture) -> None:
    assert not [r for r in caplog.records if r.exc_info or r.levelno >= logging.ERROR], \
        caplog.text


# -- readers that never read -------------------------------------------------------------------

async def test_readers_that_never_read_are_closed_past_the_byte_bound(
        db_url: str, tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.WARNING)
    bound = 1 << 20
    settings = make_settings(db_url, tmp_path, send_backlog_bytes=bound, write_timeout=600.0)
    hub, player, most = await attack(settings, readers=6)
    print(f"\nping p99 of the real player during the attack: {player.p99():.1f} ms "
          f"({player.during} pings); most held for one connection: {most} bytes")
    assert hub.metrics.counts["slow_reader"] == 6
    # What was held for one of them never passed the bound by more than one frame.
    assert most <= bound + 16 * 1024 + FRAME_COST
    lines = slow_lines(caplog)
    assert len(lines) == 6 and all("send_backlog_bytes" in line and "127.0.0.1" in line
                                   for line in lines), lines
    assert player.during and player.p99() < 2000, player.p99()
    no_tracebacks(caplog)


async def test_a_write_that_waits_past_the_write_timeout_is_aborted(
        db_url: str, tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.WARNING)
    settings = make_settings(db_url, tmp_path, send_backlog_bytes=1 << 30, write_timeout=2.0)
    hub, player, _most = await attack(settings, readers=4)
    print(f"\nping p99 of the real player during the attack: {player.p99():.1f} ms "
          f"({player.during} pings)")
    assert hub.metrics.counts["slow_reader"] == 4
    lines = slow_lines(caplog)
    assert len(lines) == 4 and all("write_timeout" in line for line in lines), lines
    no_tracebacks(caplog)


async def test_a_slow_honest_reader_gets_the_largest_burst(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    """With the default bounds, a client on a poor network (40 KB/s) that rejoins a long
    game from its start (the largest burst the server sends: its state and the catch-up,
    bounded by ``catchup_items`` and ``catchup_bytes``) gets all of it."""
    caplog.set_level(logging.WARNING)
    defaults = Settings()
    settings = make_settings(f"sqlite+aiosqlite:///{tmp_path / 'nimmt.db'}", tmp_path)
    assert settings.send_backlog_bytes == defaults.send_backlog_bytes
    assert settings.write_timeout == defaults.write_timeout
    async with running_hub(settings) as (url, hub):
        host = await Client.connect(url, name="Host", lang="sr")
        code = (await host.create_table(rules=GAME)).table.code
        for _ in range(GAME["players"] - 1):  # type: ignore[operator]
            await host.add_bot("easy")
        await host.start()
        await host.play_until_over(timeout=300)
        await host.close()
        port = int(url.rsplit(":", 1)[1])
        burst = await asyncio.to_thread(slow_rejoin, port, str(host.token), code)
        # A burst worth the name: the catch-up full (its newest items, to their bound).
        assert burst > 30_000, burst
        assert hub.metrics.counts["slow_reader"] == 0
    no_tracebacks(caplog)


def slow_rejoin(port: int, token: str, code: str) -> int:
    """Rejoin ``code`` from its start over a small receive buffer, reading 2 KiB every
    50 ms; the bytes received until the catch-up's last frame (blocking)."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    sock.settimeout(60)
    sock.connect(("127.0.0.1", port))
    key = base64.b64encode(os.urandom(16)).decode()
    sock.sendall((f"GET /ws HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nUpgrade: websocket\r\n"
                  f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\n"
                  "Sec-WebSocket-Version: 13\r\n\r\n").encode())
    data = b""
    while b"\r\n\r\n" not in data:
        data += sock.recv(1)
    data = b""
    sock.sendall(ws_frame(json.dumps({"type": "hello", "version": PROTOCOL_VERSION,
                                      "token": token, "table": code, "last_seq": 0})))
    frames: list[bytes] = []
    try:
        while True:
            chunk = sock.recv(2048)
            assert chunk, "the server closed an honest slow reader"
            data += chunk
            while (frame := _take_frame(data)) is not None:
                payload, data = frame
                frames.append(payload)
                if json.loads(payload).get("type") == "events":
                    return sum(map(len, frames))
            time.sleep(0.05)
    finally:
        sock.close()


def _take_frame(data: bytes) -> tuple[bytes, bytes] | None:
    """One unmasked server frame off the front of ``data``: (payload, rest)."""
    if len(data) < 2:
        return None
    n, at = data[1] & 0x7F, 2
    if n == 126:
        if len(data) < 4:
            return None
        n, at = struct.unpack("!H", data[2:4])[0], 4
    elif n == 127:
        if len(data) < 10:
            return None
        n, at = struct.unpack("!Q", data[2:10])[0], 10
    if len(data) < at + n:
        return None
    return data[at:at + n], data[at + n:]


# -- half-sent requests ------------------------------------------------------------------------

async def test_half_sent_requests_are_timed_out_and_capped_per_address(
        tmp_path: Path) -> None:
    """A slowloris from one address: past ``tcp_per_address`` its connections are refused
    at once (429); the others get 408 and are closed at ``header_timeout``. Meanwhile a
    player from another address, connected before and for longer than the timeout, plays;
    and the server logs a line per kind, no traceback."""
    env = {**os.environ, **LIFTED_LIMITS, "NIMMT_DATA_DIR": str(tmp_path),
           "NIMMT_HEADER_TIMEOUT": "5", "NIMMT_TCP_PER_ADDRESS": "40"}
    proc, url = await start_server([], env)
    port = int(url.rsplit(":", 1)[1])
    socks: list[socket.socket] = []
    try:
        other = await Client.connect(url, name="Other", local_addr=("127.0.0.2", 0))
        await other.create_table(rules=SHORT)
        await other.add_bot("easy")
        # The first 40 send half a request; the rest nothing, so that the refusal is read
        # whole (a refused connection's unread bytes would reset it).
        for i in range(200):
            socks.append(await asyncio.to_thread(half_request, port, "127.0.0.1", i < 40))
        await other.start()
        await other.play_until_over(timeout=120)
        await until(lambda: not any(map(is_open, socks)), "the slowloris is closed", 60)
        answers = [await asyncio.to_thread(answer_of, s) for s in socks]
        timed_out = [a for a in answers if a.startswith(b"HTTP/1.1 408 ")]
        refused = [a for a in answers if a.startswith(b"HTTP/1.1 429 ")]
        assert len(timed_out) + len(refused) == 200, answers
        # Every connection let in was timed out; the rest refused (a few more may be let in
        # where one timed out before the last connected, on a slow machine).
        assert len(timed_out) >= 40 and len(refused) >= 150, (len(timed_out), len(refused))
        assert all(b"at most 40 connections" in a for a in refused)
        # The player from elsewhere, connected for longer than the timeout, is still served.
        pong = await other.request({"type": "ping"}, want="pong")
        assert pong.type == "pong"
        await other.close()
        # An HTTP client that keeps its connection alive is served twice on it, and a
        # request left half-sent after an answer is timed out as well.
        first, second, later = await asyncio.to_thread(keep_alive_then_stall, port)
        assert first.startswith(b"HTTP/1.1 200 ") and second.startswith(b"HTTP/1.1 200 ")
        assert later.startswith(b"HTTP/1.1 408 "), later
    finally:
        for s in socks:
            s.close()
        proc.terminate()
        _out, err = await asyncio.to_thread(proc.communicate, timeout=60)
    assert "Traceback" not in err, err
    assert "(header_timeout)" in err and "(tcp_per_address)" in err, err
    # One line per kind per interval, not one per connection.
    assert len(err.splitlines()) < 20, err


def keep_alive_then_stall(port: int) -> tuple[bytes, bytes, bytes]:
    """Two requests on one connection, then half of a third (blocking)."""
    with socket.create_connection(("127.0.0.1", port), timeout=30) as sock:
        answers = []
        for _ in range(2):
            sock.sendall(b"GET /api HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
            data = b""
            while b"\r\n\r\n" not in data:
                data += sock.recv(4096)
            head, _, body = data.partition(b"\r\n\r\n")
            length = int(next(line.split(b":")[1] for line in head.split(b"\r\n")
                              if line.lower().startswith(b"content-length:")))
            while len(body) < length:
                body += sock.recv(4096)
            answers.append(data)
        sock.sendall(b"GET /api HTTP/1.1\r\n")
        later = answer_of(sock)
    return answers[0], answers[1], later


async def test_a_trusted_proxy_is_not_capped_per_address(tmp_path: Path) -> None:
    """Behind a trusted proxy every connection comes from the proxy: it is not capped per
    address (the proxy must do that), while other peers are."""
    settings = make_settings(f"sqlite+aiosqlite:///{tmp_path / 'nimmt.db'}", tmp_path,
                             tcp_per_address=5, trusted_proxies="127.0.0.1",
                             header_timeout=60.0)
    async with running_server(settings) as url:
        port = int(url.rsplit(":", 1)[1])
        proxied = [await asyncio.to_thread(half_request, port, "127.0.0.1") for _ in range(12)]
        direct = [await asyncio.to_thread(half_request, port, "127.0.0.3") for _ in range(8)]
        try:
            # The proxy's connections came first: once the direct peer's excess is refused,
            # any refusal of theirs would have come too.
            await until(lambda: sum(map(is_open, direct)) == 5, "the direct peer is capped")
            assert all(map(is_open, proxied))
        finally:
            for s in proxied + direct:
                s.close()


async def test_out_of_descriptors_is_one_line_not_a_traceback_storm(tmp_path: Path) -> None:
    """A server with few file descriptors, past them: a line now and then, no traceback;
    and it serves again once the connections are gone."""
    env = {**os.environ, **LIFTED_LIMITS, "NIMMT_DATA_DIR": str(tmp_path),
           "NIMMT_FD_RESERVE": "16", "NIMMT_HEADER_TIMEOUT": "60"}

    def few() -> None:
        resource.setrlimit(resource.RLIMIT_NOFILE, (160, 160))

    log = tmp_path / "server.log"
    proc = subprocess.Popen([NIMMT, "serve", "--port", "0"], stdout=subprocess.PIPE,
                            stderr=log.open("w"), text=True, env=env, preexec_fn=few)
    assert proc.stdout is not None
    line = await asyncio.wait_for(asyncio.to_thread(proc.stdout.readline), 60)
    assert "open http://" in line, line
    url = line.split("open ", 1)[1].split("/ ", 1)[0]
    port = int(url.rsplit(":", 1)[1])
    socks: list[socket.socket] = []
    try:
        for a in range(10):  # under the cap per address, over the descriptors in all
            for _ in range(30):
                socks.append(socket.socket(socket.AF_INET, socket.SOCK_STREAM))
                socks[-1].bind((f"127.0.0.{20 + a}", 0))
                socks[-1].setblocking(False)
                socks[-1].connect_ex(("127.0.0.1", port))
        # A storm would come with the first failed accept, in the same moment.
        await until(lambda: "could not accept connections" in log.read_text(),
                    "the server runs out of descriptors", 60)
        for s in socks:
            s.close()
        socks = []
        client = await Client.connect(url, name="After", local_addr=("127.0.0.2", 0))
        await client.create_table(rules=SHORT)
        await client.close()
    finally:
        for s in socks:
            s.close()
        proc.terminate()
        await asyncio.to_thread(proc.communicate, timeout=60)
    err = log.read_text()
    assert "Traceback" not in err, err
    assert len(err.splitlines()) < 10, err
