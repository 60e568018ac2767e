"""Cluster mode: what a read of a long game costs the process that does not own its table.

Starts two real ``nimmt serve --redis`` processes over a fresh PostgreSQL database
and the Redis of this machine. A host on the first process (the table's owner)
opens a ten-seat table with nine ``random`` bots, ``--rounds`` rounds long, starts
it and disconnects (the default player takes the seat), and the game plays to its end.
Then ``--requests`` reads of the table (``GET /api/tables/{code}``, then
``GET /api/speech/{code}``) are sent to the *second* process, one after another,
and the CPU time each process spent meanwhile is read from ``/proc`` (user +
system, every thread). The answers are checked against the owner's own.

The last line is one JSON object: the table's log length, per route the CPU
seconds per request at the non-owner and at the owner, the wall time per request
(p50, max), and whether every answer matched the owner's. Run::

    .venv/bin/python bench/cluster_reads.py --rounds 100 --requests 20
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import signal
import subprocess
import sys
import tempfile
import time
import urllib.request
import uuid
from pathlib import Path
from typing import Any

import psycopg
import redis

from nimmt.client import Client

NIMMT = str(Path(sys.executable).parent / "nimmt")
PG = os.environ.get("NIMMT_BENCH_PG", "postgresql://postgres@127.0.0.1:5432/test")
REDIS = os.environ.get("NIMMT_BENCH_REDIS", "redis://127.0.0.1:6379/0")
SERVER_ENV = {
    "NIMMT_BOT_WORKERS": "1", "NIMMT_BOT_SECONDS": "0.05", "NIMMT_REVEAL_PACE": "0",
    "NIMMT_ROUND_PAUSE": "0",
    "NIMMT_LISTEN_CPS": "0", "NIMMT_DISCONNECT_GRACE": "0", "NIMMT_LEASE_TTL": "10",
    "NIMMT_HEARTBEAT": "0.5",
}
CLOCK = os.sysconf("SC_CLK_TCK")


def cpu_seconds(pid: int) -> float:
    """User + system CPU time of process ``pid`` so far (all its threads)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / CLOCK


def get(url: str) -> Any:
    with urllib.request.urlopen(url, timeout=120) as resp:
        return json.loads(resp.read())


async def start(env: dict[str, str]) -> tuple[subprocess.Popen[str], str]:
    proc = subprocess.Popen([NIMMT, "serve", "--port", "0"], stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL, text=True, env=env)
    assert proc.stdout is not None
    line = await asyncio.wait_for(asyncio.to_thread(proc.stdout.readline), 120)
    if "open http://" not in line:
        raise RuntimeError(f"the server did not start: {line!r}")
    return proc, line.split("open ", 1)[1].split("/ ", 1)[0]


async def long_game(url: str, rounds: int) -> str:
    """A ten-seat game of ``rounds`` rounds played by bots and the default player, over."""
    host = await Client.connect(url, name="Host")
    code = (await host.create_table(rules={"preset": "classic", "players": 10, "end": "rounds",
                                           "rounds": rounds})).table.code
    for _ in range(9):
        await host.add_bot("random")
    await host.start()
    # The host goes away without leaving: the default player takes the seat at once (no
    # grace), and the table stays open after the game (a leave would close it).
    await host.close()
    while (await asyncio.to_thread(get, f"{url}/api/tables/{code}"))["status"] != "over":
        await asyncio.sleep(1.0)
    return code


async def measure(owner: tuple[subprocess.Popen[str], str],
                  other: tuple[subprocess.Popen[str], str], path: str, n: int
                  ) -> dict[str, Any]:
    """``n`` reads of ``path`` at ``other``: CPU per request of each process, wall times,
    and whether each answer is the owner's."""
    expected = await asyncio.to_thread(get, owner[1] + path)
    walls: list[float] = []
    same = True
    cpu_other, cpu_owner = cpu_seconds(other[0].pid), cpu_seconds(owner[0].pid)
    for _ in range(n):
        t0 = time.perf_counter()
        got = await asyncio.to_thread(get, other[1] + path)
        walls.append(time.perf_counter() - t0)
        same = same and got == expected
    cpu_other = cpu_seconds(other[0].pid) - cpu_other
    cpu_owner = cpu_seconds(owner[0].pid) - cpu_owner
    walls.sort()
    return {"cpu_s_per_request_non_owner": round(cpu_other / n, 4),
            "cpu_s_per_request_owner": round(cpu_owner / n, 4),
            "wall_ms_p50": round(1000 * walls[len(walls) // 2], 1),
            "wall_ms_max": round(1000 * walls[-1], 1), "same_as_owner": same}


async def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--rounds", type=int, default=100)
    ap.add_argument("--requests", type=int, default=20)
    args = ap.parse_args()
    database = f"nimmt_bench_{uuid.uuid4().hex[:10]}"
    with psycopg.connect(PG, autocommit=True) as admin:
        admin.execute(f'CREATE DATABASE "{database}"')
    base = PG.rsplit("/", 1)[0].split("://", 1)[1]
    prefix = f"nimmt-bench-{uuid.uuid4().hex[:10]}:"
    procs: list[tuple[subprocess.Popen[str], str]] = []
    try:
        with tempfile.TemporaryDirectory() as tmp:
            env = {**os.environ, **SERVER_ENV, "NIMMT_DATA_DIR": tmp, "NIMMT_REDIS": REDIS,
                   "NIMMT_REDIS_PREFIX": prefix,
                   "NIMMT_DB": f"postgresql+psycopg://{base}/{database}"}
            procs.append(await start(env))
            procs.append(await start(env))
            t0 = time.monotonic()
            code = await long_game(procs[0][1], args.rounds)
            played = time.monotonic() - t0
            with psycopg.connect(f"{PG.rsplit('/', 1)[0]}/{database}") as conn:
                row = conn.execute("SELECT count(*) FROM table_log").fetchone()
                entries = int(row[0]) if row else 0
            out: dict[str, Any] = {"rounds": args.rounds, "log_entries": entries,
                                   "seconds_to_play": round(played, 1),
                                   "requests": args.requests}
            for name, path in (("table", f"/api/tables/{code}"),
                               ("speech", f"/api/speech/{code}?after=0")):
                out[name] = await measure(procs[0], procs[1], path, args.requests)
                print(name, out[name], flush=True)
            print(json.dumps(out))
    finally:
        for proc, _ in procs:
            proc.send_signal(signal.SIGINT)
        for proc, _ in procs:
            try:
                proc.wait(30)
            except subprocess.TimeoutExpired:
                proc.kill()
        r = redis.Redis.from_url(REDIS)
        keys = list(r.scan_iter(f"{prefix}*"))
        if keys:
            r.delete(*keys)
        with psycopg.connect(PG, autocommit=True) as admin:
            admin.execute(f'DROP DATABASE IF EXISTS "{database}" WITH (FORCE)')


if __name__ == "__main__":
    asyncio.run(main())
