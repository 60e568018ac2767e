"""Server capacity: N concurrent tables of 4 scripted clients, beside a bare echo server.

Starts a real ``nimmt serve`` process (SQLite in a temporary directory, or
``--db URL``) and, in the same run, a bare Starlette WebSocket echo server on
another port (same uvicorn and websockets settings). Then:

1. Seats N tables of 4 clients (:mod:`nimmt.client`) and starts them.
2. For ``--seconds``, every client answers each decision asked of it as soon
   as it may (a random legal option). Measured: decisions acknowledged per
   second; the latency from the last card choice of a turn being sent to the
   reveal reaching every client of the table (p50, p99); errors (error frames,
   lost connections); game messages per second (sent + received).
3. The same number of clients send a frame of typical size to the echo server
   and wait for it, for the same time: echo messages per second.

``ratio`` is game messages per second over echo messages per second: how close
the game server comes to the bare transport. Run::

    .venv/bin/python bench/server_load.py --tables 500 --seconds 20

The last line is one JSON object with ``tables``, ``errors``,
``decisions_per_s``, ``p50_ms``, ``p99_ms``, ``echo_msgs_per_s``, ``ratio``.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from websockets.asyncio.client import connect

from nimmt.client import Client, ws_url

NIMMT = str(Path(sys.executable).parent / "nimmt")
#: A frame of the size a turn's events usually are.
ECHO_FRAME = json.dumps({"type": "events", "seq": 1234, "items": [
    {"seq": 1230 + i, "kind": "event", "event": {"type": "card_placed", "player": i,
                                                 "card": 40 + i, "row": 2, "end": "right",
                                                 "started": False}} for i in range(4)
], "prompt": None})


@dataclass
class Stats:
    sent: int = 0
    received: int = 0
    acks: int = 0
    errors: int = 0
    error_codes: dict[str, int] = field(default_factory=dict)
    #: (table, turn key) → time the last card choice of that turn was sent.
    last_choice: dict[tuple[int, str], float] = field(default_factory=dict)
    #: (table, turn key) → times the reveal reached each client.
    reveals: dict[tuple[int, str], list[float]] = field(default_factory=dict)


# -- the echo server ---------------------------------------------------------------------


def run_echo_server() -> None:
    """A bare Starlette WebSocket echo on a free port; prints its address."""
    import uvicorn
    from starlette.applications import Starlette
    from starlette.routing import WebSocketRoute
    from starlette.websockets import WebSocket, WebSocketDisconnect

    async def echo(ws: WebSocket) -> None:
        await ws.accept()
        try:
            while True:
                await ws.send_text(await ws.receive_text())
        except WebSocketDisconnect:
            pass

    app = Starlette(routes=[WebSocketRoute("/ws", echo)])

    async def main() -> None:
        config = uvicorn.Config(app, host="127.0.0.1", port=0, ws="websockets-sansio",
                                log_level="warning", backlog=4096)
        server = uvicorn.Server(config)
        task = asyncio.create_task(server.serve())
        while not server.started:
            await asyncio.sleep(0.01)
        port = server.servers[0].sockets[0].getsockname()[1]
        print(f"echo open http://127.0.0.1:{port}/ ", flush=True)
        await task

    asyncio.run(main())


def spawn(cmd: list[str], env: dict[str, str]) -> tuple[subprocess.Popen[str], str]:
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, text=True, env=env)
    assert proc.stdout is not None
    line = proc.stdout.readline()
    if "open http://" not in line:
        raise SystemExit(f"could not start {cmd}: {line!r}")
    return proc, line.split("open ", 1)[1].split("/ ", 1)[0]


# -- the game clients --------------------------------------------------------------------


async def seat(url: str, t: int, sem: asyncio.Semaphore) -> list[Client]:
    async with sem:
        rules = {"preset": "classic", "players": 4, "end": "rounds", "rounds": 100}
        host = await Client.connect(url, name=f"t{t}p0", open_timeout=120)
        code = (await host.create_table(rules=rules, private=True)).table.code
        clients = [host]
        for i in range(1, 4):
            c = await Client.connect(url, name=f"t{t}p{i}", open_timeout=120)
            await c.join(code)
            await c.sit()
            clients.append(c)
        return clients


async def play(t: int, client: Client, stats: Stats, rng: random.Random, stop: float) -> None:
    """Answer every prompt at once; note choices, reveals, acks and errors."""
    ws = client.ws
    prompt = client.prompt.model_dump() if client.prompt is not None else None
    answered: set[str] = set()
    last_card = ""
    loop = asyncio.get_running_loop()
    try:
        async with asyncio.timeout_at(stop):
            while True:
                if prompt is not None and prompt["key"] not in answered:
                    key = prompt["key"]
                    answered.add(key)
                    value = rng.choice(prompt["options"])
                    if prompt["kind"] == "card":
                        await ws.send(f'{{"type":"play_card","card":{value}}}')
                        last_card = key
                        stats.last_choice[(t, key)] = loop.time()
                    else:
                        await ws.send(f'{{"type":"take_row","row":{value}}}')
                    stats.sent += 1
                text = await ws.recv()
                stats.received += 1
                msg: dict[str, Any] = json.loads(text)
                kind = msg["type"]
                if kind == "events":
                    for item in msg["items"]:
                        ev = item.get("event")
                        if ev is not None and ev["type"] == "cards_revealed":
                            stats.reveals.setdefault((t, last_card), []).append(loop.time())
                    prompt = msg["prompt"]
                elif kind == "ack":
                    stats.acks += 1
                elif kind == "table_state":
                    prompt = msg["prompt"]
                elif kind == "error":
                    stats.errors += 1
                    stats.error_codes[msg["code"]] = stats.error_codes.get(msg["code"], 0) + 1
    except TimeoutError:
        return
    except Exception as exc:
        stats.errors += 1
        name = type(exc).__name__
        stats.error_codes[name] = stats.error_codes.get(name, 0) + 1


async def echo_phase(url: str, clients: int, seconds: float) -> tuple[float, int]:
    """Connect ``clients`` to the echo server, then ping-pong for ``seconds``."""
    sem = asyncio.Semaphore(64)

    async def open_one() -> Any:
        async with sem:
            return await connect(ws_url(url), max_size=None, open_timeout=120,
                                 ping_interval=None, compression=None)

    conns = await asyncio.gather(*(open_one() for _ in range(clients)))
    stats = Stats()
    loop = asyncio.get_running_loop()
    stop = loop.time() + seconds

    async def run(ws: Any) -> None:
        try:
            while loop.time() < stop:
                await ws.send(ECHO_FRAME)
                await ws.recv()
                stats.sent += 1
                stats.received += 1
        except Exception:
            stats.errors += 1

    begin = loop.time()
    await asyncio.gather(*(run(ws) for ws in conns))
    elapsed = loop.time() - begin
    for ws in conns:
        await ws.close()
    return (stats.sent + stats.received) / elapsed, stats.errors


def percentile(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    values = sorted(values)
    return values[min(len(values) - 1, int(q * len(values)))]


async def drive(game_url: str, echo_url: str, tables: int, seconds: float) -> dict[str, Any]:
    sem = asyncio.Semaphore(64)
    t0 = time.perf_counter()
    seated = await asyncio.gather(*(seat(game_url, t, sem) for t in range(tables)))
    setup_s = time.perf_counter() - t0
    await asyncio.gather(*(cs[0].start() for cs in seated))
    stats = Stats()
    loop = asyncio.get_running_loop()
    begin = loop.time()
    stop = begin + seconds
    await asyncio.gather(*(play(t, c, stats, random.Random(t * 4 + i), stop)
                           for t, cs in enumerate(seated) for i, c in enumerate(cs)))
    elapsed = loop.time() - begin
    for cs in seated:
        for c in cs:
            await c.close()
    latencies = []
    for key, times in stats.reveals.items():
        if len(times) == 4 and key in stats.last_choice:
            latencies.append((max(times) - stats.last_choice[key]) * 1000)
    game_msgs = (stats.sent + stats.received) / elapsed

    echo_msgs, echo_errors = await echo_phase(echo_url, 4 * tables, seconds)
    return {
        "tables": tables,
        "clients": 4 * tables,
        "seconds": round(elapsed, 2),
        "setup_s": round(setup_s, 1),
        "errors": stats.errors + echo_errors,
        "error_codes": stats.error_codes,
        "decisions": stats.acks,
        "decisions_per_s": round(stats.acks / elapsed, 1),
        "turns_measured": len(latencies),
        "p50_ms": round(percentile(latencies, 0.50), 1),
        "p99_ms": round(percentile(latencies, 0.99), 1),
        "game_msgs_per_s": round(game_msgs, 1),
        "echo_msgs_per_s": round(echo_msgs, 1),
        "ratio": round(game_msgs / echo_msgs, 3) if echo_msgs else None,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tables", type=int, default=500)
    parser.add_argument("--seconds", type=float, default=20.0)
    parser.add_argument("--db", default="", help="database URL (default: SQLite in a temp dir)")
    parser.add_argument("--game-url", default="", help="use this running server instead")
    parser.add_argument("--echo-server", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.echo_server:
        run_echo_server()
        return
    with tempfile.TemporaryDirectory() as tmp:
        # Every simulated player connects from this one address: the limits per address
        # (docs/security.md) are lifted for the measurement, as for clients behind a NAT.
        many = str(100 * args.tables + 1000)
        env = {**os.environ, "NIMMT_DATA_DIR": tmp, "NIMMT_RATE": "1000", "NIMMT_BURST": "1000",
               "NIMMT_DISCONNECT_GRACE": "600", "NIMMT_MAX_TABLES": str(args.tables + 10),
               "NIMMT_PLAYER_RATE": "1000", "NIMMT_PLAYER_BURST": "1000",
               "NIMMT_ADDRESS_RATE": "1e9", "NIMMT_ADDRESS_BURST": many,
               "NIMMT_ADDRESS_BYTES": "1e12", "NIMMT_ADDRESS_BYTES_BURST": str(1 << 40),
               "NIMMT_CONNECTIONS_PER_ADDRESS": many, "NIMMT_NAMES_PER_MINUTE": many,
               "NIMMT_TABLES_PER_ADDRESS": many, "NIMMT_RUNNING_PER_ADDRESS": many,
               # Each round dealt at once: the pause for the score sheet is for people
               # looking at it, and these clients measure the work, not the wait.
               "NIMMT_ROUND_PAUSE": "0"}
        cmd = [NIMMT, "serve", "--port", "0"] + (["--db", args.db] if args.db else [])
        if args.game_url:
            server, game_url = None, args.game_url
        else:
            server, game_url = spawn(cmd, env)
        echo, echo_url = spawn([sys.executable, __file__, "--echo-server"], env)
        try:
            result = asyncio.run(drive(game_url, echo_url, args.tables, args.seconds))
        finally:
            for proc in (server, echo):
                if proc is None:
                    continue
                proc.terminate()
                try:
                    proc.wait(30)
                except subprocess.TimeoutExpired:
                    proc.kill()
    print(f"{result['tables']} tables x 4 clients for {result['seconds']} s "
          f"(seated in {result['setup_s']} s)")
    print(f"  game: {result['decisions_per_s']} decisions/s, reveal latency p50 "
          f"{result['p50_ms']} ms, p99 {result['p99_ms']} ms, {result['game_msgs_per_s']} msgs/s, "
          f"errors {result['errors']} {result['error_codes'] or ''}")
    print(f"  echo: {result['echo_msgs_per_s']} msgs/s; ratio {result['ratio']}")
    print(json.dumps(result))


if __name__ == "__main__":
    main()
