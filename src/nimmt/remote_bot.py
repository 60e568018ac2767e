"""``nimmt bot``: your own bot plays at a table on a nimmt server.

A server seats only the bots of its operator's registry: a client never names
code for the server to run. But a person may let a program play *their* seat:
``nimmt bot URL --bot mypkg.mybot:MyBot`` connects as a player, and runs the
class (the three methods of :class:`nimmt.bots.Bot`) here, on this machine.
Each decision asked is answered from the seat's :class:`nimmt.View`, rebuilt
from what the server sends (:func:`nimmt.client_sync.view_from_dict`), so a
bot written and tested against the local engine plays online unchanged.

The server's narration of the game is printed as it comes, one line per step,
in ``--lang``. A bot that raises or answers outside the options is reported in
one line and the first legal option is played instead, so the table never
waits on it.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated, Any, TextIO

import typer

from .bots import BotError, make_bot
from .bots.base import Bot
from .client_sync import (
    FINAL,
    ConnectionLost,
    ServerError,
    ServerUnreachable,
    Status,
    SyncClient,
    is_game_over,
)
from .errors import RulesError
from .rules import EndMode, Rules
from .signin import PasswordUnavailable, read_password
from .views import View
from .wire import Error, Events, Prompt

__all__ = ["bot_command", "run_bot"]


def _decide(bot: Bot, view: View, prompt: Prompt, out: TextIO) -> int:
    """The bot's answer to ``prompt``, or the first option when it fails (said in one line)."""
    method = {"card": bot.choose_card, "row": bot.choose_row, "draft": bot.draft_card}
    try:
        value: Any = method[prompt.kind](view)
    except Exception as exc:
        out.write(f"Your bot raised {type(exc).__name__}: {exc}; playing "
                  f"{prompt.options[0]} instead.\n")
        return prompt.options[0]
    if not isinstance(value, int) or isinstance(value, bool) or value not in prompt.options:
        out.write(f"Your bot answered {value!r}, which is not among {prompt.options}; playing "
                  f"{prompt.options[0]} instead.\n")
        return prompt.options[0]
    return value


def run_bot(client: SyncClient, bot: Bot, games: int, out: TextIO,
            host: bool = False) -> int:
    """Answer every decision asked of this seat with ``bot`` until ``games`` games are over
    (as host, asking for a rematch between them). The exit status: 0, or 1 when the server
    went away for good."""
    answered: set[str] = set()
    done = 0
    while True:
        msg = client.next(0.5)
        if isinstance(msg, Status):
            if msg.state == "gone":
                if msg.reason not in FINAL:  # else the server said why, just before
                    out.write(f"The server at {client.url} cannot be reached any more.\n")
                return 1
            out.write({"lost": "Connection lost.", "retrying": "Reconnecting…",
                       "back": "Reconnected."}[msg.state] + "\n")
        elif isinstance(msg, Error) and msg.code in FINAL:
            out.write(f"{msg.text or msg.message}\n")
        elif isinstance(msg, Events):
            for text in msg.text:
                out.write(text + "\n")
            if any(is_game_over(it) for it in msg.items):
                done += 1
                if done >= games:
                    return 0
                if host:
                    try:
                        client.rematch()
                    except (ServerError, ConnectionLost) as exc:
                        out.write(f"No rematch: {exc}\n")
                        return 1
        out.flush()
        prompt = client.prompt
        if prompt is None or prompt.key in answered:
            continue
        view = client.view()
        if view is None or view.pending is None or view.pending.kind.value != prompt.kind:
            continue
        value = _decide(bot, view, prompt, out)
        try:
            client.answer(value, prompt.kind)
        except ServerError as exc:
            if exc.code != "not_your_turn":
                out.write(f"The server refused {value}: {exc.error.message}\n")
            continue
        except ConnectionLost:
            continue
        answered.add(prompt.key)


def bot_command(
    url: Annotated[str, typer.Argument(help="The nimmt server (http://host:port).")],
    bot: Annotated[
        str, typer.Option("--bot", help="Your bot: pkg.module:Class (or a ladder name).")
    ],
    join: Annotated[
        str | None, typer.Option("--join", "-j", help="Sit at the table with this code; "
                                 "none: open a table and start it with server bots.")
    ] = None,
    name: Annotated[str | None, typer.Option("--name", help="The seat's name.")] = None,
    preset: Annotated[
        str, typer.Option("--preset", "-p", help="Rules of a new table, e.g. classic+tactics.")
    ] = "classic",
    players: Annotated[int, typer.Option("--players", "-n", help="Seats of a new table.")] = 4,
    bots: Annotated[
        str, typer.Option("--bots", "-b", help="Server bots for the other seats of a new table.")
    ] = "medium",
    end: Annotated[
        EndMode, typer.Option("--end", case_sensitive=False, help="How a new table's game ends.")
    ] = EndMode.CLASSIC,
    rounds: Annotated[int | None, typer.Option("--rounds", help="Rounds for --end rounds.")] = None,
    limit: Annotated[int | None, typer.Option("--limit", help="Point limit.")] = None,
    games: Annotated[int, typer.Option("--games", help="Games to play before leaving.")] = 1,
    seed: Annotated[int, typer.Option("--seed", "-s", help="Seed given to your bot.")] = 0,
    lang: Annotated[str, typer.Option("--lang", "-l", help="Language of the narration.")] = "en",
    sign_in: Annotated[
        bool, typer.Option("--sign-in", help="Sign in to the account --name, with the password "
                           "from --password-file, NIMMT_PASSWORD or typed (never on the "
                           "command line).")
    ] = False,
    password_file: Annotated[
        Path | None, typer.Option("--password-file", help="With --sign-in: read the "
                                  "password from this file's first line.")
    ] = None,
) -> None:
    """Let your own bot play a seat at a table on a server (it runs on this machine)."""
    out = sys.stdout
    try:
        player = make_bot(bot, seed=seed)
    except BotError as exc:
        typer.echo(f"Bad bot: {exc}", err=True)
        raise typer.Exit(2) from None
    who = name or f"{type(player).__name__}-{seed}"
    password = None
    if sign_in or password_file is not None:
        if name is None:
            typer.echo("Cannot sign in: --sign-in takes the account's --name.", err=True)
            raise typer.Exit(2)
        try:
            password = read_password(f"Password for {name}: ", file=password_file)
        except PasswordUnavailable as exc:
            typer.echo(f"Cannot sign in: {exc}.", err=True)
            raise typer.Exit(2) from None
    try:
        client = SyncClient.connect(url, name=who, password=password, lang=lang)
    except ServerUnreachable as exc:
        typer.echo(str(exc), err=True)
        raise typer.Exit(1) from None
    except ServerError as exc:
        typer.echo(f"The server refused: {exc.error.message}", err=True)
        raise typer.Exit(1) from None
    try:
        host = join is None
        if join is not None:
            state = client.join(join)
            if state.you is None:
                client.sit()
            out.write(f"{client.name} plays at table {state.table.code}.\n")
        else:
            changes: dict[str, Any] = {"end": end, "rounds": rounds}
            if limit is not None:
                changes["limit"] = limit
            rules = Rules.parse(preset, players=players, **changes)
            spec = {k: v for k, v in rules.to_dict().items() if v is not None}
            state = client.create_table(rules=spec)
            for strength in (bots.split(",") * players)[: players - 1]:
                client.add_bot(strength.strip())
            client.start()
            out.write(f"{client.name} plays at table {state.table.code}.\n")
        out.flush()
        status = run_bot(client, player, games, out, host)
    except RulesError as exc:
        typer.echo(f"Bad rules: {exc}", err=True)
        status = 2
    except ServerError as exc:
        typer.echo(f"The server refused: {exc.error.message}", err=True)
        status = 1
    except ConnectionLost:
        typer.echo(f"The server at {client.url} stopped answering.", err=True)
        status = 1
    except KeyboardInterrupt:
        status = 130
    finally:
        client.close()
    raise typer.Exit(status)
