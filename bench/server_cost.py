"""What one decision costs the server: its CPU time and the bytes it sends, old build beside new.

A host on a small machine pays for every decision twice: the server's CPU (the fan-out
of the turn to every seat, the frames, the store) and the bytes it sends. Both are
read from outside: one ``nimmt serve`` on SQLite, ``--tables`` tables of ``--seats``
people answering every decision at once (a random legal option, as soon as asked);
the server's own CPU time from ``/proc/PID/stat`` (user + system) over the measured
window, and every byte of every frame the people receive. Per decision: CPU
milliseconds, payload bytes (the frames' text) and wire bytes (what the sockets carried:
frame headers, and payloads compressed where ``--compress`` has the people negotiate
permessage-deflate as browsers do; the Python client and the bots do not).

Two builds are measured in one sitting, alternating (old, new, old, new, ...), since
these machines are noisy: the checkout this script runs from (new) and ``--baseline``
(a git revision, checked out into a temporary worktree: old). Compiled floor-1
modules (mypyc) of the new checkout are used by the old one too where their sources
are the same, so both run the same engine. Run::

    .venv/bin/python bench/server_cost.py --baseline 54de081 --tables 100 --seconds 20

The last line is one JSON object: each build's figures (the median of its runs) and
the ratios new / old.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import urllib.request
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent))
from websockets.asyncio.connection import Connection
from websockets.frames import Frame
from websockets.protocol import Protocol

from nimmt.client import Client
from server_load import Stats, spawn

ROOT = Path(__file__).resolve().parent.parent


def cpu_seconds(pid: int) -> float:
    """User and system CPU seconds of process ``pid``."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(") ", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def checkout(rev: str, into: Path) -> Path:
    """``rev`` of this repository as a worktree in ``into``; its ``src`` with the compiled
    modules of this checkout whose sources are the same."""
    subprocess.run(["git", "-C", str(ROOT), "worktree", "add", "--detach", "-q", str(into),
                    rev], check=True)
    src = into / "src" / "nimmt"
    for built in (ROOT / "src" / "nimmt").rglob("*.so"):
        rel = built.relative_to(ROOT / "src" / "nimmt")
        stem = rel.name.split(".", 1)[0]
        ours = built.parent / f"{stem}.py"
        theirs = src / rel.parent / f"{stem}.py"
        if theirs.is_file() and ours.is_file() and theirs.read_bytes() == ours.read_bytes():
            shutil.copy2(built, src / rel)
    return into / "src"


def protocol(url: str) -> int:
    """The protocol version the server at ``url`` speaks (an older build speaks its own)."""
    with urllib.request.urlopen(url + "/api") as answer:
        return int(json.load(answer)["protocol"])


async def seat(url: str, t: int, seats: int, sem: asyncio.Semaphore, version: int,
               compress: bool) -> list[Client]:
    async with sem:
        rules = {"preset": "classic", "players": seats, "end": "rounds", "rounds": 100}
        host = await Client.connect(url, name=f"t{t}p0", open_timeout=120, version=version,
                                    compress=compress)
        code = (await host.create_table(rules=rules, private=True)).table.code
        clients = [host]
        for i in range(1, seats):
            c = await Client.connect(url, name=f"t{t}p{i}", open_timeout=120,
                                     version=version, compress=compress)
            await c.join(code)
            await c.sit()
            clients.append(c)
        return clients


async def play(client: Client, stats: Stats, counted: list[int], rng: random.Random,
               stop: float) -> None:
    """Answer every prompt at once; count acks and the bytes of every frame received."""
    ws = client.ws
    prompt = client.prompt.model_dump() if client.prompt is not None else None
    answered: set[str] = set()
    try:
        async with asyncio.timeout_at(stop):
            while True:
                if prompt is not None and prompt["key"] not in answered:
                    answered.add(prompt["key"])
                    value = rng.choice(prompt["options"])
                    kind = "play_card" if prompt["kind"] == "card" else "take_row"
                    field = "card" if prompt["kind"] == "card" else "row"
                    await ws.send(f'{{"type":"{kind}","{field}":{value}}}')
                text = await ws.recv()
                counted[0] += len(text) if isinstance(text, bytes) else len(text.encode())
                msg: dict[str, Any] = json.loads(text)
                kind = msg["type"]
                if kind in ("events", "table_state"):
                    prompt = msg.get("prompt")
                elif kind == "ack":
                    stats.acks += 1
                elif kind == "error":
                    stats.errors += 1
    except TimeoutError:
        return


class Wire:
    """The bytes the people's sockets receive (frame headers and, when negotiated,
    compressed payloads: what the server's network link carries), and the payload bytes
    of the frames they held, counted together as they arrive: their ratio over the
    window turns payload bytes into wire bytes."""

    received = 0
    payload = 0

    @classmethod
    def install(cls) -> None:
        """Count the bytes handed to every client connection of this process, and the
        payloads of the frames they made."""
        feed = Connection.data_received
        events = Protocol.events_received

        def counted(self: Connection, data: bytes) -> None:
            cls.received += len(data)
            feed(self, data)

        def frames(self: Protocol) -> list[Any]:
            got = events(self)
            cls.payload += sum(len(e.data) for e in got if isinstance(e, Frame))
            return got

        Connection.data_received = counted  # type: ignore[method-assign]
        Protocol.events_received = frames  # type: ignore[method-assign]


async def measure(url: str, pid: int, tables: int, seats: int, seconds: float,
                  compress: bool = False) -> dict[str, float]:
    sem = asyncio.Semaphore(32)
    version = protocol(url)
    seated = await asyncio.gather(*(seat(url, t, seats, sem, version, compress)
                                    for t in range(tables)))
    await asyncio.gather(*(cs[0].start() for cs in seated))
    # Let the deals go out before the window opens.
    await asyncio.sleep(1.0)
    for cs in seated:
        for c in cs:
            c.inbox.clear()
    stats = Stats()
    counted = [0]
    loop = asyncio.get_running_loop()
    wire0, payload0 = Wire.received, Wire.payload
    cpu0, t0 = cpu_seconds(pid), loop.time()
    await asyncio.gather(*(play(c, stats, counted, random.Random(t * seats + i), t0 + seconds)
                           for t, cs in enumerate(seated) for i, c in enumerate(cs)))
    cpu = cpu_seconds(pid) - cpu0
    elapsed = loop.time() - t0
    wire = (Wire.received - wire0) / max(1, Wire.payload - payload0)  # wire bytes per payload byte
    for cs in seated:
        for c in cs:
            await c.close()
    decisions = max(1, stats.acks)
    return {"decisions_per_s": round(stats.acks / elapsed, 1),
            "cpu_ms_per_decision": round(1000 * cpu / decisions, 4),
            "bytes_per_decision": round(counted[0] / decisions, 1),
            "wire_bytes_per_decision": round(wire * counted[0] / decisions, 1),
            "server_cores": round(cpu / elapsed, 3), "errors": stats.errors}


def run_one(src: Path, tables: int, seats: int, seconds: float, compress: bool
            ) -> dict[str, float]:
    with tempfile.TemporaryDirectory() as tmp:
        many = str(100 * tables + 1000)
        env = {**os.environ, "PYTHONPATH": str(src), "NIMMT_DATA_DIR": tmp,
               "NIMMT_RATE": "1000", "NIMMT_BURST": "1000", "NIMMT_DISCONNECT_GRACE": "600",
               "NIMMT_MAX_TABLES": str(tables + 10), "NIMMT_PLAYER_RATE": "1000",
               "NIMMT_PLAYER_BURST": "1000", "NIMMT_ADDRESS_RATE": "1e9",
               "NIMMT_ADDRESS_BURST": many, "NIMMT_ADDRESS_BYTES": "1e12",
               "NIMMT_ADDRESS_BYTES_BURST": str(1 << 40), "NIMMT_CONNECTIONS_PER_ADDRESS": many,
               "NIMMT_NAMES_PER_MINUTE": many, "NIMMT_TABLES_PER_ADDRESS": many,
               "NIMMT_RUNNING_PER_ADDRESS": many,
               # Each round dealt at once: the pause for the score sheet is for people
               # looking at it, and these clients measure the work, not the wait.
               "NIMMT_ROUND_PAUSE": "0"}
        proc, url = spawn([sys.executable, "-m", "nimmt", "serve", "--port", "0"], env)
        try:
            return asyncio.run(measure(url, proc.pid, tables, seats, seconds, compress))
        finally:
            proc.terminate()
            try:
                proc.wait(30)
            except subprocess.TimeoutExpired:
                proc.kill()


def main() -> None:
    Wire.install()
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--baseline", required=True, help="the old build: a git revision")
    parser.add_argument("--tables", type=int, default=100)
    parser.add_argument("--seats", type=int, default=4)
    parser.add_argument("--seconds", type=float, default=20.0)
    parser.add_argument("--runs", type=int, default=2, help="runs of each build, alternating")
    parser.add_argument("--compress", action="store_true",
                        help="the people negotiate permessage-deflate, as browsers do")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        old_src = checkout(args.baseline, Path(tmp) / "old")
        builds = {"old": old_src, "new": ROOT / "src"}
        runs: dict[str, list[dict[str, float]]] = {"old": [], "new": []}
        try:
            for i in range(args.runs):
                for name in ("old", "new"):
                    load = os.getloadavg()[0]
                    figures = run_one(builds[name], args.tables, args.seats, args.seconds,
                                      args.compress)
                    figures["load"] = round(load, 2)
                    runs[name].append(figures)
                    print(f"run {i + 1} {name}: {figures}", flush=True)
        finally:
            subprocess.run(["git", "-C", str(ROOT), "worktree", "remove", "--force",
                            str(Path(tmp) / "old")], check=False)
    result: dict[str, Any] = {"baseline": args.baseline, "tables": args.tables,
                              "seats": args.seats, "seconds": args.seconds,
                              "compress": args.compress}
    for name, figures in runs.items():
        result[name] = {k: statistics.median(f[k] for f in figures)
                        for k in figures[0]}
    for key in ("cpu_ms_per_decision", "bytes_per_decision", "wire_bytes_per_decision",
                "decisions_per_s"):
        old, new = result["old"][key], result["new"][key]
        result[f"{key}_ratio"] = round(new / old, 3) if old else None
    print(json.dumps(result))


if __name__ == "__main__":
    main()
