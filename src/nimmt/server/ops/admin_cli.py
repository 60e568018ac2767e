"""``nimmt admin``: the operator's command line, beside a running server.

Each command opens the server's database (``--db``, or ``NIMMT_DB`` and
``NIMMT_DATA_DIR`` as ``nimmt serve`` reads them), does one action in one
transaction with its audit row and a signal for the running server
(:mod:`.admin`), and says what it did in one line. A running server acts on
the signal within ``NIMMT_SIGNAL_POLL`` seconds (1 by default): a ban closes
the connections at once, a rename makes them reconnect under the new name.
docs/accounts.md describes every command. ``backup`` and ``restore`` work on the
SQLite store (:mod:`.backup`), safely while the server runs; a PostgreSQL store is
backed up with PostgreSQL's own tools (docs/deploy.md).

The server's dependencies (the ``server`` extra) are imported only when a
command runs, so ``nimmt --help`` works with the core alone.
"""

from __future__ import annotations

import asyncio
import getpass
import os
from collections.abc import Awaitable, Callable, Coroutine
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, TypeVar

import typer

from ...cli_output import extra_command

if TYPE_CHECKING:
    from ..store import Store

__all__ = ["admin_app"]

T = TypeVar("T")

admin_app = typer.Typer(
    help="The operator's tools: mute, ban, rename, close tables, reset ratings (every "
         "action is logged: nimmt admin log); back up and restore the database.",
    no_args_is_help=True,
    rich_markup_mode=None,
)


@dataclass(frozen=True, slots=True)
class _Where:
    db: str | None
    data_dir: Path | None
    by: str


def _default_by() -> str:
    try:
        return os.environ.get("NIMMT_ADMIN") or getpass.getuser()
    except (KeyError, OSError):
        return "operator"


@admin_app.callback()
def _options(
    ctx: typer.Context,
    db: Annotated[
        str | None, typer.Option(help="The server's database URL [NIMMT_DB; the SQLite file "
                                 "in the data directory].")
    ] = None,
    data_dir: Annotated[
        Path | None, typer.Option(help="The server's data directory [NIMMT_DATA_DIR].")
    ] = None,
    by: Annotated[
        str | None, typer.Option(help="Who acts, for the audit log [NIMMT_ADMIN; your login "
                                 "name].")
    ] = None,
) -> None:
    """The operator's tools: mute, ban, rename, close tables, reset ratings."""
    ctx.obj = _Where(db, data_dir, by or _default_by())


def _run(ctx: typer.Context, action: Callable[[Store], Awaitable[T]]) -> T:
    """Open the database, run ``action``, close; an :class:`~.admin.AdminError` or a
    database that cannot be opened is one sentence and exit code 1."""

    async def go(url: str) -> T:
        from ..store import Store
        from ..store.migrate import SchemaTooNew, read_revision, schema_state
        from ..store.operator import AdminError

        # Only nimmt serve moves the schema (docs/deploy.md, "Upgrading"): an operator's
        # command run by a newer nimmt beside an older server still running must not
        # migrate the database under it.
        state = schema_state(await read_revision(url))
        if not state.known:
            raise SchemaTooNew(str(state.revision), state.head)
        if state.revision is not None and state.pending:
            raise AdminError(
                f"The database is at schema revision {state.revision}; this nimmt needs "
                f"{state.head}, which nimmt serve migrates to when it starts (nimmt admin "
                "schema lists the steps). Start the server of this version first.")
        store = Store(url)
        try:
            await store.open()
            return await action(store)
        finally:
            await store.close()

    return _on_database(ctx, go)


def _on_database(ctx: typer.Context, work: Callable[[str], Coroutine[Any, Any, T]]) -> T:
    """Run ``work`` on the database URL the settings name; a refusal (an
    :class:`~.admin.AdminError`, a schema too new) or a database that cannot be opened is
    one sentence and exit code 1, a missing server extra exit code 3."""
    try:
        from ..base.settings import Settings, shown_url
        from ..store import OPENING, opening, said
        from ..store.migrate import SchemaTooNew
        from ..store.operator import AdminError
    except ImportError as exc:
        typer.echo(f"nimmt admin needs the server extra ({exc.name} is missing): "
                   f"{extra_command('server')}", err=True)
        raise typer.Exit(3) from None
    where: _Where = ctx.obj
    changes: dict[str, Any] = {k: v for k, v in {"db": where.db, "data_dir": where.data_dir}
                               .items() if v is not None}
    url = Settings(**changes).database_url()
    try:
        with opening():
            return asyncio.run(work(url))
    except (AdminError, SchemaTooNew) as exc:
        typer.echo(f"{exc}", err=True)
        raise typer.Exit(1) from None
    except OPENING as exc:
        typer.echo(said(exc, shown_url(url)), err=True)
        raise typer.Exit(1) from None


@admin_app.command("schema")
def schema_command(ctx: typer.Context) -> None:
    """The database's schema revision, and the migrations the next start runs.

    Changes nothing. Exit code 1 for a database a newer nimmt migrated: this one refuses
    to serve it (docs/deploy.md, "Upgrading").
    """

    async def look(url: str) -> list[str]:
        from ..base.settings import shown_url
        from ..store.backup import sqlite_path
        from ..store.migrate import SchemaTooNew, read_revision, schema_state

        state = schema_state(await read_revision(url))
        if not state.known:
            raise SchemaTooNew(str(state.revision), state.head)
        return state.sentences(str(sqlite_path(url) or shown_url(url)))

    for line in _on_database(ctx, look):
        typer.echo(line)


def _seconds(raw: str | None) -> float | None:
    if raw is None:
        return None
    from ..store.operator import AdminError, parse_duration

    try:
        return parse_duration(raw)
    except AdminError as exc:
        typer.echo(str(exc), err=True)
        raise typer.Exit(2) from None


Name = Annotated[str, typer.Argument(help="The player's name (its look: ana finds Ana).")]
Reason = Annotated[str, typer.Option("--reason", help="Why, for the audit log (and the "
                                                      "player, for a ban or a mute).")]
For = Annotated[str | None, typer.Option("--for", help="How long: 90s, 30m, 12h, 7d, 2w "
                                                       "[until lifted].")]
Address = Annotated[str | None, typer.Option("--address", help="An IP address or network "
                                             "(203.0.113.0/24; IPv6 by its /64) instead "
                                             "of a player.")]


@admin_app.command("show")
def show_command(ctx: typer.Context, name: Name) -> None:
    """What a player is: account or guest, rating, sessions, sanctions in force."""
    from ..store.operator import show

    for line in _run(ctx, lambda store: show(store, name)):
        typer.echo(line)


@admin_app.command("mute")
def mute_command(ctx: typer.Context, name: Name, for_: For = None, reason: Reason = "") -> None:
    """Mute a player: their chat is refused."""
    from ..store.operator import mute

    seconds = _seconds(for_)
    done = _run(ctx, lambda store: mute(store, name, by=ctx.obj.by, seconds=seconds,
                                        reason=reason))
    typer.echo(done.said)


@admin_app.command("unmute")
def unmute_command(ctx: typer.Context, name: Name) -> None:
    """Lift a player's mute."""
    from ..store.operator import lift

    typer.echo(_run(ctx, lambda store: lift(store, "mute", name, by=ctx.obj.by)).said)


@admin_app.command("ban")
def ban_command(
    ctx: typer.Context,
    name: Annotated[str | None, typer.Argument(help="The player's name.")] = None,
    address: Address = None,
    for_: For = None,
    reason: Reason = "",
) -> None:
    """Ban a player or an address: open connections are closed at once, new ones refused."""
    from ..store.operator import ban

    seconds = _seconds(for_)
    done = _run(ctx, lambda store: ban(store, name, address=address, by=ctx.obj.by,
                                       seconds=seconds, reason=reason))
    typer.echo(done.said)


@admin_app.command("unban")
def unban_command(
    ctx: typer.Context,
    name: Annotated[str | None, typer.Argument(help="The player's name.")] = None,
    address: Address = None,
) -> None:
    """Lift the bans of a player or an address."""
    from ..store.operator import lift

    typer.echo(_run(ctx, lambda store: lift(store, "ban", name, address=address,
                                            by=ctx.obj.by)).said)


@admin_app.command("rename")
def rename_command(
    ctx: typer.Context, name: Name,
    new: Annotated[str, typer.Argument(help="The new name.")], reason: Reason = "",
) -> None:
    """Give a player another name (their connections reconnect under it)."""
    from ..store.operator import rename

    typer.echo(_run(ctx, lambda store: rename(store, name, new, by=ctx.obj.by,
                                              reason=reason)).said)


@admin_app.command("close-table")
def close_table_command(
    ctx: typer.Context,
    code: Annotated[str, typer.Argument(help="The table's code.")],
    reason: Reason = "",
    wait: Annotated[float, typer.Option(help="Seconds to wait for a running server to "
                                        "close it.")] = 10.0,
) -> None:
    """Close a table (a game under way is kept, unfinished); waits for the server."""
    from ..store.operator import close_table, table_status

    async def act(store: Store) -> bool:
        await close_table(store, code, by=ctx.obj.by, reason=reason)
        loop = asyncio.get_running_loop()
        end = loop.time() + wait
        while loop.time() < end:
            if await table_status(store, code) == "closed":
                return True
            await asyncio.sleep(0.2)
        return False

    if _run(ctx, act):
        typer.echo(f"Table {code.upper()} is closed.")
    else:
        typer.echo(f"No running server closed table {code.upper()} within {wait:g} s; the "
                   "server holding it closes it when it reads the request (is it running?).")


@admin_app.command("reset-rating")
def reset_rating_command(ctx: typer.Context, name: Name, reason: Reason = "") -> None:
    """Set a player's rating back to a new player's (the log keeps the old one)."""
    from ..store.operator import reset_rating

    typer.echo(_run(ctx, lambda store: reset_rating(store, name, by=ctx.obj.by,
                                                    reason=reason)).said)


@admin_app.command("sign-out")
def sign_out_command(ctx: typer.Context, name: Name, reason: Reason = "") -> None:
    """End every session of an account (it signs in again with its password)."""
    from ..store.operator import sign_out

    typer.echo(_run(ctx, lambda store: sign_out(store, name, by=ctx.obj.by,
                                                reason=reason)).said)


@admin_app.command("recovery-codes")
def recovery_codes_command(ctx: typer.Context, name: Name, reason: Reason = "") -> None:
    """New recovery codes for an account, to hand over yourself (the old ones stop
    working): check who asks first."""
    from ..store.operator import new_recovery_codes

    done, codes = _run(ctx, lambda store: new_recovery_codes(store, name, by=ctx.obj.by,
                                                             reason=reason))
    typer.echo(done.said)
    for code in codes:
        typer.echo(code)


@admin_app.command("sanctions")
def sanctions_command(ctx: typer.Context) -> None:
    """Every mute and ban in force."""
    from ..store.operator import sanctions_in_force

    lines = _run(ctx, sanctions_in_force)
    for line in lines:
        typer.echo(line)
    if not lines:
        typer.echo("No mute or ban is in force.")


@admin_app.command("log")
def log_command(
    ctx: typer.Context,
    limit: Annotated[int, typer.Option(help="How many of the newest actions.", min=1)] = 50,
) -> None:
    """The operator actions, oldest first: who did what, when, to whom."""
    from ..store.operator import history

    lines = _run(ctx, lambda store: history(store, limit))
    for line in lines:
        typer.echo(line)
    if not lines:
        typer.echo("No operator action yet.")


@admin_app.command("reports")
def reports_command(
    ctx: typer.Context,
    resolved: Annotated[bool, typer.Option("--resolved", help="The newest resolved reports "
                                           "instead of those waiting.")] = False,
    limit: Annotated[int, typer.Option(help="How many at most.", min=1)] = 100,
) -> None:
    """The players' reports waiting for an operator: the most reported players first, each
    one's newest report first."""
    from ..store.operator import reports_listed

    lines = _run(ctx, lambda store: reports_listed(store, resolved=resolved, limit=limit))
    for line in lines:
        typer.echo(line)
    if not lines:
        typer.echo("No report is resolved yet." if resolved else "No report is waiting.")


@admin_app.command("resolve")
def resolve_command(
    ctx: typer.Context,
    report: Annotated[int, typer.Argument(help="The report's number (nimmt admin reports).")],
    note: Annotated[str, typer.Option("--note", help="What was done, for the log.")] = "",
) -> None:
    """Mark a report resolved (after acting on it: mute, ban, rename …)."""
    from ..store.operator import resolve

    typer.echo(_run(ctx, lambda store: resolve(store, report, by=ctx.obj.by, note=note)).said)


# -- backups (SQLite) ------------------------------------------------------------------

DataDir = Annotated[
    Path | None, typer.Option(help="Data directory [NIMMT_DATA_DIR; ~/.local/share/nimmt].")
]
Db = Annotated[
    str | None,
    typer.Option(help="Database URL [NIMMT_DB; the SQLite file nimmt.db in the data directory]."),
]

#: What to do instead when the store is PostgreSQL.
PG_RECIPE = ("the store is PostgreSQL: back it up with pg_dump -Fc and restore it with "
             "pg_restore (docs/deploy.md, \"Backups\")")


def _sqlite_file(db: str | None, data_dir: Path | None) -> Path:
    """The SQLite file the settings name, or exit: 2 for settings that name none, 3
    without the server extra."""
    try:
        from pydantic import ValidationError
        from pydantic_settings import SettingsError

        from ..base.settings import Settings, shown_url
        from ..store import BadURL, opening
        from ..store.backup import sqlite_path
    except ImportError as exc:
        typer.echo(f"nimmt admin needs the server extra ({exc.name} is missing): "
                   f"{extra_command('server')}", err=True)
        raise typer.Exit(3) from None
    changes: dict[str, Any] = {k: v for k, v in {"db": db, "data_dir": data_dir}.items()
                               if v is not None}
    try:
        url = Settings(**changes).database_url()
    except ValidationError as exc:
        typer.echo(f"Bad setting: {exc.errors()[0]['loc'][0]}: {exc.errors()[0]['msg']}",
                   err=True)
        raise typer.Exit(2) from None
    except SettingsError as exc:  # an environment variable that does not parse
        typer.echo(f"Bad setting: {exc}", err=True)
        raise typer.Exit(2) from None
    try:
        with opening():
            path = sqlite_path(url)
    except BadURL as exc:
        typer.echo(f"Bad database URL {shown_url(url)!r}: {exc}", err=True)
        raise typer.Exit(2) from None
    if path is None:
        what = PG_RECIPE if url.startswith("postgresql") else (
            f"{shown_url(url)} is not a SQLite file")
        typer.echo(f"nimmt admin backup and restore work on SQLite stores only; {what}",
                   err=True)
        raise typer.Exit(2)
    return path


def _size(n: int) -> str:
    """``n`` bytes for people.

    >>> _size(900), _size(2_500_000)
    ('900 bytes', '2.5 MB')
    """
    if n < 1000:
        return f"{n} bytes"
    if n < 1_000_000:
        return f"{n / 1000:.1f} kB"
    return f"{n / 1_000_000:.1f} MB"


@admin_app.command("backup")
def backup_command(
    ctx: typer.Context,
    file: Annotated[Path, typer.Argument(help="The backup file to write (replaced if it exists).")],
    data_dir: DataDir = None,
    db: Db = None,
) -> None:
    """Back up the server's SQLite database to FILE, safely while the server runs.

    The backup is one consistent moment of the database, in one file; restore it with
    nimmt admin restore. Exit code 1 when it cannot be made.
    """
    path = _sqlite_file(db or ctx.obj.db, data_dir or ctx.obj.data_dir)
    from ..store.backup import BackupError, backup

    try:
        summary = backup(path, file)
    except (BackupError, OSError) as exc:
        typer.echo(f"Backup failed: {exc}", err=True)
        raise typer.Exit(1) from None
    typer.echo(f"Backed up {path} to {file}: {_size(summary.bytes)}, {summary.players} "
               f"players, {summary.tables_in_play} tables in play, schema revision "
               f"{summary.revision}.")


@admin_app.command("restore")
def restore_command(
    ctx: typer.Context,
    file: Annotated[Path, typer.Argument(help="A backup made by nimmt admin backup.")],
    data_dir: DataDir = None,
    db: Db = None,
    replace: Annotated[bool, typer.Option(
        "--replace", help="Restore over an existing database (it is kept aside, renamed).")
    ] = False,
) -> None:
    """Restore the backup FILE as the server's SQLite database; the games that were in
    play go on when nimmt serve starts.

    Refused while a server runs on the database, and over an existing database without
    --replace. Exit code 1 when refused or failed.
    """
    path = _sqlite_file(db or ctx.obj.db, data_dir or ctx.obj.data_dir)
    from ..store.backup import BackupError, restore

    try:
        summary, aside = restore(file, path, replace=replace)
    except (BackupError, OSError) as exc:
        typer.echo(f"Restore refused: {exc}", err=True)
        raise typer.Exit(1) from None
    typer.echo(f"Restored {file} to {path}: {summary.players} players, "
               f"{summary.tables_in_play} tables in play (they go on when nimmt serve starts).")
    if aside is not None:
        typer.echo(f"The database it replaced is kept as {aside}.")
