"""The trained policy against ``cheapest`` in the arena, with the difference's interval.

The arena seats ``LearnedBot`` and three ``cheapest`` at 4-player single
rounds, every deal in every rotation (duplicate deals), and reports each
bot's bullheads per round with a 95% interval over deals. The question "does
it beat cheapest?" is about the difference, so this script also takes, deal
by deal, the learned bot's bullheads per round minus cheapest's on the same
deal, and gives that difference's mean with the arena's interval (Student t
over deals). The same numbers come from the command line::

    PYTHONPATH=. nimmt arena --bots examples.rl.policy:LearnedBot,cheapest \\
        --players 4 --games 1000 --single-round --seed 1

Run: ``.venv/bin/python -m examples.rl.evaluate [--games N] [--seed S]``.
"""

from __future__ import annotations

import argparse
import json

from nimmt import Rules
from nimmt.sim.arena import ArenaResult, ci95, run_arena

LEARNED = "examples.rl.policy:LearnedBot"


def paired_difference(result: ArenaResult, a: str, b: str) -> tuple[float, float]:
    """Mean and 95% half-width of ``a``'s minus ``b``'s bullheads per round, over deals."""
    per_deal: dict[int, dict[str, list[float]]] = {}
    for t in result.results:
        g = per_deal.setdefault(t.deal, {})
        for s, name in enumerate(t.seats):
            acc = g.setdefault(name, [0.0, 0.0])
            acc[0] += t.penalties[s]
            acc[1] += t.rounds[s]
    diffs = [g[a][0] / g[a][1] - g[b][0] / g[b][1] for g in per_deal.values()]
    return ci95(diffs)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--games", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--workers", type=int, default=None)
    args = parser.parse_args()
    rules = Rules.preset("classic", players=4, end="rounds", rounds=1)
    result = run_arena(
        [LEARNED, "cheapest"],
        players=4,
        games=args.games,
        seed=args.seed,
        rules=rules,
        single_round=True,
        workers=args.workers,
    )
    stats = result.bots
    for name in (LEARNED, "cheapest"):
        s = stats[name]
        print(f"{name:32} {s.mean_penalty:6.3f} ± {s.ci95:.3f} bullheads/round, "
              f"win share {s.win_share:.3f}, avg rank {s.avg_rank:.2f}")
    mean, half = paired_difference(result, LEARNED, "cheapest")
    print(f"difference (learned - cheapest), per deal: {mean:.3f} ± {half:.3f}")
    print(json.dumps({
        "games": args.games,
        "seed": args.seed,
        "learned": round(stats[LEARNED].mean_penalty, 3),
        "learned_ci95": round(stats[LEARNED].ci95, 3),
        "cheapest": round(stats["cheapest"].mean_penalty, 3),
        "cheapest_ci95": round(stats["cheapest"].ci95, 3),
        "difference": round(mean, 3),
        "difference_ci95": round(half, 3),
    }))


if __name__ == "__main__":
    main()
