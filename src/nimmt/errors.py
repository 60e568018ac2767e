"""Precise exception types.

Every refusal names its reason, so callers (a server answering a client, a
bot author debugging) can tell a malformed rule set from a wrong move from a
move made out of turn. All are ``ValueError`` subclasses so that generic
validation code catches them too.
"""

from __future__ import annotations


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
