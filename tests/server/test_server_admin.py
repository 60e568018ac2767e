"""``nimmt admin`` beside a running server: each action reaches open connections at once
(within the server's signal poll) and is in the audit log.

The command runs as the operator runs it, in its own process, on the server's
database (SQLite and PostgreSQL); the server is a real one over loopback.
"""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
import sqlalchemy as sa
import websockets
from server_helpers import api, close_all, eventually

from conftest import make_settings
from nimmt.client import Client, ServerError
from nimmt.server.run import running_server
from nimmt.server.store.ratings import INITIAL
from nimmt.wire import Error, Events, NoticeItem, Pong

pytestmark = [pytest.mark.asyncio, pytest.mark.timeout(400)]

ROOT = Path(__file__).resolve().parents[2]
#: How soon the server reads an operator's action, in these tests.
POLL = 0.5


async def admin(db_url: str, *args: str, by: str = "ops") -> subprocess.CompletedProcess[str]:
    """``nimmt admin --db URL ARGS`` in its own process."""
    env = dict(os.environ, PYTHONPATH=str(ROOT / "src"))
    return await asyncio.to_thread(
        subprocess.run, [sys.executable, "-m", "nimmt", "admin", "--db", db_url, "--by", by,
                         *args], capture_output=True, text=True, env=env, timeout=120)


async def connect(url: str, host: str = "127.0.0.1", **kw: object) -> Client:
    return await Client.connect(url, local_addr=(host, 0), **kw)  # type: ignore[arg-type]


def last_action_at(db_url: str) -> float:
    """When the newest operator action was written (its audit row's time)."""
    engine = sa.create_engine(db_url.replace("+aiosqlite", ""))
    try:
        with engine.connect() as conn:
            return float(conn.execute(sa.text("select max(at) from audit")).scalar_one())
    finally:
        engine.dispose()


async def closed_with(client: Client, code: str, timeout: float = 30) -> tuple[float, int]:
    """Wait for the error ``code`` and the close after it: when the error came
    (``time.time()``) and the close code."""
    loop = asyncio.get_running_loop()
    end = loop.time() + timeout
    when = 0.0
    while True:
        try:
            msg = await client.recv(max(0.01, end - loop.time()))
        except websockets.ConnectionClosed as exc:
            assert when, f"closed without {code}"
            return when, exc.rcvd.code if exc.rcvd is not None else 0
        if isinstance(msg, Error) and msg.code == code:
            when = time.time()


async def test_a_ban_closes_open_connections_at_once(db_url: str, tmp_path: Path) -> None:
    settings = make_settings(db_url, tmp_path, signal_poll=POLL, argon2_memory=8192,
                             argon2_time=1)
    async with running_server(settings) as url:
        ana = await connect(url, name="Ana")
        also = await connect(url, token=ana.token)  # a second connection of hers
        bob = await connect(url, "127.0.0.2", name="Bob")
        cleo = await connect(url, "127.0.0.3", name="Cleo")

        done = await admin(db_url, "ban", "ana", "--for", "1h", "--reason", "abuse")
        assert done.returncode == 0, done.stderr
        assert done.stdout.startswith("Ana is banned until ")
        issued = last_action_at(db_url)
        for c in (ana, also):
            when, close = await closed_with(c, "banned")
            print(f"banned connection closed {when - issued:.2f} s after the ban was written")
            assert when - issued < POLL + 5.0 and close == 1008
        refusal = await asyncio.gather(connect(url, token=ana.token), return_exceptions=True)
        assert isinstance(refusal[0], ServerError) and refusal[0].code == "banned"
        assert "abuse" in refusal[0].error.message
        assert isinstance(await bob.request({"type": "ping"}, want="pong"), Pong)

        # By address: every connection from it, whoever they are, and new ones.
        done = await admin(db_url, "ban", "--address", "127.0.0.2")
        assert done.returncode == 0 and "127.0.0.2/32 is banned until lifted" in done.stdout
        await closed_with(bob, "banned")
        with pytest.raises(ServerError) as err:
            await connect(url, "127.0.0.2", name="Newcomer")
        assert err.value.code == "banned"
        assert isinstance(await cleo.request({"type": "ping"}, want="pong"), Pong)

        done = await admin(db_url, "sanctions")
        lines = done.stdout.splitlines()
        assert len(lines) == 2 and lines[0].startswith("Ban 1 on Ana") and "127.0.0.2" in lines[1]
        # Lifted: both come back.
        assert (await admin(db_url, "unban", "Ana")).returncode == 0
        assert (await admin(db_url, "unban", "--address", "127.0.0.2")).returncode == 0

        async def back() -> bool:
            try:
                c = await connect(url, "127.0.0.2", token=ana.token)
            except ServerError:
                return False
            await c.close()
            return True

        await eventually(back, "the lifted bans read by the server", 30)
        await cleo.close()


async def test_mute_rename_close_reset_and_the_log(db_url: str, tmp_path: Path) -> None:
    settings = make_settings(db_url, tmp_path, signal_poll=POLL)
    async with running_server(settings) as url:
        ana = await connect(url, name="Ana")
        bob = await connect(url, "127.0.0.2", name="Bob")
        state = await ana.create_table(rules={"players": 3})
        code = state.table.code
        await bob.join(code)
        await bob.sit()

        assert (await admin(db_url, "mute", "Bob", "--for", "30m")).returncode == 0

        async def muted() -> bool:
            try:
                await bob.chat("hello")
            except ServerError as exc:
                assert exc.code == "muted"
                return True
            return False

        await eventually(muted, "the mute read by the server", 30)
        await ana.chat("still allowed")
        assert (await admin(db_url, "unmute", "Bob")).returncode == 0

        async def unmuted() -> bool:
            try:
                await bob.chat("back")
            except ServerError:
                return False
            return True

        await eventually(unmuted, "the lifted mute read by the server", 30)

        # A rename: their connections reconnect (1012) and are welcomed under the new name.
        done = await admin(db_url, "rename", "bob", "Robert", "--reason", "asked for it")
        assert done.stdout.strip() == "Bob is now named Robert."
        with pytest.raises(websockets.ConnectionClosed) as closed:
            while True:
                await bob.recv(30)
        assert closed.value.rcvd is not None and closed.value.rcvd.code == 1012
        robert = await connect(url, "127.0.0.2", token=bob.token)
        assert robert.name == "Robert"
        assert (await admin(db_url, "rename", "Robert", "ANA")).returncode == 1  # taken

        # Closing a table: everyone at it is told; the command waits for it.
        done = await admin(db_url, "close-table", code.lower())
        assert done.stdout.strip() == f"Table {code} is closed.", done.stdout + done.stderr

        def told(m: object) -> bool:
            return isinstance(m, Events) and any(
                isinstance(i, NoticeItem) and i.notice == "closed" for i in m.items)

        await ana.expect(told, 30)
        with pytest.raises(ServerError) as err:
            await robert.join(code)
        assert err.value.code == "no_table"

        assert (await admin(db_url, "reset-rating", "Ana")).returncode == 0
        info = await api(f"{url}/api/players/Ana")
        assert (info["rating"]["mu"], info["rating"]["sigma"]) == INITIAL
        done = await admin(db_url, "reset-rating", "Nobody")
        assert done.returncode == 1 and "no player is named 'Nobody'" in done.stderr

        log = (await admin(db_url, "log")).stdout.splitlines()
        actions = [line.split(" did ", 1)[1].split(" on ", 1)[0] for line in log]
        assert actions == ["mute", "unmute", "rename", "close_table", "reset_rating"]
        assert all(": ops did " in line for line in log)
        assert "asked for it" in log[2] and "Robert" in log[2]
        show = (await admin(db_url, "show", "robert")).stdout
        assert show.startswith("Robert (player 2) is a guest")
        await close_all([ana, robert])


async def test_operator_sign_out_and_recovery_codes(db_url: str, tmp_path: Path) -> None:
    settings = make_settings(db_url, tmp_path, signal_poll=POLL, argon2_memory=8192,
                             argon2_time=1)
    async with running_server(settings) as url:
        ana = await connect(url, name="Ana")
        await ana.set_password("a long passphrase")
        guest = await connect(url, name="Bob")
        done = await admin(db_url, "sign-out", "Bob")
        assert done.returncode == 1 and "guest" in done.stderr
        done = await admin(db_url, "sign-out", "Ana")
        assert done.stdout.strip() == "Ana is signed out of 1 sessions."
        await closed_with(ana, "signed_out")
        # The operator hands new codes over by a channel of their own.
        done = await admin(db_url, "recovery-codes", "Ana", "--reason", "checked her id")
        codes = done.stdout.splitlines()[1:]
        assert len(codes) == 8
        back = await connect(url, name="Ana", recovery_code=codes[0], password="new passphrase")
        assert back.name == "Ana"
        await close_all([back, guest])
