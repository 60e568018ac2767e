"""``nimmt play``: a game in the terminal, on this machine or at a server.

``nimmt play`` alone starts a classic game against three medium bots. With a
server address it opens a table there (``--bots`` seats bots; others join by
its code), and with ``--join CODE`` or a table link it sits at that table
(``--spectate CODE`` watches). The face is the full-screen Textual app, or the
plain line mode when :func:`nimmt.cli_output.wants_plain` says so (``--plain``,
``NIMMT_PLAIN``, ``NO_COLOR``, ``TERM=dumb`` or a standard output that is not a terminal).

Every refusal (rules that do not combine, a bot that cannot be built, a server
that does not answer, a wrong code) is one sentence on standard error and a
non-zero exit, never a traceback.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Annotated

import typer

from ..bots import BotError, make_bot
from ..cli_output import extra_command, wants_plain
from ..errors import RulesError
from ..narrate import UnknownLanguage, available_languages, narrator
from ..rules import EndMode, Rules
from ..signin import PasswordUnavailable, read_password
from .commands import Keymap, KeymapError
from .labels import Labels
from .local import LocalSession
from .session import Session

__all__ = ["choose_language", "play_command"]


def choose_language(lang: str | None) -> str:
    """``--lang``, else the language of ``LC_ALL``/``LC_MESSAGES``/``LANG`` when a catalog
    has it, else English."""
    if lang:
        return narrator(lang).language
    for var in ("LC_ALL", "LC_MESSAGES", "LANG"):
        value = os.environ.get(var, "").split(".")[0]
        if value and value not in ("C", "POSIX"):
            try:
                return narrator(value).language
            except UnknownLanguage:
                return "en"
    return "en"


def _fail(message: str, code: int = 2) -> typer.Exit:
    typer.echo(message, err=True)
    return typer.Exit(code)


def _bots(spec: str | None, players: int | None) -> tuple[list[str], int]:
    """The bots of the other seats and the number of players, from ``--bots``/``--players``."""
    names = [b.strip() for b in (spec or "medium").split(",") if b.strip()]
    if not names:
        names = ["medium"]
    if players is None:
        players = len(names) + 1 if len(names) > 1 else 4
    if len(names) == 1:
        names = names * (players - 1)
    if len(names) != players - 1:
        raise _fail(f"Bad bots: {players} players need {players - 1} bots, "
                    f"and --bots names {len(names)}.")
    return names, players


def play_command(
    url: Annotated[
        str | None,
        typer.Argument(help="A nimmt server (http://host:port) or a table link; "
                            "none: play on this machine."),
    ] = None,
    join: Annotated[
        str | None, typer.Option("--join", "-j", help="Sit at the table with this code.")
    ] = None,
    spectate: Annotated[
        str | None, typer.Option("--spectate", help="Watch the table with this code.")
    ] = None,
    preset: Annotated[
        str, typer.Option("--preset", "-p", help="Rules: a preset and variants joined by '+', "
                                                 "e.g. category5+tactics.")
    ] = "classic",
    players: Annotated[
        int | None, typer.Option("--players", "-n", help="Number of seats [4].")
    ] = None,
    bots: Annotated[
        str | None,
        typer.Option("--bots", "-b", help="Bots for the other seats, comma separated: easy, "
                     "medium, hard, expert, a ladder name or pkg.mod:Class (one name fills "
                     "every seat) [medium]. Online: the bots to seat, one per name; the "
                     "other seats wait for people [none]."),
    ] = None,
    limit: Annotated[
        int | None, typer.Option("--limit", help="Point limit (default: the preset's).")
    ] = None,
    end: Annotated[
        EndMode, typer.Option("--end", case_sensitive=False, help="How the game ends.")
    ] = EndMode.CLASSIC,
    rounds: Annotated[
        int | None, typer.Option("--rounds", help="Number of rounds for --end rounds.")
    ] = None,
    lang: Annotated[
        str | None,
        typer.Option("--lang", "-l", help=f"Language ({', '.join(available_languages())}); "
                     "default: from LANG, else en."),
    ] = None,
    seed: Annotated[
        int | None, typer.Option("--seed", "-s", help="Seed of the deals and the bots.")
    ] = None,
    name: Annotated[str | None, typer.Option("--name", help="Your name at the table.")] = None,
    plain: Annotated[
        bool, typer.Option("--plain", help="One line per event, no redraws (screen readers).")
    ] = False,
    keys: Annotated[
        str | None,
        typer.Option("--keys", help="Move shortcuts (rows=x,scores=p) or turn the single "
                     "keys off (off) [env NIMMT_KEYS]."),
    ] = None,
    record: Annotated[
        Path | None, typer.Option("--record", help="Save each finished game's record here.")
    ] = None,
    bot_seconds: Annotated[
        float, typer.Option("--bot-seconds", help="Think time of search bots per decision.")
    ] = 1.0,
    retries: Annotated[
        int, typer.Option("--retries", help="Online: reconnection attempts before giving up.")
    ] = 8,
    sign_in: Annotated[
        bool, typer.Option("--sign-in", help="Online: sign in to the account --name, with "
                           "the password from --password-file, NIMMT_PASSWORD or typed "
                           "(never on the command line). The session is kept for next time.")
    ] = False,
    password_file: Annotated[
        Path | None, typer.Option("--password-file", help="With --sign-in: read the "
                                  "password from this file's first line.")
    ] = None,
) -> None:
    """Play in the terminal: against bots here, or at a table on a nimmt server."""
    try:
        language = choose_language(lang)
    except UnknownLanguage as exc:
        raise _fail(str(exc)) from None
    try:
        keymap = Keymap.parse(keys if keys is not None else os.environ.get("NIMMT_KEYS"))
    except KeymapError as exc:
        raise _fail(f"Bad keys: {exc}") from None
    session: Session
    online = not (url is None and join is None and spectate is None)
    password = None
    if sign_in or password_file is not None:
        if not online or not name:
            raise _fail("Cannot sign in: --sign-in takes a server and the account's --name.")
        try:
            password = read_password(Labels(language)("online.password", name=name),
                                     file=password_file)
        except PasswordUnavailable as exc:
            raise _fail(f"Cannot sign in: {exc}.") from None
    if not online:
        seat_bots, n = _bots(bots, players)
        try:
            rules = _rules(preset, n, end, limit, rounds)
            for spec in set(seat_bots):
                make_bot(spec)
        except (RulesError, BotError) as exc:
            raise _fail(f"Cannot play: {exc}") from None
        session = LocalSession(rules, seat_bots, name=name, seed=seed, lang=language,
                               bot_seconds=bot_seconds, record=record)
    else:
        from .remote import RemoteSession, RemoteTarget

        target = RemoteTarget.parse(url, join=join, spectate=spectate)
        rules_spec: dict[str, object] | None = None
        seat_bots = []
        if target.code is None:
            seat_bots = [b.strip() for b in bots.split(",") if b.strip()] if bots else []
            n = players or 4
            try:
                rules = _rules(preset, n, end, limit, rounds)
            except RulesError as exc:
                raise _fail(f"Cannot play: {exc}") from None
            rules_spec = {k: v for k, v in rules.to_dict().items() if v is not None}
        session = RemoteSession(target, name=name, lang=language, rules=rules_spec,
                                bots=seat_bots, retries=retries, password=password)
    raise typer.Exit(run_session(session, plain, keymap))


def _rules(preset: str, players: int, end: EndMode, limit: int | None,
           rounds: int | None) -> Rules:
    changes: dict[str, object] = {"end": end, "rounds": rounds}
    if limit is not None:
        changes["limit"] = limit
    return Rules.parse(preset, players=players, **changes)


def run_session(session: Session, plain: bool, keymap: Keymap) -> int:
    """Run ``session`` in the face that suits this terminal; the exit status."""
    if not wants_plain(plain):
        try:
            from .app import NimmtApp
        except ImportError:
            typer.echo(session.labels("no_textual", command=extra_command("tui")))
        else:
            app = NimmtApp(session, keymap)
            status = app.run() or 0
            if app.failure:
                typer.echo(app.failure, err=True)
            return status
    from .plain import PlainFace

    return PlainFace(session, sys.stdout, sys.stdin, keymap).run()
