"""The server's log (server/logs.py): readable text by default, one JSON object per line
on request, every line about a table carrying its code, and no secret in any line.

Two real ``nimmt serve --redis`` processes log in JSON at ``debug`` while a game is
played across them (the host on one, the guest on the other) and a bot misses its
deadline at another table; their database and Redis URLs carry passwords and
their cluster key is the operator's. Every line of both is read back: each one
parses, the game is followed by its table code through both processes, and no
token, password or key appears anywhere.
"""

from __future__ import annotations

import asyncio
import io
import json
import logging
import os
import random
import shutil
import signal
import subprocess
import threading
import uuid
from pathlib import Path
from typing import Any

import pytest
import redis
from server_helpers import LIFTED_LIMITS, eventually, start_server

from nimmt.client import Client, ServerError
from nimmt.server.base.logs import (
    QUEUE_MAX,
    JsonFormatter,
    LineWriter,
    TextFormatter,
    event,
    secrets_of,
    set_context,
)
from nimmt.server.base.settings import Settings

pytestmark = [pytest.mark.timeout(300)]

HERE = Path(__file__).parent


def line_of(formatter: logging.Formatter, message: str, *args: object,
            extra: dict[str, Any] | None = None, exc: bool = False) -> str:
    """What ``formatter`` writes for one record of ``nimmt.server``."""
    out = io.StringIO()
    handler = logging.StreamHandler(out)
    handler.setFormatter(formatter)
    logger = logging.getLogger(f"nimmt.server.test{uuid.uuid4().hex}")
    logger.propagate = False
    logger.addHandler(handler)
    logger.setLevel(logging.DEBUG)
    if exc:
        try:
            raise ValueError("it broke")
        except ValueError:
            logger.exception(message, *args, extra=extra)
    else:
        logger.info(message, *args, extra=extra)
    return out.getvalue().rstrip("\n")


@pytest.fixture(autouse=True)
def no_node() -> None:
    """Lines of this process carry no cluster node (a server of another test may have
    set one)."""
    set_context(node=None)


def test_a_text_line_reads_as_a_sentence_with_its_event_after_it() -> None:
    line = line_of(TextFormatter(), "table %s opened by player %d", "K7WQ3M", 12,
                   extra=event("table.created", table="K7WQ3M", player=12, rules="6 nimmt!"))
    stamp, level, rest = line.split(" ", 2)
    assert stamp.endswith("Z") and "T" in stamp and level == "INFO"
    assert rest.endswith(": table K7WQ3M opened by player 12 "
                         '[table.created table=K7WQ3M player=12 rules="6 nimmt!"]')
    # A line that is no event is the sentence alone; a traceback follows its line.
    plain = line_of(TextFormatter(), "plain words", exc=True)
    assert plain.split("\n")[0].endswith(": plain words")
    assert "ValueError: it broke" in plain


def test_a_json_line_holds_the_fields_of_its_event() -> None:
    line = line_of(JsonFormatter(), "table %s is %s now", "K7WQ3M", "playing",
                   extra=event("table.status", table="K7WQ3M", status="playing"))
    data = json.loads(line)
    assert data["message"] == "table K7WQ3M is playing now"
    assert data["event"] == "table.status" and data["level"] == "INFO"
    assert data["table"] == "K7WQ3M" and data["status"] == "playing"
    assert data["pid"] == os.getpid() and data["time"].endswith("Z")
    # A field never hides the line's own keys, and a traceback is one string.
    failed = json.loads(line_of(JsonFormatter(), "failed", extra=event("x", message="no"),
                                exc=True))
    assert failed["message"] == "failed" and "ValueError: it broke" in failed["exception"]
    set_context(node=7)
    try:
        assert json.loads(line_of(JsonFormatter(), "hi"))["node"] == 7
        assert line_of(TextFormatter(), "hi").endswith(": hi [node=7]")
    finally:
        set_context(node=None)
    assert "node" not in json.loads(line_of(JsonFormatter(), "hi"))


def test_the_secrets_of_the_settings_are_masked_in_every_line() -> None:
    settings = Settings(db="postgresql+psycopg://nimmt:p%40ss-word-1@db:5432/nimmt",
                        redis="rediss://:redis-pw-2@cache:6380/0?password=query-pw-3",
                        cluster_secret="k" * 40)
    secrets = secrets_of(settings)
    assert {"p@ss-word-1", "p%40ss-word-1", "redis-pw-2", "query-pw-3", "k" * 40} <= set(secrets)
    for formatter in (TextFormatter(secrets), JsonFormatter(secrets)):
        line = line_of(formatter, "could not reach %s with %s", settings.redis, settings.db,
                       extra=event("x", key="k" * 40), exc=True)
        for secret in secrets:
            assert secret not in line
        assert "***" in line


def test_no_secrets_are_looked_for_when_none_are_set() -> None:
    assert secrets_of(Settings(db="sqlite+aiosqlite:///x.db")) == []


def test_a_stream_nobody_reads_costs_lines_never_the_callers_time() -> None:
    # A pipe nobody reads (a supervisor that stopped reading, a full journal): the lines
    # past what the pipe and the queue hold are dropped at once, never waited for, and the
    # next line written says how many.
    read_end, write_end = os.pipe()
    stream = os.fdopen(write_end, "w")
    writer = LineWriter(JsonFormatter(), stream)
    logger = logging.getLogger(f"nimmt.server.test{uuid.uuid4().hex}")
    logger.propagate = False
    logger.addHandler(writer)
    lines = QUEUE_MAX + 5000  # 2 MB of lines: far more than a pipe and the queue hold

    def log_them() -> None:
        for i in range(lines):
            logger.warning("line %d, with words enough to make it a line like the others", i)

    caller = threading.Thread(target=log_them)
    caller.start()
    caller.join(120)
    assert not caller.is_alive(), "logging waited for a pipe nobody reads"
    dropped = writer.dropped
    assert dropped > 0
    # Now the pipe is read: what was queued comes, preceded by the count of what was not.
    seen: list[dict[str, Any]] = []
    with os.fdopen(read_end) as pipe:
        reader = threading.Thread(target=lambda: seen.extend(json.loads(x) for x in pipe))
        reader.start()
        writer.close()  # what is queued is written first
        stream.close()
        reader.join(60)
    # A note says each run of drops (the first may come before the pipe filled, while the
    # writer's thread had not yet run on a busy machine); each comes with a line after it.
    notes = [e["lines"] for e in seen if e.get("event") == "log.dropped"]
    assert notes and notes[-1] == dropped and all(n > 0 for n in notes)
    assert seen and seen[-1].get("event") != "log.dropped"
    # The lines kept are whole and in order, and with the notes they account for every line.
    kept = [int(e["message"].split()[1].rstrip(",")) for e in seen if "event" not in e]
    assert kept == sorted(set(kept)) and kept[0] == 0
    assert len(kept) + sum(notes) == lines and len(seen) == len(kept) + len(notes)


# -- two processes, one game, every line read -------------------------------------------------


class Lines:
    """The lines a process writes to standard error, read as they come (a chatty process
    never blocks on a full pipe)."""

    def __init__(self, proc: subprocess.Popen[str]) -> None:
        self.lines: list[str] = []
        assert proc.stderr is not None
        self._thread = threading.Thread(target=self._read, args=(proc.stderr,), daemon=True)
        self._thread.start()

    def _read(self, stream: Any) -> None:
        for line in stream:
            self.lines.append(line.rstrip("\n"))

    def join(self) -> None:
        self._thread.join(30)

    def events(self) -> list[dict[str, Any]]:
        return [json.loads(line) for line in list(self.lines) if line.strip()]


def free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.mark.asyncio
async def test_a_game_across_two_processes_in_json_logs(pg_url: str, tmp_path: Path) -> None:
    if shutil.which("redis-server") is None:
        pytest.skip("needs redis-server on PATH")
    redis_password = f"redis-pw-{uuid.uuid4().hex}"
    pg_password = f"pg-pw-{uuid.uuid4().hex}"  # the test database trusts; the URL holds it
    secret = uuid.uuid4().hex * 2
    port = free_port()
    server = subprocess.Popen(
        ["redis-server", "--port", str(port), "--requirepass", redis_password, "--save", "",
         "--appendonly", "no", "--bind", "127.0.0.1"],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    procs: list[subprocess.Popen[str]] = []
    readers: list[Lines] = []
    tokens: list[str] = []
    stdout = ""
    try:
        probe = redis.Redis(host="127.0.0.1", port=port, password=redis_password)

        async def up() -> bool:
            try:
                return bool(probe.ping())
            except redis.RedisError:
                return False

        await eventually(up, "the throwaway Redis answers")
        probe.close()
        assert "://postgres@" in pg_url
        env = {
            **os.environ, **LIFTED_LIMITS,
            "NIMMT_DATA_DIR": str(tmp_path / "data"),
            "NIMMT_DB": pg_url.replace("://postgres@", f"://postgres:{pg_password}@", 1),
            "NIMMT_REDIS": f"redis://:{redis_password}@127.0.0.1:{port}/0",
            "NIMMT_CLUSTER_SECRET": secret,
            "NIMMT_LEASE_TTL": "10", "NIMMT_HEARTBEAT": "0.5", "NIMMT_BOT_WORKERS": "1",
            "NIMMT_BOT_SECONDS": "0.05", "NIMMT_BOT_GRACE": "0.5",
            "NIMMT_BOTS": '{"sleeper": "hostile_bots:Sleeper"}',
            "NIMMT_LOG_FORMAT": "json", "NIMMT_LOG_LEVEL": "debug",
            "NIMMT_METRICS_ADDRESS": "127.0.0.1:0",
            "PYTHONPATH": os.pathsep.join([str(HERE), os.environ.get("PYTHONPATH", "")]),
        }
        homes = []
        for _ in range(2):
            proc, home = await start_server([], env)
            procs.append(proc)
            readers.append(Lines(proc))
            homes.append(home)
        # Ana hosts on the first process, Bob plays from the second.
        ana = await Client.connect(homes[0], name="Ana")
        code = (await ana.create_table(rules={"preset": "classic", "players": 2,
                                              "end": "rounds", "rounds": 1})).table.code
        bob = await Client.connect(homes[1], name="Bob")
        await bob.join(code)
        await bob.sit()
        await ana.start()
        await asyncio.gather(*(c.play_until_over(random.Random(i), 120)
                               for i, c in enumerate([ana, bob])))
        # A token nobody has is refused, and not logged either.
        wrong = f"no-such-token-{uuid.uuid4().hex}"
        with pytest.raises(ServerError):
            await Client.connect(homes[1], token=wrong)
        # A bot that never answers, at a table of its own.
        slow = (await ana.create_table(rules={"preset": "classic", "players": 2,
                                              "end": "rounds", "rounds": 1})).table.code
        await ana.add_bot("sleeper")
        await ana.start()

        async def timed_out() -> bool:
            return any(e.get("event") == "bot.fault" and e.get("table") == slow
                       for e in readers[0].events())

        await eventually(timed_out, "the sleeper's timeout is logged")
        tokens = [t for t in (ana.token, bob.token, wrong) if t]
        assert len(tokens) == 3
        for c in (ana, bob):
            await c.close()
    finally:
        for proc in procs:
            proc.send_signal(signal.SIGINT)
        for proc in procs:
            # Standard error is its reader's (communicate() would take lines from it).
            try:
                proc.wait(60)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
            assert proc.stdout is not None
            stdout += proc.stdout.read()
        for reader in readers:
            reader.join()
        server.terminate()
        server.wait(30)
    first, second = (r.events() for r in readers)  # every line parses as JSON
    everything = first + second
    for data in everything:
        assert {"time", "level", "logger", "message", "pid"} <= data.keys(), data
    # Both processes said when they started and stopped, each under its cluster node.
    for lines in (first, second):
        assert [e["event"] for e in lines if e.get("event", "").startswith("server.")] == [
            "server.started", "server.draining", "server.drained", "server.stopped"]
        assert len({e["pid"] for e in lines}) == 1
        started = next(e for e in lines if e.get("event") == "server.started")
        assert started["metrics"].startswith("http://127.0.0.1:")
    assert {e.get("node") for e in first if "node" in e}.isdisjoint(
        {e.get("node") for e in second if "node" in e})
    # The game, followed by its code through both processes.
    game = [e for e in everything if e.get("table") == code]
    assert {e["pid"] for e in game} == {procs[0].pid, procs[1].pid}
    owner = [(e["event"], e.get("status")) for e in first if e.get("table") == code]
    assert ("table.created", None) in owner and ("table.status", "playing") in owner
    assert ("game.ended", None) in owner and ("table.status", "over") in owner
    ended = next(e for e in first if e.get("event") == "game.ended" and e["table"] == code)
    assert ended["finished"] is True and ended["seats"] == 2 and ended["bots"] == 0
    joined = [e for e in second if e.get("event") == "player.joined"]
    assert [(e["table"], e["mode"], e["here"]) for e in joined] == [(code, "join", False)]
    assert {e["event"] for e in second if e.get("table") == code} >= {"player.joined",
                                                                      "player.left"}
    fault = next(e for e in first if e.get("event") == "bot.fault")
    assert (fault["table"], fault["bot"], fault["kind"], fault["level"]) == (
        slow, "sleeper", "timeout", "WARNING")
    hellos = [e for e in everything if e.get("event") == "player.hello"]
    assert sorted((e["new"], e["pid"]) for e in hellos) == sorted(
        [(True, procs[0].pid), (True, procs[1].pid)])
    # No secret, in any line of either process, nor on standard output.
    text = "\n".join([*readers[0].lines, *readers[1].lines, stdout])
    for value in [*tokens, redis_password, pg_password, secret]:
        assert value not in text
