"""The database of one server process: its connections, its one writer and its locks.

SQLAlchemy 2 (async Core) over SQLite (the default, WAL mode) or PostgreSQL
(``postgresql+psycopg://``). The schema (:mod:`.schema`) is made by the Alembic
migrations shipped in ``migrations/``, applied by :meth:`Database.open`
(:mod:`.migrate`), so an installed ``nimmt serve`` needs no extra step.

All writes go through one writer task that commits whatever is queued in one
transaction (group commit): a write is awaited until its transaction is durable, so
the caller can acknowledge only what is stored, and many tables share one commit. A
table is *event-sourced*: its actor writes every input that changed it to
``table_log`` through this writer, with its fencing token when many processes share
the tables (:func:`fence`).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

import sqlalchemy as sa
from sqlalchemy.engine import make_url
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine, create_async_engine

from ..base.logs import event
from .errors import Conflict, StaleOwner
from .migrate import upgrade
from .private import private_file
from .schema import table_log, tables

__all__ = ["LOBBY_LOCK", "Commits", "Database", "LogEntry", "Op", "exclusive", "fence",
           "fence_all"]

log = logging.getLogger("nimmt.server")


@dataclass(frozen=True, slots=True)
class LogEntry:
    """One input of a table's log: ``n`` counts from 1 per table."""

    table_id: int
    n: int
    kind: str
    data: dict[str, Any]


#: A store operation: run in a transaction (:meth:`Database.run`) or on a read connection
#: (:meth:`Database.read`).
Op = Callable[[AsyncConnection], Awaitable[Any]]


class Commits(Protocol):
    """Where the writer counts its transactions (the server's metrics)."""

    def commit(self, seconds: float, writes: int) -> None:
        """A transaction of ``writes`` writes committed in ``seconds``."""

    def commit_failed(self) -> None:
        """A transaction failed."""


async def fence(conn: AsyncConnection, table_id: int, token: int) -> None:
    """Check and raise table ``table_id``'s fencing token to ``token`` in ``conn``'s
    transaction, or raise :class:`StaleOwner` (the transaction then rolls back).

    The row update takes the row's lock, so two owners' transactions on one table
    run one after the other and the older token's always loses, whichever commits
    first."""
    res = await conn.execute(tables.update()
                             .where(tables.c.id == table_id, tables.c.fence <= token)
                             .values(fence=token))
    if res.rowcount != 1:
        raise StaleOwner(table_id, token)


_FENCE_ALL = sa.text(
    "UPDATE tables SET fence = given.token"
    " FROM unnest(CAST(:ids AS integer[]), CAST(:tokens AS bigint[])) AS given(id, token)"
    " WHERE tables.id = given.id AND tables.fence <= given.token RETURNING tables.id")


async def fence_all(conn: AsyncConnection, tokens: dict[int, int]) -> None:
    """:func:`fence` for many tables (table id → token) in one statement: a group commit
    pays one round trip for its fencing, not one per table."""
    if len(tokens) == 1:
        ((table_id, token),) = tokens.items()
        await fence(conn, table_id, token)
        return
    # PostgreSQL's arrays keep the statement's text the same for any number of tables, so
    # it is compiled once and prepared once, not per batch.
    ids, given = zip(*sorted(tokens.items()), strict=True)
    res = await conn.execute(_FENCE_ALL, {"ids": list(ids), "tokens": list(given)})
    fenced = {int(r[0]) for r in res}
    for table_id, token in tokens.items():
        if table_id not in fenced:
            raise StaleOwner(table_id, token)


#: The lock key of the lobby chat's writers (:func:`exclusive`); a player's key is their id.
LOBBY_LOCK = -1


async def exclusive(conn: AsyncConnection, key: int) -> None:
    """Hold the lock named ``key`` to the end of ``conn``'s transaction: transactions that
    take one key, on any server process, run one after the other.

    What a transaction checks and then writes holds only if nothing changes between:
    a bound counted in the store (follows per player, invitations a recipient hears a
    minute), a row looked for before it is inserted, ids that must commit in their
    order (a channel's lines, :mod:`.delivery`). Call it first in the transaction.
    PostgreSQL takes a transaction-scoped advisory lock; SQLite has one writer, and a
    write statement (matching no row) makes this transaction it, reads included."""
    if conn.dialect.name == "postgresql":
        await conn.execute(sa.text("SELECT pg_advisory_xact_lock(:key)"), {"key": key})
    else:
        await conn.execute(sa.text("UPDATE players SET id = id WHERE 0"))


def _sqlite_pragmas(dbapi_conn: Any, _record: Any) -> None:
    # WAL lets readers work beside the writer; NORMAL sync in WAL still survives a killed
    # process (only an OS crash may lose the last commits); busy_timeout waits for locks.
    cur = dbapi_conn.cursor()
    cur.execute("PRAGMA journal_mode=WAL")
    cur.execute("PRAGMA synchronous=NORMAL")
    cur.execute("PRAGMA busy_timeout=10000")
    cur.close()


class Database:
    """The database of one server process: its engine, its writer and the transactions
    they run (the named reads and writes are :class:`~.queries.Store`'s)."""

    def __init__(self, url: str) -> None:
        self.url = url
        parsed = make_url(url)
        self.is_sqlite = parsed.get_backend_name() == "sqlite"
        #: The SQLite database's file (None: PostgreSQL, or SQLite in memory).
        self.sqlite_file: str | None = (
            parsed.database if self.is_sqlite and parsed.database
            and parsed.database != ":memory:" else None)
        if self.sqlite_file is not None:
            private_file(Path(self.sqlite_file))
        # A server's reads (a token at every hello, a table looked up, a player's followers
        # when they come or go) come in bursts: a pool that opens connections past its
        # size and closes them once returned made each burst pay new connections (16,000
        # in 100 s at 2,000 people, a third of the server's time). A burst waits for one of
        # 20 kept connections instead. SQLite's pool is its own.
        pool = {} if self.is_sqlite else {"pool_size": 20, "max_overflow": 0}
        self.engine: AsyncEngine = create_async_engine(url, **pool)
        if self.is_sqlite:
            sa.event.listen(self.engine.sync_engine, "connect", _sqlite_pragmas)
        self._queue: asyncio.Queue[tuple[str, Any, asyncio.Future[Any]]] = asyncio.Queue()
        self._writer: asyncio.Task[None] | None = None
        self.commits = 0
        #: The schema revision :meth:`open` found (None: a new database), for the log.
        self.migrated_from: str | None = None
        #: Where each commit's latency is counted (the server's metrics), if anywhere.
        self.metrics: Commits | None = None

    # -- life --------------------------------------------------------------------

    async def open(self) -> None:
        """Apply the migrations and start the writer."""
        async with self.engine.begin() as conn:
            self.migrated_from = await conn.run_sync(upgrade)
        self._writer = asyncio.create_task(self._write_loop(), name="nimmt-store-writer")

    async def close(self) -> None:
        """Finish queued writes, stop the writer and release every connection."""
        if self._writer is not None:
            done: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
            self._queue.put_nowait(("stop", None, done))
            with contextlib.suppress(Exception):
                await done
            self._writer.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._writer
            self._writer = None
        await self.engine.dispose()

    # -- writes (through the writer) ------------------------------------------------

    async def append(self, entry: LogEntry) -> None:
        """Store one log entry; returns once it is committed."""
        await self._submit("log", ([entry], None))

    async def append_all(self, entries: list[LogEntry], token: int | None = None) -> None:
        """Store log entries in one transaction (what one command logged); returns once
        they are committed. With a fencing ``token`` (many processes), the entries are
        refused (:class:`StaleOwner`) if the table has seen a newer one."""
        await self._submit("log", (entries, token))

    async def run(self, op: Op) -> Any:
        """Run ``op`` in the writer's next transaction; returns its result once committed."""
        return await self._submit("op", op)

    async def alone(self, op: Op) -> Any:
        """Run ``op`` in a transaction of its own, not in the writer's group commit: a
        refusal it raises (no such player, a bound reached) rolls back this one alone;
        a unique constraint it meets raises :class:`Conflict`."""
        try:
            async with self.engine.begin() as conn:
                return await op(conn)
        except sa.exc.IntegrityError as exc:
            raise Conflict(str(exc.orig)) from exc

    def _submit(self, kind: str, payload: Any) -> asyncio.Future[Any]:
        fut: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self._queue.put_nowait((kind, payload, fut))
        return fut

    async def _write_loop(self) -> None:
        while True:
            batch = [await self._queue.get()]
            while len(batch) < 2000:
                try:
                    batch.append(self._queue.get_nowait())
                except asyncio.QueueEmpty:
                    break
            stop = [b for b in batch if b[0] == "stop"]
            work = [b for b in batch if b[0] != "stop"]
            if work:
                try:
                    results = await self._commit(work)
                except sa.exc.IntegrityError:
                    # A write met a row made meanwhile: its caller answers it, once the
                    # retry below has found which write it was.
                    log.info("a group commit met a unique constraint; retrying its writes "
                             "one by one", extra=event("db.conflict", writes=len(work)))
                    await self._one_by_one(work)
                except Exception:
                    log.exception("a group commit failed; retrying its writes one by one",
                                  extra=event("db.error", writes=len(work)))
                    await self._one_by_one(work)
                else:
                    for item, res in zip(work, results, strict=True):
                        _settle(item[2], res, None)
            for s in stop:
                _settle(s[2], None, None)
            if stop:
                return

    async def _one_by_one(self, work: list[tuple[str, Any, asyncio.Future[Any]]]) -> None:
        """Each write of a failed group commit in a transaction of its own: the others
        commit, the failing one's caller gets its error (:class:`Conflict` for a unique
        constraint)."""
        for item in work:
            try:
                (res,) = await self._commit([item])
                _settle(item[2], res, None)
            except sa.exc.IntegrityError as exc:
                conflict = Conflict(str(exc.orig))
                conflict.__cause__ = exc
                _settle(item[2], None, conflict)
            except Exception as exc:
                _settle(item[2], None, exc)

    async def _commit(self, work: list[tuple[str, Any, asyncio.Future[Any]]]) -> list[Any]:
        started = time.perf_counter()
        try:
            results = await self._transaction(work)
        except Exception:
            if self.metrics is not None:
                self.metrics.commit_failed()
            raise
        if self.metrics is not None:
            self.metrics.commit(time.perf_counter() - started, len(work))
        return results

    async def _transaction(self, work: list[tuple[str, Any, asyncio.Future[Any]]]
                           ) -> list[Any]:
        results: list[Any] = [None] * len(work)
        async with self.engine.begin() as conn:
            rows: list[dict[str, Any]] = []
            # One fencing check per table of the batch (many processes); the newest token
            # of a table wins, which is its owner's: one process holds one lease a table.
            fences: dict[int, int] = {}
            for kind, payload, _ in work:
                if kind != "log":
                    continue
                entries, token = payload
                for e in entries:
                    rows.append({"table_id": e.table_id, "n": e.n, "kind": e.kind,
                                 "data": json.dumps(e.data)})
                    if token is not None:
                        fences[e.table_id] = max(token, fences.get(e.table_id, token))
            if fences:
                await fence_all(conn, fences)
            if rows:
                await conn.execute(table_log.insert(), rows)
            for i, (kind, payload, _) in enumerate(work):
                if kind == "op":
                    results[i] = await payload(conn)
        self.commits += 1
        return results

    # -- reads --------------------------------------------------------------------

    async def read(self, fn: Callable[[AsyncConnection], Awaitable[Any]]) -> Any:
        """Run a read-only query on its own connection."""
        async with self.engine.connect() as conn:
            return await fn(conn)

    async def ping(self) -> None:
        """Ask the database the smallest question (readiness); raises when it cannot."""
        async with self.engine.connect() as conn:
            await conn.execute(sa.text("SELECT 1"))

def _settle(fut: asyncio.Future[Any], result: Any, exc: BaseException | None) -> None:
    if fut.done():
        return
    if exc is not None:
        fut.set_exception(exc)
    else:
        fut.set_result(result)
