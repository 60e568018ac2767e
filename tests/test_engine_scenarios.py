"""Scenario tests: one explicit table for each rule and ruling of docs/rules.md §2–§4.

Each test deals an exact table (``Deal(rows=..., hands=...)``), plays exact
cards and asserts the exact events, rows and penalties, so that any change in
the resolution shows up as a failing test.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

import pytest

from nimmt import (
    Deal,
    DecisionKind,
    DraftCard,
    Game,
    NotYourDecision,
    Phase,
    PlayCard,
    Rules,
    RulesError,
    TakeRow,
    bullheads,
    default_row,
    joker,
)
from nimmt.events import (
    CardChosen,
    CardDrafted,
    CardPlaced,
    CardsRevealed,
    DraftStarted,
    Event,
    GameOver,
    HandDealt,
    PlayerEliminated,
    RoundScored,
    RoundStarted,
    RowChoiceNeeded,
    RowsDealt,
    RowTaken,
    TurnStarted,
)

Rows = tuple[tuple[int, ...], ...]


def one_round(spec: str, rows: Rows, hands: Sequence[Sequence[int]], **changes: object) -> Game:
    """A game of exactly one round from an explicit deal."""
    players = len(hands)
    rules = Rules.parse(spec, players=players, end="rounds", rounds=1, **changes)
    return Game(rules, deals=[Deal(rows=rows, hands=tuple(tuple(h) for h in hands))])


def play(game: Game, cards: dict[int, int]) -> list[Event]:
    """Each listed player chooses their card, in the order given; all events."""
    out: list[Event] = []
    for p, c in cards.items():
        out += game.play_card(p, c)
    return out


def after(events: list[Event], kind: type) -> list[Event]:
    """The events from the first one of type ``kind`` on."""
    i = next(i for i, e in enumerate(events) if type(e) is kind)
    return events[i:]


def play_lowest(game: Game, until_round: int | None = None) -> None:
    """Play on with each player's lowest card and the default row."""
    while not game.is_over and (until_round is None or game.round < until_round):
        pending = game.pending
        assert pending is not None
        p = pending.players[0]
        if pending.kind is DecisionKind.CARD:
            game.play_card(p, game.legal(p)[0])
        elif pending.kind is DecisionKind.ROW:
            game.take_row(p, default_row(game.rows))
        else:
            game.draft_card(p, game.legal(p)[0])


# -- docs/rules.md §2: the round --------------------------------------------------------

WORKED_ROWS: Rows = ((9, 12, 21), (19, 24), (33, 42, 50, 57), (69, 72, 81))


@pytest.mark.parametrize("holder_of_88", [1, 3], ids=["bob-88", "david-88"])
def test_worked_example_of_seed_000(holder_of_88: int) -> None:
    """Alice 23, Celia 7, Bob/David 64 and 88: whoever plays 88 takes 11 (the swap ruling)."""
    holder_of_64 = 4 - holder_of_88
    hands = [(23,), (), (7,), ()]
    hands[holder_of_88] = (88,)
    hands[holder_of_64] = (64,)
    game = one_round("classic", WORKED_ROWS, hands)
    assert game.pending is not None and game.pending.players == (0, 1, 2, 3)
    events = play(game, {0: 23, holder_of_88: 88, holder_of_64: 64, 2: 7})
    assert after(events, CardsRevealed) == [
        CardsRevealed(((2, 7), (0, 23), (holder_of_64, 64), (holder_of_88, 88))),
        RowChoiceNeeded(2, 7, "too_low"),
    ]
    assert game.phase is Phase.ROW
    # The default would be row 2 (2 bullheads); the player's own choice is what counts.
    assert default_row(game.rows) == 2
    assert game.legal(2) == (1, 2, 3, 4)
    events = game.take_row(2, 4)
    assert events == [
        RowTaken(2, 4, (69, 72, 81), 3, "too_low"),
        CardPlaced(2, 7, 4, "right", True),
        CardPlaced(0, 23, 1),
        CardPlaced(holder_of_64, 64, 3),
        RowTaken(holder_of_88, 3, (33, 42, 50, 57, 64), 11, "full"),
        CardPlaced(holder_of_88, 88, 3, "right", True),
        RoundScored(1, game.scores, game.scores),
        GameOver(game.winners, game.scores),
    ]
    expected = [0, 0, 3, 0]
    expected[holder_of_88] = 11
    assert game.scores == tuple(expected)
    assert game.winners == tuple(sorted((0, holder_of_64)))
    # Rows keep their numbers 1-4: row 4 restarted with 7, row 3 with 88.
    assert game.rows == ((9, 12, 21, 23), (19, 24), (88,), (7,))


def test_full_row_sixth_card_takes_five_and_fullness_never_redirects() -> None:
    # Row 1 (last 20) has room and lies below 35, but 35 belongs after 34, the sixth card.
    game = one_round("classic", ((20,), (30, 31, 32, 33, 34), (50,), (60,)), [(35,), (70,)])
    events = play(game, {0: 35, 1: 70})
    assert after(events, CardsRevealed) == [
        CardsRevealed(((0, 35), (1, 70))),
        RowTaken(0, 2, (30, 31, 32, 33, 34), 11, "full"),
        CardPlaced(0, 35, 2, "right", True),
        CardPlaced(1, 70, 4),
        RoundScored(1, (11, 0), (11, 0)),
        GameOver((1,), (11, 0)),
    ]
    assert game.rows == ((20,), (35,), (50,), (60, 70))


def test_fifth_card_does_not_take() -> None:
    game = one_round("classic", ((10, 11, 12, 13), (20,), (30,), (40,)), [(14,), (41,)])
    events = play(game, {0: 14, 1: 41})
    assert [e for e in events if type(e) is RowTaken] == []
    assert game.rows == ((10, 11, 12, 13, 14), (20,), (30,), (40, 41))
    assert game.scores == (0, 0)


def test_too_low_card_may_take_a_full_row_against_the_default() -> None:
    rows: Rows = ((10, 11, 12, 13, 14), (20,), (30,), (40,))
    game = one_round("classic", rows, [(5,), (45,)])
    events = play(game, {1: 45, 0: 5})
    assert events[-1] == RowChoiceNeeded(0, 5, "too_low")
    assert game.pending is not None
    assert (game.pending.kind, game.pending.players) == (DecisionKind.ROW, (0,))
    assert (game.pending.card, game.pending.reason) == (5, "too_low")
    assert default_row(game.rows) == 2
    assert game.take_row(0, 1)[:3] == [
        RowTaken(0, 1, (10, 11, 12, 13, 14), 11, "too_low"),
        CardPlaced(0, 5, 1, "right", True),
        CardPlaced(1, 45, 4),
    ]
    assert game.rows == ((5,), (20,), (30,), (40, 45))
    assert game.scores == (11, 0)


@pytest.mark.parametrize("row", [1, 2, 3, 4])
def test_too_low_card_takes_exactly_the_chosen_row(row: int) -> None:
    rows: Rows = ((10, 11, 12, 13, 14), (20,), (30, 55), (40, 44))
    game = one_round("classic", rows, [(5,), (95,)])
    play(game, {0: 5, 1: 95})
    events = game.take_row(0, row)
    taken = rows[row - 1]
    assert events[0] == RowTaken(0, row, taken, sum(bullheads(c) for c in taken), "too_low")
    assert events[1] == CardPlaced(0, 5, row, "right", True)
    assert game.rows[row - 1] == (5,)
    assert game.scores[0] == sum(bullheads(c) for c in taken)


def test_card_follows_a_row_started_earlier_in_the_same_turn() -> None:
    """29 is too low and takes row 1 (61); then 30 follows 29, and 62, which would
    have followed 61, goes after 60 as the sixth card (A05 example 2)."""
    rows: Rows = ((61,), (35,), (45,), (56, 57, 58, 59, 60))
    game = one_round("classic", rows, [(29,), (62,), (30,)])
    play(game, {0: 29, 1: 62, 2: 30})
    assert game.take_row(0, 1)[:6] == [
        RowTaken(0, 1, (61,), 1, "too_low"),
        CardPlaced(0, 29, 1, "right", True),
        CardPlaced(2, 30, 1),
        RowTaken(1, 4, (56, 57, 58, 59, 60), 7, "full"),
        CardPlaced(1, 62, 4, "right", True),
        RoundScored(1, (1, 7, 0), (1, 7, 0)),
    ]
    assert game.rows == ((29, 30), (35,), (45,), (62,))


def test_row_choice_sees_the_table_as_it_is_then() -> None:
    """A joker placed first changes the row a later too-low card then takes."""
    rows: Rows = ((10,), (20,), (30,), (40,))
    game = one_round("jokers", rows, [(joker(5), 50), (joker(1), 3)])
    play(game, {0: joker(5), 1: 3})
    game.take_row(0, 2)  # 20 -> 20.5
    assert game.pending is not None and game.pending.players == (1,)
    assert game.view(1).rows == ((10,), (20, joker(5)), (30,), (40,))
    events = game.take_row(1, 2)
    assert events[:2] == [
        RowTaken(1, 2, (20, joker(5)), 4, "too_low"),
        CardPlaced(1, 3, 2, "right", True),
    ]


def test_choice_may_change_until_the_last_player_chooses() -> None:
    game = one_round("classic", ((10,), (20,), (30,), (40,)), [(11, 21), (31, 41), (50, 60)])
    assert game.play_card(0, 11) == [CardChosen(0, 11)]
    assert game.play_card(0, 21) == [CardChosen(0, 21)]
    assert game.pending is not None and game.pending.players == (1, 2)
    play(game, {1: 31})
    assert game.play_card(1, 41) == [CardChosen(1, 41)]
    events = game.play_card(2, 50)
    assert events[1] == CardsRevealed(((0, 21), (1, 41), (2, 50)))
    assert game.hands == ((11,), (31,), (60,))


def test_hand_of_ten_explicit_and_turns_per_round() -> None:
    hands = [tuple(range(1 + 10 * p, 11 + 10 * p)) for p in range(3)]
    rows: Rows = ((31, 32, 33, 34, 35), (50,), (60,), (70,))
    game = one_round("classic", rows, hands)
    turns = [e.turn for e in game.events if type(e) is TurnStarted]
    play_lowest(game)
    turns = [e.turn for e in game.events if type(e) is TurnStarted]
    assert turns == list(range(1, 11))
    assert game.is_over


def test_rows_may_start_with_one_to_five_cards() -> None:
    game = one_round("classic", ((1,), (2, 3), (4, 5, 6), (7, 8, 9, 10, 11)), [(12,), (13,)])
    play(game, {0: 12, 1: 13})
    assert game.events[-5:-3] == [
        RowTaken(0, 4, (7, 8, 9, 10, 11), 11, "full"),
        CardPlaced(0, 12, 4, "right", True),
    ]


# -- docs/rules.md §3: the end of a game ------------------------------------------------

SIMPLE_ROWS: Rows = ((12,), (20,), (30,), (40,))


def take_one_bullhead(spec: str, start: tuple[int, int], **changes: object) -> Game:
    """Player 0 plays 1 and takes row 1 (card 12, one bullhead); player 1 takes nothing."""
    rules = Rules.parse(spec, players=2, **changes)
    deal = Deal(rows=SIMPLE_ROWS, hands=((1,), (41,)))
    game = Game(rules, seed=3, deals=[deal], scores=start)
    play(game, {0: 1, 1: 41})
    game.take_row(0, 1)
    return game


@pytest.mark.parametrize(
    ("spec", "before", "over"),
    [
        ("classic", 64, False),
        ("classic", 65, True),
        ("category5", 73, False),
        ("category5", 74, True),
    ],
)
def test_classic_end_at_exactly_the_limit(spec: str, before: int, over: bool) -> None:
    """66 (75 in category5) or more ends the game; one less plays another round."""
    game = take_one_bullhead(spec, (before, 3))
    total = before + 1
    assert RoundScored(1, (1, 0), (total, 3)) in game.events
    assert game.is_over is over
    if over:
        assert game.events[-1] == GameOver((1,), (total, 3))
        assert game.winners == (1,)
    else:
        assert game.round == 2 and game.phase is Phase.CHOOSE
        assert not any(type(e) is GameOver for e in game.events)


def test_limit_can_be_any_number() -> None:
    assert take_one_bullhead("classic", (4, 0), limit=5).is_over
    assert not take_one_bullhead("classic", (3, 0), limit=5).is_over


def test_shared_win() -> None:
    rules = Rules.preset("classic", players=3)
    deal = Deal(rows=SIMPLE_ROWS, hands=((41,), (42,), (1,)))
    game = Game(rules, deals=[deal], scores=(10, 10, 65))
    play(game, {0: 41, 1: 42, 2: 1})
    events = game.take_row(2, 1)
    assert events[-2:] == [
        RoundScored(1, (0, 0, 1), (10, 10, 66)),
        GameOver((0, 1), (10, 10, 66)),
    ]
    assert game.winners == (0, 1)
    assert game.pending is None and game.phase is Phase.OVER


def test_fixed_rounds_ignore_the_limit() -> None:
    rules = Rules.preset("classic", players=2, end="rounds", rounds=2)
    deal = Deal(rows=SIMPLE_ROWS, hands=((1,), (41,)))
    game = Game(rules, deals=[deal, deal], scores=(100, 0))
    play(game, {0: 1, 1: 41})
    game.take_row(0, 1)
    assert not game.is_over and game.round == 2
    play(game, {0: 1, 1: 41})
    events = game.take_row(0, 1)
    assert events[-2:] == [RoundScored(2, (1, 0), (102, 0)), GameOver((1,), (102, 0))]


def test_fixed_rounds_tie_shares() -> None:
    rules = Rules.preset("classic", players=2, end="rounds", rounds=1)
    game = Game(rules, deals=[Deal(rows=SIMPLE_ROWS, hands=((41,), (42,)))])
    play(game, {0: 41, 1: 42})
    assert game.winners == (0, 1)


def test_elimination_one_out_others_play_on_with_a_smaller_tactics_deck() -> None:
    rules = Rules.parse("tactics", players=3, end="elimination")
    round1 = Deal(rows=((10,), (20,), (30,), (34,)), hands=((1,), (11,), (21,)))
    round2 = Deal(rows=((5,), (10,), (15,), (20,)), hands=((), (1,), (24,)))
    game = Game(rules, deals=[round1, round2], scores=(65, 64, 0))
    play(game, {0: 1, 1: 11, 2: 21})
    events = game.take_row(0, 1)
    assert after(events, RoundScored)[:5] == [
        RoundScored(1, (3, 0, 0), (68, 64, 0)),
        PlayerEliminated(0, 68),
        RoundStarted(2, (1, 2), 24),
        HandDealt(1, (1,)),
        HandDealt(2, (24,)),
    ]
    assert game.active == (1, 2)
    assert game.pending is not None and game.pending.players == (1, 2)
    assert game.legal(0) == ()
    assert game.view(0).hand == () and game.view(0).eliminated == (True, False, False)
    with pytest.raises(NotYourDecision,
                       match=r"^player 0 \(seat 1\) is eliminated and has no cards$"):
        game.play_card(0, 24)
    play(game, {1: 1, 2: 24})
    events = game.take_row(1, 2)
    assert events[-3:] == [
        RoundScored(2, (0, 3, 0), (68, 67, 0)),
        PlayerEliminated(1, 67),
        GameOver((2,), (68, 67, 0)),
    ]


def test_elimination_deals_the_recomputed_tactics_deck_to_the_remaining() -> None:
    rules = Rules.parse("tactics", players=3, end="elimination")
    round1 = Deal(rows=((10,), (20,), (30,), (34,)), hands=((1,), (11,), (21,)))
    game = Game(rules, seed=11, deals=[round1], scores=(65, 0, 0))
    play(game, {0: 1, 1: 11, 2: 21})
    game.take_row(0, 1)
    assert game.round == 2
    deal = game.round_deals[1]
    assert deal.hands[0] == ()
    dealt = sorted([c for h in deal.hands for c in h] + [c for r in deal.rows for c in r])
    assert dealt == list(range(1, 25))
    assert RoundStarted(2, (1, 2), 24) in game.events


def test_elimination_all_remaining_out_together_fewest_among_them_wins() -> None:
    """Player 3 went out first with 66; then 0, 1, 2 go out together: 1 wins with 69,
    although player 3 has fewer points."""
    rules = Rules.preset("classic", players=4, end="elimination")
    round1 = Deal(rows=SIMPLE_ROWS, hands=((13,), (21,), (31,), (1,)))
    full: Rows = ((10, 11, 12, 13, 14), (20, 21, 22, 23, 24), (30, 31, 32, 33, 34), (40,))
    round2 = Deal(rows=full, hands=((15,), (25,), (35,), ()))
    game = Game(rules, deals=[round1, round2], scores=(60, 58, 60, 65))
    play(game, {0: 13, 1: 21, 2: 31, 3: 1})
    events = game.take_row(3, 1)
    assert after(events, RoundScored)[:3] == [
        RoundScored(1, (0, 0, 0, 1), (60, 58, 60, 66)),
        PlayerEliminated(3, 66),
        RoundStarted(2, (0, 1, 2), 104),
    ]
    events = play(game, {0: 15, 1: 25, 2: 35})
    assert after(events, RoundScored) == [
        RoundScored(2, (11, 11, 11, 0), (71, 69, 71, 66)),
        PlayerEliminated(0, 71),
        PlayerEliminated(1, 69),
        PlayerEliminated(2, 71),
        GameOver((1,), (71, 69, 71, 66)),
    ]


def test_elimination_all_out_together_ties_share() -> None:
    rules = Rules.preset("classic", players=3, end="elimination")
    full: Rows = ((10, 11, 12, 13, 14), (20, 21, 22, 23, 24), (30, 31, 32, 33, 34), (40,))
    game = Game(rules, deals=[Deal(rows=full, hands=((15,), (25,), (35,)))], scores=(60, 58, 58))
    events = play(game, {0: 15, 1: 25, 2: 35})
    assert events[-1] == GameOver((1, 2), (71, 69, 69))


def test_elimination_two_players_last_one_standing() -> None:
    game = take_one_bullhead("classic", (65, 70), end="elimination")
    # Player 1 started above the limit but only the round's end counts: both out now.
    assert game.events[-1] == GameOver((0,), (66, 70))
    game = take_one_bullhead("classic", (65, 0), end="elimination")
    assert game.events[-2:] == [PlayerEliminated(0, 66), GameOver((1,), (66, 0))]


# -- docs/rules.md §4: presets and variants --------------------------------------------


@pytest.mark.parametrize("players", range(2, 11))
def test_tactics_deck_sizes(players: int) -> None:
    game = Game(Rules.parse("tactics", players=players), seed=players)
    top = 10 * players + 4
    assert game.events[0] == RoundStarted(1, tuple(range(players)), top)
    deal = game.round_deals[0]
    assert all(len(h) == 10 for h in deal.hands)
    assert all(len(r) == 1 for r in deal.rows) and len(deal.rows) == 4
    dealt = sorted([c for h in deal.hands for c in h] + [c for r in deal.rows for c in r])
    assert dealt == list(range(1, top + 1))


@pytest.mark.parametrize("players", [2, 4, 10])
def test_classic_deck(players: int) -> None:
    game = Game(Rules.preset("classic", players=players), seed=players)
    assert game.events[0] == RoundStarted(1, tuple(range(players)), 104)
    deal = game.round_deals[0]
    dealt = [c for h in deal.hands for c in h] + [c for r in deal.rows for c in r]
    assert len(dealt) == len(set(dealt)) == 10 * players + 4
    assert set(dealt) <= set(range(1, 105))


def test_tactics_refuses_cards_outside_its_deck() -> None:
    rules = Rules.parse("tactics", players=2)
    deal = Deal(rows=((1,), (2,), (3,), (25,)), hands=((4,), (5,)))
    with pytest.raises(RulesError, match=r"^round 1 deal: row 4 holds 25, which is not in this"):
        Game(rules, deals=[deal])


def draft_seq(game: Game) -> list[int]:
    """Draft the whole pool, each player taking the lowest card; the pickers in order."""
    seq = []
    while game.phase is Phase.DRAFT:
        assert game.pending is not None
        p = game.pending.players[0]
        seq.append(p)
        game.draft_card(p, game.legal(p)[0])
    return seq


def test_logic_draft_order_over_rounds_and_rows_from_the_leftovers() -> None:
    rules = Rules.parse("logic", players=3, end="rounds", rounds=3)
    game = Game(rules, seed=0)
    assert game.phase is Phase.DRAFT
    assert game.events[-1] == DraftStarted(tuple(range(1, 35)), 0)
    keep = {3, 7, 19, 30}
    seq = []
    while game.phase is Phase.DRAFT:
        assert game.pending is not None
        p = game.pending.players[0]
        seq.append(p)
        game.draft_card(p, max(c for c in game.legal(p) if c not in keep))
    assert seq == [0, 1, 2] * 10
    assert game.rows == ((3,), (7,), (19,), (30,))
    assert game.hands[0] == (4, 8, 11, 14, 17, 21, 24, 27, 31, 34)
    assert game.events[-2:] == [RowsDealt(((3,), (7,), (19,), (30,))), TurnStarted(1)]
    assert CardDrafted(0, 34) in game.events
    play_lowest(game, until_round=2)
    assert game.round == 2
    assert game.events[-1] == DraftStarted(tuple(range(1, 35)), 1)
    assert draft_seq(game) == [1, 2, 0] * 10
    assert game.rows == ((31,), (32,), (33,), (34,))
    assert game.hands[1] == (1, 4, 7, 10, 13, 16, 19, 22, 25, 28)
    play_lowest(game, until_round=3)
    assert game.events[-1] == DraftStarted(tuple(range(1, 35)), 2)
    assert draft_seq(game) == [2, 0, 1] * 10


def test_logic_explicit_pool_rows_ascending() -> None:
    rules = Rules.parse("logic", players=2, end="rounds", rounds=1)
    pool = tuple(reversed(range(1, 25)))
    game = Game(rules, deals=[Deal(pool=pool)])
    assert game.view(None).draft_pool == tuple(range(1, 25))
    while game.phase is Phase.DRAFT:
        assert game.pending is not None
        p = game.pending.players[0]
        # Leave 24, 2, 13, 5 for the rows.
        game.draft_card(p, min(c for c in game.legal(p) if c not in {2, 5, 13, 24}))
    assert game.rows == ((2,), (5,), (13,), (24,))


def test_logic_first_picker_moves_one_seat_after_an_elimination() -> None:
    rules = Rules.parse("logic", players=4, end="elimination")
    game = Game(rules, seed=5, scores=(65, 0, 0, 0))
    assert game.events[-1] == DraftStarted(tuple(range(1, 45)), 0)
    while game.phase is Phase.DRAFT:
        assert game.pending is not None
        p = game.pending.players[0]
        game.draft_card(p, 1 if 1 in game.legal(p) else game.legal(p)[-1])
    assert 1 in game.hands[0]
    game.play_card(0, 1)  # too low for every row: player 0 takes a row and goes out
    play_lowest(game, until_round=2)
    assert PlayerEliminated(0, game.scores[0]) in game.events
    assert game.active == (1, 2, 3)
    # Seat 0 was first; seat 1 is next and still playing.
    assert type(game.events[-1]) is DraftStarted
    assert game.events[-1].first == 1


def professional(rows: Rows, hands: Sequence[Sequence[int]]) -> Game:
    return one_round("professional", rows, hands)


def test_professional_left_end_when_closer() -> None:
    game = professional(((10,), (35,), (60,), (90,)), [(30,), (62,)])
    events = play(game, {0: 30, 1: 62})
    assert events[3:5] == [CardPlaced(0, 30, 2, "left"), CardPlaced(1, 62, 3, "right")]
    assert game.rows == ((10,), (30, 35), (60, 62), (90,))


def test_professional_tie_goes_to_the_right_end() -> None:
    game = professional(((10,), (30,), (60,), (80,)), [(20,), (70,)])
    events = play(game, {0: 20, 1: 70})
    assert events[3:5] == [CardPlaced(0, 20, 1, "right"), CardPlaced(1, 70, 3, "right")]
    assert game.rows == ((10, 20), (30,), (60, 70), (80,))


def test_professional_card_below_every_row_goes_left_without_a_choice() -> None:
    game = professional(((10, 90), (20, 80), (30, 70), (40, 60)), [(5,), (95,)])
    events = play(game, {0: 5, 1: 95})
    assert events[3:5] == [CardPlaced(0, 5, 1, "left"), CardPlaced(1, 95, 1, "right")]
    assert game.rows[0] == (5, 10, 90, 95)


def test_professional_sixth_card_on_the_left_takes_the_five() -> None:
    game = professional(((10, 20), (21, 22, 23, 24, 25), (60, 70), (80, 90)), [(19,), (100,)])
    events = play(game, {0: 19, 1: 100})
    assert events[3:6] == [
        RowTaken(0, 2, (21, 22, 23, 24, 25), 10, "full"),
        CardPlaced(0, 19, 2, "right", True),
        CardPlaced(1, 100, 4),
    ]


def test_professional_sixth_card_on_the_right_takes_the_five() -> None:
    game = professional(((10, 11, 12, 13, 14), (30,), (60,), (80,)), [(15,), (81,)])
    events = play(game, {0: 15, 1: 81})
    assert events[3] == RowTaken(0, 1, (10, 11, 12, 13, 14), 11, "full")


def test_professional_card_fitting_neither_end_takes_a_row_of_choice() -> None:
    game = professional(((10, 90), (20, 80), (30, 70), (40, 60)), [(50,), (95,)])
    events = play(game, {0: 50, 1: 95})
    # Not "too low": 50 is above every first card; it fits at neither end of any row.
    assert events[-1] == RowChoiceNeeded(0, 50, "fits_no_end")
    assert game.pending is not None and game.pending.reason == "fits_no_end"
    assert game.take_row(0, 2)[:3] == [
        RowTaken(0, 2, (20, 80), 6, "fits_no_end"),
        CardPlaced(0, 50, 2, "right", True),
        CardPlaced(1, 95, 1),
    ]


def test_tactics_professional_combined() -> None:
    game = one_round("tactics+professional", ((5,), (10,), (15,), (20,)), [(9,), (24,)])
    events = play(game, {0: 9, 1: 24})
    assert events[3:5] == [CardPlaced(0, 9, 2, "left"), CardPlaced(1, 24, 4)]


def test_open_removes_card_1() -> None:
    game = Game(Rules.parse("open", players=9), seed=4)
    assert game.events[0] == RoundStarted(1, tuple(range(9)), 103)
    deal = game.round_deals[0]
    assert 1 not in {c for h in deal.hands for c in h} | {c for r in deal.rows for c in r}
    with pytest.raises(RulesError,
                       match=r"^round 1 deal: the hand of player 1 \(seat 2\) holds 1, which is"):
        hands = tuple((c,) for c in (6, 1, 7, 8, 9, 10, 11, 12, 13))
        Game(game.rules, deals=[Deal(rows=((2,), (3,), (4,), (5,)), hands=hands)])


def test_open_turn_order_face_up_and_marker_across_rounds() -> None:
    """Marker 0, 1 in round 1; player 0 goes out; round 2 markers 2, then 1 (0 skipped)."""
    rules = Rules.parse("open", players=3, end="elimination", limit=10)
    rows: Rows = ((10,), (20,), (30,), (40,))
    round1 = Deal(rows=rows, hands=((2, 50), (51, 52), (53, 54)))
    round2 = Deal(rows=rows, hands=((), (51, 52), (53, 54)))
    round3 = Deal(rows=rows, hands=((), (51,), (53,)))
    game = Game(rules, deals=[round1, round2, round3], scores=(9, 0, 0))
    assert game.marker == 0 and game.events[-1] == TurnStarted(1, 0)
    assert game.pending is not None and game.pending.players == (0,)
    assert game.legal(1) == () and game.legal(0) == (2, 50)
    assert game.play_card(0, 2) == [CardChosen(0, 2, True)]
    # A face-up choice is public at once, also to spectators.
    assert game.view(1).face_up == (2, None, None)
    assert game.view(None).face_up == (2, None, None)
    assert game.view(2).chosen == (True, False, False)
    assert game.pending.players == (1,)
    play(game, {1: 51})
    assert game.pending.players == (2,)
    events = game.play_card(2, 53)
    assert events[:2] == [CardChosen(2, 53, True), CardsRevealed(((0, 2), (1, 51), (2, 53)))]
    game.take_row(0, 1)
    assert game.events[-1] == TurnStarted(2, 1)
    orders = []
    while game.phase is not Phase.DEAL:
        assert game.pending is not None
        p = game.pending.players[0]
        orders.append(p)
        if game.pending.kind is DecisionKind.CARD:
            game.play_card(p, game.legal(p)[0])
        else:
            game.take_row(p, default_row(game.rows))
    markers = [(e.turn, e.marker) for e in game.events if type(e) is TurnStarted]
    assert markers == [(1, 0), (2, 1), (1, 2), (2, 1), (1, 2)]
    assert PlayerEliminated(0, 12) in game.events
    assert orders[:3] == [1, 2, 0] and orders[3:7] == [2, 1, 1, 2]


def test_open_hands_every_view_shows_every_hand() -> None:
    hands = ((11, 12), (21, 22), (31, 32))
    game = one_round("open-hands", ((1,), (2,), (3,), (4,)), hands)
    assert [e for e in game.events if type(e) is HandDealt] == [
        HandDealt(p, h, True) for p, h in enumerate(hands)
    ]
    for viewer in (0, 1, 2, None):
        assert game.view(viewer).hands == hands
    plain = one_round("classic", ((1,), (2,), (3,), (4,)), hands)
    for viewer in (0, 1, 2, None):
        assert plain.view(viewer).hands is None


def test_jokers_random_deal_one_joker_and_nine_numbers_each() -> None:
    game = Game(Rules.parse("jokers", players=5), seed=9)
    deal = game.round_deals[0]
    jokers = [c for h in deal.hands for c in h if c < 0]
    assert len(jokers) == len(set(jokers)) == 5
    for hand in deal.hands:
        assert len(hand) == 10 and sum(1 for c in hand if c < 0) == 1
    assert all(c > 0 for r in deal.rows for c in r)
    assert game.view(0).has_joker == (True,) * 5


def test_jokers_go_first_in_ascending_order_each_by_its_players_choice() -> None:
    """0.5 then 0.9 on 87 make 88.4, so 88 can no longer follow it."""
    rows: Rows = ((87,), (20,), (30,), (40,))
    game = one_round("jokers", rows, [(joker(9), 1), (joker(5), 2), (joker(1), 88)])
    events = play(game, {0: joker(9), 1: joker(5), 2: 88})
    assert after(events, CardsRevealed) == [
        CardsRevealed(((1, joker(5)), (0, joker(9)), (2, 88))),
        RowChoiceNeeded(1, joker(5), "joker"),
    ]
    assert game.pending is not None and game.pending.reason == "joker"
    assert game.take_row(1, 1) == [
        CardPlaced(1, joker(5), 1),
        RowChoiceNeeded(0, joker(9), "joker"),
    ]
    assert game.take_row(0, 1)[:2] == [CardPlaced(0, joker(9), 1), CardPlaced(2, 88, 4)]
    assert game.rows == ((87, joker(5), joker(9)), (20,), (30,), (40, 88))


def test_jokers_87_becomes_87_9_and_88_follows() -> None:
    rows: Rows = ((87,), (20,), (30,), (40,))
    game = one_round("jokers", rows, [(joker(9), 1), (joker(3), 88)])
    play(game, {0: joker(9), 1: 88})
    assert game.take_row(0, 1)[:2] == [CardPlaced(0, joker(9), 1), CardPlaced(1, 88, 1)]
    assert game.rows[0] == (87, joker(9), 88)


def test_joker_as_sixth_card_takes_the_five_and_a_card_follows_it() -> None:
    rows: Rows = ((10, 11, 12, 13, 14), (20,), (30,), (40,))
    game = one_round("jokers", rows, [(joker(3), 50), (joker(4), 15)])
    play(game, {0: joker(3), 1: 15})
    assert game.take_row(0, 1)[:3] == [
        RowTaken(0, 1, (10, 11, 12, 13, 14), 11, "full"),
        CardPlaced(0, joker(3), 1, "right", True),
        CardPlaced(1, 15, 1),
    ]
    assert game.rows[0] == (joker(3), 15)


def test_joker_worth_one_bullhead_when_taken() -> None:
    rows: Rows = ((87,), (20,), (30,), (40,))
    game = one_round("jokers", rows, [(joker(9), 50), (joker(3), 1)])
    play(game, {0: joker(9), 1: joker(3)})
    game.take_row(1, 3)  # 30 -> 30.3
    game.take_row(0, 2)  # 20 -> 20.9
    play(game, {0: 50, 1: 1})
    events = game.take_row(1, 2)
    assert events[0] == RowTaken(1, 2, (20, joker(9)), 4, "too_low")


@pytest.mark.parametrize("alone_on_row", [1, 2])
def test_equal_row_values_go_to_the_lower_row_number(alone_on_row: int) -> None:
    """0.2 + 0.3 on one restarted row and 0.5 on the other give both rows 0.5: 2 goes to row 1."""
    pair_row = 3 - alone_on_row
    full: Rows = ((10, 11, 12, 13, 14), (20, 21, 22, 23, 24), (30,), (40,))
    game = one_round("jokers", full, [(joker(2), 2), (joker(3), 3), (joker(5), 4)])
    play(game, {0: joker(2), 1: joker(3), 2: joker(5)})
    game.take_row(0, pair_row)
    game.take_row(1, pair_row)
    game.take_row(2, alone_on_row)
    assert sorted([game.rows[0], game.rows[1]]) == [(joker(2), joker(3)), (joker(5),)]
    events = play(game, {0: 2, 1: 3, 2: 4})
    assert [e for e in events if type(e) is CardPlaced] == [
        CardPlaced(0, 2, 1),
        CardPlaced(1, 3, 1),
        CardPlaced(2, 4, 1),
    ]


def test_jokers_with_professional_always_go_right() -> None:
    rows: Rows = ((87,), (20,), (30,), (40,))
    game = one_round("jokers+professional", rows, [(joker(9), 86), (joker(3), 88)])
    play(game, {0: joker(9), 1: 88})
    assert game.take_row(0, 1)[:2] == [CardPlaced(0, joker(9), 1, "right"), CardPlaced(1, 88, 1)]
    play(game, {0: 86, 1: joker(3)})
    game.take_row(1, 3)
    assert game.rows == ((86, 87, joker(9), 88), (20,), (30, joker(3)), (40,))


def test_jokers_refuses_a_deal_without_one_joker_each() -> None:
    rules = Rules.parse("jokers", players=2)
    deal = Deal(rows=((10,), (20,), (30,), (40,)), hands=((joker(1), 5), (6, 7)))
    with pytest.raises(
        RulesError,
        match=r"^round 1 deal: with jokers, player 1 \(seat 2\) must hold exactly one joker$",
    ):
        Game(rules, deals=[deal])


# -- Dealing ----------------------------------------------------------------------


def test_game_without_seed_waits_for_a_deal() -> None:
    rules = Rules.preset("classic", players=2, end="rounds", rounds=2)
    game = Game(rules)
    assert (game.phase, game.pending, game.round, game.events) == (Phase.DEAL, None, 0, [])
    with pytest.raises(NotYourDecision, match=r"^the game waits for the deal of the next round$"):
        game.play_card(0, 1)
    deal = Deal(rows=SIMPLE_ROWS, hands=((41,), (42,)))
    events = game.deal(deal)
    assert events[0] == RoundStarted(1, (0, 1), 104)
    assert game.phase is Phase.CHOOSE and game.round == 1
    with pytest.raises(NotYourDecision, match=r"^the game is not waiting for a deal$"):
        game.deal(deal)
    play(game, {0: 41, 1: 42})
    assert (game.phase, game.round) == (Phase.DEAL, 1)
    game.deal(deal)
    play(game, {0: 41, 1: 42})
    assert game.is_over and game.round_deals == (deal, deal)


def test_same_seed_same_deals() -> None:
    a = Game(Rules.parse("jokers+professional", players=6), seed=42)
    b = Game(Rules.parse("jokers+professional", players=6), seed=random.Random(42))
    assert a.round_deals == b.round_deals and a.events == b.events


def test_decide_takes_every_kind_of_decision() -> None:
    game = Game(Rules.parse("logic", players=2, end="rounds", rounds=1), seed=0)
    assert game.decide(DraftCard(0, 24)) == [CardDrafted(0, 24)]
    while game.phase is Phase.DRAFT:
        assert game.pending is not None
        p = game.pending.players[0]
        game.decide(DraftCard(p, game.legal(p)[0]))
    # Player 0 holds 24 and 2, 4, ..., 18; player 1 holds 1, 3, ..., 19; 20-23 are the rows.
    assert game.hands == ((2, 4, 6, 8, 10, 12, 14, 16, 18, 24), tuple(range(1, 20, 2)))
    assert game.rows == ((20,), (21,), (22,), (23,))
    assert game.decide(PlayCard(0, 2)) == [CardChosen(0, 2)]
    game.decide(PlayCard(1, 19))
    assert game.pending is not None and game.pending.kind is DecisionKind.ROW
    assert game.decide(TakeRow(0, 3))[:3] == [
        RowTaken(0, 3, (22,), 5, "too_low"),
        CardPlaced(0, 2, 3, "right", True),
        CardPlaced(1, 19, 3),
    ]
