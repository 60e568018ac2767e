"""``nimmt serve``: the game server in one command."""

from __future__ import annotations

import asyncio
import contextlib
from pathlib import Path
from typing import Annotated, Any

import typer
from pydantic import ValidationError

from .settings import Settings

__all__ = ["serve_command"]


def serve_command(
    host: Annotated[
        str | None, typer.Option(help="Address to listen on [env NIMMT_HOST; 127.0.0.1].")
    ] = None,
    port: Annotated[
        int | None, typer.Option(help="Port to listen on; 0 picks a free one [NIMMT_PORT; 8000].")
    ] = None,
    db: Annotated[
        str | None,
        typer.Option(help="Database URL, e.g. postgresql+psycopg://user@host/nimmt "
                     "[NIMMT_DB; a SQLite file in the data directory]."),
    ] = None,
    data_dir: Annotated[
        Path | None, typer.Option(help="Data directory [NIMMT_DATA_DIR; ~/.local/share/nimmt].")
    ] = None,
) -> None:
    """Run the game server: tables for friends and bots, in the browser or the terminal."""
    changes: dict[str, Any] = {
        k: v for k, v in {"host": host, "port": port, "db": db, "data_dir": data_dir}.items()
        if v is not None
    }
    try:
        settings = Settings(**changes)
    except ValidationError as exc:
        typer.echo(f"Bad setting: {exc.errors()[0]['loc'][0]}: {exc.errors()[0]['msg']}",
                   err=True)
        raise typer.Exit(2) from None
    from sqlalchemy.exc import ArgumentError, OperationalError

    from .run import serve

    try:
        with contextlib.suppress(KeyboardInterrupt):
            asyncio.run(serve(settings))
    except (ArgumentError, ImportError) as exc:
        typer.echo(f"Bad database URL {settings.database_url()!r}: {exc}", err=True)
        raise typer.Exit(1) from None
    except OperationalError as exc:
        typer.echo(f"Cannot open the database: {exc.orig}", err=True)
        raise typer.Exit(1) from None
    except OSError as exc:
        typer.echo(f"Cannot serve on {settings.host}:{settings.port}: {exc.strerror or exc}",
                   err=True)
        raise typer.Exit(1) from None
