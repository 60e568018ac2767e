"""Human-paced load: how many people one server process holds, and how many two hold.

Players here play like people: each decision comes 2 to 8 seconds after it is
asked (``--think``), one decision in ten is followed by a chat line, and one in
fifty by a reconnect (the connection is closed and opened again with the
player's token and last ``seq``). Four players sit at each table.

The load comes from its own processes (``--generators``, each with its own
event loop and a share of the tables), never from the server's. In one run:

1. **one process**: ``nimmt serve`` over PostgreSQL; every player connects to it;
2. **two processes**: two ``nimmt serve --redis`` processes over the same
   PostgreSQL and Redis; a table's seats connect to the two alternately, so
   half of every table's frames go through Redis between its owner and the
   other process (what a load balancer in front of many processes does).

Each setup is run at rising numbers of players (``--levels1``, ``--levels2``);
each level seats its tables on freshly started servers, lets them play for
``--warmup`` seconds and then measures for ``--seconds``: the latency from a
turn's last card choice being sent to the reveal (``cards_revealed``)
reaching every seat of the table (p50, p99 over every turn fully seen), and
errors; and the cores the servers (and the machine's Redis and PostgreSQL) kept
busy meanwhile. A level holds when p99 ≤ 100 ms and no connection failed; a
setup stops after two levels in a row that do not hold. ``--profile`` runs the one-process knee
(its last level that held, or its first that did not) once more with the server
under cProfile and prints where its time goes.

Run::

    .venv/bin/python bench/server_human.py --levels1 1000,2000,3000 \\
        --levels2 2000,3000,4000 --seconds 40 --profile

The last line is one JSON object with ``players_1``, ``p99_ms_1``,
``players_2``, ``p99_ms_2`` (the most players each setup held and that level's
p99; 0 and null when no level held), ``ratio`` (``players_2 / players_1``) and
every level measured.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import multiprocessing
import os
import pstats
import random
import resource
import signal
import subprocess
import sys
import tempfile
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import psycopg
import redis
from websockets.asyncio.client import ClientConnection, connect

from nimmt.client import ws_url

NIMMT = str(Path(sys.executable).parent / "nimmt")
PG = os.environ.get("NIMMT_BENCH_PG", "postgresql://postgres@127.0.0.1:5432/test")
REDIS = os.environ.get("NIMMT_BENCH_REDIS", "redis://127.0.0.1:6379/0")
#: What a server needs to let thousands of players in from one address at bench speed.
SERVER_ENV = {
    "NIMMT_PLAYER_RATE": "1000", "NIMMT_PLAYER_BURST": "1000",
    "NIMMT_ADDRESS_RATE": "1000000", "NIMMT_ADDRESS_BURST": "1000000",
    "NIMMT_ADDRESS_BYTES": "1e12", "NIMMT_ADDRESS_BYTES_BURST": "1000000000000",
    "NIMMT_NAMES_PER_MINUTE": "1000000", "NIMMT_CONNECTIONS_PER_ADDRESS": "1000000",
    "NIMMT_MAX_CONNECTIONS": "100000", "NIMMT_TABLES_PER_ADDRESS": "1000000",
    "NIMMT_RUNNING_PER_ADDRESS": "1000000",
    "NIMMT_MAX_TABLES": "100000", "NIMMT_BOT_WORKERS": "1", "NIMMT_DISCONNECT_GRACE": "300",
}
RULES = {"preset": "classic", "players": 4, "end": "rounds", "rounds": 100}


# -- one player ------------------------------------------------------------------------------


@dataclass
class Tally:
    """What one generator process saw."""

    decisions: int = 0
    chats: int = 0
    reconnects: int = 0
    errors: int = 0
    error_codes: dict[str, int] = field(default_factory=dict)
    #: (table, turn key) → when the turn's card choices were sent.
    chosen: dict[tuple[int, str], list[float]] = field(default_factory=dict)
    #: (table, turn key) → when the reveal reached each seat.
    reveals: dict[tuple[int, str], list[float]] = field(default_factory=dict)

    def error(self, code: str) -> None:
        self.errors += 1
        self.error_codes[code] = self.error_codes.get(code, 0) + 1


class Player:
    """One person at table ``t``, seat ``seat``, connected to ``url``."""

    def __init__(self, t: int, seat: int, url: str, tally: Tally, rng: random.Random,
                 think: tuple[float, float]) -> None:
        self.t, self.seat, self.url = t, seat, url
        self.tally, self.rng, self.think = tally, rng, think
        self.ws: ClientConnection | None = None
        self.token = ""
        self.code = ""
        self.seq = 0
        self.refs = 0
        self.answered: set[str] = set()
        self.last_card = ""
        #: Frames that came while a request waited for its answer (play reads them first).
        self.backlog: list[str] = []
        #: The player closed its own connection to reconnect.
        self.reconnecting = False

    async def open(self, hello: dict[str, Any]) -> None:
        self.ws = await connect(ws_url(self.url), max_size=None, open_timeout=300,
                                ping_interval=None, compression=None)
        welcome = await self.request({"type": "hello", **hello}, "welcome")
        self.token = self.token or welcome["token"]

    async def request(self, msg: dict[str, Any], want: str) -> dict[str, Any]:
        assert self.ws is not None
        self.refs += 1
        await self.ws.send(json.dumps({**msg, "ref": self.refs}))
        while True:
            text = await self.ws.recv()
            got = json.loads(text)
            self.seq = max(self.seq, got.get("seq", 0))
            if got.get("ref") != self.refs or got["type"] not in (want, "error"):
                self.backlog.append(str(text))
            else:
                if got["type"] == "error":
                    raise RuntimeError(f"{msg['type']}: {got['code']} {got['message']}")
                return dict(got)

    async def play(self, until: float, measure_from: float) -> None:
        """Answer like a person until ``until``; reveals after ``measure_from`` count."""
        loop = asyncio.get_running_loop()
        pending: asyncio.Task[None] | None = None
        try:
            async with asyncio.timeout_at(until):
                while True:
                    assert self.ws is not None
                    if self.backlog:
                        text = self.backlog.pop(0)
                    else:
                        try:
                            text = await self.ws.recv()
                        except Exception:
                            if not self.reconnecting:
                                raise
                            # Closed by the player itself: open again and carry on.
                            self.reconnecting = False
                            await self.reconnect()
                            continue
                    msg = json.loads(text)
                    self.seq = max(self.seq, msg.get("seq", 0))
                    kind = msg["type"]
                    if kind == "events":
                        now = loop.time()
                        for item in msg["items"]:
                            ev = item.get("event")
                            if ev is not None and ev["type"] == "cards_revealed" \
                                    and now >= measure_from:
                                self.tally.reveals.setdefault((self.t, self.last_card),
                                                              []).append(now)
                    elif kind == "error":
                        self.tally.error(msg["code"])
                    if kind in ("events", "table_state"):
                        prompt = msg.get("prompt")
                        if prompt is not None and prompt["key"] not in self.answered:
                            self.answered.add(prompt["key"])
                            pending = asyncio.create_task(self.decide(prompt))
        except TimeoutError:
            pass
        except Exception as exc:
            self.tally.error(type(exc).__name__)
        finally:
            if pending is not None:
                pending.cancel()

    async def decide(self, prompt: dict[str, Any]) -> None:
        """A person's decision: after thinking; now and then a chat line or a reconnect."""
        await asyncio.sleep(self.rng.uniform(*self.think))
        assert self.ws is not None
        value = self.rng.choice(prompt["options"])
        if prompt["kind"] == "card":
            self.last_card = prompt["key"]
            self.tally.chosen.setdefault((self.t, prompt["key"]), []).append(
                asyncio.get_running_loop().time())
            await self.ws.send(f'{{"type":"play_card","card":{value}}}')
        else:
            await self.ws.send(f'{{"type":"take_row","row":{value}}}')
        self.tally.decisions += 1
        roll = self.rng.random()
        if roll < 0.1:
            await asyncio.sleep(self.rng.uniform(0.5, 2.0))
            await self.ws.send('{"type":"chat","text":"nice one"}')
            self.tally.chats += 1
        elif roll < 0.12:
            await asyncio.sleep(self.rng.uniform(0.5, 2.0))
            self.tally.reconnects += 1
            self.reconnecting = True
            await self.ws.close()

    async def reconnect(self) -> None:
        await self.open({"token": self.token, "table": self.code, "last_seq": self.seq})


async def seat_table(t: int, urls: list[str], tally: Tally, think: tuple[float, float],
                     sem: asyncio.Semaphore) -> list[Player]:
    async with sem:
        tag = uuid.uuid4().hex[:6]
        players = [Player(t, i, urls[(t + i) % len(urls)], tally, random.Random(t * 4 + i),
                          think) for i in range(4)]
        host = players[0]
        await host.open({"name": f"h{tag}{t}p0"})
        state = await host.request({"type": "create_table", "rules": RULES, "private": True},
                                   "table_state")
        code = state["table"]["code"]
        for p in players[1:]:
            await p.open({"name": f"h{tag}{t}p{p.seat}"})
            await p.request({"type": "join", "table": code}, "table_state")
            await p.request({"type": "sit"}, "ack")
        for p in players:
            p.code = code
        await host.request({"type": "start"}, "ack")
        return players


async def generate_async(urls: list[str], tables: list[int], warmup: float, seconds: float,
                         think: tuple[float, float], out: Any) -> dict[str, Any]:
    tally = Tally()
    sem = asyncio.Semaphore(32)
    seated = await asyncio.gather(*(seat_table(t, urls, tally, think, sem) for t in tables),
                                  return_exceptions=True)
    loop = asyncio.get_running_loop()
    measure_from = loop.time() + warmup
    until = measure_from + seconds
    players = [p for s in seated if isinstance(s, list) for p in s]
    for s in seated:
        if isinstance(s, BaseException):
            tally.error(f"seat: {type(s).__name__}")

    async def measuring() -> None:
        await asyncio.sleep(warmup)
        out.put("measuring")

    await asyncio.gather(measuring(), *(p.play(until, measure_from) for p in players))
    for p in players:
        if p.ws is not None:
            with contextlib.suppress(Exception):
                await p.ws.close()
    latencies = []
    for key, times in tally.reveals.items():
        sent = tally.chosen.get(key, [])
        if len(times) == 4 and len(sent) == 4:
            latencies.append((max(times) - max(sent)) * 1000)
    return {"latencies": latencies, "decisions": tally.decisions, "chats": tally.chats,
            "reconnects": tally.reconnects, "errors": tally.errors,
            "error_codes": tally.error_codes, "seated": len(players)}


def generate(urls: list[str], tables: list[int], warmup: float, seconds: float,
             think: tuple[float, float], out: Any) -> None:
    """One load generator process."""
    _raise_files()
    out.put(asyncio.run(generate_async(urls, tables, warmup, seconds, think, out)))


# -- the servers -----------------------------------------------------------------------------


def _raise_files() -> None:
    _soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))


def start_server(env: dict[str, str], profile: Path | None = None) -> tuple[subprocess.Popen[str],
                                                                           str]:
    cmd = [NIMMT, "serve", "--port", "0"]
    if profile is not None:
        cmd = [sys.executable, "-m", "cProfile", "-o", str(profile), *cmd]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, text=True, env=env)
    assert proc.stdout is not None
    line = proc.stdout.readline()
    if "open http://" not in line:
        raise SystemExit(f"could not start {cmd}: {line!r}")
    return proc, line.split("open ", 1)[1].split("/ ", 1)[0]


def stop_server(proc: subprocess.Popen[str]) -> None:
    proc.send_signal(signal.SIGINT)
    try:
        proc.wait(60)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


def new_schema(database: str) -> str:
    schema = f"b_{uuid.uuid4().hex[:10]}"
    base = PG.rsplit("/", 1)[0]
    with psycopg.connect(f"{base}/{database}", autocommit=True) as conn:
        conn.execute(f'CREATE SCHEMA "{schema}"')
    host = base.split("://", 1)[1]
    return f"postgresql+psycopg://{host}/{database}?options=-csearch_path%3D{schema}"


def cpu_seconds(pids: list[int]) -> float:
    """CPU time (user + system) the processes ``pids`` have used so far."""
    tick = os.sysconf("SC_CLK_TCK")
    total = 0.0
    for pid in pids:
        with contextlib.suppress(OSError):
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
            total += (int(fields[11]) + int(fields[12])) / tick
    return total


def pids_named(name: str) -> list[int]:
    """Processes whose command is ``name`` (the machine's Redis or PostgreSQL)."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            with contextlib.suppress(OSError):
                if (entry / "comm").read_text().strip() == name:
                    found.append(int(entry.name))
    return found


def percentile(values: list[float], q: float) -> float | None:
    if not values:
        return None
    values = sorted(values)
    return values[min(len(values) - 1, int(q * len(values)))]


def run_level(processes: int, players: int, database: str, args: argparse.Namespace,
              profile: Path | None = None) -> dict[str, Any]:
    """``players`` people on ``processes`` fresh server processes; what they measured."""
    prefix = f"nimmt-bench-{uuid.uuid4().hex[:8]}:"
    env = {**os.environ, **SERVER_ENV, "NIMMT_DB": new_schema(database),
           "NIMMT_DATA_DIR": tempfile.mkdtemp(prefix="nimmt-human-")}
    if processes > 1:
        env |= {"NIMMT_REDIS": args.redis, "NIMMT_REDIS_PREFIX": prefix}
    servers = [start_server(env, None if profile is None else
                            profile.with_name(f"{profile.stem}{i}.prof"))
               for i in range(processes)]
    urls = [url for _, url in servers]
    tables = players // 4
    ctx = multiprocessing.get_context("spawn")
    out = ctx.Queue()
    think = (args.think_min, args.think_max)
    gens = [ctx.Process(target=generate, args=(urls, list(range(g, tables, args.generators)),
                                               args.warmup, args.seconds, think, out))
            for g in range(args.generators)]
    t0 = time.monotonic()
    load0 = os.getloadavg()[0]
    for g in gens:
        g.start()
    server_pids = [proc.pid for proc, _ in servers]
    infra: dict[str, list[int]] = {}
    cpu: dict[str, float] = {}
    try:
        results: list[dict[str, Any]] = []
        started = 0
        while len(results) < len(gens):
            got = out.get(timeout=args.warmup + args.seconds + 900)
            if got == "measuring":
                started += 1
                if started == len(gens):
                    # Seating is over and every table plays: the measured window opens.
                    t_begin = time.monotonic()
                    # PostgreSQL starts a process per connection: find them now.
                    infra = {"redis": pids_named("redis-server"),
                             "postgres": pids_named("postgres")}
                    cpu = {"servers": cpu_seconds(server_pids),
                           **{k: cpu_seconds(v) for k, v in infra.items()}}
            else:
                results.append(got)
                if len(results) == 1 and cpu:
                    span = time.monotonic() - t_begin
                    cpu = {k: round((cpu_seconds(server_pids if k == "servers" else infra[k])
                                     - v) / span, 3) for k, v in cpu.items()}
    finally:
        for g in gens:
            g.join(30)
            if g.exitcode is None:
                g.kill()
        for proc, _ in servers:
            stop_server(proc)
        if processes > 1:
            r = redis.Redis.from_url(args.redis)
            keys = list(r.scan_iter(f"{prefix}*"))
            if keys:
                r.delete(*keys)
            r.close()
    latencies = [x for res in results for x in res["latencies"]]
    codes: dict[str, int] = {}
    for res in results:
        for k, v in res["error_codes"].items():
            codes[k] = codes.get(k, 0) + v
    p99 = percentile(latencies, 0.99)
    errors = sum(res["errors"] for res in results)
    level = {
        "processes": processes, "players": players,
        "seated": sum(res["seated"] for res in results),
        "turns": len(latencies),
        "p50_ms": None if not latencies else round(percentile(latencies, 0.5) or 0, 1),
        "p99_ms": None if p99 is None else round(p99, 1),
        "decisions_per_s": round(sum(res["decisions"] for res in results) / args.seconds, 1),
        "chats": sum(res["chats"] for res in results),
        "reconnects": sum(res["reconnects"] for res in results),
        "errors": errors, "error_codes": codes,
        "wall_s": round(time.monotonic() - t0, 1),
        # Cores busy in the measured window: the servers together, and the machine's Redis
        # and PostgreSQL (everything they did, other users' work included).
        "cores": cpu,
        "load_avg": [round(load0, 1), round(os.getloadavg()[0], 1)],
    }
    level["holds"] = bool(p99 is not None and p99 <= args.target_ms and errors == 0
                          and level["seated"] == 4 * tables)
    return level


def ladder(processes: int, levels: list[int], database: str,
           args: argparse.Namespace) -> list[dict[str, Any]]:
    done = []
    for players in levels:
        level = run_level(processes, players, database, args)
        print(json.dumps(level), file=sys.stderr, flush=True)
        done.append(level)
        # On a shared machine one level may miss by a spike and the next hold: two misses
        # in a row end the setup.
        if len(done) >= 2 and not done[-1]["holds"] and not done[-2]["holds"]:
            break
    return done


def best(levels: list[dict[str, Any]]) -> tuple[int, float | None]:
    held = [lv for lv in levels if lv["holds"]]
    if not held:
        return 0, None
    top = max(held, key=lambda lv: lv["players"])
    return int(top["players"]), top["p99_ms"]


def profile_knee(levels: list[dict[str, Any]], database: str, args: argparse.Namespace) -> None:
    """The one-process knee once more, its server under cProfile: where the time goes."""
    failed = [lv for lv in levels if not lv["holds"]]
    players = failed[0]["players"] if failed else levels[-1]["players"]
    path = Path(tempfile.mkdtemp(prefix="nimmt-prof-")) / "server.prof"
    level = run_level(1, players, database, args, profile=path)
    path = path.with_name("server0.prof")
    print(f"profile of one process at {players} players (p99 {level['p99_ms']} ms under "
          f"cProfile): {path}", file=sys.stderr)
    stats = pstats.Stats(str(path), stream=sys.stderr)
    stats.sort_stats("tottime").print_stats(25)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--levels1", default="1000,2000,3000",
                        help="players to try on one process, rising")
    parser.add_argument("--levels2", default="2000,3000,4000",
                        help="players to try on two processes, rising")
    parser.add_argument("--seconds", type=float, default=40.0, help="measured time per level")
    parser.add_argument("--warmup", type=float, default=10.0)
    parser.add_argument("--think-min", type=float, default=2.0)
    parser.add_argument("--think-max", type=float, default=8.0)
    parser.add_argument("--target-ms", type=float, default=100.0)
    parser.add_argument("--generators", type=int, default=2, help="load generator processes")
    parser.add_argument("--redis", default=REDIS)
    parser.add_argument("--profile", action="store_true",
                        help="profile one process at its knee (cProfile)")
    args = parser.parse_args()
    _raise_files()
    database = f"nimmt_bench_{os.getpid()}_{uuid.uuid4().hex[:6]}"
    with psycopg.connect(PG, autocommit=True) as admin:
        admin.execute(f'CREATE DATABASE "{database}"')
    try:
        # An empty list of levels skips that setup (``--levels2 ""``: one process alone).
        one = ladder(1, [int(x) for x in args.levels1.split(",") if x], database, args)
        two = ladder(2, [int(x) for x in args.levels2.split(",") if x], database, args)
        if args.profile:
            profile_knee(one, database, args)
    finally:
        with psycopg.connect(PG, autocommit=True) as admin:
            admin.execute(f'DROP DATABASE IF EXISTS "{database}" WITH (FORCE)')
    players_1, p99_1 = best(one)
    players_2, p99_2 = best(two)
    print(f"{'setup':<14}{'players':>9}{'turns':>8}{'p50 ms':>9}{'p99 ms':>9}{'errors':>8}"
          f"{'holds':>7}")
    for lv in one + two:
        print(f"{lv['processes']} process(es){lv['players']:>9}{lv['turns']:>8}"
              f"{lv['p50_ms']!s:>9}{lv['p99_ms']!s:>9}{lv['errors']:>8}{lv['holds']!s:>7}")
    print(json.dumps({"players_1": players_1, "p99_ms_1": p99_1, "players_2": players_2,
                      "p99_ms_2": p99_2,
                      "ratio": round(players_2 / players_1, 2) if players_1 else None,
                      "levels": one + two}))


if __name__ == "__main__":
    main()
