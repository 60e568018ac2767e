"""Typed events: what happened, in the order it happened.

Every decision returns the events it caused. Events feed records, narration,
the server's broadcasts and the clients. Most events are public; the few that
carry a secret (a dealt hand, a card chosen but not yet revealed) know how to
hide it from a viewer through :func:`for_viewer`, so that hidden information is
filtered in one place.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, replace
from typing import Any, Literal, TypeAlias

from .cards import Card
from .rows import RowReason, Rows, TakeReason
from .value import Value


class EventBase(Value):
    """What every event has: its ``type`` name, the key of its JSON form."""

    __slots__ = ()

    @property
    def type(self) -> str:
        """The event's wire name, e.g. ``"card_placed"``."""
        return _TYPE_NAMES[self.__class__]


# Events are values: never mutate one. They are not ``frozen`` and spell out
# their ``__init__`` because the engine creates about a hundred per round:
# mypyc compiles an explicit ``__init__`` to native code, while the one that
# ``dataclass`` generates runs interpreted (about four times slower), and a
# frozen one costs three times more again.
Play: TypeAlias = tuple[int, Card]  # (player, card)


@dataclass(slots=True, unsafe_hash=True, init=False)
class RoundStarted(EventBase):
    """A round begins for the ``players`` still in the game (seat numbers)."""

    round: int
    """The round number, from 1."""
    players: tuple[int, ...]
    """The seats playing this round."""
    deck_size: int
    """Cards in the deck this round."""

    def __init__(self, round: int, players: tuple[int, ...], deck_size: int) -> None:
        self.round = round
        self.players = players
        self.deck_size = deck_size


@dataclass(slots=True, unsafe_hash=True, init=False)
class HandDealt(EventBase):
    """``player`` receives ``hand``. Secret unless ``public`` (open hands, logic draft)."""

    player: int
    """The seat dealt to."""
    hand: tuple[Card, ...]
    """The cards dealt."""
    public: bool = False
    """Whether every seat sees this hand (``open-hands``, the ``logic`` draft)."""

    def __init__(self, player: int, hand: tuple[Card, ...], public: bool = False) -> None:
        self.player = player
        self.hand = hand
        self.public = public


@dataclass(slots=True, unsafe_hash=True, init=False)
class DraftStarted(EventBase):
    """Logic: the face-up ``pool`` is drafted, seat ``first`` picking first."""

    pool: tuple[Card, ...]
    """The face-up cards to draft."""
    first: int
    """The seat that picks first."""

    def __init__(self, pool: tuple[Card, ...], first: int) -> None:
        self.pool = pool
        self.first = first


@dataclass(slots=True, unsafe_hash=True, init=False)
class CardDrafted(EventBase):
    """Logic: ``player`` took ``card`` from the face-up pool."""

    player: int
    """The seat that picked."""
    card: Card
    """The card taken."""

    def __init__(self, player: int, card: Card) -> None:
        self.player = player
        self.card = card


@dataclass(slots=True, unsafe_hash=True, init=False)
class RowsDealt(EventBase):
    """The four rows the round starts with (row 1 first)."""

    rows: Rows
    """The rows, row 1 first."""

    def __init__(self, rows: Rows) -> None:
        self.rows = rows


@dataclass(slots=True, unsafe_hash=True, init=False)
class TurnStarted(EventBase):
    """Turn ``turn`` (1..10) of the round. ``marker`` is the first chooser in ``open``."""

    turn: int
    """The turn number (1..10)."""
    marker: int | None = None
    """``open``: the seat choosing first this turn; else null."""

    def __init__(self, turn: int, marker: int | None = None) -> None:
        self.turn = turn
        self.marker = marker


@dataclass(slots=True, unsafe_hash=True, init=False)
class CardChosen(EventBase):
    """``player`` has chosen a card. ``card`` is ``None`` for viewers who may not see it."""

    player: int
    """The seat that chose."""
    card: Card | None
    """The card, only for its chooser and for cards chosen face up; else null."""
    face_up: bool = False
    """Whether the card was chosen face up (``open``)."""

    def __init__(self, player: int, card: Card | None, face_up: bool = False) -> None:
        self.player = player
        self.card = card
        self.face_up = face_up


@dataclass(slots=True, unsafe_hash=True, init=False)
class CardsRevealed(EventBase):
    """All chosen cards, in the order they will be resolved."""

    plays: tuple[Play, ...]
    """``[seat, card]`` pairs in resolution order."""

    def __init__(self, plays: tuple[Play, ...]) -> None:
        self.plays = plays


@dataclass(slots=True, unsafe_hash=True, init=False)
class RowChoiceNeeded(EventBase):
    """``player`` must choose a row for ``card``.

    ``reason``: ``"too_low"`` (below every row), ``"fits_no_end"`` (at neither
    end of any row, ``professional``) or ``"joker"`` (placed on a row of choice).
    """

    player: int
    """The seat that chooses."""
    card: Card
    """The card to place."""
    reason: RowReason
    """``too_low`` (below every row), ``fits_no_end`` (``professional``) or ``joker``."""

    def __init__(self, player: int, card: Card, reason: RowReason) -> None:
        self.player = player
        self.card = card
        self.reason = reason


@dataclass(slots=True, unsafe_hash=True, init=False)
class RowTaken(EventBase):
    """``player`` takes the ``cards`` of row ``row`` (1..4) for ``bullheads`` points.

    ``reason``: ``"full"`` (the sixth card), ``"too_low"`` (a card below every
    row) or ``"fits_no_end"`` (a card at neither end of any row, ``professional``).
    """

    player: int
    """The seat that takes."""
    row: int
    """The row number (1..4)."""
    cards: tuple[Card, ...]
    """The cards taken."""
    bullheads: int
    """Their penalty points."""
    reason: TakeReason
    """``full`` (a sixth card), ``too_low`` or ``fits_no_end``."""

    def __init__(
        self,
        player: int,
        row: int,
        cards: tuple[Card, ...],
        bullheads: int,
        reason: TakeReason,
    ) -> None:
        self.player = player
        self.row = row
        self.cards = cards
        self.bullheads = bullheads
        self.reason = reason


@dataclass(slots=True, unsafe_hash=True, init=False)
class CardPlaced(EventBase):
    """``card`` of ``player`` now lies in row ``row`` (1..4) at its ``end``.

    ``started`` is true when the card starts the row anew after a take.
    """

    player: int
    """The seat whose card it is."""
    card: Card
    """The card."""
    row: int
    """The row number (1..4)."""
    end: Literal["right", "left"] = "right"
    """The end of the row it lies at (``left`` only in ``professional``)."""
    started: bool = False
    """Whether it starts the row anew after a take."""

    def __init__(
        self,
        player: int,
        card: Card,
        row: int,
        end: Literal["right", "left"] = "right",
        started: bool = False,
    ) -> None:
        self.player = player
        self.card = card
        self.row = row
        self.end = end
        self.started = started


@dataclass(slots=True, unsafe_hash=True, init=False)
class RoundScored(EventBase):
    """End of a round: this round's ``penalties`` and the new ``totals``, per seat."""

    round: int
    """The round that ended."""
    penalties: tuple[int, ...]
    """This round's penalties, per seat."""
    totals: tuple[int, ...]
    """The totals after the round, per seat."""

    def __init__(self, round: int, penalties: tuple[int, ...], totals: tuple[int, ...]) -> None:
        self.round = round
        self.penalties = penalties
        self.totals = totals


@dataclass(slots=True, unsafe_hash=True, init=False)
class PlayerEliminated(EventBase):
    """Elimination end: ``player`` reached the limit with ``total`` and gets no more cards."""

    player: int
    """The seat eliminated."""
    total: int
    """Its total."""

    def __init__(self, player: int, total: int) -> None:
        self.player = player
        self.total = total


@dataclass(slots=True, unsafe_hash=True, init=False)
class GameOver(EventBase):
    """The game has ended; ``winners`` share the win."""

    winners: tuple[int, ...]
    """The winning seats (they share the win)."""
    totals: tuple[int, ...]
    """The final totals, per seat."""

    def __init__(self, winners: tuple[int, ...], totals: tuple[int, ...]) -> None:
        self.winners = winners
        self.totals = totals


Event: TypeAlias = (
    RoundStarted
    | HandDealt
    | DraftStarted
    | CardDrafted
    | RowsDealt
    | TurnStarted
    | CardChosen
    | CardsRevealed
    | RowChoiceNeeded
    | RowTaken
    | CardPlaced
    | RoundScored
    | PlayerEliminated
    | GameOver
)

EVENT_TYPES: dict[str, type[Event]] = {
    "round_started": RoundStarted,
    "hand_dealt": HandDealt,
    "draft_started": DraftStarted,
    "card_drafted": CardDrafted,
    "rows_dealt": RowsDealt,
    "turn_started": TurnStarted,
    "card_chosen": CardChosen,
    "cards_revealed": CardsRevealed,
    "row_choice_needed": RowChoiceNeeded,
    "row_taken": RowTaken,
    "card_placed": CardPlaced,
    "round_scored": RoundScored,
    "player_eliminated": PlayerEliminated,
    "game_over": GameOver,
}
_TYPE_NAMES: dict[type, str] = {cls: name for name, cls in EVENT_TYPES.items()}


def for_viewer(event: Event, viewer: int | None) -> Event | None:
    """The event as ``viewer`` (a seat, or ``None`` for a spectator) may see it.

    A secret hand is dropped for everyone but its owner; a card chosen face
    down loses its card for everyone but its chooser.

    >>> for_viewer(CardChosen(1, 40), 2)
    CardChosen(player=1, card=None, face_up=False)
    >>> for_viewer(HandDealt(1, (3, 4)), 2) is None
    True
    """
    if type(event) is HandDealt:
        return event if event.public or viewer == event.player else None
    if type(event) is CardChosen:
        if event.face_up or viewer == event.player or event.card is None:
            return event
        return replace(event, card=None)
    return event


def event_to_dict(event: Event) -> dict[str, Any]:
    """A JSON-ready dict with a ``type`` key; :func:`event_from_dict` reads it back."""
    data = asdict(event)
    data["type"] = event.type
    return data


def event_from_dict(data: dict[str, Any]) -> Event:
    """Inverse of :func:`event_to_dict`."""
    fields = dict(data)
    cls = EVENT_TYPES[fields.pop("type")]
    for key, value in fields.items():
        if isinstance(value, list):
            fields[key] = _tuples(value)
    return cls(**fields)


def _tuples(value: Any) -> Any:
    return tuple(_tuples(v) for v in value) if isinstance(value, list) else value
