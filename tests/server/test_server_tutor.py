"""Hints and game analyses through a real server on loopback (WebSocket and HTTP), computed
in the tutor's worker processes."""

from __future__ import annotations

import asyncio
import json
import urllib.error
import urllib.request
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio
from server_helpers import api, close_all, eventually, play_out, seat_table

from conftest import make_settings
from nimmt.bots.base import Budget
from nimmt.client import Client, ServerError
from nimmt.narrate import narrator
from nimmt.record import record_from_dict
from nimmt.server.root import Server
from nimmt.server.run import running_hub
from nimmt.server.workers.botpool import decision_seed
from nimmt.sim.advice import advise
from nimmt.sim.analysis import analyse
from nimmt.wire import GameAnalysis, Hint, protocol_schema

RULES = {"preset": "classic", "players": 3, "end": "rounds", "rounds": 1}
ROLLOUTS = 20
#: Few enough that the hint's one-second cap never ends its search first, so the hint
#: can be compared exactly.
HINT_ROLLOUTS = 200


@pytest_asyncio.fixture
async def hub(tmp_path: Path) -> AsyncIterator[tuple[str, Server]]:
    settings = make_settings(f"sqlite+aiosqlite:///{tmp_path / 'nimmt.db'}", tmp_path,
                             analysis_rollouts=ROLLOUTS, analyses_per_minute=2,
                             hint_rollouts=HINT_ROLLOUTS)
    async with running_hub(settings) as running:
        yield running


def http_status(url: str) -> tuple[int, dict[str, Any]]:
    try:
        # The first analysis starts the tutor's worker (the search kernel loads): on a busy
        # machine that takes a while.
        with urllib.request.urlopen(url, timeout=240) as resp:
            return resp.status, json.loads(resp.read())
    except urllib.error.HTTPError as err:
        return err.code, json.loads(err.read())


async def status_of(url: str) -> tuple[int, dict[str, Any]]:
    return await asyncio.to_thread(http_status, url)


async def games_of(url: str, name: str) -> list[dict[str, Any]]:
    """The stored games of player ``name``, once there is one (a game that everybody left
    is stored as the table closes, after the last connection went)."""
    games: list[dict[str, Any]] = []

    async def stored() -> bool:
        games[:] = (await api(f"{url}/api/players/{name}"))["games"]
        return bool(games)

    await eventually(stored, f"a stored game of {name}")
    return games


@pytest.mark.asyncio
async def test_a_hint_over_the_websocket_is_the_askers_own_advice(
    hub: tuple[str, Server],
) -> None:
    url, server = hub
    (ana,), code = await seat_table(url, RULES, 1, ["easy"])
    sr = await Client.connect(url, name="Mila", lang="sr")
    try:
        assert ana.prompt is not None or await ana.expect(lambda m: ana.prompt is not None)
        prompt = ana.prompt
        assert prompt is not None
        hint = await ana.hint(timeout=240)  # the first starts the tutor's worker
        assert isinstance(hint, Hint) and hint.key == prompt.key
        assert hint.advice.best in prompt.options and hint.advice.player == 0
        # Exactly what the expert says from seat 0's view with the decision's seed: the
        # server gave the search that view and nothing more.
        actor = server.tables.held[code]
        game = actor.game
        assert game is not None
        expected = advise(game.view(0), seed=decision_seed(actor.id, 0, prompt.key),
                          budget=Budget(rollouts=HINT_ROLLOUTS, seconds=1.0))
        assert hint.advice.model_dump(mode="json") == json.loads(json.dumps(expected.to_dict()))
        assert hint.text == narrator("en").advice_sentence(expected)
        # Another connection, not seated: a spectator gets no hint.
        await sr.spectate(code)
        with pytest.raises(ServerError) as refused:
            await sr.hint()
        assert refused.value.error.code == "spectator"
        # The host turns hints off: the table says so, and hints are refused.
        await ana.set_hints(False)
        state = await ana.join(code)
        assert state.table.hints is False
        with pytest.raises(ServerError) as off:
            await ana.hint()
        assert off.value.error.code == "hints_off"
    finally:
        await close_all([ana, sr])


@pytest.mark.asyncio
async def test_one_hint_at_a_time_and_none_in_rated_games(hub: tuple[str, Server]) -> None:
    url, _server = hub
    (ana,), _code = await seat_table(url, RULES, 1, ["easy"])
    (bob,), _rated = await seat_table(url, RULES, 1, ["easy"], prefix="R", rated=True)
    try:
        assert bob.state is not None and bob.state.table.hints is False
        with pytest.raises(ServerError) as rated:
            await bob.hint()
        assert rated.value.error.code == "hints_off"
        await ana.expect(lambda m: ana.prompt is not None)
        # Two at once: the second is refused while the first is computed, then it comes.
        await ana.send({"type": "hint", "ref": "a"})
        await ana.send({"type": "hint", "ref": "b"})
        answers = {}
        while len(answers) < 2:
            msg = await ana.expect(lambda m: getattr(m, "ref", None) in ("a", "b"), 240)
            answers[msg.ref] = msg  # type: ignore[union-attr]
        assert answers["a"].type == "hint"
        assert answers["b"].type == "error" and answers["b"].code == "hint_pending"  # type: ignore[union-attr]
    finally:
        await close_all([ana, bob])


@pytest.mark.asyncio
async def test_one_player_with_many_connections_takes_one_hint_slot(
    hub: tuple[str, Server],
) -> None:
    """Eight connections of one player ask at once: one hint is computed, the others are
    told it is pending, and a player at another table still gets a hint (the lane holds
    eight; before, this player took them all and the other got ``busy``)."""
    url, _server = hub
    (ana,), code = await seat_table(url, RULES, 1, ["easy"])
    (bob,), _other = await seat_table(url, RULES, 1, ["easy"], prefix="B")
    more: list[Client] = []
    try:
        for _ in range(7):
            c = await Client.connect(url, token=ana.token)
            await c.join(code)
            more.append(c)
        mine = [ana, *more]
        for c in mine:
            if c.prompt is None:
                await c.expect(lambda m, c=c: c.prompt is not None)
        for i, c in enumerate(mine):
            await c.send({"type": "hint", "ref": f"a{i}"})
        if bob.prompt is None:
            await bob.expect(lambda m: bob.prompt is not None)
        answers = {}
        for i, c in enumerate(mine):
            msg = await c.expect(lambda m, i=i: getattr(m, "ref", None) == f"a{i}", 240)
            answers[i] = (msg.type, getattr(msg, "code", None))
        assert sorted(answers.values()).count(("hint", None)) == 1, answers
        assert all(a in {("hint", None), ("error", "hint_pending")}
                   for a in answers.values()), answers
        hint = await bob.hint()
        assert hint.type == "hint"
    finally:
        await close_all([ana, bob, *more])


@pytest.mark.asyncio
async def test_the_analysis_of_a_finished_game(hub: tuple[str, Server]) -> None:
    url, server = hub
    clients, _code = await seat_table(url, RULES, 2, ["easy"])
    try:
        await play_out(clients)
    finally:
        await close_all(clients)
    game_id = (await games_of(url, "P0"))[0]["id"]
    status, data = await status_of(f"{url}/api/games/{game_id}/analysis?lang=sr")
    assert status == 200, data
    GameAnalysis.model_validate(data)  # the shape /protocol.json describes
    record = record_from_dict((await api(f"{url}/api/games/{game_id}"))["record"])
    review = analyse(record, seed=0, rollouts=ROLLOUTS)
    assert data == json.loads(json.dumps({
        "game": game_id, "language": "sr", "text": narrator("sr").review_sentences(review),
        **review.to_dict()}))
    # The second reader gets the same review from memory, in their language, without
    # counting against their address.
    status, english = await status_of(f"{url}/api/games/{game_id}/analysis")
    assert status == 200 and english["decisions"] == data["decisions"]
    assert english["text"] == narrator("en").review_sentences(review)
    assert list(server.analyses.done) == [game_id]
    assert (await status_of(f"{url}/api/games/{game_id + 100}/analysis"))[0] == 404
    assert (await status_of(f"{url}/api/games/x/analysis"))[0] == 400
    assert (await status_of(f"{url}/api/games/{game_id}/analysis?lang=xx"))[0] == 400
    schema = protocol_schema()["http"]["analysis"]
    assert set(schema["required"]) >= {"game", "language", "text", "decisions"}


@pytest.mark.asyncio
async def test_unfinished_games_are_not_analysed_and_new_analyses_are_rate_limited(
    hub: tuple[str, Server],
) -> None:
    url, server = hub
    # The first analysis starts the tutor's worker: on a busy machine three may take more
    # than the minute the quota counts, so here the quota counts for an hour.
    server.analyses.new.window = 3600.0
    ids = []
    for k in range(3):
        clients, _code = await seat_table(url, RULES, 1, ["easy"], prefix=f"Q{k}")
        try:
            await play_out(clients)
        finally:
            await close_all(clients)
        ids.append((await games_of(url, f"Q{k}0"))[0]["id"])
    assert [(await status_of(f"{url}/api/games/{i}/analysis"))[0] for i in ids] == [
        200, 200, 429]
    # Refused until the first of the two leaves the window: it says when.
    status, refused = await status_of(f"{url}/api/games/{ids[2]}/analysis")
    assert status == 429 and 1 <= refused["retry_after"] <= 3600, refused
    # A game the table left unfinished (everyone left mid-game) is not analysed.
    (dan,), _code = await seat_table(url, RULES, 1, ["easy"], prefix="U")
    await dan.leave()
    await dan.close()
    games = await games_of(url, "U0")
    assert not games[0]["finished"]
    assert (await status_of(f"{url}/api/games/{games[0]['id']}/analysis"))[0] == 409
    assert len(server.analyses.done) == 2
