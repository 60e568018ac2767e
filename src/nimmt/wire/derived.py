"""The wire models of the game's own values: each event of :mod:`nimmt.events` and
the view of :mod:`nimmt.views`, with each field's type, default and description as
declared there.

Written by :mod:`nimmt.wire.derive` (``scripts/wire-types``): never edit it by hand.
"""

from __future__ import annotations

from typing import Annotated, Literal, TypeAlias

from pydantic import MISSING, Field

from .. import events as E
from ..cards import Card
from ..events import Play
from ..rows import RowReason, Rows, TakeReason
from .base import Payload
from .game import PendingInfo, RulesInfo

__all__ = [
    "EVENT_MODELS",
    "CardChosen",
    "CardDrafted",
    "CardPlaced",
    "CardsRevealed",
    "DraftStarted",
    "EventPayload",
    "GameOver",
    "HandDealt",
    "PlayerEliminated",
    "RoundScored",
    "RoundStarted",
    "RowChoiceNeeded",
    "RowTaken",
    "RowsDealt",
    "TurnStarted",
    "ViewChange",
    "ViewPayload",
]


class RoundStarted(Payload):
    """A round begins for the ``players`` still in the game (seat numbers)."""

    type: Literal["round_started"] = "round_started"
    """The event's name."""
    round: int
    """The round number, from 1."""
    players: tuple[int, ...]
    """The seats playing this round."""
    deck_size: int
    """Cards in the deck this round."""


class HandDealt(Payload):
    """``player`` receives ``hand``. Secret unless ``public`` (open hands, logic draft)."""

    type: Literal["hand_dealt"] = "hand_dealt"
    """The event's name."""
    player: int
    """The seat dealt to."""
    hand: tuple[Card, ...]
    """The cards dealt."""
    public: bool = False
    """Whether every seat sees this hand (``open-hands``, the ``logic`` draft)."""


class DraftStarted(Payload):
    """Logic: the face-up ``pool`` is drafted, seat ``first`` picking first."""

    type: Literal["draft_started"] = "draft_started"
    """The event's name."""
    pool: tuple[Card, ...]
    """The face-up cards to draft."""
    first: int
    """The seat that picks first."""


class CardDrafted(Payload):
    """Logic: ``player`` took ``card`` from the face-up pool."""

    type: Literal["card_drafted"] = "card_drafted"
    """The event's name."""
    player: int
    """The seat that picked."""
    card: Card
    """The card taken."""


class RowsDealt(Payload):
    """The four rows the round starts with (row 1 first)."""

    type: Literal["rows_dealt"] = "rows_dealt"
    """The event's name."""
    rows: Rows
    """The rows, row 1 first."""


class TurnStarted(Payload):
    """Turn ``turn`` (1..10) of the round. ``marker`` is the first chooser in ``open``."""

    type: Literal["turn_started"] = "turn_started"
    """The event's name."""
    turn: int
    """The turn number (1..10)."""
    marker: int | None = None
    """``open``: the seat choosing first this turn; else null."""


class CardChosen(Payload):
    """``player`` has chosen a card. ``card`` is ``None`` for viewers who may not see it."""

    type: Literal["card_chosen"] = "card_chosen"
    """The event's name."""
    player: int
    """The seat that chose."""
    card: Card | None
    """The card, only for its chooser and for cards chosen face up; else null."""
    face_up: bool = False
    """Whether the card was chosen face up (``open``)."""


class CardsRevealed(Payload):
    """All chosen cards, in the order they will be resolved."""

    type: Literal["cards_revealed"] = "cards_revealed"
    """The event's name."""
    plays: tuple[Play, ...]
    """``[seat, card]`` pairs in resolution order."""


class RowChoiceNeeded(Payload):
    """``player`` must choose a row for ``card``.

    ``reason``: ``"too_low"`` (below every row), ``"fits_no_end"`` (at neither
    end of any row, ``professional``) or ``"joker"`` (placed on a row of choice)."""

    type: Literal["row_choice_needed"] = "row_choice_needed"
    """The event's name."""
    player: int
    """The seat that chooses."""
    card: Card
    """The card to place."""
    reason: RowReason
    """``too_low`` (below every row), ``fits_no_end`` (``professional``) or ``joker``."""


class RowTaken(Payload):
    """``player`` takes the ``cards`` of row ``row`` (1..4) for ``bullheads`` points.

    ``reason``: ``"full"`` (the sixth card), ``"too_low"`` (a card below every
    row) or ``"fits_no_end"`` (a card at neither end of any row, ``professional``)."""

    type: Literal["row_taken"] = "row_taken"
    """The event's name."""
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


class CardPlaced(Payload):
    """``card`` of ``player`` now lies in row ``row`` (1..4) at its ``end``.

    ``started`` is true when the card starts the row anew after a take."""

    type: Literal["card_placed"] = "card_placed"
    """The event's name."""
    player: int
    """The seat whose card it is."""
    card: Card
    """The card."""
    row: int
    """The row number (1..4)."""
    end: Literal['right', 'left'] = "right"
    """The end of the row it lies at (``left`` only in ``professional``)."""
    started: bool = False
    """Whether it starts the row anew after a take."""


class RoundScored(Payload):
    """End of a round: this round's ``penalties`` and the new ``totals``, per seat."""

    type: Literal["round_scored"] = "round_scored"
    """The event's name."""
    round: int
    """The round that ended."""
    penalties: tuple[int, ...]
    """This round's penalties, per seat."""
    totals: tuple[int, ...]
    """The totals after the round, per seat."""


class PlayerEliminated(Payload):
    """Elimination end: ``player`` reached the limit with ``total`` and gets no more cards."""

    type: Literal["player_eliminated"] = "player_eliminated"
    """The event's name."""
    player: int
    """The seat eliminated."""
    total: int
    """Its total."""


class GameOver(Payload):
    """The game has ended; ``winners`` share the win."""

    type: Literal["game_over"] = "game_over"
    """The event's name."""
    winners: tuple[int, ...]
    """The winning seats (they share the win)."""
    totals: tuple[int, ...]
    """The final totals, per seat."""


class ViewPayload(Payload):
    """One seat's view of the game (docs/rules.md §6): everything it may know, nothing more.

    A spectator's view (``player`` null) holds the public part only."""

    player: int | None
    """The seat this view is for; null for a spectator."""
    rules: RulesInfo
    """The rules of this game."""
    rules_name: str
    """The rules in a few words."""
    phase: Literal["draft", "choose", "row", "deal", "over"]
    """Where the game stands."""
    pending: PendingInfo | None
    """The decision the game waits for; null when it waits for none."""
    round: int
    """The round number, from 1."""
    turn: int
    """The turn within the round (1..10); 0 between rounds and during a draft."""
    options: tuple[int, ...]
    """Your legal options now: cards, or row numbers for a row choice."""
    hand: tuple[Card, ...]
    """Your hand (empty for a spectator)."""
    my_choice: Card | None
    """The card you chose this turn and may still change; null if none."""
    rows: Rows
    """The four rows, row 1 first, each from its left end."""
    scores: tuple[int, ...]
    """Totals per seat before this round's penalties."""
    penalties: tuple[int, ...]
    """This round's penalties so far, per seat."""
    totals: tuple[int, ...]
    """Per seat: its points now, this round's penalties counted (once the game is over,
    ``scores`` hold the last round already)."""
    taken: tuple[tuple[Card, ...], ...]
    """The cards each seat has taken this round."""
    hand_sizes: tuple[int, ...]
    """How many cards each seat holds."""
    chosen: tuple[bool, ...]
    """Per seat: has chosen this turn's card (not what, unless face up)."""
    face_up: tuple[Card | None, ...]
    """Per seat: the card chosen face up this turn (``open``), else null."""
    revealed: tuple[tuple[Play, ...], ...]
    """Every turn's revealed plays this round, in resolution order."""
    to_resolve: tuple[Play, ...]
    """Revealed plays not yet placed; the first may wait for a row choice."""
    hands: tuple[tuple[Card, ...], ...] | None
    """Every hand, where hands are public (``open-hands``, the ``logic`` draft); else null."""
    active: tuple[int, ...]
    """The seats playing this round."""
    eliminated: tuple[bool, ...]
    """Per seat: out of the game (elimination end)."""
    has_joker: tuple[bool, ...]
    """Per seat: still holds their joker (``jokers``)."""
    marker: int | None
    """``open``: the seat holding the first-player marker this turn; else null."""
    draft_pool: tuple[Card, ...]
    """``logic``: the face-up cards still to draft."""
    winners: tuple[int, ...]
    """The winning seats once the game is over; empty before."""
    places: tuple[int, ...]
    """Per seat: its place in the standings, from 1. The winners come first (with the
    elimination end, the last one in may have more points than one out before,
    docs/rules.md §3), then the fewest points; seats that tie share a place and the
    next place is skipped (1, 1, 3). Both clients' results show these places."""


class ViewChange(Payload):
    """The fields of your :class:`ViewPayload` that changed since the last view
    sent to you (``table_state``'s, or the last ``events``'): a field left out
    holds what it held. A client keeps the view of the last ``table_state`` and
    merges each change into it (docs/protocol.md); a catch-up's holds every
    field."""

    player: int | MISSING | None = MISSING
    """The seat this view is for; null for a spectator."""
    rules: RulesInfo | MISSING = MISSING
    """The rules of this game."""
    rules_name: str | MISSING = MISSING
    """The rules in a few words."""
    phase: Literal["draft", "choose", "row", "deal", "over"] | MISSING = MISSING
    """Where the game stands."""
    pending: PendingInfo | MISSING | None = MISSING
    """The decision the game waits for; null when it waits for none."""
    round: int | MISSING = MISSING
    """The round number, from 1."""
    turn: int | MISSING = MISSING
    """The turn within the round (1..10); 0 between rounds and during a draft."""
    options: tuple[int, ...] | MISSING = MISSING
    """Your legal options now: cards, or row numbers for a row choice."""
    hand: tuple[Card, ...] | MISSING = MISSING
    """Your hand (empty for a spectator)."""
    my_choice: Card | MISSING | None = MISSING
    """The card you chose this turn and may still change; null if none."""
    rows: Rows | MISSING = MISSING
    """The four rows, row 1 first, each from its left end."""
    scores: tuple[int, ...] | MISSING = MISSING
    """Totals per seat before this round's penalties."""
    penalties: tuple[int, ...] | MISSING = MISSING
    """This round's penalties so far, per seat."""
    totals: tuple[int, ...] | MISSING = MISSING
    """Per seat: its points now, this round's penalties counted (once the game is over,
    ``scores`` hold the last round already)."""
    taken: tuple[tuple[Card, ...], ...] | MISSING = MISSING
    """The cards each seat has taken this round."""
    hand_sizes: tuple[int, ...] | MISSING = MISSING
    """How many cards each seat holds."""
    chosen: tuple[bool, ...] | MISSING = MISSING
    """Per seat: has chosen this turn's card (not what, unless face up)."""
    face_up: tuple[Card | None, ...] | MISSING = MISSING
    """Per seat: the card chosen face up this turn (``open``), else null."""
    revealed: tuple[tuple[Play, ...], ...] | MISSING = MISSING
    """Every turn's revealed plays this round, in resolution order."""
    to_resolve: tuple[Play, ...] | MISSING = MISSING
    """Revealed plays not yet placed; the first may wait for a row choice."""
    hands: tuple[tuple[Card, ...], ...] | MISSING | None = MISSING
    """Every hand, where hands are public (``open-hands``, the ``logic`` draft); else null."""
    active: tuple[int, ...] | MISSING = MISSING
    """The seats playing this round."""
    eliminated: tuple[bool, ...] | MISSING = MISSING
    """Per seat: out of the game (elimination end)."""
    has_joker: tuple[bool, ...] | MISSING = MISSING
    """Per seat: still holds their joker (``jokers``)."""
    marker: int | MISSING | None = MISSING
    """``open``: the seat holding the first-player marker this turn; else null."""
    draft_pool: tuple[Card, ...] | MISSING = MISSING
    """``logic``: the face-up cards still to draft."""
    winners: tuple[int, ...] | MISSING = MISSING
    """The winning seats once the game is over; empty before."""
    places: tuple[int, ...] | MISSING = MISSING
    """Per seat: its place in the standings, from 1. The winners come first (with the
    elimination end, the last one in may have more points than one out before,
    docs/rules.md §3), then the fewest points; seats that tie share a place and the
    next place is skipped (1, 1, 3). Both clients' results show these places."""
    revealed_added: tuple[tuple[Play, ...], ...] | MISSING = MISSING
    """The turns revealed since the view you hold, to append to its ``revealed``
    (sent instead of ``revealed`` when that only grew)."""


#: The model of any event, by its ``type``.
EventPayload: TypeAlias = Annotated[
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
    | GameOver,
    Field(discriminator="type"),
]
#: The wire model of each event class.
EVENT_MODELS: dict[type[E.Event], type[Payload]] = {
    E.RoundStarted: RoundStarted,
    E.HandDealt: HandDealt,
    E.DraftStarted: DraftStarted,
    E.CardDrafted: CardDrafted,
    E.RowsDealt: RowsDealt,
    E.TurnStarted: TurnStarted,
    E.CardChosen: CardChosen,
    E.CardsRevealed: CardsRevealed,
    E.RowChoiceNeeded: RowChoiceNeeded,
    E.RowTaken: RowTaken,
    E.CardPlaced: CardPlaced,
    E.RoundScored: RoundScored,
    E.PlayerEliminated: PlayerEliminated,
    E.GameOver: GameOver,
}
