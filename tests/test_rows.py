"""Every user of the row arithmetic against the engine, in every variant.

The engine places cards with :mod:`nimmt.rows`; everything else that reasons
about rows must agree with what the engine then does: :func:`nimmt.rows.target`
and :func:`nimmt.rows.play` (the heuristic bots' look-ahead, through
:func:`nimmt.bots.table.resolve`), the view's methods for bot writers
(:meth:`nimmt.View.target`, ``row_end``, ``row_bullheads``), the numba kernel's
compiled copy (:mod:`nimmt.sim.kernel`), and the row ends of a sampled world
(:meth:`nimmt.Game.sample_world`).

Positions come from two places: hypothesis draws a table of four rows and a
card (any card, any row length, either placement rule), the engine plays the
card from a deal of exactly that table, and every user predicts the outcome
first; and random games of every variant (jokers too, which no deal can put in
a row) are replayed card by card, every user predicting each card's placement
from the rows as they stood before it.
"""

from __future__ import annotations

import random

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from nimmt import PRESETS, Deal, Game, Rules, default_row, row_bullheads
from nimmt.bots.table import resolve
from nimmt.events import CardPlaced, CardsRevealed, Event, RowChoiceNeeded, RowsDealt, RowTaken
from nimmt.rows import Row, end_value, play, start_value, target
from nimmt.sim import kernel as K
from nimmt.sim.world import encode_rows, rows_of
from profiles import examples
from test_engine_properties import GAMES, make_rules, play_out

Rows = tuple[Row, ...]


# -- what the engine did ------------------------------------------------------------


def outcome(events: list[Event], i: int, player: int, card: int) -> tuple[int, str | None, int]:
    """The placement of ``card`` in ``events`` from index ``i``: ``(row, reason, next i)``.

    ``reason`` is the engine's reason for a row choice, or ``None``; ``row`` the
    row the card went to (the chosen one after a choice).
    """
    reason: str | None = None
    needed = events[i]
    if type(needed) is RowChoiceNeeded:
        assert (needed.player, needed.card) == (player, card)
        reason = needed.reason
        i += 1
    if type(events[i]) is RowTaken:
        i += 1
    placed = events[i]
    assert type(placed) is CardPlaced and (placed.player, placed.card) == (player, card)
    return placed.row, reason, i + 1


def apply_events(rows: list[Row], events: list[Event]) -> list[int]:
    """Change ``rows`` as the engine's events say; returns the bullheads taken by seat."""
    taken: dict[int, int] = {}
    for e in events:
        if type(e) is RowTaken:
            taken[e.player] = taken.get(e.player, 0) + e.bullheads
            rows[e.row - 1] = ()
        elif type(e) is CardPlaced:
            row = rows[e.row - 1]
            rows[e.row - 1] = (e.card, *row) if e.end == "left" else (*row, e.card)
    return [taken.get(p, 0) for p in range(10)]


# -- what every user predicts ------------------------------------------------------


def kernel_state(rows: Rows, professional: bool) -> K.IntArray:
    state = np.zeros(K.STATE_SIZE, dtype=np.int64)
    encode_rows(state, rows)
    state[K.PROF] = 1 if professional else 0
    state[K.NPLAYERS] = 1
    return state


def check_card(
    rows: Rows, card: int, professional: bool, row: int, reason: str | None, after: Rows, taken: int
) -> None:
    """Every user agrees with the engine, which put ``card`` on ``rows`` into row ``row``
    (after a row choice for ``reason``, or none) leaving ``after`` and taking ``taken``."""
    where = target(rows, card, professional)
    assert where.reason == reason
    if reason is None:
        assert where.row == row
        assert where.length == len(rows[row - 1])
        assert where.sixth == (len(after[row - 1]) == 1)
        if not where.sixth:
            left = after[row - 1][0] == card
            assert where.end == ("left" if left else "right")
            end = start_value(rows[row - 1]) if left else end_value(rows[row - 1])
            assert where.gap == (abs(card * 10 - end) + 9) // 10
    # The bots' look-ahead: the same rows after, the same bullheads taken.
    new, cards = play(rows, card, professional, row if reason is not None else None)
    assert (new, row_bullheads(cards)) == (after, taken)
    looked, points = resolve(rows, [(0, card)], professional, {0: row})
    assert (tuple(looked), points[0]) == (after, taken)
    # The kernel's compiled copy.
    state = kernel_state(rows, professional)
    t = K.target(state, card) if card >= 0 else -1
    assert (t < 0) == (reason is not None)
    if t >= 0:
        assert t % 4 + 1 == row and (t >= 4) == (where.end == "left")
    K.place(state, 0, card, row - 1 if reason is not None else -1)
    assert rows_of(state) == after
    assert int(state[K.PEN]) == taken


# -- random positions ------------------------------------------------------------


@st.composite
def positions(draw: st.DrawFn) -> tuple[Rows, int, bool, int]:
    """Four ascending rows of 1-5 cards, a card that is on none, the placement rule,
    and the row to take if the card needs a choice. Card 104 stays out: seat 1 plays it."""
    cards = draw(st.permutations(range(1, 104)))
    lengths = [draw(st.integers(1, 5)) for _ in range(4)]
    rows: list[Row] = []
    i = 0
    for n in lengths:
        rows.append(tuple(sorted(cards[i : i + n])))
        i += n
    return tuple(rows), cards[i], draw(st.booleans()), draw(st.integers(1, 4))


@settings(max_examples=examples(1))
@given(position=positions())
def test_every_user_agrees_with_the_engine_on_random_positions(
    position: tuple[Rows, int, bool, int],
) -> None:
    rows, card, professional, choice = position
    rules = Rules.parse("professional" if professional else "classic", players=2)
    game = Game(rules, deals=[Deal(rows, ((card,), (104,)))])
    view = game.view(0)
    # What a bot writer sees, before the card is played.
    assert view.target(card) == target(rows, card, professional)
    assert [view.row_end(r) for r in (1, 2, 3, 4)] == [end_value(r) for r in rows]
    assert [view.row_bullheads(r) for r in (1, 2, 3, 4)] == [row_bullheads(r) for r in rows]
    game.play_card(1, 104)
    events = game.play_card(0, card)
    if type(events[-1]) is RowChoiceNeeded:
        # A card that needs a choice is placed by it.
        assert game.view(0).pending is not None
        events += game.take_row(0, choice)
    start = next(i for i, e in enumerate(events) if type(e) is CardsRevealed) + 1
    row, reason, end = outcome(events, start, 0, card)
    after = list(rows)
    taken = apply_events(after, events[start:end])[0]
    check_card(rows, card, professional, row, reason, tuple(after), taken)
    if reason == "too_low":
        assert not professional and all(card * 10 < end_value(r) for r in rows)
    if reason == "fits_no_end":
        assert professional
        assert all(start_value(r) < card * 10 < end_value(r) for r in rows)


def test_the_issue_position_fits_no_end() -> None:
    rows = ((10, 90), (20, 80), (30, 70), (40, 60))
    check_card(rows, 50, True, 2, "fits_no_end", ((10, 90), (50,), (30, 70), (40, 60)), 6)
    assert target(rows, 50, False).reason == "too_low"
    assert target(rows, 5, True).row == 1 and target(rows, 5, True).end == "left"


# -- random games of every variant --------------------------------------------------


def check_game(game: Game) -> int:
    """Replay ``game``'s events card by card; every user predicts each placement."""
    professional = game.rules.professional
    events = game.events
    rows: list[Row] = []
    checked = 0
    i = 0
    while i < len(events):
        event = events[i]
        i += 1
        if type(event) is RowsDealt:
            rows = list(event.rows)
        if type(event) is not CardsRevealed:
            continue
        for p, c in event.plays:
            start = i
            row, reason, i = outcome(events, i, p, c)
            before = tuple(rows)
            taken = apply_events(rows, events[start:i])[p]
            check_card(before, c, professional, row, reason, tuple(rows), taken)
            checked += 1
    return checked


@settings(max_examples=examples(1))
@given(**GAMES)
def test_every_user_agrees_with_the_engine_in_random_games(
    variants: frozenset[str], end: str, players: int, seed: int, knob: int
) -> None:
    rules = make_rules(variants, sorted(PRESETS)[knob % 2], end, players, knob)  # type: ignore[arg-type]
    game = Game(rules, seed=seed)
    rng = random.Random(seed)
    worlds = 0

    def sample(g: Game, _events: list[Event]) -> None:
        # A sampled world computes its row ends from the view's rows: they must be the
        # game's own, which the engine kept up card by card (private, read for the test).
        nonlocal worlds
        if worlds < 3 and not g.is_over and g.pending is not None and rng.random() < 0.05:
            world = Game.sample_world(g.view(g.pending.players[0]), rng)
            assert (world._lasts, world._firsts) == (g._lasts, g._firsts)
            worlds += 1

    play_out(game, rng, sample)
    assert check_game(game) > 0


def test_default_row_is_the_kernels() -> None:
    rng = random.Random(3)
    for _ in range(300):
        cards = rng.sample(range(1, 105), 20)
        rows = tuple(tuple(sorted(cards[k * 5 : k * 5 + rng.randint(1, 5)])) for k in range(4))
        assert K.default_row(kernel_state(rows, False)) + 1 == default_row(rows)
