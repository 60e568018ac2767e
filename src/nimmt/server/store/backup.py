"""Backups of the SQLite store, taken while the server serves, and their restoration.

A backup is SQLite's online backup API (:meth:`sqlite3.Connection.backup`) run in
one step: the copy is made inside one read transaction, so it is one consistent
moment of the database, and in WAL mode the server's writer goes on committing
beside it (a reader never blocks the writer). The copy is written next to its
destination, checked (``PRAGMA integrity_check``), turned into one self-contained
file (rollback journal, no ``-wal`` beside it) and renamed into place, so a
backup file is either whole or absent.

A restore puts a backup in the place of a data directory's database. It must not
happen under a running server: the server would go on from what it holds in
memory and write over the restored file. So ``nimmt serve`` holds an exclusive
lock (:func:`serving`, ``flock``) on ``nimmt.db.server-lock`` beside the
database for as long as it runs, the kernel releases it when the process ends
however it ends (a SIGKILL leaves no stale lock), and a restore takes the same
lock first: it refuses while a server runs, and no server starts while it
restores. The tables that were in play come back when the server starts: it
resumes every table from its log (docs/server.md).

PostgreSQL has its own tools for this (``pg_dump -Fc``, ``pg_restore``;
docs/deploy.md has the recipe).
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from .private import private_file

__all__ = ["BackupError", "DatabaseInUse", "Summary", "backup", "lock_path", "restore",
           "serving", "sqlite_path"]

#: Tables every nimmt store has; a file without them is not a backup of one.
_REQUIRED = ("alembic_version", "players", "tables", "table_log")


class BackupError(Exception):
    """A backup or a restore that cannot be made; the message is a sentence for the operator."""


class DatabaseInUse(BackupError):
    """Another process (a running ``nimmt serve``, or a restore) holds the database."""


@dataclass(frozen=True, slots=True)
class Summary:
    """What a backup holds, to tell the operator: its size and what it would bring back."""

    bytes: int
    players: int
    tables_in_play: int
    revision: str


def sqlite_path(url: str) -> Path | None:
    """The file of a SQLite database URL; None for another database (or one in memory).

    >>> sqlite_path("sqlite+aiosqlite:////srv/nimmt/nimmt.db")
    PosixPath('/srv/nimmt/nimmt.db')
    >>> sqlite_path("postgresql+psycopg://nimmt@/nimmt") is None
    True
    """
    from sqlalchemy.engine import make_url

    parsed = make_url(url)
    if parsed.get_backend_name() != "sqlite" or parsed.database in (None, "", ":memory:"):
        return None
    return Path(str(parsed.database))


def lock_path(db: Path) -> Path:
    """The file whose lock says a process serves (or restores) ``db``."""
    return db.with_name(db.name + ".server-lock")


@contextlib.contextmanager
def serving(db: Path) -> Iterator[None]:
    """Hold ``db``'s server lock for the block, or raise :class:`DatabaseInUse` at once.

    The lock is ``flock`` on :func:`lock_path`: advisory, held by the open file, released
    by the kernel when the process ends. The file keeps the holder's process id, for the
    refusal's sentence. On a system without ``flock`` (Windows) nothing is locked.
    """
    if sys.platform == "win32":
        yield
        return
    import fcntl

    db.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(lock_path(db), os.O_RDWR | os.O_CREAT, 0o600)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = os.pread(fd, 32, 0).decode(errors="replace").strip() or "unknown"
            raise DatabaseInUse(
                f"process {holder} holds {db} (a running nimmt serve, or a restore): stop it "
                "first") from None
        os.ftruncate(fd, 0)
        os.pwrite(fd, f"{os.getpid()}\n".encode(), 0)
        yield
    finally:
        os.close(fd)


def _connect(path: Path) -> sqlite3.Connection:
    conn = sqlite3.connect(path, isolation_level=None)
    # The server's writer may hold the write lock for a moment; wait for it as it does.
    conn.execute("PRAGMA busy_timeout=10000")
    return conn


def _summary(conn: sqlite3.Connection, where: Path) -> Summary:
    """Check that ``conn`` holds a whole nimmt store, and say what it holds."""
    try:
        problems = [r[0] for r in conn.execute("PRAGMA integrity_check")]
        names = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")}
    except sqlite3.DatabaseError as exc:
        raise BackupError(f"{where} is not a SQLite database ({exc})") from None
    if problems != ["ok"]:
        raise BackupError(f"{where} is damaged: {'; '.join(problems[:3])}")
    missing = [n for n in _REQUIRED if n not in names]
    if missing:
        raise BackupError(f"{where} is not a nimmt database (no {', '.join(missing)} table)")
    (revision,) = conn.execute("SELECT version_num FROM alembic_version").fetchone() or ("",)
    (players,) = conn.execute("SELECT count(*) FROM players").fetchone()
    (playing,) = conn.execute("SELECT count(*) FROM tables WHERE status = 'playing'").fetchone()
    size = int(conn.execute("PRAGMA page_count").fetchone()[0]) * int(
        conn.execute("PRAGMA page_size").fetchone()[0])
    return Summary(bytes=size, players=int(players), tables_in_play=int(playing),
                   revision=str(revision))


def _sync(path: Path) -> None:
    """Make ``path`` (a file or a directory) durable: a backup survives a power cut."""
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _copy(source: sqlite3.Connection, target: Path, journal: str, name: Path) -> Summary:
    """Copy ``source`` (called ``name`` in messages) into the new file ``target`` in one
    backup step, in the journal mode ``journal``; checked and synced. Removes ``target``
    if anything fails."""
    target.unlink(missing_ok=True)
    try:
        private_file(target)  # a copy holds what the database holds: password hashes
        out = _connect(target)
        try:
            source.backup(out)
            out.execute(f"PRAGMA journal_mode={journal}")
            # The copy is checked, not the source: the same pages, and no second pass over
            # a database in use.
            summary = _summary(out, name)
        finally:
            out.close()
        _sync(target)
    except BaseException:
        target.unlink(missing_ok=True)
        for extra in ("-wal", "-shm", "-journal"):
            Path(f"{target}{extra}").unlink(missing_ok=True)
        raise
    return summary


def backup(db: Path, dest: Path) -> Summary:
    """Copy the database ``db`` to ``dest`` (replaced if it exists), safely while a server
    serves it."""
    if not db.is_file():
        raise BackupError(f"there is no database at {db}")
    if dest.is_dir():
        raise BackupError(f"{dest} is a directory; name the backup file")
    if not dest.parent.is_dir():
        raise BackupError(f"there is no directory {dest.parent}")
    partial = dest.with_name(f".{dest.name}.partial")
    source = _connect(db)
    try:
        summary = _copy(source, partial, "DELETE", db)
    except sqlite3.Error as exc:
        raise BackupError(f"cannot back up {db} to {dest}: {exc}") from None
    finally:
        source.close()
    os.replace(partial, dest)
    _sync(dest.parent)
    return summary


def restore(file: Path, db: Path, *, replace: bool = False) -> tuple[Summary, Path | None]:
    """Put the backup ``file`` in the place of the database ``db``; returns what it holds
    and where the database it replaced was kept (None if there was none).

    Refuses while a server serves ``db`` (:class:`DatabaseInUse`), and over an existing
    database unless ``replace``; the replaced database (with its ``-wal``, whose commits
    belong to it alone) is renamed aside, never deleted.
    """
    from .migrate import known  # Alembic's, imported only when a restore runs

    if not file.is_file():
        raise BackupError(f"there is no backup at {file}")
    try:
        source = _connect(file)
    except sqlite3.Error as exc:
        raise BackupError(f"cannot read {file}: {exc}") from None
    try:
        summary = _summary(source, file)
        if not known(summary.revision):
            raise BackupError(
                f"{file} was made by a newer nimmt (schema revision {summary.revision}); "
                "restore it with that version")
        with serving(db):
            present = [p for p in (db, Path(f"{db}-wal"), Path(f"{db}-shm")) if p.exists()]
            if present and not replace:
                raise BackupError(f"{db} exists; --replace restores over it (it is kept "
                                  "aside, renamed)")
            restoring = db.with_name(f".{db.name}.restoring")
            try:
                _copy(source, restoring, "WAL", file)
            except sqlite3.Error as exc:
                raise BackupError(f"cannot restore {file} to {db}: {exc}") from None
            aside = None
            if present:
                aside = db.with_name(f"{db.name}.replaced-{time.strftime('%Y%m%dT%H%M%S')}")
                for path in present:
                    path.rename(f"{aside}{path.name[len(db.name):]}")
            os.replace(restoring, db)
            _sync(db.parent)
    finally:
        source.close()
    return summary, aside
