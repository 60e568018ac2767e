"""The shortcut sheet a table keeps sentences for says what a fresh one says.

:class:`nimmt.wire.SheetMemo` keeps each sentence of a table's sheets by
the fields of the view it reads, and the fan-out builds every sheet through it. If
a key left out a field its sentence reads, a sheet would say something stale; here
whole games of every variant are played, and at every position every seat's and a
spectator's sheet, in every language, built through one memo kept for the whole
game, is compared with the sheet built afresh.
"""

from __future__ import annotations

import random

import pytest

from nimmt import Game, Rules
from nimmt.narrate import Narrator
from nimmt.randomplay import play_random
from nimmt.wire import SeatInfo, SheetMemo, sheet_payload

RULES = [
    Rules.parse("classic", players=4),
    Rules.parse("classic", players=10, end="rounds", rounds=2),
    Rules.parse("category5+tactics", players=5, end="rounds", rounds=2),
    Rules.parse("classic+logic", players=3, end="rounds", rounds=2),
    Rules.parse("category5+open-hands+professional", players=6, end="rounds", rounds=2),
    Rules.parse("category5+jokers", players=4, end="rounds", rounds=2),
    Rules.parse("classic+open", players=4, end="rounds", rounds=2),
    Rules.parse("classic", players=3, end="elimination"),
]
NAMES = ["Ana", "Bob", "Cleo", "Dan", "Eve", "Fay", "Gus", "Hal", "Ida", "Jon"]


@pytest.mark.parametrize("rules", RULES, ids=lambda r: f"{r.name}-{r.players}")
def test_a_kept_sentence_is_the_one_made_afresh(rules: Rules) -> None:
    game = Game(rules, random.Random(7))
    rng = random.Random(11)
    memo = SheetMemo()
    names = NAMES[:rules.players]
    positions = 0
    while True:
        for viewer in (None, *range(rules.players)):
            view = game.view(viewer)
            for lang in ("en", "sr", "cs"):
                assert (sheet_payload(view, names, lang, memo)
                        == sheet_payload(view, names, lang)), (positions, viewer, lang)
        positions += 1
        if game.is_over or play_random(game, rng, 1) == 0:
            break
    assert game.is_over and positions > 20


def test_a_table_keeps_a_bounded_number_of_sentences() -> None:
    """A long game keeps one sentence per field, seat and language: no more as it goes on."""
    rules = Rules.parse("classic", players=10, end="rounds", rounds=3)
    game = Game(rules, random.Random(3))
    rng = random.Random(5)
    memo = SheetMemo()
    names = NAMES[:rules.players]
    most = 0
    while not game.is_over:
        for viewer in (None, *range(rules.players)):
            for lang in ("en", "sr"):
                sheet_payload(game.view(viewer), names, lang, memo)
        most = max(most, len(memo))
        play_random(game, rng, 1)
    # Per language: rows and timer once; decision, cards, chosen, scores, who, hand and
    # idle per seat (a spectator has no hand and is asked nothing).
    assert most <= 2 * (2 + 7 * (rules.players + 1))


def test_key_w_says_who_sits_where_as_the_seats_say() -> None:
    """A seat's presence (a bot, away, the default bot playing) reaches key W's sentence, and
    a kept W is the fresh one when only the presence changed."""
    rules = Rules.parse("classic", players=3)
    game = Game(rules, random.Random(7))
    seats = [SeatInfo(seat=0, name="Ana", kind="human", connected=True),
             SeatInfo(seat=1, name="Bob", kind="human", connected=True, auto=True),
             SeatInfo(seat=2, name="Easy Bot 1", kind="bot", bot="easy", connected=True)]
    names = [s.name or "" for s in seats]
    assert [s.presence for s in seats] == ["here", "auto", "bot"]
    assert SeatInfo(seat=1, name="Bob", kind="human").presence == "away"
    assert SeatInfo(seat=1, name="Bob", kind="human", auto=True).presence == "auto_away"
    assert SeatInfo(seat=1, name=None, kind="empty").presence == "empty"
    memo = SheetMemo()
    view = game.view(0)
    sheet_payload(view, names, "en", memo)
    presence = [s.presence for s in seats]
    said = sheet_payload(view, names, "en", memo, presence).who
    assert said == sheet_payload(view, names, "en", None, presence).who
    assert said == Narrator("en").who_sentence(names, 0, view, presence)
    assert "Bob: 0 bullheads, played by the default bot" in said
