"""The full-screen face's Players panel says each seat's points after every event.

A player who takes a row has those bullheads at once, not at the round's end. Whole
games are played at a server's table through the Textual app; each time the screen is
drawn, the panel's count for every seat is compared with the server's: the engine
replaying the game record the server stored, at the same moment of the game (the
round, the turn and the rows as the screen shows them). Each count is also compared
with the server's own sentence of key W (the sheet's ``who``) sent in the same frame.
"""

from __future__ import annotations

import json
import re
import urllib.request
from pathlib import Path
from typing import Any

import pytest
from textual.widgets import OptionList

from nimmt.deals import Deal
from nimmt.decisions import Decision
from nimmt.engine import Game
from nimmt.record import decision_from_record, record_from_dict
from nimmt.rules import Rules
from nimmt.tui.app import NimmtApp
from nimmt.tui.remote import RemoteSession, RemoteTarget, TokenStore

from .test_tui_textual import play_to_the_end, settle
from .tui_helpers import Server

pytestmark = [pytest.mark.asyncio, pytest.mark.timeout(400)]

COUNT = re.compile(r"(\d+) bullheads?\b")

#: A moment of the game as a screen shows it: the round, the turn and the rows.
Moment = tuple[int, int, tuple[tuple[int, ...], ...]]


def moment(view: Any) -> Moment:
    return (view.round, view.turn, tuple(tuple(r) for r in view.rows))


def server_totals(record: Any) -> dict[Moment, set[tuple[int, ...]]]:
    """Every moment of the stored game, replayed by the engine, with each seat's points then
    (this round's penalties counted)."""
    game = Game(Rules.from_dict(record.rules.model_dump()), scores=record.start_scores)
    seen: dict[Moment, set[tuple[int, ...]]] = {}

    def note() -> None:
        view = game.view(0)
        seen.setdefault(moment(view), set()).add(tuple(view.totals))

    for rnd in record.rounds:
        game.deal(Deal(rnd.deal.rows, rnd.deal.hands, rnd.deal.pool))
        note()
        for entry in rnd.decisions:
            decision: Decision = decision_from_record(entry)
            game.decide(decision)
            note()
    return seen


def get(url: str) -> Any:
    with urllib.request.urlopen(url, timeout=30) as resp:
        return json.loads(resp.read())


@pytest.mark.parametrize("players, rounds", [(5, 2), (4, 3)])
async def test_players_panel_follows_the_servers_scores(server: Server, tmp_path: Path,
                                                        players: int, rounds: int) -> None:
    session = RemoteSession(
        RemoteTarget(server.url), name="Pia", lang="en", bots=["easy"] * (players - 1),
        rules={"preset": "classic", "players": players, "end": "rounds", "rounds": rounds},
        tokens=TokenStore(tmp_path / "client.json"),
    )
    app = NimmtApp(session)
    # What the screen showed each time it was drawn: the moment, the panel's counts and
    # the server's sentence for key W.
    drawn: list[tuple[Moment, tuple[int, ...], str, bool]] = []
    render = app._render

    def spy() -> None:
        render()
        snap = session.snapshot
        if snap.view is None:
            return
        panel = app.query_one("#players", OptionList)
        lines = [str(panel.get_option_at_index(i).prompt) for i in range(panel.option_count)]
        counts = tuple(int(COUNT.findall(line)[-1]) for line in lines)
        mid_round = snap.view.phase != "over" and any(snap.view.penalties)
        drawn.append((moment(snap.view), counts, snap.sheet.who, mid_round))

    app._render = spy  # type: ignore[method-assign]
    async with app.run_test(size=(140, 50)) as pilot:
        await settle(pilot, app, None)
        await play_to_the_end(pilot, app)
        code = session.snapshot.code
        await pilot.press("ctrl+q")
    session.close()

    (stored,) = [g for g in get(f"{server.url}/api/tables/{code}/games")["games"]
                 if g["finished"]]
    game = get(f"{server.url}/api/games/{stored['id']}")
    record = record_from_dict(game["record"])
    truth = server_totals(record)
    assert all(len(totals) == 1 for totals in truth.values())
    for when, counts, who, _ in drawn:
        assert when in truth, f"the screen showed a moment the game never had: {when}"
        (expected,) = truth[when]
        assert counts == expected, (when, counts, expected)
        said = [int(n) for n in COUNT.findall(who)]
        assert tuple(said) == expected, (who, expected)
    # The panel's counts at the end are the game's result, and it was drawn while seats
    # had taken rows within a round (the moments it once got wrong).
    assert record.result is not None
    assert drawn[-1][1] == tuple(record.result.totals)
    assert [p["total"] for p in game["players"]] == record.result.totals
    assert sum(1 for *_, mid_round in drawn if mid_round) >= 3
