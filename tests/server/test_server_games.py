"""Full games over real WebSockets: several people and bots, every preset and variant."""

from __future__ import annotations

from typing import Any

import pytest
from server_helpers import RULE_SETS, api, close_all, play_out, rules_id, seat_table

from nimmt.record import record_from_dict, replay

pytestmark = [pytest.mark.asyncio, pytest.mark.timeout(300)]


@pytest.mark.parametrize("rules", RULE_SETS, ids=rules_id)
async def test_full_game_people_and_bots(server: str, rules: dict[str, Any]) -> None:
    clients, code = await seat_table(server, rules, humans=2, bots=["easy", "medium"])
    await play_out(clients)
    for c in clients:
        assert c.game_over
    state = await clients[0].join(code)
    assert state.table.status == "over"
    view = state.view
    assert view is not None and view.winners
    # The stored record replays through the engine to the same result.
    name = clients[0].name
    assert name is not None
    player = await api(f"{server}/api/players/{name}")
    assert len(player["games"]) == 1
    game = await api(f"{server}/api/games/{player['games'][0]['id']}")
    assert game["finished"] is True
    again = replay(record_from_dict(game["record"]))
    assert again.is_over
    assert again.winners == view.winners
    assert again.scores == view.scores
    await close_all(clients)


async def test_four_people_no_bots(server: str) -> None:
    rules = {"preset": "classic", "players": 4, "end": "rounds", "rounds": 3}
    clients, _ = await seat_table(server, rules, humans=4)
    await play_out(clients, seed=10)
    # Every client saw the same stream position at the end.
    seqs = {c.seq for c in clients}
    assert len(seqs) == 1
    await close_all(clients)


async def test_search_bots_play_through_the_same_path(server: str) -> None:
    rules = {"preset": "classic", "players": 3, "end": "rounds", "rounds": 1}
    clients, code = await seat_table(server, rules, humans=1, bots=["hard", "expert"])
    info = await api(f"{server}/api/tables/{code}")
    assert [s["bot"] for s in info["seats"]] == [None, "hard", "expert"]
    await play_out(clients)
    assert clients[0].game_over
    await close_all(clients)
