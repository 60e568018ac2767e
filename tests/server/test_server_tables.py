"""Table life: lobby, seats, bots, reconnect, timers, leaving, kicking, rematch, chat, ratings."""

from __future__ import annotations

import asyncio
import random
from pathlib import Path

import pytest
from server_helpers import api, close_all, eventually, play_out, seat_table

from conftest import make_settings
from nimmt import wire as P
from nimmt.client import Client, ServerError
from nimmt.server.run import running_server
from nimmt.wire import EventItem, Events, NoticeItem, TableState

pytestmark = [pytest.mark.asyncio, pytest.mark.timeout(300)]

SHORT = {"preset": "classic", "players": 3, "end": "rounds", "rounds": 1}


def notices(client: Client) -> list[str]:
    out = []
    for m in client.inbox:
        if isinstance(m, Events):
            out += [i.notice for i in m.items if isinstance(i, NoticeItem)]
    return out


async def wait_notice(client: Client, notice: str, timeout: float = 60) -> NoticeItem:
    """The first notice ``notice`` the client got (waiting for it if need be)."""
    for m in client.inbox:
        if isinstance(m, Events):
            for i in m.items:
                if isinstance(i, NoticeItem) and i.notice == notice:
                    return i
    msg = await client.expect(lambda m: isinstance(m, Events) and any(
        isinstance(i, NoticeItem) and i.notice == notice for i in m.items), timeout)
    client.inbox.append(msg)
    assert isinstance(msg, Events)
    return next(i for i in msg.items if isinstance(i, NoticeItem) and i.notice == notice)


async def put_away(client: Client, code: str) -> None:
    """Wait until the closed table ``code`` is gone: a join is refused as ``closed`` while
    its last commands are answered, then as ``no_table``."""

    async def gone() -> bool:
        with pytest.raises(ServerError) as err:
            await client.join(code)
        assert err.value.code in ("closed", "no_table"), err.value.code
        return err.value.code == "no_table"

    await eventually(gone, f"table {code} put away")


async def test_lobby_join_by_code_and_name_rules(server: str) -> None:
    ana = await Client.connect(server, name="Ana")
    state = await ana.create_table(rules={"preset": "category5", "players": 4}, name="<b>x</b>")
    code = state.table.code
    assert state.table.name == "<b>x</b>"  # stored and sent as text, never interpreted
    assert state.you == 0 and state.table.seats[0].name == "Ana"
    bob = await Client.connect(server, name="Bob")
    lobby = await bob.lobby()
    assert [t.code for t in lobby.tables] == [code]
    assert lobby.tables[0].taken == 1 and lobby.tables[0].seats == 4
    # Join by short code in any case.
    await bob.join(code.lower())
    await bob.sit(2)
    with pytest.raises(ServerError) as err:
        await bob.sit()
    assert err.value.code == "seat_taken"
    # Names: unique across players; a second player cannot take "ana" at this table either.
    with pytest.raises(ServerError) as err:
        await Client.connect(server, name="Ana")
    assert err.value.code == "name_taken"
    private = await Client.connect(server, name="Pat")
    await private.create_table(rules={"preset": "classic", "players": 2}, private=True)
    assert [t.code for t in (await bob.lobby()).tables] == [code]
    assert [t["code"] for t in (await api(f"{server}/api/tables"))["tables"]] == [code]
    await close_all([ana, bob, private])


async def test_bots_by_strength_and_host_rights(server: str) -> None:
    ana = await Client.connect(server, name="Ana")
    code = (await ana.create_table(rules={"preset": "classic", "players": 4})).table.code
    bob = await Client.connect(server, name="Bob")
    await bob.join(code)
    with pytest.raises(ServerError) as err:
        await bob.add_bot("easy")
    assert err.value.code == "not_host"
    with pytest.raises(ServerError) as err:
        await ana.add_bot("godlike")
    assert err.value.code == "bad_bot"
    with pytest.raises(ServerError) as err:
        await ana.start()
    assert err.value.code == "seats_empty"
    for strength in ("easy", "medium", "easy"):
        await ana.add_bot(strength)
    state = await ana.join(code)
    names = [s.name for s in state.table.seats]
    assert names[1:] == ["Easy Bot 1", "Medium Bot 1", "Easy Bot 2"]
    await ana.act("remove_bot", seat=2)
    state = await ana.join(code)
    assert state.table.seats[2].kind == "empty"
    await bob.sit(2)
    with pytest.raises(ServerError) as err:
        await bob.start()
    assert err.value.code == "not_host"
    await ana.start()
    with pytest.raises(ServerError) as err:
        await ana.add_bot("easy")
    assert err.value.code == "already_started"
    await play_out([ana, bob])
    await close_all([ana, bob])


async def test_reconnect_gets_view_and_missed_events(server: str) -> None:
    clients, code = await seat_table(server, SHORT, humans=2)
    ana, bob = clients
    await ana.expect(lambda m: ana.prompt is not None)
    last = bob.seq
    token = bob.token
    await bob.close()
    # Ana plays while Bob is away: Bob misses her choice and a chat line.
    assert ana.prompt is not None
    card = ana.prompt.options[0]
    await ana.play_card(card)
    await ana.chat("are you there?")
    bob2 = await Client.connect(server, token=token, table=code, last_seq=last)
    assert bob2.name == "P1" and bob2.token == token
    state = bob2.state or await bob2.expect(lambda m: isinstance(m, TableState))
    assert isinstance(state, TableState) and state.you == 1
    missed = await bob2.expect(lambda m: isinstance(m, Events))
    assert isinstance(missed, Events)
    kinds = [(i.kind, i.event.type if isinstance(i, EventItem) else i.text)
             for i in missed.items]
    assert ("event", "card_chosen") in kinds and ("chat", "are you there?") in kinds
    assert all(i.seq > last for i in missed.items)
    chosen = [i.event for i in missed.items
              if isinstance(i, EventItem) and i.event.type == "card_chosen"]
    assert chosen[0].card is None  # type: ignore[union-attr]  # Ana's card stays secret
    assert state.view is not None and state.view.chosen[0] is True
    assert bob2.prompt is not None and bob2.prompt.kind == "card"
    with pytest.raises(ServerError) as err:
        await Client.connect(server, token="not-a-token")
    assert err.value.code == "bad_token"
    await play_out([ana, bob2])
    await close_all([ana, bob2])


async def test_timeout_plays_default_bot_then_take_over(server: str) -> None:
    ana = await Client.connect(server, name="Ana")
    code = (await ana.create_table(rules=SHORT, turn_timer=0.4)).table.code
    bob = await Client.connect(server, name="Bob")
    await bob.join(code)
    await bob.sit()
    await ana.add_bot("easy")
    await ana.start()
    # Bob never answers: his timer runs out and the default bot plays for him.
    on = await wait_notice(ana, "auto_on")
    assert on.seat in (0, 1) and "ran out of time" in (on.text or "")
    # Ana keeps playing; Bob's seat keeps being played, so the round finishes.
    await play_racing_the_timer(ana, random.Random(1))
    state = await bob.join(code)
    assert state.table.status == "over"
    await close_all([ana, bob])


async def play_racing_the_timer(client: Client, rng: random.Random) -> None:
    """Answer every prompt until the game is over, at a table whose turn timer is short:
    an answer that comes after the timer ran out (a busy machine) is refused, as the
    default player made that decision; the game goes on."""
    answered: set[str] = set()
    while not client.game_over:
        prompt = client.prompt
        if prompt is not None and prompt.key not in answered:
            answered.add(prompt.key)
            try:
                await client.answer(prompt, rng)
            except ServerError as exc:
                assert exc.code in ("not_your_turn", "card_not_in_hand", "game_over"), exc
            continue
        client.inbox.append(await client.recv(60))


async def test_take_over_by_acting(server: str) -> None:
    # The timer is long enough that nobody times out again between taking over and looking.
    clients, code = await seat_table(
        server, {"preset": "classic", "players": 2, "end": "rounds", "rounds": 1}, humans=2,
        turn_timer=3.0)
    ana, _bob = clients
    await wait_notice(ana, "auto_on")
    # Whoever timed out takes the seat back by acting.
    for c in clients:
        state = await c.join(code)
        me = state.you
        assert me is not None
        if state.table.seats[me].auto:
            await c.act("take_over")
            st = await c.join(code)
            assert not st.table.seats[me].auto
    await close_all(clients)


async def test_leave_mid_game_default_bot_and_close_when_nobody_left(server: str) -> None:
    clients, code = await seat_table(server, SHORT, humans=2)
    ana, bob = clients
    await bob.leave()
    await wait_notice(ana, "auto_on")
    await ana.play_until_over(random.Random(2))
    spectator = await Client.connect(server, name="Sam")
    await spectator.spectate(code)
    await ana.leave()
    # The last person gone: the table closes and is kept as a record.
    await wait_notice(spectator, "closed")
    await put_away(spectator, code)
    games = (await api(f"{server}/api/players/{ana.name}"))["games"]
    assert len(games) == 1 and games[0]["finished"]
    await close_all([ana, bob, spectator])


async def test_kick_and_spectator_cannot_act(server: str) -> None:
    clients, code = await seat_table(server, {"preset": "classic", "players": 3}, humans=3)
    ana, bob, cleo = clients
    sam = await Client.connect(server, name="Sam")
    await sam.spectate(code)
    with pytest.raises(ServerError) as err:
        await sam.play_card(5)
    assert err.value.code == "spectator"
    with pytest.raises(ServerError) as err:
        await bob.act("kick", seat=2)
    assert err.value.code == "not_host"
    await ana.act("kick", seat=2)
    await cleo.expect(lambda m: m.type == "error" and getattr(m, "code", "") == "kicked")
    with pytest.raises(ServerError) as err:
        await cleo.play_card(5)
    assert err.value.code == "not_at_table"
    state = await ana.join(code)
    assert state.table.seats[2].auto is True
    await close_all([ana, bob, cleo, sam])


async def test_rematch_with_same_seats(server: str) -> None:
    clients, code = await seat_table(server, SHORT, humans=2, bots=["easy"])
    await play_out(clients)
    with pytest.raises(ServerError) as err:
        await clients[1].act("rematch")
    assert err.value.code == "not_host"
    await clients[0].act("rematch")
    state = await clients[0].join(code)
    assert state.table.game_no == 2 and state.table.status == "playing"
    assert [s.name for s in state.table.seats] == ["P0", "P1", "Easy Bot 1"]
    for c in clients:
        if c.game_over:  # until the rematch's start notice arrives
            await c.expect(lambda m, c=c: not c.game_over)
    await play_out(clients, seed=5)
    games = (await api(f"{server}/api/players/P0"))["games"]
    assert len(games) == 2
    await close_all(clients)


async def test_chat_limits_and_plain_text(db_url: str, tmp_path: Path) -> None:
    async with running_server(make_settings(db_url, tmp_path, chat_max=20)) as url:
        ana = await Client.connect(url, name="Ana")
        await ana.create_table(rules=SHORT)
        await ana.chat("<script>hi</script>\n")
        msg = await ana.expect(lambda m: isinstance(m, Events)
                               and any(i.kind == "chat" for i in m.items))
        assert isinstance(msg, Events)
        assert msg.items[-1].text == "<script>hi</script>"
        with pytest.raises(ServerError) as err:
            await ana.chat("x" * 21)
        assert err.value.code == "chat_too_long"
        with pytest.raises(ServerError) as err:
            await ana.chat(" \n\t ")
        assert err.value.code == "chat_empty"
        await ana.close()


async def test_ratings_after_rated_game(server: str) -> None:
    rules = {"preset": "classic", "players": 3, "end": "rounds", "rounds": 1}
    clients, _ = await seat_table(server, rules, humans=3, rated=True, prefix="R")
    await play_out(clients, seed=8)
    # The game and the ratings it changes are stored before its end is sent.
    infos = [await api(f"{server}/api/players/R{i}") for i in range(3)]
    game = await api(f"{server}/api/games/{infos[0]['games'][0]['id']}")
    totals = {p["name"]: p["total"] for p in game["players"]}
    mus = {i["name"]: i["rating"]["mu"] for i in infos}
    assert all(i["rated_games"] == 1 for i in infos)
    best = min(totals, key=lambda n: totals[n])
    worst = max(totals, key=lambda n: totals[n])
    if totals[best] != totals[worst]:
        assert mus[best] > 25.0 > mus[worst]
    # An unrated game leaves ratings alone.
    clients2, _ = await seat_table(server, rules, humans=3, prefix="U")
    await play_out(clients2)
    assert (await api(f"{server}/api/players/U0"))["rating"]["mu"] == 25.0
    await close_all([*clients, *clients2])


async def test_api_errors(server: str) -> None:
    import urllib.error

    for path, status in (("/api/games/999", 404), ("/api/games/x", 400),
                         ("/api/players/nobody", 404)):
        with pytest.raises(urllib.error.HTTPError) as err:
            await api(server + path)
        assert err.value.code == status
    schema = await api(server + "/protocol.json")
    assert schema["version"] == P.PROTOCOL_VERSION and "bad_json" in schema["error_codes"]


async def test_disconnect_grace_hands_seat_to_default_bot(db_url: str, tmp_path: Path) -> None:
    async with running_server(make_settings(db_url, tmp_path, disconnect_grace=0.3)) as url:
        clients, _code = await seat_table(url, SHORT, humans=2)
        ana, bob = clients
        await bob.close()
        await wait_notice(ana, "auto_on")
        await ana.play_until_over(random.Random(3))
        await ana.close()


async def test_absent_before_the_start_is_played_for(db_url: str, tmp_path: Path) -> None:
    async with running_server(make_settings(db_url, tmp_path, disconnect_grace=0.3)) as url:
        ana = await Client.connect(url, name="Ana")
        code = (await ana.create_table(rules=SHORT)).table.code
        bob = await Client.connect(url, name="Bob")
        await bob.join(code)
        await bob.sit()
        await bob.close()
        await ana.add_bot("easy")
        await ana.start()
        on = await wait_notice(ana, "auto_on")
        assert on.name == "Bob" and "disconnected" in (on.text or "")
        await ana.play_until_over(random.Random(4))
        await ana.close()


async def test_forgotten_tables_close(db_url: str, tmp_path: Path) -> None:
    async with running_server(make_settings(db_url, tmp_path, open_idle_close=0.3)) as url:
        ana = await Client.connect(url, name="Ana")
        code = (await ana.create_table(rules=SHORT)).table.code
        token = ana.token
        await ana.close()

        async def closed() -> bool:
            return code not in {t["code"] for t in (await api(f"{url}/api/tables"))["tables"]}

        await eventually(closed, "the forgotten table's close")
        back = await Client.connect(url, token=token)
        await put_away(back, code)
        # A table with someone seated and connected stays.
        code2 = (await back.create_table(rules=SHORT)).table.code
        await asyncio.sleep(0.8)
        assert (await back.join(code2)).table.status == "open"
        await back.close()
