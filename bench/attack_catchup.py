"""Catch-up and heavy reads of a long game, attacked from one address (issue 23, findings 1 and 7).

Writes a long game straight into a SQLite store (by default 600 rounds at ten
seats, some 156,000 stream items: the size of the game the issue made with a
host, nine ``random`` bots and a 10,000-point limit, which ``max_point_limit``
no longer lets a table ask for), and the record of a whole 10,000-point game,
then starts a real ``nimmt serve`` on it with the default settings (only new
names per minute and the message rates lifted: every client here is on one
address, and what is measured is the cost of each request). Then, while a
victim connection pings the server every 20 ms:

1. **Catch-ups.** Ten connections each spectate the game from its first item
   (``last_seq`` 0) ``--rounds`` times, as fast as they are answered; then one
   connection asks for ten catch-ups and never reads.
2. **Replays.** Two requesters ask for ``/api/games/{id}/replay`` of the long
   record again and again, in three languages, and two for games that do not
   exist, from the same address, for ``--seconds``.

Measured: the largest frame, the server process's CPU seconds per request (its
event loop's interpreter; a replay is built in a read process, counted apart),
the server's memory before and after, the victim's ping p50/p99, the refusals.
The last line is one JSON object of the figures. Run::

    .venv/bin/python bench/attack_catchup.py
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import sys
import tempfile
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

from websockets.asyncio.client import connect

from nimmt.client import Client, ws_url

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests" / "server"))

from long_games import long_record, store_game, store_table  # noqa: E402
from server_helpers import start_server  # noqa: E402

PING_EVERY = 0.02


def cpu_seconds(pid: int) -> float:
    """User + system CPU seconds of process ``pid`` so far."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def children_cpu(pid: int) -> float:
    """CPU seconds of ``pid``'s living children (the read process, bot workers)."""
    total = 0.0
    for task in Path(f"/proc/{pid}/task").iterdir():
        kids = (task / "children").read_text().split() if (task / "children").exists() else []
        for kid in kids:
            with contextlib.suppress(OSError, ValueError):
                total += cpu_seconds(int(kid))
    return total


def percentile(values: list[float], q: float) -> float:
    values = sorted(values)
    return values[min(len(values) - 1, int(q * len(values)))] if values else float("nan")


class Victim:
    """A player who pings every 20 ms; round trips kept per phase."""

    def __init__(self, client: Client) -> None:
        self.client = client
        self.rtts: list[float] = []
        self.stop = asyncio.Event()

    async def run(self) -> None:
        while not self.stop.is_set():
            t0 = time.perf_counter()
            await self.client.request({"type": "ping"}, want="pong", timeout=120)
            self.rtts.append(time.perf_counter() - t0)
            await asyncio.sleep(PING_EVERY)


async def catch_ups(url: str, code: str, name: str, rounds: int) -> int:
    """Spectate ``code`` from its first item ``rounds`` times, reading every frame and
    parsing none; the largest frame's bytes."""
    async with connect(ws_url(url), max_size=None, compression=None) as ws:
        await ws.send(json.dumps({"type": "hello", "name": name}))
        await ws.recv()
        largest = 0
        for _ in range(rounds):
            await ws.send(json.dumps({"type": "spectate", "table": code, "last_seq": 0}))
            while True:
                frame = await ws.recv()
                text = frame if isinstance(frame, str) else frame.decode()
                largest = max(largest, len(text.encode()))
                if '"type":"events"' in text[:60]:
                    break
                if '"type":"error"' in text[:60]:
                    raise RuntimeError(f"refused: {text}")
        return largest


async def never_reads(url: str, code: str, requests: int) -> None:
    """Ask for ``requests`` catch-ups and read nothing for a while."""
    async with connect(ws_url(url), max_size=None, compression=None) as ws:
        await ws.send(json.dumps({"type": "hello", "name": "Sleeper"}))
        for _ in range(requests):
            await ws.send(json.dumps({"type": "spectate", "table": code, "last_seq": 0}))
        await asyncio.sleep(3)


def get(url: str) -> tuple[int, int]:
    """Status and body bytes of a GET."""
    try:
        with urllib.request.urlopen(url, timeout=300) as resp:
            return resp.status, len(resp.read())
    except urllib.error.HTTPError as err:
        return err.code, len(err.read())


async def phase(victim: Victim, work: Any) -> tuple[Any, dict[str, float]]:
    """Run ``work`` while the victim pings; its result and the pings' figures."""
    victim.rtts = []
    victim.stop.clear()
    pinger = asyncio.create_task(victim.run())
    await asyncio.sleep(0.5)  # some pings before, as a baseline within the phase
    result = await work
    victim.stop.set()
    await pinger
    return result, {"ping_p50_ms": round(percentile(victim.rtts, 0.5) * 1000, 1),
                    "ping_p99_ms": round(percentile(victim.rtts, 0.99) * 1000, 1),
                    "ping_max_ms": round(max(victim.rtts) * 1000, 1),
                    "pings": len(victim.rtts)}


async def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--game-rounds", type=int, default=600)
    ap.add_argument("--rounds", type=int, default=20, help="catch-ups per attacker")
    ap.add_argument("--seconds", type=float, default=30.0, help="of replay requests")
    args = ap.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="nimmt-attack-"))
    db = f"sqlite+aiosqlite:///{tmp / 'nimmt.db'}"
    t0 = time.perf_counter()
    long = await store_table(db, rounds=args.game_rounds)
    game_id = await store_game(db, long_record(limit=10_000))
    print(f"stored a game of {long.table.logged.seq} items ({len(long.rows)} log entries) and a "
          f"10,000-point record in {time.perf_counter() - t0:.1f} s")
    # Every client here is on one address: the message rates are lifted, so what is
    # measured is what each request costs (the limits on reads themselves stay).
    env = {**os.environ, "NIMMT_DATA_DIR": str(tmp), "NIMMT_DB": db,
           "NIMMT_NAMES_PER_MINUTE": "1000", "NIMMT_RATE": "10000", "NIMMT_BURST": "10000",
           "NIMMT_PLAYER_RATE": "10000", "NIMMT_PLAYER_BURST": "10000",
           "NIMMT_ADDRESS_RATE": "10000", "NIMMT_ADDRESS_BURST": "10000",
           "NIMMT_ADDRESS_BYTES": "1e9", "NIMMT_ADDRESS_BYTES_BURST": "1000000000"}
    proc, url = await start_server([], env)
    result: dict[str, Any] = {"items": long.table.logged.seq, "log_entries": len(long.rows),
                              "load": round(os.getloadavg()[0], 1)}
    try:
        victim = Victim(await Client.connect(url, name="Victim"))
        pid = proc.pid
        rss0, cpu0 = rss_mb(pid), cpu_seconds(pid)

        async def attack() -> list[int]:
            return await asyncio.gather(*(catch_ups(url, long.code, f"Late{i}", args.rounds)
                                          for i in range(10)))

        t0 = time.perf_counter()
        sizes, pings = await phase(victim, attack())
        took = time.perf_counter() - t0
        n = 10 * args.rounds
        cpu1 = cpu_seconds(pid)
        await phase(victim, never_reads(url, long.code, 10))
        rss1 = rss_mb(pid)
        result["catchup"] = {
            "requests": n, "largest_frame_bytes": max(sizes),
            "cpu_s_per_request": round((cpu1 - cpu0) / n, 4), "wall_s": round(took, 2),
            "rss_mb_before": round(rss0), "rss_mb_after": round(rss1), **pings}

        lang = iter(["en", "sr", "cs"] * 1000)
        codes: dict[int, int] = {}
        biggest = [0]
        read0 = children_cpu(pid)
        cpu0 = cpu_seconds(pid)

        asked = [0]

        async def requester(real: bool) -> None:
            end = time.perf_counter() + args.seconds
            while time.perf_counter() < end:
                count = asked[0] = asked[0] + 1
                path = (f"/api/games/{game_id}/replay?lang={next(lang)}" if real
                        else f"/api/games/{10_000 + count}/replay")
                status, size = await asyncio.to_thread(get, url + path)
                codes[status] = codes.get(status, 0) + 1
                biggest[0] = max(biggest[0], size)

        async def replays() -> int:
            await asyncio.gather(*(requester(real) for real in (True, True, False, False)))
            return asked[0]

        t0 = time.perf_counter()
        asked, pings = await phase(victim, replays())
        took = time.perf_counter() - t0
        cpu1 = cpu_seconds(pid)
        result["replay"] = {
            "requests": asked, "statuses": {str(k): v for k, v in sorted(codes.items())},
            "largest_answer_bytes": biggest[0],
            "loop_cpu_s_per_request": round((cpu1 - cpu0) / asked, 4),
            "read_process_cpu_s": round(children_cpu(pid) - read0, 2),
            "wall_s": round(took, 2), "rss_mb_after": round(rss_mb(pid)), **pings}
        await victim.client.close()
    finally:
        proc.terminate()
        proc.wait(30)
    c, r = result["catchup"], result["replay"]
    print(f"catch-ups: {c['requests']} in {c['wall_s']} s, largest frame "
          f"{c['largest_frame_bytes']} B, {c['cpu_s_per_request']} CPU s each, RSS "
          f"{c['rss_mb_before']} -> {c['rss_mb_after']} MB, victim ping p99 "
          f"{c['ping_p99_ms']} ms")
    print(f"replays: {r['requests']} requests {r['statuses']}, largest {r['largest_answer_bytes']}"
          f" B, {r['loop_cpu_s_per_request']} CPU s each on the server's loop, victim ping "
          f"p99 {r['ping_p99_ms']} ms")
    print(json.dumps(result))


if __name__ == "__main__":
    asyncio.run(main())
