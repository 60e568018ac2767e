"""The schema's version: which migration a database is at, and which this nimmt knows.

The schema is made by the Alembic migrations in :mod:`nimmt.server.migrations`,
applied whenever a server (or ``nimmt admin``) opens the store (:func:`upgrade`),
so an upgrade of nimmt needs no step of its own: the new version migrates the
database at its first start (docs/deploy.md, "Upgrading").

The other way round is refused. A database that a newer nimmt migrated holds a
revision this one has no script for; its code would not know the newer tables
and columns, and Alembic's own answer ("Can't locate revision") names no way
out. So :func:`upgrade` raises :class:`SchemaTooNew` with a sentence that does
(run the newer version again, or restore the backup made before the upgrade),
and ``nimmt serve`` checks before it starts anything (:func:`read_revision`,
which changes nothing: ``nimmt admin schema`` says the same to the operator).
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from pathlib import Path

import sqlalchemy as sa
from alembic import command
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from alembic.util import CommandError
from sqlalchemy.engine import Connection, make_url
from sqlalchemy.ext.asyncio import create_async_engine

from ... import __version__

__all__ = ["MIGRATIONS", "MIGRATION_LOCK", "SchemaState", "SchemaTooNew", "head",
           "read_revision", "schema_state", "upgrade"]

MIGRATIONS = Path(__file__).parent / "migrations"

#: The PostgreSQL advisory lock that lets one process at a time migrate the schema: the
#: processes of ``--workers`` (or of many machines) may all start at once on a new database.
MIGRATION_LOCK = 0x6E696D6D74


@functools.cache
def _scripts() -> ScriptDirectory:
    return ScriptDirectory(str(MIGRATIONS))


@dataclass(frozen=True, slots=True)
class SchemaState:
    """Where a database's schema stands against this nimmt's migrations."""

    revision: str | None
    """The database's revision; None for a database nimmt never wrote (or none yet)."""
    head: str
    """The newest revision this nimmt knows."""
    known: bool
    """Whether this nimmt has the database's revision (False: a newer nimmt wrote it)."""
    pending: tuple[tuple[str, str], ...]
    """The migrations the next start runs, oldest first: (revision, what it does)."""

    def sentences(self, where: str) -> list[str]:
        """What the operator is told of it (``nimmt admin schema``)."""
        if not self.known:
            return [str(SchemaTooNew(str(self.revision), self.head))]
        if self.revision is None:
            return [f"{where} holds no nimmt database yet: nimmt serve makes one at schema "
                    f"revision {self.head} (nimmt {__version__})."]
        if not self.pending:
            return [f"Schema revision {self.revision}, the newest nimmt {__version__} knows: "
                    "nothing to migrate."]
        return [f"Schema revision {self.revision}; nimmt {__version__} migrates it to "
                f"{self.head} when nimmt serve starts (back it up first):",
                *(f"  {rev}: {doc}" for rev, doc in self.pending)]


class SchemaTooNew(Exception):
    """A database at a schema revision this nimmt has no migration for: a newer nimmt
    migrated it. The message is the operator's sentence."""

    def __init__(self, revision: str, head: str) -> None:
        super().__init__(
            f"The database is at schema revision {revision}, which nimmt {__version__} does "
            f"not know (its newest is {head}): a newer nimmt migrated it. Run that version "
            "again, or restore the backup made before the upgrade (docs/deploy.md, "
            "\"Upgrading\").")
        self.revision = revision
        self.head = head


def head() -> str:
    """The newest schema revision this nimmt knows."""
    return str(_scripts().get_current_head())


def known(revision: str) -> bool:
    """Whether this nimmt has the migration ``revision``."""
    try:
        return _scripts().get_revision(revision) is not None
    except CommandError:
        return False


def schema_state(revision: str | None) -> SchemaState:
    """Where a database at ``revision`` stands against this nimmt."""
    scripts = _scripts()
    head = str(scripts.get_current_head())
    if revision is not None and not known(revision):
        return SchemaState(revision, head, False, ())
    newest_first = []
    for script in scripts.walk_revisions():  # one line of migrations, newest first
        if script.revision == revision:
            break
        newest_first.append((script.revision, (script.doc or "").strip().rstrip(".")))
    pending = tuple(reversed(newest_first))
    return SchemaState(revision, head, True, pending)


def _current(conn: Connection) -> str | None:
    return MigrationContext.configure(conn).get_current_revision()


def upgrade(conn: Connection) -> str | None:
    """Migrate the database of ``conn`` to this nimmt's newest schema, in the caller's
    transaction; :class:`SchemaTooNew` for a database a newer nimmt migrated. The
    revision it was at before (None: no schema yet)."""
    if conn.dialect.name == "postgresql":
        # Held to the end of this transaction, the migration's; the next process then finds
        # the schema at its head.
        conn.execute(sa.text("SELECT pg_advisory_xact_lock(:key)"), {"key": MIGRATION_LOCK})
    revision = _current(conn)
    if revision is not None and not known(revision):
        raise SchemaTooNew(revision, str(_scripts().get_current_head()))
    cfg = Config()
    cfg.set_main_option("script_location", str(MIGRATIONS))
    cfg.attributes["connection"] = conn
    command.upgrade(cfg, "head")
    return revision


async def read_revision(url: str) -> str | None:
    """The schema revision of the database at ``url``, changing nothing: a SQLite file
    that is not there is not made (None, as for a database nimmt never wrote)."""
    parsed = make_url(url)
    if parsed.get_backend_name() == "sqlite":
        if parsed.database in (None, "", ":memory:"):
            return None
        if not Path(str(parsed.database)).exists():
            return None
    engine = create_async_engine(url)
    try:
        async with engine.connect() as conn:
            return await conn.run_sync(_current)
    finally:
        await engine.dispose()
