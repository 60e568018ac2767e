"""Default random decisions: the simplest player, for simulations and tests.

A random card, a random draft pick, and the default row choice
(:func:`nimmt.default_row`). All randomness comes from the ``random.Random``
passed in, so the same generator state gives the same decisions; the deals
come from the game's own seed, so decisions and deals are independent.
"""

from __future__ import annotations

import random

from .decisions import DecisionKind
from .defaults import default_row
from .engine import Game
from .rules import Rules

__all__ = ["decision_rng", "play_random", "simulate"]


def play_random(game: Game, rng: random.Random, max_decisions: int | None = None) -> int:
    """Decide at random until the game ends, waits for a deal, or ``max_decisions`` are made.

    Returns the number of decisions made.
    """
    made = 0
    while max_decisions is None or made < max_decisions:
        pending = game.pending
        if pending is None:
            break
        player = pending.players[0]
        if pending.kind is DecisionKind.CARD:
            game.play_card(player, rng.choice(game.legal(player)))
        elif pending.kind is DecisionKind.ROW:
            game.take_row(player, default_row(game.rows))
        else:
            game.draft_card(player, rng.choice(game.legal(player)))
        made += 1
    return made


def decision_rng(seed: int) -> random.Random:
    """The generator of the decisions of a game dealt from ``seed``.

    Derived from the seed by a string (hashed with SHA-512 by ``random``), so
    its sequence is not the deal generator's own.
    """
    return random.Random(f"nimmt-decisions-{seed}")


def simulate(rules: Rules, seed: int, max_decisions: int | None = None) -> Game:
    """A game dealt from ``seed`` and played with default random decisions."""
    game = Game(rules, seed)
    play_random(game, decision_rng(seed), max_decisions)
    return game
