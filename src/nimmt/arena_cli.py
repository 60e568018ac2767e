"""``nimmt arena``: bots against bots with duplicate deals, from the command line.

The command is a plain function of Typer options; ``cli.py`` registers it.
It prints a table of the results (best first), writes JSON and CSV when
asked, and shows a progress bar with the time left while tables are played.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.table import Table

from .bots.base import Budget
from .bots.registry import BotError, describe_bots
from .errors import RulesError
from .rules import Rules
from .sim.arena import ArenaResult, run_arena

__all__ = ["arena", "render"]


def _fmt(value: float, digits: int = 2) -> str:
    return "-" if not math.isfinite(value) else f"{value:.{digits}f}"


def render(result: ArenaResult) -> Table:
    """The results as a rich table, fewest bullheads per round first."""
    kind = "single rounds" if result.single_round else "games"
    table = Table(
        title=(
            f"Arena: {result.games} duplicate deals x {result.players} rotations "
            f"= {result.tables} {kind}, {result.rules['preset']}"
            + "".join(f"+{v}" for v in result.rules["variants"])
            + f", seed {result.seed}"
        )
    )
    table.add_column("bot", no_wrap=True)
    for header in (
        "bullheads/round",
        "±95%",
        "win share",
        "avg rank",
        "s/decision",
        "rounds",
        "mu",
        "sigma",
        "ordinal",
        "faults",
    ):
        table.add_column(header, justify="right", no_wrap=True)
    for b in result.ranking():
        table.add_row(
            b.name,
            _fmt(b.mean_penalty, 3),
            _fmt(b.ci95, 3),
            _fmt(b.win_share, 3),
            _fmt(b.avg_rank, 2),
            "-" if not math.isfinite(b.sec_per_decision) else f"{b.sec_per_decision:.2g}",
            str(b.rounds),
            _fmt(b.mu),
            _fmt(b.sigma),
            _fmt(b.ordinal),
            str(b.faults),
        )
    return table


def arena(
    bots: Annotated[
        str,
        typer.Option(
            "--bots",
            "-b",
            help=(
                "Comma-separated bots: ladder names, strengths or import paths pkg.module:Class. "
                "With fewer names than players the last name fills the other seats."
            ),
        ),
    ] = "dodger,cheapest",
    players: Annotated[int, typer.Option("--players", "-n", help="Seats at each table.")] = 4,
    games: Annotated[
        int, typer.Option("--games", "-g", help="Deals; each is played in every rotation.")
    ] = 100,
    seed: Annotated[int, typer.Option("--seed", "-s", help="Seed of the whole arena.")] = 1,
    preset: Annotated[
        str,
        typer.Option(
            "--preset",
            "-p",
            help="Rules: a preset and variants joined by '+', e.g. category5+tactics.",
        ),
    ] = "classic",
    single_round: Annotated[
        bool, typer.Option("--single-round", help="Play single rounds instead of whole games.")
    ] = False,
    workers: Annotated[
        int | None, typer.Option("--workers", "-w", help="Worker processes (default: CPUs).")
    ] = None,
    ray: Annotated[
        str | None,
        typer.Option("--ray", help="Run on Ray: 'local', 'auto' or a cluster address."),
    ] = None,
    rollouts: Annotated[
        int | None, typer.Option("--rollouts", help="Search budget: rollouts per decision.")
    ] = None,
    seconds: Annotated[
        float | None, typer.Option("--seconds", help="Search budget: seconds per decision.")
    ] = None,
    timeout: Annotated[
        float | None,
        typer.Option("--timeout", help="Fault a bot that thinks longer than this per decision."),
    ] = None,
    json_path: Annotated[
        Path | None, typer.Option("--json", help="Write the results as JSON here.")
    ] = None,
    csv_path: Annotated[
        Path | None, typer.Option("--csv", help="Write one CSV line per bot here.")
    ] = None,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="No progress bar.")] = False,
    list_bots: Annotated[
        bool, typer.Option("--list", help="List the bot ladder and exit.")
    ] = False,
) -> None:
    """Play bots against each other with duplicate deals and report their strength.

    Each deal is replayed with the seats rotated, so every bot plays every
    hand. Output: bullheads per round with a 95% confidence interval over
    deals, win share, average rank, think time and openskill ratings.
    """
    if list_bots:
        for name, description in describe_bots():
            typer.echo(f"{name}: {description}")
        return
    console = Console()
    if not console.is_terminal:
        # Files and pipes get the whole table, not one cut to 80 columns.
        console = Console(width=140)
    budget = None
    if rollouts is not None or seconds is not None:
        budget = Budget(rollouts=rollouts, seconds=seconds)
    names = [b.strip() for b in bots.split(",") if b.strip()]
    try:
        rules = Rules.parse(preset, players=players)
        result = run_arena(
            names,
            players=players,
            games=games,
            seed=seed,
            rules=rules,
            single_round=single_round,
            workers=workers,
            ray_address=ray,
            budget=budget,
            progress=not quiet,
            timeout=timeout,
        )
    except (BotError, RulesError) as exc:
        typer.echo(f"error: {exc}", err=True)
        raise typer.Exit(2) from None
    console.print(render(result))
    for f in result.fault_log[:10]:
        typer.echo(
            f"fault: bot {f['bot']!r} in deal {f['deal']}, rotation {f['rotation']}, "
            f"seat {f['seat']}: {f['kind']}: {f['message']}",
            err=True,
        )
    if len(result.fault_log) > 10:
        typer.echo(f"... and {len(result.fault_log) - 10} more faults (see the JSON)", err=True)
    if json_path is not None:
        json_path.parent.mkdir(parents=True, exist_ok=True)
        json_path.write_text(result.to_json(), encoding="utf-8")
        typer.echo(f"Wrote {json_path}.")
    if csv_path is not None:
        csv_path.parent.mkdir(parents=True, exist_ok=True)
        csv_path.write_text(result.to_csv(), encoding="utf-8")
        typer.echo(f"Wrote {csv_path}.")
