"""The default row choice (docs/rules.md §5): fewest bullheads, fewest cards, lowest number."""

from __future__ import annotations

import pytest

from nimmt import default_row, joker, row_bullheads


@pytest.mark.parametrize(
    ("rows", "expected"),
    [
        # Worked example: 3, 2, 8 and 3 bullheads.
        (((9, 12, 21), (19, 24), (33, 42, 50, 57), (69, 72, 81)), 2),
        # Fewest bullheads wins over fewest cards.
        (((55,), (1, 2, 3, 4), (10,), (11,)), 3),
        # Equal bullheads: fewest cards.
        (((1, 2, 3), (10,), (4, 6, 7), (8, 15)), 2),
        # Equal bullheads and cards: lowest row number.
        (((1, 2), (3, 4), (6, 7), (8, 9)), 1),
        (((20,), (1, 2), (3, 4), (6, 7)), 2),
        (((55,), (66,), (1, 2, 3, 4, 6), (7, 8)), 4),
        # A joker counts 1.
        (((joker(9),), (1, 2), (3, 4), (6, 7)), 1),
        (((10,), (20,), (30,), (41, joker(1))), 4),
    ],
)
def test_default_row(rows: tuple[tuple[int, ...], ...], expected: int) -> None:
    assert default_row(rows) == expected


def test_row_bullheads() -> None:
    assert row_bullheads((33, 42, 50, 57, 64)) == 11
    assert row_bullheads((55, joker(3))) == 8
    assert row_bullheads(()) == 0
