"""How long the expert takes per decision at a big table, with its default budget.

The expert sits in seat 0 of whole games (classic rules, to the limit) with
``cheapest`` bots in the other seats, and every one of its decisions (cards and
rows) is timed from the call to the answer, sampling of the unseen cards and
encoding included: what a table waits for. The budget is the bot's default
(``nimmt.sim.search.DEFAULT_BUDGET``, one second) unless ``--seconds`` says
otherwise. Reported: p50, p99 and the largest time, and each against the
one-second target.

Run: ``.venv/bin/python bench/decision_time.py [--players 10] [--decisions 150]
[--seconds S] [--seed 1]``. The last line is one JSON object.
"""

from __future__ import annotations

import argparse
import json
import random
import time

import numpy as np

from nimmt import Game, Rules
from nimmt.bots import make_bot
from nimmt.bots.base import Budget
from nimmt.decisions import DecisionKind, DraftCard, PlayCard, TakeRow

TARGET = 1.0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--players", type=int, default=10)
    parser.add_argument("--decisions", type=int, default=150, help="expert decisions to time")
    parser.add_argument("--seconds", type=float, default=None,
                        help="the expert's budget (default: its own, one second)")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    budget = None if args.seconds is None else Budget(seconds=args.seconds)
    times: list[float] = []
    games = 0
    start = time.perf_counter()
    while len(times) < args.decisions:
        seed = args.seed + games
        expert = make_bot("expert", seed=seed, budget=budget)
        others = [make_bot("cheapest", seed=seed * 16 + s) for s in range(1, args.players)]
        bots = [expert, *others]
        game = Game(Rules.preset("classic", args.players), random.Random(seed))
        games += 1
        while not game.is_over and len(times) < args.decisions:
            pending = game.pending
            assert pending is not None
            for seat in pending.players:
                view = game.view(seat)
                bot = bots[seat]
                t0 = time.perf_counter()
                if pending.kind is DecisionKind.CARD:
                    decision: PlayCard | TakeRow | DraftCard = PlayCard(seat, bot.choose_card(view))
                elif pending.kind is DecisionKind.ROW:
                    decision = TakeRow(seat, bot.choose_row(view))
                else:
                    decision = DraftCard(seat, bot.draft_card(view))
                if seat == 0:
                    times.append(time.perf_counter() - t0)
                game.decide(decision)
                if pending.kind is not DecisionKind.CARD:
                    break  # a row or draft: the game asks again
    t = np.array(times)
    p50, p99, worst = (float(np.percentile(t, 50)), float(np.percentile(t, 99)),
                       float(t.max()))
    print(f"expert at {args.players} players, {len(t)} decisions over {games} games: "
          f"p50 {p50:.3f} s ({p50 / TARGET:.2f} of the 1 s target), p99 {p99:.3f} s "
          f"({p99 / TARGET:.2f}), max {worst:.3f} s ({worst / TARGET:.2f})")
    print(json.dumps({
        "players": args.players, "decisions": len(t), "games": games,
        "budget_seconds": args.seconds, "p50": round(p50, 4), "p99": round(p99, 4),
        "max": round(worst, 4), "within_1s": bool(worst <= TARGET),
        "wall_seconds": round(time.perf_counter() - start, 1),
    }))


if __name__ == "__main__":
    main()
