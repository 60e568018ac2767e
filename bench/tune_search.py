"""Paired comparison of search-bot settings on the same duplicate deals.

Each setting plays every deal once per seat rotation (single rounds, 4 players,
classic) against three opponents (``cheapest``, or a search bot given as JSON);
the figure per deal is the setting's bullheads minus its opponents' mean at the
same tables. Settings meet the same deals, so their differences are paired and
much less noisy than their separate means. This is the harness behind the
tuning notes in docs/bots.md.

Run: ``.venv/bin/python bench/tune_search.py SETTINGS DEALS [OPPONENT]`` where
SETTINGS is a JSON list such as ``'[{"name": "noise 1"}, {"name": "noise 0.3",
"noise_self": 0.3}]'`` (keys: ``kind`` expert|mcs, ``rollouts``, ``seconds``, and
any ExpertBot attribute) and OPPONENT ``cheapest`` or e.g. ``'{"kind": "mcs",
"rollouts": 6000}'``. The last line is one JSON object.
"""

from __future__ import annotations

import json
import sys
from concurrent.futures import ProcessPoolExecutor
from typing import Any

import numpy as np

from nimmt import DecisionKind, Game, Rules
from nimmt.bots.base import Bot, Budget
from nimmt.bots.simple import CheapestBot
from nimmt.sim.search import ExpertBot, MCSBot

_KEYS = ("kind", "rollouts", "seconds", "name")


def make(cfg: dict[str, Any], seed: int) -> Bot:
    if "seconds" in cfg:
        budget = Budget(seconds=cfg["seconds"])
    else:
        budget = Budget(rollouts=cfg.get("rollouts", 2000))
    if cfg.get("kind", "expert") == "mcs":
        return MCSBot(seed, budget)
    bot = ExpertBot(seed, budget)
    for k, v in cfg.items():
        if k not in _KEYS:
            if not hasattr(bot, k):
                raise SystemExit(f"unknown setting {k!r}")
            setattr(bot, k, v)
    return bot


def play_deal(args: tuple[dict[str, Any], Any, int]) -> float:
    cfg, opponent, deal = args
    rules = Rules.parse("classic", players=4, end="rounds", rounds=1)
    diff = 0.0
    for rot in range(4):
        game = Game(rules, seed=deal)
        bots: list[Bot] = []
        for s in range(4):
            seed = deal * 10 + s
            if s == rot:
                bots.append(make(cfg, seed))
            elif opponent == "cheapest":
                bots.append(CheapestBot(seed=seed))
            else:
                bots.append(make(opponent, seed))
        while not game.is_over:
            pending = game.pending
            assert pending is not None
            p = pending.players[0]
            view = game.view(p)
            if pending.kind is DecisionKind.CARD:
                game.play_card(p, bots[p].choose_card(view))
            else:
                game.take_row(p, bots[p].choose_row(view))
        mine = game.scores[rot]
        diff += mine - (sum(game.scores) - mine) / 3
    return diff / 4


def main() -> None:
    if len(sys.argv) < 3:
        raise SystemExit(__doc__)
    settings = json.loads(sys.argv[1])
    deals = int(sys.argv[2])
    opponent: Any = sys.argv[3] if len(sys.argv) > 3 else "cheapest"
    if opponent != "cheapest":
        opponent = json.loads(opponent)
    results: dict[str, np.ndarray[Any, np.dtype[np.float64]]] = {}
    with ProcessPoolExecutor(2) as pool:
        for cfg in settings:
            jobs = [(cfg, opponent, 1000 + d) for d in range(deals)]
            results[cfg.get("name", json.dumps(cfg))] = np.array(list(pool.map(play_deal, jobs)))
    names = list(results)
    out: dict[str, Any] = {}
    for n in names:
        v = results[n]
        half = 1.96 * v.std(ddof=1) / np.sqrt(len(v))
        print(f"{n}: {v.mean():+.3f} ± {half:.3f} (bullheads minus the opponents' mean)")
        out[n] = [round(float(v.mean()), 3), round(float(half), 3)]
    for n in names[1:]:
        d = results[n] - results[names[0]]
        half = 1.96 * d.std(ddof=1) / np.sqrt(len(d))
        print(f"  {n} - {names[0]}: {d.mean():+.3f} ± {half:.3f}")
        out[f"{n} - {names[0]}"] = [round(float(d.mean()), 3), round(float(half), 3)]
    print(json.dumps(out))


if __name__ == "__main__":
    main()
