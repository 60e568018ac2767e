"""Plain English sentences for every event, the table, scores and rules."""

from __future__ import annotations

from pathlib import Path

import pytest

from nimmt import Deal, DecisionKind, Game, Pending, Rules, for_viewer
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
from nimmt.narrate import Narrator, narrator
from nimmt.randomplay import simulate
from nimmt.record import load_record, replay

NAMES = ["Ana", "Bob", "Cleo"]
EN = narrator("en")
describe = EN.describe
narrate = EN.narrate
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
        "The rows: Row 1: 12 — 1 card, 1 bullhead. Row 2: 40, 55 — 2 cards, 10 bullheads. "
        "Row 3: 77 — 1 card, 5 bullheads. Row 4: 90 — 1 card, 3 bullheads.",
    ),
    (TurnStarted(3), "Turn 3."),
    (CardChosen(2, 44), "Cleo chooses 44."),
    (
        CardsRevealed(((0, 12), (1, 40), (2, 77))),
        "Cards revealed: Ana: 12; Bob: 40; Cleo: 77.",
    ),
    (
        RowChoiceNeeded(0, 7, "too_low"),
        "Row choice: Ana's 7 is lower than every row.",
    ),
    (
        RowTaken(1, 3, (33, 42, 50, 57, 64), 8, "full"),
        "Bob takes row 3, 8 bullheads.",
    ),
    (CardPlaced(0, 12, 1), "Ana's 12 goes to row 1."),
    (
        RoundScored(1, (5, 0, 11), (5, 0, 11)),
        "Round 1 is over. Bullheads: Ana: 5; Bob: 0; Cleo: 11.",
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
        "Ana takes row 1, 7 bullheads."
    )
    assert describe(PlayerEliminated(0, 1), NAMES) == "Ana is out with 1 bullhead."
    assert describe(GameOver((0, 2), (30, 41, 30)), NAMES) == (
        "Game over: Ana and Cleo share the win with 30 bullheads each."
    )
    assert describe(HandDealt(2, ()), NAMES) is None
    assert describe(CardDrafted(5, 3), NAMES) == "Player 6 drafts 3."


def test_take_and_start_are_one_sentence() -> None:
    taken = RowTaken(1, 3, (33, 42, 50, 57, 64), 8, "full")
    # A full row says why it is taken (the sixth card) and which cards are taken.
    assert narrate([taken, CardPlaced(1, 77, 3, started=True)], NAMES) == [
        "Bob's 77 is the sixth card in row 3: Bob takes 33, 42, 50, 57 and 64, "
        "worth 8 bullheads, and 77 starts the row."
    ]
    full = RowTaken(0, 2, (5, 6, 7, 8, 9), 5, "full")
    assert narrate([full, CardPlaced(0, -2, 2, started=True)], NAMES, viewer=0) == [
        "Your joker 0.8 is the sixth card in row 2: you take 5, 6, 7, 8 and 9, "
        "worth 5 bullheads, and joker 0.8 starts the row."
    ]
    low = RowTaken(0, 2, (5, 6), 2, "too_low")
    assert narrate([low, CardPlaced(0, 3, 2, started=True)], NAMES) == [
        "Ana takes row 2, 2 bullheads, and starts it with 3."
    ]
    # Not the same row: two sentences.
    assert narrate([taken, CardPlaced(1, 77, 4)], NAMES) == [
        "Bob takes row 3, 8 bullheads.",
        "Bob's 77 goes to row 4.",
    ]
    # A take at the very end is still told.
    assert narrate([CardPlaced(2, 9, 1), taken], NAMES) == [
        "Cleo's 9 goes to row 1.",
        "Bob takes row 3, 8 bullheads.",
    ]


def test_table_scores_rules_and_pending() -> None:
    assert EN.row(2, (87, -1)) == (
        "Row 2: 87, joker 0.9 (end value 87.9) — 2 cards, 2 bullheads."
    )
    assert EN.row(3, (14, 17, 33)) == "Row 3: 14, 17, 33 — 3 cards, 7 bullheads."
    assert EN.table(((1,), (2,))) == (
        "Row 1: 1 — 1 card, 1 bullhead. Row 2: 2 — 1 card, 1 bullhead."
    )
    assert EN.rules_sentence(Rules.parse("category5+tactics", players=5)) == (
        "Rules: Category 5 + Tactics, 5 players, the game ends when someone reaches 75."
    )
    assert EN.rules_sentence(Rules.preset("classic", 3, end="elimination", limit=40)) == (
        "Rules: Classic, 3 players, players reaching 40 are out."
    )
    assert EN.rules_sentence(Rules.preset("classic", 3, end="rounds", rounds=1)) == (
        "Rules: Classic, 3 players, 1 round."
    )
    assert EN.pending_sentence(Pending(DecisionKind.CARD, (0, 2)), NAMES) == (
        "Waiting for Ana and Cleo to choose a card."
    )
    assert EN.pending_sentence(Pending(DecisionKind.ROW, (1,), 7, "too_low"), NAMES) == (
        "Waiting for Bob to choose a row for 7."
    )
    assert EN.pending_sentence(Pending(DecisionKind.DRAFT, (2,)), NAMES) == (
        "Waiting for Cleo to draft a card."
    )
    assert EN.pending_sentence(None, NAMES) is None
    assert (EN.card(-10), EN.card(104)) == ("joker 0.0", "104")
    assert EN.player(-1, NAMES) == "Player 0" and EN.player(1, NAMES) == "Bob"


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


# -- the Narrator: the viewer as "you", a whole resolution step, the shortcuts ------------

SEED_NAMES = ["Alisa", "Bob", "Celia", "David"]
#: The Playroom text's worked example (docs/rules.md §2): Bob plays 88, so Bob takes the 11.
SEED_DEAL = Deal(
    rows=((9, 12, 21), (19, 24), (33, 42, 50, 57), (69, 72, 81)),
    hands=((23,), (88,), (7,), (64,)),
)


def seed_game() -> Game:
    return Game(Rules.preset("classic", 4), deals=[SEED_DEAL])


def test_a_resolution_step_is_one_group_with_the_viewer_as_you() -> None:
    en = Narrator("en")
    game = seed_game()
    game.play_card(0, 23)
    game.play_card(1, 88)
    game.play_card(3, 64)
    reveal = game.play_card(2, 7)
    assert en.announce(reveal, SEED_NAMES, viewer=1) == (
        "Celia has chosen a card. Cards revealed: Celia: 7; Alisa: 23; David: 64; you: 88. "
        "Row choice: Celia's 7 is lower than every row."
    )
    # A reader playing along hears the others' choices summed up, not one by one.
    assert en.announce(reveal[:1], SEED_NAMES, viewer=1, others_chosen=False) == ""
    assert en.narrate(reveal, SEED_NAMES, viewer=1, others_chosen=True)[0] == (
        "Everyone else has chosen.")
    step = game.take_row(2, 4)
    assert en.narrate(step, SEED_NAMES, viewer=1) == [
        "Celia takes row 4, 3 bullheads, and starts it with 7.",
        "Alisa's 23 goes to row 1.",
        "David's 64 goes to row 3.",
        "Your 88 is the sixth card in row 3: you take 33, 42, 50, 57 and 64, "
        "worth 11 bullheads, and 88 starts the row.",
        # The first round's penalties are the totals: one list, not two alike.
        "Round 1 is over. Bullheads: Alisa: 0; you: 11; Celia: 3; David: 0.",
    ]
    # Seen by Celia, and by nobody in particular (a record).
    assert en.narrate(step, SEED_NAMES, viewer=2)[0] == (
        "You take row 4, 3 bullheads, and start it with 7."
    )
    assert en.narrate(step, SEED_NAMES)[3] == (
        "Bob's 88 is the sixth card in row 3: Bob takes 33, 42, 50, 57 and 64, "
        "worth 11 bullheads, and 88 starts the row."
    )


def test_every_event_has_a_you_form() -> None:
    en = Narrator("en")
    said = {
        HandDealt(1, (3, 55, -4)): "Your hand: 3, 55, joker 0.6.",
        DraftStarted((1, 2, 3), 1): "Draft from 3 face-up cards: 1, 2, 3. You pick first.",
        DraftStarted((9,), 0): "Draft from 1 face-up card: 9. Ana picks first.",
        CardDrafted(1, 17): "You draft 17.",
        TurnStarted(4, 1): "Turn 4. You have the first-player marker and choose first.",
        CardChosen(1, 40): "You choose 40.",
        CardChosen(1, None): "You have chosen a card.",
        CardChosen(1, 40, True): "You play 40 face up.",
        CardChosen(0, 12, True): "Ana plays 12 face up.",
        # The viewer's own row choice is the decision asked (your_decision_sentence),
        # which says why: not told twice.
        RowChoiceNeeded(1, 7, "too_low"): None,
        RowChoiceNeeded(1, -1, "joker"): None,
        RowTaken(1, 3, (33, 42), 6, "too_low"): "You take row 3, 6 bullheads.",
        CardPlaced(1, 40, 2): "Your 40 goes to row 2.",
        CardPlaced(1, 8, 2, "left"): "Your 8 goes to the left end of row 2.",
        CardPlaced(1, 8, 2, "right", True): "Your 8 starts row 2.",
        PlayerEliminated(1, 66): "You are out with 66 bullheads.",
        GameOver((1,), (70, 12, 40)): "Game over: you win with 12 bullheads.",
        GameOver((1, 2), (70, 12, 12)): (
            "Game over: you and Cleo share the win with 12 bullheads each."
        ),
        RoundStarted(1, (0, 1), 104): "Round 1 begins for Ana and you, with 104 cards.",
    }
    for event, sentence in said.items():
        assert en.describe(event, NAMES, viewer=1) == sentence
    # What the viewer may not see is never told: another seat's hand, a face-down card.
    assert en.describe(HandDealt(0, (3, 4)), NAMES, viewer=1) is None
    assert en.describe(HandDealt(0, (3, 4), public=True), NAMES, viewer=1) == "Ana's hand: 3, 4."
    assert en.describe(CardChosen(0, 12), NAMES, viewer=1) == "Ana has chosen a card."
    assert en.describe(GameOver((), (1, 2, 3)), NAMES) == "Game over."


def test_shortcut_sentences_follow_the_view() -> None:
    en = Narrator("en")
    game = seed_game()
    view = game.view(1)
    assert en.rows_sentence(view) == (
        "Row 1: 9, 12, 21 — 3 cards, 3 bullheads. Row 2: 19, 24 — 2 cards, 2 bullheads. "
        "Row 3: 33, 42, 50, 57 — 4 cards, 10 bullheads. Row 4: 69, 72, 81 — 3 cards, 3 bullheads."
    )
    assert en.row_sentence(view, 3) == "Row 3: 33, 42, 50, 57 — 4 cards, 10 bullheads."
    assert en.bullheads_sentence(view.rows[2], 3) == "Row 3: 10 bullheads."
    assert en.bullheads_sentence(view.rows[1]) == "2 cards, 2 bullheads."
    assert en.bullheads_sentence(55) == "55: 7 bullheads."
    assert en.bullheads_sentence(-5) == "joker 0.5: 1 bullhead."
    assert en.chosen_sentence(view, SEED_NAMES) == "Nobody has chosen yet."
    assert en.scores_sentence(view, SEED_NAMES) == "Scores: Alisa: 0; you: 0; Celia: 0; David: 0."
    assert en.hand_sentence(view) == "Your hand: 88 — 1 card."
    assert en.your_decision_sentence(view) == "Your turn: choose a card."

    game.play_card(1, 88)
    view = game.view(1)
    assert en.chosen_sentence(view, SEED_NAMES) == (
        "Chosen: you: 88. Not yet: Alisa, Celia and David."
    )
    assert en.chosen_sentence(game.view(0), SEED_NAMES) == (
        "Chosen: Bob. Not yet: you, Celia and David."
    )
    assert en.hand_sentence(view) == "Your hand: 88 — 1 card. You have chosen 88."
    assert en.your_decision_sentence(view) is None

    game.play_card(0, 23)
    game.play_card(3, 64)
    game.play_card(2, 7)
    assert en.your_decision_sentence(game.view(2)) == (
        "Your 7 is lower than every row. Choose a row to take: row 1, 3 bullheads; "
        "row 2, 2 bullheads; row 3, 10 bullheads; row 4, 3 bullheads."
    )
    assert en.chosen_sentence(game.view(1), SEED_NAMES) == (
        "Waiting for Celia to choose a row for 7."
    )
    game.take_row(2, 4)
    view = game.view(1)
    assert en.scores_sentence(view, SEED_NAMES) == "Scores: Alisa: 0; you: 11; Celia: 3; David: 0."
    assert en.chosen_sentence(view, SEED_NAMES) == "Nobody is choosing a card now."
    assert en.row_sentence(view, 2) == "Row 2 is not on the table yet."
    assert en.hand_sentence(view) == "Your hand is empty."
    assert en.hand_sentence(game.view(None)) == "Spectators have no hand."
    with pytest.raises(ValueError, match="rows are numbered 1 to 4"):
        en.row_sentence(view, 5)


def test_this_rounds_penalties_and_who_is_out() -> None:
    en = Narrator("en")
    rules = Rules.preset("classic", 3, end="elimination", limit=10)
    deal = Deal(rows=((10,), (20,), (30,), (40,)), hands=((5, 6), (50, 51), (52, 53)))
    game = Game(rules, deals=[deal], scores=(9, 0, 0))
    game.play_card(0, 5)
    game.play_card(1, 50)
    game.play_card(2, 52)
    game.take_row(0, 4)  # 40: 3 bullheads, this round
    assert en.scores_sentence(game.view(1), NAMES) == (
        "Scores: Ana: 9; you: 0; Cleo: 0. This round so far: Ana: 3; you: 0; Cleo: 0."
    )
    game.play_card(0, 6)
    game.play_card(1, 51)
    game.play_card(2, 53)
    told = en.narrate(game.events, NAMES, viewer=1)
    assert "Ana is out with 12 bullheads." in told
    assert en.scores_sentence(game.view(1), NAMES).startswith("Scores: Ana: 12 (out); you: ")


def test_who_is_at_the_table() -> None:
    """Key W: each player's bullheads this game (the round's so far counted in) and who is a
    bot, away or played by the default bot; before a game, the seats."""
    en, sr = Narrator("en"), Narrator("sr")
    rules = Rules.preset("classic", 3)
    deal = Deal(rows=((10,), (20,), (30,), (40,)), hands=((5, 6), (50, 51), (52, 53)))
    game = Game(rules, deals=[deal], scores=(9, 0, 0))
    for seat, card in ((0, 5), (1, 50), (2, 52)):
        game.play_card(seat, card)
    game.take_row(0, 4)  # 40: 3 bullheads, this round
    view = game.view(1)
    assert en.who_sentence(NAMES, 1, view, ("auto", "away", "bot")) == (
        "At the table: Ana: 12 bullheads, played by the default bot; "
        "Bob (you): 0 bullheads, away; Cleo (bot): 0 bullheads."
    )
    assert en.who_sentence(NAMES, 1, view, ("auto_away", "here", "auto")) == (
        "At the table: Ana: 12 bullheads, away, played by the default bot; "
        "Bob (you): 0 bullheads; Cleo: 0 bullheads, played by the default bot."
    )
    assert en.who_sentence(NAMES, None, view) == (
        "At the table: Ana: 12 bullheads; Bob: 0 bullheads; Cleo: 0 bullheads."
    )
    assert sr.who_sentence(NAMES, 1, view, ("here", "here", "bot")) == (
        "Za stolom: Ana: 12 bodova; Bob (vi): 0 bodova; Cleo (računar): 0 bodova."
    )
    assert en.who_sentence(NAMES, 1, None, ("here", "empty", "bot")) == (
        "Seat 1: Ana. Seat 2: empty. Seat 3: Cleo (bot)."
    )
    assert en.who_sentence(NAMES, 0, None, ("here", "away", "auto_away")) == (
        "Seat 1: Ana (you). Seat 2: Bob, away. Seat 3: Cleo, away."
    )


def test_jokers_open_play_and_draft_decisions() -> None:
    en = Narrator("en")
    rules = Rules.parse("jokers", players=2)
    deal = Deal(rows=((87,), (20, 30), (40,), (60,)), hands=((-1, 11), (-3, 12)))
    game = Game(rules, deals=[deal])
    game.play_card(0, -1)
    game.play_card(1, 12)
    assert en.your_decision_sentence(game.view(0)) == (
        "Choose the row for your joker 0.9: row 1, 1 card, 1 bullhead; "
        "row 2, 2 cards, 6 bullheads; row 3, 1 card, 3 bullheads; row 4, 1 card, 3 bullheads."
    )
    assert en.pending_sentence(game.pending, NAMES, viewer=1) == (
        "Waiting for Ana to choose a row for joker 0.9."
    )
    game.take_row(0, 1)
    assert en.row_sentence(game.view(1), 1) == (
        "Row 1: 87, joker 0.9 (end value 87.9) — 2 cards, 2 bullheads."
    )

    logic = Game(Rules.parse("logic", players=2), seed=3)
    drafter = logic.pending.players[0] if logic.pending else -1
    decision = en.your_decision_sentence(logic.view(drafter))
    assert decision is not None and decision.startswith("Draft a card: ")
    assert en.pending_sentence(logic.pending, NAMES) == (
        f"Waiting for {NAMES[drafter]} to draft a card."
    )


def test_timers_errors_and_rules() -> None:
    en = Narrator("en")
    assert en.timer_sentence(1) == "1 second left."
    assert en.timer_sentence(10) == "10 seconds left."
    assert en.timeout_sentence(2, NAMES) == "Time is up: the table plays for Cleo."
    assert en.timeout_sentence(2, NAMES, viewer=2) == "Time is up: the table plays for you."
    game = seed_game()
    refusals = []
    for attempt in (
        lambda: game.play_card(0, 50),
        lambda: game.take_row(0, 1),
        lambda: Rules.parse("logic+jokers+no-such-thing"),
    ):
        with pytest.raises(ValueError) as caught:
            attempt()
        refusals.append(en.error_sentence(caught.value))
    assert refusals == [
        "You do not hold that card.",
        "That decision is not yours to make now.",
        "Those rules cannot be played together.",
    ]
    assert en.error_sentence(KeyError("x")) == "Something went wrong; please try again."
    assert en.players_sentence(NAMES) == "Players: Ana, Bob, Cleo."
    assert en.rules_sentence(Rules.preset("classic", 3, end="rounds", rounds=2)) == (
        "Rules: Classic, 3 players, 2 rounds."
    )


def test_shared_narrators_speak_their_language() -> None:
    assert narrator("sr").card(-7) == "džoker 0,3"
    assert narrator("cs").describe(CardDrafted(0, 17), NAMES) == "Ana si bere 17."
    assert narrator("sr").narrate([TurnStarted(2)], NAMES) == ["Potez 2."]
    assert narrator("en") is narrator("en")


def test_a_card_fitting_no_end_is_not_called_too_low() -> None:
    """Professional, rows 10 90 / 20 80 / 30 70 / 40 60: 50 follows no row end and
    precedes none. It is not "lower than every row", and each language says so."""
    rows = ((10, 90), (20, 80), (30, 70), (40, 60))
    rules = Rules.parse("professional", players=2)
    game = Game(rules, deals=[Deal(rows=rows, hands=((50,), (95,)))])
    game.play_card(1, 95)
    events = game.play_card(0, 50)
    needed = events[-1]
    assert needed == RowChoiceNeeded(0, 50, "fits_no_end")
    said = {
        lang: (
            narrator(lang).describe(needed, NAMES),
            narrator(lang).describe(needed, NAMES, viewer=0),
            narrator(lang).your_decision_sentence(game.view(0)),
        )
        for lang in ("en", "sr", "cs")
    }
    assert said["en"] == (
        "Row choice: Ana's 50 fits at neither end of any row.",
        None,
        "Your 50 fits at neither end of any row. Choose a row to take: "
        "row 1, 6 bullheads; row 2, 6 bullheads; row 3, 6 bullheads; row 4, 6 bullheads.",
    )
    assert said["sr"][:2] == (
        "Izbor skupa: Ana ima kartu 50, koja ne staje ni na početak ni na kraj nijednog skupa.",
        None,
    )
    assert said["cs"][:2] == (
        "Výběr řady: Ana má kartu 50, kterou nelze přiložit na začátek ani na konec žádné řady.",
        None,
    )
    assert said["sr"][2].startswith(
        "Vaša karta 50 ne staje ni na početak ni na kraj nijednog skupa. Izaberite skup"
    )
    assert said["cs"][2].startswith(
        "Vaši kartu 50 nelze přiložit na začátek ani na konec žádné řady. Vyberte řadu"
    )
    # The base game's too-low card keeps its own sentence.
    assert EN.describe(RowChoiceNeeded(0, 7, "too_low"), NAMES) == (
        "Row choice: Ana's 7 is lower than every row."
    )


def test_kept_sentences_are_the_ones_said_fresh_and_stay_bounded(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A narrator keeps the sentences of rows, cards, the clock and the rules: asked again,
    it says what a new narrator says, and it keeps at most ``MEMO_SIZE`` of them."""
    import nimmt.narrate.base as N
    monkeypatch.setattr(N, "MEMO_SIZE", 50)
    kept = Narrator("cs")
    rows = [[3, 17, 44], [55], [-9, 101], [8, 9, 10, 11, 12]]
    for _ in range(2):
        for n, row in enumerate(rows, 1):
            fresh = Narrator("cs")
            assert kept.row(n, row) == fresh.row(n, row)
            assert kept.bullheads_sentence(row, n) == fresh.bullheads_sentence(row, n)
            assert kept.bullheads_sentence(row[0]) == fresh.bullheads_sentence(row[0])
        assert kept.timer_sentence(3) == Narrator("cs").timer_sentence(3)
        assert kept.rules_sentence(Rules()) == Narrator("cs").rules_sentence(Rules())
    for card in range(1, 105):
        kept.bullheads_sentence(card)
        assert len(kept._memo) <= 50
    assert kept.bullheads_sentence(55) == Narrator("cs").bullheads_sentence(55)
