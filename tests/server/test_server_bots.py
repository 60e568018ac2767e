"""Bots at server tables: only the operator's list, in worker processes, within a deadline,
fairly across tables (issue 8).

Real servers over loopback (SQLite: the store plays no part here) and real worker
processes. Timing is never asserted in milliseconds: the fairness tests check the
order things happened in (the quick lane answered while search jobs still
waited), which a loaded machine slows down but cannot reorder.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import pickle
import re
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hostile_bots import HOSTILE

from conftest import make_settings
from nimmt.bots.registry import BotError
from nimmt.client import Client, ServerError
from nimmt.engine import Game, View
from nimmt.rules import Rules
from nimmt.server.cli import parse_bot_flags
from nimmt.server.run import running_hub
from nimmt.server.workers.botpool import AWAY, PEOPLE, BotPool, dump_job, lane_of
from nimmt.sim.kernel import NUMBA
from nimmt.wire import EventItem, Events, NoticeItem, ServerMessage

pytestmark = [pytest.mark.timeout(300)]

HERE = Path(__file__).resolve().parent
NIMMT = str(Path(sys.executable).parent / "nimmt")
TWO = {"preset": "classic", "players": 2, "end": "rounds", "rounds": 1}
TEN = {"preset": "classic", "players": 10, "end": "rounds", "rounds": 1}


def sqlite(tmp_path: Path, **changes: Any) -> Any:
    return make_settings(f"sqlite+aiosqlite:///{tmp_path / 'nimmt.db'}", tmp_path, **changes)


async def ping(client: Client) -> None:
    assert (await client.request({"type": "ping"}, want="pong")).type == "pong"


def chosen_by(seat: int) -> Callable[[ServerMessage], bool]:
    """Matches an ``events`` frame saying that ``seat`` chose its card."""

    def match(m: ServerMessage) -> bool:
        return isinstance(m, Events) and any(
            isinstance(it, EventItem) and it.event.type == "card_chosen"
            and it.event.player == seat for it in m.items)

    return match


def revealed(m: ServerMessage) -> bool:
    return isinstance(m, Events) and any(
        isinstance(it, EventItem) and it.event.type == "cards_revealed" for it in m.items)


async def until(check: Callable[[], bool], timeout: float = 30.0) -> None:
    loop = asyncio.get_running_loop()
    end = loop.time() + timeout
    while not check():
        assert loop.time() < end, "timed out"
        await asyncio.sleep(0.01)


# -- the registry a client may choose from -----------------------------------------------


@pytest.mark.parametrize("spec", ["os:abort", "sys:exit", "signal:pause",
                                  "nimmt.bots.simple:RandomBot", "builtins:print"])
@pytest.mark.asyncio
async def test_add_bot_never_imports_what_a_client_names(tmp_path: Path, spec: str) -> None:
    async with running_hub(sqlite(tmp_path)) as (url, hub):
        ana = await Client.connect(url, name="Ana")
        await ana.create_table(rules=TWO)
        with pytest.raises(ServerError) as err:
            await ana.add_bot(spec)
        assert err.value.code == "bad_message"  # the protocol takes plain names only
        await ping(ana)
        # Still up for everyone: a new connection is served, a real bot can be seated.
        bob = await Client.connect(url, name="Bob")
        await ping(bob)
        await ana.add_bot("easy")
        assert hub.bots.pids()  # the workers live on
        await ana.close()
        await bob.close()


@pytest.mark.asyncio
async def test_unknown_bot_gets_the_list_of_names(tmp_path: Path) -> None:
    async with running_hub(sqlite(tmp_path, bots={"polite": HOSTILE["polite"]})) as (url, _):
        ana = await Client.connect(url, name="Ana")
        await ana.create_table(rules=TWO)
        with pytest.raises(ServerError) as err:
            await ana.add_bot("grandmaster")
        assert err.value.code == "bad_bot"
        message = err.value.error.message
        for name in ("easy", "medium", "hard", "expert", "dodger", "polite"):
            assert name in message, message
        assert "default" not in re.split(r"[ ,]+", message)  # the stand-in is not offered
        await ping(ana)
        await ana.close()


@pytest.mark.asyncio
async def test_operator_bot_plays_at_a_table(tmp_path: Path,
                                             caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.WARNING, "nimmt.server.bots")
    settings = sqlite(tmp_path, bots={"polite": HOSTILE["polite"]})
    async with running_hub(settings) as (url, hub):
        ana = await Client.connect(url, name="Ana")
        code = (await ana.create_table(rules=TWO)).table.code
        await ana.add_bot("polite")
        await ana.start()
        await ana.play_until_over(timeout=60)
        assert hub.bots.search.done >= 10  # an operator's bot thinks in the search lane
        assert hub.bots.search.failed == 0, caplog.text
        seats = (await ana.join(code)).table.seats
        assert seats[1].name == "polite bot 1" and seats[1].bot == "polite"
        await ana.close()


def test_bot_flags_parse_and_refuse() -> None:
    assert parse_bot_flags(["a=pkg.mod:A", " b = pkg:B.Inner "]) == {
        "a": "pkg.mod:A", "b": "pkg:B.Inner"}
    for bad in (["noequals"], ["=pkg:A"], ["a="], ["a=pkg:A", "a=pkg:B"], ["medium=pkg:A"],
                ["os:abort=pkg:A"], ["a=not a path"], ["a=pkg.mod"]):
        with pytest.raises(BotError):
            parse_bot_flags(bad)


def _serve(args: list[str], tmp_path: Path, **env: str) -> subprocess.CompletedProcess[str]:
    full = {**os.environ, "NIMMT_DATA_DIR": str(tmp_path), "PYTHONPATH": str(HERE), **env}
    return subprocess.run([NIMMT, "serve", "--port", "0", *args], capture_output=True,
                          text=True, env=full, timeout=120)


@pytest.mark.parametrize("args, env, says", [
    (["--bot", "polite"], {}, "write NAME=pkg.module:Class"),
    (["--bot", "os=os:abort"], {}, "is not a class"),
    (["--bot", "pr=builtins:print"], {}, "is not a class"),
    (["--bot", "expert=hostile_bots:Polite"], {}, "built-in bot already"),
    (["--bot", "default=hostile_bots:Polite"], {}, "default player"),
    (["--bot", "gone=no_such_module:Bot"], {}, "cannot import module"),
    (["--bot", "nope=hostile_bots:Nope"], {}, "has no 'Nope'"),
    (["--bot", "half=nimmt.engine:View"], {}, "does not follow the bot protocol"),
    ([], {"NIMMT_BOTS": "not json"}, "Bad setting"),
    ([], {"NIMMT_BOTS": '{"x": "os:abort"}'}, "is not a class"),
])
def test_serve_refuses_bad_bots(tmp_path: Path, args: list[str], env: dict[str, str],
                                says: str) -> None:
    done = _serve(args, tmp_path, **env)
    assert done.returncode == 2, done.stderr
    assert says in done.stderr and "Traceback" not in done.stderr, done.stderr


def _children(pid: int) -> set[int]:
    out = subprocess.run(["ps", "-o", "pid=", "--ppid", str(pid)], capture_output=True,
                         text=True).stdout
    return {int(p) for p in out.split()}


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().split(") ")[1][0] != "Z"
    except OSError:
        return False


@pytest.mark.asyncio
async def test_serve_with_a_bot_flag_seats_it_and_leaves_no_process(tmp_path: Path) -> None:
    env = {**os.environ, "NIMMT_DATA_DIR": str(tmp_path), "PYTHONPATH": str(HERE),
           "NIMMT_BOTS": '{"sleepy": "hostile_bots:Sleeper"}'}
    proc = subprocess.Popen([NIMMT, "serve", "--port", "0", "--bot", "polite=hostile_bots:Polite"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    try:
        assert proc.stdout is not None
        line = await asyncio.wait_for(asyncio.to_thread(proc.stdout.readline), 60)
        m = re.search(r"open (http://[^ ]+)/ in a browser", line)
        assert m, line
        ana = await Client.connect(m.group(1), name="Ana")
        await ana.create_table(rules={**TWO, "players": 3})
        await ana.add_bot("polite")  # from --bot
        await ana.add_bot("sleepy")  # from NIMMT_BOTS
        workers = _children(proc.pid)
        assert len(workers) >= 2  # the quick and search workers (and multiprocessing's tracker)
        await ana.close()
    finally:
        proc.send_signal(signal.SIGTERM)
        await asyncio.to_thread(proc.wait, 30)
    assert proc.returncode in (0, -signal.SIGTERM), proc.stderr.read() if proc.stderr else ""
    deadline = time.monotonic() + 60
    while any(_alive(p) for p in workers) and time.monotonic() < deadline:
        await asyncio.sleep(0.05)
    assert not [p for p in workers if _alive(p)], "worker processes outlived the server"


# -- the deadline -------------------------------------------------------------------------


@pytest.mark.asyncio
async def test_hostile_operator_bots_are_cut_off_and_the_game_goes_on(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.WARNING, "nimmt.server.bots")
    hostile = ["sleeper", "spinner", "quitter", "raiser", "liar"]
    # A deadline of 1.05 s: the hung bots run into it, while the raiser and the liar answer
    # well within it even when the machine is busy.
    settings = sqlite(tmp_path, bots=HOSTILE, bot_seconds=0.05, bot_grace=1.0, bot_workers=1)
    async with running_hub(settings) as (url, hub):
        ana = await Client.connect(url, name="Ana")
        await ana.create_table(rules={"preset": "classic", "players": 6, "end": "rounds",
                                      "rounds": 1})
        for name in hostile:
            await ana.add_bot(name)
        await hub.bots.ready()
        first = hub.bots.search.workers[0].process
        assert first is not None and first.pid is not None
        first_pid = first.pid
        await ana.start()
        answered: set[str] = set()
        reveals = 0
        timed_out: list[int | None] = []
        while reveals < 2:  # two turns: each waits for all five bots' fallbacks
            prompt = ana.prompt
            if prompt is not None and prompt.key not in answered:
                answered.add(prompt.key)
                await ana.answer(prompt)
                continue
            msg = await ana.recv(60)
            reveals += revealed(msg)
            if isinstance(msg, Events):
                timed_out += [i.seat for i in msg.items if isinstance(i, NoticeItem)
                              and (i.notice, i.reason) == ("auto_on", "timeout")]
        await ping(ana)
        # The table's log tells each decision that ran out of time (the hung bots' only):
        # the default player made it, and the seat is the bot's again.
        assert sorted(timed_out) == [1, 1, 2, 2], timed_out
        log = caplog.text
        # Every fault is reported as the arena reports it (nimmt.bots.play.Fault): the bot,
        # its seat, when, and what it did; the default player then answers for it.
        where = r"\(seat \d, round 1, turn \d+\): "
        late = r"did not answer within 1\.05 s; its worker was stopped \(1\.\d\d s after a worker"
        for pattern in (
            "bot 'sleeper' " + where + late,
            "bot 'spinner' " + where + late,
            "bot 'quitter' " + where + r"ended its worker process \(exit code 3\)",
            "bot 'raiser' " + where + "card decision raised RuntimeError: this bot always fails",
            "bot 'liar' " + where + "illegal card decision 999; legal: ",
        ):
            assert re.search(pattern + ".*; the default player plays for it", log), pattern
        # The hung workers were killed (and reaped) and new ones took over.
        assert not _alive(first_pid)
        assert hub.bots.search.workers[0].starts >= 4  # sleeper, spinner, quitter per turn
        assert hub.bots.quick.workers[0].starts == 1  # the other lane never noticed
        await ana.close()


# -- fairness ----------------------------------------------------------------------------


async def _attack_table(url: str, name: str) -> Client:
    """A person at a 10-player table with nine experts, not started yet; the person never
    plays."""
    host = await Client.connect(url, name=name)
    await host.create_table(rules=TEN)
    for _ in range(9):
        await host.add_bot("expert")
    return host


@pytest.mark.asyncio
async def test_quick_lane_and_round_robin_are_not_queued_behind_experts(tmp_path: Path) -> None:
    settings = sqlite(tmp_path, bot_seconds=0.5, bot_workers=1)
    async with running_hub(settings) as (url, hub):
        await hub.bots.ready()
        # The victims sit down before the attack and start during it.
        easy = await Client.connect(url, name="Vic")
        await easy.create_table(rules=TWO)
        await easy.add_bot("easy")
        hard = await Client.connect(url, name="Val")
        await hard.create_table(rules=TWO)
        await hard.add_bot("expert")
        attackers = [await _attack_table(url, f"Mal{i}") for i in range(2)]
        # Both start at once: their eighteen experts queue together, whatever the time
        # seating them took (one worker thinks half a second on each).
        await asyncio.gather(*(a.start() for a in attackers))
        await until(lambda: hub.bots.search.waiting() >= 15)
        # An easy bot answers from the quick lane while the experts still wait for theirs.
        await easy.start()
        await easy.expect(chosen_by(1))
        assert hub.bots.search.waiting() > 0
        # An expert of another table waits for its turn of the round, not for all eighteen.
        await hard.start()
        await hard.expect(chosen_by(1))
        assert hub.bots.search.waiting() > 0
        await ping(easy)
        for c in (easy, hard, *attackers):
            await c.close()


@pytest.mark.asyncio
async def test_priority_follows_the_people_at_the_table(tmp_path: Path) -> None:
    settings = sqlite(tmp_path, disconnect_grace=600.0)
    async with running_hub(settings) as (url, hub):
        ana = await Client.connect(url, name="Ana")
        code = (await ana.create_table(rules=TWO)).table.code
        await ana.add_bot("medium")
        await ana.start()
        actor = hub.tables.held[code]
        assert actor.bot_priority() == PEOPLE
        token = ana.token
        await ana.close()
        await until(lambda: actor.bot_priority() == AWAY)
        back = await Client.connect(url, token=token, table=code)
        await until(lambda: actor.bot_priority() == PEOPLE)
        await back.close()
    # After a restart nobody is connected: every table's bots think at the lowest priority.
    async with running_hub(settings) as (url, hub):
        assert hub.tables.held[code].bot_priority() == AWAY


class Stand:
    """A table as the pool sees it (:class:`~nimmt.server.workers.botpool.Owner`), whose priority
    the test sets."""

    def __init__(self, code: str, priority: int | None) -> None:
        self.code = code
        self.priority = priority

    def bot_priority(self) -> int | None:
        return self.priority


@pytest.mark.asyncio
async def test_pool_serves_people_first_away_last_and_nobody_never() -> None:
    view = Game(Rules.parse("classic", players=4), seed=1).view(0)
    pool = BotPool(workers=1, seconds=0.3, grace=2.0)
    await pool.start()
    try:
        await pool.ready()
        busy = asyncio.create_task(pool.decide(Stand("BUSY", PEOPLE), 0, "expert", 1, view))
        await until(lambda: pool.search.busy() == 1)
        order: list[str] = []
        stands = {"away": Stand("AWAY", AWAY), "empty": Stand("EMPTY", None),
                  "people": Stand("PEOPLE", PEOPLE)}
        tasks = {}
        for name, stand in stands.items():  # queued in this order, behind the busy one
            task = asyncio.create_task(pool.decide(stand, 0, "mcs", 2, view))
            task.add_done_callback(lambda _t, n=name: order.append(n))
            tasks[name] = task
        assert (await busy).decision.value in view.options
        await tasks["away"]
        assert order == ["people", "away"]
        await asyncio.sleep(0.5)  # an idle worker, and still nothing for a table of nobody
        assert not tasks["empty"].done() and pool.search.waiting() == 1
        stands["empty"].priority = PEOPLE  # someone sat down again
        pool.wake()
        assert (await tasks["empty"]).decision.value in view.options
        # The default player (for absent people) is quick: its own lane.
        assert lane_of("default") == "quick"
        answer = await pool.decide(stands["people"], 0, "default", 3, view)
        assert answer.decision.value in view.options and answer.fault is None
        pids = pool.pids()
        assert len(pids) == 2
    finally:
        await pool.close()
    assert pool.pids() == [] and not [p for p in pids if _alive(p)]


@pytest.mark.asyncio
async def test_a_cancelled_decision_leaves_the_queue() -> None:
    view = Game(Rules.parse("classic", players=3), seed=2).view(1)
    pool = BotPool(workers=1, seconds=0.3, grace=2.0)
    await pool.start()
    try:
        stand = Stand("GONE", None)  # never served: its jobs wait
        task = asyncio.create_task(pool.decide(stand, 1, "expert", 1, view))
        await until(lambda: pool.search.waiting() == 1)
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task
        assert pool.search.waiting() == 0
    finally:
        await pool.close()


@pytest.mark.asyncio
async def test_search_workers_without_numba_are_reported(
        monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture) -> None:
    """Without the compiled kernel the search bots are weak and miss their deadline at big
    tables: the server says so when its search workers start (they report it when ready)."""
    caplog.set_level(logging.WARNING, "nimmt.server.bots")
    pool = BotPool(workers=1, seconds=0.3, grace=2.0)
    await pool.start()
    try:
        await pool.ready()
    finally:
        await pool.close()
    assert pool.compiled is NUMBA
    assert ("kernel is not compiled" in caplog.text) is not NUMBA
    monkeypatch.setenv("NIMMT_NO_NUMBA", "1")  # the workers are spawned with it
    pool = BotPool(workers=2, seconds=0.3, grace=2.0)
    await pool.start()
    try:
        await pool.ready()
    finally:
        await pool.close()
    assert pool.compiled is False
    assert caplog.text.count("kernel is not compiled") == 1 + (not NUMBA)  # once per pool


# -- the wire ------------------------------------------------------------------------------


def _views() -> list[View]:
    out = []
    for spec in ("classic", "category5+tactics", "classic+professional+jokers", "classic+logic",
                 "classic+open-hands", "classic+open"):
        game = Game(Rules.parse(spec, players=4), seed=5)
        for _ in range(6):
            pending = game.pending
            if pending is None:
                break
            for p in pending.players:
                out.append(game.view(p))
            p = pending.players[0]
            option = game.legal(p)[0]
            if pending.kind.value == "card":
                game.play_card(p, option)
            elif pending.kind.value == "row":
                game.take_row(p, option)
            else:
                game.draft_card(p, option)
    return out


def test_views_cross_to_the_workers_in_this_build() -> None:
    """The mypyc-compiled View, Table and Pending do not unpickle by default (their native
    ``__new__`` wants every field); the pool sends them as constructor and fields."""
    import dataclasses

    for view in _views():
        spec, seed, seconds, back = pickle.loads(dump_job("medium", 7, 0.5, view))
        assert (spec, seed, seconds) == ("medium", 7, 0.5)
        for f in dataclasses.fields(View):
            assert getattr(back, f.name) == getattr(view, f.name), f.name
        assert back.options == view.options and back.rows == view.rows
