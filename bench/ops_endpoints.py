"""What ``/healthz``, ``/readyz`` and ``/metrics`` cost the server, beside ``/api``.

Starts a real ``nimmt serve`` (SQLite in a temporary directory, ``--metrics-address``
on a free port), connects ``--tables`` players who each open a table (so ``/metrics``
has tables and connections to count), then sends ``--requests`` requests to each
route, one after another on one kept-alive connection, and reads the CPU time the
server process spent meanwhile from ``/proc`` (user + system, every thread).

Prints, per route, the CPU time per request, the wall time per request (p50, p99),
the size of the answer, and the CPU ratio to ``/api`` (the server's smallest JSON
answer); the last line is the same as one JSON object. Run::

    .venv/bin/python bench/ops_endpoints.py --tables 200 --requests 2000
"""

from __future__ import annotations

import argparse
import asyncio
import http.client
import json
import os
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from nimmt.client import Client

NIMMT = str(Path(sys.executable).parent / "nimmt")
CLOCK = os.sysconf("SC_CLK_TCK")
SERVER_ENV = {
    "NIMMT_RATE": "10000", "NIMMT_BURST": "10000", "NIMMT_PLAYER_RATE": "10000",
    "NIMMT_PLAYER_BURST": "10000", "NIMMT_ADDRESS_RATE": "10000",
    "NIMMT_ADDRESS_BURST": "10000", "NIMMT_NAMES_PER_MINUTE": "100000",
    "NIMMT_CONNECTIONS_PER_ADDRESS": "100000", "NIMMT_TCP_PER_ADDRESS": "100000",
    "NIMMT_TABLES_PER_ADDRESS": "100000", "NIMMT_RUNNING_PER_ADDRESS": "100000",
    "NIMMT_BOT_WORKERS": "1",
}


def cpu_seconds(pid: int) -> float:
    """User + system CPU time of process ``pid`` so far (all its threads)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / CLOCK


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def measure(pid: int, port: int, path: str, requests: int) -> dict[str, Any]:
    """``requests`` GETs of ``path`` on one kept-alive connection: the server's CPU and the
    wall time of each."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    walls: list[float] = []
    size = 0
    statuses: set[int] = set()
    cpu0 = cpu_seconds(pid)
    for _ in range(requests):
        t0 = time.perf_counter()
        conn.request("GET", path)
        resp = conn.getresponse()
        body = resp.read()
        walls.append(time.perf_counter() - t0)
        statuses.add(resp.status)
        size = len(body)
    cpu = cpu_seconds(pid) - cpu0
    conn.close()
    walls.sort()
    return {"route": path, "status": sorted(statuses), "bytes": size,
            "cpu_us": 1e6 * cpu / requests,
            "wall_p50_us": 1e6 * statistics.median(walls),
            "wall_p99_us": 1e6 * walls[int(0.99 * (len(walls) - 1))]}


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tables", type=int, default=200)
    parser.add_argument("--requests", type=int, default=2000)
    args = parser.parse_args()
    tmp = tempfile.mkdtemp(prefix="nimmt-ops-")
    ops_port = free_port()
    env = {**os.environ, **SERVER_ENV, "NIMMT_DATA_DIR": tmp}
    proc = subprocess.Popen([NIMMT, "serve", "--port", "0", "--metrics-address",
                             f"127.0.0.1:{ops_port}"], stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL, text=True, env=env)
    clients: list[Client] = []
    try:
        assert proc.stdout is not None
        line = await asyncio.wait_for(asyncio.to_thread(proc.stdout.readline), 120)
        if "open http://" not in line:
            raise RuntimeError(f"the server did not start: {line!r}")
        url = line.split("open ", 1)[1].split("/ ", 1)[0]
        port = int(url.rsplit(":", 1)[1])
        for i in range(args.tables):
            c = await Client.connect(url, name=f"Ops{i}")
            await c.create_table(rules={"preset": "classic", "players": 4})
            clients.append(c)
        rows = []
        for where, path in ((port, "/api"), (port, "/healthz"), (port, "/readyz"),
                            (ops_port, "/metrics")):
            rows.append(await asyncio.to_thread(measure, proc.pid, where, path,
                                                args.requests))
        base = rows[0]["cpu_us"] or 1e-9
        print(f"{args.tables} tables and connections; {args.requests} requests a route, one "
              "at a time")
        print(f"{'route':10} {'status':>7} {'bytes':>7} {'CPU/request':>12} {'vs /api':>8} "
              f"{'wall p50':>9} {'wall p99':>9}")
        for r in rows:
            r["vs_api"] = r["cpu_us"] / base
            print(f"{r['route']:10} {r['status'][0]:>7} {r['bytes']:>7} "
                  f"{r['cpu_us']:>9.0f} us {r['vs_api']:>7.2f}x {r['wall_p50_us']:>6.0f} us "
                  f"{r['wall_p99_us']:>6.0f} us")
        print(json.dumps({"tables": args.tables, "requests": args.requests, "routes": rows}))
    finally:
        for c in clients:
            await c.close()
        proc.send_signal(signal.SIGINT)
        try:
            proc.wait(60)
        except subprocess.TimeoutExpired:
            proc.kill()


if __name__ == "__main__":
    asyncio.run(main())
