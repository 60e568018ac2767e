"""Views (docs/rules.md §6): what each player and a spectator may know, exactly.

Random games checking that no view ever leaks a card are in
``test_engine_properties.py``; here each field is checked on known tables.
"""

from __future__ import annotations

import copy
import random

import pytest

from nimmt import (
    Deal,
    DecisionKind,
    Game,
    Phase,
    Rules,
    RulesError,
    default_row,
    for_viewer,
    joker,
)
from nimmt.events import CardChosen, CardsRevealed, HandDealt

WORKED_ROWS = ((9, 12, 21), (19, 24), (33, 42, 50, 57), (69, 72, 81))
HANDS = ((23, 30), (88, 89), (7, 8), (64, 65))


def worked(spec: str = "classic") -> Game:
    rules = Rules.parse(spec, players=4, end="rounds", rounds=1)
    return Game(rules, deals=[Deal(rows=WORKED_ROWS, hands=HANDS)])


def test_own_hand_only_and_options() -> None:
    game = worked()
    for p in range(4):
        view = game.view(p)
        assert view.player == p
        assert view.hand == HANDS[p]
        assert view.options == HANDS[p] == game.legal(p)
        assert view.hands is None
        assert view.my_choice is None
        assert view.rows == WORKED_ROWS
        assert view.hand_sizes == (2, 2, 2, 2)
        assert view.phase is Phase.CHOOSE and (view.round, view.turn) == (1, 1)
        assert view.pending is not None and view.pending.players == (0, 1, 2, 3)


def test_face_down_choice_hidden_until_revealed() -> None:
    game = worked()
    game.play_card(0, 23)
    mine = game.view(0)
    assert mine.my_choice == 23
    assert mine.options == (23, 30)  # the choice may still change
    for viewer in (1, 2, 3, None):
        view = game.view(viewer)
        assert view.my_choice is None
        assert view.face_up == (None, None, None, None)
        assert view.chosen == (True, False, False, False)
        assert view.hand_sizes == (2, 2, 2, 2)
        assert view.revealed == ()
        assert 23 not in view.hand
    # The event log shows who chose, not what, to everyone but the chooser.
    event = game.events[-1]
    assert for_viewer(event, 0) == CardChosen(0, 23)
    assert for_viewer(event, 1) == CardChosen(0, None)
    assert for_viewer(event, None) == CardChosen(0, None)


def test_revealed_cards_and_pending_row_choice() -> None:
    game = worked()
    for p, c in ((0, 23), (1, 88), (3, 64), (2, 7)):
        game.play_card(p, c)
    for viewer in (0, 1, 2, 3, None):
        view = game.view(viewer)
        assert view.revealed == (((2, 7), (0, 23), (3, 64), (1, 88)),)
        assert view.to_resolve == ((2, 7), (0, 23), (3, 64), (1, 88))
        assert view.phase is Phase.ROW
        assert view.pending is not None
        assert (view.pending.kind, view.pending.players) == (DecisionKind.ROW, (2,))
        assert (view.pending.card, view.pending.reason) == (7, "too_low")
        assert view.hand_sizes == (1, 1, 1, 1)
    assert game.view(2).options == (1, 2, 3, 4)
    assert game.view(1).options == ()
    game.take_row(2, 4)
    view = game.view(3)
    assert view.taken == ((), (33, 42, 50, 57, 64), (69, 72, 81), ())
    assert view.penalties == (0, 11, 3, 0)
    assert view.scores == (0, 0, 0, 0)  # totals before this round's penalties
    assert view.revealed == (((2, 7), (0, 23), (3, 64), (1, 88)),)
    assert view.to_resolve == ()
    assert view.turn == 2


def test_spectator_sees_no_hand() -> None:
    game = worked()
    view = game.view(None)
    assert view.player is None
    assert (view.hand, view.my_choice, view.options, view.hands) == ((), None, (), None)
    assert view.hand_sizes == (2, 2, 2, 2)
    assert [for_viewer(e, None) for e in game.events if type(e) is HandDealt] == [None] * 4


def test_hand_dealt_events_only_to_their_owner() -> None:
    game = worked()
    dealt = [e for e in game.events if type(e) is HandDealt]
    for viewer in range(4):
        seen = [for_viewer(e, viewer) for e in dealt]
        assert seen == [e if e.player == viewer else None for e in dealt]


def test_open_hands_views_and_events_show_every_hand() -> None:
    game = worked("open-hands")
    for viewer in (0, 1, 2, 3, None):
        assert game.view(viewer).hands == HANDS
        assert [for_viewer(e, viewer) for e in game.events if type(e) is HandDealt] == [
            HandDealt(p, h, True) for p, h in enumerate(HANDS)
        ]
    game.play_card(0, 23)
    # The hand is public; the card chosen from it is not, until revealed.
    assert game.view(1).my_choice is None and game.view(1).face_up == (None,) * 4


def test_open_face_up_choices_visible_to_all() -> None:
    rules = Rules.parse("open", players=3)
    hands = ((11, 12), (21, 22), (31, 32))
    game = Game(rules, deals=[Deal(rows=((2,), (3,), (4,), (5,)), hands=hands)])
    assert game.view(None).marker == 0
    game.play_card(0, 12)
    game.play_card(1, 21)
    for viewer in (0, 1, 2, None):
        view = game.view(viewer)
        assert view.face_up == (12, 21, None)
        assert view.chosen == (True, True, False)
        assert view.hands is None
    assert for_viewer(game.events[-1], 2) == CardChosen(1, 21, True)
    assert game.view(2).options == (31, 32)


def test_logic_draft_is_public() -> None:
    game = Game(Rules.parse("logic", players=2), seed=3)
    game.draft_card(0, 5)
    game.draft_card(1, 24)
    for viewer in (0, 1, None):
        view = game.view(viewer)
        assert view.phase is Phase.DRAFT
        assert view.hands == ((5,), (24,))
        assert view.draft_pool == tuple(c for c in range(1, 25) if c not in (5, 24))
    assert game.view(0).options == game.view(None).draft_pool
    assert game.view(1).options == ()


def test_tactics_hands_stay_hidden() -> None:
    game = Game(Rules.parse("tactics", players=3), seed=3)
    assert all(game.view(v).hands is None for v in (0, 1, 2, None))


def test_jokers_has_joker_is_public() -> None:
    rules = Rules.parse("jokers", players=2)
    hands = ((joker(9), 50), (joker(3), 60))
    game = Game(rules, deals=[Deal(rows=((87,), (20,), (30,), (40,)), hands=hands)])
    assert game.view(None).has_joker == (True, True)
    game.play_card(0, joker(9))
    game.play_card(1, 60)
    assert game.view(1).has_joker == (False, True)
    assert game.view(1).pending is not None and game.view(1).pending.reason == "joker"


def test_elimination_view() -> None:
    rules = Rules.preset("classic", players=3, end="elimination")
    first = Deal(rows=((12,), (20,), (30,), (40,)), hands=((1,), (41,), (42,)))
    game = Game(rules, seed=2, deals=[first], scores=(65, 0, 0))
    for p, c in ((0, 1), (1, 41), (2, 42)):
        game.play_card(p, c)
    game.take_row(0, 1)
    view = game.view(0)
    assert view.eliminated == (True, False, False)
    assert view.active == (1, 2)
    assert view.hand == () and view.options == ()
    assert view.hand_sizes == (0, 10, 10)
    assert view.scores == (66, 0, 0)


def test_winners_in_the_view() -> None:
    game = worked()
    for p, c in ((0, 23), (1, 88), (3, 64), (2, 7)):
        game.play_card(p, c)
    game.take_row(2, 4)
    for p, c in ((0, 30), (1, 89), (3, 65), (2, 8)):
        game.play_card(p, c)
    view = game.view(None)
    assert view.phase is Phase.OVER and view.pending is None
    assert view.winners == game.winners == (0, 3)
    # Tied winners share the first place; the next place is skipped.
    totals = view.totals
    assert view.places[0] == view.places[3] == 1
    assert all(view.places[p] == 1 + sum(t < totals[p] for t in totals) for p in (1, 2))


def test_places_put_the_last_one_in_first() -> None:
    """Elimination, all out together (docs/rules.md §3): 66 went out a round before, 69
    wins among 71, 69, 71. The winner is placed first, the others by their points, the
    two at 71 sharing the third place."""
    table = copy.copy(Game(Rules.preset("classic", players=4, end="elimination"),
                           seed=2).view(None).table)
    table.phase, table.scores, table.winners = Phase.OVER, (71, 69, 71, 66), (1,)
    assert table.totals == table.scores
    assert table.places == (3, 1, 3, 2)
    # Before the end, this round's penalties count and nobody has won yet.
    table.phase, table.scores, table.penalties, table.winners = (
        Phase.CHOOSE, (10, 20, 30, 0), (5, 0, 0, 30), ())
    assert table.totals == (15, 20, 30, 30) and table.places == (1, 2, 3, 3)


# -- sample_world -----------------------------------------------------------------


def test_sample_world_refuses_a_spectator() -> None:
    with pytest.raises(RulesError, match=r"^a spectator's view has no hand to sample around$"):
        Game.sample_world(worked().view(None), random.Random(1))


def test_sample_world_keeps_what_the_viewer_knows() -> None:
    game = worked()
    game.play_card(0, 23)
    game.play_card(1, 89)
    view = game.view(1)
    seen = {c for r in WORKED_ROWS for c in r} | set(HANDS[1])
    for seed in range(20):
        world = Game.sample_world(view, random.Random(seed))
        assert world.hands[1] == HANDS[1]
        assert world.rows == WORKED_ROWS
        others = [c for p in (0, 2, 3) for c in world.hands[p]]
        assert [len(world.hands[p]) for p in range(4)] == [2, 2, 2, 2]
        assert len(set(others)) == 6 and not set(others) & seen
        assert set(others) <= set(range(1, 105))
        # Player 0's face-down 23 is unknown to player 1: undone in the world.
        assert world.pending is not None and world.pending.players == (0, 2, 3)
        assert world.view(1).my_choice == 89


def test_sample_world_in_a_row_choice_continues_the_resolution() -> None:
    game = worked()
    for p, c in ((0, 23), (1, 88), (3, 64), (2, 7)):
        game.play_card(p, c)
    world = Game.sample_world(game.view(2), random.Random(5))
    assert world.pending == game.pending
    world.take_row(2, 4)
    game.take_row(2, 4)
    assert world.rows == game.rows
    assert world.view(2).penalties == game.view(2).penalties == (0, 11, 3, 0)
    assert world.hands[2] == game.hands[2] == (8,)


def test_sample_world_is_independent_of_the_game() -> None:
    game = Game(Rules.preset("classic", players=3), seed=8)
    before = game.view(0)
    world = Game.sample_world(before, random.Random(0))
    while not world.is_over:
        pending = world.pending
        assert pending is not None
        p = pending.players[0]
        if pending.kind is DecisionKind.CARD:
            world.play_card(p, world.legal(p)[0])
        else:
            world.take_row(p, default_row(world.rows))
    assert game.view(0) == before
    assert not any(type(e) is CardsRevealed for e in game.events)


def open_table(spec: str, hands: tuple[tuple[int, ...], ...]) -> Game:
    rules = Rules.parse(spec, players=len(hands), end="rounds", rounds=1)
    return Game(rules, deals=[Deal(rows=((20,), (30,), (40,), (50,)), hands=hands)])


def test_sample_world_open_after_the_reveal() -> None:
    game = open_table("open", ((5, 61), (62, 63)))
    game.play_card(0, 5)
    game.play_card(1, 62)  # revealed: 5 is too low and waits for player 0's row
    assert game.phase is Phase.ROW
    view = game.view(0)
    assert view.hand_sizes == (1, 1) and view.to_resolve == ((0, 5), (1, 62))
    world = Game.sample_world(view, random.Random(0))
    assert len(world.hands[1]) == 1
    assert 62 not in world.hands[1]


def test_sample_world_open_face_up_joker() -> None:
    game = open_table("open+jokers", ((joker(1), 61), (joker(2), 62), (joker(3), 63)))
    game.play_card(0, joker(1))
    view = game.view(1)
    assert view.face_up == (joker(1), None, None) and view.has_joker == (True, True, True)
    world = Game.sample_world(view, random.Random(0))
    assert len(world.hands[0]) == 2
    assert [c for c in world.hands[0] if c < 0] == [joker(1)]
