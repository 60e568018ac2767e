"""Ratings: openskill's Plackett-Luce model over the people of a rated game.

Kept apart from the store so the rule is one function of numbers: the
ratings before a game and its totals give the ratings after. Fewer points
rank higher; equal totals share a rank. Bots are not rated, and a game rates
only when at least two people played it (:func:`rated_seats`).

>>> after = rate([(25.0, 25 / 3), (25.0, 25 / 3)], [10, 30])
>>> after[0][0] > 25.0 > after[1][0]
True
"""

from __future__ import annotations

from collections.abc import Sequence

from openskill.models import PlackettLuce

__all__ = ["INITIAL", "rate", "rated_seats"]

#: A new player's (μ, σ): openskill's defaults.
INITIAL = (25.0, 25.0 / 3)

_MODEL = PlackettLuce()


def rated_seats(players: Sequence[int | None]) -> list[tuple[int, int]]:
    """The ``(seat, player id)`` of the people among ``players`` (None: a bot), or none
    when fewer than two different people played: a game alone against bots rates nobody."""
    people = [(i, pid) for i, pid in enumerate(players) if pid is not None]
    return people if len({pid for _, pid in people}) >= 2 else []


def rate(before: Sequence[tuple[float, float]], totals: Sequence[int]) -> list[tuple[float, float]]:
    """The ``(μ, σ)`` of each player after a game, from their ``(μ, σ)`` before it and their
    final totals, in the same order."""
    teams = [[_MODEL.rating(mu=mu, sigma=sigma)] for mu, sigma in before]
    new = _MODEL.rate(teams, scores=[-total for total in totals])
    return [(r.mu, r.sigma) for (r,) in new]
