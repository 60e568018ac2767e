"""Typed events: what happened, in the order it happened.

Every decision returns the events it caused. Events feed records, narration,
the server's broadcasts and the clients. Most events are public; the few that
carry a secret (a dealt hand, a card chosen but not yet revealed) know how to
hide it from a viewer through :func:`for_viewer`, so that hidden information is
filtered in one place.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, replace
from typing import Any, ClassVar, Literal, TypeAlias

from .cards import Card

Rows: TypeAlias = tuple[tuple[Card, ...], ...]
Play: TypeAlias = tuple[int, Card]  # (player, card)


@dataclass(frozen=True, slots=True)
class RoundStarted:
    """A round begins for the ``players`` still in the game (seat numbers)."""

    round: int
    players: tuple[int, ...]
    deck_size: int
    type: ClassVar[str] = "round_started"


@dataclass(frozen=True, slots=True)
class HandDealt:
    """``player`` receives ``hand``. Secret unless ``public`` (open hands, logic draft)."""

    player: int
    hand: tuple[Card, ...]
    public: bool = False
    type: ClassVar[str] = "hand_dealt"


@dataclass(frozen=True, slots=True)
class DraftStarted:
    """Logic: the face-up ``pool`` is drafted in ``order`` (seats, repeated until 10 each)."""

    pool: tuple[Card, ...]
    first: int
    type: ClassVar[str] = "draft_started"


@dataclass(frozen=True, slots=True)
class CardDrafted:
    """Logic: ``player`` took ``card`` from the face-up pool."""

    player: int
    card: Card
    type: ClassVar[str] = "card_drafted"


@dataclass(frozen=True, slots=True)
class RowsDealt:
    """The four rows the round starts with (row 1 first)."""

    rows: Rows
    type: ClassVar[str] = "rows_dealt"


@dataclass(frozen=True, slots=True)
class TurnStarted:
    """Turn ``turn`` (1..10) of the round. ``marker`` is the first chooser in ``open``."""

    turn: int
    marker: int | None = None
    type: ClassVar[str] = "turn_started"


@dataclass(frozen=True, slots=True)
class CardChosen:
    """``player`` has chosen a card. ``card`` is ``None`` for viewers who may not see it."""

    player: int
    card: Card | None
    face_up: bool = False
    type: ClassVar[str] = "card_chosen"


@dataclass(frozen=True, slots=True)
class CardsRevealed:
    """All chosen cards, in the order they will be resolved."""

    plays: tuple[Play, ...]
    type: ClassVar[str] = "cards_revealed"


@dataclass(frozen=True, slots=True)
class RowChoiceNeeded:
    """``player`` must choose a row for ``card``: it is too low (``"too_low"``) or a joker."""

    player: int
    card: Card
    reason: Literal["too_low", "joker"]
    type: ClassVar[str] = "row_choice_needed"


@dataclass(frozen=True, slots=True)
class RowTaken:
    """``player`` takes the ``cards`` of row ``row`` (1..4) for ``bullheads`` points.

    ``reason``: ``"full"`` (the sixth card), ``"too_low"`` (a card below every row).
    """

    player: int
    row: int
    cards: tuple[Card, ...]
    bullheads: int
    reason: Literal["full", "too_low"]
    type: ClassVar[str] = "row_taken"


@dataclass(frozen=True, slots=True)
class CardPlaced:
    """``card`` of ``player`` now lies in row ``row`` (1..4) at its ``end``.

    ``started`` is true when the card starts the row anew after a take.
    """

    player: int
    card: Card
    row: int
    end: Literal["right", "left"] = "right"
    started: bool = False
    type: ClassVar[str] = "card_placed"


@dataclass(frozen=True, slots=True)
class RoundScored:
    """End of a round: this round's ``penalties`` and the new ``totals``, per seat."""

    round: int
    penalties: tuple[int, ...]
    totals: tuple[int, ...]
    type: ClassVar[str] = "round_scored"


@dataclass(frozen=True, slots=True)
class PlayerEliminated:
    """Elimination end: ``player`` reached the limit with ``total`` and gets no more cards."""

    player: int
    total: int
    type: ClassVar[str] = "player_eliminated"


@dataclass(frozen=True, slots=True)
class GameOver:
    """The game has ended; ``winners`` share the win."""

    winners: tuple[int, ...]
    totals: tuple[int, ...]
    type: ClassVar[str] = "game_over"


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
    cls.type: cls
    for cls in (
        RoundStarted,
        HandDealt,
        DraftStarted,
        CardDrafted,
        RowsDealt,
        TurnStarted,
        CardChosen,
        CardsRevealed,
        RowChoiceNeeded,
        RowTaken,
        CardPlaced,
        RoundScored,
        PlayerEliminated,
        GameOver,
    )
}


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
