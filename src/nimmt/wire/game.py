"""The wire's shapes of the two values of the game that have no JSON of their own: the rules
and the decision pending. The view's model (:mod:`.derived`) holds them."""

from __future__ import annotations

from typing import Literal

from ..cards import Card
from ..record import DecisionKindName
from ..rows import RowReason
from ..rules import Rules
from .base import Payload, build

__all__ = ["PendingInfo", "RulesInfo", "rules_info"]


class RulesInfo(Payload):
    """A table's rules, as :meth:`nimmt.Rules.to_dict` writes them (docs/rules.md)."""

    preset: str
    """The preset the rules start from: ``classic`` or ``category5``."""
    players: int
    """Seats at the table (2 to 10)."""
    limit: int
    """The points that end the game (classic, elimination ends)."""
    end: Literal["classic", "elimination", "rounds"]
    """How the game ends."""
    rounds: int | None
    """The number of rounds for ``end: rounds``, else null."""
    variants: list[str]
    """The variants in play (``tactics``, ``logic``, ``professional``, ``open``,
    ``open-hands``, ``jokers``)."""


class PendingInfo(Payload):
    """The decision the game waits for, and from whom."""

    kind: DecisionKindName
    """``card`` (choose this turn's card), ``row`` (take a row) or ``draft`` (logic)."""
    players: tuple[int, ...]
    """The seats that still have to decide."""
    card: Card | None
    """For a row choice: the card to place; else null."""
    reason: RowReason | None
    """For a row choice: why a row must be chosen; else null."""


def rules_info(rules: Rules) -> RulesInfo:
    """``rules`` as their wire model."""
    return build(RulesInfo, rules.to_dict())
