"""The store: migrations, SQLite settings, group commit, durability."""

from __future__ import annotations

import asyncio
import os
import stat
from pathlib import Path

import pytest
import sqlalchemy as sa
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from alembic.script import ScriptDirectory

from nimmt.server.store import Conflict, LogEntry, Store
from nimmt.server.store.migrate import MIGRATIONS
from nimmt.server.store.schema import metadata

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
        with pytest.raises(Conflict):  # the store's own error, the database's its cause
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


async def test_what_the_server_creates_is_private_whatever_the_umask(tmp_path: Path) -> None:
    """Under umask 022 the data directory the server makes is 0700, and its database (with
    its WAL and shared-memory files) and a backup 0600: they hold password hashes. A
    directory that exists already keeps the mode its operator gave it."""
    from nimmt.server.base.settings import Settings
    from nimmt.server.run import running_hub
    from nimmt.server.store.backup import backup

    there = tmp_path / "srv"
    there.mkdir()
    there.chmod(0o755)
    made = there / "home" / "nimmt"
    old = os.umask(0o022)
    try:
        settings = Settings(host="127.0.0.1", port=0, data_dir=made)
        async with running_hub(settings) as (_url, hub):
            await hub.store.read(lambda c: c.execute(sa.text("select 1")))
            files = {p.name: stat.S_IMODE(p.stat().st_mode) for p in made.iterdir()}
            assert files.get("nimmt.db") == 0o600 and files.get("nimmt.db-wal") == 0o600, files
            assert all(mode == 0o600 for mode in files.values()), files
            copy = tmp_path / "copy.db"
            backup(made / "nimmt.db", copy)
            assert stat.S_IMODE(copy.stat().st_mode) == 0o600
        assert stat.S_IMODE(made.stat().st_mode) == 0o700
        assert stat.S_IMODE((there / "home").stat().st_mode) == 0o700
        assert stat.S_IMODE(there.stat().st_mode) == 0o755  # not made here: left alone
    finally:
        os.umask(old)
