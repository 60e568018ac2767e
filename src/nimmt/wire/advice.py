"""What a hint and a game's analysis carry (:mod:`nimmt.advice` as the wire says it): the
``hint`` message's advice and ``GET /api/games/{id}/analysis``'s answer."""

from __future__ import annotations

from typing import Literal, TypeAlias

from ..cards import Card
from ..record import DecisionKindName
from .base import Payload

__all__ = ["AdvicePayload", "DecisionReviewPayload", "GameAnalysis", "OptionAdvice",
           "PlayerReviewPayload", "ReasonName"]

ReasonName: TypeAlias = Literal[
    "only", "decided", "sixth", "too_low", "later", "close", "game", "row", "rule",
]


class OptionAdvice(Payload):
    """One option as the expert's search rates it (``nimmt.advice.OptionValue``). Numbers
    the search did not compute (a draft, a forced card) are null."""

    option: int
    """The card (jokers as −10..−1), or the row 1..4."""
    bullheads: float | None
    """Expected bullheads for the rest of the round with this option."""
    sixth: float | None
    """The part of them taken at once as a row's sixth card."""
    too_low: float | None
    """The part of them taken at once as a card too low for every row (or a joker)."""
    later: float | None
    """The part of them expected in the later turns of the round."""
    win: float | None
    """The chance to win the game with this option (0..1); null where only the round was
    rated."""
    value: float | None
    """The search's score (higher is better; compare within one decision only)."""
    rollouts: int
    """Sampled games behind these numbers."""


class AdvicePayload(Payload):
    """The expert's advice on one pending decision (``nimmt.advice.Advice``)."""

    kind: DecisionKindName
    """``card``, ``row`` or ``draft``."""
    player: int
    """The seat it advises."""
    round: int
    """The round (from 1)."""
    turn: int
    """The turn in the round."""
    best: int
    """The advised card, or row 1..4."""
    card: Card | None
    """For a row choice, the card waiting for its row; else null."""
    reason: ReasonName
    """What the hint sentence tells (docs/advice.md lists them)."""
    alternative: int | None
    """The option the reason speaks of (the next best, or the cheapest passed over)."""
    risk: float | None
    """That option's expected bullheads by the reason."""
    cost: float | None
    """The advised option's expected bullheads."""
    decided: bool
    """The round cannot change the game's result (the advice is the safest option)."""
    options: list[OptionAdvice]
    """Every legal option, best first."""


class DecisionReviewPayload(Payload):
    """One decision of a finished game, as the expert rates it from the deciding seat's
    view at that moment (``nimmt.advice.DecisionReview``)."""

    index: int
    """The decision's place in the record (rounds in order, decisions in order), from 0:
    what a replay viewer jumps to."""
    seat: int
    """Who decided."""
    round: int
    """The round (from 1)."""
    turn: int
    """The turn in the round."""
    kind: DecisionKindName
    """``card`` or ``row`` (drafts are not reviewed)."""
    played: int
    """What the player chose."""
    best: int
    """What the expert would have chosen."""
    loss: float | None
    """What the choice gave away by the search's score (0 when it was the expert's)."""
    extra: float | None
    """Expected bullheads over the expert's choice."""
    win_lost: float | None
    """The win chance given away; null where only the round was rated."""
    advice: AdvicePayload
    """Every option with its numbers."""


class PlayerReviewPayload(Payload):
    """One seat's game in a few numbers (``nimmt.advice.PlayerReview``)."""

    seat: int
    """The seat, from 0."""
    name: str
    """The player's name in the record."""
    decisions: int
    """Decisions reviewed."""
    agreed: int
    """Those where the player chose as the expert would."""
    extra: float | None
    """Expected bullheads given away over the game."""
    total: int
    """The final total."""


class GameAnalysis(Payload):
    """``GET /api/games/{id}/analysis``: a finished game reviewed by the expert (the fields
    of ``nimmt analyse --json``, with the game's id)."""

    game: int
    """The game's id (as in ``/api/games/{id}``)."""
    language: str
    """The language of ``text``."""
    text: list[str]
    """The analysis in a few sentences, short enough to listen to: one per player, then
    the costliest decisions with what the expert would have played (first, for a partial
    analysis, that its time ran out)."""
    names: list[str]
    """The players' names by seat."""
    winners: list[int]
    """The winners' seats."""
    seed: int
    """The search's seed (the same record, seed and budget give the same analysis)."""
    rollouts: int
    """The search's budget per decision."""
    partial: bool
    """Whether the analysis's time ran out before every decision was reviewed: then
    ``decisions`` holds the game's first decisions only."""
    unreviewed: int
    """The decisions left out because the time ran out (0 when not ``partial``)."""
    players: list[PlayerReviewPayload]
    """One summary per seat."""
    costliest: list[int]
    """The ``index`` of the decisions that gave away most, largest first."""
    decisions: list[DecisionReviewPayload]
    """Every reviewed decision, in the game's order."""
