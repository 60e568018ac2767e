"""Hints and analyses under attack: what one analysis costs, a victim's hints during an
analysis flood, shutdown with an analysis pending, and workers after a SIGKILL.

Runs real ``nimmt serve`` processes (SQLite in a temporary directory, the default
settings but for the limits on new names and tables per address, which the set-up
needs) and real clients. First it plays nine finished games with one person
and bots (``--players`` seats, ``--rounds`` rounds; bots and person play at once): one to
analyse alone, two for each attacking address.
Then, each on a fresh server process over the same store:

1. **Cost.** One analysis of the first game: its wall time, and the CPU seconds the
   server's processes spent on it (the server, its workers, and workers it reaped),
   from /proc; the answer's status, whether it is partial and how many decisions it
   reviewed. Given up after ``--observe`` seconds.
2. **Flood.** A victim seated at a table asks ``--hints`` hints in a row (the next
   a second after the last is answered); meanwhile four client addresses (127.0.0.2 to .5)
   ask for the analyses of the other games at once, two each. Measured: the
   victim's hint latency (p50, max), its ``busy`` refusals, the attackers' answers
   by status and the waits they were told (``Retry-After``).
3. **Shutdown.** An analysis is asked and computing; the server gets SIGTERM:
   seconds until the process has exited (given up, and killed, after ``--observe``).
4. **SIGKILL.** An analysis is asked and computing; the server gets SIGKILL: how
   many of its worker processes still run 5 s later, and for how long the last one
   ran on (up to ``--observe``).

Linux only (/proc). The last line is one JSON object with the four results. Run::

    .venv/bin/python bench/attack_advice.py
    NIMMT_NO_NUMBA=1 .venv/bin/python bench/attack_advice.py --rounds 1
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import random
import signal
import subprocess
import sys
import tempfile
import time
import urllib.parse
from pathlib import Path
from typing import Any

from nimmt.client import Client, ServerError

NIMMT = str(Path(sys.executable).parent / "nimmt")
#: The set-up opens tables and names quickly from one address; everything else is default.
SETUP_LIMITS = {"NIMMT_NAMES_PER_MINUTE": "1000", "NIMMT_TABLES_PER_ADDRESS": "1000",
                "NIMMT_RUNNING_PER_ADDRESS": "1000", "NIMMT_TABLES_PER_HOST": "1000",
                "NIMMT_RUNNING_PER_HOST": "1000", "NIMMT_REVEAL_PACE": "0",
                "NIMMT_ROUND_PAUSE": "0",
                "NIMMT_LISTEN_CPS": "0"}
ATTACKERS = ["127.0.0.2", "127.0.0.3", "127.0.0.4", "127.0.0.5"]
TICK = os.sysconf("SC_CLK_TCK")


# -- processes ------------------------------------------------------------------------------


def _stat(pid: int) -> list[str] | None:
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(") ", 1)[1].split()
    except (OSError, IndexError):
        return None


def alive(pid: int) -> bool:
    fields = _stat(pid)
    return fields is not None and fields[0] != "Z"


def descendants(root: int) -> set[int]:
    parents: dict[int, int] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            fields = _stat(int(entry))
            if fields is not None:
                parents[int(entry)] = int(fields[1])
    found: set[int] = set()
    todo = [root]
    while todo:
        pid = todo.pop()
        kids = [p for p, pp in parents.items() if pp == pid and p not in found]
        found.update(kids)
        todo.extend(kids)
    return found


def tree_cpu(root: int) -> float:
    """CPU seconds of ``root`` and every process below it, those it reaped included."""
    total = 0
    for pid in {root, *descendants(root)}:
        fields = _stat(pid)
        if fields is not None:
            total += sum(int(x) for x in fields[11:15])  # utime stime cutime cstime
    return total / TICK


class Server:
    def __init__(self, data: Path, env: dict[str, str]) -> None:
        self.data = data
        self.env = env
        self.proc: subprocess.Popen[str] | None = None
        self.url = ""

    async def start(self) -> None:
        env = {**os.environ, **SETUP_LIMITS, **self.env, "NIMMT_DATA_DIR": str(self.data)}
        self.proc = subprocess.Popen([NIMMT, "serve", "--port", "0"], stdout=subprocess.PIPE,
                                     stderr=None, text=True, env=env)
        assert self.proc.stdout is not None
        line = await asyncio.wait_for(asyncio.to_thread(self.proc.stdout.readline), 120)
        if "open http://" not in line:
            raise RuntimeError(f"the server did not start: {line!r}")
        self.url = line.split("open ", 1)[1].split("/ ", 1)[0]

    @property
    def pid(self) -> int:
        assert self.proc is not None
        return self.proc.pid

    async def kill(self) -> None:
        """SIGKILL the server and whatever it left running."""
        if self.proc is None:
            return
        left = descendants(self.proc.pid)
        with contextlib.suppress(ProcessLookupError):
            os.kill(self.proc.pid, signal.SIGKILL)
        await asyncio.to_thread(self.proc.wait)
        for pid in left:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)


# -- HTTP -----------------------------------------------------------------------------------


class Request:
    """A GET held open on a socket of its own, from client address ``source``."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.reader = reader
        self.writer = writer

    @classmethod
    async def get(cls, url: str, path: str, source: str = "127.0.0.1") -> Request:
        u = urllib.parse.urlsplit(url)
        reader, writer = await asyncio.open_connection(u.hostname, u.port,
                                                       local_addr=(source, 0))
        writer.write(f"GET {path} HTTP/1.1\r\nHost: {u.netloc}\r\n\r\n".encode())
        await writer.drain()
        return cls(reader, writer)

    async def answer(self) -> tuple[int, dict[str, str], Any]:
        status = int((await self.reader.readline()).split()[1])
        headers: dict[str, str] = {}
        while (line := (await self.reader.readline()).strip()):
            name, _, value = line.decode().partition(":")
            headers[name.strip().lower()] = value.strip()
        body = await self.reader.readexactly(int(headers["content-length"]))
        return status, headers, json.loads(body)

    def close(self) -> None:
        self.writer.close()


# -- set-up ---------------------------------------------------------------------------------


async def play_games(url: str, count: int, players: int, rounds: int) -> list[int]:
    rules = {"preset": "classic", "players": players, "end": "rounds", "rounds": rounds}

    async def one(k: int) -> str:
        name = f"G{k}x{random.randrange(10**6)}"
        client = await Client.connect(url, name=name, open_timeout=60)
        await client.create_table(rules=rules, private=True)
        for _ in range(players - 1):
            await client.add_bot("easy")
        await client.start()
        await client.play_until_over(random.Random(k), timeout=600)
        await client.leave()
        await client.close()
        return name

    names = await asyncio.gather(*(one(k) for k in range(count)))
    ids = []
    for name in names:
        for _ in range(600):
            games = (await asyncio.to_thread(_get_json, f"{url}/api/players/{name}"))["games"]
            if games and games[0]["finished"]:
                ids.append(int(games[0]["id"]))
                break
            await asyncio.sleep(0.1)
    return ids


def _get_json(url: str) -> Any:
    import urllib.request

    with urllib.request.urlopen(url, timeout=60) as resp:
        return json.loads(resp.read())


async def computing(server: Server, before: set[int], observe: float) -> bool:
    """Wait until a worker that was not there ``before`` has spent 2 s of CPU (the kernel
    loaded, about a second, and the analysis searching)."""
    end = time.monotonic() + observe
    while time.monotonic() < end:
        for pid in descendants(server.pid) - before:
            fields = _stat(pid)
            if fields is not None and (int(fields[11]) + int(fields[12])) / TICK > 2.0:
                return True
        await asyncio.sleep(0.1)
    return False


# -- the four measurements ------------------------------------------------------------------


async def cost(server: Server, game: int, observe: float) -> dict[str, Any]:
    cpu0 = tree_cpu(server.pid)
    t0 = time.monotonic()
    request = await Request.get(server.url, f"/api/games/{game}/analysis")
    out: dict[str, Any] = {"answered": False}
    try:
        status, _headers, body = await asyncio.wait_for(request.answer(), observe)
        out = {"answered": True, "status": status,
               "partial": body.get("partial"), "decisions": len(body.get("decisions", [])),
               "unreviewed": body.get("unreviewed")}
    except TimeoutError:
        pass
    finally:
        request.close()
    out["wall_s"] = round(time.monotonic() - t0, 2)
    out["cpu_s"] = round(tree_cpu(server.pid) - cpu0, 2)
    return out


async def flood(server: Server, games: list[int], hints: int,
                observe: float) -> dict[str, Any]:
    url = server.url
    victim = await Client.connect(url, name=f"V{random.randrange(10**6)}", open_timeout=60)
    await victim.create_table(rules={"preset": "classic", "players": 3, "end": "rounds",
                                     "rounds": 1}, private=True)
    await victim.add_bot("easy")
    await victim.add_bot("easy")
    await victim.start()
    if victim.prompt is None:
        await victim.expect(lambda m: victim.prompt is not None, 60)
    await victim.hint(timeout=observe)  # the hint workers are up
    statuses: dict[str, int] = {}
    waits: list[int] = []

    async def attack(source: str, game: int) -> None:
        request = await Request.get(url, f"/api/games/{game}/analysis", source)
        try:
            status, headers, _body = await request.answer()
        except (OSError, asyncio.IncompleteReadError, ValueError, IndexError):
            status, headers = 0, {}  # the connection closed without an answer
        finally:
            request.close()
        statuses[str(status)] = statuses.get(str(status), 0) + 1
        if "retry-after" in headers:
            waits.append(int(headers["retry-after"]))

    attacks = [asyncio.create_task(attack(ATTACKERS[i % len(ATTACKERS)], game))
               for i, game in enumerate(games)]
    await asyncio.sleep(2.0)  # the analyses are asked for and start
    latencies: list[float] = []
    busy = unanswered = 0
    for _ in range(hints):
        await asyncio.sleep(1.0)  # within the connection's rate (a hint costs 10 messages)
        t0 = time.monotonic()
        try:
            await victim.hint(timeout=observe)
        except ServerError as exc:
            if exc.code != "busy":
                raise
            busy += 1
        except TimeoutError:
            unanswered += 1
            break  # a hint that never came: the victim stops asking
        finally:
            latencies.append((time.monotonic() - t0) * 1000)
    waiting = sum(1 for task in attacks if not task.done())
    if waiting:
        statuses["still computing"] = waiting
    for task in attacks:
        task.cancel()
    await asyncio.gather(*attacks, return_exceptions=True)
    await victim.close()
    latencies.sort()
    return {"hints": len(latencies), "hints_busy": busy, "hints_unanswered": unanswered,
            "hint_ms_p50": round(latencies[len(latencies) // 2], 1),
            "hint_ms_max": round(latencies[-1], 1),
            "analysis_answers": statuses, "retry_after_s": sorted(waits)}


async def shutdown(server: Server, game: int, observe: float) -> dict[str, Any]:
    before = descendants(server.pid)
    request = await Request.get(server.url, f"/api/games/{game}/analysis")
    started = await computing(server, before, observe)
    assert server.proc is not None
    t0 = time.monotonic()
    server.proc.send_signal(signal.SIGTERM)
    try:
        await asyncio.wait_for(asyncio.to_thread(server.proc.wait), observe)
        seconds: float | None = round(time.monotonic() - t0, 2)
    except TimeoutError:
        seconds = None
        await server.kill()
    request.close()
    return {"computing": started, "exit_s": seconds, "observed_s": observe}


async def sigkill(server: Server, game: int, observe: float) -> dict[str, Any]:
    before = descendants(server.pid)
    request = await Request.get(server.url, f"/api/games/{game}/analysis")
    started = await computing(server, before, observe)
    workers = descendants(server.pid)
    assert server.proc is not None
    t0 = time.monotonic()
    os.kill(server.pid, signal.SIGKILL)
    await asyncio.to_thread(server.proc.wait)
    after5: int | None = None
    last = 0.0
    while time.monotonic() - t0 < observe:
        running = [p for p in workers if alive(p)]
        now = time.monotonic() - t0
        if running:
            last = now
        if after5 is None and now >= 5.0:
            after5 = len(running)
        if not running and now >= 5.0:
            break
        await asyncio.sleep(0.05)
    for pid in workers:
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)
    request.close()
    return {"computing": started, "workers": len(workers), "alive_after_5s": after5,
            "last_alive_s": round(last, 2), "observed_s": observe}


def say(text: str) -> None:
    print(text, file=sys.stderr, flush=True)


async def main(args: argparse.Namespace) -> dict[str, Any]:
    result: dict[str, Any] = {"numba": not os.environ.get("NIMMT_NO_NUMBA"),
                              "players": args.players, "rounds": args.rounds}
    with tempfile.TemporaryDirectory() as tmp:
        data = Path(tmp)

        async def on_a_fresh_server(name: str, measure: Any, *more: Any) -> None:
            say(f"{name}...")
            server = Server(data, {})
            await server.start()
            try:
                result[name] = await measure(server, *more)
            finally:
                await server.kill()

        server = Server(data, {})
        await server.start()
        try:
            say("playing the games...")
            games = await play_games(server.url, 1 + 2 * len(ATTACKERS), args.players,
                                     args.rounds)
        finally:
            await server.kill()
        await on_a_fresh_server("cost", cost, games[0], args.observe)
        await on_a_fresh_server("flood", flood, games[1:], args.hints, args.observe)
        await on_a_fresh_server("shutdown", shutdown, games[0], args.observe)
        await on_a_fresh_server("sigkill", sigkill, games[0], args.observe)
    return result


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--players", type=int, default=10)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--hints", type=int, default=10)
    parser.add_argument("--observe", type=float, default=180.0,
                        help="seconds to wait for an answer, an exit or a worker's end")
    outcome = asyncio.run(main(parser.parse_args()))
    print(json.dumps(outcome))
