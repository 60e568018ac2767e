"""Strength of the search bots, in the arena, single rounds of 4 players.

Two duplicate-deal runs (every deal played in all 4 seat rotations, so the
cards' luck cancels): ``expert`` against three ``cheapest`` (random cards,
cheapest row: the research baseline, where the best public bots lose about 6.9
bullheads per round), and ``expert`` against three ``mcs`` at the same budget.

Goals at no more than 1 second per decision: ``expert_vs_cheapest_mean <= 6.0``
and ``expert_vs_mcs_mean <= mcs_mean - 0.5``.

Run: ``.venv/bin/python bench/strength.py [--rounds 2000] [--mcs-rounds 200]
[--seconds 1.0 | --rollouts N] [--workers 2]``. ``--rounds`` counts deals (each
played 4 times). The last line is one JSON object.
"""

from __future__ import annotations

import argparse
import json
import time

from nimmt.bots.base import Budget
from nimmt.sim.arena import ArenaResult, run_arena


def run(opponent: str, rounds: int, budget: Budget, workers: int, seed: int) -> ArenaResult:
    return run_arena(
        ["expert", opponent],
        players=4,
        games=rounds,
        seed=seed,
        single_round=True,
        workers=workers,
        budget=budget,
        progress=False,
    )


def line(result: ArenaResult) -> str:
    parts = []
    for b in result.ranking():
        parts.append(
            f"{b.name} {b.mean_penalty:.3f} ± {b.ci95:.3f} (win {b.win_share:.3f}, "
            f"rank {b.avg_rank:.2f}, {b.sec_per_decision * 1000:.1f} ms/decision)"
        )
    return "; ".join(parts)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rounds", type=int, default=2000, help="deals against cheapest")
    parser.add_argument("--mcs-rounds", type=int, default=200, help="deals against mcs")
    parser.add_argument("--seconds", type=float, default=1.0, help="seconds per decision")
    parser.add_argument(
        "--rollouts", type=int, default=None, help="rollouts per decision (instead of seconds)"
    )
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    if args.rollouts is not None:
        budget = Budget(rollouts=args.rollouts)
    else:
        budget = Budget(seconds=args.seconds)
    start = time.perf_counter()
    vs_cheapest = run("cheapest", args.rounds, budget, args.workers, args.seed)
    print(f"expert vs 3 cheapest, {args.rounds} deals x 4 rotations: {line(vs_cheapest)}")
    figures: dict[str, object] = {}
    e = vs_cheapest.bots["expert"]
    figures.update(
        expert_vs_cheapest_mean=round(e.mean_penalty, 3),
        ci95=round(e.ci95, 3),
        expert_win_share=round(e.win_share, 4),
        cheapest_mean=round(vs_cheapest.bots["cheapest"].mean_penalty, 3),
    )
    if args.mcs_rounds > 0:
        vs_mcs = run("mcs", args.mcs_rounds, budget, args.workers, args.seed + 1)
        print(f"expert vs 3 mcs, {args.mcs_rounds} deals x 4 rotations: {line(vs_mcs)}")
        em = vs_mcs.bots["expert"]
        m = vs_mcs.bots["mcs"]
        figures.update(
            expert_vs_mcs_mean=round(em.mean_penalty, 3),
            expert_vs_mcs_ci95=round(em.ci95, 3),
            mcs_mean=round(m.mean_penalty, 3),
            mcs_ci95=round(m.ci95, 3),
            mcs_sec_per_decision=round(m.sec_per_decision, 4),
        )
    figures.update(
        sec_per_decision=round(e.sec_per_decision, 4),
        rounds=args.rounds,
        mcs_rounds=args.mcs_rounds,
        budget_seconds=budget.seconds,
        budget_rollouts=budget.rollouts,
        workers=args.workers,
        wall_seconds=round(time.perf_counter() - start, 1),
    )
    print(json.dumps(figures))


if __name__ == "__main__":
    main()
