"""Cards and their penalty points (bullheads).

A card is a plain ``int`` so that hands, rows and records stay cheap and
JSON-friendly. Number cards are 1..104. The ten anniversary jokers 0.0..0.9
are encoded as the negative ints -10..-1 (joker 0.d is ``d - 10``), so that
plain integer sorting puts every joker before every number card and the jokers
in ascending order among themselves, which is exactly the order of resolution.

>>> bullheads(55), bullheads(44), bullheads(30), bullheads(25), bullheads(7)
(7, 5, 3, 2, 1)
>>> card_label(-1), card_label(87), parse_card("0.9")
('0.9', '87', -1)
"""

from __future__ import annotations

from typing import TypeAlias

Card: TypeAlias = int

MIN_CARD = 1
MAX_CARD = 104
NUMBER_CARDS: tuple[Card, ...] = tuple(range(MIN_CARD, MAX_CARD + 1))
JOKERS: tuple[Card, ...] = tuple(range(-10, 0))


def _bullheads_of(n: int) -> int:
    if n == 55:
        return 7
    if n % 11 == 0:
        return 5
    if n % 10 == 0:
        return 3
    if n % 5 == 0:
        return 2
    return 1


# Index 0 is unused; indexes 105..114 are the jokers, reached through negative
# indexing (-10..-1), so ``BULLHEADS[card]`` works for every card without a branch.
BULLHEADS: tuple[int, ...] = (0, *(_bullheads_of(n) for n in NUMBER_CARDS), *(1 for _ in JOKERS))


def bullheads(card: Card) -> int:
    """Penalty points of one card: 55 → 7, other multiples of 11 → 5,
    multiples of 10 → 3, other multiples of 5 → 2, everything else and jokers → 1.

    >>> sum(bullheads(c) for c in NUMBER_CARDS)
    171
    """
    if not is_card(card):
        raise ValueError(f"{card!r} is not a card")
    return BULLHEADS[card]


def is_card(card: object) -> bool:
    """True for a number card 1..104 or a joker code -10..-1."""
    return type(card) is int and (MIN_CARD <= card <= MAX_CARD or -10 <= card <= -1)


def is_joker(card: Card) -> bool:
    """True for the anniversary jokers 0.0..0.9."""
    return card < 0


def joker(decimal: int) -> Card:
    """The joker 0.<decimal>: ``joker(9)`` is 0.9.

    >>> joker(9)
    -1
    """
    if not 0 <= decimal <= 9:
        raise ValueError(f"jokers are 0.0 to 0.9, not 0.{decimal}")
    return decimal - 10


def card_label(card: Card) -> str:
    """How people write the card: ``"87"`` or ``"0.9"``."""
    return f"0.{card + 10}" if card < 0 else str(card)


def card_or_repr(value: object) -> str:
    """A card as people write it, anything else as its ``repr``: for error messages.

    A joker is named as on its face (0.0..0.9), never by its code (-10..-1).

    >>> card_or_repr(-9), card_or_repr(105), card_or_repr("x")
    ('0.1', '105', "'x'")
    """
    return card_label(value) if is_card(value) else repr(value)  # type: ignore[arg-type]


def parse_card(text: str) -> Card:
    """Inverse of :func:`card_label`; raises ``ValueError`` on anything else."""
    text = text.strip()
    if text.startswith("0.") and len(text) == 3 and text[2].isdigit():
        return joker(int(text[2]))
    if text.isdigit():
        n = int(text)
        if MIN_CARD <= n <= MAX_CARD:
            return n
    raise ValueError(f"{text!r} is not a card (1..104 or a joker 0.0..0.9)")
