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

``--matrix`` measures whole games instead, across player counts and variants:
in every cell (:data:`CELLS`) ``expert`` sits with ``mcs`` bots in the other
seats, both at ``--think`` seconds per decision, over ``--deals`` duplicate
deals (each played in every seat rotation), to the limit. Each cell reports the
expert's win share with its 95% interval against the fair share
``1/players``; the targets are at least 1.5 times the fair share in every cell
and 2 times in classic 4 players.
"""

from __future__ import annotations

import argparse
import json
import time

from nimmt.bots.base import Budget
from nimmt.rules import Rules
from nimmt.sim.arena import ArenaResult, run_arena

#: The matrix: label, rules spec (preset and variants), players, end mode.
CELLS: tuple[tuple[str, str, int, str], ...] = (
    ("classic 4p", "classic", 4, "classic"),
    ("classic 4p elimination", "classic", 4, "elimination"),
    ("classic 2p", "classic", 2, "classic"),
    ("classic 5p", "classic", 5, "classic"),
    ("classic 7p", "classic", 7, "classic"),
    ("classic 10p", "classic", 10, "classic"),
    ("tactics 5p", "classic+tactics", 5, "classic"),
    ("professional 4p", "classic+professional", 4, "classic"),
    ("logic 4p", "classic+logic", 4, "classic"),
    ("open-hands 4p", "classic+open-hands", 4, "classic"),
    ("jokers 4p", "classic+jokers", 4, "classic"),
)

#: Where the expert must reach more than 1.5 times the fair share.
STRONGER_TARGET = {"classic 4p": 2.0}


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


def matrix_cell(
    label: str, spec: str, players: int, end: str, args: argparse.Namespace
) -> dict[str, object]:
    """One cell: expert and ``players - 1`` mcs over whole games, duplicate deals."""
    rules = Rules.parse(spec, players, end=end)
    start = time.perf_counter()
    result = run_arena(
        ["expert", "mcs"],
        players=players,
        games=args.deals,
        seed=args.seed,
        rules=rules,
        workers=args.workers,
        budget=Budget(seconds=args.think),
        progress=False,
    )
    e = result.bots["expert"]
    fair = 1 / players
    target = STRONGER_TARGET.get(label, 1.5)
    pair = result.pair("expert", "mcs")
    cell: dict[str, object] = {
        "cell": label,
        "rules": rules.name,
        "players": players,
        "end": end,
        "deals": args.deals,
        "games": args.deals * players,
        "expert_win_share": round(e.win_share, 4),
        "win_ci95": round(e.win_ci95, 4),
        "fair_share": round(fair, 4),
        "ratio": round(e.win_share / fair, 2),
        "target_ratio": target,
        "met": e.win_share >= target * fair,
        "expert_minus_mcs_win": round(pair.win_diff, 4),
        "expert_minus_mcs_win_ci95": round(pair.win_ci95, 4),
        "expert_avg_rank": round(e.avg_rank, 2),
        "expert_sec_per_decision": round(e.sec_per_decision, 4),
        "mcs_sec_per_decision": round(result.bots["mcs"].sec_per_decision, 4),
        "wall_seconds": round(time.perf_counter() - start, 1),
    }
    return cell


def run_matrix(args: argparse.Namespace) -> None:
    """Every cell of :data:`CELLS` (or those named by ``--cells``), one line each."""
    wanted = set(args.cells.split(",")) if args.cells else None
    start = time.perf_counter()
    cells = []
    for label, spec, players, end in CELLS:
        if wanted is not None and label not in wanted:
            continue
        cell = matrix_cell(label, spec, players, end, args)
        cells.append(cell)
        lo = float(cell["expert_win_share"]) - float(cell["win_ci95"])  # type: ignore[arg-type]
        hi = float(cell["expert_win_share"]) + float(cell["win_ci95"])  # type: ignore[arg-type]
        print(
            f"{label:24} expert win {cell['expert_win_share']:.3f} "
            f"[{lo:.3f}, {hi:.3f}] fair {cell['fair_share']:.3f} = {cell['ratio']}x "
            f"(target {cell['target_ratio']}x: {'met' if cell['met'] else 'MISSED'}), "
            f"{cell['games']} games, {cell['wall_seconds']} s",
            flush=True,
        )
    print(
        json.dumps(
            {
                "matrix": cells,
                "think_seconds": args.think,
                "deals": args.deals,
                "workers": args.workers,
                "seed": args.seed,
                "all_met": all(c["met"] for c in cells),
                "wall_seconds": round(time.perf_counter() - start, 1),
            }
        )
    )


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
    parser.add_argument(
        "--matrix", action="store_true", help="whole games across player counts and variants"
    )
    parser.add_argument("--deals", type=int, default=20, help="matrix: duplicate deals per cell")
    parser.add_argument(
        "--think", type=float, default=0.05, help="matrix: seconds per decision for every bot"
    )
    parser.add_argument("--cells", default=None, help="matrix: only these cells (comma-separated)")
    args = parser.parse_args()
    if args.matrix:
        run_matrix(args)
        return
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
