"""Fairness: a victim table's ping and bot answer time, alone and beside four attack tables.

Starts a real ``nimmt serve`` process (SQLite in a temporary directory, default
bot settings: ``bot_seconds`` 1.0, as many search workers as the machine gets by
default) and real clients (:mod:`nimmt.client`). In one run:

1. **Baseline.** A victim table: one person and one ``medium`` bot. The person
   answers every decision ``--think`` seconds after it is asked (0.05: a quick
   person; at 0 the victim is itself a flood of hundreds of turns a second and
   the run measures the server's capacity instead), starts a rematch when a
   game is over, and pings the server 20 times a second over the same
   connection. Measured for ``--seconds``: ping round trips (p50, p99),
   the bot's answer time (from the new turn's prompt reaching the person to the
   bot's ``card_chosen`` reaching the person; p50, p99, max), turns per second.
2. **Attack.** Four more tables open, side by side, each with one person and nine
   ``expert`` bots (10 players); their people also answer every decision at once,
   so the experts think every turn, for as long as the run lasts. The victim is
   measured again for ``--seconds`` while they do.

Targets (issue 8): under attack, victim ping p99 <= 50 ms and the medium bot's
answer <= 1 s (p99). The last line is one JSON object: ``baseline``, ``attack``
(each ``ping_p50_ms``, ``ping_p99_ms``, ``bot_p50_ms``, ``bot_p99_ms``,
``bot_max_ms``, ``turns_per_s``, ``pings``, ``bot_answers``), the attack's
``expert_decisions_per_s``, the ratios attack / baseline, and ``pass``. Run::

    .venv/bin/python bench/server_fairness.py --seconds 20
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

from nimmt.client import Client

NIMMT = str(Path(sys.executable).parent / "nimmt")
VICTIM_RULES = {"preset": "classic", "players": 2, "end": "rounds", "rounds": 100}
ATTACK_RULES = {"preset": "classic", "players": 10, "end": "rounds", "rounds": 100}
PING_EVERY = 0.05
TARGET_PING_P99_MS = 50.0
TARGET_BOT_MS = 1000.0


@dataclass
class Phase:
    pings: list[float] = field(default_factory=list)
    bot: list[float] = field(default_factory=list)
    turns: int = 0
    experts: int = 0
    errors: dict[str, int] = field(default_factory=dict)
    started: float = 0.0
    ended: float = 0.0


@dataclass
class Run:
    """Where the measurements of the current phase go (None: not measuring)."""

    phase: Phase | None = None
    stop: bool = False
    #: When the victim's bot was asked the card it has not answered yet (None: answered).
    waiting_since: float | None = None


def percentile(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    values = sorted(values)
    return values[min(len(values) - 1, int(q * len(values)))]


def _answer(prompt: dict[str, Any], rng: random.Random) -> str:
    value = rng.choice(prompt["options"])
    if prompt["kind"] == "card":
        return json.dumps({"type": "play_card", "card": value})
    if prompt["kind"] == "row":
        return json.dumps({"type": "take_row", "row": value})
    return json.dumps({"type": "draft_card", "card": value})


async def victim(client: Client, run: Run, think: float) -> None:
    """Answer each decision ``think`` seconds after it is asked, ping 20 times a second,
    note ping round trips and bot answer times."""
    ws = client.ws
    loop = asyncio.get_running_loop()
    sent: dict[int, float] = {}
    rng = random.Random(1)
    later: set[asyncio.Task[None]] = set()

    async def answer(text: str) -> None:
        await asyncio.sleep(think)
        if not run.stop:
            await ws.send(text)

    async def pinger() -> None:
        n = 0
        while not run.stop:
            n += 1
            sent[n] = loop.time()
            await ws.send(json.dumps({"type": "ping", "ref": n}))
            await asyncio.sleep(PING_EVERY)

    task = asyncio.create_task(pinger())
    prompt = client.prompt.model_dump() if client.prompt is not None else None
    answered: set[str] = set()
    turn_key, turn_start, bot_seen = "", 0.0, True
    try:
        while not run.stop:
            if prompt is not None and prompt["key"] not in answered:
                answered.add(prompt["key"])
                if prompt["kind"] == "card":
                    turn_key, turn_start, bot_seen = prompt["key"], loop.time(), False
                    run.waiting_since = turn_start
                job = asyncio.create_task(answer(_answer(prompt, rng)))
                later.add(job)
                job.add_done_callback(later.discard)
            try:
                text = await asyncio.wait_for(ws.recv(), 1.0)
            except TimeoutError:
                continue
            now = loop.time()
            msg = json.loads(text)
            phase = run.phase
            kind = msg["type"]
            if kind == "pong":
                t0 = sent.pop(msg["ref"], None)
                if t0 is not None and phase is not None:
                    phase.pings.append((now - t0) * 1000)
            elif kind == "events":
                for item in msg["items"]:
                    ev = item.get("event")
                    if ev is None:
                        continue
                    if (ev["type"] == "card_chosen" and ev["player"] == 1 and not bot_seen
                            and turn_key):
                        bot_seen = True
                        run.waiting_since = None
                        if phase is not None:
                            phase.bot.append((now - turn_start) * 1000)
                    elif ev["type"] == "cards_revealed" and phase is not None:
                        phase.turns += 1
                    elif ev["type"] == "game_over":
                        # The victim is the host: play on.
                        await ws.send(json.dumps({"type": "rematch"}))
                prompt = msg["prompt"]
            elif kind == "table_state":
                prompt = msg["prompt"]
            elif kind == "error" and phase is not None:
                phase.errors[msg["code"]] = phase.errors.get(msg["code"], 0) + 1
    finally:
        task.cancel()


async def attacker(client: Client, run: Run, seed: int) -> None:
    """Answer every decision at once, so the nine experts think again every turn."""
    ws = client.ws
    prompt = client.prompt.model_dump() if client.prompt is not None else None
    answered: set[str] = set()
    rng = random.Random(seed)
    while not run.stop:
        if prompt is not None and prompt["key"] not in answered:
            answered.add(prompt["key"])
            await ws.send(_answer(prompt, rng))
        try:
            msg = json.loads(await asyncio.wait_for(ws.recv(), 1.0))
        except TimeoutError:
            continue
        if msg["type"] == "events":
            phase = run.phase
            if phase is not None:
                phase.experts += sum(
                    1 for it in msg["items"] if it.get("event") is not None
                    and it["event"]["type"] == "card_chosen" and it["event"]["player"] != 0)
            prompt = msg["prompt"]
        elif msg["type"] == "table_state":
            prompt = msg["prompt"]


async def seat(url: str, name: str, rules: dict[str, Any], bots: list[str]) -> Client:
    client = await Client.connect(url, name=name, open_timeout=60)
    await client.create_table(rules=rules, private=True)
    for strength in bots:
        await client.add_bot(strength)
    await client.start()
    return client


def figures(p: Phase) -> dict[str, Any]:
    seconds = p.ended - p.started
    return {
        "seconds": round(seconds, 1),
        "pings": len(p.pings),
        "ping_p50_ms": round(percentile(p.pings, 0.50), 2),
        "ping_p99_ms": round(percentile(p.pings, 0.99), 2),
        "bot_answers": len(p.bot),
        "bot_p50_ms": round(percentile(p.bot, 0.50), 1),
        "bot_p99_ms": round(percentile(p.bot, 0.99), 1),
        "bot_max_ms": round(max(p.bot), 1) if p.bot else float("nan"),
        "turns_per_s": round(p.turns / seconds, 1) if seconds else 0.0,
        "expert_decisions_per_s": round(p.experts / seconds, 2) if seconds else 0.0,
        "errors": p.errors,
    }


async def measure(run: Run, seconds: float) -> Phase:
    loop = asyncio.get_running_loop()
    phase = Phase(started=time.perf_counter())
    run.phase = phase
    await asyncio.sleep(seconds)
    phase.ended = time.perf_counter()
    run.phase = None
    if run.waiting_since is not None:
        # An answer still awaited counts with the time waited so far (a lower bound), so a
        # bot that never answers is not missing from its figures.
        phase.bot.append((loop.time() - run.waiting_since) * 1000)
    return phase


async def drive(url: str, seconds: float, warmup: float, attack_tables: int,
                think: float) -> dict[str, Any]:
    run = Run()
    vic = await seat(url, "victim", VICTIM_RULES, ["medium"])
    tasks = [asyncio.create_task(victim(vic, run, think))]
    await asyncio.sleep(warmup)  # the bot workers warm up; the victim plays meanwhile
    base = await measure(run, seconds)
    attackers = await asyncio.gather(*(seat(url, f"attacker{i}", ATTACK_RULES, ["expert"] * 9)
                                       for i in range(attack_tables)))
    tasks += [asyncio.create_task(attacker(c, run, i)) for i, c in enumerate(attackers)]
    attack = await measure(run, seconds)
    run.stop = True
    await asyncio.gather(*tasks, return_exceptions=True)
    for c in [vic, *attackers]:
        await c.close()
    b, a = figures(base), figures(attack)
    return {
        "baseline": b,
        "attack": a,
        "attack_tables": attack_tables,
        "think_s": think,
        "expert_decisions_per_s": a["expert_decisions_per_s"],
        "ping_p99_ratio": round(a["ping_p99_ms"] / b["ping_p99_ms"], 2),
        "bot_p99_ratio": round(a["bot_p99_ms"] / b["bot_p99_ms"], 2),
        "pass": bool(a["ping_p99_ms"] <= TARGET_PING_P99_MS
                     and a["bot_p99_ms"] <= TARGET_BOT_MS and a["bot_answers"] > 0),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=20.0, help="per phase")
    parser.add_argument("--warmup", type=float, default=3.0)
    parser.add_argument("--attack-tables", type=int, default=4)
    parser.add_argument("--think", type=float, default=0.05,
                        help="seconds the victim takes to answer (0: a flood, which measures "
                        "the server's capacity rather than its fairness)")
    parser.add_argument("--db", default="", help="database URL (default: SQLite in a temp dir)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        # The clients play as fast as they may and ping 20 times a second: the limits on
        # strangers (docs/security.md) are raised so that they measure nothing here.
        limits = {f"NIMMT_{k}": "10000" for k in (
            "RATE", "BURST", "PLAYER_RATE", "PLAYER_BURST", "ADDRESS_RATE", "ADDRESS_BURST",
            "NAMES_PER_MINUTE")}
        # The bots' answer is timed from the turn's start: without the pause bots make
        # after a reveal while a person sits at the table (NIMMT_REVEAL_PACE, 3 s, so that
        # the reveal is heard first), which is a wait on purpose, not the server's cost.
        env = {**os.environ, **limits, "NIMMT_DATA_DIR": tmp, "NIMMT_REVEAL_PACE": "0",
               "NIMMT_ROUND_PAUSE": "0"}
        cmd = [NIMMT, "serve", "--port", "0"] + (["--db", args.db] if args.db else [])
        proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, text=True, env=env)
        assert proc.stdout is not None
        line = proc.stdout.readline()
        if "open http://" not in line:
            raise SystemExit(f"could not start the server: {line!r}")
        url = line.split("open ", 1)[1].split("/ ", 1)[0]
        try:
            result = asyncio.run(drive(url, args.seconds, args.warmup, args.attack_tables,
                                       args.think))
        finally:
            proc.terminate()
            try:
                proc.wait(30)
            except subprocess.TimeoutExpired:
                proc.kill()
    b, a = result["baseline"], result["attack"]
    print(f"victim table (1 person answering in {result['think_s']:g} s + medium bot), "
          f"{b['seconds']} s per phase")
    print(f"{'':24}{'no attack':>14}{'attack':>14}{'ratio':>8}")
    for label, key in (("ping p50 ms", "ping_p50_ms"), ("ping p99 ms", "ping_p99_ms"),
                       ("bot answer p50 ms", "bot_p50_ms"), ("bot answer p99 ms", "bot_p99_ms"),
                       ("bot answer max ms", "bot_max_ms"), ("turns/s", "turns_per_s")):
        ratio = a[key] / b[key] if b[key] else float("nan")
        print(f"  {label:22}{b[key]:>14}{a[key]:>14}{ratio:>8.2f}")
    print(f"  attack: {result['attack_tables']} tables x 9 experts, "
          f"{result['expert_decisions_per_s']} expert decisions/s; errors {a['errors'] or 0}")
    print(f"  targets: ping p99 <= {TARGET_PING_P99_MS:g} ms, bot answer p99 <= "
          f"{TARGET_BOT_MS:g} ms under attack: {'PASS' if result['pass'] else 'MISS'}")
    print(json.dumps(result))


if __name__ == "__main__":
    main()
