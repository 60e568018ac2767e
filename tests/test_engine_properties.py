"""Property tests over random games of every preset, variant set and end mode.

A random game is driven through the public decisions only, with every kind
of choice (a face-down card changed before the reveal included). After every
decision the state is checked against what the rules require: the cards of
the round's deal are all somewhere and nowhere twice, rows hold 1-5 cards in
order, penalties are the bullheads taken, and no view or event shown to a
seat (or a spectator) holds a card that seat may not know. The same seed and
decisions replay to the same events, a clone evolves like its original, and
``sample_world`` gives a playable game consistent with the view it came from.

Hypothesis draws new examples every run from the profile of tests/profiles.py
(a few hundred in all by default, ten times as many with ``scripts/test
--thorough``); a failure prints how to replay it.
"""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from nimmt import (
    PRESETS,
    DecisionKind,
    EndMode,
    Game,
    Phase,
    View,
    bullheads,
    for_viewer,
)
from nimmt.cards import JOKERS
from nimmt.events import (
    CardChosen,
    CardPlaced,
    CardsRevealed,
    Event,
    GameOver,
    HandDealt,
    PlayerEliminated,
    RoundScored,
    RoundStarted,
    RowChoiceNeeded,
    RowsDealt,
    RowTaken,
)
from profiles import examples
from randomgames import COMBOS, GAMES, combo_id, make_rules, play_out, random_decision

# -- the invariants ---------------------------------------------------------------


def deal_cards(game: Game) -> list[int]:
    deal = game.round_deals[-1]
    return sorted(
        [c for r in deal.rows for c in r] + [c for h in deal.hands for c in h] + list(deal.pool)
    )


def table_cards(game: Game) -> list[int]:
    """Every card of the round where it lies now: hands, rows, taken piles, revealed plays
    not yet placed, and the logic pool."""
    spectator = game.view(None)
    cards = [c for h in game.hands for c in h]
    cards += [c for r in spectator.rows for c in r]
    cards += [c for pile in spectator.taken for c in pile]
    cards += [c for _, c in spectator.to_resolve]
    cards += list(spectator.draft_pool)
    return sorted(cards)


def check_conservation(game: Game) -> None:
    assert table_cards(game) == deal_cards(game)
    # A chosen card stays in its hand until the reveal.
    for p, c in enumerate(game.chosen):
        if c is not None and game.phase is Phase.CHOOSE:
            assert c in game.hands[p]


def check_rows(game: Game) -> None:
    rows = game.view(None).rows
    if game.phase is Phase.DRAFT:
        assert rows == ()
        return
    assert len(rows) == 4
    for row in rows:
        assert 1 <= len(row) <= 5
        numbers = [c for c in row if c > 0]
        assert numbers == sorted(set(numbers))
        # Running value in tenths: a joker raises the value before it by its decimal.
        value = None
        for c in row:
            if c < 0:
                assert game.rules.jokers
                value = (value or 0) + c + 10
            else:
                assert value is None or c * 10 > value
                value = c * 10


def check_penalties(game: Game) -> None:
    view = game.view(None)
    for p in range(game.rules.players):
        assert view.penalties[p] == sum(bullheads(c) for c in view.taken[p])


def hidden_cards(game: Game) -> set[int]:
    """Cards no spectator may know now: the hands (unless public; face-up open choices
    excepted) and every card not dealt this round. A seat may know its own hand too.

    A face-down choice is still in its hand, so it is covered here; with public hands
    only *which* card was chosen is secret, checked in :func:`check_views`.
    """
    rules = game.rules
    deck = set(rules.deck(len(game.active))) | set(rules.joker_cards())
    secret = deck - set(deal_cards(game))
    if not (rules.open_hands or rules.logic):
        face_up = {c for c in game.chosen if c is not None} if rules.open_play else set()
        secret |= {c for h in game.hands for c in h} - face_up
    return secret


def view_cards(view: View) -> set[int]:
    cards = set(view.hand)
    if view.my_choice is not None:
        cards.add(view.my_choice)
    cards |= {c for r in view.rows for c in r}
    cards |= {c for pile in view.taken for c in pile}
    cards |= {c for turn in view.revealed for _, c in turn}
    cards |= {c for _, c in view.to_resolve}
    cards |= {c for c in view.face_up if c is not None}
    cards |= set(view.draft_pool)
    if view.hands is not None:
        cards |= {c for h in view.hands for c in h}
    if view.pending is not None and view.pending.card is not None:
        cards.add(view.pending.card)
    if view.pending is not None and view.pending.kind is not DecisionKind.ROW:
        cards |= set(view.options)
    return cards


def check_views(game: Game, new_events: list[Event]) -> None:
    rules = game.rules
    hidden = hidden_cards(game)
    for viewer in [*range(rules.players), None]:
        view = game.view(viewer)
        own = set(game.hands[viewer]) if viewer is not None else set()
        leaked = view_cards(view) & (hidden - own)
        assert not leaked, f"view of {viewer} holds {sorted(leaked)}"
        if viewer is None:
            assert (view.hand, view.my_choice, view.options) == ((), None, ())
        else:
            assert view.hand == game.hands[viewer]
            assert view.my_choice == game.chosen[viewer]
            assert view.options == game.legal(viewer)
        if not (rules.open_hands or rules.logic):
            assert view.hands is None
        if not rules.open_play:
            assert view.face_up == (None,) * rules.players
        if game.phase is Phase.CHOOSE:
            assert view.chosen == tuple(c is not None for c in game.chosen)
        assert view.hand_sizes == tuple(len(h) for h in game.hands)
        # The events, as this viewer would receive them, leak no hand or choice either.
        for event in new_events:
            shown = for_viewer(event, viewer)
            if type(shown) is HandDealt:
                assert shown.player == viewer or shown.public
            if type(shown) is CardChosen and shown.card is not None:
                assert shown.player == viewer or shown.face_up


def check_all(game: Game, new_events: list[Event]) -> None:
    check_conservation(game)
    check_rows(game)
    check_penalties(game)
    check_views(game, new_events)


def check_scoring(game: Game) -> None:
    """Over the whole game: each take is the bullheads of its cards, each round's
    penalties are the takes of that round, totals add up, the winners are right."""
    totals = list(game.start_scores)
    round_pen = [0] * game.rules.players
    for event in game.events:
        if type(event) is RowTaken:
            assert event.bullheads == sum(bullheads(c) for c in event.cards)
            assert 1 <= len(event.cards) <= 5
            round_pen[event.player] += event.bullheads
        elif type(event) is RoundScored:
            assert list(event.penalties) == round_pen
            totals = [t + q for t, q in zip(totals, round_pen, strict=True)]
            assert list(event.totals) == totals
            round_pen = [0] * game.rules.players
    assert list(game.scores) == totals
    last = game.events[-1]
    assert type(last) is GameOver and last.winners == game.winners
    assert game.winners
    rules = game.rules
    if rules.end is EndMode.ELIMINATION:
        out = game.view(None).eliminated
        remaining = [p for p in range(rules.players) if not out[p]]
        assert all((game.scores[p] >= rules.limit) == out[p] for p in range(rules.players))
        if remaining:
            assert game.winners == tuple(remaining) and len(remaining) == 1
        else:
            # All remaining went out together: the fewest among them win.
            last = game.events.index(
                next(e for e in reversed(game.events) if type(e) is RoundScored)
            )
            together = [e.player for e in game.events[last:] if type(e) is PlayerEliminated]
            low = min(game.scores[p] for p in together)
            assert game.winners == tuple(p for p in together if game.scores[p] == low)
    else:
        pool = game.active
        low = min(game.scores[p] for p in pool)
        assert game.winners == tuple(p for p in pool if game.scores[p] == low)
        if rules.end is EndMode.ROUNDS:
            assert game.round == rules.rounds
        else:
            assert any(game.scores[p] >= rules.limit for p in pool)


def check_deals(game: Game) -> None:
    """Each round's random deal is the variant's deck dealt as the rules say."""
    rules = game.rules
    starts = [e for e in game.events if type(e) is RoundStarted]
    assert len(starts) == len(game.round_deals) == game.round
    for start, deal in zip(starts, game.round_deals, strict=True):
        active = start.players
        deck = rules.deck(len(active))
        assert start.deck_size == len(deck)
        assert deck == tuple(range(2 if rules.open_play else 1, 105 if not rules.tactics_deck
                                   else 10 * len(active) + 5))  # fmt: skip
        if rules.logic:
            assert sorted(deal.pool) == list(deck) and not deal.rows and not deal.hands
            continue
        assert len(deal.rows) == 4 and all(len(r) == 1 and r[0] > 0 for r in deal.rows)
        for p in range(rules.players):
            hand = deal.hands[p]
            if p not in active:
                assert hand == ()
                continue
            assert len(hand) == 10
            assert sum(1 for c in hand if c < 0) == (1 if rules.jokers else 0)
        cards = [c for h in deal.hands for c in h] + [r[0] for r in deal.rows]
        assert len(cards) == len(set(cards))
        assert {c for c in cards if c > 0} <= set(deck)
        if rules.tactics_deck:
            assert sorted(cards) == list(deck)


def row_value(row: list[int]) -> int:
    """A row's end value in tenths; each joker raises the value before it by its decimal."""
    value = 0
    for c in row:
        value = value + c + 10 if c < 0 else c * 10
    return value


def check_against_reference(game: Game) -> None:
    """Replay every turn's placement with a plain model of docs/rules.md §2 and §4 and compare
    it with the engine's events, event for event. Row choices are free, so the model
    takes the row each choice named; whether a choice is needed is for the model to say."""
    professional = game.rules.professional
    events = game.events
    rows: list[list[int]] = []
    i = 0
    while i < len(events):
        event = events[i]
        i += 1
        if type(event) is RowsDealt:
            rows = [list(r) for r in event.rows]
        if type(event) is not CardsRevealed:
            continue
        assert list(event.plays) == sorted(event.plays, key=lambda play: play[1])
        for p, c in event.plays:
            end = "right"
            reason: str | None = None
            target = -1
            if c < 0:
                reason = "joker"
            else:
                # docs/rules.md §4: in professional a card fits before a higher first card,
                # so one that fits nowhere fits at no end; else it is below every row.
                fits_nowhere = "fits_no_end" if professional else "too_low"
                v = c * 10
                below = [(row_value(r), -k) for k, r in enumerate(rows) if row_value(r) < v]
                right = -max(below)[1] if below else -1
                if professional:
                    firsts = [(c0 * 10, k) for k, r in enumerate(rows) if (c0 := r[0]) > 0]
                    above = [(f, k) for f, k in firsts if f > v]
                    if above:
                        f, k = min(above)
                        if right < 0 or f - v < v - row_value(rows[right]):
                            target, end = k, "left"
                if target < 0:
                    target = right
                if target < 0:
                    reason = fits_nowhere
            if reason is not None:
                assert events[i] == RowChoiceNeeded(p, c, reason)  # type: ignore[arg-type]
                i += 1
                chosen = events[i]
                assert type(chosen) in (RowTaken, CardPlaced) and chosen.player == p
                target = chosen.row - 1
            row = rows[target]
            expected: list[Event] = []
            if reason in ("too_low", "fits_no_end") or len(row) == 5:
                kind = "full" if reason in (None, "joker") else reason
                points = sum(bullheads(x) for x in row)
                expected.append(RowTaken(p, target + 1, tuple(row), points, kind))  # type: ignore[arg-type]
                expected.append(CardPlaced(p, c, target + 1, "right", True))
                rows[target] = [c]
            else:
                expected.append(CardPlaced(p, c, target + 1, end))  # type: ignore[arg-type]
                if end == "left":
                    row.insert(0, c)
                else:
                    row.append(c)
            assert events[i : i + len(expected)] == expected
            i += len(expected)
    assert [list(r) for r in game.view(None).rows] == rows


# -- the tests --------------------------------------------------------------------

@pytest.mark.parametrize("combo", COMBOS, ids=[combo_id(c) for c in COMBOS])
@settings(max_examples=examples(1 / 100))  # per combination: about 3, 30 when thorough
@given(players=st.integers(2, 10), seed=st.integers(0, 2**32 - 1), knob=st.integers(0, 5))
def test_random_games_keep_every_invariant(
    combo: tuple[frozenset[str], EndMode, str], players: int, seed: int, knob: int
) -> None:
    variants, end, preset = combo
    rules = make_rules(variants, preset, end, players, knob)
    game = Game(rules, seed=seed)
    check_all(game, game.events)
    decisions = play_out(game, random.Random(seed + 1), check_all)
    check_scoring(game)
    check_deals(game)
    check_against_reference(game)

    # The same seed and the same decisions give the same game, event for event.
    again = Game(rules, seed=seed)
    for decision in decisions:
        again.decide(decision)
    assert again.events == game.events
    assert again.round_deals == game.round_deals
    assert again.decisions == game.decisions
    assert [d for rnd in game.decisions for d in rnd] == decisions


@settings(max_examples=examples(1))
@given(**GAMES, cut=st.floats(0, 1))
def test_clone_evolves_identically(
    variants: frozenset[str], end: EndMode, players: int, seed: int, knob: int, cut: float
) -> None:
    rules = make_rules(variants, sorted(PRESETS)[knob % 2], end, players, knob)
    game = Game(rules, seed=seed)
    rng = random.Random(seed)
    full = play_out(game.clone(), random.Random(seed))
    stop = int(cut * len(full))
    for decision in full[:stop]:
        game.decide(decision)
    twin = game.clone()
    before = [game.view(p) for p in [*range(rules.players), None]]
    events_before = list(game.events)
    # Moving the clone alone leaves the original untouched (random generator included).
    if not twin.is_over:
        twin.decide(random_decision(twin, rng))
    assert [game.view(p) for p in [*range(rules.players), None]] == before
    assert game.events == events_before
    # Two clones taken at the same moment evolve identically under the same decisions,
    # also across later rounds dealt by the copied random generator.
    a, b = game.clone(), game.clone()
    rest_a = play_out(a, random.Random(seed + 7))
    for decision in rest_a:
        b.decide(decision)
    assert a.events == b.events and a.scores == b.scores and a.winners == b.winners
    for decision in full[stop:]:
        game.decide(decision)
    assert game.is_over


def check_world(game: Game, viewer: int, rng: random.Random) -> Game:
    """``sample_world`` of one seat's view: consistent with the view, unseen cards only."""
    view = game.view(viewer)
    world = Game.sample_world(view, rng)
    seen = world.view(viewer)
    for field in (
        "rows", "scores", "penalties", "taken", "hand", "hand_sizes", "revealed",
        "to_resolve", "active", "eliminated", "marker", "phase", "round", "turn",
        "draft_pool", "has_joker", "face_up", "hands", "my_choice", "winners",
    ):  # fmt: skip
        assert getattr(seen, field) == getattr(view, field), field
    rules = game.rules
    if not (rules.open_hands or rules.logic):
        known = set(view.hand) | {c for r in view.rows for c in r}
        known |= {c for pile in view.taken for c in pile}
        known |= {c for turn in view.revealed for _, c in turn}
        unseen = (set(rules.deck(len(view.active))) | set(rules.joker_cards())) - known
        for q in view.active:
            if q == viewer:
                continue
            extra = {view.face_up[q]} if view.face_up[q] is not None else set()
            assert set(world.hands[q]) <= unseen | extra
            jokers = [c for c in world.hands[q] if c in JOKERS]
            assert len(jokers) == (1 if view.has_joker[q] else 0)
    # The world's cards are all distinct: no card dealt twice.
    cards = [c for h in world.hands for c in h] + [c for r in world.rows for c in r]
    cards += [c for pile in view.taken for c in pile] + [c for _, c in view.to_resolve]
    cards += list(view.draft_pool)
    assert len(cards) == len(set(cards))
    # Everything the viewer may do now, they may do in the world.
    assert world.legal(viewer) == game.legal(viewer)
    return world


@settings(max_examples=examples(1))
@given(**GAMES, cut=st.floats(0, 1))
def test_sample_world_is_consistent_and_playable(
    variants: frozenset[str], end: EndMode, players: int, seed: int, knob: int, cut: float
) -> None:
    rules = make_rules(variants, sorted(PRESETS)[knob % 2], end, players, knob)
    game = Game(rules, seed=seed)
    rng = random.Random(seed)
    full = play_out(game.clone(), random.Random(seed))
    for decision in full[: int(cut * len(full))]:
        game.decide(decision)
    if game.is_over:
        return
    for viewer in game.active:
        world = check_world(game, viewer, rng)
    play_out(world, rng)
    assert world.winners
