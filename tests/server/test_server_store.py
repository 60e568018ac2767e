"""The store: migrations, SQLite settings, group commit, durability."""

from __future__ import annotations

import asyncio

import pytest
import sqlalchemy as sa
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from alembic.script import ScriptDirectory

from nimmt.server.schema import MIGRATIONS
from nimmt.server.store import LogEntry, Store, metadata

pytestmark = [pytest.mark.asyncio, pytest.mark.timeout(300)]


async def test_migrations_match_the_models(db_url: str) -> None:
    store = Store(db_url)
    await store.open()
    try:
        async with store.engine.connect() as conn:
            diff = await conn.run_sync(
                lambda c: compare_metadata(MigrationContext.configure(c), metadata))
            version = (await conn.execute(sa.text("select version_num from alembic_version")))
            assert version.scalar() == ScriptDirectory(str(MIGRATIONS)).get_current_head()
        assert diff == []
    finally:
        await store.close()
    # Opening again applies nothing new and keeps working.
    store = Store(db_url)
    await store.open()
    await store.close()


async def test_group_commit_is_durable(db_url: str) -> None:
    store = Store(db_url)
    await store.open()
    try:
        await asyncio.gather(*(store.append(LogEntry(7, n, "chat", {"n": n}))
                               for n in range(1, 301)))
        assert store.commits < 300  # many entries share a transaction
        with pytest.raises(sa.exc.IntegrityError):
            await store.append(LogEntry(7, 5, "chat", {}))  # the same (table, n) twice
    finally:
        await store.close()
    again = Store(db_url)
    await again.open()
    try:
        async def count(c: sa.ext.asyncio.AsyncConnection) -> int:
            res = await c.execute(sa.text("select count(*) from table_log where table_id = 7"))
            return int(res.scalar_one())

        assert await again.read(count) == 300
    finally:
        await again.close()


async def test_sqlite_runs_in_wal_mode(tmp_path: object) -> None:
    store = Store(f"sqlite+aiosqlite:///{tmp_path}/x/nimmt.db")
    await store.open()
    try:
        async def mode(c: sa.ext.asyncio.AsyncConnection) -> str:
            return str((await c.execute(sa.text("pragma journal_mode"))).scalar())

        assert await store.read(mode) == "wal"
    finally:
        await store.close()
