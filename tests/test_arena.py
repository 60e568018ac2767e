"""The arena: duplicate rotation, statistics, ratings, backends, faults and the command."""

from __future__ import annotations

import csv
import io
import json
import math
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from nimmt import Game, Rules
from nimmt.bots import BotError
from nimmt.bots.base import Budget
from nimmt.sim.arena import (
    ArenaError,
    ArenaResult,
    ci95,
    deal_seed,
    paired,
    ranks_of,
    rotate,
    run_arena,
    seating,
    t975,
    t_two_sided,
)

HERE = Path(__file__).parent
ROOT = HERE.parent


@pytest.fixture
def test_bots(monkeypatch: pytest.MonkeyPatch) -> Any:
    """Put tests/ on the import path so ``arena_bots:...`` names resolve, as a user's would."""
    monkeypatch.syspath_prepend(str(HERE))
    import arena_bots

    arena_bots.SEEN.clear()
    arena_bots.BUDGETS.clear()
    return arena_bots


def _numbers(result: ArenaResult) -> dict[str, Any]:
    """Everything but wall-clock measurements."""
    out = result.to_dict()
    for key in ("seconds", "backend", "workers"):
        out.pop(key)
    for stats in out["bots"].values():
        stats.pop("sec_per_decision")
    for table in out["table_results"]:
        table.pop("seconds")
    return out


# -- seating and rotation --------------------------------------------------------


def test_seating_fills_with_the_last_name() -> None:
    assert seating(["expert", "cheapest"], 4) == ("expert", "cheapest", "cheapest", "cheapest")
    assert seating(["a", "b", "c"], 3) == ("a", "b", "c")
    with pytest.raises(ArenaError, match="3 bots do not fit at a table of 2"):
        seating(["a", "b", "c"], 2)
    with pytest.raises(ArenaError, match="at least one bot"):
        seating([], 4)


def test_every_bot_sits_in_every_seat_of_every_deal(test_bots: Any) -> None:
    specs = ("dodger", "arena_bots:RecorderBot", "random", "lowrisk")
    seats = ("dodger", "recorder", "random", "lowrisk")  # bots go by their names
    result = run_arena(list(specs), games=3, seed=5, single_round=True, workers=1)
    assert result.seating == seats and result.specs["recorder"] == "arena_bots:RecorderBot"
    assert result.tables == 12
    by_deal: dict[int, list[tuple[str, ...]]] = {}
    for t in result.results:
        by_deal.setdefault(t.deal, []).append(t.seats)
    assert sorted(by_deal) == [0, 1, 2]
    for layouts in by_deal.values():
        assert layouts == [rotate(seats, r) for r in range(4)]
        for seat in range(4):
            assert {layout[seat] for layout in layouts} == set(seats)
    # The recorder saw the same deal in every rotation: each seat's hand, once per seat.
    for deal in range(3):
        hands = Game(Rules.preset("classic", 4), seed=deal_seed(5, deal)).round_deals[0].hands
        seen = test_bots.SEEN[deal * 4 : deal * 4 + 4]
        assert sorted(seen) == [(s, hands[s]) for s in range(4)]


def test_deal_seeds_are_independent_per_deal() -> None:
    seeds = {deal_seed(1, d) for d in range(500)}
    assert len(seeds) == 500
    assert deal_seed(1, 7) == deal_seed(1, 7) != deal_seed(2, 7)


# -- statistics --------------------------------------------------------------------


def test_ci_formula_on_fixed_numbers() -> None:
    mean, half = ci95([1.0, 2.0, 3.0, 4.0])
    sd = math.sqrt(((1.5**2) * 2 + (0.5**2) * 2) / 3)
    assert mean == 2.5
    assert half == pytest.approx(3.182 * sd / 2)
    mean, half = ci95([10.0] * 50)
    assert (mean, half) == (10.0, 0.0)
    assert math.isnan(ci95([3.0])[1])
    assert t975(2) == 4.303
    assert t975(60) == pytest.approx(2.000, abs=1e-3)
    assert t975(120) == pytest.approx(1.980, abs=1e-3)
    assert ranks_of([(0, 3), (1, 3), (1, 3), (1, 9)]) == (1.0, 2.5, 2.5, 4.0)


def test_ci_is_computed_over_deal_groups() -> None:
    result = run_arena(["lowrisk", "cheapest"], games=12, seed=3, single_round=True, workers=1)
    for name, stats in result.bots.items():
        groups: dict[int, list[float]] = {}
        for t in result.results:
            for s, n in enumerate(t.seats):
                if n == name:
                    acc = groups.setdefault(t.deal, [0.0, 0.0])
                    acc[0] += t.penalties[s]
                    acc[1] += t.rounds[s]
        values = [p / r for p, r in groups.values()]
        assert len(values) == 12
        mean, half = ci95(values)
        assert stats.mean_penalty == pytest.approx(mean)
        assert stats.ci95 == pytest.approx(half)
    # 12 groups of 4 rotations with one round each.
    assert result.bots["lowrisk"].rounds == 48
    assert result.bots["cheapest"].rounds == 144


def test_identical_players_split_evenly() -> None:
    """One bot in every seat: every table's win shares add to one, ranks to 1+2+3+4."""
    result = run_arena(["cheapest"], games=10, seed=2, workers=1)
    stats = result.bots["cheapest"]
    assert stats.win_share == pytest.approx(0.25)
    assert stats.avg_rank == pytest.approx(2.5)
    assert stats.seats == 160  # 10 deals x 4 rotations x 4 seats
    assert stats.mu == pytest.approx(25.0)  # a name cannot gain on itself
    assert stats.rounds >= 40  # whole games last several rounds


def test_duplicate_deals_cancel_luck_exactly() -> None:
    """Two names for the same deterministic strategy score exactly alike over each deal group."""
    same = "nimmt.bots.simple:LowRiskBot"
    result = run_arena(["lowrisk", same], players=2, games=15, seed=8, workers=1)
    # Two specs of one name are told apart by the spec.
    a, b = result.bots["lowrisk"], result.bots[f"lowrisk ({same})"]
    assert a.mean_penalty == b.mean_penalty
    assert a.ci95 == b.ci95
    assert a.win_share == b.win_share == pytest.approx(0.5)
    assert a.avg_rank == b.avg_rank
    # Paired over the same deals, identical strategies differ by exactly nothing.
    pair = result.pair("lowrisk", f"lowrisk ({same})")
    assert pair.bullheads_diff == 0 and pair.win_diff == 0 and pair.bullheads_ci95 == 0


def test_paired_statistics_on_fixed_numbers() -> None:
    pair = paired("a", "b", [1.0, 2.0, 4.0, 5.0], [2.0, 2.0, 2.0, 2.0], [1, 0, 1, 1], [0, 0, 0, 1])
    # Differences -1, 0, 2, 3: mean 1, sd sqrt(10/3), t = 1 / (sd / 2).
    sd = math.sqrt(10 / 3)
    assert pair.bullheads_diff == 1.0
    assert pair.bullheads_ci95 == pytest.approx(3.182 * sd / 2)
    assert pair.bullheads_t == pytest.approx(2 / sd)
    assert pair.win_diff == 0.5 and pair.deals == 4
    # Student's t: the two-sided p-values of a table.
    assert t_two_sided(2.776, 4) == pytest.approx(0.05, abs=2e-4)
    assert t_two_sided(-12.706, 1) == pytest.approx(0.05, abs=2e-4)
    assert t_two_sided(1.96, 100_000) == pytest.approx(0.05, abs=2e-4)
    assert t_two_sided(0.0, 9) == 1.0


def test_own_budgets_and_labels(test_bots: Any) -> None:
    spec = "arena_bots:BudgetBot"
    result = run_arena(
        [spec, "hard"], players=2, games=2, seed=3, single_round=True, workers=1,
        budget=Budget(rollouts=40), budgets={spec: Budget(rollouts=7)},
    )  # fmt: skip
    assert result.seating == ("budget", "mcs")
    assert result.specs == {"budget": spec, "mcs": "hard"}
    assert set(test_bots.BUDGETS) == {Budget(rollouts=7)}
    with pytest.raises(ArenaError, match="'mcs'"):
        run_arena(["expert", "hard"], games=1, seed=1, budgets={"mcs": Budget(rollouts=9)})


def test_known_result_expensive_rows_lose(test_bots: Any) -> None:
    result = run_arena(
        ["arena_bots:ExpensiveBot", "cheapest"], games=25, seed=4, single_round=True, workers=1
    )
    bad, base = result.bots["expensive"], result.bots["cheapest"]
    assert bad.mean_penalty - bad.ci95 > base.mean_penalty + base.ci95
    assert bad.win_share < base.win_share
    assert bad.avg_rank > base.avg_rank
    assert bad.mu < base.mu and bad.ordinal < base.ordinal
    for s in (bad, base):
        assert s.ordinal == pytest.approx(s.mu - 3 * s.sigma)
        assert s.sigma < 25 / 3  # the ratings learned something
    # The rows of the CSV, best first.
    rows = list(csv.DictReader(io.StringIO(result.to_csv())))
    assert [r["name"] for r in rows] == ["cheapest", "expensive"]
    # Is cheapest stronger than expensive? Clearly, on the same deals.
    pair = result.pair("cheapest", "expensive")
    assert pair.deals == 25
    assert pair.bullheads_diff + pair.bullheads_ci95 < 0 and pair.bullheads_t < -2
    assert pair.bullheads_p < 0.05 and pair.win_diff > 0


def test_ratings_follow_strength_in_whole_games() -> None:
    result = run_arena(["dodger", "random"], players=3, games=8, seed=6, workers=1)
    assert result.bots["dodger"].mu > result.bots["random"].mu
    assert result.bots["dodger"].win_share > 1 / 3


# -- reproducibility across workers and backends ------------------------------------


def test_same_numbers_on_one_and_two_workers() -> None:
    kwargs: dict[str, Any] = {"games": 9, "seed": 11, "rules": Rules.parse("professional", 4)}
    one = run_arena(["dodger", "lowrisk", "cheapest", "random"], workers=1, **kwargs)
    two = run_arena(["dodger", "lowrisk", "cheapest", "random"], workers=2, **kwargs)
    assert one.backend == "local" and two.backend == "processes"
    assert _numbers(one) == _numbers(two)
    other = run_arena(
        ["dodger", "lowrisk", "cheapest", "random"],
        workers=1,
        games=9,
        seed=12,
        rules=Rules.parse("professional", 4),
    )
    assert _numbers(other) != _numbers(one)


@pytest.mark.ray
@pytest.mark.timeout(300)
def test_same_numbers_on_ray() -> None:
    """A local Ray instance, started here, gives the numbers of a single process."""
    os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")
    ray = pytest.importorskip("ray")
    kwargs: dict[str, Any] = {"games": 4, "seed": 21, "single_round": True}
    local = run_arena(["dodger", "cheapest"], workers=1, **kwargs)
    ray.init(address="local", num_cpus=2, include_dashboard=False, log_to_driver=False)
    try:
        on_ray = run_arena(["dodger", "cheapest"], ray_address="auto", **kwargs)
        assert ray.is_initialized()  # the arena joined the running instance and left it up
    finally:
        ray.shutdown()
    assert on_ray.backend == "ray:auto"
    assert _numbers(on_ray) == _numbers(local)
    # "local": the arena starts its own instance and stops it afterwards.
    own = run_arena(["dodger", "cheapest"], ray_address="local", workers=2, **kwargs)
    assert not ray.is_initialized()
    assert _numbers(own) == _numbers(local)


# -- faults ------------------------------------------------------------------------


def test_bad_bot_path_is_refused_before_play() -> None:
    with pytest.raises(BotError, match=r"bot 'mypkg\.nothing:Bot': cannot import module"):
        run_arena(["mypkg.nothing:Bot", "cheapest"], games=1, seed=0, workers=1)
    with pytest.raises(BotError, match="unknown bot 'chepest'"):
        run_arena(["chepest"], games=1, seed=0, workers=1)


@pytest.mark.parametrize("workers", [1, 2])
def test_a_raising_bot_is_recorded_not_fatal(test_bots: Any, workers: int) -> None:
    name = "raising"
    spec = "arena_bots:RaisingBot"
    result = run_arena([spec, "cheapest"], games=2, seed=1, single_round=True, workers=workers)
    assert result.tables == 8
    stats = result.bots[name]
    assert stats.faults == 8  # once per table: the default bot then plays the seat
    assert result.bots["cheapest"].faults == 0
    assert stats.rounds == 8  # every deal still counts
    for f in result.fault_log:
        assert f["bot"] == name and f["kind"] == "raised" and f["turn"] == 3
        assert "RuntimeError: this bot breaks on turn 3" in f["message"]


def test_an_illegal_answer_is_recorded(test_bots: Any) -> None:
    name = "illegal"
    result = run_arena(["arena_bots:IllegalBot", "random"], players=3, games=2, seed=1, workers=1)
    assert result.bots[name].faults == 6
    assert {f["kind"] for f in result.fault_log} == {"illegal"}
    assert "illegal card decision 105; legal: [" in result.fault_log[0]["message"]


@pytest.mark.parametrize(("bot", "workers"), [("SleepyBot", 1), ("SleepyBot", 2), ("SpinBot", 2)])
def test_a_slow_bot_times_out(test_bots: Any, bot: str, workers: int) -> None:
    """In this process a helper thread waits; in a worker process an alarm interrupts."""
    name = bot.removesuffix("Bot").lower()
    result = run_arena(
        [f"arena_bots:{bot}", "cheapest"],
        players=2,
        games=1,
        seed=1,
        single_round=True,
        workers=workers,
        # Far below what the slow bots take (2 s asleep, 5 s spinning), far above what
        # cheapest takes even on a busy machine.
        timeout=1.0,
    )
    assert result.bots[name].faults == 2
    assert result.bots["cheapest"].faults == 0
    assert {f["kind"] for f in result.fault_log} == {"timeout"}
    assert "within 1 s" in result.fault_log[0]["message"]
    assert result.tables == 2


def test_fast_bots_do_not_time_out() -> None:
    result = run_arena(["dodger", "cheapest"], games=2, seed=1, workers=1, timeout=5)
    assert all(s.faults == 0 for s in result.bots.values())


def test_bad_arguments() -> None:
    with pytest.raises(ArenaError, match="games"):
        run_arena(["cheapest"], games=0, seed=1)
    with pytest.raises(ArenaError, match="seed"):
        run_arena(["cheapest"], games=1, seed=-1)
    with pytest.raises(ArenaError, match="rules are for 5 players"):
        run_arena(["cheapest"], games=1, seed=1, rules=Rules.preset("classic", 5))
    with pytest.raises(ArenaError, match="timeout"):
        run_arena(["cheapest"], games=1, seed=1, timeout=0)


# -- the command ---------------------------------------------------------------------


def test_cli_end_to_end(tmp_path: Path) -> None:
    from nimmt.cli import app

    out_json, out_csv = tmp_path / "r.json", tmp_path / "r.csv"
    args = [
        "arena", "--bots", "dodger,cheapest", "--players", "3", "--games", "4", "--seed", "2",
        "--preset", "category5+professional", "--single-round", "--workers", "1",
        "--json", str(out_json), "--csv", str(out_csv),
    ]  # fmt: skip
    res = CliRunner().invoke(app, args)
    assert res.exit_code == 0, res.output
    # Not a terminal: plain sentences on stdout; progress and "Wrote" lines on stderr.
    assert "1. dodger: " in res.stdout and "bullheads per round" in res.stdout
    assert "dodger against cheapest, over 4 deals" in res.stdout
    assert "Played 12 of 12 tables." in res.stderr and "Played" not in res.stdout
    assert f"Wrote {out_json}." in res.stderr
    data = json.loads(out_json.read_text())
    assert data["games"] == 4 and data["tables"] == 12 and data["single_round"]
    assert data["rules"]["variants"] == ["professional"] and data["rules"]["limit"] == 75
    assert data["seating"] == ["dodger", "cheapest", "cheapest"]
    direct = run_arena(
        ["dodger", "cheapest"], players=3, games=4, seed=2, single_round=True, workers=1,
        rules=Rules.parse("category5+professional", 3),
    )  # fmt: skip
    assert data["bots"]["dodger"]["mean_penalty"] == direct.bots["dodger"].mean_penalty
    assert data["bots"]["cheapest"]["mu"] == direct.bots["cheapest"].mu
    rows = list(csv.DictReader(io.StringIO(out_csv.read_text())))
    assert {r["name"] for r in rows} == {"dodger", "cheapest"}
    assert float(rows[0]["mean_penalty"]) <= float(rows[1]["mean_penalty"])
    # Added: the pairs, every table, the specs.
    (pair,) = data["pairs"]
    assert (pair["a"], pair["b"], pair["deals"]) == ("dodger", "cheapest", 4)
    assert pair["bullheads_diff"] == direct.pair("dodger", "cheapest").bullheads_diff
    assert len(data["table_results"]) == 12
    first = data["table_results"][0]
    assert first["seats"] == ["dodger", "cheapest", "cheapest"] and first["deal"] == 0
    assert sum(first["penalties"]) > 0
    assert data["specs"] == {"dodger": "dodger", "cheapest": "cheapest"}
    # On an 80-column terminal the tables keep their headers readable.
    from rich.console import Console

    from nimmt.arena_cli import render, render_pairs

    screen = Console(width=80, file=io.StringIO(), force_terminal=True, color_system=None)
    screen.print(render(direct))
    screen.print(render_pairs(direct))
    drawn = screen.file.getvalue()  # type: ignore[attr-defined]
    assert max(len(line) for line in drawn.splitlines()) <= 80
    assert "dodger" in drawn and "─" in drawn


def test_cli_json_to_stdout_alone() -> None:
    """``--json -`` puts the JSON, and nothing else, on standard output (a pipe into jq)."""
    cmd = [sys.executable, "-m", "nimmt", "arena", "--bots", "dodger,cheapest", "--players", "3",
           "--games", "2", "--single-round", "--workers", "1", "--json", "-"]
    res = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    assert res.returncode == 0, res.stderr
    data = json.loads(res.stdout)
    assert data["games"] == 2 and set(data["bots"]) == {"dodger", "cheapest"}
    assert "Played 6 of 6 tables." in res.stderr and "Wrote" not in res.stderr
    both = subprocess.run([*cmd, "--csv", "-"], capture_output=True, text=True, timeout=120)
    assert both.returncode == 2 and "Only one of --json and --csv" in both.stderr


def test_cli_plain_mode(test_bots: Any) -> None:
    from nimmt.cli import app

    args = [
        "arena", "--bots", "dodger,arena_bots:ExpensiveBot", "--players", "3", "--games", "3",
        "--workers", "1", "--single-round", "--plain",
    ]  # fmt: skip
    res = CliRunner().invoke(app, args)
    assert res.exit_code == 0, res.output
    out = res.stdout
    assert "\x1b" not in res.output
    assert not any(ch in out for ch in "─│┃━┏┓┗┛╭╮╰╯")
    lines = out.strip().splitlines()
    assert lines[0].startswith("Arena: 3 duplicate deals")
    assert lines[1].startswith("1. dodger: ") and lines[2].startswith("2. expensive: ")
    assert lines[3].startswith("dodger against expensive, over 3 deals: dodger takes ")
    assert "Played 9 of 9 tables." in res.stderr


def test_cli_errors_name_the_bot() -> None:
    from nimmt.cli import app

    res = CliRunner().invoke(app, ["arena", "--bots", "nowhere.bot:X", "--games", "1"])
    assert res.exit_code == 2
    assert "nowhere.bot:X" in res.output
    res = CliRunner().invoke(app, ["arena", "--bots", "cheapest", "--preset", "open+tactics"])
    assert res.exit_code == 2 and "cannot be combined" in res.output


def test_cli_lists_the_ladder() -> None:
    from nimmt.cli import app

    res = CliRunner().invoke(app, ["arena", "--list"])
    assert res.exit_code == 0
    for name in ("random", "cheapest", "lowrisk", "dodger", "mcs", "expert"):
        assert f"{name}: " in res.output


def test_example_user_bot_enters_by_import_path() -> None:
    """The documented command, run as a user would: PYTHONPATH=. from the project."""
    env = {**os.environ, "PYTHONPATH": "."}
    cmd = [
        sys.executable, "-c", "from nimmt.cli import main; main()",
        "arena", "--bots", "examples.mybot:MyBot,cheapest",
        "--games", "2", "--single-round", "--workers", "2", "--quiet",
    ]  # fmt: skip
    res = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True, timeout=120)
    assert res.returncode == 0, res.stderr
    assert "mybot" in res.stdout  # the bot goes by its name, not its import path


def test_example_user_bot_plays_every_variant(monkeypatch: pytest.MonkeyPatch) -> None:
    from nimmt.bots import make_bot
    from nimmt.bots.play import play_game

    monkeypatch.syspath_prepend(str(ROOT))
    for spec, players in [("professional+jokers", 4), ("logic", 3), ("open", 5), ("tactics", 2)]:
        rules = Rules.parse(spec, players=players, end="elimination")
        for seed in range(3):
            bots = [make_bot("examples.mybot:MyBot", seed=seed + s) for s in range(players)]
            assert play_game(rules, bots, seed).is_over  # an illegal answer would raise
