"""Hints and analyses as bounded, fair, cancellable work: the tutor's lanes through a real
server (in-process on loopback, and ``nimmt serve`` in its own process for shutdown and
SIGKILL).

Long analyses are made long by their settings (a ten-player game, 100,000 rollouts per
decision): each would take minutes if nothing stopped it."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import signal
import subprocess
import time
import urllib.parse
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio
from server_helpers import (
    LIFTED_LIMITS,
    api,
    close_all,
    eventually,
    play_out,
    seat_table,
    start_server,
)
from test_server_tutor import games_of, status_of

from conftest import make_settings
from nimmt.client import Client, ServerError
from nimmt.narrate import narrator
from nimmt.record import record_from_dict
from nimmt.server.root import Server
from nimmt.server.run import running_hub
from nimmt.sim.analysis import analyse
from nimmt.wire import Hint

pytestmark = [pytest.mark.asyncio, pytest.mark.timeout(600)]

TEN = {"preset": "classic", "players": 10, "end": "rounds", "rounds": 1}
THREE = {"preset": "classic", "players": 3, "end": "rounds", "rounds": 1}
#: Analyses that would take minutes: ten players, the most rollouts a decision may have.
LONG = {"analysis_rollouts": 100_000, "analysis_decision_seconds": 5.0,
        "analysis_seconds": 600.0}


@pytest_asyncio.fixture
async def make_hub(tmp_path: Path) -> AsyncIterator[Any]:
    """Start a server with these settings (on top of the test defaults); stopped at the end."""
    stack: list[Any] = []

    async def start(**changes: Any) -> tuple[str, Server]:
        settings = make_settings(f"sqlite+aiosqlite:///{tmp_path / 'nimmt.db'}", tmp_path,
                                 tutor_workers=1, analysis_workers=1, **changes)
        running = running_hub(settings)
        stack.append(running)
        return await running.__aenter__()

    yield start
    for running in reversed(stack):
        await running.__aexit__(None, None, None)


async def finished_game(url: str, prefix: str, rules: dict[str, Any] = TEN) -> int:
    """The id of a finished game: one person (``{prefix}0``) and bots, played out."""
    clients, _code = await seat_table(url, rules, 1, ["easy"], prefix=prefix)
    try:
        await play_out(clients)
    finally:
        await close_all(clients)
    return int((await games_of(url, f"{prefix}0"))[0]["id"])


class Pending:
    """An HTTP request held open on a socket of its own, from client address ``source``."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.reader = reader
        self.writer = writer

    @classmethod
    async def get(cls, url: str, path: str, source: str = "127.0.0.1") -> Pending:
        u = urllib.parse.urlsplit(url)
        reader, writer = await asyncio.open_connection(u.hostname, u.port,
                                                       local_addr=(source, 0))
        writer.write(f"GET {path} HTTP/1.1\r\nHost: {u.netloc}\r\n\r\n".encode())
        await writer.drain()
        return cls(reader, writer)

    async def answer(self, timeout: float = 120) -> tuple[int, dict[str, str], Any]:
        """The status, headers and JSON body of the answer."""
        async with asyncio.timeout(timeout):
            status = int((await self.reader.readline()).split()[1])
            headers: dict[str, str] = {}
            while (line := (await self.reader.readline()).strip()):
                name, _, value = line.decode().partition(":")
                headers[name.strip().lower()] = value.strip()
            body = await self.reader.readexactly(int(headers["content-length"]))
        return status, headers, json.loads(body)

    async def leave(self) -> None:
        """The client goes away without reading its answer."""
        self.writer.close()
        await self.writer.wait_closed()


async def until(check: Callable[[], bool], what: str, timeout: float = 60) -> None:
    """Wait until ``check()`` holds (a state of the server's lanes)."""

    async def holds() -> bool:
        return check()

    await eventually(holds, what, timeout)


async def ask(url: str, path: str, source: str) -> tuple[int, dict[str, str], Any]:
    pending = await Pending.get(url, path, source)
    try:
        return await pending.answer()
    finally:
        await pending.leave()


def alive(pid: int) -> bool:
    """Whether process ``pid`` runs (a zombie waiting to be collected does not)."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(") ", 1)[1][0] != "Z"
    except OSError:
        return False


async def seated_for_hints(url: str, prefix: str) -> Client:
    """A person at a table of their own with a decision pending (hints are for that)."""
    (client,), _code = await seat_table(url, THREE, 1, ["easy"], prefix=prefix)
    if client.prompt is None:
        await client.expect(lambda m: client.prompt is not None)
    return client


# -- budgets ------------------------------------------------------------------------------------


async def test_a_long_analysis_stops_at_its_budget(make_hub: Any) -> None:
    """Each decision's search stops at its seconds, and the game's at its total: the answer
    comes at the budget, marked partial, with the decisions reviewed so far."""
    url, hub = await make_hub(analysis_rollouts=100_000, analysis_decision_seconds=0.3,
                              analysis_seconds=2.0, advice_grace=60.0)
    game_id = await finished_game(url, "L")
    loop = asyncio.get_running_loop()
    asked = asyncio.create_task(status_of(f"{url}/api/games/{game_id}/analysis"))
    lane = hub.tutor.analyses
    await until(lambda: bool(lane.running()), "the analysis runs", 240)
    job = lane.running()[0]
    status, data = await asked
    took = loop.time() - job.started
    assert status == 200, data
    # Unbounded, its hundred decisions would take 0.3 s each at least (30 s).
    assert took < 2.0 + 0.3 + 10.0, took
    record = record_from_dict((await api(f"{url}/api/games/{game_id}"))["record"])
    everything = analyse(record, rollouts=10)
    assert data["partial"] is True and data["unreviewed"] > 0
    assert len(data["decisions"]) + data["unreviewed"] == len(everything.decisions)
    assert [d["index"] for d in data["decisions"]] == [
        d.index for d in everything.decisions[:len(data["decisions"])]]
    assert data["text"][0] == narrator("en")._n(
        "The time for the analysis ran out: it covers the first {count} decision.",
        "The time for the analysis ran out: it covers the first {count} decisions.",
        len(data["decisions"]))
    assert lane.failed == 0  # stopped by its own budget, not by the server


# -- cancellation -------------------------------------------------------------------------------


async def test_an_analysis_whose_client_leaves_is_cancelled(make_hub: Any) -> None:
    url, hub = await make_hub(hint_rollouts=200, **LONG)
    game_id = await finished_game(url, "C")
    ana = await seated_for_hints(url, "H")
    try:
        await ana.hint(timeout=240)  # the hint lane's worker is up
        lane = hub.tutor.analyses
        pending = await Pending.get(url, f"/api/games/{game_id}/analysis")
        await until(lambda: bool(lane.running()), "the analysis runs", 240)
        worker = lane.workers[0].process
        assert worker is not None and worker.pid is not None
        pid = worker.pid
        await pending.leave()
        # Nobody waits for it: its worker is stopped, and nothing of it is kept.
        await until(lambda: not alive(pid), "its worker stops", 30)
        # The lane counts it once the stop it awaited is done, after the process ended.
        await until(lambda: lane.abandoned == 1 and not lane.running()
                    and not hub.analyses.analysing, "the lane lets it go", 30)
        assert game_id not in hub.analyses.done
        # A hint right after is answered promptly; the lane takes the next analysis.
        t0 = time.monotonic()
        hint = await ana.hint(timeout=60)
        assert isinstance(hint, Hint) and time.monotonic() - t0 < 15
        again = await Pending.get(url, f"/api/games/{game_id}/analysis")
        await until(lambda: bool(lane.running()), "a new analysis runs", 240)
        await again.leave()
    finally:
        await ana.close()


# -- fair lanes ---------------------------------------------------------------------------------


async def test_hints_never_wait_behind_analyses_and_a_full_lane_says_how_long(
    make_hub: Any,
) -> None:
    """Two addresses fill the analysis lane (two places, one per address); a third address
    is told how long to wait (503), the first is told its own is being computed (429), and
    a hint is answered at once meanwhile."""
    url, hub = await make_hub(analysis_queue=2, analyses_per_address=1, hint_rollouts=200,
                              **LONG)
    ids = [await finished_game(url, f"F{k}") for k in range(3)]
    ana = await seated_for_hints(url, "H")
    held: list[Pending] = []
    try:
        await ana.hint(timeout=240)  # the hint lane's worker is up
        lane = hub.tutor.analyses
        held.append(await Pending.get(url, f"/api/games/{ids[0]}/analysis", "127.0.0.2"))
        await until(lambda: bool(lane.running()), "an analysis runs", 240)
        held.append(await Pending.get(url, f"/api/games/{ids[1]}/analysis", "127.0.0.3"))
        await until(lambda: lane.pending() == 2, "two analyses", 30)
        status, headers, body = await ask(url, f"/api/games/{ids[2]}/analysis", "127.0.0.4")
        assert status == 503, body
        wait = int(headers["retry-after"])
        assert wait >= 1 and body["retry_after"] == wait
        assert body["text"] == narrator("en")._n(
            "The expert is busy. Please try again in about {count} second.",
            "The expert is busy. Please try again in about {count} seconds.", wait)
        status, headers, body = await ask(url, f"/api/games/{ids[2]}/analysis?lang=sr",
                                          "127.0.0.2")
        assert status == 429, body
        assert int(headers["retry-after"]) == body["retry_after"] >= 1
        assert "sekund" in body["text"]
        # The analyses fill their lane; a hint does not wait for them. A decision answered
        # stays the client's prompt until the table's next frame: the next one is awaited.
        answered: str | None = None
        for _ in range(3):
            if ana.prompt is None or ana.prompt.key == answered:
                await ana.expect(
                    lambda m, answered=answered: ana.prompt is not None
                    and ana.prompt.key != answered)
            t0 = time.monotonic()
            hint = await ana.hint(timeout=60)
            assert isinstance(hint, Hint) and time.monotonic() - t0 < 15
            assert lane.pending() == 2
            prompt = ana.prompt
            assert prompt is not None
            answered = prompt.key
            await ana.answer(prompt)
            if ana.game_over:
                break
    finally:
        for pending in held:
            await pending.leave()
        await ana.close()


async def test_one_player_takes_one_hint_place_across_tables_and_busy_says_how_long(
    make_hub: Any,
) -> None:
    """One player at three tables asks at all three at once: one hint is computed, the
    others are told theirs is pending (with the wait); another player still gets a place
    of the two the lane has, and a third player is told how long to wait."""
    url, hub = await make_hub(tutor_queue=2, hint_rollouts=1_000_000, hint_seconds=5.0)
    lane = hub.tutor.hints
    ana = await seated_for_hints(url, "A")
    assert ana.token is not None
    mine = [ana]
    bob = await seated_for_hints(url, "B")
    cleo = await seated_for_hints(url, "C")
    try:
        for _ in range(2):
            c = await Client.connect(url, token=ana.token)
            await c.create_table(rules=THREE)
            await c.add_bot("easy")
            await c.add_bot("easy")
            await c.start()
            await c.expect(lambda m, c=c: c.prompt is not None)
            mine.append(c)
        await ana.send({"type": "hint", "ref": "a"})
        await until(lambda: lane.pending() == 1, "Ana's hint is queued")
        for i, c in enumerate(mine[1:]):
            with pytest.raises(ServerError) as pending:
                await c.hint()
            assert pending.value.code == "hint_pending", i
            wait = pending.value.error.retry_after
            assert wait is not None and wait >= 1
        # Bob's hint takes the lane's second place; Cleo is told how long to wait.
        await bob.send({"type": "hint", "ref": "b"})
        await until(lambda: lane.pending() == 2, "Bob's hint is queued")
        with pytest.raises(ServerError) as busy:
            await cleo.hint()
        assert busy.value.code == "busy"
        wait = busy.value.error.retry_after
        assert wait is not None and wait >= 1
        for c, ref in ((ana, "a"), (bob, "b")):
            hint = await c.expect(lambda m, ref=ref: getattr(m, "ref", None) == ref, 240)
            assert isinstance(hint, Hint), hint
    finally:
        await close_all([*mine, bob, cleo])


# -- no process outlives the server -------------------------------------------------------------


def descendants(root: int) -> set[int]:
    """Every process below ``root`` (children, their children, …), from /proc."""
    parents: dict[int, int] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as f:
                parents[int(entry)] = int(f.read().rsplit(") ", 1)[1].split()[1])
        except (OSError, IndexError, ValueError):
            continue
    found: set[int] = set()
    todo = [root]
    while todo:
        pid = todo.pop()
        kids = [p for p, pp in parents.items() if pp == pid and p not in found]
        found.update(kids)
        todo.extend(kids)
    return found


def cpu_seconds(pid: int) -> float:
    """User and system CPU seconds process ``pid`` has used (0 when it is gone)."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(") ", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


async def outliving(pids: set[int], grace: float) -> list[str]:
    """The command lines of ``pids`` still running ``grace`` seconds on (waited for as they
    go: a process the server ended may take a moment to be torn down on a busy machine, and
    multiprocessing's resource tracker leaves when the last of its users has gone)."""
    deadline = time.monotonic() + grace
    while any(alive(p) for p in pids) and time.monotonic() < deadline:
        await asyncio.sleep(0.05)
    left = []
    for pid in pids:
        if alive(pid):
            try:
                with open(f"/proc/{pid}/cmdline", "rb") as f:
                    words = f.read().split(b"\0")
                left.append(f"{pid}: {b' '.join(words).decode()[:200]}")
            except OSError:
                pass
    return left


def leave_nothing(pids: set[int]) -> None:
    """Kill what a failed test left running (a worker that outlived its server)."""
    for pid in pids:
        if alive(pid):
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)


async def serving_an_analysis(tmp_path: Path, **env: str) -> tuple[
        subprocess.Popen[str], str, Pending, set[int]]:
    """``nimmt serve`` computing a long analysis for a client that waits: the server, its
    address, the waiting request, and the server's worker processes by then."""
    full = {**os.environ, **LIFTED_LIMITS, "NIMMT_DATA_DIR": str(tmp_path / "data"),
            "NIMMT_ANALYSIS_ROLLOUTS": "100000", "NIMMT_ANALYSIS_DECISION_SECONDS": "5",
            "NIMMT_ANALYSIS_SECONDS": "600", **env}
    proc, url = await start_server([], full)
    try:
        game_id = await finished_game(url, "K")
        before = descendants(proc.pid)
        pending = await Pending.get(url, f"/api/games/{game_id}/analysis")
        new: set[int] = set()

        async def computing() -> bool:
            new.update(descendants(proc.pid) - before)
            # The analysis worker has loaded the kernel (about a second of CPU) and searches.
            return any(cpu_seconds(p) > 3.0 for p in new)

        await eventually(computing, "the analysis worker computes", 240)
    except BaseException:
        left = descendants(proc.pid)
        proc.kill()
        proc.wait(30)
        leave_nothing(left)
        raise
    return proc, url, pending, descendants(proc.pid)


async def test_sigkill_leaves_no_process_behind(tmp_path: Path) -> None:
    """A server killed while an analysis computes, expert bots play and a game record
    was built in a read process: within a second every process it started is gone,
    multiprocessing's resource tracker included (a read process once lived on, and the
    tracker with it, since every process of that pool holds its queue's pipe)."""
    proc, url, pending, workers = await serving_an_analysis(tmp_path)
    host = None
    try:
        assert workers
        game_id = int((await games_of(url, "K0"))[0]["id"])
        assert (await api(f"{url}/api/games/{game_id}"))["id"] == game_id  # a read process
        host = await Client.connect(url, name="Expertise")
        await host.create_table(rules={"players": 3})
        for _ in range(2):
            await host.add_bot("expert")
        await host.start()
        msg = await host.expect(lambda m: getattr(m, "prompt", None) is not None, 120)
        await host.answer(msg.prompt)  # type: ignore[attr-defined]
        workers = descendants(proc.pid)
        os.kill(proc.pid, signal.SIGKILL)
        await asyncio.to_thread(proc.wait, 30)
        left = await outliving(workers, 1.0)
        assert not left, f"processes outlived the server by a second: {left}"
    finally:
        await pending.leave()
        if host is not None:
            with contextlib.suppress(Exception):
                await host.close()
        if proc.poll() is None:
            proc.kill()
            proc.wait(30)
        leave_nothing(workers)


async def test_sigterm_with_an_analysis_pending_stops_within_the_drain_time(
    tmp_path: Path,
) -> None:
    proc, _url, pending, workers = await serving_an_analysis(tmp_path,
                                                             NIMMT_DRAIN_SECONDS="3")
    try:
        t0 = time.monotonic()
        proc.send_signal(signal.SIGTERM)
        # The pending analysis is refused at once, not computed to its end.
        status, headers, body = await pending.answer(60)
        assert status == 503 and "retry-after" not in headers, body
        await asyncio.to_thread(proc.wait, 60)
        took = time.monotonic() - t0
        assert proc.returncode in (0, -signal.SIGTERM), proc.stderr.read() if proc.stderr else ""
        # Within the drain time and what stopping the workers takes (a busy machine).
        assert took < 3 + 12, took
        left = await outliving(workers, 10)
        assert not left, f"worker processes outlived the server: {left}"
    finally:
        await pending.leave()
        if proc.poll() is None:
            proc.kill()
            proc.wait(30)
        leave_nothing(workers)
