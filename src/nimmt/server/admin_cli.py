"""``nimmt admin``: the operator's commands on a server's data, beside ``nimmt serve``.

``backup`` and ``restore`` work on the SQLite store of a data directory
(:mod:`.backup`); they find it as ``nimmt serve`` does (``--data-dir``, ``--db``,
``NIMMT_DATA_DIR``, ``NIMMT_DB``). A PostgreSQL store is backed up with
PostgreSQL's own tools (docs/deploy.md). Like ``nimmt serve``, the commands import
the server extra only when they run.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer

__all__ = ["admin_app"]

admin_app = typer.Typer(
    help="Look after a server's data: backups and restores.",
    no_args_is_help=True,
    add_completion=False,
    rich_markup_mode=None,
)

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

        from .backup import sqlite_path
        from .settings import Settings, shown_url
    except ImportError as exc:
        typer.echo(f"nimmt admin needs the server extra ({exc.name} is missing): "
                   "pip install 'nimmt[server]'", err=True)
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
        path = sqlite_path(url)
    except Exception as exc:  # sqlalchemy's ArgumentError: a URL that does not parse
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
    file: Annotated[Path, typer.Argument(help="The backup file to write (replaced if it exists).")],
    data_dir: DataDir = None,
    db: Db = None,
) -> None:
    """Back up the server's SQLite database to FILE, safely while the server runs.

    The backup is one consistent moment of the database, in one file; restore it with
    nimmt admin restore. Exit code 1 when it cannot be made.
    """
    path = _sqlite_file(db, data_dir)
    from .backup import BackupError, backup

    try:
        summary = backup(path, file)
    except (BackupError, OSError) as exc:
        typer.echo(f"Backup failed: {exc}", err=True)
        raise typer.Exit(1) from None
    typer.echo(f"Backed up {path} to {file}: {_size(summary.bytes)}, {summary.players} "
               f"players, {summary.tables_in_play} tables in play.")


@admin_app.command("restore")
def restore_command(
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
    path = _sqlite_file(db, data_dir)
    from .backup import BackupError, restore

    try:
        summary, aside = restore(file, path, replace=replace)
    except (BackupError, OSError) as exc:
        typer.echo(f"Restore refused: {exc}", err=True)
        raise typer.Exit(1) from None
    typer.echo(f"Restored {file} to {path}: {summary.players} players, "
               f"{summary.tables_in_play} tables in play (they go on when nimmt serve starts).")
    if aside is not None:
        typer.echo(f"The database it replaced is kept as {aside}.")
