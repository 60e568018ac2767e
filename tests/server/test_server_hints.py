"""Hints at a table: the reducer's rules, without a server (the WebSocket path is in
test_server_hints_ws.py)."""

from __future__ import annotations

import json

from test_server_reducer import Harness, play_out, rebuilt, replayed, seated_table, snapshot

from nimmt import Rules
from nimmt import wire as P
from nimmt.server.tables.commands import (
    Advise,
    Attach,
    Command,
    Create,
    Message,
    Persist,
    Refuse,
    SendAck,
    Who,
)
from nimmt.server.tables.facts import info
from nimmt.server.tables.tablelog import HintsSet

FOUR = Rules.parse("classic", players=4, end="rounds", rounds=1)


def unrated(rules: Rules = FOUR) -> Harness:
    h = Harness(rules)
    h.table.rated = False
    return h


def refused(h: Harness, command: Command, code: str) -> None:
    before = snapshot(h.table)
    effects = h.run(command)
    assert len(effects) == 1 and isinstance(effects[0], Refuse), effects
    assert effects[0].code == code, effects[0]
    assert snapshot(h.table) == before


def test_a_hint_is_asked_of_the_workers_with_the_askers_view_only() -> None:
    h = unrated()
    ana, bob = seated_table(h, bots=2)
    h.run(Message(ana, P.Start(type="start"), seed=4))
    game = h.table.logged.game
    assert game is not None
    stored = len(h.store)
    effects = h.run(Message(bob, P.AskHint(type="hint", ref="h1")))
    (advise,) = effects
    assert isinstance(advise, Advise)
    assert (advise.conn, advise.ref, advise.seat, advise.key) == (bob.conn, "h1", 1, "1.1.1.card")
    # The view of Bob's seat, and nothing of anybody else's hand.
    assert advise.view == game.view(1)
    assert advise.view.player == 1 and advise.view.hand == game.view(1).hand
    others = {c for seat in (0, 2, 3) for c in game.view(seat).hand}
    assert not others & set(advise.view.hand)
    # Nothing is stored, broadcast or changed: a hint is between the asker and the expert.
    assert len(h.store) == stored and not any(isinstance(e, Persist) for e in effects)


def test_hints_are_refused_with_a_code_that_says_why() -> None:
    h = unrated()
    ana, bob = seated_table(h, bots=2)
    cleo = h.connect(3)
    h.run(Attach(cleo, None, True, None))
    refused(h, Message(ana, P.AskHint(type="hint")), "not_started")
    refused(h, Message(cleo, P.AskHint(type="hint")), "spectator")
    refused(h, Message(h.connect(4), P.AskHint(type="hint")), "not_at_table")
    h.run(Message(ana, P.Start(type="start"), seed=4))
    game = h.table.logged.game
    assert game is not None
    # Ana chose her card: nothing is asked of her until the next turn.
    h.run(Message(ana, P.PlayCard(type="play_card", card=game.legal(0)[0])))
    refused(h, Message(ana, P.AskHint(type="hint")), "not_your_turn")
    assert isinstance(h.run(Message(bob, P.AskHint(type="hint")))[0], Advise)
    refused(h, Message(bob, P.SetHints(type="set_hints", hints=False)), "not_host")
    h.run(Message(ana, P.SetHints(type="set_hints", hints=False)))
    refused(h, Message(bob, P.AskHint(type="hint")), "hints_off")
    h.run(Message(ana, P.SetHints(type="set_hints", hints=True)))
    play_out(h, [ana, bob])
    refused(h, Message(bob, P.AskHint(type="hint")), "game_over")


def test_not_your_turn_while_another_seat_chooses_a_row() -> None:
    h = unrated()
    ana, bob = seated_table(h, bots=2)
    h.run(Message(ana, P.Start(type="start"), seed=4))
    for _ in range(200):
        game = h.table.logged.game
        assert game is not None
        pend = game.pending
        if pend is not None and pend.kind.value == "row" and pend.players != (0,):
            refused(h, Message(ana, P.AskHint(type="hint")), "not_your_turn")
            return
        if h.table.logged.status != "playing":
            break
        moved = h.answer_bots() + h.play_human(ana) + h.play_human(bob)
        assert moved
    raise AssertionError("no row choice by another seat in this deal")


def test_rated_tables_never_give_hints() -> None:
    h = Harness(FOUR)  # rated
    ana, bob = seated_table(h, bots=2)
    h.run(Message(ana, P.Start(type="start"), seed=4))
    refused(h, Message(bob, P.AskHint(type="hint")), "hints_off")
    refused(h, Message(ana, P.SetHints(type="set_hints", hints=True)), "hints_off")
    assert info(h.table).hints is False


def test_the_hosts_setting_is_logged_shown_and_replayed() -> None:
    h = unrated()
    ana = h.connect(1)
    h.run(Create(ana, None, hints=False))
    assert info(h.table).hints is False
    assert [kind for _, kind, _ in h.store] == ["sit", "hints"]
    effects = h.run(Message(ana, P.SetHints(type="set_hints", ref="on", hints=True)))
    assert isinstance(effects[0], Persist) and effects[0].entries == (HintsSet(True),)
    assert SendAck(ana.conn, "on") in effects
    # Everyone at the table gets the new table info.
    assert h.peers[ana.conn].frames[-1][1]["table"]["hints"] is True
    # Setting what is already set is acknowledged and changes nothing.
    before = len(h.store)
    again = Message(ana, P.SetHints(type="set_hints", ref="again", hints=True))
    assert h.run(again) == [SendAck(ana.conn, "again")]
    assert len(h.store) == before
    h.run(Message(ana, P.SetHints(type="set_hints", hints=False)))
    again = replayed(h)
    assert again.logged.hints is False and rebuilt(again) == rebuilt(h.table)
    assert json.loads(h.store[-1][2]) == {"on": False}


def test_a_hint_for_a_person_whose_seat_the_default_player_keeps() -> None:
    """A person who timed out may still ask (acting takes the seat back)."""
    h = unrated()
    ana, bob = seated_table(h, bots=2)
    h.run(Message(ana, P.Start(type="start"), seed=4))
    seat = h.table.logged.seats[1]
    assert seat is not None
    seat.auto = True
    (advise,) = h.run(Message(Who(bob.conn, bob.player_id, bob.name), P.AskHint(type="hint")))
    assert isinstance(advise, Advise) and advise.seat == 1
