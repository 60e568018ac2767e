"""Cards and bullheads (docs/rules.md §1): every card's value, jokers, labels and parsing."""

from __future__ import annotations

from collections import Counter

import pytest

from nimmt import JOKERS, NUMBER_CARDS, bullheads, card_label, is_joker, joker, parse_card
from nimmt.cards import card_or_repr, is_card
from nimmt.rows import card_tenths

# The published values, written out card by card so that a wrong formula cannot
# agree with itself: 55 → 7, other doublets → 5, tens → 3, other fives → 2.
SEVEN = {55}
FIVE = {11, 22, 33, 44, 66, 77, 88, 99}
THREE = {10, 20, 30, 40, 50, 60, 70, 80, 90, 100}
TWO = {5, 15, 25, 35, 45, 65, 75, 85, 95}


@pytest.mark.parametrize("card", NUMBER_CARDS)
def test_bullheads_of_every_number_card(card: int) -> None:
    expected = (
        7
        if card in SEVEN
        else 5
        if card in FIVE
        else 3
        if card in THREE
        else (2 if card in TWO else 1)
    )
    assert bullheads(card) == expected


def test_distribution_and_total() -> None:
    counts = Counter(bullheads(c) for c in NUMBER_CARDS)
    assert counts == {1: 76, 2: 9, 3: 10, 5: 8, 7: 1}
    assert sum(bullheads(c) for c in NUMBER_CARDS) == 171


def test_number_cards_are_1_to_104_once() -> None:
    assert tuple(range(1, 105)) == NUMBER_CARDS


@pytest.mark.parametrize(
    ("players", "total"),
    [(2, 38), (3, 55), (4, 72), (5, 85), (6, 103), (7, 120), (8, 137), (9, 154), (10, 171)],
)
def test_tactics_deck_bullhead_totals(players: int, total: int) -> None:
    assert sum(bullheads(c) for c in range(1, 10 * players + 5)) == total


@pytest.mark.parametrize("decimal", range(10))
def test_every_joker_is_worth_one_bullhead(decimal: int) -> None:
    j = joker(decimal)
    assert j == decimal - 10
    assert is_joker(j) and is_card(j)
    assert bullheads(j) == 1
    assert card_label(j) == f"0.{decimal}"
    assert parse_card(f"0.{decimal}") == j
    assert card_tenths(j) == decimal
    assert card_or_repr(j) == f"0.{decimal}"  # in error messages too, never the code


def test_jokers_sort_before_numbers_in_ascending_order() -> None:
    assert tuple(joker(d) for d in range(10)) == JOKERS
    assert sorted([87, joker(9), 1, joker(0), joker(5)]) == [
        joker(0),
        joker(5),
        joker(9),
        1,
        87,
    ]


@pytest.mark.parametrize("card", NUMBER_CARDS)
def test_number_labels_round_trip(card: int) -> None:
    assert card_label(card) == str(card)
    assert parse_card(str(card)) == card
    assert parse_card(f"  {card} ") == card
    assert not is_joker(card)
    assert card_tenths(card) == card * 10


@pytest.mark.parametrize(
    "text", ["0", "105", "-1", "0.10", "1.5", "0.a", "", "abc", "0,9", "87.9", " 0. "]
)
def test_parse_card_refuses_non_cards(text: str) -> None:
    with pytest.raises(ValueError, match="is not a card"):
        parse_card(text)


@pytest.mark.parametrize("bad", [0, 105, -11, 1.0, "5", None, True])
def test_bullheads_refuses_non_cards(bad: object) -> None:
    assert not is_card(bad)
    with pytest.raises(ValueError, match="is not a card"):
        bullheads(bad)  # type: ignore[arg-type]


@pytest.mark.parametrize("bad", [-1, 10])
def test_joker_decimal_out_of_range(bad: int) -> None:
    with pytest.raises(ValueError, match=r"jokers are 0\.0 to 0\.9"):
        joker(bad)
