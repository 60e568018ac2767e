"""Precise exception types.

Every refusal names its reason, so callers (a server answering a client, a
bot author debugging) can tell a malformed rule set from a wrong move from a
move made out of turn. All are ``ValueError`` subclasses so that generic
validation code catches them too.
"""

from __future__ import annotations

from collections.abc import Iterable


class NimmtError(ValueError):
    """Base of every error the game raises on purpose."""


class RulesError(NimmtError):
    """An invalid rule set, an undefined combination of variants, or a bad deal."""


class IllegalMove(NimmtError):
    """A decision the rules do not allow at this moment."""


class CardNotInHand(IllegalMove):
    """The player does not hold that card (or may not draft it)."""


class NoSuchRow(IllegalMove):
    """Rows are numbered 1 to 4."""


class NotYourDecision(IllegalMove):
    """The decision pending is not this player's, or not of this kind."""


class GameOverError(IllegalMove):
    """The game has ended; no more decisions are taken."""


class RecordError(NimmtError):
    """A game record that does not replay; ``step`` says where, ``reason`` why."""

    def __init__(self, step: str, reason: str) -> None:
        super().__init__(f"{step}: {reason}")
        self.step = step
        self.reason = reason


def seat_of(player: int) -> str:
    """How a message names a player: the index the API and the records use, and the seat
    people count from one ("player 3 (seat 4)"), so that a record's ``"player": 3`` and
    its default name "Player 4" are visibly the same seat."""
    return f"player {player} (seat {player + 1})"


def seats_of(players: Iterable[int]) -> str:
    """Several players named as :func:`seat_of` names one: "players 1 and 2 (seats 2
    and 3)"."""
    ps = list(players)
    if len(ps) == 1:
        return seat_of(ps[0])

    def listed(xs: list[int]) -> str:
        words = [str(x) for x in xs]
        return words[0] if len(words) == 1 else ", ".join(words[:-1]) + " and " + words[-1]

    return f"players {listed(ps)} (seats {listed([p + 1 for p in ps])})"
