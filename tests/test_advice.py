"""Hints: the expert's advice from one seat's view, never from what the seat cannot see.

The property test plays a random first round up to a decision of some seat, then
builds a twin game that differs only in what that seat cannot know (the other
hands' unplayed cards and the cards set aside are dealt anew) and replays the same
decisions: the seat's views are equal, and so must the advice be, for a fixed seed.
"""

from __future__ import annotations

import math
import random
import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from nimmt import Deal, DecisionKind, Game, Rules
from nimmt.advice import Advice, Reason
from nimmt.bots.base import Budget
from nimmt.decisions import make_decision
from nimmt.narrate import Narrator
from nimmt.sim.advice import advise
from profiles import examples

SMALL = Budget(rollouts=300)
LANGUAGES = ("en", "sr", "cs")
#: Variants where a seat cannot see everything (logic and open-hands show every hand).
HIDDEN = ["classic", "tactics", "professional", "jokers", "open", "professional+jokers"]


def _advance(game: Game, rng: random.Random, steps: int) -> list[object]:
    """Up to ``steps`` random decisions within the first round; the decisions made."""
    made: list[object] = []
    for _ in range(steps):
        pending = game.pending
        if pending is None or game.round != 1:
            break
        p = rng.choice(pending.players)
        view = game.view(p)
        decision = make_decision(pending.kind, p, rng.choice(view.options))
        game.decide(decision)
        made.append(decision)
    return made


def _twin_deal(game: Game, me: int, fixed: set[int], rng: random.Random) -> Deal:
    """The first round's deal with everything ``me`` cannot see dealt anew: the other
    seats keep the cards in ``fixed`` (those their decisions named) and get the rest of
    their hands from their unplayed cards and the cards set aside, shuffled."""
    deal = game.round_deals[0]
    rules = game.rules
    in_rows = {c for row in deal.rows for c in row}
    dealt = {c for hand in deal.hands for c in hand} | in_rows
    numbers = [c for c in rules.deck(len(deal.hands)) if c not in dealt]
    jokers = [j for j in rules.joker_cards() if j not in dealt]
    keep: list[list[int]] = []
    for p, hand in enumerate(deal.hands):
        if p == me:
            keep.append(list(hand))
            continue
        kept = [c for c in hand if c in fixed]
        numbers += [c for c in hand if c not in fixed and c >= 0]
        jokers += [c for c in hand if c not in fixed and c < 0]
        keep.append(kept)
    rng.shuffle(numbers)
    rng.shuffle(jokers)
    hands: list[tuple[int, ...]] = []
    for p, hand in enumerate(deal.hands):
        cards = keep[p]
        if p != me:
            had_joker = any(c < 0 for c in hand)
            if had_joker and not any(c < 0 for c in cards):
                cards.append(jokers.pop())
            while len(cards) < len(hand):
                cards.append(numbers.pop())
        hands.append(tuple(sorted(cards)))
    return Deal(deal.rows, tuple(hands))


@settings(max_examples=examples(0.08))
@given(
    spec=st.sampled_from(HIDDEN),
    players=st.integers(2, 6),
    seed=st.integers(0, 2**31),
    steps=st.integers(0, 40),
    advice_seed=st.integers(0, 3),
)
def test_advice_is_the_same_whatever_the_seat_cannot_see(
    spec: str, players: int, seed: int, steps: int, advice_seed: int
) -> None:
    rules = Rules.parse(spec, players=players)
    rng = random.Random(seed)
    game = Game(rules, seed=seed)
    made = _advance(game, rng, steps)
    pending = game.pending
    if pending is None or game.round != 1:
        return
    me = rng.choice(pending.players)
    fixed = {d.value for d in made if d.kind is not DecisionKind.ROW}  # type: ignore[attr-defined]
    twin = Game(rules, deals=[_twin_deal(game, me, fixed, rng)], seed=seed)
    for d in made:
        twin.decide(d)  # type: ignore[arg-type]
    view, twin_view = game.view(me), twin.view(me)
    assert view == twin_view
    a = advise(view, seed=advice_seed, budget=SMALL)
    b = advise(twin_view, seed=advice_seed, budget=SMALL)
    assert a.to_dict() == b.to_dict()


def _games_differ(spec: str, players: int, seed: int) -> bool:
    """Twins really differ in what is hidden (so the property above tests something)."""
    rules = Rules.parse(spec, players=players)
    rng = random.Random(seed)
    game = Game(rules, seed=seed)
    _advance(game, rng, 5)
    twin = Game(rules, deals=[_twin_deal(game, 0, set(), rng)], seed=seed)
    return twin.round_deals[0].hands[1:] != game.round_deals[0].hands[1:]


def test_twins_differ_in_hidden_cards() -> None:
    assert all(_games_differ(spec, 4, 3) for spec in HIDDEN)


def _sentences(advice: Advice) -> list[str]:
    out = []
    for lang in LANGUAGES:
        text = Narrator(lang).advice_sentence(advice)
        assert text and text.endswith(".") and "{" not in text, (lang, text)
        assert not re.search(r"\bnan\b", text)
        out.append(text)
    return out


def test_advice_for_a_card_names_the_card_and_a_reason() -> None:
    game = Game(Rules.parse("classic", players=4), seed=3)
    view = game.view(0)
    advice = advise(view, seed=1, budget=Budget(rollouts=2000))
    assert advice.kind is DecisionKind.CARD and advice.best in view.options
    assert {o.option for o in advice.options} == set(view.options)
    assert advice.options[0].option == advice.best
    assert advice.reason in (Reason.SIXTH, Reason.TOO_LOW, Reason.LATER, Reason.CLOSE, Reason.GAME)
    assert advice.alternative in view.options and advice.alternative != advice.best
    assert math.isfinite(advice.cost) and math.isfinite(advice.risk)
    en, sr, cs = _sentences(advice)
    assert en.startswith(f"Play {advice.best}")
    assert sr.startswith(f"Igrajte {advice.best}") and cs.startswith(f"Zahrajte {advice.best}")
    # Repeatable for a seed and a rollout budget.
    assert advise(view, seed=1, budget=Budget(rollouts=2000)) == advice


def test_a_sure_sixth_card_is_the_reason() -> None:
    # Row 1 holds five cards ending at 50; 51 would surely be its sixth card. The other
    # card, 3, is too low but row 4 costs a single bullhead.
    rows = ((11, 22, 33, 44, 50), (60,), (70,), (80,))
    hands = ((51, 99), (61, 62), (71, 72))
    game = Game(Rules.parse("classic", players=3), deals=[Deal(rows, hands)])
    advice = advise(game.view(0), seed=0, budget=Budget(rollouts=400))
    assert advice.best == 99
    assert advice.reason is Reason.SIXTH and advice.alternative == 51
    assert advice.risk == pytest.approx(23.0)  # 11, 22, 33, 44 and 50: 5 + 5 + 5 + 5 + 3
    assert "51 may be the sixth card of its row" in Narrator("en").advice_sentence(advice)


def test_row_and_joker_advice() -> None:
    rows = ((10,), (22, 33), (44, 45), (55, 66))
    hands = ((1, 90, 91), (70, 71, 72), (80, 81, 82))
    game = Game(Rules.parse("classic", players=3), deals=[Deal(rows, hands)])
    game.play_card(0, 1)
    game.play_card(1, 70)
    game.play_card(2, 80)
    advice = advise(game.view(0), seed=0, budget=Budget(rollouts=400))
    assert advice.kind is DecisionKind.ROW and advice.best == 1 and advice.card == 1
    assert advice.reason in (Reason.ROW, Reason.GAME)
    assert _sentences(advice)[0].startswith("Take row 1")
    rows = ((10, 11), (20, 21), (30, 31, 32, 33, 44), (50,))
    hands = ((-1, 90, 91), (-2, 60, 61), (-3, 70, 71))
    game = Game(Rules.parse("jokers", players=3), deals=[Deal(rows, hands)])
    game.play_card(0, -1)
    game.play_card(1, 60)
    game.play_card(2, 70)
    advice = advise(game.view(0), seed=0, budget=Budget(rollouts=400))
    assert advice.kind is DecisionKind.ROW and advice.best != 3 and advice.card == -1
    en, sr, cs = _sentences(advice)
    assert en.startswith("Put your joker 0.9 on row") and "džoker 0,9" in sr and "žolík 0,9" in cs


def test_draft_and_only_card_advice() -> None:
    game = Game(Rules.parse("logic", players=3), seed=2)
    p = game.pending.players[0] if game.pending else 0
    advice = advise(game.view(p), seed=0)
    assert advice.kind is DecisionKind.DRAFT and advice.reason is Reason.RULE
    assert advice.best in game.view(p).options
    assert _sentences(advice)[0].startswith(f"Draft {advice.best}")
    rows = ((10,), (20,), (30,), (40,))
    game = Game(Rules.parse("classic", players=2), deals=[Deal(rows, ((50,), (60,)))])
    advice = advise(game.view(0))
    assert advice.reason is Reason.ONLY and advice.best == 50
    assert _sentences(advice)[0] == "Play 50: it is the only card you can play."


def test_a_decided_round_is_recognised_and_the_safe_card_played() -> None:
    # The last of a fixed number of rounds; seat 0 leads by 60 points: nothing this round
    # can change the result, so the advice is the safest card and says why.
    rows = ((11, 22, 33, 44, 50), (60,), (70,), (80,))
    hands = ((51, 99), (61, 62), (71, 72))
    rules = Rules.parse("classic", players=3, end="rounds", rounds=1)
    game = Game(rules, deals=[Deal(rows, hands)], scores=[0, 60, 70])
    advice = advise(game.view(0), seed=0, budget=Budget(rollouts=300))
    assert advice.decided and advice.reason is Reason.DECIDED and advice.best == 99
    assert "cannot change the result" in Narrator("en").advice_sentence(advice)
    assert "nezmění" in Narrator("cs").advice_sentence(advice)


def test_advice_needs_a_pending_decision() -> None:
    game = Game(Rules.parse("classic", players=3), seed=1)
    with pytest.raises(ValueError, match="pending"):
        advise(game.view(None))
    game.play_card(0, game.legal(0)[0])
    with pytest.raises(ValueError, match="pending"):
        advise(game.view(0))
