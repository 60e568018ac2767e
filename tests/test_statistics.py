"""The statistical check: random cards with the default row choice.

Over 20,000 seeded one-round games through the public engine, the mean
penalty per player must match the known value of random play: 12.15 ± 0.15
with 4 players and 12.97 ± 0.15 with 5. A wrong placement rule, a wrong
bullhead value or a wrong default row moves the mean well outside the band
(the standard error is about 0.04), and the seed makes the result exact and
reproducible.
"""

from __future__ import annotations

import random

import pytest

from nimmt import DecisionKind, Game, Rules, default_row

ROUNDS = 20_000


def mean_penalty(players: int, seed: int, rounds: int = ROUNDS) -> float:
    """Mean penalty per player and round: random cards, the default row."""
    rules = Rules.preset("classic", players=players, end="rounds", rounds=1)
    rng = random.Random(seed)
    total = 0
    for _ in range(rounds):
        game = Game(rules, seed=rng)
        while not game.is_over:
            pending = game.pending
            assert pending is not None
            if pending.kind is DecisionKind.CARD:
                for p in pending.players:
                    game.play_card(p, rng.choice(game.legal(p)))
            else:
                game.take_row(pending.players[0], default_row(game.view(None).rows))
        total += sum(game.scores)
    return total / (rounds * players)


@pytest.mark.parametrize(("players", "expected"), [(4, 12.15), (5, 12.97)])
def test_mean_penalty_of_random_play(players: int, expected: float) -> None:
    mean = mean_penalty(players, seed=2026 + players)
    assert abs(mean - expected) <= 0.15, f"{players} players: mean penalty {mean:.3f}"
