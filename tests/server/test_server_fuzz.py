"""Protocol fuzzing: malformed and hostile frames at a live server.

Hypothesis throws random JSON, wrong types, unknown message types, huge and
odd values at a seated player's connection in the middle of a game (as many
frames as the profile's share says, tests/profiles.py). Every answer must be a
valid server message; every refusal carries a known code and a sentence and
leaves the table exactly as it was; afterwards the server still serves, and
the game plays to its end.
"""

from __future__ import annotations

import asyncio
import json
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from server_helpers import play_out, seat_table
from websockets.sync.client import ClientConnection, connect

from conftest import make_settings, module_db_url
from nimmt.client import Client, ws_url
from nimmt.server.run import running_server
from nimmt.wire import ErrorCode, parse_server
from profiles import examples

pytestmark = [pytest.mark.timeout(300)]

TYPES = ["hello", "create_table", "join", "spectate", "sit", "add_bot", "remove_bot", "start",
         "leave", "play_card", "take_row", "draft_card", "take_over", "chat", "kick",
         "rematch", "lobby", "ping", "fly", "", "PLAY_CARD"]
# Messages that would legitimately end this test's setup rather than probe it.
SPARED = {"leave", "join", "spectate", "create_table", "take_over", "kick"}

json_value = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**70), 2**70) | st.floats(allow_nan=False)
    | st.text(max_size=40),
    lambda children: st.lists(children, max_size=4)
    | st.dictionaries(st.text(max_size=8), children, max_size=4),
    max_leaves=12,
)
hostile_dict = st.fixed_dictionaries(
    {"type": st.sampled_from(TYPES)},
    optional={
        "card": json_value, "row": json_value, "seat": json_value, "text": json_value,
        "table": json_value, "ref": json_value, "strength": json_value, "rules": json_value,
        "token": json_value, "version": json_value, "last_seq": json_value, "zzz": json_value,
    },
)
frames = st.one_of(
    hostile_dict.filter(lambda d: d["type"] not in SPARED).map(json.dumps),
    json_value.map(json.dumps),
    st.text(max_size=200),
    st.binary(max_size=100),
)


@pytest.fixture(scope="module", params=["sqlite", "postgresql"])
def live(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
         ) -> Iterator[tuple[str, str, str]]:
    tmp = tmp_path_factory.mktemp("fuzz")
    db = module_db_url(request, tmp)
    ready: dict[str, Any] = {}
    started = threading.Event()
    loop_box: list[asyncio.AbstractEventLoop] = []

    async def main() -> None:
        stop = asyncio.Event()
        loop_box.append(asyncio.get_running_loop())
        ready["stop"] = stop
        cfg = make_settings(db, Path(tmp), disconnect_grace=10_000.0)
        async with running_server(cfg) as url:
            ready["url"] = url
            started.set()
            await stop.wait()

    thread = threading.Thread(target=asyncio.run, args=(main(),), daemon=True)
    thread.start()
    assert started.wait(120)
    url = ready["url"]

    async def setup() -> tuple[str, str, str]:
        rules = {"preset": "classic", "players": 2, "end": "rounds", "rounds": 1}
        clients, code = await seat_table(url, rules, humans=2, prefix="F")
        tokens = [c.token or "" for c in clients]
        for c in clients:
            await c.close()
        return code, tokens[0], tokens[1]

    code, token, other = asyncio.run(setup())
    yield url, code, token + " " + other
    loop_box[0].call_soon_threadsafe(ready["stop"].set)
    thread.join(30)


def hello(ws: ClientConnection, token: str, code: str) -> dict[str, Any]:
    ws.send(json.dumps({"type": "hello", "token": token, "table": code}))
    welcome = json.loads(ws.recv(30))
    assert welcome["type"] == "welcome"
    state = json.loads(ws.recv(30))
    assert state["type"] == "table_state"
    return state


def snapshot(ws: ClientConnection, code: str) -> dict[str, Any]:
    ws.send(json.dumps({"type": "join", "table": code, "ref": "snap"}))
    while True:
        msg = json.loads(ws.recv(30))
        if msg["type"] == "table_state" and msg.get("ref") == "snap":
            return {"seq": msg["seq"], "view": msg["view"], "seats": msg["table"]["seats"]}


def test_hostile_frames(live: tuple[str, str, str]) -> None:
    url, code, tokens = live
    token = tokens.split()[0]
    with connect(ws_url(url), max_size=None) as ws:
        hello(ws, token, code)

        # A share of the profile's examples (tests/profiles.py): 120 on CI, ten times as
        # many with --thorough; each costs a round trip to a live server.
        @settings(max_examples=examples(0.4), deadline=None,
                  suppress_health_check=[HealthCheck.function_scoped_fixture,
                                         HealthCheck.too_slow])
        @given(frame=frames)
        def probe(frame: str | bytes) -> None:
            before = snapshot(ws, code)
            ws.send(frame)
            ws.send(json.dumps({"type": "ping", "ref": "end"}))
            answers = []
            while True:
                text = ws.recv(30)
                msg = parse_server(text)  # every answer is a valid server message
                answers.append(msg)
                if msg.type == "pong" and getattr(msg, "ref", None) == "end":
                    break
            errors = [m for m in answers if m.type == "error"]
            for err in errors:
                assert isinstance(err.code, ErrorCode)  # type: ignore[union-attr]
                assert len(err.message) > 5  # type: ignore[union-attr]
            acked = any(m.type == "ack" for m in answers)
            if errors and not acked:
                assert snapshot(ws, code) == before

        probe()
        ws.send(json.dumps({"type": "ping", "ref": "alive"}))
        while json.loads(ws.recv(30)).get("ref") != "alive":
            pass

    async def finish() -> None:
        a, b = tokens.split()
        ca = await Client.connect(url, token=a, table=code)
        cb = await Client.connect(url, token=b, table=code)
        await asyncio.gather(ca.expect(lambda m: m.type == "table_state"),
                             cb.expect(lambda m: m.type == "table_state"))
        await play_out([ca, cb], seed=7)
        await ca.close()
        await cb.close()

    asyncio.run(finish())
