"""Stopping a server process loses nothing: a single process drained by SIGTERM comes back
with its games, and a cluster of ``nimmt serve --redis`` processes restarted one after
another keeps every game, acknowledged decision and chat line (docs/operations.md,
"Rolling restarts").

The players are :class:`~nimmt.client_sync.SyncClient` (the terminal client's), which
reconnect by themselves; nothing here reconnects for them.
"""

from __future__ import annotations

import asyncio
import os
import random
import signal
from pathlib import Path

import pytest
import rolling_helpers as rolling
from server_helpers import LIFTED_LIMITS

from conftest import make_settings
from nimmt.client import Client, ServerError
from nimmt.server.run import running_hub
from nimmt.wire import Error

pytestmark = [pytest.mark.asyncio, pytest.mark.timeout(400)]


async def test_a_rolling_restart_of_two_processes_loses_nothing(
        rolling_env: dict[str, str], pg_url: str, tmp_path: Path) -> None:
    a, b = (rolling.Process(rolling_env, tmp_path, name) for name in ("a", "b"))
    await a.start()
    await b.start()
    seats: list[rolling.Seat] = []
    try:
        # Four tables, each with a player on either process and a bot; the hosts alternate.
        codes, seats = await rolling.seat_tables([(a.url, b.url), (b.url, a.url)] * 2)
        threads, stop = rolling.play_all(seats)
        drains: list[float] = []
        for proc in (a, b):
            # Games are under way (every player decided since the last restart) ...
            since = [len(s.decisions) for s in seats]
            await rolling.wait_for(lambda since=since: rolling.moved_on(seats, since),
                                   "play before a restart")
            backs = [s.backs for s in seats]
            drains.append(await proc.stop())
            await proc.start()
            # ... every player that was on it is back, and everyone plays on.
            on_it = [s for s in seats if s.client.url == proc.url]
            await rolling.wait_for(lambda on_it=on_it, backs=backs: all(
                s.backs > backs[seats.index(s)] for s in on_it), "reconnected")
            since = [len(s.decisions) for s in seats]
            await rolling.wait_for(lambda since=since: rolling.moved_on(seats, since),
                                   "play after a restart",
                                   detail=lambda: rolling.seats_detail(seats))
        await rolling.nothing_lost(seats, threads, stop, codes, drains, (a, b), pg_url)
    finally:
        rolling.close_all(seats, (a, b))


async def test_a_single_process_drains_and_comes_back_with_its_games(
        tmp_path: Path) -> None:
    env = {**os.environ, **LIFTED_LIMITS, "NIMMT_DATA_DIR": str(tmp_path / "data"),
           "NIMMT_DRAIN_SECONDS": str(rolling.DRAIN), "NIMMT_BOT_WORKERS": "1",
           "NIMMT_DISCONNECT_GRACE": "120"}
    server = rolling.Process(env, tmp_path, "one")
    await server.start()
    try:
        ana = await Client.connect(server.url, name="Ana", lang="sr")
        code = (await ana.create_table(rules=rolling.RULES)).table.code
        await ana.add_bot("easy")
        await ana.add_bot("easy")
        await ana.start()
        rng = random.Random(5)
        # Mid-game: Ana chooses, and is acknowledged.
        while ana.prompt is None:
            ana.inbox.append(await ana.recv())
        prompt = ana.prompt
        await ana.answer(prompt, rng)
        chosen = ana.state
        await ana.chat("do you hear me")
        seq = ana.seq
        stopping = asyncio.create_task(server.stop())
        # She is told, in her language, then the connection closes with 1012.
        told = await ana.expect(lambda m: isinstance(m, Error), 30)
        assert isinstance(told, Error) and told.code == "restarting"
        assert told.text == "Server se ponovo pokreće. Za trenutak ćete biti ponovo povezani."
        with pytest.raises(Exception) as closed:
            while True:
                await ana.recv(30)
        rcvd = getattr(closed.value, "rcvd", None)
        assert rcvd is not None and rcvd.code == 1012, closed.value
        assert await stopping < rolling.DRAIN + 5
        await server.start()
        back = await Client.connect(server.url, token=ana.token)
        state = await back.join(code, last_seq=seq)
        assert state.table.status == "playing"
        assert chosen is not None
        # The game goes on from where it was, and ends.
        await back.play_until_over(random.Random(6), 120)
        assert back.game_over
        await back.close()
    finally:
        if server.proc is not None and server.proc.poll() is None:
            server.proc.send_signal(signal.SIGINT)
            server.proc.wait(30)


async def test_a_draining_process_takes_no_new_table(db_url: str, tmp_path: Path) -> None:
    settings = make_settings(db_url, tmp_path)
    async with running_hub(settings) as (url, hub):
        ana = await Client.connect(url, name="Ana")
        code = (await ana.create_table(rules=rolling.RULES)).table.code
        bob = await Client.connect(url, name="Bob", lang="cs")
        hub.draining = True
        for attempt in (bob.create_table(rules=rolling.RULES), bob.join(code), bob.spectate(code)):
            with pytest.raises(ServerError) as refused:
                await attempt
            assert refused.value.code == "restarting"
            assert refused.value.error.text == ("Server se restartuje. Za chvíli budete znovu "
                                                "připojeni.")
        hub.draining = False
        assert (await bob.join(code)).table.code == code
        await ana.close()
        await bob.close()


async def test_a_part_that_hangs_does_not_hold_the_stop(
        db_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        caplog: pytest.LogCaptureFixture) -> None:
    """A stopping process whose bot workers never answer their stop (a wedged part) still
    stops after the bound, names the part in its log, and closes every other part."""
    import nimmt.server.root as root_module

    monkeypatch.setattr(root_module, "CLOSE_STEP_SECONDS", 0.5)
    settings = make_settings(db_url, tmp_path)
    caplog.set_level("ERROR", logger="nimmt.server")
    never = asyncio.Event()
    async with running_hub(settings) as (url, hub):
        ana = await Client.connect(url, name="Ana")
        await ana.close()
        real_close = hub.bots.close

        async def wedged() -> None:
            await never.wait()

        monkeypatch.setattr(hub.bots, "close", wedged)
        tutor_closed = asyncio.Event()
        real_tutor_close = hub.tutor.close

        async def tutor_close() -> None:
            await real_tutor_close()
            tutor_closed.set()

        monkeypatch.setattr(hub.tutor, "close", tutor_close)
    assert "the bot workers did not close within 0.5 s" in caplog.text
    assert tutor_closed.is_set()
    await real_close()
