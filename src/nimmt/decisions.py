"""Decisions: the three things a player can be asked for, as typed values.

A decision is a :class:`PlayCard`, a :class:`TakeRow` or a :class:`DraftCard`
(docs/rules.md §5); :data:`Decision` is their union. The same values travel
everywhere a decision goes: a bot's answer becomes one, the engine applies
one (:meth:`~nimmt.engine.Game.decide`) and keeps it in its log
(:attr:`~nimmt.engine.Game.decisions`), a record writes and reads them, and
:func:`decision_to_dict` / :func:`decision_from_dict` are the JSON form for
any other channel. :class:`Pending` says which decision the game waits for.

>>> d = PlayCard(0, 55)
>>> d.kind, d.value, decision_to_dict(d)
(<DecisionKind.CARD: 'card'>, 55, {'type': 'play_card', 'player': 0, 'card': 55})
>>> decision_from_dict({"type": "take_row", "player": 2, "row": 4})
TakeRow(player=2, row=4)
>>> make_decision(DecisionKind.DRAFT, 1, 17)
DraftCard(player=1, card=17)
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import Any, TypeAlias

from .cards import Card
from .rows import RowReason
from .value import Value

__all__ = [
    "DECISION_TYPES",
    "Decision",
    "DecisionKind",
    "DraftCard",
    "Pending",
    "PlayCard",
    "TakeRow",
    "decision_from_dict",
    "decision_to_dict",
    "make_decision",
]


class DecisionKind(StrEnum):
    """The three kinds of decision a player can be asked for (docs/rules.md §5)."""

    CARD = "card"
    ROW = "row"
    DRAFT = "draft"


# Decisions are values like the events (see events.py): slotted, with an explicit
# __init__ that mypyc compiles to native code, since the engine logs one per decision.
@dataclass(slots=True, unsafe_hash=True, init=False)
class _CardDecision(Value):
    """What the two decisions naming a card share (not a decision itself)."""

    player: int
    card: Card

    def __init__(self, player: int, card: Card) -> None:
        self.player = player
        self.card = card

    @property
    def value(self) -> int:
        """The card."""
        return self.card


@dataclass(slots=True, unsafe_hash=True, init=False)
class PlayCard(_CardDecision):
    """``player`` chooses ``card`` for this turn."""

    @property
    def kind(self) -> DecisionKind:
        """:attr:`DecisionKind.CARD`."""
        return DecisionKind.CARD


@dataclass(slots=True, unsafe_hash=True, init=False)
class DraftCard(_CardDecision):
    """Logic: ``player`` takes ``card`` from the face-up pool."""

    @property
    def kind(self) -> DecisionKind:
        """:attr:`DecisionKind.DRAFT`."""
        return DecisionKind.DRAFT


@dataclass(slots=True, unsafe_hash=True, init=False)
class TakeRow(Value):
    """``player`` chooses row ``row`` (1..4) for the card waiting to be placed."""

    player: int
    row: int

    def __init__(self, player: int, row: int) -> None:
        self.player = player
        self.row = row

    @property
    def kind(self) -> DecisionKind:
        """:attr:`DecisionKind.ROW`."""
        return DecisionKind.ROW

    @property
    def value(self) -> int:
        """The row number."""
        return self.row


Decision: TypeAlias = PlayCard | TakeRow | DraftCard

#: The class of each kind of decision.
DECISION_TYPES: dict[DecisionKind, type[Decision]] = {
    DecisionKind.CARD: PlayCard,
    DecisionKind.ROW: TakeRow,
    DecisionKind.DRAFT: DraftCard,
}
# The JSON name of each decision, the ``type`` key of its dict form (the names
# of the server's client messages), and the name of its value field.
_WIRE: dict[DecisionKind, tuple[str, str]] = {
    DecisionKind.CARD: ("play_card", "card"),
    DecisionKind.ROW: ("take_row", "row"),
    DecisionKind.DRAFT: ("draft_card", "card"),
}
_BY_WIRE: dict[str, DecisionKind] = {name: kind for kind, (name, _) in _WIRE.items()}


def make_decision(kind: DecisionKind, player: int, value: int) -> Decision:
    """The decision of ``kind`` by ``player``: ``value`` is a card, or a row for ``ROW``."""
    if kind is DecisionKind.CARD:
        return PlayCard(player, value)
    if kind is DecisionKind.ROW:
        return TakeRow(player, value)
    return DraftCard(player, value)


def decision_to_dict(decision: Decision) -> dict[str, Any]:
    """A JSON-ready dict with a ``type`` key; :func:`decision_from_dict` reads it back."""
    name, field = _WIRE[decision.kind]
    return {"type": name, "player": decision.player, field: decision.value}


def decision_from_dict(data: dict[str, Any]) -> Decision:
    """Inverse of :func:`decision_to_dict`; a :class:`ValueError` names what is wrong."""
    name = data.get("type")
    kind = _BY_WIRE.get(name) if isinstance(name, str) else None
    if kind is None:
        raise ValueError(f"unknown decision type {name!r}; known: {', '.join(_BY_WIRE)}")
    field = _WIRE[kind][1]
    if set(data) != {"type", "player", field}:
        raise ValueError(f"a {name} decision has the fields type, player and {field}: {data!r}")
    player, value = data["player"], data[field]
    if type(player) is not int or type(value) is not int:
        raise ValueError(f"player and {field} of a decision are whole numbers: {data!r}")
    return make_decision(kind, player, value)


@dataclass(slots=True, init=False)
class Pending(Value):
    """The decision the game waits for.

    ``players`` are the seats that still have to decide: for the card choice
    every player who has not chosen yet (all at once; a player who has chosen
    may still change their card until the last one chooses); for a row choice
    or a draft pick, one player. For a row choice ``card`` is the card to place
    and ``reason`` says why the choice is needed. A value: never mutate it
    (not frozen only because it is created on the hot path).
    """

    kind: DecisionKind
    players: tuple[int, ...]
    card: Card | None = None
    reason: RowReason | None = None

    def __init__(
        self,
        kind: DecisionKind,
        players: tuple[int, ...],
        card: Card | None = None,
        reason: RowReason | None = None,
    ) -> None:
        self.kind = kind
        self.players = players
        self.card = card
        self.reason = reason
