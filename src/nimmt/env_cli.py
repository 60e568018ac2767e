"""``nimmt env check``: run PettingZoo's and Gymnasium's own checks on a rule set.

A researcher about to train on an unusual table (``category5+professional``,
7 players, elimination) can ask the libraries themselves whether the
environments behave, before spending hours on it. The command imports
``nimmt.env`` (and so PettingZoo and Gymnasium) only when run, so the rest of
the command line works without the ``rl`` extra. One line per check, plain
text for screen readers; exit code 1 when a check fails, 2 when the rules are
wrong, 3 without the ``rl`` extra (the command line's codes, docs/packaging.md).
"""

from __future__ import annotations

import contextlib
import io
import traceback
import warnings
from collections.abc import Callable
from typing import Annotated, Any

import typer

from .cli_output import extra_command
from .errors import RulesError
from .rules import Rules

__all__ = ["env_app"]

env_app = typer.Typer(
    help="Reinforcement-learning environments (nimmt.env).",
    no_args_is_help=True,
    add_completion=False,
    rich_markup_mode=None,
)


def _checks(rules: Rules, cycles: int) -> tuple[list[tuple[str, Callable[[], Any]]], str | None]:
    """The checks to run, and why the vectorised environment is left out (if it is)."""
    from gymnasium.utils.env_checker import check_env
    from pettingzoo.test import api_test, parallel_api_test, seed_test
    from pettingzoo.test.seed_test import parallel_seed_test

    import nimmt.env as nenv
    from nimmt.env.single import NimmtEnv
    from nimmt.env.vector import NimmtVectorEnv, kernel_refusal

    def aec() -> Any:
        return nenv.env(rules=rules)

    def parallel(backend: str) -> Callable[[], Any]:
        return lambda: nenv.parallel_env(rules=rules, backend=backend)

    def vector() -> None:
        env = NimmtVectorEnv(64, rules)
        env.reset(seed=0)
        for _ in range(cycles):
            env.step(env.random_actions())

    checks: list[tuple[str, Callable[[], Any]]] = [
        ("PettingZoo api_test (AEC)", lambda: api_test(aec(), cycles)),
        ("PettingZoo seed_test (AEC)", lambda: seed_test(aec, cycles)),
    ]
    why = kernel_refusal(rules)
    for backend in ["engine"] if why else ["engine", "kernel"]:
        make = parallel(backend)
        checks.append(
            (
                f"PettingZoo parallel_api_test (Parallel, {backend} backend)",
                lambda make=make: parallel_api_test(make(), cycles),  # type: ignore[misc]
            )
        )
        checks.append(
            (
                f"PettingZoo parallel_seed_test (Parallel, {backend} backend)",
                lambda make=make: parallel_seed_test(make, cycles),  # type: ignore[misc]
            )
        )
    checks.append(("Gymnasium check_env (single agent)", lambda: check_env(NimmtEnv(rules))))
    if why is None:
        checks.append(("vectorised environment, random play", vector))
    return checks, why


@env_app.command("check")
def check(
    preset: Annotated[
        str, typer.Option("--preset", "-p", help="A preset and variants joined by '+'.")
    ] = "classic",
    players: Annotated[int, typer.Option("--players", "-n", help="Seats.")] = 4,
    end: Annotated[
        str | None, typer.Option(help="classic, elimination or rounds (default: the preset's).")
    ] = None,
    rounds: Annotated[int | None, typer.Option(help="Rounds, for the rounds end.")] = None,
    limit: Annotated[int | None, typer.Option(help="The score limit.")] = None,
    cycles: Annotated[int, typer.Option(help="Cycles each check plays.")] = 100,
    verbose: Annotated[bool, typer.Option(help="Print the libraries' own output.")] = False,
) -> None:
    """Run PettingZoo's and Gymnasium's checks on the environments of one rule set."""
    changes: dict[str, Any] = {}
    if end is not None:
        changes["end"] = end
    if rounds is not None:
        changes["rounds"] = rounds
        changes.setdefault("end", "rounds")
    if limit is not None:
        changes["limit"] = limit
    try:
        rules = Rules.parse(preset, players=players, **changes)
    except RulesError as exc:
        typer.echo(f"Rules: {exc}", err=True)
        raise typer.Exit(2) from None
    try:
        checks, no_vector = _checks(rules, cycles)
    except ImportError as exc:
        typer.echo(f"nimmt env check needs the rl extra ({exc.name} is missing): "
                   f"{extra_command('rl')}", err=True)
        raise typer.Exit(3) from None
    typer.echo(f"Checking the environments of {rules.name}, {rules.players} players.")
    failed = 0
    for name, run in checks:
        try:
            with warnings.catch_warnings():
                if not verbose:
                    # The libraries advise on deliberate choices (masked dict observations).
                    warnings.simplefilter("ignore")
                if verbose:
                    run()
                else:
                    with contextlib.redirect_stdout(io.StringIO()):
                        run()
        except Exception as exc:
            failed += 1
            typer.echo(f"{name}: failed: {type(exc).__name__}: {exc}")
            if verbose:
                typer.echo(traceback.format_exc())
        else:
            typer.echo(f"{name}: passed.")
    if no_vector is not None:
        typer.echo(f"The vectorised environment cannot play {no_vector}.")
    if failed:
        typer.echo(f"{failed} of {len(checks)} checks failed.")
        raise typer.Exit(1)
    typer.echo(f"All {len(checks)} checks passed.")
