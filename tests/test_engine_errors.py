"""Every illegal decision is refused with its precise exception, and changes nothing.

Each case builds a table, makes the one refused call, checks the exception
type and its whole message, then checks that every seat's view, the
spectator's view, the pending decision, the events and the decisions are
exactly as before.
"""

from __future__ import annotations

import copy
import re
from collections.abc import Callable
from dataclasses import dataclass

import pytest

from nimmt import (
    CardNotInHand,
    Deal,
    Game,
    GameOverError,
    IllegalMove,
    NimmtError,
    NoSuchRow,
    NotYourDecision,
    Phase,
    PlayCard,
    Rules,
    RulesError,
    TakeRow,
    joker,
)
from nimmt.events import CardPlaced, PlayerEliminated, RoundScored, RoundStarted, RowTaken
from nimmt.record import record_from_game, replay

WORKED_ROWS = ((9, 12, 21), (19, 24), (33, 42, 50, 57), (69, 72, 81))


def choosing() -> Game:
    """Four players choosing their cards; player 0 has chosen already."""
    rules = Rules.preset("classic", players=4, end="rounds", rounds=1)
    hands = ((23, 30), (88, 89), (7, 8), (64, 65))
    game = Game(rules, deals=[Deal(rows=WORKED_ROWS, hands=hands)])
    game.play_card(0, 23)
    return game


def row_pending() -> Game:
    """The worked example paused: player 2's 7 is too low and waits for a row."""
    game = choosing()
    for p, c in ((1, 88), (3, 64), (2, 7)):
        game.play_card(p, c)
    return game


def over() -> Game:
    game = row_pending()
    game.take_row(2, 4)
    game.play_card(0, 30)
    game.play_card(1, 89)
    game.play_card(3, 65)
    game.play_card(2, 8)
    assert game.is_over
    return game


def drafting() -> Game:
    game = Game(Rules.parse("logic", players=2), seed=1)
    game.draft_card(0, 1)
    return game


def open_game() -> Game:
    rules = Rules.parse("open", players=3)
    hands = ((11, 12), (21, 22), (31, 32))
    game = Game(rules, deals=[Deal(rows=((2,), (3,), (4,), (5,)), hands=hands)])
    game.play_card(0, 11)
    return game


def with_eliminated() -> Game:
    rules = Rules.preset("classic", players=3, end="elimination")
    first = Deal(rows=((12,), (20,), (30,), (40,)), hands=((1,), (41,), (42,)))
    second = Deal(rows=((12,), (20,), (30,), (40,)), hands=((), (41,), (42,)))
    game = Game(rules, deals=[first, second], scores=(65, 0, 0))
    for p, c in ((0, 1), (1, 41), (2, 42)):
        game.play_card(p, c)
    game.take_row(0, 1)
    assert game.active == (1, 2)
    return game


def jokers_row() -> Game:
    rules = Rules.parse("jokers", players=2)
    hands = ((joker(9), 50), (joker(3), 60))
    game = Game(rules, deals=[Deal(rows=((87,), (20,), (30,), (40,)), hands=hands)])
    game.play_card(0, joker(9))
    game.play_card(1, 60)
    return game


def jokers_next_turn() -> Game:
    game = jokers_row()
    game.take_row(0, 1)
    return game


@dataclass(frozen=True)
class Case:
    name: str
    setup: Callable[[], Game]
    act: Callable[[Game], object]
    error: type[Exception]
    message: str


CASES = [
    # Card not in hand.
    Case(
        "card of another hand",
        choosing,
        lambda g: g.play_card(1, 7),
        CardNotInHand,
        "card 7 is not in the hand of player 1 (seat 2)",
    ),
    Case(
        "card on the table",
        choosing,
        lambda g: g.play_card(1, 9),
        CardNotInHand,
        "card 9 is not in the hand of player 1 (seat 2)",
    ),
    Case(
        "card 0",
        choosing,
        lambda g: g.play_card(1, 0),
        CardNotInHand,
        "card 0 is not in the hand of player 1 (seat 2)",
    ),
    Case(
        "card 105",
        choosing,
        lambda g: g.play_card(1, 105),
        CardNotInHand,
        "card 105 is not in the hand of player 1 (seat 2)",
    ),
    Case(
        "a joker not held",
        jokers_next_turn,
        lambda g: g.play_card(0, joker(3)),
        CardNotInHand,
        "card 0.3 is not in the hand of player 0 (seat 1)",
    ),
    Case(
        "a joker already played",
        jokers_next_turn,
        lambda g: g.play_card(0, joker(9)),
        CardNotInHand,
        "card 0.9 is not in the hand of player 0 (seat 1)",
    ),
    Case(
        "draft a card not in the pool",
        drafting,
        lambda g: g.draft_card(1, 1),
        CardNotInHand,
        "card 1 is not in the pool",
    ),
    Case(
        "draft a card above the deck",
        drafting,
        lambda g: g.draft_card(1, 30),
        CardNotInHand,
        "card 30 is not in the pool",
    ),
    # No such row.
    *(
        Case(
            f"row {row!r}",
            row_pending,
            lambda g, row=row: g.take_row(2, row),
            NoSuchRow,
            f"there is no row {row!r}; rows are numbered 1 to 4",
        )
        for row in (0, 5, -1)
    ),
    Case(
        "joker row 5",
        jokers_row,
        lambda g: g.take_row(0, 5),
        NoSuchRow,
        "there is no row 5; rows are numbered 1 to 4",
    ),
    # Not your decision.
    Case(
        "row choice by another player",
        row_pending,
        lambda g: g.take_row(1, 4),
        NotYourDecision,
        "player 2 (seat 3) chooses the row for card 7, not player 1 (seat 2)",
    ),
    Case(
        "joker row by another player",
        jokers_row,
        lambda g: g.take_row(1, 1),
        NotYourDecision,
        "player 0 (seat 1) chooses the row for card 0.9, not player 1 (seat 2)",
    ),
    Case(
        "card while a row choice is pending",
        row_pending,
        lambda g: g.play_card(2, 8),
        NotYourDecision,
        "a row decision is pending for player 2 (seat 3), not a card decision",
    ),
    Case(
        "row while cards are chosen",
        choosing,
        lambda g: g.take_row(1, 1),
        NotYourDecision,
        "a card decision is pending for players 1, 2 and 3 (seats 2, 3 and 4), "
        "not a row decision",
    ),
    Case(
        "draft outside logic",
        choosing,
        lambda g: g.draft_card(1, 88),
        NotYourDecision,
        "a card decision is pending for players 1, 2 and 3 (seats 2, 3 and 4), "
        "not a draft decision",
    ),
    Case(
        "card during the draft",
        drafting,
        lambda g: g.play_card(1, 2),
        NotYourDecision,
        "a draft decision is pending for player 1 (seat 2), not a card decision",
    ),
    Case(
        "draft out of turn",
        drafting,
        lambda g: g.draft_card(0, 2),
        NotYourDecision,
        "it is the turn of player 1 (seat 2) to draft, not of player 0 (seat 1)",
    ),
    Case(
        "eliminated player chooses",
        with_eliminated,
        lambda g: g.play_card(0, 41),
        NotYourDecision,
        "player 0 (seat 1) is eliminated and has no cards",
    ),
    *(
        Case(
            f"no seat {seat!r}",
            choosing,
            lambda g, seat=seat: g.play_card(seat, 23),
            NotYourDecision,
            f"there is no player {seat!r} at this table",
        )
        for seat in (4, -1)
    ),
    Case(
        "no seat for a row",
        row_pending,
        lambda g: g.take_row(7, 1),
        NotYourDecision,
        "there is no player 7 at this table",
    ),
    Case(
        "no seat for a draft",
        drafting,
        lambda g: g.draft_card(2, 2),
        NotYourDecision,
        "there is no player 2 at this table",
    ),
    Case(
        "out of turn in open",
        open_game,
        lambda g: g.play_card(2, 31),
        NotYourDecision,
        "it is the turn of player 1 (seat 2) to choose, not of player 2 (seat 3)",
    ),
    Case(
        "choose twice in open",
        open_game,
        lambda g: g.play_card(0, 12),
        NotYourDecision,
        "it is the turn of player 1 (seat 2) to choose, not of player 0 (seat 1)",
    ),
    Case(
        "deal while playing",
        choosing,
        lambda g: g.deal(Deal()),
        NotYourDecision,
        "the game is not waiting for a deal",
    ),
    # Game over.
    Case(
        "card after the end", over, lambda g: g.play_card(0, 30), GameOverError, "the game is over"
    ),
    Case("row after the end", over, lambda g: g.take_row(2, 1), GameOverError, "the game is over"),
    Case(
        "draft after the end", over, lambda g: g.draft_card(0, 1), GameOverError, "the game is over"
    ),
    Case(
        "decide after the end",
        over,
        lambda g: g.decide(PlayCard(1, 89)),
        GameOverError,
        "the game is over",
    ),
    Case(
        "decide a wrong row",
        row_pending,
        lambda g: g.decide(TakeRow(2, 9)),
        NoSuchRow,
        "there is no row 9; rows are numbered 1 to 4",
    ),
]


def snapshot(game: Game) -> object:
    seats: list[int | None] = [*range(game.rules.players), None]
    return (
        [game.view(p) for p in seats],
        game.pending,
        len(game.events),
        list(game.events),
        copy.deepcopy(game.decisions),
        game.scores,
        game.phase,
        [game.legal(p) for p in range(game.rules.players)],
    )


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_refused_decision_with_precise_error_changes_nothing(case: Case) -> None:
    game = case.setup()
    before = snapshot(game)
    with pytest.raises(case.error, match=f"^{re.escape(case.message)}$"):
        case.act(game)
    assert snapshot(game) == before


WRONG_TYPES = [
    (choosing, lambda g: g.play_card(1, "88")),  # type: ignore[arg-type]
    (choosing, lambda g: g.play_card(1, 88.0)),  # type: ignore[arg-type]
    (choosing, lambda g: g.play_card(1, None)),  # type: ignore[arg-type]
    (choosing, lambda g: g.play_card("0", 23)),  # type: ignore[arg-type]
    (choosing, lambda g: g.play_card(None, 23)),  # type: ignore[arg-type]
    (row_pending, lambda g: g.take_row(2, "2")),  # type: ignore[arg-type]
    (row_pending, lambda g: g.take_row(2, 2.0)),  # type: ignore[arg-type]
    (row_pending, lambda g: g.take_row(2, None)),  # type: ignore[arg-type]
    (drafting, lambda g: g.draft_card(1, "2")),  # type: ignore[arg-type]
    (choosing, lambda g: g.view("1")),  # type: ignore[arg-type]
]


@pytest.mark.parametrize(("setup", "act"), WRONG_TYPES)
def test_wrong_types_are_refused_alike_in_both_builds(
    setup: Callable[[], Game], act: Callable[[Game], object]
) -> None:
    """Seats, cards and rows are ints (the methods are typed so): anything else is a
    TypeError, from mypyc's argument check or from the same check in pure Python."""
    game = setup()
    before = snapshot(game)
    with pytest.raises(TypeError, match=r"int (or None )?object expected; got"):
        act(game)
    assert snapshot(game) == before


def test_the_game_plays_on_after_refusals() -> None:
    game = row_pending()
    for bad in (0, 5):
        with pytest.raises(NoSuchRow):
            game.take_row(2, bad)  # type: ignore[arg-type]
    with pytest.raises(NotYourDecision):
        game.take_row(0, 4)
    events = game.take_row(2, 4)
    assert game.scores == (0, 0, 0, 0) and len(events) == 7
    assert game.turn == 2 and game.view(1).penalties == (0, 11, 3, 0)
    assert game.rows == ((9, 12, 21, 23), (19, 24), (88,), (7,))


def test_exception_hierarchy() -> None:
    for exc in (CardNotInHand, NoSuchRow, NotYourDecision, GameOverError):
        assert issubclass(exc, IllegalMove)
    assert issubclass(IllegalMove, NimmtError)
    assert issubclass(RulesError, NimmtError)
    assert issubclass(NimmtError, ValueError)


def test_legal_is_empty_for_anyone_not_asked() -> None:
    game = row_pending()
    assert [game.legal(p) for p in range(4)] == [(), (), (1, 2, 3, 4), ()]
    assert game.legal(9) == ()
    game = open_game()
    assert [game.legal(p) for p in range(3)] == [(), (21, 22), ()]
    game = drafting()
    assert game.legal(0) == () and game.legal(1)[:3] == (2, 3, 4)
    assert over().legal(0) == ()
    assert with_eliminated().legal(0) == ()


def test_view_of_a_seat_that_does_not_exist() -> None:
    with pytest.raises(NotYourDecision, match=r"^there is no player 4 at this table$"):
        choosing().view(4)


# -- Bad construction and bad deals -----------------------------------------------

RULES2 = Rules.preset("classic", players=2)
ROWS4 = ((10,), (20,), (30,), (40,))


def test_seed_must_be_int_or_random() -> None:
    # The message differs between the pure and the compiled engine; the type does not.
    with pytest.raises(TypeError):
        Game(RULES2, seed="7")  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        Game(RULES2, seed=7.0)  # type: ignore[arg-type]


def test_decide_refuses_what_is_not_a_decision() -> None:
    game = choosing()
    before = snapshot(game)
    with pytest.raises(TypeError):
        game.decide((1, 88))  # type: ignore[arg-type]
    assert snapshot(game) == before


@pytest.mark.parametrize("scores", [(0,), (0, 0, 0), (0, -1)])
def test_bad_starting_scores(scores: tuple[int, ...]) -> None:
    with pytest.raises(RulesError, match=r"^starting scores must be 2 whole numbers >= 0$"):
        Game(RULES2, seed=1, scores=scores)


def test_starting_scores_must_be_ints() -> None:
    # The pure engine says RulesError; the compiled one stops at the int check first.
    with pytest.raises((RulesError, TypeError)):
        Game(RULES2, seed=1, scores=(0, 1.5))  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("rules", "deal", "message"),
    [
        (RULES2, Deal(rows=ROWS4, hands=((10,), (11,))), "deal: card 10 appears twice"),
        (RULES2, Deal(rows=ROWS4[:3], hands=((1,), (2,))), "deal: 4 rows are needed, not 3"),
        (
            RULES2,
            Deal(rows=((10,), (), (30,), (40,)), hands=((1,), (2,))),
            "deal: row 2 must hold 1 to 5 cards",
        ),
        (
            RULES2,
            Deal(rows=((10,), (20,), (30,), (41, 42, 43, 44, 45, 46)), hands=((1,), (2,))),
            "deal: row 4 must hold 1 to 5 cards",
        ),
        (
            RULES2,
            Deal(rows=((10,), (25, 21), (30,), (40,)), hands=((1,), (2,))),
            "deal: row 2 must hold number cards in ascending order",
        ),
        (
            Rules.parse("jokers", players=2),
            Deal(rows=((joker(1),), (20,), (30,), (40,)), hands=((joker(2), 1), (joker(3), 2))),
            "deal: row 1 must hold number cards in ascending order",
        ),
        (
            RULES2,
            Deal(rows=ROWS4, hands=((1,),)),
            "deal: 2 hands are needed (empty for eliminated seats)",
        ),
        (
            RULES2,
            Deal(rows=ROWS4, hands=((1, 2), (3,))),
            "deal: every active hand must hold the same number (1 to 10)",
        ),
        (
            RULES2,
            Deal(rows=ROWS4, hands=((), ())),
            "deal: every active hand must hold the same number (1 to 10)",
        ),
        (
            RULES2,
            Deal(rows=ROWS4, hands=(tuple(range(41, 52)), tuple(range(52, 63)))),
            "deal: every active hand must hold the same number (1 to 10)",
        ),
        (
            RULES2,
            Deal(rows=ROWS4, hands=((0,), (1,))),
            "deal: the hand of player 0 (seat 1) holds 0, which is not in this round's deck",
        ),
        (
            RULES2,
            Deal(rows=ROWS4, hands=((105,), (1,))),
            "deal: the hand of player 0 (seat 1) holds 105, which is not in this round's deck",
        ),
        (
            RULES2,
            Deal(rows=ROWS4, hands=((joker(1),), (1,))),
            "deal: the hand of player 0 (seat 1) holds 0.1, which is not in this round's deck",
        ),
        (
            RULES2,
            Deal(rows=ROWS4, hands=((1,), (2,)), pool=(3,)),
            "deal: a pool is only dealt in logic",
        ),
        (
            Rules.parse("logic", players=2),
            Deal(pool=tuple(range(1, 24))),
            "deal: the logic pool must hold 24 cards",
        ),
        (
            Rules.parse("logic", players=2),
            Deal(rows=ROWS4, pool=tuple(range(1, 25))),
            "deal: logic deals only the face-up pool; rows come from the draft",
        ),
        (
            Rules.parse("logic", players=2),
            Deal(pool=(*range(1, 24), 25)),
            "deal: the pool holds 25, which is not in this round's deck",
        ),
    ],
)
def test_bad_deals_refused(rules: Rules, deal: Deal, message: str) -> None:
    with pytest.raises(RulesError, match=f"^round 1 {re.escape(message)}$"):
        Game(rules, deals=[deal])


def test_a_queued_deal_that_no_longer_fits_refuses_the_decision_first() -> None:
    """The deal of round 2 gives cards to player 0, whom round 1's end eliminates. The
    decision that ends round 1 is refused before it changes anything (no half-applied
    decision whose events are lost), the deal is dropped, and the same decision then
    applies with all its events; the game waits for a deal and its record replays."""
    rules = Rules.preset("classic", players=3, end="elimination")
    first = Deal(rows=((12,), (20,), (30,), (40,)), hands=((1,), (41,), (42,)))
    second = Deal(rows=((12,), (20,), (30,), (40,)), hands=((50,), (41,), (42,)))
    game = Game(rules, deals=[first, second], scores=(65, 0, 0))
    for p, c in ((0, 1), (1, 41), (2, 42)):
        game.play_card(p, c)
    before = snapshot(game)
    with pytest.raises(
        RulesError,
        match=r"^round 2 deal: player 0 \(seat 1\) is eliminated and gets no cards; the decision "
        r"is refused and the deal dropped: decide again, and the game waits for the round's "
        r"deal \(Game.deal\)$",
    ):
        game.take_row(0, 1)
    assert snapshot(game) == before
    events = game.take_row(0, 1)
    assert events == [
        RowTaken(0, 1, (12,), 1, "too_low"),
        CardPlaced(0, 1, 1, "right", True),
        CardPlaced(1, 41, 4),
        CardPlaced(2, 42, 4),
        RoundScored(1, (1, 0, 0), (66, 0, 0)),
        PlayerEliminated(0, 66),
    ]
    assert game.events[-len(events) :] == events
    assert game.phase is Phase.DEAL and game.pending is None and game.round == 1
    events = game.deal(Deal(rows=((12,), (20,), (30,), (40,)), hands=((), (41,), (42,))))
    assert events[0] == RoundStarted(2, (1, 2), 104)
    assert replay(record_from_game(game)).events == game.events


def test_refused_deal_changes_nothing() -> None:
    game = Game(Rules.preset("classic", players=2, end="rounds", rounds=1))
    with pytest.raises(RulesError, match=r"^deal: card 10 appears twice$"):
        game.deal(Deal(rows=ROWS4, hands=((10,), (11,))))
    assert game.round == 0
    events = game.deal(Deal(rows=ROWS4, hands=((12,), (11,))))
    assert events[0] == RoundStarted(1, (0, 1), 104)


def test_bad_later_deal_does_not_leave_a_stuck_game() -> None:
    rules = Rules.preset("classic", players=2, end="rounds", rounds=2)
    good = Deal(rows=ROWS4, hands=((11,), (21,)))
    bad = Deal(rows=ROWS4, hands=((10,), (21,)))
    try:
        game = Game(rules, deals=[good, bad])
    except RulesError:
        return  # refused up front: nothing can get stuck
    try:
        game.play_card(0, 11)
        game.play_card(1, 21)
    except RulesError:
        pass
    else:
        pytest.fail("the bad deal was not refused")
    pending = game.pending
    assert pending is None or all(game.legal(p) for p in pending.players)
