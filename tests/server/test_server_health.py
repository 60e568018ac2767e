"""``/healthz`` and ``/readyz`` (server/health.py) against real outages.

The database is really taken away: a PostgreSQL cluster of the test's own
(``initdb`` and ``pg_ctl`` in a temporary directory, on a free port) is stopped
and started again under a running server, a SQLite file is moved away and
back, a Redis of the test's own is frozen (``SIGSTOP``) and thawed. ``/readyz``
fails while each is gone, says which check failed, logs it once, and recovers.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import os
import shutil
import signal
import socket
import subprocess
import tempfile
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import redis
import sqlalchemy as sa
from server_helpers import eventually

from conftest import make_settings
from nimmt.client import Client
from nimmt.server.ops.health import READY_CACHE
from nimmt.server.run import running_hub

pytestmark = [pytest.mark.asyncio, pytest.mark.timeout(300)]


def get(url: str, method: str = "GET") -> tuple[int, Any]:
    """Status and JSON body of one request (an error status is an answer too)."""
    request = urllib.request.Request(url, method=method)
    try:
        with urllib.request.urlopen(request, timeout=30) as resp:
            body = resp.read()
            status = resp.status
    except urllib.error.HTTPError as exc:
        body = exc.read()
        status = exc.code
    return status, json.loads(body) if body else None


async def aget(url: str, method: str = "GET") -> tuple[int, Any]:
    return await asyncio.to_thread(get, url, method)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


async def test_healthz_and_readyz_answer_on_the_games_port_and_the_operations_listener(
        db_url: str, tmp_path: Path) -> None:
    settings = make_settings(db_url, tmp_path, metrics_address="127.0.0.1:0")
    async with running_hub(settings) as (url, hub):
        assert hub.metrics.listening is not None
        ops = "http://{}:{}".format(*hub.metrics.listening)
        for base in (url, ops):
            assert await aget(f"{base}/healthz") == (200, {"alive": True})
            assert await aget(f"{base}/readyz") == (
                200, {"ready": True, "checks": {"database": "ok", "tables": "ok"}})
            assert (await aget(f"{base}/readyz", "HEAD"))[0] == 200
        # The operations listener serves nothing of the game, and the game's port no
        # /metrics.
        assert (await asyncio.to_thread(get_text, f"{ops}/api"))[0] == 404
        assert (await asyncio.to_thread(get_text, f"{url}/metrics"))[0] == 404
        assert (await aget(f"{url}/api"))[0] == 200
        # A process that drains takes no new table: not ready, and it says why.
        hub.draining = True
        await eventually(lambda: _status(f"{url}/readyz", 503), "readyz fails while draining")
        status, body = await aget(f"{url}/readyz")
        assert status == 503
        assert body == {"ready": False, "failed": ["tables"],
                        "checks": {"database": "ok", "tables": "draining"}}
        assert await aget(f"{url}/healthz") == (200, {"alive": True})
        hub.draining = False
        await eventually(lambda: _status(f"{url}/readyz", 200), "readyz recovers")


def get_text(url: str) -> tuple[int, str]:
    try:
        with urllib.request.urlopen(url, timeout=30) as resp:
            return resp.status, resp.read().decode()
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read().decode()


async def _status(url: str, want: int) -> bool:
    return (await aget(url))[0] == want


async def test_a_flood_of_readyz_costs_the_database_one_query_a_second(
        db_url: str, tmp_path: Path) -> None:
    # Unauthenticated and outside every limit, /readyz must stay cheap: requests share one
    # check a second. Every statement the store's engine runs is counted.
    async with running_hub(make_settings(db_url, tmp_path)) as (url, hub):
        queries: list[str] = []

        def seen(conn: Any, cursor: Any, statement: str, *rest: Any) -> None:
            if statement.strip() == "SELECT 1":
                queries.append(statement)

        sa.event.listen(hub.store.engine.sync_engine, "before_cursor_execute", seen)
        loop = asyncio.get_running_loop()
        start = loop.time()
        answers = await asyncio.gather(*(aget(f"{url}/readyz") for _ in range(200)))
        seconds = loop.time() - start
        assert all(status == 200 for status, _ in answers)
        # One check at the start and at most one per READY_CACHE seconds after it.
        assert 1 <= len(queries) <= 2 + seconds / READY_CACHE, (len(queries), seconds)


async def test_readyz_fails_while_the_sqlite_file_is_gone_and_recovers(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    db = tmp_path / "nimmt.db"
    settings = make_settings(f"sqlite+aiosqlite:///{db}", tmp_path, ready_timeout=2.0)
    caplog.set_level(logging.INFO, logger="nimmt.server")
    async with running_hub(settings) as (url, _hub):
        assert (await aget(f"{url}/readyz"))[0] == 200
        moved = tmp_path / "elsewhere.db"
        db.rename(moved)
        await eventually(lambda: _status(f"{url}/readyz", 503), "readyz fails")
        status, body = await aget(f"{url}/readyz")
        assert status == 503
        assert body == {"ready": False, "failed": ["database"],
                        "checks": {"database": "the database file is gone", "tables": "ok"}}
        assert await aget(f"{url}/healthz") == (200, {"alive": True})
        if os.geteuid() != 0:  # root reads and writes any file whatever its mode
            moved.rename(db)
            db.chmod(0)
            await eventually(lambda: _reason(url, "the database file cannot be read and "
                                             "written"), "an unreadable file is said")
            db.chmod(0o644)
        else:
            moved.rename(db)
        await eventually(lambda: _status(f"{url}/readyz", 200), "readyz recovers")
        # A file put in the old one's place is not the file the server has open.
        db.rename(moved)
        shutil.copy(moved, db)
        await eventually(lambda: _reason(url, "the database file was replaced"),
                         "a replaced file is said")
        db.unlink()
        moved.rename(db)
        await eventually(lambda: _status(f"{url}/readyz", 200), "readyz recovers")
    failed = [r for r in caplog.records if getattr(r, "nimmt_event", "") == "ready.failed"]
    recovered = [r for r in caplog.records
                 if getattr(r, "nimmt_event", "") == "ready.recovered"]
    # Each outage is logged once, however often it was asked about, and so is its end.
    assert len(failed) == len(recovered) == (3 if os.geteuid() != 0 else 2)
    assert "does not exist" in failed[0].getMessage()


async def _reason(url: str, reason: str) -> bool:
    status, body = await aget(f"{url}/readyz")
    return status == 503 and body["checks"]["database"] == reason


# -- a PostgreSQL of the test's own ---------------------------------------------------------


def _pg_bin() -> Path | None:
    """The directory of ``initdb`` and ``pg_ctl``: on PATH, or Debian's newest."""
    found = shutil.which("initdb")
    if found:
        return Path(found).parent
    versions = sorted(Path("/usr/lib/postgresql").glob("*/bin/initdb"),
                      key=lambda p: int(p.parent.parent.name)
                      if p.parent.parent.name.isdigit() else 0)
    return versions[-1].parent if versions else None


class Cluster:
    """A throwaway PostgreSQL cluster: its own directory, port and socket."""

    def __init__(self, bindir: Path, root: Path, port: int) -> None:
        self.bindir = bindir
        self.root = root
        self.port = port
        self.url = f"postgresql+psycopg://postgres@127.0.0.1:{port}/postgres"
        # PostgreSQL refuses to run as root: as root, it runs as the postgres user.
        self.as_user = (["runuser", "-u", "postgres", "--"] if os.geteuid() == 0 else [])

    def run(self, *args: str) -> None:
        subprocess.run([*self.as_user, str(self.bindir / args[0]), *args[1:]], check=True,
                       capture_output=True, timeout=120)

    def init(self) -> None:
        self.run("initdb", "-D", str(self.root / "data"), "-A", "trust", "-U", "postgres",
                 "--no-sync")

    def start(self) -> None:
        options = (f"-p {self.port} -k {self.root} -c listen_addresses=127.0.0.1 "
                   "-c fsync=off")
        self.run("pg_ctl", "-D", str(self.root / "data"), "-l", str(self.root / "log"), "-w",
                 "-t", "120", "-o", options, "start")

    def stop(self) -> None:
        self.run("pg_ctl", "-D", str(self.root / "data"), "-m", "fast", "-w", "-t", "120",
                 "stop")


@contextlib.contextmanager
def private_postgresql() -> Iterator[Cluster]:
    bindir = _pg_bin()
    if bindir is None:
        pytest.skip("needs PostgreSQL's initdb and pg_ctl (Debian: postgresql)")
    if os.geteuid() == 0 and shutil.which("runuser") is None:
        pytest.skip("as root, needs runuser to run PostgreSQL as the postgres user")
    root = Path(tempfile.mkdtemp(prefix="nimmt-pg-"))
    if os.geteuid() == 0:
        shutil.chown(root, "postgres")
    cluster = Cluster(bindir, root, free_port())
    try:
        cluster.init()
        cluster.start()
        yield cluster
    finally:
        with contextlib.suppress(subprocess.SubprocessError):
            cluster.stop()
        shutil.rmtree(root, ignore_errors=True)


async def test_readyz_fails_while_postgresql_is_stopped_and_recovers(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO, logger="nimmt.server")
    with private_postgresql() as pg:
        settings = make_settings(pg.url, tmp_path, ready_timeout=2.0)
        async with running_hub(settings) as (url, _hub):
            ana = await Client.connect(url, name="Ana")
            await ana.close()
            assert (await aget(f"{url}/readyz"))[0] == 200
            await asyncio.to_thread(pg.stop)
            await eventually(lambda: _status(f"{url}/readyz", 503), "readyz fails")
            status, body = await aget(f"{url}/readyz")
            assert status == 503
            assert body["ready"] is False and body["failed"] == ["database"]
            assert body["checks"]["database"] in ("unreachable", "no answer within 2 s")
            assert await aget(f"{url}/healthz") == (200, {"alive": True})
            await asyncio.to_thread(pg.start)
            await eventually(lambda: _status(f"{url}/readyz", 200), "readyz recovers")
            # The server stores again: a new player is written, a known one read back.
            bob = await Client.connect(url, name="Bob")
            await bob.close()
            again = await Client.connect(url, token=ana.token)
            assert again.name == "Ana"
            await again.close()
    failed = [r for r in caplog.records if getattr(r, "nimmt_event", "") == "ready.failed"]
    assert len(failed) == 1 and failed[0].levelno == logging.ERROR
    assert [getattr(r, "nimmt_fields", {}).get("check") for r in caplog.records
            if getattr(r, "nimmt_event", "") == "ready.recovered"] == ["database"]


async def test_readyz_fails_while_redis_does_not_answer_and_recovers(
        pg_url: str, tmp_path: Path) -> None:
    # A Redis of the test's own is frozen: PING gets no answer within ready_timeout.
    if shutil.which("redis-server") is None:
        pytest.skip("needs redis-server on PATH")
    port = free_port()
    server = subprocess.Popen(["redis-server", "--port", str(port), "--save", "",
                               "--appendonly", "no", "--bind", "127.0.0.1"],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        probe = redis.Redis(host="127.0.0.1", port=port)

        async def up() -> bool:
            try:
                return bool(probe.ping())
            except redis.RedisError:
                return False

        await eventually(up, "the throwaway Redis answers")
        probe.close()
        settings = make_settings(pg_url, tmp_path, redis=f"redis://127.0.0.1:{port}/0",
                                 ready_timeout=1.0, lease_ttl=30.0, heartbeat=0.5)
        async with running_hub(settings) as (url, _hub):
            assert await aget(f"{url}/readyz") == (200, {"ready": True, "checks": {
                "database": "ok", "redis": "ok", "tables": "ok"}})
            server.send_signal(signal.SIGSTOP)
            try:
                await eventually(lambda: _status(f"{url}/readyz", 503), "readyz fails")
                status, body = await aget(f"{url}/readyz")
                assert status == 503
                assert body == {"ready": False, "failed": ["redis"], "checks": {
                    "database": "ok", "redis": "no answer within 1 s", "tables": "ok"}}
            finally:
                server.send_signal(signal.SIGCONT)
            await eventually(lambda: _status(f"{url}/readyz", 200), "readyz recovers")
    finally:
        server.kill()
        server.wait()
