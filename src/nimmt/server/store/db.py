"""The store: players, tables, each table's input log, game records, ratings.

SQLAlchemy 2 (async Core) over SQLite (the default, WAL mode) or PostgreSQL
(``postgresql+psycopg://``). The schema is made by the Alembic migrations
shipped in :mod:`nimmt.server.migrations`, applied by :meth:`Store.open`
(:mod:`.schema`), so an installed ``nimmt serve`` needs no extra step.

A table is *event-sourced*: its actor writes every input that changed it (a
seat taken, a game started with its deal, each decision with the deal of any
round it started, chat, …) to ``table_log``; replaying the log rebuilds the
table exactly, including the sequence numbers clients hold. All writes go
through one writer task that commits whatever is queued in one transaction
(group commit): a write is awaited until its transaction is durable, so the
caller can acknowledge only what is stored, and many tables share one commit.

Every SQL statement of the server is in the store layer, and the rest of the server
calls it by name: this module (the schema, the writer, the tables' and the JSON API's
reads), :mod:`.persist` (what a table's commands write), :mod:`.accountdb` (players,
sessions, recovery codes, sanctions, signals), :mod:`.socialdb` (follows, relations,
invitations, messages, reports, the leaderboard), :mod:`.admin` (the operator's
actions), :mod:`.backup` (copies of a SQLite file) and the Alembic migrations.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import json
import logging
import secrets
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import sqlalchemy as sa
from sqlalchemy.dialects.postgresql import insert as pg_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlalchemy.engine import make_url
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine, create_async_engine

from ..logs import event
from .migrate import upgrade
from .private import private_file

if TYPE_CHECKING:
    from ..metrics import Metrics

__all__ = ["LOBBY_LOCK", "Conflict", "LogEntry", "StaleOwner", "Store", "exclusive", "fence",
           "hash_token", "metadata"]

log = logging.getLogger("nimmt.server")

metadata = sa.MetaData()

players = sa.Table(
    "players",
    metadata,
    sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
    sa.Column("name", sa.String(64), nullable=False, unique=True),
    # The name's confusable skeleton (server/text.py name_key): one player per look.
    # Null only for a player older than migration 0002 whose name looked like an older
    # player's; that older player holds the skeleton.
    sa.Column("skeleton", sa.Text, nullable=True, unique=True, index=True),
    sa.Column("mu", sa.Float, nullable=False),
    sa.Column("sigma", sa.Float, nullable=False),
    sa.Column("rated_games", sa.Integer, nullable=False),
    sa.Column("created", sa.Float, nullable=False),
    # An account is a player with a password (argon2id, server/passwords.py); null: a guest.
    sa.Column("password_hash", sa.Text, nullable=True),
    sa.Column("password_changed", sa.Float, nullable=True),
    # When the player was last connected: an unclaimed guest name unused for
    # ``guest_release_days`` is released (docs/accounts.md).
    sa.Column("last_seen", sa.Float, nullable=True, index=True),
    # When the guest's name was released, and the name it had: ``name`` then holds a
    # placeholder, the skeleton is null, and the name is free for anyone.
    sa.Column("released", sa.Float, nullable=True),
    sa.Column("released_name", sa.String(64), nullable=True),
)

#: Every token is a session of its player (migration 0005): one per sign-in, or the one a
#: guest got with their name. Only the token's SHA-256 is kept.
sessions = sa.Table(
    "sessions",
    metadata,
    sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
    sa.Column("player_id", sa.Integer, nullable=False, index=True),
    sa.Column("token_hash", sa.String(64), nullable=False, unique=True, index=True),
    sa.Column("created", sa.Float, nullable=False),
    sa.Column("last_seen", sa.Float, nullable=False),
    # The client address it was made from, and the latest one it was used from.
    sa.Column("address", sa.String(64), nullable=True),
    sa.Column("last_address", sa.String(64), nullable=True),
)

#: An account's one-time recovery codes (their SHA-256; each has 80 random bits).
recovery_codes = sa.Table(
    "recovery_codes",
    metadata,
    sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
    sa.Column("player_id", sa.Integer, nullable=False, index=True),
    sa.Column("code_hash", sa.String(64), nullable=False),
    sa.Column("created", sa.Float, nullable=False),
    sa.Column("used", sa.Float, nullable=True),
)

#: The operator's mutes and bans (``kind``), of a player or of an address (a network in
#: CIDR form), until a time or until lifted.
sanctions = sa.Table(
    "sanctions",
    metadata,
    sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
    sa.Column("kind", sa.String(16), nullable=False),
    sa.Column("player_id", sa.Integer, nullable=True),
    sa.Column("address", sa.String(64), nullable=True),
    sa.Column("created", sa.Float, nullable=False),
    sa.Column("until", sa.Float, nullable=True),
    sa.Column("lifted", sa.Float, nullable=True, index=True),
    sa.Column("reason", sa.Text, nullable=False),
    sa.Column("by", sa.String(64), nullable=False),
)

#: Every operator action (``nimmt admin``): who, when, what, on whom.
audit = sa.Table(
    "audit",
    metadata,
    sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
    sa.Column("at", sa.Float, nullable=False),
    sa.Column("actor", sa.String(64), nullable=False),
    sa.Column("action", sa.String(32), nullable=False),
    sa.Column("player_id", sa.Integer, nullable=True),
    sa.Column("target", sa.Text, nullable=False),
    sa.Column("detail", sa.Text, nullable=False),
)

#: What every running server process must act on at once (server/accounts.py polls it):
#: sessions ended, bans, renames, tables to close. Kept a day.
signals = sa.Table(
    "signals",
    metadata,
    sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
    sa.Column("at", sa.Float, nullable=False),
    sa.Column("kind", sa.String(16), nullable=False),
    sa.Column("player_id", sa.Integer, nullable=True),
    sa.Column("session_id", sa.Integer, nullable=True),
    sa.Column("address", sa.String(64), nullable=True),
    sa.Column("code", sa.String(16), nullable=True),
)

#: Who follows whom (migration 0006); a friend is a mutual follow.
follows = sa.Table(
    "follows",
    metadata,
    sa.Column("follower_id", sa.Integer, primary_key=True),
    sa.Column("followed_id", sa.Integer, primary_key=True, index=True),
    sa.Column("created", sa.Float, nullable=False),
)

#: A player's mutes and blocks (``kind``) of another player, kept per player.
relations = sa.Table(
    "relations",
    metadata,
    sa.Column("player_id", sa.Integer, primary_key=True),
    sa.Column("other_id", sa.Integer, primary_key=True, index=True),
    sa.Column("kind", sa.String(8), primary_key=True),
    sa.Column("created", sa.Float, nullable=False),
)

#: Invitations to a table: of a player (``to_id``), or a one-time link (``code_hash``, the
#: SHA-256 of its code) that seats whoever opens it as a guest.
invitations = sa.Table(
    "invitations",
    metadata,
    sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
    sa.Column("at", sa.Float, nullable=False),
    sa.Column("from_id", sa.Integer, nullable=False, index=True),
    sa.Column("to_id", sa.Integer, nullable=True, index=True),
    sa.Column("code_hash", sa.String(64), nullable=True, unique=True),
    sa.Column("table_code", sa.String(16), nullable=False),
    sa.Column("answered", sa.Float, nullable=True),
    sa.Column("accepted", sa.Boolean, nullable=True),
    sqlite_autoincrement=True,
)

#: The lobby chat (``to_id`` null) and private messages, each kept bounded.
messages = sa.Table(
    "messages",
    metadata,
    sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
    sa.Column("at", sa.Float, nullable=False),
    sa.Column("from_id", sa.Integer, nullable=False),
    sa.Column("to_id", sa.Integer, nullable=True, index=True),
    sa.Column("text", sa.Text, nullable=False),
    sqlite_autoincrement=True,
)

#: Players' reports of a message or a player, until an operator resolves them.
reports = sa.Table(
    "reports",
    metadata,
    sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
    sa.Column("at", sa.Float, nullable=False),
    sa.Column("reporter_id", sa.Integer, nullable=False, index=True),
    sa.Column("player_id", sa.Integer, nullable=False, index=True),
    # The message reported (as the reporter saw it), and where: a table's code or "lobby".
    sa.Column("message", sa.Text, nullable=True),
    sa.Column("place", sa.String(32), nullable=True),
    sa.Column("reason", sa.Text, nullable=False),
    sa.Column("resolved", sa.Float, nullable=True, index=True),
    sa.Column("resolved_by", sa.String(64), nullable=True),
    sa.Column("resolution", sa.Text, nullable=True),
)

tables = sa.Table(
    "tables",
    metadata,
    sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
    sa.Column("code", sa.String(16), nullable=False, unique=True),
    sa.Column("name", sa.String(64), nullable=False),
    sa.Column("host_id", sa.Integer, nullable=False),
    sa.Column("rules", sa.Text, nullable=False),
    sa.Column("settings", sa.Text, nullable=False),
    sa.Column("status", sa.String(16), nullable=False, index=True),
    sa.Column("created", sa.Float, nullable=False),
    # The newest owner's fencing token (many processes, docs/scaling.md; 0 for one process).
    sa.Column("fence", sa.BigInteger, nullable=False, server_default="0"),
    # The rules preset's name (migration 0006): the leaderboard counts games per preset.
    sa.Column("preset", sa.String(32), nullable=True, index=True),
)

table_log = sa.Table(
    "table_log",
    metadata,
    sa.Column("table_id", sa.Integer, primary_key=True),
    sa.Column("n", sa.Integer, primary_key=True),
    sa.Column("kind", sa.String(16), nullable=False),
    sa.Column("data", sa.Text, nullable=False),
)

games = sa.Table(
    "games",
    metadata,
    sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
    sa.Column("table_id", sa.Integer, nullable=False, index=True),
    sa.Column("game_no", sa.Integer, nullable=False),
    sa.Column("rated", sa.Boolean, nullable=False),
    sa.Column("finished", sa.Boolean, nullable=False),
    sa.Column("record", sa.Text, nullable=False),
    sa.Column("ended", sa.Float, nullable=False),
)

game_players = sa.Table(
    "game_players",
    metadata,
    sa.Column("game_id", sa.Integer, primary_key=True),
    sa.Column("seat", sa.Integer, primary_key=True),
    sa.Column("player_id", sa.Integer, nullable=True, index=True),
    sa.Column("name", sa.String(64), nullable=False),
    sa.Column("total", sa.Integer, nullable=False),
    sa.Column("winner", sa.Boolean, nullable=False),
    sa.Column("mu_after", sa.Float, nullable=True),
)

#: The server's own facts, by name (migration 0004): the cluster's signing key.
meta = sa.Table(
    "meta",
    metadata,
    sa.Column("key", sa.String(64), primary_key=True),
    sa.Column("value", sa.Text, nullable=False),
)

def hash_token(token: str) -> str:
    """Tokens are stored hashed: a leaked database does not hand out seats."""
    return hashlib.sha256(token.encode()).hexdigest()


@dataclass(frozen=True, slots=True)
class LogEntry:
    """One input of a table's log: ``n`` counts from 1 per table."""

    table_id: int
    n: int
    kind: str
    data: dict[str, Any]


Op = Callable[[AsyncConnection], Awaitable[Any]]

#: The key of the cluster's signing key in ``meta``.
CLUSTER_SECRET = "cluster_secret"


class StaleOwner(Exception):
    """A write with a fencing token older than the newest one the table has seen: its
    process no longer owns the table, and another may have written since."""

    def __init__(self, table_id: int, token: int) -> None:
        super().__init__(f"table {table_id}: fencing token {token} is stale")
        self.table_id = table_id
        self.token = token


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


class Conflict(Exception):
    """A write met a row another write made meanwhile (a unique constraint): the caller
    answers it (the follow exists already, the name was taken), it never drops a
    connection. The database's own error is its ``__cause__``."""


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


class Store:
    """The database of one server process."""

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
        #: Where each commit's latency is counted (the hub's metrics), if anywhere.
        self.metrics: Metrics | None = None

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
                self.metrics.db_errors.inc()
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

    async def player_by_token(self, token: str) -> sa.Row[Any] | None:
        """The player whose session ``token`` is, with the session's ``session_id``."""

        async def q(conn: AsyncConnection) -> sa.Row[Any] | None:
            res = await conn.execute(
                sa.select(players, sessions.c.id.label("session_id"))
                .join(sessions, sessions.c.player_id == players.c.id)
                .where(sessions.c.token_hash == hash_token(token))
            )
            return res.first()

        row: sa.Row[Any] | None = await self.read(q)
        return row

    async def player_by_skeleton(self, skeleton: str) -> sa.Row[Any] | None:
        """The player whose name looks like a name of this skeleton (``text.name_key``)."""

        async def q(conn: AsyncConnection) -> sa.Row[Any] | None:
            res = await conn.execute(sa.select(players).where(players.c.skeleton == skeleton))
            return res.first()

        row: sa.Row[Any] | None = await self.read(q)
        return row

    async def player_by_name(self, name: str) -> sa.Row[Any] | None:
        async def q(conn: AsyncConnection) -> sa.Row[Any] | None:
            res = await conn.execute(sa.select(players).where(players.c.name == name))
            return res.first()

        row: sa.Row[Any] | None = await self.read(q)
        return row

    async def live_tables(self) -> list[tuple[sa.Row[Any], list[LogEntry]]]:
        """Every table not closed, with its whole log, for resuming after a restart."""

        async def q(conn: AsyncConnection) -> list[tuple[sa.Row[Any], list[LogEntry]]]:
            res = await conn.execute(
                sa.select(tables).where(tables.c.status != "closed").order_by(tables.c.id)
            )
            return [(row, await _entries(conn, int(row.id))) for row in list(res)]

        result: list[tuple[sa.Row[Any], list[LogEntry]]] = await self.read(q)
        return result

    async def table_by_code(self, code: str) -> sa.Row[Any] | None:
        """The table with ``code``, if it is not closed."""

        async def q(conn: AsyncConnection) -> sa.Row[Any] | None:
            res = await conn.execute(sa.select(tables).where(tables.c.code == code,
                                                             tables.c.status != "closed"))
            return res.first()

        row: sa.Row[Any] | None = await self.read(q)
        return row

    async def table_with_log(self, table_id: int) -> tuple[sa.Row[Any] | None, list[LogEntry]]:
        """Table ``table_id`` and its whole log, read together (to take it over)."""

        async def q(conn: AsyncConnection) -> tuple[sa.Row[Any] | None, list[LogEntry]]:
            row = (await conn.execute(sa.select(tables).where(tables.c.id == table_id))).first()
            return row, ([] if row is None else await _entries(conn, table_id))

        result: tuple[sa.Row[Any] | None, list[LogEntry]] = await self.read(q)
        return result

    async def cluster_secret(self) -> str:
        """The key the processes of a cluster sign their messages with: made (32 random
        bytes, hex) by the first process that asks and kept in ``meta``, so every process
        of the cluster reads the same one from the database they all trust. Processes
        asking at once all get the first one stored."""
        insert = (sqlite_insert if self.is_sqlite else pg_insert)(meta)

        async def op(c: AsyncConnection) -> str:
            await c.execute(insert.values(key=CLUSTER_SECRET, value=secrets.token_hex(32))
                            .on_conflict_do_nothing(index_elements=["key"]))
            res = await c.execute(sa.select(meta.c.value).where(meta.c.key == CLUSTER_SECRET))
            return str(res.scalar_one())

        secret: str = await self.run(op)
        return secret

    async def table_entries(self, table_id: int) -> list[LogEntry]:
        """One table's whole log, in order."""

        async def q(conn: AsyncConnection) -> list[LogEntry]:
            return await _entries(conn, table_id)

        result: list[LogEntry] = await self.read(q)
        return result

    async def log_rows(self, table_id: int, first: int, last: int) -> list[tuple[int, str, str]]:
        """Entries ``first`` to ``last`` of a table's log, in order, as stored: ``(n, kind,
        data as JSON text)``, left for the caller to parse (off the event loop: a page of
        old stream items is rebuilt from them in a read thread)."""

        async def q(conn: AsyncConnection) -> list[tuple[int, str, str]]:
            res = await conn.execute(
                sa.select(table_log.c.n, table_log.c.kind, table_log.c.data)
                .where(table_log.c.table_id == table_id, table_log.c.n >= first,
                       table_log.c.n <= last)
                .order_by(table_log.c.n))
            return [(int(r.n), str(r.kind), str(r.data)) for r in res]

        result: list[tuple[int, str, str]] = await self.read(q)
        return result

    async def live_table_ids(self) -> list[int]:
        """The ids of every table not closed (a cluster's first process takes each over)."""

        async def q(conn: AsyncConnection) -> list[int]:
            res = await conn.execute(sa.select(tables.c.id).where(tables.c.status != "closed"))
            return [int(r[0]) for r in res]

        result: list[int] = await self.read(q)
        return result

    async def fence_of(self, table_id: int) -> int:
        """The newest fencing token that wrote table ``table_id``'s log (0: none)."""

        async def q(conn: AsyncConnection) -> int:
            res = await conn.execute(sa.select(tables.c.fence).where(tables.c.id == table_id))
            return int(res.scalar() or 0)

        result: int = await self.read(q)
        return result

    async def create_table(self, *, code: str, name: str, host_id: int, rules: str,
                           preset: str | None, settings: str) -> int:
        """A new open table (``rules`` and ``settings`` as JSON text): its id, once stored."""

        async def op(c: AsyncConnection) -> int:
            res = await c.execute(
                tables.insert().values(code=code, name=name, host_id=host_id, rules=rules,
                                       preset=preset, settings=settings, status="open",
                                       created=time.time()))
            return int(res.inserted_primary_key[0])  # type: ignore[index]

        table_id: int = await self.run(op)
        return table_id

    async def close_table(self, table_id: int) -> None:
        """Mark table ``table_id`` closed."""

        async def op(c: AsyncConnection) -> None:
            await c.execute(tables.update().where(tables.c.id == table_id)
                            .values(status="closed"))

        await self.run(op)

    # -- the JSON API's reads of finished games and players ------------------------

    async def table_games(self, code: str) -> list[dict[str, Any]] | None:
        """The stored games (id, number, finished) of the newest table with ``code``, by
        number, or None if no table ever had that code."""

        async def q(c: AsyncConnection) -> list[dict[str, Any]] | None:
            table_id = (await c.execute(sa.select(sa.func.max(tables.c.id)).where(
                tables.c.code == code))).scalar()
            if table_id is None:
                return None
            rows = await c.execute(sa.select(games.c.id, games.c.game_no, games.c.finished)
                                   .where(games.c.table_id == table_id)
                                   .order_by(games.c.game_no).limit(1000))
            return [{"id": r.id, "game_no": r.game_no, "finished": r.finished} for r in rows]

        result: list[dict[str, Any]] | None = await self.read(q)
        return result

    async def game(self, game_id: int) -> dict[str, Any] | None:
        """Stored game ``game_id`` with its table's code and its players by seat; its
        ``record`` the JSON text as stored (left for the caller to parse)."""

        async def q(c: AsyncConnection) -> dict[str, Any] | None:
            row = (await c.execute(sa.select(games).where(games.c.id == game_id))).first()
            if row is None:
                return None
            code = (await c.execute(sa.select(tables.c.code).where(
                tables.c.id == row.table_id))).scalar()
            seats = await c.execute(sa.select(game_players).where(
                game_players.c.game_id == game_id).order_by(game_players.c.seat))
            return {
                "id": row.id, "table": code, "game_no": row.game_no, "rated": row.rated,
                "finished": row.finished, "ended": row.ended,
                "players": [{"seat": s.seat, "name": s.name, "total": s.total,
                             "winner": s.winner, "human": s.player_id is not None,
                             "mu_after": s.mu_after} for s in seats],
                "record": str(row.record),
            }

        result: dict[str, Any] | None = await self.read(q)
        return result

    async def finished_record(self, game_id: int) -> tuple[bool, str] | None:
        """Whether game ``game_id`` was finished, and its record (JSON text); None if there
        is no such game."""

        async def q(c: AsyncConnection) -> tuple[bool, str] | None:
            row = (await c.execute(sa.select(games.c.finished, games.c.record)
                                   .where(games.c.id == game_id))).first()
            return None if row is None else (bool(row.finished), str(row.record))

        result: tuple[bool, str] | None = await self.read(q)
        return result

    async def player_games(self, name: str) -> dict[str, Any] | None:
        """Player ``name``'s rating and newest 200 games, or None for no such player."""

        async def q(c: AsyncConnection) -> dict[str, Any] | None:
            row = (await c.execute(sa.select(players).where(players.c.name == name))).first()
            if row is None:
                return None
            res = await c.execute(
                sa.select(game_players, games.c.rated, games.c.finished, games.c.ended)
                .join(games, games.c.id == game_players.c.game_id)
                .where(game_players.c.player_id == row.id)
                .order_by(games.c.id.desc()).limit(200)
            )
            return {
                "name": row.name,
                "rating": {"mu": row.mu, "sigma": row.sigma,
                           "ordinal": row.mu - 3 * row.sigma},
                "rated_games": row.rated_games,
                "games": [{"id": g.game_id, "seat": g.seat, "total": g.total,
                           "winner": g.winner, "rated": g.rated, "finished": g.finished,
                           "ended": g.ended} for g in res],
            }

        result: dict[str, Any] | None = await self.read(q)
        return result


async def _entries(conn: AsyncConnection, table_id: int) -> list[LogEntry]:
    res = await conn.execute(
        sa.select(table_log).where(table_log.c.table_id == table_id).order_by(table_log.c.n)
    )
    return [LogEntry(table_id, r.n, r.kind, json.loads(r.data)) for r in res]


def _settle(fut: asyncio.Future[Any], result: Any, exc: BaseException | None) -> None:
    if fut.done():
        return
    if exc is not None:
        fut.set_exception(exc)
    else:
        fut.set_result(result)
