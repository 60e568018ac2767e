"""Bots that misbehave or record what they see, entered by import path in arena tests.

The tests put this directory on the import path and name these classes as
``arena_bots:RaisingBot`` and so on, the way a user enters their own bot.
"""

from __future__ import annotations

import time

from nimmt import Card, View, default_row, row_bullheads
from nimmt.bots.base import Budget
from nimmt.bots.simple import CheapestBot, RandomBot

#: (seat, round-1 hand) seen by every RecorderBot, in play order (in-process runs only).
SEEN: list[tuple[int, tuple[Card, ...]]] = []


class ExpensiveBot(RandomBot):
    """Random card, and always the row with the most bullheads: a known loser."""

    name = "expensive"
    description = "random card, most expensive row"

    def choose_row(self, view: View) -> int:
        points = [row_bullheads(r) for r in view.rows]
        return max(range(len(points)), key=lambda i: (points[i], -i)) + 1


class RaisingBot(CheapestBot):
    """Plays like cheapest until turn 3 of each round, then raises."""

    name = "raising"

    def choose_card(self, view: View) -> Card:
        if view.turn == 3:
            raise RuntimeError("this bot breaks on turn 3")
        return super().choose_card(view)


class IllegalBot(CheapestBot):
    """Answers a card it does not hold."""

    name = "illegal"

    def choose_card(self, view: View) -> Card:
        return 105


class SleepyBot(CheapestBot):
    """Sleeps 2 seconds over its first card, then plays like cheapest."""

    name = "sleepy"

    def __init__(self, seed: int = 0, budget: Budget | None = None) -> None:
        super().__init__(seed, budget)
        self.slept = False

    def choose_card(self, view: View) -> Card:
        if not self.slept:
            self.slept = True
            time.sleep(2.0)
        return super().choose_card(view)


class SpinBot(CheapestBot):
    """Computes for up to 5 seconds over its first card (only an alarm stops it sooner)."""

    name = "spin"

    def choose_card(self, view: View) -> Card:
        end = time.monotonic() + 5.0
        n = 0
        while time.monotonic() < end:
            n += 1
        return super().choose_card(view)


class RecorderBot(CheapestBot):
    """Plays like cheapest and records its first-round hand."""

    name = "recorder"

    def choose_card(self, view: View) -> Card:
        if view.round == 1 and view.turn == 1 and view.my_choice is None:
            assert view.player is not None
            SEEN.append((view.player, view.hand))
        return super().choose_card(view)


#: The budget every BudgetBot was built with (in-process runs only).
BUDGETS: list[Budget | None] = []


class BudgetBot(CheapestBot):
    """Plays like cheapest and records the budget it was given."""

    name = "budget"

    def __init__(self, seed: int = 0, budget: Budget | None = None) -> None:
        super().__init__(seed, budget)
        BUDGETS.append(budget)


class Minimal:
    """A user's bot with no constructor arguments and no name: the arena supplies the name."""

    def choose_card(self, view: View) -> Card:
        return view.options[-1]

    def choose_row(self, view: View) -> int:
        return default_row(view.rows)

    def draft_card(self, view: View) -> Card:
        return view.options[0]


class NotABot:
    """Lacks the protocol's methods."""

    def __init__(self, seed: int = 0) -> None:
        self.seed = seed


class BrokenInit:
    """Cannot be built."""

    def __init__(self, seed: int = 0) -> None:
        raise ValueError("no such luck")
