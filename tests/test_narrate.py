"""Plain English sentences for every event, the table, scores and rules."""

from __future__ import annotations

from pathlib import Path

import pytest

from nimmt import DecisionKind, Pending, Rules, for_viewer
from nimmt.events import (
    EVENT_TYPES,
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
from nimmt.narrate import (
    card_name,
    describe,
    describe_pending,
    describe_row,
    describe_rules,
    describe_scores,
    describe_table,
    narrate,
    player_name,
)
from nimmt.randomplay import simulate
from nimmt.record import load_record, replay

NAMES = ["Ana", "Bob", "Cleo"]
GOLDEN = Path(__file__).resolve().parent / "golden"

#: One example of every event type, with its sentence.
EXAMPLES: list[tuple[Event, str]] = [
    (
        RoundStarted(2, (0, 1, 2), 104),
        "Round 2 begins for Ana, Bob and Cleo, with 104 cards.",
    ),
    (HandDealt(1, (3, 55, -4)), "Bob's hand: 3, 55, joker 0.6."),
    (
        DraftStarted((1, 2, 3), 2),
        "Draft from 3 face-up cards: 1, 2, 3. Cleo picks first.",
    ),
    (CardDrafted(0, 17), "Ana drafts 17."),
    (
        RowsDealt(((12,), (40, 55), (77,), (90,))),
        "The rows: Row 1: 12 (1 card, 1 bullhead). Row 2: 40, 55 (2 cards, 10 bullheads). "
        "Row 3: 77 (1 card, 5 bullheads). Row 4: 90 (1 card, 3 bullheads).",
    ),
    (TurnStarted(3), "Turn 3."),
    (CardChosen(2, 44), "Cleo chooses 44."),
    (
        CardsRevealed(((0, 12), (1, 40), (2, 77))),
        "Cards revealed: Ana 12, Bob 40, Cleo 77.",
    ),
    (
        RowChoiceNeeded(0, 7, "too_low"),
        "Row choice: Ana's 7 is lower than every row.",
    ),
    (
        RowTaken(1, 3, (33, 42, 50, 57, 64), 8, "full"),
        "Bob takes row 3 (5 cards, 8 bullheads).",
    ),
    (CardPlaced(0, 12, 1), "Ana's 12 goes to row 1."),
    (
        RoundScored(1, (5, 0, 11), (5, 0, 11)),
        "Round 1 is over. Penalties: Ana 5, Bob 0, Cleo 11. Totals: Ana 5, Bob 0, Cleo 11.",
    ),
    (PlayerEliminated(1, 68), "Bob is out with 68 bullheads."),
    (GameOver((2,), (70, 68, 23)), "Game over: Cleo wins with 23 bullheads."),
]


@pytest.mark.parametrize(("event", "sentence"), EXAMPLES, ids=lambda x: type(x).__name__)
def test_sentence(event: Event, sentence: str) -> None:
    assert describe(event, NAMES) == sentence


def test_every_event_type_has_a_sentence() -> None:
    assert {type(e) for e, _ in EXAMPLES} == set(EVENT_TYPES.values())


def test_variants_of_sentences() -> None:
    assert describe(TurnStarted(4, 1), NAMES) == (
        "Turn 4. Bob has the first-player marker and chooses first."
    )
    assert describe(CardChosen(1, 40, True), NAMES) == "Bob plays 40 face up."
    hidden = for_viewer(CardChosen(1, 40), 0)
    assert hidden is not None
    assert describe(hidden, NAMES) == "Bob has chosen a card."
    assert describe(RowChoiceNeeded(2, -1, "joker"), NAMES) == (
        "Row choice: Cleo chooses the row for joker 0.9."
    )
    assert describe(CardPlaced(1, 8, 2, "left"), NAMES) == "Bob's 8 goes to the left end of row 2."
    assert describe(CardPlaced(1, 8, 2, "right", True), NAMES) == "Bob's 8 starts row 2."
    assert describe(RowTaken(0, 1, (55,), 7, "too_low"), NAMES) == (
        "Ana takes row 1 (1 card, 7 bullheads)."
    )
    assert describe(PlayerEliminated(0, 1), NAMES) == "Ana is out with 1 bullhead."
    assert describe(GameOver((0, 2), (30, 41, 30)), NAMES) == (
        "Game over: Ana and Cleo share the win with 30 bullheads each."
    )
    assert describe(HandDealt(2, ()), NAMES) is None
    assert describe(CardDrafted(5, 3), NAMES) == "Player 6 drafts 3."


def test_take_and_start_are_one_sentence() -> None:
    taken = RowTaken(1, 3, (33, 42, 50, 57, 64), 8, "full")
    assert narrate([taken, CardPlaced(1, 77, 3, started=True)], NAMES) == [
        "Bob takes row 3 (5 cards, 8 bullheads) and starts it with 77."
    ]
    full = RowTaken(0, 2, (5, 6, 7, 8, 9), 5, "full")
    assert narrate([full, CardPlaced(0, -2, 2, started=True)], NAMES) == [
        "Ana takes row 2 (5 cards, 5 bullheads) and starts it with joker 0.8."
    ]
    # Not the same row: two sentences.
    assert narrate([taken, CardPlaced(1, 77, 4)], NAMES) == [
        "Bob takes row 3 (5 cards, 8 bullheads).",
        "Bob's 77 goes to row 4.",
    ]
    # A take at the very end is still told.
    assert narrate([CardPlaced(2, 9, 1), taken], NAMES) == [
        "Cleo's 9 goes to row 1.",
        "Bob takes row 3 (5 cards, 8 bullheads).",
    ]


def test_table_scores_rules_and_pending() -> None:
    assert describe_row(2, (87, -1)) == "Row 2: 87, joker 0.9 (2 cards, 2 bullheads)."
    assert describe_table(((1,), (2,))) == (
        "Row 1: 1 (1 card, 1 bullhead). Row 2: 2 (1 card, 1 bullhead)."
    )
    assert describe_scores((3, 0, 12), NAMES) == "Scores: Ana 3, Bob 0, Cleo 12."
    assert describe_rules(Rules.parse("category5+tactics", players=5)) == (
        "Rules: category5+tactics, 5 players, the game ends when someone reaches 75."
    )
    assert describe_rules(Rules.preset("classic", 3, end="elimination", limit=40)) == (
        "Rules: classic, 3 players, players reaching 40 are out."
    )
    assert describe_rules(Rules.preset("classic", 3, end="rounds", rounds=1)) == (
        "Rules: classic, 3 players, 1 round."
    )
    assert describe_pending(Pending(DecisionKind.CARD, (0, 2)), NAMES) == (
        "Waiting for Ana and Cleo to choose a card."
    )
    assert describe_pending(Pending(DecisionKind.ROW, (1,), 7, "too_low"), NAMES) == (
        "Waiting for Bob to choose a row for 7."
    )
    assert describe_pending(Pending(DecisionKind.DRAFT, (2,)), NAMES) == (
        "Waiting for Cleo to draft a card."
    )
    assert describe_pending(None, NAMES) is None
    assert (card_name(-10), card_name(104)) == ("joker 0.0", "104")
    assert player_name(-1, NAMES) == "Player 0" and player_name(1, NAMES) == "Bob"


@pytest.mark.parametrize("path", sorted(GOLDEN.glob("*.json")), ids=lambda p: p.stem)
def test_every_golden_game_can_be_told(path: Path) -> None:
    record = load_record(path)
    game = replay(record)
    sentences = narrate(game.events, record.players)
    merged = sum(
        1
        for a, b in zip(game.events, game.events[1:], strict=False)
        if type(a) is RowTaken and type(b) is CardPlaced and b.started
    )
    dealt_empty = sum(1 for e in game.events if type(e) is HandDealt and not e.hand)
    assert len(sentences) == len(game.events) - merged - dealt_empty
    assert all(s and s[0].isupper() and s.endswith(".") for s in sentences)
    assert not any("None" in s or "{" in s for s in sentences)


def test_sentences_follow_views() -> None:
    game = simulate(Rules.preset("classic", players=3), 1, max_decisions=2)
    seen = [e for e in (for_viewer(ev, 2) for ev in game.events) if e is not None]
    told = narrate(seen, NAMES)
    assert "Ana's hand" not in " ".join(told)
    assert "Cleo's hand" in " ".join(told)
    assert "Ana has chosen a card." in told
