"""Alembic environment: runs on the connection the server hands over.

``Store.open`` passes its connection in ``config.attributes["connection"]``.
For the ``alembic`` command line, ``sqlalchemy.url`` (a sync URL) is used.
``render_as_batch`` lets SQLite, which cannot ALTER most things, migrate too.
Imported outside a migration run (a doctest collector, say), it does nothing.
"""

from __future__ import annotations

from typing import Any

from alembic import context
from sqlalchemy import create_engine
from sqlalchemy.engine import Connection

from nimmt.server.store.schema import metadata


def _run(connection: Connection) -> None:
    context.configure(connection=connection, target_metadata=metadata, render_as_batch=True)
    with context.begin_transaction():
        context.run_migrations()


def _main(config: Any) -> None:
    given = config.attributes.get("connection")
    if given is not None:
        _run(given)
        return
    engine = create_engine(config.get_main_option("sqlalchemy.url") or "sqlite://")
    with engine.connect() as conn:
        _run(conn)
    engine.dispose()


_config = getattr(context, "config", None)
if _config is not None:
    _main(_config)
