"""Default choices: what the table does for a player who does not answer.

docs/rules.md §5: the default row is the one with the fewest bullheads, then the
fewest cards, then the lowest number. It is a named function so that bots,
clients and timers share it; the engine itself never applies it silently.

>>> default_row(((9, 12, 21), (19, 24), (33, 42, 50, 57), (69, 72, 81)))
2
"""

from __future__ import annotations

from collections.abc import Sequence

from .cards import Card
from .rows import row_bullheads

__all__ = ["default_row"]


def default_row(rows: Sequence[Sequence[Card]]) -> int:
    """The row number (1..4) to take by default: fewest bullheads, fewest cards, lowest number."""
    best = 0
    best_key = (1 << 30, 1 << 30)
    for i, row in enumerate(rows):
        key = (row_bullheads(row), len(row))
        if key < best_key:
            best = i
            best_key = key
    return best + 1
