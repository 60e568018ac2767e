"""Slow clients against a real server: readers that never read, and a slowloris.

Starts a real ``nimmt serve`` process (SQLite in a temporary directory) and attacks
it from this machine's loopback, in three parts:

1. **Slow readers.** A victim hosts a ten-player table (nine ``easy`` bots, a
   250-point game, rematches on), answers every decision at once and pings the
   server 20 times a second. ``--readers`` spectators (raw sockets with a 4 KiB
   receive buffer) do the WebSocket handshake, say hello, spectate the table and
   then never read again. Measured for at most ``--seconds``: the server's resident
   memory (peak growth over its size before the attack), the bytes queued in its
   kernel send buffers toward them (``ss``), when each one was closed (seconds
   after it stopped reading; a connection still open at the end counts as not
   closed), and the victim's ping round trips (p50, p99) in the 3 s before and from
   the attack's start until every reader is closed, 10 s at least. Then
   the same at a table whose game has not started: little reaches the readers
   there, so what closes them is time, not bytes.
2. **Slowloris.** ``--slowloris`` connections from 127.0.0.1, each sending an HTTP
   request's first header lines and never the blank line that ends them, are
   held for ``--hold`` seconds. Measured: how many are still open after 2 s and at
   the end, and whether a player from 127.0.0.2 can connect, open a table and
   ping meanwhile.
3. **Out of descriptors.** A second server runs with ``--nofile`` file descriptors
   (``RLIMIT_NOFILE``); half-sent requests from 40 addresses (127.0.0.10–49, each
   under the per-address cap) exhaust them for ``--hold`` seconds. Measured: the
   lines of its log, the tracebacks among them, and whether it serves again once
   the attack ends.

Every part counts the tracebacks the server wrote. Run::

    .venv/bin/python bench/attack_slow.py

The last line is one JSON object of the figures.
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import contextlib
import json
import os
import random
import resource
import socket
import struct
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from nimmt.client import Client
from nimmt.wire import PROTOCOL_VERSION

NIMMT = str(Path(sys.executable).parent / "nimmt")
RULES = {"preset": "classic", "players": 10, "limit": 250}
PING_EVERY = 0.05
#: Seconds of the victim's pings measured from the attack's start at least (the readers
#: may be closed sooner).
PING_WINDOW = 10.0
#: TCP_INFO's first byte is the connection's state; 1 is ESTABLISHED.
TCP_ESTABLISHED = 1


def percentile(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    values = sorted(values)
    return values[min(len(values) - 1, int(q * len(values)))]


def is_open(sock: socket.socket) -> bool:
    """Whether the server has not closed (or reset) this connection: without reading."""
    info = sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_INFO, 8)
    return info[0] == TCP_ESTABLISHED


def ws_frame(text: str) -> bytes:
    """One masked text frame, as a client sends it."""
    data = text.encode()
    mask = os.urandom(4)
    n = len(data)
    head = bytes([0x81])
    if n < 126:
        head += bytes([0x80 | n])
    elif n < 1 << 16:
        head += bytes([0x80 | 126]) + struct.pack("!H", n)
    else:
        head += bytes([0x80 | 127]) + struct.pack("!Q", n)
    return head + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(data))


def non_reader(host: str, port: int, name: str, table: str) -> socket.socket:
    """A spectator that never reads: a small receive buffer, the handshake, hello and
    spectate; then nothing is read from it again."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    sock.settimeout(30)
    sock.connect((host, port))
    key = base64.b64encode(os.urandom(16)).decode()
    sock.sendall((f"GET /ws HTTP/1.1\r\nHost: {host}:{port}\r\nUpgrade: websocket\r\n"
                  f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\n"
                  "Sec-WebSocket-Version: 13\r\n\r\n").encode())
    answer = b""
    while b"\r\n\r\n" not in answer:
        chunk = sock.recv(1)  # byte by byte: nothing past the handshake is read
        if not chunk:
            raise ConnectionError("the server closed during the handshake")
        answer += chunk
    if b" 101 " not in answer.split(b"\r\n", 1)[0]:
        raise ConnectionError(answer.decode(errors="replace"))
    sock.sendall(ws_frame(json.dumps({"type": "hello", "version": PROTOCOL_VERSION,
                                      "name": name})))
    sock.sendall(ws_frame(json.dumps({"type": "spectate", "table": table})))
    return sock


def half_request(host: str, port: int, source: str) -> socket.socket | None:
    """A connection that sends the start of a request's headers and never their end."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setblocking(False)
    try:
        sock.bind((source, 0))
        sock.connect_ex((host, port))
    except OSError:
        sock.close()
        return None
    return sock


def send_start(sock: socket.socket, host: str) -> None:
    with contextlib.suppress(OSError):
        sock.send(f"GET /api HTTP/1.1\r\nHost: {host}\r\nUser-Agent: slow\r\n".encode())


def rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def send_queue_mb(port: int) -> float:
    """Bytes waiting in the kernel's send buffers of the server's connections."""
    out = subprocess.run(["ss", "-tnH", "sport", "=", f":{port}"], capture_output=True,
                         text=True, check=False).stdout
    total = 0
    for line in out.splitlines():
        fields = line.split()
        if len(fields) >= 3 and fields[2].isdigit():
            total += int(fields[2])
    return total / (1 << 20)


class Server:
    """``nimmt serve`` in its own process, with a data folder of its own and its log there."""

    def __init__(self, tmp: str, env: dict[str, str], nofile: int | None = None) -> None:
        data = Path(tmp) / f"server-{len(os.listdir(tmp))}"
        data.mkdir()
        env = {**env, "NIMMT_DATA_DIR": str(data)}
        self.log = data / "server.log"
        self._err = self.log.open("w")

        def limit() -> None:
            if nofile is not None:
                resource.setrlimit(resource.RLIMIT_NOFILE, (nofile, nofile))

        self.proc = subprocess.Popen([NIMMT, "serve", "--port", "0"], stdout=subprocess.PIPE,
                                     stderr=self._err, text=True, env=env, preexec_fn=limit)
        assert self.proc.stdout is not None
        line = self.proc.stdout.readline()
        if "open http://" not in line:
            raise SystemExit(f"could not start the server: {line!r} {self.log.read_text()}")
        self.url = line.split("open ", 1)[1].split("/ ", 1)[0]
        self.port = int(self.url.rsplit(":", 1)[1])

    def tracebacks(self) -> int:
        return self.log.read_text(errors="replace").count("Traceback (most recent call last)")

    def log_lines(self) -> int:
        return len(self.log.read_text(errors="replace").splitlines())

    def stop(self) -> None:
        self.proc.terminate()
        try:
            self.proc.wait(30)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        self._err.close()


async def victim(client: Client, phases: list[list[float]], stop: asyncio.Event) -> None:
    """Answer every decision at once, rematch, and ping 20 times a second; each round trip
    goes to the newest list of ``phases``."""
    ws = client.ws
    loop = asyncio.get_running_loop()
    sent: dict[int, float] = {}
    rng = random.Random(1)

    async def pinger() -> None:
        n = 0
        while not stop.is_set():
            n += 1
            sent[n] = loop.time()
            await ws.send(json.dumps({"type": "ping", "ref": n}))
            await asyncio.sleep(PING_EVERY)

    task = asyncio.create_task(pinger())
    prompt = client.prompt.model_dump() if client.prompt is not None else None
    answered: set[str] = set()
    try:
        while not stop.is_set():
            if prompt is not None and prompt["key"] not in answered:
                answered.add(prompt["key"])
                value = rng.choice(prompt["options"])
                kind = {"card": "play_card", "row": "take_row", "draft": "draft_card"}
                field = "row" if prompt["kind"] == "row" else "card"
                await ws.send(json.dumps({"type": kind[prompt["kind"]], field: value}))
            try:
                msg = json.loads(await asyncio.wait_for(ws.recv(), 1.0))
            except TimeoutError:
                continue
            if msg["type"] == "pong":
                t0 = sent.pop(msg["ref"], None)
                if t0 is not None:
                    phases[-1].append((loop.time() - t0) * 1000)
            elif msg["type"] in ("events", "table_state"):
                prompt = msg["prompt"]
                if msg["type"] == "events" and any(
                        (it.get("event") or {}).get("type") == "game_over"
                        for it in msg["items"]):
                    await ws.send(json.dumps({"type": "rematch"}))
    finally:
        task.cancel()


async def slow_readers(tmp: str, env: dict[str, str], readers: int, seconds: float,
                       game: bool) -> dict[str, Any]:
    """``readers`` spectators that never read, at the victim's table: a game played at
    machine speed (``game``), or an unstarted table (only their own frames reach them)."""
    server = Server(tmp, env)
    try:
        host = await Client.connect(server.url, name="victim")
        state = await host.create_table(rules=RULES)
        code = state.table.code
        for _ in range(RULES["players"] - 1):  # type: ignore[operator]
            await host.add_bot("easy")
        if game:
            await host.start()
        stop = asyncio.Event()
        base_pings: list[float] = []
        attack_pings: list[float] = []
        phases = [base_pings]
        task = asyncio.create_task(victim(host, phases, stop))
        await asyncio.sleep(3.0)
        rss_before = rss_mb(server.proc.pid)
        phases.append(attack_pings)
        socks = [await asyncio.to_thread(non_reader, "127.0.0.1", server.port, f"slow{i}", code)
                 for i in range(readers)]
        started = time.monotonic()
        closed: dict[int, float] = {}
        rss_peak, sendq_peak = rss_before, 0.0
        while time.monotonic() - started < seconds and (
                len(closed) < readers or time.monotonic() - started < PING_WINDOW):
            await asyncio.sleep(0.25)
            rss_peak = max(rss_peak, rss_mb(server.proc.pid))
            sendq_peak = max(sendq_peak, send_queue_mb(server.port))
            for i, s in enumerate(socks):
                if i not in closed and not is_open(s):
                    closed[i] = time.monotonic() - started
        await asyncio.sleep(1.0)
        rss_after = rss_mb(server.proc.pid)
        sendq_after = send_queue_mb(server.port)
        stop.set()
        await task
        await host.close()
        for s in socks:
            s.close()
        times = sorted(closed.values())
        return {
            "readers": readers,
            "seconds": round(time.monotonic() - started, 1),
            "closed": len(closed),
            "closed_after_s_median": round(percentile(times, 0.5), 1) if times else None,
            "closed_after_s_max": round(times[-1], 1) if times else None,
            "rss_before_mb": round(rss_before, 1),
            "rss_held_peak_mb": round(rss_peak - rss_before, 1),
            "rss_held_after_mb": round(rss_after - rss_before, 1),
            "kernel_sendq_peak_mb": round(sendq_peak, 1),
            "kernel_sendq_after_mb": round(sendq_after, 1),
            "victim_ping_p50_ms_before": round(percentile(base_pings, 0.5), 2),
            "victim_ping_p99_ms_before": round(percentile(base_pings, 0.99), 2),
            "victim_ping_p50_ms": round(percentile(attack_pings, 0.5), 2),
            "victim_ping_p99_ms": round(percentile(attack_pings, 0.99), 2),
            "victim_pings": len(attack_pings),
            "tracebacks": server.tracebacks(),
        }
    finally:
        server.stop()


async def other_address_plays(url: str) -> bool:
    """A player from 127.0.0.2 connects, opens a table and gets a pong."""
    try:
        client = await Client.connect(url, name=f"other{random.randrange(10**6)}",
                                      local_addr=("127.0.0.2", 0), open_timeout=10)
        await client.create_table(rules={"preset": "classic", "players": 2})
        await client.request({"type": "ping"}, want="pong", timeout=10)
        await client.close()
        return True
    except Exception:
        return False


async def slowloris(tmp: str, env: dict[str, str], count: int, hold: float) -> dict[str, Any]:
    server = Server(tmp, env)
    socks: list[socket.socket] = []
    try:
        for _ in range(count):
            sock = half_request("127.0.0.1", server.port, "127.0.0.1")
            if sock is not None:
                socks.append(sock)
        await asyncio.sleep(0.5)
        for sock in socks:
            send_start(sock, "127.0.0.1")
        started = time.monotonic()
        await asyncio.sleep(2.0)
        open_2s = sum(map(is_open, socks))
        plays = await other_address_plays(server.url)
        await asyncio.sleep(max(0.0, hold - (time.monotonic() - started)))
        open_end = sum(map(is_open, socks))
        return {"connections": len(socks), "open_after_2s": open_2s,
                f"open_after_{hold:g}s": open_end, "other_address_plays": plays,
                "tracebacks": server.tracebacks()}
    finally:
        for sock in socks:
            sock.close()
        server.stop()


async def out_of_descriptors(tmp: str, env: dict[str, str], nofile: int,
                             hold: float) -> dict[str, Any]:
    server = Server(tmp, env, nofile=nofile)
    socks: list[socket.socket] = []
    try:
        lines_before = server.log_lines()
        per = nofile // 40 + 8  # past the descriptors in all, under any per-address cap
        for a in range(40):
            for _ in range(per):
                sock = half_request("127.0.0.1", server.port, f"127.0.0.{10 + a}")
                if sock is not None:
                    socks.append(sock)
        await asyncio.sleep(0.5)
        for sock in socks:
            send_start(sock, "127.0.0.1")
        await asyncio.sleep(hold)
        lines = server.log_lines() - lines_before
        tracebacks = server.tracebacks()
        for sock in socks:
            sock.close()
        socks = []
        await asyncio.sleep(2.0)
        serves = await other_address_plays(server.url)
        return {"nofile": nofile, "connections": per * 40, "hold_s": hold,
                "log_lines": lines, "tracebacks": tracebacks, "serves_after": serves}
    finally:
        for sock in socks:
            sock.close()
        server.stop()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--readers", type=int, default=16)
    parser.add_argument("--seconds", type=float, default=90.0,
                        help="longest wait for the slow readers to be closed")
    parser.add_argument("--slowloris", type=int, default=3000)
    parser.add_argument("--hold", type=float, default=15.0,
                        help="seconds the half-sent requests are held")
    parser.add_argument("--nofile", type=int, default=1024,
                        help="file descriptors of the server of part 3")
    args = parser.parse_args()
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    del soft
    with tempfile.TemporaryDirectory() as tmp:
        # The victim plays at machine speed and every client says hello from loopback:
        # those limits are raised; the ones under test keep their defaults.
        limits = {f"NIMMT_{k}": "10000" for k in (
            "RATE", "BURST", "PLAYER_RATE", "PLAYER_BURST", "ADDRESS_RATE", "ADDRESS_BURST",
            "NAMES_PER_MINUTE")}
        env = {**os.environ, **limits, "NIMMT_REVEAL_PACE": "0",
               "NIMMT_ROUND_PAUSE": "0", "NIMMT_LISTEN_CPS": "0"}
        result = {
            "slow_readers": asyncio.run(slow_readers(tmp, env, args.readers, args.seconds,
                                                     game=True)),
            "quiet_readers": asyncio.run(slow_readers(tmp, env, args.readers, args.seconds,
                                                      game=False)),
            "slowloris": asyncio.run(slowloris(tmp, env, args.slowloris, args.hold)),
            "out_of_descriptors": asyncio.run(out_of_descriptors(tmp, env, args.nofile,
                                                                 args.hold)),
            "load_average": round(os.getloadavg()[0], 2),
        }
    s, d = result["slowloris"], result["out_of_descriptors"]
    for key, where in (("slow_readers", "a game"), ("quiet_readers", "an unstarted table")):
        r = result[key]
        print(f"slow readers at {where}: {r['readers']} spectators that never read; "
              f"{r['closed']} closed (median {r['closed_after_s_median']} s, last "
              f"{r['closed_after_s_max']} s); server memory held {r['rss_held_peak_mb']} MB at "
              f"most, {r['rss_held_after_mb']} MB after; kernel send queues "
              f"{r['kernel_sendq_peak_mb']} MB at most, {r['kernel_sendq_after_mb']} MB after; "
              f"victim ping p99 {r['victim_ping_p99_ms_before']} ms before, "
              f"{r['victim_ping_p99_ms']} ms during")
    print(f"slowloris: {s['connections']} half-sent requests from one address; "
          f"{s['open_after_2s']} open after 2 s, {s[f'open_after_{args.hold:g}s']} after "
          f"{args.hold:g} s; another address plays: {s['other_address_plays']}")
    print(f"out of descriptors ({d['nofile']}): {d['log_lines']} log lines, "
          f"{d['tracebacks']} tracebacks in {d['hold_s']:g} s; serves after: "
          f"{d['serves_after']}")
    print(json.dumps(result))


if __name__ == "__main__":
    main()
