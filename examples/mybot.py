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


class MyBot:
    """Plays the card that lands closest to a row end; the cheapest row otherwise."""

    name = "mybot"
    description = "plays the card that lands closest to a row end; takes the cheapest row"

    def __init__(self, seed: int = 0, budget: Budget | None = None) -> None:
        self.rng = random.Random(seed)  # for ties; keeps the bot deterministic per seed

    def choose_card(self, view: View) -> Card:
        best: tuple[float, float] | None = None
        choice = view.options[0]
        for card in view.options:
            # Where the engine would put it now (both ends in professional, jokers too).
            where = view.target(card)
            # A card that costs a row (too low, fitting no end, a joker, a sixth card):
            # try it last.
            cost = where.gap if where.row is not None and not where.sixth else 1000
            key = (cost, self.rng.random())
            if best is None or key < best:
                best, choice = key, card
        return choice

    def choose_row(self, view: View) -> int:
        return default_row(view.rows)

    def draft_card(self, view: View) -> Card:
        return max(view.options)
