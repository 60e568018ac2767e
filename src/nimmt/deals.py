"""Deals: the cards of one round, dealt at random or given, and checked.

A round starts from a :class:`Deal`: the four starting rows and one hand per
seat, or, in ``logic``, only the face-up pool. :func:`random_deal` makes one
from a seeded generator; :func:`check_deal` refuses one that the round cannot
be played from, with a :class:`~nimmt.errors.RulesError` saying why, so that
the engine never starts a round it cannot finish.

>>> Deal(rows=[[10], [20], [30], [40]], hands=[[1, 2], [3, 4]]).rows
((10,), (20,), (30,), (40,))
>>> Deal(rows=[10, 20, 30, 40])  # doctest: +ELLIPSIS
Traceback (most recent call last):
...
TypeError: Deal rows must be a sequence of sequences of cards (ints), not [10, 20, 30, 40]
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass

from .cards import Card, card_or_repr, is_card
from .errors import RulesError, seat_of
from .rows import Rows
from .rules import HAND_SIZE, ROW_CAPACITY, ROWS, Rules
from .value import Value

__all__ = ["Deal", "check_deal", "random_deal"]


@dataclass(slots=True, unsafe_hash=True, init=False)
class Deal(Value):
    """One round's deal, given explicitly (tests, puzzles, replays).

    ``rows`` are the four starting rows (usually one card each; a puzzle may
    give longer rows), ``hands`` one hand per seat (empty for eliminated
    seats), all the same size from 1 to 10. For ``logic`` give only ``pool``:
    the face-up cards to draft. Any sequences of ints will do (lists from
    JSON too); they are kept as tuples. A value: never mutate it.
    """

    rows: Rows
    hands: tuple[tuple[Card, ...], ...]
    pool: tuple[Card, ...]

    def __init__(
        self,
        rows: Sequence[Sequence[Card]] = (),
        hands: Sequence[Sequence[Card]] = (),
        pool: Sequence[Card] = (),
    ) -> None:
        self.rows = _nested("rows", rows)
        self.hands = _nested("hands", hands)
        self.pool = _cards("pool", pool)


def _ints(value: object) -> tuple[Card, ...] | None:
    """``value`` as a tuple of ints, or ``None`` when it is not a sequence of ints."""
    # Tuples and lists first: the ABC check of other sequences costs more than a round's
    # worth of dealing, and the engine makes a deal every round.
    if not (
        isinstance(value, tuple | list)
        or (isinstance(value, Sequence) and not isinstance(value, str))
    ):
        return None
    out = tuple(value)
    for c in out:
        if type(c) is not int:
            return None
    return out


def _cards(field: str, value: object) -> tuple[Card, ...]:
    """``value`` as a tuple of ints, or a :class:`TypeError` naming ``field``."""
    out = _ints(value)
    if out is None:
        raise TypeError(f"Deal {field} must be a sequence of cards (ints), not {value!r}")
    return out


def _nested(field: str, value: object) -> tuple[tuple[Card, ...], ...]:
    """``value`` as a tuple of tuples of ints, or a :class:`TypeError` naming ``field``."""
    if isinstance(value, tuple | list) or (
        isinstance(value, Sequence) and not isinstance(value, str)
    ):
        out = []
        for part in value:
            cards = _ints(part)
            if cards is None:
                break
            out.append(cards)
        else:
            return tuple(out)
    raise TypeError(
        f"Deal {field} must be a sequence of sequences of cards (ints), not {value!r}"
    )


def random_deal(rules: Rules, active: tuple[int, ...], rng: random.Random) -> Deal:
    """A shuffled deal for the seats in ``active`` (docs/rules.md §2 and the variants' decks)."""
    deck = list(rules.deck(len(active)))
    if rules.logic:
        return Deal(pool=tuple(deck))
    rng.shuffle(deck)
    hands: list[tuple[Card, ...]] = [()] * rules.players
    k = rules.number_cards_per_hand()
    jokers = list(rules.joker_cards())
    if jokers:
        rng.shuffle(jokers)
    for i, p in enumerate(active):
        cards = deck[i * k : (i + 1) * k]
        if jokers:
            cards.append(jokers[i])
        hands[p] = tuple(sorted(cards))
    top = len(active) * k
    rows = tuple((c,) for c in deck[top : top + ROWS])
    return Deal(rows, hands)


def check_deal(rules: Rules, deal: Deal, active: tuple[int, ...]) -> None:
    """Refuse ``deal`` for a round of ``rules`` with the seats ``active`` playing.

    Raises :class:`~nimmt.errors.RulesError` naming the first problem: a card
    outside the round's deck or dealt twice, rows of the wrong number or
    size or not ascending, hands of the wrong number or size, cards for an
    eliminated seat, a missing joker, or a pool where none belongs.
    """
    allowed = set(rules.deck(len(active))) | set(rules.joker_cards())
    seen: set[Card] = set()

    def use(card: Card, where: str) -> None:
        if not is_card(card) or card not in allowed:
            raise RulesError(
                f"deal: {where} holds {card_or_repr(card)}, which is not in this round's deck"
            )
        if card in seen:
            raise RulesError(f"deal: card {card_or_repr(card)} appears twice")
        seen.add(card)

    if rules.logic:
        if deal.rows or deal.hands:
            raise RulesError("deal: logic deals only the face-up pool; rows come from the draft")
        if len(deal.pool) != HAND_SIZE * len(active) + ROWS:
            raise RulesError(
                f"deal: the logic pool must hold {HAND_SIZE * len(active) + ROWS} cards"
            )
        for c in deal.pool:
            use(c, "the pool")
        return
    if deal.pool:
        raise RulesError("deal: a pool is only dealt in logic")
    if len(deal.rows) != ROWS:
        raise RulesError(f"deal: {ROWS} rows are needed, not {len(deal.rows)}")
    for r, row in enumerate(deal.rows, 1):
        if not 1 <= len(row) <= ROW_CAPACITY:
            raise RulesError(f"deal: row {r} must hold 1 to {ROW_CAPACITY} cards")
        if any(c < 0 for c in row) or list(row) != sorted(row):
            raise RulesError(f"deal: row {r} must hold number cards in ascending order")
        for c in row:
            use(c, f"row {r}")
    if len(deal.hands) != rules.players:
        raise RulesError(f"deal: {rules.players} hands are needed (empty for eliminated seats)")
    sizes = {len(deal.hands[p]) for p in active}
    if len(sizes) != 1 or not 1 <= next(iter(sizes)) <= HAND_SIZE:
        raise RulesError(f"deal: every active hand must hold the same number (1 to {HAND_SIZE})")
    for p, hand in enumerate(deal.hands):
        if p not in active and hand:
            raise RulesError(f"deal: {seat_of(p)} is eliminated and gets no cards")
        if rules.jokers and p in active and sum(1 for c in hand if c < 0) != 1:
            raise RulesError(f"deal: with jokers, {seat_of(p)} must hold exactly one joker")
        for c in hand:
            use(c, f"the hand of {seat_of(p)}")

