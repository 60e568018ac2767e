"""Row arithmetic: what a row is worth, where a card goes, and why it may fit nowhere.

These are the facts about rows that the engine, the bots, narration, the
world sampler and bot writers (through :class:`~nimmt.views.View`) all need;
they are written here once so that none of them can disagree with the game.
The numba kernel (:mod:`nimmt.sim.kernel`) keeps a compiled copy for speed,
pinned to this one by differential tests.

Values are in tenths of a card, so that a joker raising a row's end (87 then
0.9 → 87.9, docs/rules.md §4 ``jokers``) stays an exact integer: 87 → 870, the
joker 0.9 → 9, that row's end → 879.

>>> end_value((87, -1)), start_value((87, -1)), row_bullheads((55, 87, -1))
(879, 870, 9)
>>> target(((10, 90), (20, 80), (30, 70), (40, 60)), 65, professional=False)
Target(row=4, end='right', gap=5, length=2, reason=None)
>>> target(((10, 90), (20, 80), (30, 70), (40, 60)), 50, professional=True).reason
'fits_no_end'
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final, Literal, TypeAlias

from .cards import BULLHEADS, Card
from .rules import ROW_CAPACITY
from .value import Value

__all__ = [
    "LEFT",
    "NEEDS_CHOICE",
    "Row",
    "RowReason",
    "Rows",
    "TakeReason",
    "Target",
    "card_tenths",
    "choice_reason",
    "end_value",
    "find_target",
    "place_at",
    "place_chosen",
    "play",
    "row_bullheads",
    "start_value",
    "target",
]

Row: TypeAlias = tuple[Card, ...]
Rows: TypeAlias = tuple[Row, ...]

#: Why a card waits for its player to choose a row: below every row's end
#: (``too_low``), at neither end of any row in ``professional`` (``fits_no_end``),
#: or a joker, which its player places on a row of their choice.
RowReason: TypeAlias = Literal["too_low", "fits_no_end", "joker"]
#: Why a player takes a row: a sixth card, or one of the first two reasons above.
TakeReason: TypeAlias = Literal["full", "too_low", "fits_no_end"]

#: :func:`find_target` answers ``LEFT + i`` for the left end of row index ``i``.
LEFT: Final = 4
#: :func:`find_target` answers this when the card's player must choose a row.
NEEDS_CHOICE: Final = -1

# Final copies of the constants of the (uncompiled) cards and rules modules: mypyc
# keeps a Final name in a C variable, where another would be looked up by name.
_BULLHEADS: Final = BULLHEADS
_CAPACITY: Final = ROW_CAPACITY


def card_tenths(card: Card) -> int:
    """A card's value in tenths: 87 → 870, the joker 0.9 → 9."""
    return card + 10 if card < 0 else card * 10


def end_value(row: Sequence[Card]) -> int:
    """The value a card must beat to follow ``row``, in tenths.

    The last number card, raised by the decimal of every joker after it: a
    joker counts as the row's last card "with the row's last value raised by
    its decimal" (docs/rules.md §4), so 87, 0.5, 0.9 ends at 87.5 + 0.9 = 88.4.
    """
    value = 0
    for c in row:
        value = value + c + 10 if c < 0 else c * 10
    return value


def start_value(row: Sequence[Card]) -> int:
    """A row's left-end value in tenths (``professional``): its first card."""
    return card_tenths(row[0])


def row_bullheads(row: Sequence[Card]) -> int:
    """Total bullheads of a row (a joker is worth 1)."""
    total = 0
    for c in row:
        total += _BULLHEADS[c]
    return total


def choice_reason(card: Card, professional: bool) -> RowReason:
    """Why ``card`` needs a row choice, given that it does.

    In ``professional`` a card below every row's end still fits before any
    higher first card, so a card that fits nowhere there "fits at neither
    end of any row"; it is never simply "too low".
    """
    if card < 0:
        return "joker"
    return "fits_no_end" if professional else "too_low"


def find_target(ends: list[int], starts: list[int], card: Card, professional: bool) -> int:
    """Where ``card`` goes, from the rows' end values (tenths, row index order).

    Answers the row index ``i`` for its right end, ``LEFT + i`` for its left
    end (``professional`` only), or :data:`NEEDS_CHOICE` for a joker and for
    a card that fits at no end (docs/rules.md §2–§4). The right end wins with the
    smallest difference; in ``professional`` a left end wins only with a
    strictly smaller one (equal differences go right). This is the engine's
    own placement, on plain lists so that it costs little per card.
    """
    if card < 0:
        return NEEDS_CHOICE
    v = card * 10
    best = NEEDS_CHOICE
    best_end = -1
    for i in range(len(ends)):
        end = ends[i]
        if best_end < end < v:
            best = i
            best_end = end
    if professional:
        diff = v - best_end if best >= 0 else 1 << 30
        left = -1
        for i in range(len(starts)):
            start = starts[i]
            if start > v and start - v < diff:
                left = i
                diff = start - v
        if left >= 0:
            return LEFT + left
    return best


def place_at(row: Row, card: Card, left: bool) -> tuple[Row, Row]:
    """``row`` after ``card`` goes to one of its ends, and the cards its player takes.

    A card that would be the sixth takes the five and starts the row anew
    (docs/rules.md §2; at either end in ``professional``).
    """
    if len(row) >= _CAPACITY:
        return (card,), row
    if left:
        return (card, *row), ()
    return (*row, card), ()


def place_chosen(row: Row, card: Card) -> tuple[Row, Row]:
    """``row`` after ``card`` goes to the row its player chose, and the cards taken.

    A number card (too low, or fitting no end) takes the whole row and starts
    it; a joker joins the row's end, taking the five only as a sixth card.
    """
    if card >= 0:
        return (card,), row
    return place_at(row, card, False)


@dataclass(slots=True, unsafe_hash=True, init=False)
class Target(Value):
    """Where a card goes on the rows, or why its player must choose a row.

    ``row`` is the row number 1..4 the card goes to, at its ``end``
    (``"left"`` only in ``professional``), or ``None`` when its player must
    choose a row for the ``reason`` given. ``gap`` is the distance in whole
    cards from the row end the card follows (or precedes); ``length`` the
    number of cards in that row before the card, so a card with ``length``
    5 is the sixth and takes the row (:attr:`sixth`). A value: never mutate it.
    """

    row: int | None
    end: Literal["right", "left"]
    gap: int
    length: int
    reason: RowReason | None

    def __init__(
        self,
        row: int | None,
        end: Literal["right", "left"],
        gap: int,
        length: int,
        reason: RowReason | None,
    ) -> None:
        self.row = row
        self.end = end
        self.gap = gap
        self.length = length
        self.reason = reason

    @property
    def sixth(self) -> bool:
        """The card would be the row's sixth: its player takes the five."""
        return self.row is not None and self.length >= _CAPACITY


def target(rows: Sequence[Sequence[Card]], card: Card, professional: bool) -> Target:
    """Where ``card`` goes on ``rows`` (row 1 first), as the engine would place it now."""
    ends = [end_value(r) for r in rows]
    t = find_target(ends, [start_value(r) for r in rows], card, professional)
    if t == NEEDS_CHOICE:
        return Target(None, "right", 0, 0, choice_reason(card, professional))
    left = t >= LEFT
    i = t - LEFT if left else t
    row = rows[i]
    diff = start_value(row) - card * 10 if left else card * 10 - end_value(row)
    return Target(i + 1, "left" if left else "right", (diff + 9) // 10, len(row), None)


def play(
    rows: Sequence[Row], card: Card, professional: bool, choice: int | None = None
) -> tuple[Rows, Row]:
    """The rows after ``card`` is placed, and the cards its player takes.

    A card that needs a row choice goes to row ``choice`` (1..4); without
    one, :class:`ValueError`. Nothing is mutated: bots use this to look ahead.
    """
    t = target(rows, card, professional)
    if t.row is None:
        if choice is None:
            raise ValueError(f"card {card} needs a row choice ({t.reason})")
        i = choice - 1
        new, taken = place_chosen(tuple(rows[i]), card)
    else:
        i = t.row - 1
        new, taken = place_at(tuple(rows[i]), card, t.end == "left")
    out = list(rows)
    out[i] = new
    return tuple(out), taken
