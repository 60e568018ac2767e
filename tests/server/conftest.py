"""Fixtures of the server tests: a real server on loopback over a real database.

Every test that takes ``server`` runs twice: on a SQLite file and on the
PostgreSQL server of this machine (127.0.0.1:5432, user postgres). One fresh
PostgreSQL database is made per test run, and each test gets its own schema in
it, so tables resumed at a server's start never come from another test.
"""

from __future__ import annotations

import os
import uuid
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import psycopg
import pytest
import pytest_asyncio
import redis
from rolling_helpers import DRAIN
from server_helpers import LIFTED_LIMITS

from nimmt.server.base.settings import Settings
from nimmt.server.run import running_server

PG_HOST = os.environ.get("NIMMT_TEST_PG", "postgresql://postgres@127.0.0.1:5432/test")
REDIS = os.environ.get("NIMMT_TEST_REDIS", "redis://127.0.0.1:6379/0")


@pytest.fixture(scope="session")
def pg_database() -> Iterator[str]:
    """A fresh PostgreSQL database for this test run (dropped at the end)."""
    name = f"nimmt_run_{os.getpid()}_{uuid.uuid4().hex[:8]}"
    try:
        admin = psycopg.connect(PG_HOST, autocommit=True, connect_timeout=5)
    except psycopg.OperationalError as exc:
        pytest.fail(f"PostgreSQL is not reachable at {PG_HOST} (scripts/test starts it): {exc}")
    with admin:
        admin.execute(f'CREATE DATABASE "{name}"')
    try:
        yield name
    finally:
        with psycopg.connect(PG_HOST, autocommit=True) as admin:
            admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def pg_schema_url(database: str) -> str:
    """A URL of a new, empty schema in ``database`` (of the run's PostgreSQL database)."""
    schema = f"t_{uuid.uuid4().hex[:12]}"
    base = PG_HOST.rsplit("/", 1)[0]
    with psycopg.connect(f"{base}/{database}", autocommit=True) as conn:
        conn.execute(f'CREATE SCHEMA "{schema}"')
    host = base.split("://", 1)[1]
    return f"postgresql+psycopg://{host}/{database}?options=-csearch_path%3D{schema}"


def module_db_url(request: pytest.FixtureRequest, tmp: Path) -> str:
    """A database URL of the kind ``request.param`` names, for a module-scoped server."""
    if request.param == "sqlite":
        return f"sqlite+aiosqlite:///{tmp / 'nimmt.db'}"
    return pg_schema_url(request.getfixturevalue("pg_database"))


@pytest.fixture(params=["sqlite", "postgresql"])
def db_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """A database URL of each kind, empty for this test."""
    if request.param == "sqlite":
        return f"sqlite+aiosqlite:///{tmp_path / 'nimmt.db'}"
    database: str = request.getfixturevalue("pg_database")
    return pg_schema_url(database)


@pytest.fixture
def pg_url(pg_database: str) -> str:
    """A fresh PostgreSQL schema for this test (the store of several server processes)."""
    return pg_schema_url(pg_database)


@pytest.fixture
def cluster_env(pg_url: str, tmp_path: Path) -> Iterator[dict[str, str]]:
    """The environment of the server processes of a cluster test (over PostgreSQL and
    Redis); its Redis keys go at the end."""
    prefix = f"nimmt-test-{uuid.uuid4().hex[:12]}:"
    try:
        r = redis.Redis.from_url(REDIS)
        r.ping()
    except redis.RedisError as exc:
        pytest.fail(f"Redis is not reachable at {REDIS}: {exc}")
    # Leases renewed every half second last 10 s: a busy machine never makes a live owner
    # lose its table, and a dead one's tables move within seconds.
    yield {**os.environ, **LIFTED_LIMITS, "NIMMT_DATA_DIR": str(tmp_path / "data"),
           "NIMMT_DB": pg_url, "NIMMT_REDIS": REDIS, "NIMMT_REDIS_PREFIX": prefix,
           "NIMMT_LEASE_TTL": "10", "NIMMT_HEARTBEAT": "0.5", "NIMMT_BOT_WORKERS": "1",
           "NIMMT_DISCONNECT_GRACE": "60", "NIMMT_BOT_SECONDS": "0.05"}
    keys = list(r.scan_iter(f"{prefix}*"))
    if keys:
        r.delete(*keys)
    r.close()


@pytest.fixture
def rolling_env(cluster_env: dict[str, str]) -> dict[str, str]:
    """A cluster whose processes are restarted: players keep their seats through it, and
    each stop drains within ``DRAIN``."""
    return {**cluster_env, "NIMMT_DISCONNECT_GRACE": "120", "NIMMT_DRAIN_SECONDS": str(DRAIN)}


def make_settings(db_url: str, tmp_path: Path, **changes: Any) -> Settings:
    """Settings for a test server: a free port, generous rate limits unless told. Bots think
    briefly but have a long grace (a busy machine never makes a well-behaved bot late)."""
    base: dict[str, Any] = {
        "host": "127.0.0.1", "port": 0, "db": db_url, "data_dir": tmp_path,
        "rate": 10_000.0, "burst": 10_000, "disconnect_grace": 30.0, "bot_seconds": 0.05,
        "bot_grace": 10.0,
        "player_rate": 10_000.0, "player_burst": 10_000, "address_rate": 10_000.0,
        "address_burst": 10_000, "address_bytes": 1e9, "address_bytes_burst": 1 << 30,
        "names_per_minute": 10_000, "connections_per_address": 10_000,
        "tables_per_host": 100, "tables_per_address": 10_000, "reveal_pace": 0.0,
        "round_pause": 0.0,
        "running_per_host": 100, "running_per_address": 10_000,
        "listen_cps": 0.0, "read_rate": 10_000.0, "read_burst": 10_000,
        "speech_rate": 10_000.0, "speech_burst": 10_000, "speech_address_rate": 10_000.0,
        "speech_address_burst": 10_000, "board_rate": 10_000.0, "board_burst": 10_000,
        "search_bots_per_host": 1000, "search_bots_per_address": 100_000,
    }
    base.update(changes)
    return Settings(**base)


@pytest_asyncio.fixture
async def server(db_url: str, tmp_path: Path) -> AsyncIterator[str]:
    """A running server (``http://127.0.0.1:PORT``) with default test settings."""
    async with running_server(make_settings(db_url, tmp_path)) as url:
        yield url
