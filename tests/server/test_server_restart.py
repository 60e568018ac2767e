"""A real ``nimmt serve`` process killed with SIGKILL mid-round resumes every table exactly."""

from __future__ import annotations

import asyncio
import os
import random
import signal
import subprocess
from pathlib import Path

import pytest
from server_helpers import LIFTED_LIMITS, play_until_key, start_server

from nimmt.client import Client, ServerError
from nimmt.wire import TableState

pytestmark = [pytest.mark.asyncio, pytest.mark.timeout(300)]


async def snapshot(client: Client, code: str) -> TableState:
    state = await client.join(code)
    return state


async def test_sigkill_mid_round_resumes_exactly(db_url: str, tmp_path: Path) -> None:
    env = {**os.environ, **LIFTED_LIMITS, "NIMMT_DATA_DIR": str(tmp_path / "data"),
           "NIMMT_DISCONNECT_GRACE": "60"}
    args = [] if db_url.startswith("sqlite") else ["--db", db_url]
    proc, url = await start_server(args, env)
    try:
        names = ["Ana", "Bob", "Cleo", "Dan"]
        clients = [await Client.connect(url, name=n) for n in names]
        state = await clients[0].create_table(rules={"preset": "classic", "players": 4})
        code = state.table.code
        for c in clients[1:]:
            await c.join(code)
            await c.sit()
        await clients[0].start()
        # Everyone plays until turn 4 is asked; then two choose (one twice) and the server dies.
        await asyncio.gather(*(play_until_key(c, "1.1.4.card", random.Random(i))
                               for i, c in enumerate(clients)))
        mine: dict[int, int] = {}
        for i in (1, 3):
            prompt = clients[i].prompt
            assert prompt is not None
            await clients[i].play_card(prompt.options[0])
            await clients[i].play_card(prompt.options[-1])
            mine[i] = prompt.options[-1]
        before = [await snapshot(c, code) for c in clients]
        # Two more tables: one still open (a person and a bot seated), one in play against bots
        # in the logic draft.
        eve = await Client.connect(url, name="Eve")
        open_code = (await eve.create_table(rules={"preset": "classic", "players": 3},
                                            rated=True)).table.code
        await eve.add_bot("medium")
        fay = await Client.connect(url, name="Fay")
        bot_code = (await fay.create_table(rules={"preset": "classic", "players": 3,
                                                  "variants": ["logic"]})).table.code
        await fay.add_bot("easy")
        await fay.add_bot("medium")
        await fay.start()
        await fay.expect(lambda m: fay.prompt is not None)
        others = [await snapshot(eve, open_code), await snapshot(fay, bot_code)]
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(10)
        for c in [*clients, eve, fay]:
            await c.close()

        proc, url = await start_server(args, env)
        # An unstarted table is not brought back (anyone can open them by the dozen; its
        # host opens a new one); tables in play are.
        assert eve.token is not None
        back = await Client.connect(url, token=eve.token)
        with pytest.raises(ServerError) as err:
            await back.join(open_code)
        assert err.value.code == "no_table"
        await back.close()
        for who, code_, old_state in ((fay, bot_code, others[1]),):
            assert who.token is not None
            back = await Client.connect(url, token=who.token)
            st = await back.join(code_)
            assert st.seq == old_state.seq and st.view == old_state.view
            assert st.table.model_dump() | {"seats": None} == (
                old_state.table.model_dump() | {"seats": None})
            assert [(x.name, x.kind, x.bot) for x in st.table.seats] == [
                (x.name, x.kind, x.bot) for x in old_state.table.seats]
            await back.close()
        again = []
        for c, old in zip(clients, before, strict=True):
            assert c.token is not None
            fresh = await Client.connect(url, token=c.token, table=code, last_seq=old.seq)
            st = fresh.state if fresh.state is not None else await fresh.expect(
                lambda m: m.type == "table_state")
            assert isinstance(st, TableState)
            again.append(fresh)
            assert st.seq == old.seq
            assert st.view == old.view
            assert st.you == old.you
        for i, card in mine.items():
            st = again[i].state
            assert st is not None and st.view is not None
            assert st.view.my_choice == card
        # The game carries on to the end after the restart.
        await asyncio.gather(*(c.play_until_over(random.Random(i)) for i, c in enumerate(again)))
        for c in again:
            await c.close()
    finally:
        if proc.poll() is None:
            proc.send_signal(signal.SIGINT)
            try:
                proc.wait(20)
            except subprocess.TimeoutExpired:
                proc.kill()
