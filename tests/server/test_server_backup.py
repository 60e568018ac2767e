"""Backups taken while a game is being played restore, and the game goes on to its end.

SQLite with ``nimmt admin backup`` and ``restore`` (server/backup.py); PostgreSQL with
the ``pg_dump`` and ``pg_restore`` commands of docs/deploy.md, run as the document
writes them (tests/deploy_helpers.py fills in the names). Each time a real ``nimmt
serve`` serves the game while the backup is taken, is stopped, and a new one on the
restored store resumes the table from its log; the players reconnect with their tokens
and play on.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import random
import signal
import sqlite3
import subprocess
import uuid
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import psycopg
import pytest
from psycopg.conninfo import conninfo_to_dict
from server_helpers import LIFTED_LIMITS, NIMMT, play_until_key, start_server

from conftest import PG_HOST
from deploy_helpers import doc_block, fill
from nimmt.client import Client

pytestmark = [pytest.mark.asyncio, pytest.mark.timeout(300)]

RULES = {"preset": "classic", "players": 4, "end": "rounds", "rounds": 5}


@dataclass
class Stores:
    """Where the server keeps its data before the backup and after the restore, and the
    commands that back up and restore it."""

    before: list[str]
    after: list[str]
    backup: list[str]
    restore: list[str]
    env: dict[str, str] = field(default_factory=dict)


def sqlite_stores(tmp: Path) -> Stores:
    backup = str(tmp / "nimmt-backup.db")
    return Stores(
        before=["--data-dir", str(tmp / "data")],
        after=["--data-dir", str(tmp / "restored")],
        backup=[NIMMT, "admin", "backup", backup, "--data-dir", str(tmp / "data")],
        restore=[NIMMT, "admin", "restore", backup, "--data-dir", str(tmp / "restored")],
    )


@contextlib.contextmanager
def pg_stores(tmp: Path) -> Iterator[Stores]:
    """A fresh database to serve from, a name for the one docs/deploy.md's recipe makes
    and restores into (both dropped at the end), and the recipe's commands for them."""
    given = conninfo_to_dict(PG_HOST)
    base = f"postgresql+psycopg://{given['user']}@{given['host']}:{given['port']}"
    first, restored = (f"nimmt_bk_{uuid.uuid4().hex[:10]}" for _ in range(2))
    dump = str(tmp / "nimmt.dump")
    names = {"sudo -u nimmt ": "", "sudo -u postgres ": "", " --owner=nimmt": "",
             "--dbname=nimmt_restored": f"--dbname={restored}", "nimmt_restored": restored,
             "--dbname=nimmt ": f"--dbname={first} ", "/var/backups/nimmt/nimmt.dump": dump}
    backup = fill(doc_block("pg-backup"), {k: v for k, v in names.items() if k in (
        "sudo -u nimmt ", "--dbname=nimmt ", "/var/backups/nimmt/nimmt.dump")})
    restore = fill(doc_block("pg-restore"), {k: v for k, v in names.items() if k not in (
        "--dbname=nimmt ",)})
    with psycopg.connect(PG_HOST, autocommit=True) as admin:
        admin.execute(f'CREATE DATABASE "{first}"')
    try:
        yield Stores(
            before=["--db", f"{base}/{first}"], after=["--db", f"{base}/{restored}"],
            backup=["bash", "-euo", "pipefail", "-c", backup],
            restore=["bash", "-euo", "pipefail", "-c", restore],
            # libpq's own variables: the recipe names no host or user.
            env={"PGHOST": str(given["host"]), "PGPORT": str(given["port"]),
                 "PGUSER": str(given["user"])},
        )
    finally:
        with psycopg.connect(PG_HOST, autocommit=True) as admin:
            for name in (first, restored):
                admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


async def run(args: list[str], env: dict[str, str]) -> str:
    proc = await asyncio.create_subprocess_exec(*args, stdout=subprocess.PIPE,
                                                stderr=subprocess.PIPE, env=env)
    out, err = await proc.communicate()
    assert proc.returncode == 0, (args, out.decode(), err.decode())
    assert b"Traceback" not in err
    return out.decode()


async def play_while(client: Client, rng: random.Random, running: asyncio.Task[str],
                     stop_key: str) -> None:
    """Answer every prompt until ``running`` is done (or the prompt ``stop_key`` comes)."""
    answered: set[str] = set()
    while not running.done():
        prompt = client.prompt
        if prompt is not None and prompt.key == stop_key:
            return
        if prompt is not None and prompt.key not in answered:
            answered.add(prompt.key)
            await client.answer(prompt, rng)
            continue
        message = asyncio.ensure_future(client.recv(120))
        await asyncio.wait({message, running}, return_when=asyncio.FIRST_COMPLETED)
        if message.done():
            client.inbox.append(message.result())
        else:  # a WebSocket's recv may be cancelled: nothing is lost
            message.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await message


async def table_seq(client: Client, code: str) -> int:
    return (await client.join(code)).seq


def stop(proc: subprocess.Popen[str]) -> None:
    if proc.poll() is None:
        proc.send_signal(signal.SIGINT)
        try:
            proc.wait(30)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


@pytest.mark.parametrize("kind", ["sqlite", "postgresql"])
async def test_a_backup_taken_mid_game_restores_and_the_game_goes_on(
        kind: str, tmp_path: Path) -> None:
    with contextlib.ExitStack() as stack:
        stores = sqlite_stores(tmp_path) if kind == "sqlite" else stack.enter_context(
            pg_stores(tmp_path))
        env = {**os.environ, **LIFTED_LIMITS, **stores.env,
               "NIMMT_DATA_DIR": str(tmp_path / "home"), "NIMMT_DISCONNECT_GRACE": "120"}
        proc, url = await start_server(stores.before, env)
        try:
            clients = [await Client.connect(url, name=n) for n in ("Ana", "Bob", "Cleo", "Dan")]
            code = (await clients[0].create_table(rules=RULES)).table.code
            for c in clients[1:]:
                await c.join(code)
                await c.sit()
            await clients[0].start()
            rngs = [random.Random(i) for i in range(4)]
            await asyncio.gather(*(play_until_key(c, "1.1.3.card", r)
                                   for c, r in zip(clients, rngs, strict=True)))
            before = await table_seq(clients[0], code)
            # The backup runs while the four go on playing.
            backup = asyncio.create_task(run(stores.backup, env))
            await asyncio.gather(*(play_while(c, r, backup, "1.4.1.card")
                                   for c, r in zip(clients, rngs, strict=True)))
            said = await backup
            after = await table_seq(clients[0], code)
            assert after > before, "the game did not move while the backup was taken"
            assert not any(c.game_over for c in clients)
            for c in clients:
                await c.close()
        finally:
            stop(proc)
        if kind == "sqlite":
            assert "4 players, 1 tables in play" in said, said

        await run(stores.restore, env)
        proc, url = await start_server(stores.after, env)
        try:
            again = []
            for c in clients:
                assert c.token is not None
                back = await Client.connect(url, token=c.token)
                state = await back.join(code)
                # The table as the backup saw it: after the game had reached turn 3, before
                # it was stopped.
                assert before <= state.seq <= after
                assert state.view is not None and state.table.status == "playing"
                again.append(back)
            await asyncio.gather(*(c.play_until_over(random.Random(10 + i))
                                   for i, c in enumerate(again)))
            assert all(c.game_over for c in again)
            for c in again:
                await c.close()
        finally:
            stop(proc)


async def admin(*args: str, env: dict[str, str] | None = None) -> tuple[int, str, str]:
    proc = await asyncio.create_subprocess_exec(
        NIMMT, "admin", *args, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        env=env or dict(os.environ))
    out, err = await proc.communicate()
    assert b"Traceback" not in err
    assert proc.returncode is not None
    return proc.returncode, out.decode(), err.decode()


async def test_restore_refuses_a_running_server_and_keeps_what_it_replaces(
        tmp_path: Path) -> None:
    data = tmp_path / "data"
    env = {**os.environ, **LIFTED_LIMITS, "NIMMT_DATA_DIR": str(data)}
    proc, url = await start_server([], env)
    try:
        async with await Client.connect(url, name="Ana"):
            pass
        code, out, err = await admin("backup", str(tmp_path / "one.db"), env=env)
        assert code == 0 and "1 players, 0 tables in play" in out, (out, err)
        # While the server runs: no restore over its database, and no second server on it.
        code, _, err = await admin("restore", str(tmp_path / "one.db"), "--replace", env=env)
        assert code == 1 and f"process {proc.pid} holds" in err, err
        second = await asyncio.create_subprocess_exec(
            NIMMT, "serve", "--port", "0", env=env, stdout=subprocess.PIPE,
            stderr=subprocess.PIPE)
        _, err_b = await asyncio.wait_for(second.communicate(), 120)
        assert second.returncode == 1 and b"Cannot serve: process" in err_b, err_b
        async with await Client.connect(url, name="Bob"):
            pass
    finally:
        proc.send_signal(signal.SIGKILL)  # killed: the kernel lets go of its lock all the same
        proc.wait(30)
    wal = Path(f"{data / 'nimmt.db'}-wal")
    code, _, err = await admin("restore", str(tmp_path / "one.db"), env=env)
    assert code == 1 and "exists; --replace" in err, err
    code, out, err = await admin("restore", str(tmp_path / "one.db"), "--replace", env=env)
    assert code == 0 and "1 players" in out, (out, err)
    (aside,) = data.glob("nimmt.db.replaced-*[0-9]")
    assert f"kept as {aside}" in out.replace("\n", " ")
    # The replaced database is whole beside its own log: Bob, who came after the backup, is in it.
    with contextlib.closing(sqlite3.connect(aside)) as old:
        assert {r[0] for r in old.execute("SELECT name FROM players")} == {"Ana", "Bob"}
    assert not wal.exists() or wal.stat().st_size == 0
    with contextlib.closing(sqlite3.connect(data / "nimmt.db")) as new:
        assert {r[0] for r in new.execute("SELECT name FROM players")} == {"Ana"}


async def test_restore_refuses_what_is_not_a_backup_of_this_version(tmp_path: Path) -> None:
    env = {**os.environ, "NIMMT_DATA_DIR": str(tmp_path / "data")}
    junk = tmp_path / "junk.db"
    junk.write_text("not a database\n" * 100)
    code, _, err = await admin("restore", str(junk), env=env)
    assert code == 1 and "is not a SQLite database" in err, err
    other = tmp_path / "other.db"
    with contextlib.closing(sqlite3.connect(other)) as conn:
        conn.execute("CREATE TABLE notes (text)")
        conn.commit()
    code, _, err = await admin("restore", str(other), env=env)
    assert code == 1 and "is not a nimmt database" in err, err
    # Nor is one backed up: the copy is checked, and removed.
    code, _, err = await admin("backup", str(tmp_path / "copy.db"), "--db",
                               f"sqlite:///{other}", env=env)
    assert code == 1 and f"{other} is not a nimmt database" in err, err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["junk.db", "other.db"]
    # A backup from a newer nimmt, whose schema this one cannot run.
    proc, _url = await start_server([], {**env, **LIFTED_LIMITS})
    try:
        code, _, err = await admin("backup", str(tmp_path / "b.db"), env=env)
        assert code == 0, err
    finally:
        proc.terminate()
        proc.wait(30)
    with contextlib.closing(sqlite3.connect(tmp_path / "b.db")) as conn:
        conn.execute("UPDATE alembic_version SET version_num = '9999'")
        conn.commit()
    code, _, err = await admin("restore", str(tmp_path / "b.db"), "--data-dir",
                               str(tmp_path / "fresh"), env=env)
    assert code == 1 and "made by a newer nimmt (schema revision 9999)" in err, err
    assert not (tmp_path / "fresh" / "nimmt.db").exists()
    code, _, err = await admin("backup", str(tmp_path / "x.db"), "--db",
                               "postgresql+psycopg://nimmt@/nimmt", env=env)
    assert code == 2 and "pg_dump -Fc" in err and "docs/deploy.md" in err, err
