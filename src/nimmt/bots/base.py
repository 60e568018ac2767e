"""The bot protocol: three questions, each answered from a view.

A bot sees only its :class:`~nimmt.engine.View` (docs/rules.md §6), never the game.
Bots are seeded and deterministic for a given seed and budget, so that arena
results and tests are reproducible. Any object with these three methods can
sit at any table: local, server, arena, or as an RL opponent.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol, runtime_checkable

from ..cards import Card
from ..views import View


@dataclass(frozen=True, slots=True)
class Budget:
    """Think time per decision: a number of rollouts, a number of seconds, or both.

    A search stops at whichever limit comes first. ``None`` means no limit of
    that kind; a budget with neither is refused by search bots.
    """

    rollouts: int | None = None
    seconds: float | None = None


@runtime_checkable
class Bot(Protocol):
    """What every bot implements."""

    name: str

    def choose_card(self, view: View) -> Card:
        """The card to play this turn (one of ``view.options``)."""
        ...

    def choose_row(self, view: View) -> int:
        """The row (1..4) to take for ``view.pending.card`` (too low, or a joker to place)."""
        ...

    def draft_card(self, view: View) -> Card:
        """Logic: the card to take from ``view.draft_pool``."""
        ...
