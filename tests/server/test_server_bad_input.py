"""Bad input of every kind: a clear error code, the table unchanged, everyone else served."""

from __future__ import annotations

import asyncio
import contextlib
import json
import random
from pathlib import Path

import pytest
from server_helpers import close_all, error_for, play_out, seat_table, state_of

from conftest import make_settings
from nimmt.client import Client
from nimmt.server.run import running_server

pytestmark = [pytest.mark.asyncio, pytest.mark.timeout(300)]

RULES = {"preset": "classic", "players": 2, "end": "rounds", "rounds": 1}


async def test_every_kind_of_bad_input(server: str) -> None:
    clients, code = await seat_table(server, RULES, humans=2)
    ana, bob = clients
    await ana.expect(lambda m: ana.prompt is not None)
    assert ana.prompt is not None
    hand = ana.prompt.options
    before = await state_of(ana, code)
    cases: list[tuple[str | bytes, str]] = [
        ("{not json", "bad_json"),
        ("[1, 2]", "bad_json"),
        (b"\xff\xfe", "bad_json"),
        (json.dumps({"type": "fly"}), "bad_message"),
        (json.dumps({"card": 5}), "bad_message"),
        (json.dumps({"type": "play_card"}), "bad_message"),
        (json.dumps({"type": "play_card", "card": "5"}), "bad_message"),
        (json.dumps({"type": "play_card", "card": 5, "extra": 1}), "bad_message"),
        (json.dumps({"type": "play_card", "card": hand[0], "seat": 1}), "bad_message"),
        (json.dumps({"type": "play_card", "card": hand[0], "player": 1}), "bad_message"),
        (json.dumps({"type": "play_card", "card": 105}), "bad_message"),
        (json.dumps({"type": "take_row", "row": 7}), "not_your_turn"),
        (json.dumps({"type": "draft_card", "card": 5}), "not_your_turn"),
        (json.dumps({"type": "play_card", "card": next(c for c in range(1, 105)
                                                       if c not in hand)}), "card_not_in_hand"),
        (json.dumps({"type": "hello", "name": "again"}), "bad_message"),
        (json.dumps({"type": "kick", "seat": 1, "ref": "x" * 65}), "bad_message"),
        (json.dumps({"type": "start"}), "already_started"),
        (json.dumps({"type": "sit", "seat": 1}), "seat_taken"),
        (json.dumps({"type": "join", "table": "ZZZZZZ"}), "no_table"),
        (json.dumps({"type": "chat", "text": "x" * 5000}), "bad_message"),
        ("x" * 9000, "frame_too_large"),
    ]
    for frame, code_ in cases:
        err = await error_for(ana, frame)
        assert err.code == code_, (frame[:60], err)
    after = await state_of(ana, code)
    assert after == before
    # The server still serves everyone: the game plays to its end.
    await play_out([ana, bob])
    await close_all(clients)


async def test_acting_for_another_seat_or_out_of_turn(server: str) -> None:
    rules = {"preset": "classic", "players": 2, "variants": ["open"], "end": "rounds",
             "rounds": 1}
    clients, code = await seat_table(server, rules, humans=2)
    # In open play one player chooses at a time: the other is out of turn.
    waiting = None
    for c in clients:
        state = await c.join(code)
        if state.prompt is None:
            waiting = c
    assert waiting is not None and waiting.state is not None
    hand = waiting.state.view.hand if waiting.state.view else ()
    before = await state_of(waiting, code)
    err = await error_for(waiting, json.dumps({"type": "play_card", "card": hand[0]}))
    assert err.code == "not_your_turn"
    assert await state_of(waiting, code) == before
    await close_all(clients)


async def test_not_authenticated_and_wrong_token(server: str) -> None:
    c = await Client.connect(server, name="Ana")
    await c.close()
    from websockets.asyncio.client import connect

    from nimmt.client import ws_url

    async with connect(ws_url(server)) as ws:
        await ws.send(json.dumps({"type": "lobby"}))
        assert json.loads(await ws.recv())["code"] == "not_authenticated"
        await ws.send(json.dumps({"type": "hello", "token": "nope"}))
        assert json.loads(await ws.recv())["code"] == "bad_token"
        await ws.send(json.dumps({"type": "hello"}))
        assert json.loads(await ws.recv())["code"] == "bad_message"
        await ws.send(json.dumps({"type": "hello", "name": "a\u0000b"}))
        assert json.loads(await ws.recv())["code"] == "bad_name"
        await ws.send(json.dumps({"type": "hello", "name": "x" * 30}))
        assert json.loads(await ws.recv())["code"] == "bad_name"
        await ws.send(json.dumps({"type": "hello", "name": "Bob", "version": 99}))
        assert json.loads(await ws.recv())["code"] == "version"
        await ws.send(json.dumps({"type": "play_card", "card": 3}))
        assert json.loads(await ws.recv())["code"] == "not_authenticated"
        await ws.send(json.dumps({"type": "hello", "name": "Bob"}))
        welcome = json.loads(await ws.recv())
        assert welcome["type"] == "welcome" and welcome["token"]
        await ws.send(json.dumps({"type": "play_card", "card": 3}))
        assert json.loads(await ws.recv())["code"] == "not_at_table"
        await ws.send(json.dumps({"type": "create_table",
                                  "rules": {"variants": ["open", "tactics"]}}))
        err = json.loads(await ws.recv())
        assert err["code"] == "bad_rules" and "open" in err["message"]


async def test_rate_limit_and_huge_frames(db_url: str, tmp_path: Path) -> None:
    settings = make_settings(db_url, tmp_path, rate=5.0, burst=10)
    async with running_server(settings) as url:
        clients, _code = await seat_table(url, RULES, humans=2)
        ana, bob = clients
        loop = asyncio.get_running_loop()
        start = last = loop.time()
        for _ in range(30):
            await ana.send({"type": "ping"})
        codes = []
        with contextlib.suppress(TimeoutError):
            while True:
                m = await ana.recv(2)
                last = loop.time()
                codes.append(m.type if m.type != "error" else getattr(m, "code", ""))
        # What is left of the burst of 10 (seating the table took some) and what refilled
        # meanwhile (5 a second) is answered; the rest is dropped, and that is said once a
        # second at most (no flood back).
        seconds = last - start
        assert 3 <= codes.count("pong") <= 10 + 5 * seconds + 1, (codes, seconds)
        assert 1 <= codes.count("rate_limited") <= 1 + seconds, (codes, seconds)
        # A frame past the transport limit closes only that connection.
        from websockets.exceptions import ConnectionClosed

        with pytest.raises(ConnectionClosed) as closed:
            await ana.send_raw("x" * (8 * settings.max_frame + 10))
            for _ in range(1000):
                await ana.recv(30)
        assert closed.value.rcvd is not None and closed.value.rcvd.code == 1009
        # Bob is still served.
        assert (await bob.request({"type": "ping"}, want="pong")).type == "pong"
        await close_all(clients)


async def test_a_row_that_does_not_exist(server: str) -> None:
    """When a row choice is asked, rows 0 and 5 are refused and nothing changes."""
    clients, code = await seat_table(server, RULES, humans=2, prefix="W")
    rng = random.Random(11)
    seen_row = False
    for _game in range(8):
        answered: set[tuple[str | None, str]] = set()
        while not all(c.game_over for c in clients):
            for c in clients:
                p = c.prompt
                if p is None or (c.name, p.key) in answered:
                    continue
                answered.add((c.name, p.key))
                if p.kind == "row":
                    seen_row = True
                    before = await state_of(c, code)
                    for bad in (0, 5, -1):
                        err = await error_for(c, json.dumps({"type": "take_row", "row": bad}))
                        assert err.code == "no_such_row"
                    assert await state_of(c, code) == before
                    assert c.prompt is not None and c.prompt.kind == "row"
                await c.answer(p, rng)
            for c in clients:
                if not c.game_over and (c.prompt is None
                                        or (c.name, c.prompt.key) in answered):
                    with contextlib.suppress(TimeoutError):
                        c.inbox.append(await c.recv(0.05))
        if seen_row:
            break
        await clients[0].act("rematch")
        for c in clients:
            if c.game_over:
                await c.expect(lambda m, c=c: not c.game_over)
    assert seen_row
    await close_all(clients)
