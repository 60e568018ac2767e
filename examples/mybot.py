"""An example of a user's bot: enter it in the arena by its import path.

From the project directory::

    PYTHONPATH=. nimmt arena --bots examples.mybot:MyBot,cheapest --games 100 --single-round

A bot is any object with a ``name`` and three methods that each receive a
:class:`nimmt.View` (what this seat may know, nothing more) and return one of
``view.options``. The arena builds it as ``MyBot(seed=..., budget=...)``; a
class that takes fewer keywords gets only the ones it accepts.
"""

from __future__ import annotations

import random

from nimmt import Card, View, default_row
from nimmt.bots import Budget


def _end(row: tuple[Card, ...]) -> float:
    """A row's end value; jokers (negative codes) raise it by their decimal."""
    value = 0.0
    for c in row:
        value = value + (c + 10) / 10 if c < 0 else float(c)
    return value


class MyBot:
    """Plays the card that follows a row end most closely; the cheapest row otherwise."""

    name = "mybot"
    description = "plays the card closest above a row end; takes the cheapest row"

    def __init__(self, seed: int = 0, budget: Budget | None = None) -> None:
        self.rng = random.Random(seed)  # for ties; keeps the bot deterministic per seed

    def choose_card(self, view: View) -> Card:
        ends = [_end(r) for r in view.rows]
        best: tuple[float, float] | None = None
        choice = view.options[0]
        for card in view.options:
            gaps = [card - e for e in ends if e < card]
            # A card below every row (or a joker) costs a row: try it last.
            key = (min(gaps) if gaps and card > 0 else 1000.0, self.rng.random())
            if best is None or key < best:
                best, choice = key, card
        return choice

    def choose_row(self, view: View) -> int:
        return default_row(view.rows)

    def draft_card(self, view: View) -> Card:
        return max(view.options)
