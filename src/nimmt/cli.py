"""The ``nimmt`` command.

One Typer app; each command is a plain function registered on it. Commands
that live in their own modules (a server, an arena) register themselves the
same way, in the block at the end of this file, with ``app.command(name)(func)``
or ``app.add_typer(sub_app, name=...)``, so this module stays a table of
contents rather than a home for their code.

Output is plain text, one sentence per line, so that it reads well in a
terminal screen reader as well as on screen.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Annotated

import typer

from . import __version__
from .cli_output import fail as _fail
from .cli_output import is_stdio, write_output
from .errors import RecordError, RulesError
from .events import CardChosen, Event, RoundStarted, TurnStarted
from .narrate import Narrator, UnknownLanguage, available_languages
from .randomplay import simulate as simulate_game
from .record import (
    Record,
    load_record,
    record_from_game,
    record_from_json,
    replay,
    schema_json,
    to_json,
)
from .rules import EndMode, Rules
from .walk import GameVisitor, walk

app = typer.Typer(
    name="nimmt",
    help="6 nimmt! (Take 6!, Category 5): play, simulate and replay games.",
    no_args_is_help=True,
    # --install-completion / --show-completion for bash, zsh, fish and PowerShell.
    add_completion=True,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
    context_settings={"help_option_names": ["-h", "--help"]},
)


def _version(value: bool) -> None:
    if value:
        typer.echo(f"nimmt {__version__}")
        raise typer.Exit()


@app.callback()
def _root(
    version: Annotated[
        bool,
        typer.Option("--version", "-V", callback=_version, is_eager=True,
                     help="Print the version and exit."),
    ] = False,
    plain: Annotated[
        bool,
        typer.Option("--plain", help=(
            "Plain lines for every command: no tables, boxes, colours or redraws "
            "(also chosen by NIMMT_PLAIN, NO_COLOR, TERM=dumb or output to a file or pipe).")),
    ] = False,
) -> None:
    """6 nimmt! (Take 6!, Category 5): play, simulate and replay games.

    Exit codes: 0 done; 1 the command failed (a record that does not replay, a file
    that cannot be written, a server that cannot start); 2 bad arguments; 3 an
    optional part is not installed (the message names the extra to install).
    """
    if plain:  # every command reads it through nimmt.cli_output.wants_plain
        os.environ["NIMMT_PLAIN"] = "1"


def _load(path: Path) -> Record:
    """A record from ``path``, or from standard input for ``-`` (so that
    ``nimmt simulate --out - | nimmt replay -`` works)."""
    if is_stdio(path):
        return record_from_json(sys.stdin.read())
    return load_record(path)


#: The ``--lang`` option of the commands that speak.
Language = Annotated[
    str,
    typer.Option(
        "--lang",
        "-l",
        help=f"Language of the sentences ({', '.join(available_languages())}).",
    ),
]


def _narrator(lang: str) -> Narrator:
    """The narrator of ``lang``, or exit with code 2 naming the known languages."""
    try:
        return Narrator(lang)
    except UnknownLanguage as exc:
        raise _fail(str(exc), 2) from None


@app.command("replay")
def replay_command(
    record: Annotated[Path, typer.Argument(
        help="The record file (JSON) to verify and tell; - reads standard input.")],
    quiet: Annotated[
        bool, typer.Option("--quiet", "-q", help="Only verify; print one line.")
    ] = False,
    lang: Language = "en",
) -> None:
    """Verify a game record and tell the game turn by turn (in English unless --lang).

    Exits with code 1, naming the step and the reason, when the record does
    not replay; with code 2 for a language without a catalog.
    """
    narrator = _narrator(lang)
    try:
        rec = _load(record)
        game = replay(rec)
    except RecordError as exc:
        raise _fail(f"Record refused: {exc}") from None
    names = rec.players
    decisions = sum(len(r.decisions) for r in rec.rounds)
    if not quiet:
        typer.echo(narrator.rules_sentence(game.rules))
        typer.echo(narrator.players_sentence(names))
        for block in _turns(game.events):
            typer.echo("")
            for sentence in narrator.narrate(block, names):
                typer.echo(sentence)
        typer.echo("")
    typer.echo(narrator.record_verified(len(rec.rounds), decisions, game.is_over,
                                        rec.events_sha256[:16]))


def _turns(events: list[Event]) -> list[list[Event]]:
    """Events grouped by turn (a round's opening is a group of its own): the steps of
    :func:`nimmt.walk.walk`, a round's scores and the game's end told with the turn
    before them.

    A card chosen face down is left out: the reveal that follows tells it.
    """
    return walk(events, _Turns())


class _Turns(GameVisitor[list[list[Event]]]):
    def __init__(self) -> None:
        self._blocks: list[list[Event]] = [[]]

    def begin_step(self, event: Event, index: int) -> None:
        if type(event) in (RoundStarted, TurnStarted) and self._blocks[-1]:
            self._blocks.append([])

    def visit_event(self, event: Event, index: int) -> None:
        if type(event) is not CardChosen or event.face_up:
            self._blocks[-1].append(event)

    def result(self) -> list[list[Event]]:
        return [b for b in self._blocks if b]


@app.command("simulate")
def simulate_command(
    out: Annotated[
        Path, typer.Option("--out", "-o", help="Where to write the record ('-' for stdout).")
    ],
    preset: Annotated[
        str,
        typer.Option(
            "--preset",
            "-p",
            help="Rules: a preset and variants joined by '+', e.g. category5+tactics.",
        ),
    ] = "classic",
    players: Annotated[int, typer.Option("--players", "-n", help="Number of seats.")] = 4,
    seed: Annotated[int, typer.Option("--seed", "-s", help="Seed of the deals.")] = 0,
    end: Annotated[
        EndMode, typer.Option("--end", case_sensitive=False, help="How the game ends.")
    ] = EndMode.CLASSIC,
    limit: Annotated[
        int | None, typer.Option("--limit", help="Score limit (default: the preset's).")
    ] = None,
    rounds: Annotated[
        int | None, typer.Option("--rounds", help="Number of rounds for --end rounds.")
    ] = None,
    names: Annotated[
        str | None, typer.Option("--names", help="Display names, comma separated.")
    ] = None,
) -> None:
    """Play a game with default random decisions and write its record.

    Deals come from the seed; decisions (a random card, a random draft pick,
    the default row) from a generator derived from the same seed, so the same
    command always writes the same record.
    """
    changes: dict[str, object] = {"end": end, "rounds": rounds}
    if limit is not None:
        changes["limit"] = limit
    try:
        rules = Rules.parse(preset, players=players, **changes)
    except RulesError as exc:
        raise _fail(f"Bad rules: {exc}", 2) from None
    seat_names = None
    if names is not None:
        seat_names = [n.strip() for n in names.split(",")]
        if len(seat_names) != players or not all(seat_names):
            raise _fail(f"Bad names: {players} non-empty names are needed", 2)
    game = simulate_game(rules, seed)
    record = record_from_game(game, seat_names)
    if str(out) == "-":
        sys.stdout.write(to_json(record))
        return
    write_output(out, to_json(record))
    assert record.result is not None
    winners = ", ".join(record.players[p] for p in record.result.winners)
    typer.echo(
        f"Wrote {out}: {rules.name}, {players} players, {len(record.rounds)} rounds; "
        f"won by {winners}."
    )


@app.command("analyse")
def analyse_command(
    record: Annotated[Path, typer.Argument(
        help="The record file (JSON) of a game; - reads standard input.")],
    as_json: Annotated[
        bool, typer.Option("--json", help="Print the whole analysis as JSON.")
    ] = False,
    lang: Language = "en",
    top: Annotated[
        int, typer.Option("--top", help="How many of the costliest decisions to tell.", min=0)
    ] = 3,
    seed: Annotated[int, typer.Option("--seed", "-s", help="Seed of the expert's search.")] = 0,
    rollouts: Annotated[
        int | None,
        typer.Option("--rollouts", help="Search budget per decision (default 2000).", min=1),
    ] = None,
) -> None:
    """Review a game with the expert: each player's summary and the costliest decisions.

    For every card and row decision the expert's search rates each option from
    what that player could see; the text tells, per player, how often they chose
    as the expert would and what they gave away, then the few decisions that
    cost most with what the expert would have played. The same record, seed and
    budget always give the same analysis. Exits with code 1 when the record does
    not replay, 2 for a language without a catalog.
    """
    from .sim.analysis import ANALYSIS_ROLLOUTS, analyse

    narrator = _narrator(lang)
    try:
        rec = _load(record)
        review = analyse(rec, seed=seed, rollouts=rollouts or ANALYSIS_ROLLOUTS, top=top)
    except RecordError as exc:
        raise _fail(f"Record refused: {exc}") from None
    sentences = narrator.review_sentences(review)
    if as_json:
        data = {"language": narrator.language, "text": sentences, **review.to_dict()}
        sys.stdout.write(json.dumps(data, indent=1, ensure_ascii=False) + "\n")
        return
    for sentence in sentences:
        typer.echo(sentence)


@app.command("schema")
def schema_command() -> None:
    """Print the JSON Schema of game records (as in schemas/record.schema.json)."""
    sys.stdout.write(schema_json())


# Commands defined in other modules register here, e.g.
#     from .server.cli import serve
#     app.command("serve")(serve)

from .arena_cli import arena as arena_command  # noqa: E402

app.command("arena")(arena_command)

from .server.cli import serve_command  # noqa: E402

app.command("serve")(serve_command)

from .server.ops.admin_cli import admin_app  # noqa: E402

app.add_typer(admin_app, name="admin")

from .tui.cli import play_command  # noqa: E402

app.command("play")(play_command)

from .remote_bot import bot_command  # noqa: E402

app.command("bot")(bot_command)

from .account_cli import account_app  # noqa: E402

app.add_typer(account_app, name="account")

from .server.ops.admin_cli import admin_app  # noqa: E402

app.add_typer(admin_app, name="admin")

from .env_cli import env_app  # noqa: E402

app.add_typer(env_app, name="env")


def main() -> None:
    """Entry point of the ``nimmt`` console script."""
    app()
