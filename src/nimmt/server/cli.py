"""``nimmt serve``: the game server in one command.

The server's own dependencies are the ``server`` extra; this module imports them
only when the command runs, so ``nimmt --help`` works with the core alone and
``nimmt serve`` without the extra says what to install.
"""

from __future__ import annotations

import asyncio
import contextlib
from pathlib import Path
from typing import Annotated, Any

import typer
from pydantic import ValidationError

from ..cli_output import extra_command

__all__ = ["parse_bot_flags", "serve_command"]


def parse_bot_flags(values: list[str]) -> dict[str, str]:
    """``--bot NAME=pkg.mod:Class`` flags as a dict; the shape is checked here, the import
    at start (:func:`nimmt.server.workers.botpool.check_bots`).

    >>> parse_bot_flags(["mine=mypkg.bots:Mine", "other = mypkg.bots:Other"])
    {'mine': 'mypkg.bots:Mine', 'other': 'mypkg.bots:Other'}
    """
    from ..bots.registry import BotError, check_extra

    out: dict[str, str] = {}
    for value in values:
        name, sep, path = value.partition("=")
        name, path = name.strip(), path.strip()
        if not sep or not name or not path:
            raise BotError(f"--bot {value!r}: write NAME=pkg.module:Class")
        if name in out:
            raise BotError(f"--bot {name!r} is given twice")
        out[name] = path
    check_extra(out)
    return out


def _cluster_problem(settings: Any) -> str | None:
    """Why the settings cannot run many processes, if they ask to."""
    if settings.workers > 1 and not settings.redis:
        return ("--workers above 1 needs --redis: the processes share their tables through "
                "Redis (and a PostgreSQL store)")
    if settings.redis and not settings.database_url().startswith("postgresql"):
        return ("--redis needs PostgreSQL as the store (--db postgresql+psycopg://USER@HOST/DB):"
                " every process reads and writes the same tables")
    return None


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
    redis: Annotated[
        str | None,
        typer.Option(help="Redis URL (redis://host:6379/0): run many server processes, on "
                     "one machine or many, over one PostgreSQL store [NIMMT_REDIS]."),
    ] = None,
    workers: Annotated[
        int | None,
        typer.Option(help="Server processes sharing the port on this machine; more than "
                     "one needs --redis [NIMMT_WORKERS; 1]."),
    ] = None,
    metrics_address: Annotated[
        str | None,
        typer.Option(help="host:port of a listener of its own for /metrics (Prometheus), "
                     "/healthz and /readyz; keep it off the internet [NIMMT_METRICS_ADDRESS; "
                     "none: no /metrics]."),
    ] = None,
    log_format: Annotated[
        str | None,
        typer.Option(help="Log lines as text or json, one object per line [NIMMT_LOG_FORMAT; "
                     "text]."),
    ] = None,
    bot: Annotated[
        list[str] | None,
        typer.Option("--bot", metavar="NAME=pkg.mod:Class",
                     help="Offer your own bot to hosts under NAME (repeatable) [NIMMT_BOTS, "
                     "JSON]. Checked at start; hosts can seat only the built-in bots and "
                     "these."),
    ] = None,
) -> None:
    """Run the game server: tables for friends and bots, in the browser or the terminal."""
    changes: dict[str, Any] = {
        k: v for k, v in {"host": host, "port": port, "db": db, "data_dir": data_dir,
                          "redis": redis, "workers": workers,
                          "metrics_address": metrics_address, "log_format": log_format}.items()
        if v is not None
    }
    try:
        from pydantic_settings import SettingsError

        from .base.settings import Settings, shown_url
        from .run import serve, serve_workers
        from .store import OPENING, opening, said
        from .store.backup import DatabaseInUse, serving, sqlite_path
        from .store.migrate import SchemaTooNew, read_revision, schema_state
        from .store.private import private_dir
        from .workers.botpool import check_bots
    except ImportError as exc:
        typer.echo(f"nimmt serve needs the server extra ({exc.name} is missing): "
                   f"{extra_command('server')}", err=True)
        raise typer.Exit(3) from None
    from ..bots.registry import BotError

    try:
        settings = Settings(**changes)
        if bot:
            # The flags add to (and override) the bots of NIMMT_BOTS.
            settings = Settings(**changes, bots={**settings.bots, **parse_bot_flags(bot)})
        check_bots(settings.bots)
    except ValidationError as exc:
        typer.echo(f"Bad setting: {exc.errors()[0]['loc'][0]}: {exc.errors()[0]['msg']}",
                   err=True)
        raise typer.Exit(2) from None
    except SettingsError as exc:  # an environment variable that does not parse (NIMMT_BOTS)
        typer.echo(f"Bad setting: {exc}", err=True)
        raise typer.Exit(2) from None
    except BotError as exc:
        typer.echo(f"Bad bot: {exc}", err=True)
        raise typer.Exit(2) from None
    problem = _cluster_problem(settings)
    if problem:
        typer.echo(problem, err=True)
        raise typer.Exit(2)
    if not settings.db:
        try:
            private_dir(settings.data_dir)
        except OSError as exc:
            typer.echo(f"Cannot use the data directory {settings.data_dir}: "
                       f"{exc.strerror or exc}", err=True)
            raise typer.Exit(1) from None
    try:
        # A database a newer nimmt migrated is refused before anything starts (every
        # process of --workers would refuse it on its own otherwise).
        with opening():
            state = schema_state(asyncio.run(read_revision(settings.database_url())))
            if not state.known:
                raise SchemaTooNew(str(state.revision), state.head)
            if settings.workers > 1:
                if not serve_workers(settings):
                    raise typer.Exit(1)
            else:
                # One server per SQLite file, and no restore beneath it (store/backup.py).
                db_file = sqlite_path(settings.database_url())
                with (contextlib.suppress(KeyboardInterrupt),
                      serving(db_file) if db_file else contextlib.nullcontext()):
                    asyncio.run(serve(settings))
    except DatabaseInUse as exc:
        typer.echo(f"Cannot serve: {exc}", err=True)
        raise typer.Exit(1) from None
    except SchemaTooNew as exc:
        typer.echo(f"Cannot serve: {exc}", err=True)
        raise typer.Exit(1) from None
    except BotError as exc:  # checked above; a module may still behave otherwise the 2nd time
        typer.echo(f"Bad bot: {exc}", err=True)
        raise typer.Exit(2) from None
    except OPENING as exc:
        typer.echo(said(exc, settings.database_url()), err=True)
        raise typer.Exit(1) from None
    except OSError as exc:
        typer.echo(f"Cannot serve on {settings.host}:{settings.port}: {exc.strerror or exc}",
                   err=True)
        raise typer.Exit(1) from None
    except Exception as exc:
        # redis is imported only with --redis: its errors are told apart by their module.
        if not type(exc).__module__.startswith("redis"):
            raise
        typer.echo(f"Cannot use Redis at {shown_url(settings.redis)}: {exc}", err=True)
        raise typer.Exit(1) from None
