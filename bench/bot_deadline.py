"""Do the strongest bots play their own decisions on the served install, within the deadline?

Starts a real ``nimmt serve`` from the interpreter that runs this script (run it with
the install to measure: ``scripts/setup serve`` makes the one ``scripts/start`` uses),
SQLite in a temporary directory, the default bot settings (``bot_seconds`` 1.0,
``bot_grace`` 1.0, as many search workers as the machine gets by default), and no
pause after a reveal (``NIMMT_REVEAL_PACE=0``). One person opens a table of
``--players`` (10) with ``--bot`` (``expert``) in every other seat, starts it as soon
as the server listens (the harshest case: the workers may still be warming up), and
answers its own decisions at once, for ``--rounds`` rounds.

First, in a fresh process at the search workers' priority, what a worker of this
install meets: its warm-up (what it does before it says it is ready), a fresh bot's
first decision at the first turn of such a game and a second one, with the rollouts
that one played in its second (the bot's strength here). Then at the table: the
first answer's time from the start (the first bot's ``card_chosen``; it includes
waiting for a worker still warming up), the bots' decisions (from the game's
record), and how many of them the default player made because the bot ran out of
time (the table's ``auto_on``/``timeout`` notices for bot seats, and the server
log's lines for every bot fault, which name the table, seat, bot and elapsed
time). ``own_share`` is the share of the bots' decisions that were their own.
``--burn K`` keeps K processes spinning on the CPU meanwhile: a busy machine, on
purpose (the search workers run below them, at ``nice`` 10).

Run::

    .venv/bin/python bench/bot_deadline.py [--players 10] [--bot expert] [--rounds 1]
        [--burn 0]

The last line is one JSON object.
"""

from __future__ import annotations

import argparse
import asyncio
import concurrent.futures
import json
import multiprocessing
import os
import random
import re
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path
from typing import Any

from nimmt.client import Client
from nimmt.wire import EventItem, Events, NoticeItem

NIMMT = str(Path(sys.executable).parent / "nimmt")
#: A line the server logs for every bot fault (server/botpool.py ``report``).
FAULT = re.compile(r"table (\w+): bot '([^']+)' \(seat (\d+), [^)]*\): (.*)")


def get_json(url: str) -> Any:
    with urllib.request.urlopen(url, timeout=30) as resp:
        return json.loads(resp.read())


async def play(url: str, players: int, bot: str, rounds: int, seed: int) -> dict[str, Any]:
    """One table: the person in seat 0, ``bot`` in every other seat, ``rounds`` rounds."""
    rng = random.Random(seed)
    host = await Client.connect(url, name="Host")
    try:
        state = await host.create_table(rules={"preset": "classic", "players": players,
                                               "end": "rounds", "rounds": rounds})
        code = state.table.code
        for _ in range(players - 1):
            await host.add_bot(bot)
        t0 = time.perf_counter()
        await host.start()
        first: float | None = None
        timeouts = 0
        answered: set[str] = set()
        while not host.game_over:
            prompt = host.prompt
            if prompt is not None and prompt.key not in answered:
                answered.add(prompt.key)
                await host.answer(prompt, rng)  # what comes meanwhile waits in the inbox
            else:
                host.inbox.append(await host.recv(120))
            items = [i for m in host.inbox if isinstance(m, Events) for i in m.items]
            host.inbox.clear()
            for item in items:
                if (first is None and isinstance(item, EventItem)
                        and item.event.type == "card_chosen" and item.event.player != 0):
                    first = time.perf_counter() - t0
                if (isinstance(item, NoticeItem) and item.notice == "auto_on"
                        and item.reason == "timeout" and item.seat != 0):
                    timeouts += 1
        wall = time.perf_counter() - t0
    finally:
        await host.close()
    games = await asyncio.to_thread(get_json, f"{url}/api/tables/{code}/games")
    record = await asyncio.to_thread(get_json, f"{url}/api/games/{games['games'][-1]['id']}")
    decisions = [d for r in record["record"]["rounds"] for d in r["decisions"] if d[1] != 0]
    return {"code": code, "first_decision_s": first, "bot_decisions": len(decisions),
            "timeout_notices": timeouts, "wall_s": wall}


async def run(args: argparse.Namespace) -> dict[str, Any]:
    burners = [subprocess.Popen([sys.executable, "-c", "while True: pass"])
               for _ in range(args.burn)]
    try:
        with concurrent.futures.ProcessPoolExecutor(
                1, mp_context=multiprocessing.get_context("spawn")) as ex:
            search = await asyncio.wrap_future(ex.submit(search_figures, args.bot, args.players))
        with tempfile.TemporaryDirectory() as tmp:
            env = {**os.environ, "NIMMT_REVEAL_PACE": "0",
                   "NIMMT_ROUND_PAUSE": "0", "NIMMT_LISTEN_CPS": "0"}
            log_path = Path(tmp) / "server.log"
            with log_path.open("w") as log:
                proc = subprocess.Popen([NIMMT, "serve", "--port", "0", "--data-dir", tmp],
                                        stdout=subprocess.PIPE, stderr=log, text=True, env=env)
                try:
                    assert proc.stdout is not None
                    line = await asyncio.wait_for(asyncio.to_thread(proc.stdout.readline), 120)
                    found = re.search(r"open (http://[\d.:]+)/", line)
                    assert found, line + log_path.read_text()
                    result = await play(found.group(1), args.players, args.bot, args.rounds,
                                        args.seed)
                finally:
                    proc.terminate()
                    proc.wait(30)
            faults = [m.groups() for m in map(FAULT.search, log_path.read_text().splitlines())
                      if m is not None and m.group(1) == result["code"]]
        load = os.getloadavg()[0]
    finally:
        for b in burners:
            b.kill()
            b.wait()
    late = sum(1 for f in faults if "did not answer within" in f[3])
    total = result["bot_decisions"]
    return {
        "bot": args.bot, "players": args.players, "rounds": args.rounds, "burn": args.burn,
        "load_1min": round(load, 2), **search,
        "first_answer_s": round(result["first_decision_s"] or -1.0, 3),
        "bot_decisions": total, "timeouts_logged": late,
        "timeout_notices": result["timeout_notices"], "faults_logged": len(faults),
        "own_decisions": total - len(faults),
        "own_share": round((total - len(faults)) / total, 4) if total else None,
        "wall_s": round(result["wall_s"], 1),
        "fault_example": " ".join(faults[0]) if faults else None,
    }


def search_figures(bot: str, players: int) -> dict[str, Any]:
    """What a search worker of this install meets, in a fresh process at its priority:
    the warm-up it does before saying it is ready, then a fresh bot's first decision at
    the first turn of a ``players``-player game and a second one (the rollouts that one
    played in its second: the bot's strength here)."""
    from nimmt import Game, Rules
    from nimmt.bots import make_bot
    from nimmt.bots.base import Budget
    from nimmt.server.workers.botpool import SEARCH_NICE
    from nimmt.sim.kernel import NUMBA
    from nimmt.sim.search import warm_up

    os.nice(SEARCH_NICE)
    t0 = time.perf_counter()
    warm_up()
    t1 = time.perf_counter()
    view = Game(Rules.preset("classic", players), random.Random(1)).view(1)
    searcher = make_bot(bot, seed=1, budget=Budget(seconds=1.0))
    searcher.choose_card(view)
    t2 = time.perf_counter()
    searcher.choose_card(view)
    t3 = time.perf_counter()
    return {"numba": NUMBA, "warm_up_s": round(t1 - t0, 3),
            "first_decision_s": round(t2 - t1, 3), "next_decision_s": round(t3 - t2, 3),
            "rollouts_per_decision": int(getattr(searcher, "last_rollouts", 0))}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--players", type=int, default=10)
    parser.add_argument("--bot", default="expert")
    parser.add_argument("--rounds", type=int, default=1)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--burn", type=int, default=0,
                        help="processes that spin on the CPU meanwhile (a busy machine)")
    args = parser.parse_args()
    out = asyncio.run(run(args))
    print(f"{args.bot} at {args.players} players, numba {out['numba']}, {args.burn} "
          f"burners: a worker's first decision {out['first_decision_s']:.2f} s (after a "
          f"{out['warm_up_s']:.2f} s warm-up), {out['rollouts_per_decision']} rollouts; at "
          f"the table {out['own_decisions']} of {out['bot_decisions']} decisions the bots' "
          f"own (share {out['own_share']}), {out['timeouts_logged']} timed out "
          f"({out['timeout_notices']} told at the table); load {out['load_1min']}")
    print(json.dumps(out))


if __name__ == "__main__":
    main()
