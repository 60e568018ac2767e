"""``nimmt account``: keep your name on a server, from the terminal.

A name played under with ``nimmt play URL --name NAME`` is a guest's: its
token is kept in ``client.json`` in the data directory (see
:class:`nimmt.tui.remote.TokenStore`). ``nimmt account claim`` adds a password
to it (and prints the recovery codes, once), after which ``nimmt play URL
--name NAME --sign-in`` signs in to it from any machine. The other commands
change the password, list and end the sessions, and use a recovery code.

Passwords, and recovery codes, are never taken as arguments (see
:mod:`nimmt.signin`): from ``--password-file``, ``NIMMT_PASSWORD`` (a new one
from ``NIMMT_NEW_PASSWORD``, a code from ``NIMMT_RECOVERY_CODE``), or typed at
the terminal without echo. Every command says what it did in plain lines, and
exits 1 with one sentence when the server refuses.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Coroutine
from pathlib import Path
from typing import Annotated, Any, TypeVar

import typer

from .client import Client, ServerError
from .client_sync import http_url
from .signin import PasswordUnavailable, read_password

__all__ = ["account_app"]

T = TypeVar("T")

account_app = typer.Typer(
    help="Keep your name on a server: a password, sessions, recovery codes.",
    no_args_is_help=True,
    add_completion=False,
    rich_markup_mode=None,
)

Url = Annotated[str, typer.Argument(help="The nimmt server (http://host:port).")]
Name = Annotated[str, typer.Option("--name", help="Your name on that server.")]
PasswordFile = Annotated[
    Path | None, typer.Option("--password-file", help="Read the (current) password from "
                              "this file's first line [else NIMMT_PASSWORD, else typed].")
]


def _fail(message: str, code: int = 1) -> typer.Exit:
    typer.echo(message, err=True)
    return typer.Exit(code)


def _password(prompt: str, file: Path | None = None) -> str:
    try:
        return read_password(prompt, file=file)
    except PasswordUnavailable as exc:
        raise _fail(f"{exc}.", 2) from None


def _new_password(name: str) -> str:
    try:
        return read_password(f"New password for {name}: ", repeat="The same again: ",
                             environment_variable="NIMMT_NEW_PASSWORD")
    except PasswordUnavailable as exc:
        raise _fail(f"{exc}.", 2) from None


def _run(url: str, work: Callable[[], Coroutine[Any, Any, T]]) -> T:
    """Run ``work``; a refusal or a server that does not answer is one sentence, exit 1."""
    try:
        return asyncio.run(work())
    except ServerError as exc:
        raise _fail(f"The server refused: {exc.error.message}.") from None
    except (OSError, TimeoutError) as exc:
        raise _fail(f"No nimmt server answers at {url}: {exc}") from None


async def _as(url: str, name: str, password_file: Path | None = None,
              password: str | None = None) -> Client:
    """Connect as ``name``: with the session kept here, else by signing in (with
    ``password`` if already read)."""
    from .tui.remote import TokenStore

    tokens = TokenStore()
    saved = tokens.get(url, name)
    if saved is not None:
        try:
            return await Client.connect(url, token=saved[1])
        except ServerError as exc:
            if exc.code != "bad_token":
                raise
            tokens.forget(url, saved[0])
    if password is None:
        password = _password(f"Password for {name}: ", password_file)
    client = await Client.connect(url, name=name, password=password)
    if client.name and client.token:
        tokens.put(url, client.name, client.token)
    return client


@account_app.command("claim")
def claim_command(url: Url, name: Name) -> None:
    """Keep the guest name you play under here: add a password, get recovery codes."""
    from .tui.remote import TokenStore

    base = http_url(url)
    saved = TokenStore().get(base, name)
    if saved is None:
        raise _fail(f"No guest named {name} was made on this machine for {base}: play once "
                    f"with nimmt play {base} --name {name}, then claim the name.")

    async def work() -> list[str]:
        async with await Client.connect(base, token=saved[1]) as client:
            if client.account:
                raise _fail(f"{client.name} has a password already: change it with nimmt "
                            "account password.")
            return await client.set_password(_new_password(name))

    codes = _run(base, work)
    typer.echo(f"{saved[0]} is yours now: sign in anywhere with this name and password "
               f"(nimmt play {base} --name {saved[0]} --sign-in).")
    typer.echo("Recovery codes: each sets a new password once. Keep them somewhere safe; "
               "they are not shown again.")
    for code in codes:
        typer.echo(code)


@account_app.command("sign-in")
def sign_in_command(url: Url, name: Name, password_file: PasswordFile = None) -> None:
    """Sign in and keep the session on this machine (nimmt play uses it)."""
    base = http_url(url)

    async def work() -> str:
        from .tui.remote import TokenStore

        client = await Client.connect(
            base, name=name, password=_password(f"Password for {name}: ", password_file))
        async with client:
            assert client.name is not None and client.token is not None
            TokenStore().put(base, client.name, client.token)
            return client.name

    typer.echo(f"Signed in as {_run(base, work)}; this session is kept for nimmt play.")


@account_app.command("password")
def password_command(url: Url, name: Name, password_file: PasswordFile = None) -> None:
    """Change the password (every other session ends)."""
    base = http_url(url)

    async def work() -> None:
        current = _password(f"Current password for {name}: ", password_file)
        async with await _as(base, name, password=current) as client:
            await client.set_password(_new_password(name), old=current)

    _run(base, work)
    typer.echo(f"The password of {name} is changed; every other session has ended.")


@account_app.command("sessions")
def sessions_command(url: Url, name: Name, password_file: PasswordFile = None) -> None:
    """List the sessions: where and when each signed in and was last used."""
    base = http_url(url)

    async def work() -> list[str]:
        async with await _as(base, name, password_file) as client:
            lines = []
            for s in await client.sessions():
                this = " (this one)" if s.current else ""
                lines.append(f"Session {s.id}{this}: made {_when(s.created)} from "
                             f"{s.address or 'an unknown address'}, last used "
                             f"{_when(s.last_seen)} from {s.last_address or 'there'}.")
            return lines

    for line in _run(base, work):
        typer.echo(line)


@account_app.command("sign-out")
def sign_out_command(
    url: Url, name: Name,
    everywhere: Annotated[bool, typer.Option("--everywhere", help="End every session, "
                                             "this machine's too.")] = False,
    others: Annotated[bool, typer.Option("--others", help="End every session but this "
                                         "machine's.")] = False,
    session: Annotated[int | None, typer.Option("--session", help="End the session with "
                                                "this number (nimmt account sessions).")] = None,
    password_file: PasswordFile = None,
) -> None:
    """End this machine's session, the others, all of them, or one by its number."""
    from .tui.remote import TokenStore

    if sum([everywhere, others, session is not None]) > 1:
        raise _fail("Give one of --everywhere, --others and --session.", 2)
    base = http_url(url)
    scope = "all" if everywhere else "others" if others else "this"

    async def work() -> str:
        client = await _as(base, name, password_file)
        async with client:
            if session is not None:
                await client.end_session(session)
                return f"Session {session} of {client.name} has ended."
            await client.sign_out(scope)
            if scope != "others":
                TokenStore().forget(base, client.name or name)
            return {"this": f"{client.name} is signed out on this machine.",
                    "others": f"Every other session of {client.name} has ended.",
                    "all": f"{client.name} is signed out everywhere."}[scope]

    typer.echo(_run(base, work))


@account_app.command("recover")
def recover_command(url: Url, name: Name) -> None:
    """Set a new password with a recovery code (every earlier session ends)."""
    base = http_url(url)
    try:
        code = read_password("Recovery code: ", environment_variable="NIMMT_RECOVERY_CODE")
    except PasswordUnavailable as exc:
        raise _fail(f"{exc}.", 2) from None

    async def work() -> str:
        from .tui.remote import TokenStore

        client = await Client.connect(base, name=name, recovery_code=code,
                                      password=_new_password(name))
        async with client:
            assert client.name is not None and client.token is not None
            TokenStore().put(base, client.name, client.token)
            return client.name

    who = _run(base, work)
    typer.echo(f"{who} has a new password; every earlier session has ended, and this "
               "machine's new one is kept.")


@account_app.command("codes")
def codes_command(url: Url, name: Name, password_file: PasswordFile = None) -> None:
    """New recovery codes (the old ones stop working)."""
    base = http_url(url)

    async def work() -> list[str]:
        current = _password(f"Password for {name}: ", password_file)
        async with await _as(base, name, password=current) as client:
            return await client.recovery_codes(current)

    codes = _run(base, work)
    typer.echo("New recovery codes (the old ones no longer work); they are not shown "
               "again:")
    for code in codes:
        typer.echo(code)


def _when(t: float) -> str:
    return time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime(t))
