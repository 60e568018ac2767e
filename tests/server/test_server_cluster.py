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
import shutil
import signal
import socket
import subprocess
import time
import urllib.request
import uuid
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import psycopg
import pytest
import pytest_asyncio
import redis
import redis.asyncio as aioredis
import sqlalchemy as sa
from server_helpers import NIMMT, api, eventually, play_until_key, start_server

from conftest import make_settings
from nimmt.client import Client
from nimmt.server.cluster.nodewire import Batch, Sealer, parse_body
from nimmt.server.run import running_hub
from nimmt.server.store import LogEntry, StaleOwner, Store
from nimmt.server.store.db import fence_all
from nimmt.server.store.schema import tables
from nimmt.wire import TableState

pytestmark = [pytest.mark.asyncio, pytest.mark.timeout(300)]

REDIS = os.environ.get("NIMMT_TEST_REDIS", "redis://127.0.0.1:6379/0")


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


# -- reads of a table at a process that does not own it -------------------------------------

CLOCK_TICKS = os.sysconf("SC_CLK_TCK")


def cpu_seconds(pid: int) -> float:
    """User + system CPU time process ``pid`` has used (every thread), from /proc."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / CLOCK_TICKS


def get_text(url: str, headers: dict[str, str] | None = None) -> Any:
    req = urllib.request.Request(url, headers=headers or {})
    with urllib.request.urlopen(req, timeout=60) as resp:
        return json.loads(resp.read())


async def test_reads_of_a_long_game_at_another_process_cost_little_and_are_the_owners(
        cluster_env: dict[str, str], pg_url: str) -> None:
    # A process that does not own a table once rebuilt it from its whole log for every
    # HTTP read (3 s of CPU each on a long game). Now it asks the owner through Redis.
    async with processes({**cluster_env, "NIMMT_DISCONNECT_GRACE": "0"}, 2) as two:
        (owner, owner_url), (other, other_url) = two
        host = await Client.connect(owner_url, name="Host")
        code = (await host.create_table(rules={"preset": "classic", "players": 10,
                                               "end": "rounds", "rounds": 60})).table.code
        for _ in range(9):
            await host.add_bot("random")
        await host.start()
        token = host.token
        assert token is not None
        # The host goes: the default player takes the seat and the bots play 60 rounds.
        await host.close()

        async def over() -> bool:
            return bool((await api(f"{owner_url}/api/tables/{code}"))["status"] == "over")

        await eventually(over, "the long game ended", timeout=240)
        with psycopg.connect(pg_url.replace("postgresql+psycopg", "postgresql")) as conn:
            row = conn.execute("SELECT count(*) FROM table_log").fetchone()
        assert row is not None and row[0] > 6000, row
        n = 15
        seen: dict[str, tuple[float, float]] = {}
        for name, path, headers in [
            ("table", f"/api/tables/{code}", None),
            ("speech", f"/api/speech/{code}?after=0&lang=cs", None),
            ("seat 1 speech", f"/api/speech/{code}?after=0", {"X-Nimmt-Token": token}),
        ]:
            expected = await asyncio.to_thread(get_text, owner_url + path, headers)
            before = cpu_seconds(other.pid), cpu_seconds(owner.pid)
            for _ in range(n):
                got = await asyncio.to_thread(get_text, other_url + path, headers)
                assert got == expected
            seen[name] = ((cpu_seconds(other.pid) - before[0]) / n,
                          (cpu_seconds(owner.pid) - before[1]) / n)
        assert expected["you"] == 0 and expected["events"]
        print(f"log entries {row[0]}; CPU per read (other process, owner): " + ", ".join(
            f"{k} {a * 1000:.1f} ms, {b * 1000:.1f} ms" for k, (a, b) in seen.items()))
        # A rebuild of this game cost 0.13 s of CPU per table read, 0.17 s per speech read
        # (docs/security.md); an answer from the owner costs a few milliseconds at each
        # process. The bound is generous (a busy machine) and far below a rebuild.
        assert max(max(v) for v in seen.values()) < 0.03, seen


# -- Redis is not trusted ------------------------------------------------------------------


async def test_messages_forged_on_redis_do_nothing(cluster_env: dict[str, str],
                                                   pg_url: str) -> None:
    # Publishing one message on a process's channel used to bring a connection to a table
    # as any player, with no token. Every message is sealed with the cluster's key now.
    prefix = cluster_env["NIMMT_REDIS_PREFIX"]
    async with processes(cluster_env, 2) as two:
        (owner, owner_url), (_edge, edge_url) = two
        host = await Client.connect(owner_url, name="Host")
        code = (await host.create_table(rules={"preset": "classic", "players": 4})).table.code
        mallory = await Client.connect(edge_url, name="Mallory")
        await mallory.close()
        # A spectator through the other process: its join makes a round trip through the
        # owner's channel, after every message published before it.
        watcher = await Client.connect(edge_url, name="Watcher")
        await watcher.spectate(code)
        with psycopg.connect(pg_url.replace("postgresql+psycopg", "postgresql")) as db:
            ids = db.execute("SELECT id FROM players WHERE name = 'Mallory'").fetchone()
            table = db.execute("SELECT id FROM tables WHERE code = %s", (code,)).fetchone()
            secret = db.execute("SELECT value FROM meta").fetchone()
        assert ids is not None and table is not None and secret is not None
        r = redis.Redis.from_url(REDIS)
        node = int(r.get(f"{prefix}lease:{table[0]}") or 0)
        edge_node = ({int(x) for x in r.smembers(f"{prefix}nodes")} - {node}).pop()
        channel = f"{prefix}node:{node}".encode()
        moved = f"{prefix}moved".encode()
        enter = {"k": "in", "t": code, "n": edge_node, "c": 77, "p": ids[0], "nm": "Mallory",
                 "l": "en", "m": "join", "s": None, "r": None}
        sit = {**{k: v for k, v in enter.items() if k not in "msr"}, "k": "msg",
               "x": '{"type":"sit"}'}
        leave = {**sit, "x": '{"type":"leave"}'}

        def body(b: dict[str, Any]) -> bytes:
            return json.dumps(b).encode()

        key = str(secret[0]).encode()
        window = 30.0
        forged: list[tuple[bytes, bytes]] = []
        for b in (enter, sit):
            forged += [
                (channel, body(b)),  # no seal at all
                (channel, Sealer(b"not the key" * 4, window, 1 << 30).seal(channel, body(b))),
                # the right key, for another channel, or stamped ten minutes ago
                (channel, Sealer(key, window, 1 << 30).seal(b"node:999", body(b))),
                (channel, Sealer(key, window, 1 << 30, clock=lambda: time.time() - 600)
                 .seal(channel, body(b))),
            ]
        sealer = Sealer(key, window, 1 << 30)
        # Sealed with the right key, malformed: a player id as a string, an unknown kind,
        # a connection number past its range, 100 levels of nesting, not an object.
        for bad in ({**enter, "p": str(ids[0])}, {**enter, "k": "admin"}, {**enter, "c": -1},
                    {**enter, "r": json.loads("[" * 100 + "]" * 100)}):
            forged.append((channel, sealer.seal(channel, body(bad))))
        forged.append((channel, sealer.seal(channel, b"[1, 2]")))
        forged.append((channel, sealer.seal(channel, b"\xff\xfe")))
        # A flood of garbage, and a forged move of the table that would close the
        # watcher's connection.
        forged += [(channel, os.urandom(64) + b"|" + body(enter)) for _ in range(300)]
        forged.append((moved, json.dumps({"k": "mv", "t": code, "n": 999}).encode()))
        for ch, data in forged:
            assert r.publish(ch, data) == (2 if ch == moved else 1)

        async def seats() -> list[str | None]:
            return [s["name"] for s in (await api(f"{owner_url}/api/tables/{code}"))["seats"]]

        await watcher.join(code)  # after all of them at the owner (and still connected)
        assert await seats() == ["Host", None, None, None]
        # The same messages sealed with the cluster's key are acted on: Mallory sits. So
        # had a forgery been believed, it would have shown.
        real = [sealer.seal(channel, body(enter)), sealer.seal(channel, body(sit))]
        for data in real:
            r.publish(channel, data)

        async def seated() -> bool:
            return await seats() == ["Host", "Mallory", None, None]

        await eventually(seated, "the sealed join seated Mallory")
        r.publish(channel, sealer.seal(channel, body(leave)))

        async def gone() -> bool:
            return await seats() == ["Host", None, None, None]

        await eventually(gone, "Mallory left")
        # Replayed as they were, the join and the sit are refused.
        for data in real:
            r.publish(channel, data)
        await watcher.join(code)
        assert await seats() == ["Host", None, None, None]
        # The owner serves on.
        await host.add_bot("easy")
        assert (await seats())[1] is not None
        r.close()
        for c in (host, watcher):
            await c.close()
    err = owner.stderr.read() if owner.stderr is not None else ""
    dropped = [line for line in err.splitlines() if "dropped" in line]
    # The drops are logged, a few lines for 300-odd messages; nothing raised.
    assert dropped and len(dropped) <= 3, err[-3000:]
    assert "Traceback" not in err, err[-3000:]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


async def test_a_redis_with_a_password_over_tls(cluster_env: dict[str, str],
                                                tmp_path: Path, pg_url: str) -> None:
    # rediss:// and a password come through from the URL to redis-py; nothing logs the
    # password. A throwaway Redis requires it, on a plain port and on a TLS port. The
    # processes share a key of the operator's (NIMMT_CLUSTER_SECRET), not the database's.
    if shutil.which("redis-server") is None or shutil.which("openssl") is None:
        pytest.skip("needs redis-server and openssl on PATH")
    password = f"pw-{uuid.uuid4().hex}"
    cert, key = tmp_path / "cert.pem", tmp_path / "key.pem"
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout",
                    str(key), "-out", str(cert), "-days", "1", "-subj", "/CN=127.0.0.1",
                    "-addext", "subjectAltName=IP:127.0.0.1"], check=True,
                   capture_output=True, timeout=60)
    plain, tls = _free_port(), _free_port()
    server = subprocess.Popen(
        ["redis-server", "--port", str(plain), "--tls-port", str(tls), "--tls-cert-file",
         str(cert), "--tls-key-file", str(key), "--tls-ca-cert-file", str(cert),
         "--tls-auth-clients", "no", "--requirepass", password, "--save", "",
         "--appendonly", "no", "--bind", "127.0.0.1"],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    procs: list[subprocess.Popen[str]] = []
    try:
        probe = redis.Redis(host="127.0.0.1", port=plain, password=password)

        async def up() -> bool:
            try:
                return bool(probe.ping())
            except redis.RedisError:
                return False

        await eventually(up, "the throwaway Redis answers")
        with pytest.raises(redis.AuthenticationError):
            redis.Redis(host="127.0.0.1", port=plain).set("x", 1)  # it does need the password
        probe.close()
        urls = [f"redis://:{password}@127.0.0.1:{plain}/0",
                f"rediss://:{password}@127.0.0.1:{tls}/0?ssl_ca_certs={cert}"]
        homes = []
        secret = uuid.uuid4().hex * 2
        for url in urls:
            proc, home = await start_server([], {**cluster_env, "NIMMT_REDIS": url,
                                                 "NIMMT_CLUSTER_SECRET": secret})
            procs.append(proc)
            homes.append(home)
        # A game with a seat on each process: frames go both ways, over TLS for one.
        ana = await Client.connect(homes[0], name="Ana")
        code = (await ana.create_table(rules={"preset": "classic", "players": 2,
                                              "end": "rounds", "rounds": 1})).table.code
        bob = await Client.connect(homes[1], name="Bob")
        await bob.join(code)
        await bob.sit()
        await ana.start()
        await asyncio.gather(*(c.play_until_over(random.Random(i), 120)
                               for i, c in enumerate([ana, bob])))
        assert ana.game_over and bob.game_over
        for c in (ana, bob):
            await c.close()
        # The key given was used: none was made in the database.
        with psycopg.connect(pg_url.replace("postgresql+psycopg", "postgresql")) as db:
            assert db.execute("SELECT count(*) FROM meta").fetchone() == (0,)
        # A wrong password is said in one sentence, the URL shown without it.
        wrong = f"redis://:wrong-{password}@127.0.0.1:{plain}/0"
        out = await asyncio.to_thread(
            subprocess.run, [NIMMT, "serve", "--port", "0", "--redis", wrong],
            env=cluster_env, capture_output=True, text=True, timeout=120)
        assert out.returncode == 1, out.stderr
        assert f"Cannot use Redis at redis://***@127.0.0.1:{plain}/0" in out.stderr
        assert password not in out.stderr + out.stdout
        # A key too short to be one is refused.
        out = await asyncio.to_thread(
            subprocess.run, [NIMMT, "serve", "--port", "0"], capture_output=True, text=True,
            env={**cluster_env, "NIMMT_CLUSTER_SECRET": "short"}, timeout=120)
        assert out.returncode == 2 and "cluster_secret" in out.stderr, out.stderr
    finally:
        for proc in procs:
            proc.send_signal(signal.SIGINT)
        logs = ""
        for proc in procs:
            try:
                stdout, stderr = proc.communicate(timeout=30)
            except subprocess.TimeoutExpired:
                proc.kill()
                stdout, stderr = proc.communicate()
            logs += stdout + stderr
        server.terminate()
        server.wait(30)
    assert password not in logs and secret not in logs


async def test_frames_for_another_process_are_split_to_fit_its_messages(
        cluster_env: dict[str, str], pg_url: str, tmp_path: Path) -> None:
    # What an owner sends one edge in one turn goes as one message, unless that would pass
    # cluster_message_max (which the edge drops unread): then as several, in order; a
    # single frame past it sends its connection to reconnect instead.
    prefix = cluster_env["NIMMT_REDIS_PREFIX"]
    largest = 1 << 16
    settings = make_settings(pg_url, tmp_path, redis=REDIS, redis_prefix=prefix,
                             cluster_message_max=largest, lease_ttl=10.0, heartbeat=0.5)
    async with running_hub(settings) as (_url, hub):
        cluster = hub.cluster
        assert cluster is not None
        listener = aioredis.from_url(REDIS)
        sub = listener.pubsub(ignore_subscribe_messages=True)
        channel = cluster.channel(999)
        await sub.subscribe(channel)
        frames = [json.dumps({"n": i, "pad": "é" * 1500}) for i in range(100)]
        for i, text in enumerate(frames):
            cluster.frame_to_edge(999, 5, text, i + 1, "ABCDEF")
        cluster.frame_to_edge(999, 6, "x" * largest, 101, "ABCDEF")
        reader = Sealer((await hub.store.cluster_secret()).encode(), 30.0, largest)
        entries: list[tuple[int, str, str, int]] = []
        sizes: list[int] = []
        async with asyncio.timeout(60):
            while len(entries) < 101:
                message = await sub.get_message(timeout=1.0)
                if message is None:
                    continue
                sizes.append(len(message["data"]))
                body = parse_body(reader.open(channel.encode(), message["data"]))
                assert isinstance(body, Batch)
                entries += body.e
        await sub.aclose()
        await listener.aclose()
    assert len(sizes) >= 5 and max(sizes) <= largest, sizes
    assert entries[:100] == [(5, "f", text, i + 1) for i, text in enumerate(frames)]
    assert entries[100] == (6, "d", "ABCDEF", 0)
