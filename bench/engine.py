"""Engine speed: single rounds of random play through the public engine,
side by side with a bare minimal loop of the same rules written here.

The engine loop asks for a view and the legal options before every decision,
as a bot or a client would. The bare loop keeps only lists of ints. Both use
the same random source and the same default row choice, so the ratio measures
what the engine's safety (validation, events, views, records) costs.

Run: ``.venv/bin/python bench/engine.py [--seconds S]``; the last line is JSON.
"""

from __future__ import annotations

import argparse
import json
import random
import time

from nimmt import DecisionKind, Game, Rules, default_row
from nimmt.cards import BULLHEADS


def engine_rounds(players: int, seconds: float, seed: int) -> float:
    rules = Rules.preset("classic", players=players, end="rounds", rounds=1)
    rng = random.Random(seed)
    card = DecisionKind.CARD
    rounds = 0
    start = time.perf_counter()
    deadline = start + seconds
    while True:
        for _ in range(50):
            game = Game(rules, rng)
            while not game.is_over:
                pending = game.pending
                assert pending is not None
                if pending.kind is card:
                    for p in pending.players:
                        view = game.view(p)
                        options = game.legal(p)
                        assert options == view.options
                        game.play_card(p, options[rng.randrange(len(options))])
                else:
                    p = pending.players[0]
                    game.take_row(p, default_row(game.view(p).rows))
            rounds += 1
        now = time.perf_counter()
        if now >= deadline:
            return rounds / (now - start)


def bare_round(players: int, rng: random.Random) -> list[int]:
    """One round of the base rules on plain lists: random cards, default row choice."""
    deck = list(range(1, 105))
    rng.shuffle(deck)
    hands = [deck[i * 10 : i * 10 + 10] for i in range(players)]
    top = players * 10
    rows = [[c] for c in deck[top : top + 4]]
    penalty = [0] * players
    bh = BULLHEADS
    for _ in range(10):
        plays = []
        for p in range(players):
            h = hands[p]
            plays.append((h.pop(rng.randrange(len(h))), p))
        plays.sort()
        for c, p in plays:
            best = -1
            best_last = -1
            for i in range(4):
                last = rows[i][-1]
                if best_last < last < c:
                    best = i
                    best_last = last
            if best < 0:
                best = min(range(4), key=lambda i: (sum(bh[x] for x in rows[i]), len(rows[i])))
                penalty[p] += sum(bh[x] for x in rows[best])
                rows[best] = [c]
            elif len(rows[best]) == 5:
                penalty[p] += sum(bh[x] for x in rows[best])
                rows[best] = [c]
            else:
                rows[best].append(c)
    return penalty


def bare_rounds(players: int, seconds: float, seed: int) -> float:
    rng = random.Random(seed)
    rounds = 0
    start = time.perf_counter()
    deadline = start + seconds
    while True:
        for _ in range(50):
            bare_round(players, rng)
            rounds += 1
        now = time.perf_counter()
        if now >= deadline:
            return rounds / (now - start)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--seconds", type=float, default=3.0, help="time per measurement")
    parser.add_argument("--repeat", type=int, default=3, help="alternating repeats (best kept)")
    args = parser.parse_args()
    figures: dict[str, float] = {}
    for players in (4, 5):
        eng = bare = 0.0
        # Alternate the two loops so that machine noise hits both alike.
        for r in range(args.repeat):
            eng = max(eng, engine_rounds(players, args.seconds, r))
            bare = max(bare, bare_rounds(players, args.seconds, r))
        print(
            f"{players} players: engine {eng:,.0f} rounds/s, bare {bare:,.0f} rounds/s, "
            f"ratio {eng / bare:.3f}"
        )
        figures[f"engine_rounds_per_s_{players}p"] = round(eng, 1)
        figures[f"bare_rounds_per_s_{players}p"] = round(bare, 1)
        figures[f"ratio_{players}p"] = round(eng / bare, 3)
    result = {
        "engine_rounds_per_s": figures["engine_rounds_per_s_4p"],
        "bare_rounds_per_s": figures["bare_rounds_per_s_4p"],
        "ratio": figures["ratio_4p"],
        **figures,
    }
    print(json.dumps(result))


if __name__ == "__main__":
    main()
