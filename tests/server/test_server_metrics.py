"""``/metrics`` (server/metrics.py): read with the Prometheus client's own parsers while
games are played, on SQLite and PostgreSQL, and across two processes over Redis.

Every scrape is parsed by ``prometheus_client.parser.text_string_to_metric_families``
(and once in the OpenMetrics format by its OpenMetrics parser), and the counters a
scripted game must move are compared before and after it. No label may hold a
table's code or a player's name.
"""

from __future__ import annotations

import asyncio
import json
import os
import signal
import socket
import subprocess
import urllib.request
import uuid
from pathlib import Path
from typing import Any

import pytest
import redis
from prometheus_client.openmetrics.parser import (
    text_string_to_metric_families as openmetrics_families,
)
from prometheus_client.parser import text_string_to_metric_families
from server_helpers import LIFTED_LIMITS, eventually, play_out, seat_table, start_server
from websockets.asyncio.client import connect

from conftest import make_settings
from nimmt.client import Client
from nimmt.server.run import running_hub

pytestmark = [pytest.mark.asyncio, pytest.mark.timeout(300)]

REDIS = os.environ.get("NIMMT_TEST_REDIS", "redis://127.0.0.1:6379/0")

Samples = dict[str, dict[tuple[tuple[str, str], ...], float]]

#: Every value a label may take: fixed by the code, whatever the players do.
LABEL_VALUES = {
    "lane": {"quick", "search"},
    "outcome": {"ok", "timeout", "raised", "illegal"},
    "state": {"open", "playing", "over", "closed"},
    "kind": {"hint", "analysis", "other"},
}


def scrape_text(base: str, accept: str | None = None) -> tuple[str, str]:
    request = urllib.request.Request(f"{base}/metrics",
                                     headers={"Accept": accept} if accept else {})
    with urllib.request.urlopen(request, timeout=30) as resp:
        return resp.headers["Content-Type"], resp.read().decode()


async def scrape(base: str) -> Samples:
    """Every sample of ``base``'s ``/metrics``, by name and labels, as Prometheus reads it."""
    _, text = await asyncio.to_thread(scrape_text, base)
    out: Samples = {}
    for family in text_string_to_metric_families(text):
        for sample in family.samples:
            out.setdefault(sample.name, {})[tuple(sorted(sample.labels.items()))] = sample.value
    return out


def value(samples: Samples, name: str, **labels: str) -> float:
    return samples.get(name, {}).get(tuple(sorted(labels.items())), 0.0)


def ops_url(hub: Any) -> str:
    assert hub.metrics.listening is not None
    return "http://{}:{}".format(*hub.metrics.listening)


def check_labels(samples: Samples, *never: str) -> None:
    """Every label value is one of a bounded list; none is a code, a name or an address."""
    for name, series in samples.items():
        for labels in series:
            for key, val in labels:
                assert val not in never, (name, key, val)
                if key in LABEL_VALUES:
                    assert val in LABEL_VALUES[key], (name, key, val)
                elif key in ("type", "reason"):
                    # A client message's type (the protocol's names), or a refusal's limit
                    # (a setting's name, or a kind of the HTTP guard).
                    assert val.replace("_", "").isalpha() and val.islower(), (name, val)
                else:
                    assert key in ("le", "quantile", "version", "implementation", "major",
                                   "minor", "patchlevel", "generation"), (name, key)


async def test_metrics_move_during_a_game(db_url: str, tmp_path: Path) -> None:
    settings = make_settings(db_url, tmp_path, metrics_address="127.0.0.1:0",
                             names_per_minute=3)
    async with running_hub(settings) as (url, hub):
        ops = ops_url(hub)
        before = await scrape(ops)
        assert value(before, "nimmt_connections") == 0
        assert value(before, "nimmt_refusals_total", reason="names_per_minute") == 0
        rules = {"preset": "classic", "players": 3, "end": "rounds", "rounds": 1}
        clients, code = await seat_table(url, rules, humans=2, bots=["easy"], prefix="Mx")
        during = await scrape(ops)
        assert value(during, "nimmt_connections") == 2
        assert value(during, "nimmt_players_online") == 2
        assert value(during, "nimmt_tables", state="playing") == 1
        # A hint: the advice lane's time is counted.
        host = clients[0]
        assert host.prompt is not None or await host.expect(lambda m: host.prompt is not None)
        await host.hint(timeout=240)  # the first starts the tutor's worker
        await play_out(clients)
        # A third new name from this address is served, a fourth refused (names_per_minute).
        third = await Client.connect(url, name="MxThird")
        async with connect(url.replace("http://", "ws://") + "/ws") as ws:
            await ws.send(json.dumps({"type": "hello", "name": "MxFourth"}))
            assert json.loads(await ws.recv())["code"] == "quota"
        after = await scrape(ops)

        def moved(name: str, **labels: str) -> float:
            return value(after, name, **labels) - value(before, name, **labels)

        assert moved("nimmt_messages_total", type="hello") == 4
        assert moved("nimmt_messages_total", type="create_table") == 1
        assert moved("nimmt_messages_total", type="play_card") >= 20  # two people, ten turns
        assert moved("nimmt_frames_received_total") >= sum(
            moved("nimmt_messages_total", type=t) for t in ("hello", "play_card", "start"))
        assert moved("nimmt_received_bytes_total") > moved("nimmt_frames_received_total")
        assert moved("nimmt_frames_sent_total") > moved("nimmt_frames_received_total")
        decided = moved("nimmt_bot_decisions_total", lane="quick", outcome="ok")
        assert decided >= 10  # the bot's ten cards, at least
        assert moved("nimmt_bot_decision_seconds_count", lane="quick") == decided
        assert moved("nimmt_bot_think_seconds_count", lane="quick") == decided
        assert moved("nimmt_advice_seconds_count", kind="hint") == 1
        assert moved("nimmt_db_commit_seconds_count") >= 20
        assert moved("nimmt_db_commit_writes_sum") >= moved("nimmt_db_commit_seconds_count")
        assert value(after, "nimmt_db_commit_errors_total") == 0
        assert moved("nimmt_refusals_total", reason="names_per_minute") == 1
        assert value(after, "nimmt_tables", state="over") == 1
        assert value(after, "nimmt_tables", state="playing") == 0
        assert value(after, "nimmt_players_online") == 3
        assert value(after, "nimmt_info", version=__import__("nimmt").__version__) == 1
        assert value(after, "process_open_fds") > 0
        check_labels(after, code, *(c.name for c in clients), "MxThird", "127.0.0.1")
        # The loop's lag is sampled on its own, every half second.
        await eventually(lambda: _positive(ops, "nimmt_event_loop_lag_seconds_count"),
                         "the event loop's lag is sampled")
        for c in [*clients, third]:
            await c.close()
        await eventually(lambda: _zero(ops, "nimmt_connections"), "connections counted out")
        assert value(await scrape(ops), "nimmt_players_online") == 0
        # The OpenMetrics format, for a scraper that asks for it, parses with its parser.
        kind, text = await asyncio.to_thread(
            scrape_text, ops, "application/openmetrics-text; version=1.0.0")
        assert kind.startswith("application/openmetrics-text")
        names = {f.name for f in openmetrics_families(text)}
        assert {"nimmt_frames_sent", "nimmt_bot_decision_seconds", "nimmt_tables"} <= names


async def _positive(base: str, name: str) -> bool:
    return value(await scrape(base), name) > 0


async def _zero(base: str, name: str) -> bool:
    return value(await scrape(base), name) == 0


async def test_a_bot_past_its_deadline_is_counted(tmp_path: Path) -> None:
    settings = make_settings(f"sqlite+aiosqlite:///{tmp_path / 'nimmt.db'}", tmp_path,
                             metrics_address="127.0.0.1:0", bot_seconds=0.05, bot_grace=0.5,
                             bots={"sleeper": "hostile_bots:Sleeper"})
    async with running_hub(settings) as (url, hub):
        ops = ops_url(hub)
        ana = await Client.connect(url, name="Ana")
        await ana.create_table(rules={"preset": "classic", "players": 2, "end": "rounds",
                                      "rounds": 1})
        await ana.add_bot("sleeper")
        await ana.start()

        async def timed_out() -> bool:
            return value(await scrape(ops), "nimmt_bot_decisions_total", lane="search",
                         outcome="timeout") >= 1

        await eventually(timed_out, "the sleeper's timeout is counted")
        samples = await scrape(ops)
        assert value(samples, "nimmt_bot_worker_starts_total", lane="search") >= 1
        await ana.close()


async def test_messages_between_processes_and_a_takeover_are_counted(
        pg_url: str, tmp_path: Path) -> None:
    prefix = f"nimmt-test-{uuid.uuid4().hex[:12]}:"
    try:
        redis.Redis.from_url(REDIS).ping()
    except redis.RedisError as exc:
        pytest.fail(f"Redis is not reachable at {REDIS}: {exc}")

    def settings(name: str) -> Any:
        return make_settings(pg_url, tmp_path / name, redis=REDIS, redis_prefix=prefix,
                             lease_ttl=10.0, heartbeat=0.5, metrics_address="127.0.0.1:0")

    try:
        async with running_hub(settings("b")) as (url_b, hub_b):
            ops_b = ops_url(hub_b)
            async with running_hub(settings("a")) as (url_a, hub_a):
                ops_a = ops_url(hub_a)
                ana = await Client.connect(url_a, name="Ana")
                code = (await ana.create_table(rules={"preset": "classic", "players": 2})
                        ).table.code
                bob = await Client.connect(url_b, name="Bob")
                await bob.join(code)
                await bob.sit()
                await ana.start()
                # Bob's frames went through Redis to the owner, and its answers back.
                for base in (ops_a, ops_b):
                    samples = await scrape(base)
                    assert value(samples, "nimmt_cluster_relay_lag_seconds_count") > 0
                    assert value(samples, "nimmt_cluster_dropped_total") == 0
                    check_labels(samples, code, "Ana", "Bob")
                assert value(await scrape(ops_a), "nimmt_cluster_remote_connections") == 1
                assert value(await scrape(ops_b), "nimmt_cluster_takeovers_total") == 0
                await ana.close()
            # The owner stopped: its table is taken over by the other process.

            async def taken() -> bool:
                return value(await scrape(ops_b), "nimmt_cluster_takeovers_total") == 1

            await eventually(taken, "the takeover is counted")
            assert value(await scrape(ops_b), "nimmt_tables", state="playing") == 1
            await bob.close()
    finally:
        r = redis.Redis.from_url(REDIS)
        keys = list(r.scan_iter(f"{prefix}*"))
        if keys:
            r.delete(*keys)
        r.close()


def two_free_ports() -> int:
    """A port that is free, and the one after it too."""
    while True:
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            port = int(s.getsockname()[1])
        with socket.socket() as s:
            try:
                s.bind(("127.0.0.1", port + 1))
            except OSError:
                continue
        return port


async def test_each_of_several_workers_serves_its_own_metrics(pg_url: str,
                                                               tmp_path: Path) -> None:
    # nimmt serve --workers 2: process k listens for metrics on the port + k, and counts
    # only what it holds itself.
    prefix = f"nimmt-test-{uuid.uuid4().hex[:12]}:"
    port = two_free_ports()
    env = {**os.environ, **LIFTED_LIMITS, "NIMMT_DATA_DIR": str(tmp_path / "data"),
           "NIMMT_DB": pg_url, "NIMMT_REDIS": REDIS, "NIMMT_REDIS_PREFIX": prefix,
           "NIMMT_LEASE_TTL": "10", "NIMMT_HEARTBEAT": "0.5", "NIMMT_BOT_WORKERS": "1"}
    proc, url = await start_server(["--workers", "2", "--metrics-address",
                                    f"127.0.0.1:{port}"], env)
    try:
        bases = [f"http://127.0.0.1:{port}", f"http://127.0.0.1:{port + 1}"]
        ana = await Client.connect(url, name="Ana")
        # Ana's connection is held by one of the two: one counts it, the other does not.
        counts = [value(await scrape(b), "nimmt_connections") for b in bases]
        assert sorted(counts) == [0, 1]
        await ana.close()
    finally:
        proc.send_signal(signal.SIGINT)
        try:
            proc.wait(60)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        r = redis.Redis.from_url(REDIS)
        keys = list(r.scan_iter(f"{prefix}*"))
        if keys:
            r.delete(*keys)
        r.close()
