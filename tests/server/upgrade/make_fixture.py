"""Makes an upgrade fixture: a room's database as an earlier nimmt left it.

    .venv/bin/python tests/server/upgrade/make_fixture.py COMMIT NAME

builds COMMIT's nimmt (``git archive``, so it needs a clone with that commit: the
fixtures are committed, and the tests never run this) into a fresh virtual
environment at that commit's ``locks/serve.txt``, and serves it twice, on a
SQLite file and on a scratch PostgreSQL database (127.0.0.1:5432, user
postgres). Each time this same file, run by *that* interpreter with
``--drive``, plays through that version's own Python client what a room holds:

- players (guests with tokens; with accounts, Ana keeps her name with a password
  and recovery codes), two finished rated games with a bot;
- where the version has them, friends (Ana and Bo follow each other), a block
  (Bo blocks Cy), a lobby chat line, a private message and a report;
- a game left in play: Ana and Cy have played three cards each at a table with a
  bot when the server is stopped as systemd stops it (SIGTERM: it drains).

The fixtures here were made so (each ``NAME.json`` keeps its commit's full hash)::

    .venv/bin/python tests/server/upgrade/make_fixture.py 18e5843 release-0.1.0
    .venv/bin/python tests/server/upgrade/make_fixture.py b15f902 main-b15f902

``18e5843`` is the commit that named the release 0.1.0 in CHANGELOG.md (the only
release so far; schema revision 0002); ``b15f902`` the merge that brought accounts
and friends to main (0006, still the newest). A migration added later makes the
second an upgrade too; a release made later deserves a fixture of its own.

Then it writes, beside this file: ``NAME.sqlite`` (the SQLite database, one
self-contained file), ``NAME.pg.sql`` (``pg_dump`` of the PostgreSQL one, plain
SQL) and ``NAME.json`` (per backend: the tokens, the password, the table in play
and the cards played at it, and what the players' pages said). The upgrade test
(``tests/server/test_server_upgrade.py``) starts this version's server on them.
"""

from __future__ import annotations

import asyncio
import json
import os
import random
import re
import shutil
import signal
import sqlite3
import subprocess
import sys
import tempfile
import urllib.request
import uuid
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[2]
PG = "postgresql://postgres@127.0.0.1:5432"
#: Limits lifted (the driver makes many names and moves from one address) and bots quick.
SERVER_ENV = {
    "NIMMT_RATE": "10000", "NIMMT_BURST": "10000", "NIMMT_PLAYER_RATE": "10000",
    "NIMMT_PLAYER_BURST": "10000", "NIMMT_ADDRESS_RATE": "10000",
    "NIMMT_ADDRESS_BURST": "10000", "NIMMT_NAMES_PER_MINUTE": "1000",
    "NIMMT_BOT_SECONDS": "0.05", "NIMMT_REVEAL_PACE": "0", "NIMMT_DISCONNECT_GRACE": "600",
}


# -- the driver: run by the earlier version's interpreter ------------------------------------


async def _play(client: Any, rng: random.Random, cards: int | None = None) -> list[int]:
    """Answer ``client``'s prompts: until the game is over, or until ``cards`` cards are
    played and the next card is asked. The cards played, in order."""
    answered: set[str] = set()
    played: list[int] = []
    loop = asyncio.get_running_loop()
    end = loop.time() + 300
    while not client.game_over:
        prompt = client.prompt
        if prompt is not None and prompt.key not in answered:
            if prompt.kind == "card" and cards is not None and len(played) >= cards:
                return played
            answered.add(prompt.key)
            value = rng.choice(prompt.options)
            kind = {"card": "play_card", "row": "take_row", "draft": "draft_card"}[prompt.kind]
            await client.act(kind, **{"row" if prompt.kind == "row" else "card": value})
            if prompt.kind == "card":
                played.append(value)
            continue
        client.inbox.append(await client.recv(max(0.001, end - loop.time())))
    return played


async def _get(url: str) -> Any:
    def fetch() -> Any:
        with urllib.request.urlopen(url, timeout=30) as resp:
            return json.loads(resp.read())

    return await asyncio.to_thread(fetch)


async def drive(url: str) -> dict[str, Any]:
    """Play the room's life on the server at ``url``; what the test needs of it."""
    from nimmt.client import Client

    rng = random.Random(36)
    ana = await Client.connect(url, name="Ana")
    bo = await Client.connect(url, name="Bo")
    cy = await Client.connect(url, name="Cy")
    out: dict[str, Any] = {"tokens": {c.name: c.token for c in (ana, bo, cy)}}
    one_round = {"preset": "classic", "players": 3, "end": "rounds", "rounds": 1}
    for _ in range(2):
        state = await ana.create_table(rules=one_round, rated=True)
        await bo.join(state.table.code)
        await bo.sit()
        await ana.add_bot("easy")
        await ana.start()
        ana.game_over = bo.game_over = False  # the flag of the game before
        await asyncio.gather(_play(ana, rng), _play(bo, rng))
        await ana.leave()
        await bo.leave()
    if hasattr(Client, "set_password"):
        out["password"] = "upgrade-fixture-36"
        out["recovery_codes"] = await ana.set_password(out["password"])
        await ana.follow("Bo")
        await bo.follow("Ana")
        await bo.block("Cy")
        await ana.act("lobby_chat", text="Welcome to the room")
        await ana.act("private_message", name="Bo", text="A rematch tonight?")
        await cy.report("Bo", "a report the operator has not resolved")
    # The game in play: three cards each, then the server stops under the players.
    two_rounds = {"preset": "classic", "players": 3, "end": "rounds", "rounds": 2}
    state = await ana.create_table(rules=two_rounds, rated=True)
    code = state.table.code
    await cy.join(code)
    await cy.sit()
    await ana.add_bot("easy")
    await ana.start()
    ana.game_over = cy.game_over = False
    played = await asyncio.gather(_play(ana, rng, cards=3), _play(cy, rng, cards=3))
    out["in_play"] = {"table": code, "played": {"Ana": played[0], "Cy": played[1]}}
    out["pages"] = {n: await _get(f"{url}/api/players/{n}") for n in ("Ana", "Bo", "Cy")}
    out["version"] = (await _get(f"{url}/api")).get("version")
    return out


# -- the maker: run by this checkout's interpreter -------------------------------------------


def _run(*args: str, **kwargs: Any) -> subprocess.CompletedProcess[str]:
    return subprocess.run(args, check=True, text=True, **kwargs)


def _install(commit: str, work: Path) -> Path:
    """COMMIT's nimmt with the server extra in a new virtual environment; its bin folder."""
    src = work / "src"
    src.mkdir()
    archive = subprocess.run(["git", "-C", str(ROOT), "archive", commit], check=True,
                             capture_output=True).stdout
    subprocess.run(["tar", "-x", "-C", str(src)], input=archive, check=True)
    _run(sys.executable, "-m", "venv", str(work / "venv"))
    bin_ = work / "venv" / "bin"
    # Pure Python (no mypyc build): the same rules, and what it writes is the same.
    _run(str(bin_ / "python"), "-m", "pip", "install", "-q", "-c",
         str(src / "locks" / "serve.txt"), f"{src}[server]",
         env={**os.environ, "NIMMT_PURE": "1"})
    return bin_


def _serve_and_drive(bin_: Path, db: str, data: Path) -> dict[str, Any]:
    env = {**os.environ, **SERVER_ENV}
    server = subprocess.Popen(
        [str(bin_ / "nimmt"), "serve", "--port", "0", "--db", db, "--data-dir", str(data)],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env)
    try:
        assert server.stdout is not None
        line = server.stdout.readline()
        found = re.search(r"open (http://[\d.:]+)/", line)
        assert found, line + server.stdout.read()
        driven = subprocess.run(
            [str(bin_ / "python"), __file__, "--drive", found.group(1)],
            capture_output=True, text=True, timeout=600, cwd=data)
        assert driven.returncode == 0, driven.stdout + driven.stderr
        facts: dict[str, Any] = json.loads(driven.stdout.strip().splitlines()[-1])
    finally:
        server.send_signal(signal.SIGTERM)  # as systemd stops it: the drain
        server.wait(60)
    return facts


def make(commit: str, name: str) -> None:
    revision = subprocess.run(["git", "-C", str(ROOT), "rev-parse", commit], check=True,
                              capture_output=True, text=True).stdout.strip()
    manifest: dict[str, Any] = {"commit": revision, "made_by": "make_fixture.py"}
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        bin_ = _install(revision, work)
        # SQLite: the file, then one self-contained copy of it (no -wal beside it).
        data = work / "sqlite"
        data.mkdir()
        db_file = data / "nimmt.db"
        manifest["sqlite"] = _serve_and_drive(bin_, f"sqlite+aiosqlite:///{db_file}", data)
        target = HERE / f"{name}.sqlite"
        target.unlink(missing_ok=True)
        with sqlite3.connect(db_file) as conn:
            conn.execute("VACUUM INTO ?", (str(target),))
        # PostgreSQL: a scratch database, dumped as plain SQL and dropped.
        database = f"nimmt_fixture_{uuid.uuid4().hex[:8]}"
        _run("psql", PG + "/postgres", "-qc", f'CREATE DATABASE "{database}"')
        try:
            data = work / "pg"
            data.mkdir()
            manifest["postgresql"] = _serve_and_drive(
                bin_, f"postgresql+psycopg://postgres@127.0.0.1:5432/{database}", data)
            with open(HERE / f"{name}.pg.sql", "w") as dump:
                _run("pg_dump", "--format=plain", "--no-owner", "--no-privileges",
                     f"{PG}/{database}", stdout=dump)
        finally:
            _run("psql", PG + "/postgres", "-qc",
                 f'DROP DATABASE IF EXISTS "{database}" WITH (FORCE)')
    (HERE / f"{name}.json").write_text(json.dumps(manifest, indent=1) + "\n")
    print(f"wrote {name}.sqlite, {name}.pg.sql and {name}.json in {HERE}")


def main() -> None:
    if len(sys.argv) == 3 and sys.argv[1] == "--drive":
        print(json.dumps(asyncio.run(drive(sys.argv[2]))))
        return
    if len(sys.argv) != 3:
        raise SystemExit("usage: make_fixture.py COMMIT NAME")
    if shutil.which("pg_dump") is None:
        raise SystemExit("make_fixture.py needs PostgreSQL's pg_dump and psql")
    make(sys.argv[1], sys.argv[2])


if __name__ == "__main__":
    main()
