"""What the expert says about a decision: advice on the current one, reviews of past ones.

These are plain values (floor 2, beside narration), so that whoever shows them (a
hint key in a client, the results page, the replay viewer, ``nimmt analyse``)
needs neither the search nor numpy: :mod:`nimmt.sim.advice` computes an
:class:`Advice` from one seat's view, :mod:`nimmt.sim.analysis` a
:class:`GameReview` from a finished game's record, and
:meth:`nimmt.narrate.Narrator.advice_sentence` and
:meth:`~nimmt.narrate.Narrator.review_sentences` say them in the player's
language. Every value has a ``to_dict`` for JSON.

Costs are bullheads the player should expect to take for the rest of the round
(a search's average over sampled worlds); ``win`` is the chance to win the game
as the search models it (``None`` where it rated the round alone).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from .decisions import DecisionKind

__all__ = ["Advice", "DecisionReview", "GameReview", "OptionValue", "PlayerReview", "Reason"]


class Reason(StrEnum):
    """Why the advice is what it is: the one fact a hint sentence tells."""

    ONLY = "only"
    """There is one legal option."""
    DECIDED = "decided"
    """This round cannot change the game's result: play the safest option."""
    SIXTH = "sixth"
    """The next best option risks being a row's sixth card."""
    TOO_LOW = "too_low"
    """The next best option is likely too low for every row (or fits no end) and takes one."""
    LATER = "later"
    """The next best option is safe now but leaves a worse hand for the turns to come."""
    CLOSE = "close"
    """The next best option is almost as good."""
    GAME = "game"
    """Not the cheapest option in bullheads, but the best chance to win the game."""
    ROW = "row"
    """A row choice: the advised row against the next best row."""
    RULE = "rule"
    """Decided by a rule rather than a search (the logic draft: a high, cheap card)."""


def _num(x: float | None, digits: int = 3) -> float | None:
    if x is None or not math.isfinite(x):
        return None
    return round(x, digits)


@dataclass(frozen=True, slots=True)
class OptionValue:
    """What one option is expected to bring, by the expert's search.

    ``bullheads``: expected bullheads for the rest of the round. ``sixth`` and
    ``too_low``: the part of them taken at once, this turn, because the card
    would be a sixth card or would need a row choice. ``win``: the chance to win
    the game (``None`` where only the round was rated). ``value``: the score
    the search maximises (higher is better; comparable within one decision).
    """

    option: int
    bullheads: float
    sixth: float
    too_low: float
    win: float | None
    value: float
    rollouts: int

    @property
    def later(self) -> float:
        """Bullheads expected in the turns after this one."""
        return max(self.bullheads - self.sixth - self.too_low, 0.0)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready."""
        return {
            "option": self.option,
            "bullheads": _num(self.bullheads),
            "sixth": _num(self.sixth),
            "too_low": _num(self.too_low),
            "later": _num(self.later),
            "win": _num(self.win, 4),
            "value": _num(self.value, 5),
            "rollouts": self.rollouts,
        }


@dataclass(frozen=True, slots=True)
class Advice:
    """The expert's advice on one pending decision of one seat.

    ``best`` is the advised option (a card, or a row 1..4); ``options`` every
    legal option, best first. ``reason`` is what a hint says, about
    ``alternative`` (the next best option, or ``None``) with ``risk`` its
    expected bullheads by that reason (a sixth card, a too-low card, the later
    turns, the whole round for rows). ``cost`` is the advised option's
    expected bullheads. ``decided``: the round cannot change the game's result
    (then the advice is the safest option).
    """

    kind: DecisionKind
    player: int
    round: int
    turn: int
    best: int
    options: tuple[OptionValue, ...]
    reason: Reason
    alternative: int | None
    risk: float
    cost: float
    decided: bool
    #: The card waiting for a row (row choices), else ``None``.
    card: int | None = None

    def option(self, value: int) -> OptionValue:
        """The evaluation of one option."""
        for o in self.options:
            if o.option == value:
                return o
        raise KeyError(value)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready."""
        return {
            "kind": self.kind.value,
            "player": self.player,
            "round": self.round,
            "turn": self.turn,
            "best": self.best,
            "card": self.card,
            "reason": self.reason.value,
            "alternative": self.alternative,
            "risk": _num(self.risk),
            "cost": _num(self.cost),
            "decided": self.decided,
            "options": [o.to_dict() for o in self.options],
        }


@dataclass(frozen=True, slots=True)
class DecisionReview:
    """One decision of a finished game as the expert sees it from the deciding seat.

    ``played`` is what the player chose; ``advice`` the expert's evaluation of
    every option from that seat's view at that moment. ``loss`` is what the
    choice gave away by the search's own score (0 when the player chose the
    advised option); ``extra`` the expected bullheads it cost over the advised
    option, and ``win_lost`` the win chance it gave away (``None`` where only
    the round was rated).
    """

    index: int  #: the decision's place in the game's log, from 0
    played: int
    advice: Advice
    loss: float
    extra: float
    win_lost: float | None

    @property
    def seat(self) -> int:
        """Who decided."""
        return self.advice.player

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready."""
        return {
            "index": self.index,
            "seat": self.seat,
            "round": self.advice.round,
            "turn": self.advice.turn,
            "kind": self.advice.kind.value,
            "played": self.played,
            "best": self.advice.best,
            "loss": _num(self.loss, 5),
            "extra": _num(self.extra),
            "win_lost": _num(self.win_lost, 4),
            "advice": self.advice.to_dict(),
        }


@dataclass(frozen=True, slots=True)
class PlayerReview:
    """One seat's game in a few numbers."""

    seat: int
    name: str
    decisions: int  #: decisions reviewed
    agreed: int  #: those where the player chose the advised option
    extra: float  #: expected bullheads given away over the game, summed
    total: int  #: the final total

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready."""
        return {
            "seat": self.seat,
            "name": self.name,
            "decisions": self.decisions,
            "agreed": self.agreed,
            "extra": _num(self.extra),
            "total": self.total,
        }


@dataclass(frozen=True, slots=True)
class GameReview:
    """A finished game reviewed decision by decision.

    ``decisions`` every reviewed decision in the game's order; ``costliest``
    the few that gave away most (largest ``loss`` first); ``players`` one
    summary per seat. ``seed`` and ``rollouts`` make the review repeatable.
    ``unreviewed`` counts the decisions left out because the review's time ran
    out (then the review is :attr:`partial`: it holds the game's first decisions).
    """

    players: tuple[PlayerReview, ...]
    names: tuple[str, ...]
    decisions: tuple[DecisionReview, ...]
    costliest: tuple[DecisionReview, ...]
    winners: tuple[int, ...]
    seed: int
    rollouts: int
    unreviewed: int = 0

    @property
    def partial(self) -> bool:
        """Whether the time ran out before every decision was reviewed."""
        return self.unreviewed > 0

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready."""
        return {
            "names": list(self.names),
            "winners": list(self.winners),
            "seed": self.seed,
            "rollouts": self.rollouts,
            "partial": self.partial,
            "unreviewed": self.unreviewed,
            "players": [p.to_dict() for p in self.players],
            "costliest": [d.index for d in self.costliest],
            "decisions": [d.to_dict() for d in self.decisions],
        }
