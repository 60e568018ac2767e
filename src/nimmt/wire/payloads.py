"""What the server's messages carry about tables: seats, tables, prompts, stream items, and
the two builders a table calls per frame (:func:`view_payload`, :func:`event_payload`).

Every payload of a server message is a pydantic model, so the JSON Schema served at
``/protocol.json`` describes every field a client reads (each field's docstring is its
``description`` there) and a client parses typed values, not free-form dicts. The models
of the game's events and of the view are made from the engine's declarations
(:mod:`.derived`).

>>> from nimmt.events import CardChosen
>>> event_payload(CardChosen(2, None)).model_dump_json()
'{"type":"card_chosen","player":2,"card":null,"face_up":false}'
"""

from __future__ import annotations

import operator
from collections.abc import Callable
from typing import Annotated, Any, Literal, TypeAlias, cast

from pydantic import MISSING, Field

from .. import events as E
from ..cards import Card
from ..narrate import SeatMark
from ..record import DecisionKindName
from ..rows import RowReason
from ..views import View
from .base import Payload, build, changes, merged
from .derived import EVENT_MODELS, EventPayload, ViewChange, ViewPayload
from .game import PendingInfo, RulesInfo, rules_info

__all__ = [
    "ChatItem",
    "EventItem",
    "Item",
    "Line",
    "NoticeItem",
    "NoticeName",
    "NoticeReason",
    "Older",
    "Prompt",
    "SeatInfo",
    "TableInfo",
    "TableStatus",
    "event_payload",
    "merge_view",
    "view_change",
    "view_payload",
]

#: Where a table is in its life: seats being taken, a game under way, a game over (a
#: rematch may follow), closed.
TableStatus: TypeAlias = Literal["open", "playing", "over", "closed"]


# -- seats, tables -------------------------------------------------------------------------


class SeatInfo(Payload):
    """One seat: who sits there. ``auto`` is true while the default bot plays for them."""

    seat: int
    """The seat number, from 0."""
    name: str | None
    """The display name of whoever sits there; null for an empty seat."""
    kind: Literal["empty", "human", "bot"]
    """Who sits there: nobody, a person or a bot."""
    bot: str | None = None
    """The bot's name (strength) for a bot seat, else null."""
    connected: bool = False
    """Whether the person is connected (always true for a bot)."""
    auto: bool = False
    """Whether the default bot plays for this person now."""

    @property
    def presence(self) -> SeatMark:
        """Who sits here as key W tells it (:meth:`~nimmt.narrate.Narrator.who_sentence`)."""
        if self.kind == "empty":
            return "empty"
        if self.kind == "bot":
            return "bot"
        if self.auto:
            return "auto" if self.connected else "auto_away"
        return "here" if self.connected else "away"


class TableInfo(Payload):
    """The public facts of a table."""

    code: str
    """The table's short code (what ``join`` takes)."""
    name: str
    """The table's name (plain text); empty: its host did not name it, and a client says it
    after the host in its reader's language ("Ana's table")."""
    host: str | None
    """The host's display name, or null when the host has no seat."""
    rules: RulesInfo
    """The rules of the table's games."""
    rules_name: str
    """The rules in a few words (``classic``, ``category5+tactics``, …)."""
    status: TableStatus
    """``open`` before the first game, then ``playing`` or ``over``; ``closed`` at the end."""
    turn_timer: float | None
    """Seconds each person has per decision, or null for no timer."""
    listen_max: float = 0
    """With a turn timer: the most seconds a person's timer waits before it runs, while the
    narration of what led to the decision is said (at a screen reader's default pace; its
    end is the prompt's ``seconds`` minus ``turn_timer``); 0: it never waits."""
    rated: bool
    """Whether finished games change the players' ratings."""
    private: bool
    """Whether the table is left out of the lobby."""
    seats: list[SeatInfo]
    """Every seat, in order."""
    game_no: int
    """The number of the current game (0 before the first, then 1 and one more per
    rematch)."""
    spectators: int = 0
    """How many connections watch without a seat."""
    hints: bool = True
    """Whether a seated person may ask for a hint (``hint``): never in a rated game, and the
    host may turn hints off (``set_hints``)."""



class Prompt(Payload):
    """The decision asked of *you* now: ``options`` are legal cards or rows.

    ``key`` names this decision: it stays the same while the same decision is
    pending, so a client answers each key once (a card may still be changed).
    """

    kind: DecisionKindName
    """What to decide: ``card``, ``row`` or ``draft``."""
    key: str
    """The decision's name: the same while the same decision is pending."""
    options: tuple[int, ...]
    """The legal answers: cards, or row numbers (1..4) for a row choice."""
    card: Card | None = None
    """For a row choice: the card to place."""
    reason: RowReason | None = None
    """For a row choice: why a row must be chosen."""
    seconds: float | None = None
    """Seconds left on the turn timer; null when the table has no timer."""



# -- stream items -------------------------------------------------------------------------


class EventItem(Payload):
    """A game event, as the receiving seat may know it."""

    seq: int
    """The item's position in the table's stream."""
    kind: Literal["event"] = "event"
    """What the item is."""
    event: EventPayload
    """The event, filtered for you: a hand only its owner sees, a face-down card only
    its chooser."""


NoticeName: TypeAlias = Literal[
    "sat", "bot_added", "left", "removed", "kicked", "host", "started", "auto_on",
    "auto_off", "closed",
]
NoticeReason: TypeAlias = Literal["timeout", "left", "kicked", "disconnected", "took_over",
                                  "returned"]


class NoticeItem(Payload):
    """A change of the table (a seat taken, a game started, the default bot stepping in …).

    ``text`` says it in the connection's language, to this reader ("You sit in seat 2."
    to whoever sat); ``notice``, ``reason``, ``seat`` and ``name`` say what changed, for
    programs.
    """

    seq: int
    """The item's position in the table's stream."""
    kind: Literal["notice"] = "notice"
    """What the item is."""
    notice: NoticeName
    """What changed."""
    reason: NoticeReason | None = None
    """Why the default bot took a seat (``auto_on``: ``timeout``, ``left``, ``kicked``,
    ``disconnected``) or gave it back (``auto_off``: ``took_over`` when the person played,
    ``returned`` after the one decision a timeout gave it); else null."""
    seat: int | None = None
    """The seat it concerns, if any."""
    name: str | None = None
    """The name of whoever it concerns, if anyone."""
    text: str
    """The notice as a sentence in the connection's language (the server's narration)."""


class ChatItem(Payload):
    """A chat line (plain text: never render it as markup)."""

    seq: int
    """The item's position in the table's stream."""
    kind: Literal["chat"] = "chat"
    """What the item is."""
    seat: int | None
    """The seat of the speaker; null for a spectator."""
    name: str
    """The speaker's name."""
    text: str
    """What they said."""
    said: str
    """The line as a sentence in the connection's language: "Ana says: good luck"."""


Item: TypeAlias = Annotated[EventItem | NoticeItem | ChatItem, Field(discriminator="kind")]


class Older(Payload):
    """Items of the table's stream a frame left out: those with ``after < seq < before``.
    A catch-up carries the newest items only, and a page of history a bounded number:
    ask for the rest with ``history`` (``before_seq`` = ``before``, ``after_seq`` =
    ``after``), page by page."""

    after: int
    """The items left out come after this position (what the client said it had seen)."""
    before: int
    """... and before this one (the oldest item sent)."""


class Line(Payload):
    """One line of a page of history, said in the connection's language: a resolution
    step's narration, a notice or a chat line."""

    seq: int
    """The position of the item the line starts at (a step's first item)."""
    kind: Literal["event", "notice", "chat"]
    """What the line tells: game events (one resolution step), a notice, a chat line."""
    text: str
    """The line (the narration, the notice's ``text`` or the chat line's ``said``)."""


# -- builders -----------------------------------------------------------------------------

#: The view's fields the builder copies from the view as they are (all but ``player``,
#: ``rules``, ``rules_name`` and ``phase``, which it writes in the wire's shape).
_VIEW_COPIED = tuple(ViewPayload.model_fields)[3:]
_VIEW_GETTER = operator.attrgetter(*_VIEW_COPIED)


def view_payload(view: View, rules: RulesInfo | None = None) -> ViewPayload:
    """``view`` as its wire model, unvalidated (``rules``: its rules' model, when the
    caller keeps one). Only what the view holds goes out: the view is already the
    seat's share of the game (docs/rules.md §6)."""
    values = dict(zip(_VIEW_COPIED, _VIEW_GETTER(view), strict=True))
    values["phase"] = view.phase.value
    pending = view.pending
    if pending is not None:
        values["pending"] = build(PendingInfo, {
            "kind": pending.kind, "players": pending.players, "card": pending.card,
            "reason": pending.reason})
    return build(ViewPayload, {
        "player": view.player,
        "rules": rules if rules is not None else rules_info(view.rules),
        "rules_name": view.rules.name, **values})


def view_change(view: ViewPayload, before: ViewPayload | None) -> ViewChange:
    """The fields of ``view`` that differ from ``before`` (the view the reader has; None:
    none, so every field), unvalidated: a card chosen changes who has chosen and what is
    pending, not the rows, the hand or the turns revealed so far. A reveal adds a turn
    to ``revealed``: that turn alone is sent (``revealed_added``)."""
    change = changes(view, before, ViewChange)
    if before is None or change.revealed is MISSING:
        return change
    now, held = view.revealed, before.revealed
    if held and len(now) > len(held) and now[:len(held)] == held:
        values = dict(change.__dict__)
        values["revealed"] = MISSING
        values["revealed_added"] = now[len(held):]
        return build(ViewChange, values)
    return change


def merge_view(view: ViewPayload | None, change: ViewChange) -> ViewPayload:
    """``view`` (the last one a client holds) with ``change`` merged in: the view the
    server holds for that client (:func:`~.base.merged`)."""
    merged_view = merged(view, change, ViewPayload)
    added = change.revealed_added
    if added is MISSING:
        return merged_view
    values = dict(merged_view.__dict__)
    values["revealed"] = (*merged_view.revealed, *added)
    return build(ViewPayload, values)


def _getter(names: tuple[str, ...]) -> Callable[[Any], tuple[Any, ...]]:
    """A function giving the values of ``names`` of an object, as a tuple (fast: C)."""
    get = operator.attrgetter(*names)
    if len(names) == 1:
        return lambda obj: (get(obj),)
    return get


# Per event class: its model, its type name, the fields copied from the event and a
# getter of their values.
_EVENT_BUILD: dict[type, tuple[type[Payload], str, tuple[str, ...],
                               Callable[[Any], tuple[Any, ...]]]] = {}
for _cls, _model in EVENT_MODELS.items():
    _names = tuple(name for name in _model.model_fields if name != "type")
    _EVENT_BUILD[_cls] = (_model, _model.model_fields["type"].default, _names, _getter(_names))


def event_payload(event: E.Event) -> EventPayload:
    """The wire model of ``event`` (already filtered for its viewer), unvalidated: the one of
    :data:`~.derived.EventPayload` that the event's class says."""
    model, name, names, fields = _EVENT_BUILD[type(event)]
    values = {"type": name}  # first, as the model declares it (the JSON keeps this order)
    values.update(zip(names, fields(event), strict=True))
    return cast(EventPayload, build(model, values))
