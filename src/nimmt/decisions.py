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
from typing import Any, NamedTuple, TypeAlias

from .cards import Card
from .rows import RowReason
from .value import Value

__all__ = [
    "BY_MESSAGE",
    "CODECS",
    "DECISION_TYPES",
    "Decision",
    "DecisionCodec",
    "DecisionKind",
    "DraftCard",
    "Pending",
    "PlayCard",
    "TakeRow",
    "decision_from_dict",
    "decision_message",
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

class DecisionCodec(NamedTuple):
    """How one kind of decision is written, on every channel.

    The kind's value (``"card"``, ``"row"``, ``"draft"``) is its name in a prompt, a
    view's pending decision, an advice and a record; ``message`` is the client message
    that makes it (and the ``type`` of :func:`decision_to_dict`'s form); ``field`` names
    its value there (a card or a row).
    """

    kind: DecisionKind
    message: str
    field: str
    type: type[Decision]


#: Each kind of decision's codec: the one table of its names (see :class:`DecisionCodec`).
#: Keyed by the kind, which is a string, so a prompt's ``"row"`` finds its codec too.
CODECS: dict[str, DecisionCodec] = {
    DecisionKind.CARD: DecisionCodec(DecisionKind.CARD, "play_card", "card", PlayCard),
    DecisionKind.ROW: DecisionCodec(DecisionKind.ROW, "take_row", "row", TakeRow),
    DecisionKind.DRAFT: DecisionCodec(DecisionKind.DRAFT, "draft_card", "card", DraftCard),
}
#: The codecs by their client message's name (``"take_row"``).
BY_MESSAGE: dict[str, DecisionCodec] = {codec.message: codec for codec in CODECS.values()}
#: The class of each kind of decision.
DECISION_TYPES: dict[DecisionKind, type[Decision]] = {
    codec.kind: codec.type for codec in CODECS.values()}


def decision_message(kind: str, value: int) -> dict[str, Any]:
    """The client message that answers a prompt of ``kind`` with ``value`` (a card or a row).

    >>> decision_message("row", 2)
    {'type': 'take_row', 'row': 2}
    """
    codec = CODECS[kind]
    return {"type": codec.message, codec.field: value}


def make_decision(kind: DecisionKind, player: int, value: int) -> Decision:
    """The decision of ``kind`` by ``player``: ``value`` is a card, or a row for ``ROW``."""
    if kind is DecisionKind.CARD:
        return PlayCard(player, value)
    if kind is DecisionKind.ROW:
        return TakeRow(player, value)
    return DraftCard(player, value)


def decision_to_dict(decision: Decision) -> dict[str, Any]:
    """A JSON-ready dict with a ``type`` key; :func:`decision_from_dict` reads it back."""
    codec = CODECS[decision.kind]
    return {"type": codec.message, "player": decision.player, codec.field: decision.value}


def decision_from_dict(data: dict[str, Any]) -> Decision:
    """Inverse of :func:`decision_to_dict`; a :class:`ValueError` names what is wrong."""
    name = data.get("type")
    codec = BY_MESSAGE.get(name) if isinstance(name, str) else None
    if codec is None:
        raise ValueError(f"unknown decision type {name!r}; known: {', '.join(BY_MESSAGE)}")
    field = codec.field
    if set(data) != {"type", "player", field}:
        raise ValueError(f"a {name} decision has the fields type, player and {field}: {data!r}")
    player, value = data["player"], data[field]
    if type(player) is not int or type(value) is not int:
        raise ValueError(f"player and {field} of a decision are whole numbers: {data!r}")
    return make_decision(codec.kind, player, value)


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
