"""Three real ``nimmt serve --redis`` processes over one PostgreSQL store serve one table.

Each test has its own PostgreSQL schema and its own prefix of Redis keys, so
runs (and other engineers' runs on the same Redis) never meet.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import random
import signal
import subprocess
import time
import uuid
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import psycopg
import pytest
import pytest_asyncio
import redis
import sqlalchemy as sa
from server_helpers import LIFTED_LIMITS, NIMMT, api, play_until_key, start_server

from nimmt.client import Client
from nimmt.server.protocol import TableState
from nimmt.server.store import LogEntry, StaleOwner, Store, fence_all, tables

pytestmark = [pytest.mark.asyncio, pytest.mark.timeout(300)]

REDIS = os.environ.get("NIMMT_TEST_REDIS", "redis://127.0.0.1:6379/0")


@pytest.fixture
def cluster_env(pg_url: str, tmp_path: Path) -> Iterator[dict[str, str]]:
    """The environment of this test's server processes; its Redis keys go at the end."""
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


@contextlib.asynccontextmanager
async def processes(env: dict[str, str], n: int = 3
                    ) -> AsyncIterator[list[tuple[subprocess.Popen[str], str]]]:
    """``n`` server processes of one cluster, stopped at the end (or already killed)."""
    procs: list[tuple[subprocess.Popen[str], str]] = []
    try:
        for _ in range(n):
            procs.append(await start_server([], env))
        yield procs
    finally:
        for proc, _ in procs:
            if proc.poll() is None:
                proc.send_signal(signal.SIGINT)
        for proc, _ in procs:
            try:
                proc.wait(20)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()


@pytest_asyncio.fixture
async def three(cluster_env: dict[str, str]) -> AsyncIterator[list[tuple[subprocess.Popen[str],
                                                                          str]]]:
    """Three server processes of one cluster."""
    async with processes(cluster_env) as procs:
        yield procs


async def seat_four(urls: list[str], rules: dict[str, Any]) -> tuple[list[Client], str]:
    """Ana on the first process hosts; Bob and Dan on the second, Cleo on the third; a bot
    in the fifth seat; the game starts."""
    homes = [urls[0], urls[1], urls[2], urls[1]]
    clients = [await Client.connect(u, name=n)
               for u, n in zip(homes, ["Ana", "Bob", "Cleo", "Dan"], strict=True)]
    code = (await clients[0].create_table(rules=rules)).table.code
    for c in clients[1:]:
        await c.join(code)
        await c.sit()
    await clients[0].add_bot("easy")
    await clients[0].start()
    return clients, code


async def test_four_players_on_three_processes_play_a_game_with_a_bot(
        three: list[tuple[subprocess.Popen[str], str]]) -> None:
    urls = [u for _, u in three]
    clients = [await Client.connect(u, name=f"Lobby{i}") for i, u in enumerate(urls)]
    code = (await clients[0].create_table(rules={"preset": "classic", "players": 3},
                                          name="Seen everywhere")).table.code
    # The lobby is the same from every process (each owner publishes it every heartbeat).
    deadline = time.monotonic() + 60
    while True:
        seen = [[t["code"] for t in (await api(f"{u}/api/tables"))["tables"]] for u in urls]
        if all(s == [code] for s in seen) or time.monotonic() > deadline:
            break
        await asyncio.sleep(0.2)
    assert seen == [[code]] * 3
    for c in clients:
        await c.close()

    players, code = await seat_four(urls, {"preset": "classic", "players": 5, "end": "rounds",
                                           "rounds": 1})
    await asyncio.gather(*(c.play_until_over(random.Random(i), 120)
                           for i, c in enumerate(players)))
    # Every seat saw the same end, whichever process it was connected through.
    totals = set()
    for c in players:
        assert c.game_over and c.state is not None
        st = await c.join(code)
        assert st.view is not None
        totals.add((st.view.scores, st.view.penalties))
    assert len(totals) == 1
    # Every process answers for the table, the owner from memory, the others from the log.
    infos = [await api(f"{u}/api/tables/{code}") for u in urls]
    assert [[s["name"] for s in i["seats"]] for i in infos] == [
        ["Ana", "Bob", "Cleo", "Dan", infos[0]["seats"][4]["name"]]] * 3
    assert {i["status"] for i in infos} == {"over"}
    record = await api(f"{urls[2]}/api/players/Cleo")
    assert [g["finished"] for g in record["games"]] == [True]
    for c in players:
        await c.close()


async def wait_closed(client: Client, timeout: float) -> None:
    """Read until the server closes the connection."""
    end = time.monotonic() + timeout
    with contextlib.suppress(Exception):
        while time.monotonic() < end:
            await client.recv(max(0.01, end - time.monotonic()))
    assert time.monotonic() < end, "the connection stayed open"


async def test_owner_killed_mid_turn_fails_over_with_every_acknowledged_decision(
        three: list[tuple[subprocess.Popen[str], str]], pg_url: str) -> None:
    urls = [u for _, u in three]
    players, code = await seat_four(urls, {"preset": "classic", "players": 5})
    await asyncio.gather(*(play_until_key(c, "1.1.3.card", random.Random(i))
                           for i, c in enumerate(players)))
    # Mid-turn: Bob (second process) and Cleo (third) choose and are acknowledged.
    acked: dict[int, int] = {}
    for i in (1, 2):
        prompt = players[i].prompt
        assert prompt is not None
        await players[i].play_card(prompt.options[-1])
        acked[i] = prompt.options[-1]
    before = await players[3].join(code)
    owner, _ = three[0]
    killed = time.monotonic()
    os.kill(owner.pid, signal.SIGKILL)
    owner.wait(10)
    # The processes left take the table over and close the connections that were at it,
    # which reconnect (Ana, whose process died, through the second).
    await asyncio.gather(*(wait_closed(c, 60) for c in players[1:]))
    homes = [urls[1], urls[1], urls[2], urls[1]]
    again: list[Client] = []
    for c, home in zip(players, homes, strict=True):
        await c.close()
        assert c.token is not None
        fresh = await Client.connect(home, token=c.token)
        st = await fresh.join(code, last_seq=c.seq)
        assert isinstance(st, TableState)
        again.append(fresh)
    resumed = time.monotonic() - killed
    # Far above the lease (10 s), for a busy machine: the table moved once its lease ran out.
    assert resumed < 60, f"the game resumed {resumed:.1f} s after its owner died"
    for i, card in acked.items():
        st = again[i].state
        assert st is not None and st.view is not None and st.view.my_choice == card
    # Dan had not chosen: the turn is where it was.
    st = again[3].state
    assert st is not None and st.view is not None and before.view is not None
    assert st.view.rows == before.view.rows and st.view.my_choice is None
    # The new owner holds a newer fencing token than the dead one.
    with psycopg.connect(pg_url.replace("postgresql+psycopg", "postgresql")) as conn:
        assert conn.execute("SELECT fence FROM tables").fetchone() == (2,)
    await asyncio.gather(*(c.play_until_over(random.Random(10 + i), 120)
                           for i, c in enumerate(again)))
    for c in again:
        assert c.game_over
        await c.close()


async def test_the_players_of_a_dead_process_are_played_for(
        cluster_env: dict[str, str]) -> None:
    # Bob and Dan are connected through the second process, which dies: the owner sees
    # them gone (the disconnect grace starts) and the default player takes their seats,
    # so Ana and Cleo finish the game. Without that, the table would wait for them forever.
    async with processes({**cluster_env, "NIMMT_DISCONNECT_GRACE": "1"}) as three:
        urls = [u for _, u in three]
        players, _code = await seat_four(urls, {"preset": "classic", "players": 5,
                                                "end": "rounds", "rounds": 1})
        await asyncio.gather(*(play_until_key(c, "1.1.2.card", random.Random(i))
                               for i, c in enumerate(players)))
        edge, _ = three[1]
        os.kill(edge.pid, signal.SIGKILL)
        edge.wait(10)
        left = [players[0], players[2]]
        await asyncio.gather(*(c.play_until_over(random.Random(i), 60)
                               for i, c in enumerate(left)))
        assert all(c.game_over for c in left)
        for c in players:
            await c.close()


async def test_a_stale_owners_write_is_refused(pg_url: str) -> None:
    store = Store(pg_url)
    await store.open()
    try:
        async def new_table(c: Any) -> int:
            res = await c.execute(tables.insert().values(
                code=uuid.uuid4().hex[:8], name="t", host_id=1, rules=json.dumps({}),
                settings="{}", status="playing", created=0.0))
            return int(res.inserted_primary_key[0])

        tid: int = await store.run(new_table)
        other: int = await store.run(new_table)
        chat = {"seat": 0, "text": "hi"}
        await store.append_all([LogEntry(tid, 1, "chat", chat)], token=1)
        # A new owner (token 2) writes; the old one (token 1) may not write again, alone or
        # in a group commit with other tables' writes, and nothing of its write is kept.
        await store.append_all([LogEntry(tid, 2, "chat", chat)], token=2)
        with pytest.raises(StaleOwner):
            await store.append_all([LogEntry(tid, 3, "chat", chat)], token=1)
        both = await asyncio.gather(
            store.append_all([LogEntry(tid, 3, "chat", chat)], token=1),
            store.append_all([LogEntry(tid, 4, "chat", chat)], token=1), return_exceptions=True)
        assert [type(x) for x in both] == [StaleOwner, StaleOwner]
        # In one group commit with another table's owner, the stale write alone is refused.
        mixed = await asyncio.gather(
            store.append_all([LogEntry(other, 1, "chat", chat)], token=5),
            store.append_all([LogEntry(tid, 3, "chat", chat)], token=1), return_exceptions=True)
        assert [type(x) for x in mixed] == [type(None), StaleOwner]
        assert [e.n for e in await store.table_entries(other)] == [1]
        # The fencing of many tables in one statement refuses the stale one by its id.
        await store.run(lambda c: fence_all(c, {tid: 2, other: 5}))
        with pytest.raises(StaleOwner) as refused:
            await store.run(lambda c: fence_all(c, {tid: 2, other: 4}))
        assert (refused.value.table_id, refused.value.token) == (other, 4)
        await store.append_all([LogEntry(tid, 3, "chat", chat)], token=2)
        assert [e.n for e in await store.table_entries(tid)] == [1, 2, 3]
        fence = (await store.read(lambda c: c.execute(
            sa.select(tables.c.fence).where(tables.c.id == tid)))).scalar()
        assert fence == 2
    finally:
        await store.close()


async def test_redis_needs_postgresql_and_workers_need_redis(tmp_path: Path,
                                                             pg_url: str) -> None:
    env = {**os.environ, "NIMMT_DATA_DIR": str(tmp_path)}

    def serve(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([NIMMT, "serve", "--port", "0", *args], env=env,
                              capture_output=True, text=True, timeout=120)

    out = await asyncio.to_thread(serve, "--redis", REDIS)
    assert out.returncode == 2 and "needs PostgreSQL" in out.stderr
    out = await asyncio.to_thread(serve, "--workers", "2")
    assert out.returncode == 2 and "needs --redis" in out.stderr
    # A Redis that does not answer is said in one sentence, not a traceback.
    out = await asyncio.to_thread(serve, "--db", pg_url, "--redis", "redis://127.0.0.1:1/0")
    assert out.returncode == 1 and "Cannot use Redis at redis://127.0.0.1:1/0" in out.stderr
    assert "Traceback" not in out.stderr



def _server_children(pid: int) -> list[int]:
    """The server processes ``nimmt serve --workers`` started (not its helpers)."""
    kids = Path(f"/proc/{pid}/task/{pid}/children").read_text().split()
    return [int(k) for k in kids
            if "resource_tracker" not in Path(f"/proc/{k}/cmdline").read_bytes().decode()]


async def test_workers_share_one_port_and_replace_a_dead_one(
        cluster_env: dict[str, str]) -> None:
    proc, url = await start_server(["--workers", "2"], cluster_env)
    try:
        workers = _server_children(proc.pid)
        assert len(workers) == 2
        # Enough connections that the kernel hands some to each process; one table of them
        # plays through, whichever processes its seats landed on.
        clients = [await Client.connect(url, name=f"W{i}") for i in range(4)]
        code = (await clients[0].create_table(rules={"preset": "classic", "players": 4,
                                                     "end": "rounds", "rounds": 1})).table.code
        for c in clients[1:]:
            await c.join(code)
            await c.sit()
        await clients[0].start()
        await asyncio.gather(*(c.play_until_over(random.Random(i), 120)
                               for i, c in enumerate(clients)))
        for c in clients:
            await c.close()
        os.kill(workers[0], signal.SIGKILL)
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            now = _server_children(proc.pid)
            if len(now) == 2 and workers[0] not in now:
                break
            await asyncio.sleep(0.2)
        assert len(now) == 2 and workers[0] not in now
    finally:
        proc.send_signal(signal.SIGINT)
        try:
            proc.wait(30)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
    assert proc.returncode == 0


async def test_processes_starting_at_once_migrate_one_at_a_time(pg_url: str) -> None:
    # Every process of --workers (or of many machines) applies the migrations as it starts;
    # on a new database they must not all create the schema at once.
    stores = [Store(pg_url) for _ in range(4)]
    try:
        opened = await asyncio.gather(*(s.open() for s in stores), return_exceptions=True)
        assert opened == [None] * 4
    finally:
        for s in stores:
            await s.close()
