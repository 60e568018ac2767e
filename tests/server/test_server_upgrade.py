"""An upgrade keeps the room: a database an earlier nimmt wrote, served by this one.

The fixtures in ``tests/server/upgrade/`` were written by earlier versions of nimmt
serving a room (``make_fixture.py`` made them, and says how):

- ``release-0.1.0``: the last release (CHANGELOG.md), schema revision 0002: guests
  with tokens, two finished rated games, a game in play;
- ``main-b15f902``: main when accounts and friends came (schema 0006): an account
  with a password and recovery codes, friends, a block, chat, a report, two
  finished rated games, a game in play.

Each is restored as a host would have it (the SQLite file; the PostgreSQL dump into
a new database), then upgraded as docs/deploy.md says (this version's ``nimmt
serve`` started on it: the migrations run at start). ``nimmt admin schema`` says
the revision before and after, and the operator's other commands wait for the
server to migrate. Everyone keeps their name, password, friends, rating and
history, and the game in play resumes where it stopped and is played to its end.
A database newer than this nimmt is refused by every command, untouched.
"""

from __future__ import annotations

import asyncio
import json
import os
import random
import shutil
import signal
import sqlite3
import subprocess
import threading
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import psycopg
import pytest
from server_helpers import LIFTED_LIMITS, NIMMT, api

from conftest import PG_HOST
from nimmt.client import Client
from nimmt.decisions import PlayCard
from nimmt.record import decision_from_record, record_from_dict
from nimmt.server.store.migrate import head

pytestmark = [pytest.mark.asyncio, pytest.mark.timeout(400)]

FIXTURES = Path(__file__).resolve().parent / "upgrade"


def restore(fixture: str, backend: str, tmp: Path) -> Iterator[str]:
    """The fixture's database where a host has it; its URL (a PostgreSQL one is dropped
    after the test)."""
    if backend == "sqlite":
        data = tmp / "data"
        data.mkdir()
        shutil.copyfile(FIXTURES / f"{fixture}.sqlite", data / "nimmt.db")
        yield f"sqlite+aiosqlite:///{data / 'nimmt.db'}"
        return
    name = f"nimmt_upgrade_{uuid.uuid4().hex[:10]}"
    base = PG_HOST.rsplit("/", 1)[0]
    with psycopg.connect(PG_HOST, autocommit=True, connect_timeout=5) as admin:
        admin.execute(f'CREATE DATABASE "{name}"')
    try:
        subprocess.run(["psql", "-q", "-v", "ON_ERROR_STOP=1", "-f",
                        str(FIXTURES / f"{fixture}.pg.sql"), f"{base}/{name}"],
                       check=True, capture_output=True, text=True)
        yield f"postgresql+psycopg://{base.split('://', 1)[1]}/{name}"
    finally:
        with psycopg.connect(PG_HOST, autocommit=True) as admin:
            admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


@pytest.fixture(params=["release-0.1.0", "main-b15f902"])
def fixture(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.fixture(params=["sqlite", "postgresql"])
def backend(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.fixture
def restored(fixture: str, backend: str, tmp_path: Path) -> Iterator[str]:
    yield from restore(fixture, backend, tmp_path)


def admin(url: str, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([NIMMT, "admin", "--db", url, *args], capture_output=True,
                          text=True, timeout=120)


class Serving:
    """``nimmt serve`` on ``url`` in its own process, its output read as it comes."""

    def __init__(self, url: str, data: Path) -> None:
        env = {**os.environ, **LIFTED_LIMITS, "NIMMT_DISCONNECT_GRACE": "120",
               "NIMMT_BOT_SECONDS": "0.05"}
        self.proc = subprocess.Popen(
            [NIMMT, "serve", "--port", "0", "--db", url, "--data-dir", str(data)],
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env)
        self.lines: list[str] = []
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self.lines.append(line)

    async def started(self) -> tuple[str, str]:
        """The server's address and its "serving on" line, once it serves."""
        loop = asyncio.get_running_loop()
        end = loop.time() + 120
        while not any("serving on" in line for line in self.lines):
            assert self.proc.poll() is None, "".join(self.lines)
            assert loop.time() < end, "".join(self.lines)
            await asyncio.sleep(0.05)
        opened = next(line for line in self.lines if "open http://" in line)
        serving = next(line for line in self.lines if "serving on" in line)
        return opened.split("open ", 1)[1].split("/ ", 1)[0], serving

    def stop(self) -> None:
        self.proc.send_signal(signal.SIGTERM)
        self.proc.wait(60)
        self.reader.join(10)


async def play_to_the_end(client: Client, rng: random.Random) -> None:
    client.game_over = False
    await client.play_until_over(rng, timeout=240)


async def test_an_upgrade_keeps_the_room(fixture: str, backend: str, restored: str,
                                         tmp_path: Path) -> None:
    made = json.loads((FIXTURES / f"{fixture}.json").read_text())
    facts: dict[str, Any] = made[backend]
    old = "0002" if fixture == "release-0.1.0" else "0006"
    # Before: the operator sees where the schema stands, and what the start will do.
    said = admin(restored, "schema")
    assert said.returncode == 0, said.stderr
    if old == head():
        assert f"Schema revision {old}, the newest" in said.stdout, said.stdout
    else:
        assert f"Schema revision {old}; nimmt" in said.stdout, said.stdout
        assert f"migrates it to {head()} when nimmt serve starts" in said.stdout
        # The steps, each with what it does: from the one after the database's to the head.
        assert f"{int(old) + 1:04d}: " in said.stdout and f"{head()}: " in said.stdout
        # The operator's other commands leave the migration to the server.
        refused = admin(restored, "show", "Ana")
        assert refused.returncode == 1
        assert "Start the server of this version first" in refused.stderr, refused.stderr
        assert admin(restored, "schema").stdout == said.stdout  # nothing changed

    server = Serving(restored, tmp_path / "serve")
    try:
        url, serving = await server.started()
        assert "1 tables resumed" in serving, serving
        if old != head():
            assert f"schema migrated from {old} to {head()}" in serving, serving
        clients = {name: await Client.connect(url, token=token)
                   for name, token in facts["tokens"].items()}
        try:
            await keeps_the_players(url, facts, clients)
            await plays_the_game_on(url, facts, clients)
            if "recovery_codes" in facts:
                # Last: a new password by a recovery code ends Ana's other sessions.
                recovered = await Client.connect(
                    url, name="Ana", recovery_code=facts["recovery_codes"][0],
                    password="ana-after-the-upgrade")
                assert recovered.name == "Ana"
                await recovered.close()
        finally:
            for client in clients.values():
                await client.close()
    finally:
        server.stop()
    after = admin(restored, "schema")
    assert after.returncode == 0 and f"Schema revision {head()}, the newest" in after.stdout
    if "password" in facts:
        # The report waits for the operator still.
        reports = admin(restored, "reports")
        assert "a report the operator has not resolved" in reports.stdout, reports


async def keeps_the_players(url: str, facts: dict[str, Any],
                            clients: dict[str, Client]) -> None:
    """Names by their tokens, ratings and histories; the password, recovery codes, friends,
    blocks and messages where the version had them."""
    for name, client in clients.items():
        assert client.name == name
        page = await api(f"{url}/api/players/{name}")
        before = facts["pages"][name]
        assert page["rating"] == before["rating"]
        assert page["rated_games"] == before["rated_games"]
        finished = [g for g in before["games"] if g["finished"]]
        assert [g for g in page["games"] if g["finished"]] == finished
    assert facts["pages"]["Ana"]["rated_games"] == 2
    if "password" not in facts:
        # A guest of 0.1.0 keeps their name with a password now.
        assert len(await clients["Bo"].set_password("bo-upgraded-1")) > 0
        again = await Client.connect(url, name="Bo", password="bo-upgraded-1")
        assert again.name == "Bo" and again.account
        await again.close()
        return
    signed_in = await Client.connect(url, name="Ana", password=facts["password"])
    assert signed_in.account and signed_in.name == "Ana"
    await signed_in.close()
    friends = await clients["Ana"].friend_list()
    assert [f.name for f in friends.friends] == ["Bo"]
    assert (await clients["Bo"].friend_list()).blocked == ["Cy"]


async def plays_the_game_on(url: str, facts: dict[str, Any], clients: dict[str, Client]) -> None:
    """The table in play resumes where it stopped (three cards played) and plays to its end;
    its record holds the cards played before the upgrade, and the rating counts it."""
    code = facts["in_play"]["table"]
    ana, cy = clients["Ana"], clients["Cy"]
    state = await ana.join(code)
    assert state.view is not None
    assert (state.view.round, state.view.turn) == (1, 4)
    assert len(state.view.hand) == 7
    await cy.join(code)
    await asyncio.gather(play_to_the_end(ana, random.Random(1)),
                         play_to_the_end(cy, random.Random(2)))
    games = (await api(f"{url}/api/tables/{code}/games"))["games"]
    (stored,) = [g for g in games if g["finished"]]
    game = await api(f"{url}/api/games/{stored['id']}")
    record = record_from_dict(game["record"])
    assert record.result is not None and len(record.rounds) == 2
    seats = {p["name"]: p["seat"] for p in game["players"]}
    first = [decision_from_record(d) for d in record.rounds[0].decisions]
    for name in ("Ana", "Cy"):
        cards = [d.card for d in first if isinstance(d, PlayCard) and d.player == seats[name]]
        assert cards[:3] == facts["in_play"]["played"][name]
    page = await api(f"{url}/api/players/Ana")
    assert page["rated_games"] == facts["pages"]["Ana"]["rated_games"] + 1


async def test_a_database_newer_than_this_nimmt_is_refused(tmp_path: Path) -> None:
    """A rollback without the backup: every command refuses the database a newer nimmt
    migrated, says what to do, and leaves it as it was."""
    data = tmp_path / "data"
    data.mkdir()
    db = data / "nimmt.db"
    shutil.copyfile(FIXTURES / "main-b15f902.sqlite", db)
    with sqlite3.connect(db) as conn:
        conn.execute("UPDATE alembic_version SET version_num = '0999'")
    conn.close()
    before = db.read_bytes()
    url = f"sqlite+aiosqlite:///{db}"
    for args in (["schema"], ["show", "Ana"], ["mute", "Cy"]):
        done = admin(url, *args)
        assert done.returncode == 1, (args, done.stdout, done.stderr)
        assert "schema revision 0999, which nimmt" in done.stderr
        assert "restore the backup made before the upgrade" in done.stderr
    done = subprocess.run([NIMMT, "serve", "--port", "0", "--data-dir", str(data)],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 1 and "Cannot serve: The database is at schema revision 0999" \
        in done.stderr, done.stderr
    assert "Traceback" not in done.stderr
    assert db.read_bytes() == before
