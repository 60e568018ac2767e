"""Row arithmetic for the heuristic bots: where a card lands and what it costs.

The heuristics reason about a turn without running the engine: they ask where
a card would go on the rows they see, whether it would be the sixth card, and
what the rest of a turn does when the other cards are known (``open`` play,
or the cards still to resolve during a row choice). Values are in tenths so
that a joker raising a row's end (87 then 0.9 → 87.9) is exact.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from ..cards import BULLHEADS, Card
from ..defaults import default_row
from ..engine import View
from ..rules import ROW_CAPACITY, ROWS, Rules

RowTuple = tuple[Card, ...]


def end_value(row: Sequence[Card]) -> int:
    """A row's right-end value in tenths; a joker raises the end by its decimal."""
    value = 0
    for c in row:
        value = value + c + 10 if c < 0 else c * 10
    return value


def start_value(row: Sequence[Card]) -> int:
    """A row's left-end value in tenths (professional)."""
    c = row[0]
    return c + 10 if c < 0 else c * 10


def row_points(row: Sequence[Card]) -> int:
    """Bullheads in a row."""
    return sum([BULLHEADS[c] for c in row])


@dataclass(frozen=True, slots=True)
class Landing:
    """Where a number card goes: row index 0..3 and end, or ``row == -1`` when too low.

    ``gap`` is the distance in whole cards from the row end it follows (or
    precedes, on the left end); ``length`` the row's length before the card.
    """

    row: int
    left: bool
    gap: int
    length: int

    @property
    def too_low(self) -> bool:
        return self.row < 0

    @property
    def sixth(self) -> bool:
        return self.row >= 0 and self.length >= ROW_CAPACITY


def landing(rows: Sequence[RowTuple], card: Card, professional: bool) -> Landing:
    """Where number card ``card`` goes on ``rows`` (RULES.md §2 and ``professional``)."""
    v = card * 10
    best = -1
    best_last = -1
    for i, row in enumerate(rows):
        last = end_value(row)
        if best_last < last < v:
            best, best_last = i, last
    if professional:
        right_diff = v - best_last if best >= 0 else 1 << 30
        left = -1
        left_diff = right_diff
        for i, row in enumerate(rows):
            first = start_value(row)
            if first > v and first - v < left_diff:
                left, left_diff = i, first - v
        if left >= 0:
            return Landing(left, True, (left_diff + 9) // 10, len(rows[left]))
    if best < 0:
        return Landing(-1, False, 0, 0)
    return Landing(best, False, (v - best_last + 9) // 10, len(rows[best]))


def cheapest_rows(rows: Sequence[RowTuple]) -> list[int]:
    """Row indexes with the fewest bullheads (all of them, in order)."""
    points = [row_points(r) for r in rows]
    low = min(points)
    return [i for i, p in enumerate(points) if p == low]


def place(
    rows: list[RowTuple], card: Card, professional: bool, row_choice: int | None = None
) -> int:
    """Place ``card`` on ``rows`` in place; returns the bullheads its player takes.

    A card that needs a row choice (too low, or a joker) uses ``row_choice``
    (index 0..3) or the default row.
    """
    if card < 0 or landing(rows, card, professional).too_low:
        i = default_row(rows) - 1 if row_choice is None else row_choice
        if card >= 0 or len(rows[i]) >= ROW_CAPACITY:
            taken = row_points(rows[i])
            rows[i] = (card,)
            return taken
        rows[i] = (*rows[i], card)
        return 0
    land = landing(rows, card, professional)
    row = rows[land.row]
    if land.sixth:
        rows[land.row] = (card,)
        return row_points(row)
    rows[land.row] = (card, *row) if land.left else (*row, card)
    return 0


def resolve(
    rows: Sequence[RowTuple],
    plays: Iterable[tuple[int, Card]],
    professional: bool,
    choices: dict[int, int] | None = None,
) -> tuple[list[RowTuple], dict[int, int]]:
    """Resolve known plays ``(player, card)`` in ascending order on a copy of ``rows``.

    Row choices come from ``choices`` (player → row index) or the default row.
    Returns the rows after the turn and the bullheads each player takes.
    """
    out = list(rows)
    taken: dict[int, int] = {}
    choices = choices or {}
    for player, card in sorted(plays, key=lambda pc: pc[1]):
        pts = place(out, card, professional, choices.get(player))
        taken[player] = taken.get(player, 0) + pts
    return out, taken


def seen_cards(view: View) -> set[Card]:
    """Every card the viewer has seen this round (hand, rows, taken piles, revealed cards)."""
    return view.seen_cards()


def unseen_cards(view: View) -> list[Card]:
    """Number cards of this round's deck that the viewer has not seen (may be in other hands)."""
    seen = seen_cards(view)
    rules: Rules = view.rules
    return [c for c in rules.deck(len(view.active)) if c not in seen]


def opponents(view: View) -> list[int]:
    """Active seats other than the viewer's."""
    return [p for p in view.active if p != view.player]


__all__ = [
    "ROWS",
    "Landing",
    "cheapest_rows",
    "end_value",
    "landing",
    "opponents",
    "place",
    "resolve",
    "row_points",
    "seen_cards",
    "start_value",
    "unseen_cards",
]
