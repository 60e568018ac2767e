"""``nimmt arena``: bots against bots with duplicate deals, from the command line.

The command is a plain function of Typer options; ``cli.py`` registers it.
It prints a table of the results (best first), writes JSON and CSV when
asked, and shows a progress bar with the time left while tables are played.
"""

from __future__ import annotations

import math
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Annotated

import typer
from rich import box
from rich.console import Console
from rich.table import Table

from .bots.base import Budget
from .bots.registry import BotError, describe_bots
from .cli_output import fail, is_stdio, wants_plain, write_output
from .errors import RulesError
from .rules import Rules
from .sim.arena import ArenaResult, run_arena

__all__ = ["arena", "plain_lines", "render", "render_pairs"]


def _fmt(value: float, digits: int = 2) -> str:
    return "-" if not math.isfinite(value) else f"{value:.{digits}f}"


def _signed(value: float, digits: int = 2) -> str:
    return "-" if not math.isfinite(value) else f"{value:+.{digits}f}"


def _ms(seconds: float) -> str:
    if not math.isfinite(seconds):
        return "-"
    ms = seconds * 1000
    return f"{ms:.0f}" if ms >= 10 else f"{ms:.2f}"


def _title(result: ArenaResult) -> str:
    kind = "single rounds" if result.single_round else "games"
    return (
        f"Arena: {result.games} duplicate deals x {result.players} rotations "
        f"= {result.tables} {kind}, {result.rules['preset']}"
        + "".join(f"+{v}" for v in result.rules["variants"])
        + f", seed {result.seed}"
    )


def _table(title: str, first: str, width: int, headers: list[str]) -> Table:
    """A table without vertical lines: a names column, then right-aligned numbers."""
    table = Table(title=title, box=box.SIMPLE_HEAD, pad_edge=False)
    table.add_column(first, no_wrap=True, max_width=width, overflow="ellipsis")
    for header in headers:
        table.add_column(header, justify="right", no_wrap=True)
    return table


def render(result: ArenaResult) -> Table:
    """The results as a rich table, fewest bullheads per round first.

    Eight narrow columns with headers on two lines, so that they stay whole
    in 80 columns; the
    openskill ``mu`` and ``sigma`` are in the JSON and CSV (``rating`` here is
    the ordinal, ``mu - 3 sigma``), and the faults column shows only when a bot
    faulted.
    """
    faults = any(b.faults for b in result.bots.values())
    headers = [
        "bullheads\nper round", "±95%", "win\nshare", "±95%", "avg\nrank", "rating",
        "ms per\ndecision",
    ]
    if faults:
        headers.append("faults")
    table = _table(_title(result), "bot", 24, headers)
    for b in result.ranking():
        row = [
            b.name,
            _fmt(b.mean_penalty, 2),
            _fmt(b.ci95, 2),
            _fmt(b.win_share, 3),
            _fmt(b.win_ci95, 3),
            _fmt(b.avg_rank, 2),
            _fmt(b.ordinal, 1),
            _ms(b.sec_per_decision),
        ]
        if faults:
            row.append(str(b.faults))
        table.add_row(*row)
    return table


def render_pairs(result: ArenaResult) -> Table:
    """Is A stronger than B? Each pair's paired differences over the same deals."""
    table = _table(
        "A against B on the same deals: A minus B, 95% interval, t",
        "A - B",
        30,
        ["bullheads\nper round", "±95%", "t", "win\nshare", "±95%", "t"],
    )
    for p in result.pairs:
        table.add_row(
            f"{p.a} - {p.b}",
            _signed(p.bullheads_diff, 2),
            _fmt(p.bullheads_ci95, 2),
            _fmt(p.bullheads_t, 1),
            _signed(p.win_diff, 3),
            _fmt(p.win_ci95, 3),
            _fmt(p.win_t, 1),
        )
    return table


def _p(p: float) -> str:
    if not math.isfinite(p):
        return "p not defined"
    return "p < 0.001" if p < 0.001 else f"p = {p:.3f}"


def plain_lines(result: ArenaResult) -> list[str]:
    """The results as plain sentences, one per line: no box drawing, no escape codes,
    for screen readers and logs (``--plain``)."""
    lines = [_title(result) + "."]
    for rank, b in enumerate(result.ranking(), 1):
        text = (
            f"{rank}. {b.name}: {_fmt(b.mean_penalty)} bullheads per round, plus or minus "
            f"{_fmt(b.ci95)}; win share {_fmt(b.win_share, 3)}, plus or minus "
            f"{_fmt(b.win_ci95, 3)}; average rank {_fmt(b.avg_rank)}; rating "
            f"{_fmt(b.ordinal, 1)}; {_ms(b.sec_per_decision)} milliseconds per decision"
        )
        if b.faults:
            text += f"; {b.faults} faults"
        lines.append(text + ".")
    for p in result.pairs:
        fewer = "fewer" if p.bullheads_diff <= 0 else "more"
        more = "more" if p.win_diff >= 0 else "less"
        lines.append(
            f"{p.a} against {p.b}, over {p.deals} deals: {p.a} takes "
            f"{_fmt(abs(p.bullheads_diff))} {fewer} bullheads per round, plus or minus "
            f"{_fmt(p.bullheads_ci95)}, t {_fmt(p.bullheads_t, 1)}, {_p(p.bullheads_p)}; "
            f"wins {_fmt(abs(p.win_diff), 3)} {more} often, plus or minus "
            f"{_fmt(p.win_ci95, 3)}, t {_fmt(p.win_t, 1)}, {_p(p.win_p)}."
        )
    return lines


def _plain_progress() -> Callable[[int, int], None]:
    """Progress as plain lines to stderr, one at every tenth of the tables."""
    told = [0]

    def report(done: int, total: int) -> None:
        step = max(1, total // 10)
        if done == total or done // step > told[0] // step:
            told[0] = done
            typer.echo(f"Played {done} of {total} tables.", err=True)

    return report


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
        Path | None,
        typer.Option("--json", help="Write the results as JSON here ('-' for stdout)."),
    ] = None,
    csv_path: Annotated[
        Path | None,
        typer.Option("--csv", help="Write one CSV line per bot here ('-' for stdout)."),
    ] = None,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="No progress bar.")] = False,
    plain: Annotated[
        bool,
        typer.Option(
            "--plain",
            help=(
                "Plain sentences instead of tables and a progress bar (no box drawing, "
                "no escape codes): for screen readers and logs. Also chosen by "
                "NIMMT_PLAIN, NO_COLOR, TERM=dumb or output to a file or pipe."
            ),
        ),
    ] = False,
    list_bots: Annotated[
        bool, typer.Option("--list", help="List the bot ladder and exit.")
    ] = False,
) -> None:
    """Play bots against each other with duplicate deals and report their strength.

    Each deal is replayed with the seats rotated, so every bot plays every
    hand. Output: bullheads per round with a 95% confidence interval over
    deals, win share, average rank, think time and openskill ratings; then, for
    each pair of bots, their paired differences over the same deals with a 95%
    interval and the t statistic (is A stronger than B?).
    """
    if list_bots:
        for name, description in describe_bots():
            typer.echo(f"{name}: {description}")
        return
    budget = None
    if rollouts is not None or seconds is not None:
        budget = Budget(rollouts=rollouts, seconds=seconds)
    names = [b.strip() for b in bots.split(",") if b.strip()]
    plain = wants_plain(plain)
    # Results go to standard output; progress, faults and notes to standard error, so
    # that a pipe or a '-' file receives the results alone.
    to_stdout = [p for p in (json_path, csv_path) if p is not None and is_stdio(p)]
    if len(to_stdout) > 1:
        raise fail("Only one of --json and --csv can be '-' (standard output).", 2)
    progress: bool | Callable[[int, int], None] = not quiet
    if not quiet and (plain or not sys.stderr.isatty()):
        progress = _plain_progress()
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
            progress=progress,
            timeout=timeout,
        )
    except (BotError, RulesError) as exc:
        typer.echo(f"error: {exc}", err=True)
        raise typer.Exit(2) from None
    if not to_stdout:
        if plain:
            for line in plain_lines(result):
                typer.echo(line)
        else:
            console = Console()
            console.print(render(result))
            if result.pairs:
                console.print(render_pairs(result))
    for f in result.fault_log[:10]:
        typer.echo(
            f"fault: bot {f['bot']!r} in deal {f['deal']}, rotation {f['rotation']}, "
            f"seat {f['seat'] + 1}: {f['kind']}: {f['message']}",
            err=True,
        )
    if len(result.fault_log) > 10:
        typer.echo(f"... and {len(result.fault_log) - 10} more faults (see the JSON)", err=True)
    for path, text in ((json_path, result.to_json), (csv_path, result.to_csv)):
        if path is not None:
            write_output(path, text())
            if not is_stdio(path):
                typer.echo(f"Wrote {path}.", err=True)
