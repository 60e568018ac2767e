"""What the server's messages carry: views, game events, prompts, stream items, tables.

Every payload of a server message is a pydantic model here, so the JSON Schema
served at ``/protocol.json`` describes every field a client reads (each field's
docstring is its ``description`` there) and a client parses typed values, not
free-form dicts. The model of each game event (:data:`EventPayload`, discriminated
by ``type``) is made from its class in :mod:`nimmt.events`: its fields, types,
defaults and descriptions (the fields' docstrings there) are declared once.

Building them costs nothing it need not: the server's data is trusted (it comes
from the engine), so the builders below make models without validation
(:func:`build`) and keep the engine's tuples as they are (serialized as JSON
arrays); the models validate only what a client parses.

>>> from nimmt.events import CardChosen
>>> event_payload(CardChosen(2, None)).model_dump_json()
'{"type":"card_chosen","player":2,"card":null,"face_up":false}'
"""

from __future__ import annotations

import ast
import dataclasses
import inspect
import itertools
import operator
from collections.abc import Callable, Sequence
from pathlib import Path
from types import ModuleType
from typing import (
    TYPE_CHECKING,
    Annotated,
    Any,
    Literal,
    TypeAlias,
    TypeVar,
    Union,
    cast,
    get_type_hints,
)

from pydantic import MISSING, BaseModel, ConfigDict, Field, create_model

from .. import events as E
from .. import views
from ..cards import Card
from ..decisions import DecisionKind
from ..narrate import Narrator, SeatMark, narrator
from ..record import DecisionKindName
from ..rows import RowReason
from ..rules import Rules
from ..views import Phase, View

__all__ = [
    "EVENT_MODELS",
    "AdvicePayload",
    "ChatItem",
    "DecisionReviewPayload",
    "EventItem",
    "EventPayload",
    "GameAnalysis",
    "Item",
    "Line",
    "NoticeItem",
    "Older",
    "OptionAdvice",
    "PendingInfo",
    "PlayerReviewPayload",
    "Prompt",
    "RulesInfo",
    "SeatInfo",
    "Sheet",
    "SheetChange",
    "TableInfo",
    "TableStatus",
    "ViewPayload",
    "build",
    "dump",
    "event_payload",
    "merge_sheet",
    "rules_info",
    "sheet_change",
    "sheet_payload",
    "table_sheet",
    "view_payload",
]

#: Where a table is in its life: seats being taken, a game under way, a game over (a
#: rematch may follow), closed.
TableStatus: TypeAlias = Literal["open", "playing", "over", "closed"]

_CONFIG = ConfigDict(extra="forbid", use_attribute_docstrings=True)
M = TypeVar("M", bound=BaseModel)


class _Payload(BaseModel):
    model_config = _CONFIG


# -- rules, seats, tables ------------------------------------------------------------------


class RulesInfo(_Payload):
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


class SeatInfo(_Payload):
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


class TableInfo(_Payload):
    """The public facts of a table."""

    code: str
    """The table's short code (what ``join`` takes)."""
    name: str
    """The table's name (plain text)."""
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


class _Declared:
    """Each field (and property) of each class of a module, as its source declares it:
    the annotation (resolved in the module) and the docstring under it.

    Read from the source file, not from the classes: the compiled engine (mypyc) keeps
    its ``.py`` sources beside its extension modules, but its classes keep neither
    attribute docstrings nor their annotations (``int | None`` becomes ``type``), and a
    wire model made from those would refuse a null ``marker``."""

    def __init__(self, module: ModuleType) -> None:
        path = Path(module.__file__ or "")
        source = path.with_name(path.name.split(".")[0] + ".py")
        if not source.is_file():
            raise ImportError(f"the wire models are made from {source}, which is missing")
        tree = ast.parse(source.read_text("utf-8"))
        self.types: dict[str, dict[str, Any]] = {}
        self.docs: dict[str, dict[str, str]] = {}
        for node in tree.body:
            if not isinstance(node, ast.ClassDef):
                continue
            fields = [f for f in node.body
                      if isinstance(f, ast.AnnAssign) and isinstance(f.target, ast.Name)]
            props = [f for f in node.body if isinstance(f, ast.FunctionDef) and f.returns
                     and any(ast.unparse(d) == "property" for d in f.decorator_list)]
            # The annotations as the source writes them, resolved in the module by
            # typing on a stand-in class (as it resolves the pure build's own).
            written = {cast(ast.Name, f.target).id: ast.unparse(f.annotation) for f in fields}
            written.update((f.name, ast.unparse(cast(ast.expr, f.returns))) for f in props)
            stand_in = type(node.name, (), {"__annotations__": written,
                                            "__module__": module.__name__})
            self.types[node.name] = get_type_hints(stand_in)
            self.docs[node.name] = {
                field.target.id: inspect.cleandoc(after.value.value)
                for field, after in itertools.pairwise(node.body)
                if isinstance(field, ast.AnnAssign) and isinstance(field.target, ast.Name)
                and isinstance(after, ast.Expr) and isinstance(after.value, ast.Constant)
                and isinstance(after.value.value, str)}
            self.docs[node.name].update(
                (f.name, inspect.cleandoc(ast.get_docstring(f) or "")) for f in props)



# -- the view -----------------------------------------------------------------------------


class PendingInfo(_Payload):
    """The decision the game waits for, and from whom."""

    kind: DecisionKindName
    """``card`` (choose this turn's card), ``row`` (take a row) or ``draft`` (logic)."""
    players: tuple[int, ...]
    """The seats that still have to decide."""
    card: Card | None
    """For a row choice: the card to place; else null."""
    reason: RowReason | None
    """For a row choice: why a row must be chosen; else null."""


#: What a view sends, in order: the engine's own fields and properties of a view
#: (:class:`nimmt.views.View` and its :class:`~nimmt.views.Table`), each with the type and
#: the description declared there, and ``rules_name``. The draft's first picker stays
#: home: the narration says it as it happens.
VIEW_FIELDS: tuple[str, ...] = (
    "player", "rules", "rules_name", "phase", "pending", "round", "turn", "options", "hand",
    "my_choice", "rows", "scores", "penalties", "totals", "taken", "hand_sizes", "chosen",
    "face_up", "revealed", "to_resolve", "hands", "active", "eliminated", "has_joker", "marker",
    "draft_pool", "winners", "places")
#: Where the wire says a view's fact in its own shape (the engine's value has no JSON).
_VIEW_WIRE: dict[str, tuple[Any, str | None]] = {
    "rules": (RulesInfo, None),
    "rules_name": (str, "The rules in a few words."),
    "phase": (Literal[tuple(phase.value for phase in Phase)], None),
    "pending": (PendingInfo | None, None),
}


def _view_model() -> type[_Payload]:
    declared = _Declared(views)
    # The table's own declarations over the view's properties that pass them through.
    types = {**declared.types["View"], **declared.types["Table"]}
    docs = {**declared.docs["View"], **declared.docs["Table"]}
    fields: dict[str, Any] = {}
    for name in VIEW_FIELDS:
        kind, doc = _VIEW_WIRE.get(name, (types.get(name), None))
        fields[name] = (kind, Field(description=doc or docs[name]))
    model: type[_Payload] = create_model(
        "ViewPayload", __base__=_Payload, __module__=__name__, __doc__=(
            "One seat's view of the game (docs/rules.md §6): everything it may know, "
            "nothing more.\n\nA spectator's view (``player`` null) holds the public part "
            "only."), **fields)
    return model


if TYPE_CHECKING:
    class ViewPayload(_Payload):
        """The view's wire model (made by :func:`_view_model`)."""

        def __getattr__(self, name: str) -> Any: ...
else:
    ViewPayload = _view_model()


class Sheet(_Payload):
    """What a client's shortcuts say about the table as it is now (docs/rules.md §9), in the
    language of the connection's ``hello``: sent with the view, so a key is answered at
    once, without asking the server. Before a table's first game (no view) only ``who``
    (the seats) and ``rules`` say something; the other fields are empty (``""``, ``[]``,
    null)."""

    rows: str
    """Key V: every row."""
    row: tuple[str, ...]
    """Keys 1–4: each row, row 1 first."""
    row_bullheads: tuple[str, ...]
    """Key C on a row: its bullheads, row 1 first."""
    cards: tuple[tuple[Card, str], ...]
    """Key C on a card of the hand (or of the draft pool): ``[card, sentence]`` pairs."""
    chosen: str
    """Key T: who has chosen this turn's card and who has not."""
    scores: str
    """Key S: the scores."""
    who: str
    """Key W: who is at the table, in seat order, with their bullheads this game (before a
    game, each seat and who sits there), and who is a bot, away or played by the default
    bot."""
    hand: str | None
    """Key A: the hand, and the card chosen this turn (a spectator's says they have none;
    null from servers before it did)."""
    decision: str | None
    """The decision asked of this seat, with what each answer costs; null if none. A card
    choice does not list the hand (``hand`` says it, on demand)."""
    decision_with_hand: str | None
    """``decision`` with the hand listed for a card choice, for a reader who types the
    card's number from the sentence (a line-mode terminal)."""
    timer: tuple[str, ...]
    """The warning when 1..10 seconds are left: the first for 1 second, the last for 10."""
    idle: str
    """The answer to a move made when nothing is asked of this seat: that nothing is, and
    whom the table waits for."""
    rules: str
    """The rules in a sentence."""

    @classmethod
    def empty(cls, who: str = "", rules: str = "") -> Sheet:
        """A sheet with nothing to say about a game: a client's before its first frame, or
        (given key W's ``who`` and the ``rules``) a table's before its first game."""
        return build(cls, {"rows": "", "row": (), "row_bullheads": (), "cards": (),
                           "chosen": "", "scores": "", "who": who, "hand": None, "decision": None,
                           "decision_with_hand": None, "timer": (), "idle": "", "rules": rules})

    def card(self, card: Card) -> str | None:
        """Key C's answer on ``card`` of the hand or the pool; None for another card."""
        return next((text for c, text in self.cards if c == card), None)

    @property
    def typed_decision(self) -> str | None:
        """The decision as a reader who types the card's number hears it (the hand listed)."""
        return self.decision_with_hand or self.decision


class SheetChange(_Payload):
    """The fields of the :class:`Sheet` that changed since the last sheet this connection was
    sent (``table_state``'s, or the last ``events``'): a field left out says what it said.
    The first sheet after a ``table_state``-less start (a catch-up) holds every field.
    A client keeps the sheet of the last ``table_state`` and merges each change into it
    (docs/protocol.md); the fields mean what :class:`Sheet`'s do."""

    rows: str | MISSING = MISSING
    row: tuple[str, ...] | MISSING = MISSING
    row_bullheads: tuple[str, ...] | MISSING = MISSING
    cards: tuple[tuple[Card, str], ...] | MISSING = MISSING
    chosen: str | MISSING = MISSING
    scores: str | MISSING = MISSING
    who: str | MISSING = MISSING
    hand: str | MISSING | None = MISSING
    decision: str | MISSING | None = MISSING
    decision_with_hand: str | MISSING | None = MISSING
    timer: tuple[str, ...] | MISSING = MISSING
    idle: str | MISSING = MISSING
    rules: str | MISSING = MISSING


# Each field of a change is described as the sheet's (one text for both, in the schema).
for _name, _field in SheetChange.model_fields.items():
    _field.description = Sheet.model_fields[_name].description
SheetChange.model_rebuild(force=True)
#: The sheet's fields, in order.
SHEET_FIELDS: tuple[str, ...] = tuple(Sheet.model_fields)


def sheet_change(sheet: Sheet, before: Sheet | None) -> SheetChange:
    """The fields of ``sheet`` that differ from ``before`` (the sheet the reader has; None:
    none, so every field), unvalidated. Sentences a table keeps are shared objects
    (:class:`SheetMemo`), so an unchanged field is nearly always the same object."""
    now = sheet.__dict__
    if before is None:
        return build(SheetChange, dict(now))
    was = before.__dict__
    values: dict[str, Any] = {}
    for name in SHEET_FIELDS:
        value = now[name]
        old = was[name]
        values[name] = MISSING if value is old or value == old else value
    return build(SheetChange, values)


def merge_sheet(sheet: Sheet | None, change: SheetChange) -> Sheet:
    """``sheet`` (the last one a client holds; None: none yet) with ``change`` merged in:
    the sheet the server holds for that client. A change that leaves out a field of a
    client with no sheet is refused (``ValueError``). Both were validated as they were
    parsed, so the merge is not validated again."""
    values = {} if sheet is None else dict(sheet.__dict__)
    for name in SHEET_FIELDS:
        value = getattr(change, name)
        if value is not MISSING:
            values[name] = value
    missing = [name for name in SHEET_FIELDS if name not in values]
    if missing:
        raise ValueError(f"a sheet change without a sheet to merge into lacks {missing}")
    return build(Sheet, values)


class Prompt(_Payload):
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


# -- game events: one model per class of nimmt.events ------------------------------------------


def _event_model(name: str, cls: type[E.Event], declared: _Declared) -> type[_Payload]:
    """The wire model of event class ``cls`` (``type`` ``name``): its fields, types,
    defaults and docstrings, as declared in :mod:`nimmt.events`, after the ``type``."""
    hints = declared.types[cls.__name__]
    docs = declared.docs.get(cls.__name__, {})
    fields: dict[str, Any] = {
        "type": (Literal[name], Field(name, description="The event's name."))}
    for f in dataclasses.fields(cls):
        default = ... if f.default is dataclasses.MISSING else f.default
        fields[f.name] = (hints[f.name], Field(default, description=docs.get(f.name)))
    model: type[_Payload] = create_model(
        cls.__name__, __base__=_Payload, __doc__=cls.__doc__, __module__=__name__, **fields)
    return model


_DECLARED = _Declared(E)
#: The wire model of each event class, made from the class (so a field is declared once,
#: in :mod:`nimmt.events`, with its description).
EVENT_MODELS: dict[type[E.Event], type[_Payload]] = {
    cls: _event_model(name, cls, _DECLARED)
    for name, cls in E.EVENT_TYPES.items()}
RoundStarted = EVENT_MODELS[E.RoundStarted]
HandDealt = EVENT_MODELS[E.HandDealt]
DraftStarted = EVENT_MODELS[E.DraftStarted]
CardDrafted = EVENT_MODELS[E.CardDrafted]
RowsDealt = EVENT_MODELS[E.RowsDealt]
TurnStarted = EVENT_MODELS[E.TurnStarted]
CardChosen = EVENT_MODELS[E.CardChosen]
CardsRevealed = EVENT_MODELS[E.CardsRevealed]
RowChoiceNeeded = EVENT_MODELS[E.RowChoiceNeeded]
RowTaken = EVENT_MODELS[E.RowTaken]
CardPlaced = EVENT_MODELS[E.CardPlaced]
RoundScored = EVENT_MODELS[E.RoundScored]
PlayerEliminated = EVENT_MODELS[E.PlayerEliminated]
GameOver = EVENT_MODELS[E.GameOver]

if TYPE_CHECKING:
    EventPayload: TypeAlias = _Payload
else:
    EventPayload = Annotated[Union[tuple(EVENT_MODELS.values())],  # noqa: UP007
                             Field(discriminator="type")]


def _getter(names: tuple[str, ...]) -> Callable[[Any], tuple[Any, ...]]:
    """A function giving the values of ``names`` of an object, as a tuple (fast: C)."""
    get = operator.attrgetter(*names)
    if len(names) == 1:
        return lambda obj: (get(obj),)
    return get


# Per event class: its model, its type name, the fields copied from the event and a
# getter of their values.
_EVENT_BUILD: dict[type, tuple[type[_Payload], str, tuple[str, ...],
                               Callable[[Any], tuple[Any, ...]]]] = {}
for _cls, _model in EVENT_MODELS.items():
    _names = tuple(name for name in _model.model_fields if name != "type")
    _EVENT_BUILD[_cls] = (_model, _model.model_fields["type"].default, _names, _getter(_names))


_setattr = object.__setattr__


def build(cls: type[M], values: dict[str, Any]) -> M:
    """An instance of model ``cls`` holding ``values``, which name every field: trusted data,
    not validated.

    ``model_construct`` does the same but looks for aliases and defaults field by field,
    which costs three times as much; a table builds a dozen models per decision. This
    sets what ``model_construct`` sets (tests/server/test_server_protocol.py checks that
    both give equal models for every model here, so a pydantic upgrade that changes
    them is caught)."""
    m = _new(cls)
    _setattr(m, "__dict__", values)
    fields = _FIELDS.get(cls)
    if fields is None:
        fields = _FIELDS[cls] = frozenset(cls.model_fields)
    # Every field is set, so every instance of a class shares one (frozen) set of names.
    _setattr(m, "__pydantic_fields_set__", fields)
    _setattr(m, "__pydantic_extra__", None)
    _setattr(m, "__pydantic_private__", None)
    return m


_new = object.__new__
_FIELDS: dict[type[BaseModel], frozenset[str]] = {}


def dump(model: BaseModel) -> str:
    """``model`` as JSON text: what ``model_dump_json()`` gives with its defaults, without
    the cost of going through its keyword arguments on every frame."""
    text: str = type(model).__pydantic_serializer__.to_json(model).decode()
    return text


def event_payload(event: E.Event) -> Any:
    """The wire model of ``event`` (already filtered for its viewer), unvalidated.

    Typed ``Any`` because it is one of the :data:`EventPayload` models, whichever
    the event's class says."""
    model, name, names, fields = _EVENT_BUILD[type(event)]
    values = {"type": name}  # first, as the model declares it (the JSON keeps this order)
    values.update(zip(names, fields(event), strict=True))
    return build(model, values)


# -- stream items -------------------------------------------------------------------------


class EventItem(_Payload):
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


class NoticeItem(_Payload):
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


class ChatItem(_Payload):
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


class Older(_Payload):
    """Items of the table's stream a frame left out: those with ``after < seq < before``.
    A catch-up carries the newest items only, and a page of history a bounded number:
    ask for the rest with ``history`` (``before_seq`` = ``before``, ``after_seq`` =
    ``after``), page by page."""

    after: int
    """The items left out come after this position (what the client said it had seen)."""
    before: int
    """... and before this one (the oldest item sent)."""


class Line(_Payload):
    """One line of a page of history, said in the connection's language: a resolution
    step's narration, a notice or a chat line."""

    seq: int
    """The position of the item the line starts at (a step's first item)."""
    kind: Literal["event", "notice", "chat"]
    """What the line tells: game events (one resolution step), a notice, a chat line."""
    text: str
    """The line (the narration, the notice's ``text`` or the chat line's ``said``)."""


# -- hints and analyses (nimmt.advice) --------------------------------------------------------

ReasonName: TypeAlias = Literal[
    "only", "decided", "sixth", "too_low", "later", "close", "game", "row", "rule",
]


class OptionAdvice(_Payload):
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


class AdvicePayload(_Payload):
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


class DecisionReviewPayload(_Payload):
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


class PlayerReviewPayload(_Payload):
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


class GameAnalysis(_Payload):
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


# -- builders -----------------------------------------------------------------------------


def rules_info(rules: Rules) -> RulesInfo:
    """``rules`` as their wire model."""
    return build(RulesInfo, rules.to_dict())


_VIEW_GETTER = operator.attrgetter(*VIEW_FIELDS[3:])  # after player, rules, rules_name


def view_payload(view: View, rules: RulesInfo | None = None) -> ViewPayload:
    """``view`` as its wire model, unvalidated (``rules``: its rules' model, when the
    caller keeps one). Only what the view holds goes out: the view is already the
    seat's share of the game (docs/rules.md §6)."""
    values = dict(zip(VIEW_FIELDS[3:], _VIEW_GETTER(view), strict=True))
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


class SheetMemo:
    """The sentences of one table's sheets, kept by exactly what each one reads.

    A table sends a sheet to every seat and language after every event, and most of it
    has not changed since the last one (a card chosen changes who has chosen, not the
    rows or the scores) or is the same for every seat (the rows, the timer, the rules):
    each sentence is made once and shared. A key holds every field of the view the
    sentence reads, so a kept sentence is the one that would be made afresh
    (tests/server/test_server_sheets.py checks this over played games).

    Each sentence has a place (its field, the language, and the seat it is said to
    where it names "you"), and a place keeps its last sentence only: what a table
    keeps is bounded by its seats and languages, however long its games.
    """

    __slots__ = ("_kept",)

    def __init__(self) -> None:
        self._kept: dict[object, tuple[object, Any]] = {}

    def get(self, place: object, key: object, make: Callable[[], Any]) -> Any:
        """The sentence at ``place`` for ``key``: the one kept there, or ``make()``."""
        kept = self._kept.get(place)
        if kept is not None and kept[0] == key:
            return kept[1]
        value = make()
        self._kept[place] = (key, value)
        return value

    def __len__(self) -> int:
        return len(self._kept)


_MISSING: Any = object()


def table_sheet(rules: Rules, view: View | None, names: Sequence[str], viewer: int | None,
                lang: str | Narrator, memo: SheetMemo | None = None,
                presence: Sequence[SeatMark] | None = None) -> Sheet:
    """The sheet of ``viewer``'s seat (None: a spectator) at a table of ``rules``: of
    ``view`` (:func:`sheet_payload`), or before the table's first game (no view) of its
    seats alone: key W names each seat and who sits there and the rules are said, while
    the fields that tell a game are empty, as a client's sheet before its first frame is.
    ``memo`` and ``presence``: as :func:`sheet_payload` takes them."""
    if view is not None:
        return sheet_payload(view, names, lang, memo, presence)
    speak = lang if isinstance(lang, Narrator) else narrator(lang)
    if memo is None:
        memo = SheetMemo()
    code = speak.language
    names = tuple(names)
    presence = None if presence is None else tuple(presence)
    return Sheet.empty(
        who=memo.get(("who", (code, viewer)), (names, presence),
                     lambda: speak.who_sentence(names, viewer, None, presence)),
        rules=memo.get(("rules", code), rules, lambda: speak.rules_sentence(rules)))


def sheet_payload(view: View, names: Sequence[str], lang: str | Narrator,
                  memo: SheetMemo | None = None,
                  presence: Sequence[SeatMark] | None = None) -> Sheet:
    """The sentences of the shortcuts for ``view`` (already the seat's share of the game),
    said by the narration in ``lang`` (a language code, or its narrator); ``memo``: the
    table's sentences so far, to share what did not change (its keys name the language);
    ``presence``: who sits in each seat (:attr:`SeatInfo.presence`), for key W (None: only
    the names are known)."""
    speak = lang if isinstance(lang, Narrator) else narrator(lang)
    if memo is None:
        memo = SheetMemo()
    code = speak.language
    rows = view.rows
    player = view.player
    pending = view.pending
    waits = None if pending is None else (pending.kind, pending.players, pending.card,
                                          pending.reason)
    phase = view.phase
    names = tuple(names)
    presence = None if presence is None else tuple(presence)
    seat = (code, player)
    table_rows, row, row_bullheads = memo.get(("rows", code), rows, lambda: (
        speak.rows_sentence(view),
        tuple(speak.row_sentence(view, n) for n in range(1, len(rows) + 1)),
        tuple(speak.bullheads_sentence(r, n) for n, r in enumerate(rows, 1))))
    # Asked of this seat or not: the sentence reads the decision and its options alone
    # (the rows too, for a row).
    asked = pending is not None and player is not None and player in pending.players
    decision, decision_with_hand = None, None
    if asked:
        assert pending is not None
        decision, decision_with_hand = memo.get(
            ("decision", seat), (pending.kind, pending.card, pending.reason, view.options,
                                 rows if pending.kind is DecisionKind.ROW else None), lambda: (
                speak.your_decision_sentence(view),
                speak.your_decision_sentence(view, hand=True)))
    return build(Sheet, {
        "rows": table_rows,
        "row": row,
        "row_bullheads": row_bullheads,
        "cards": memo.get(("cards", seat), (view.hand, view.draft_pool), lambda: tuple(
            (c, speak.bullheads_sentence(c)) for c in (*view.hand, *view.draft_pool))),
        "chosen": memo.get(
            ("chosen", seat), (names, phase, waits, view.active, view.chosen, view.face_up,
                               view.my_choice), lambda: speak.chosen_sentence(view, names)),
        "scores": memo.get(
            ("scores", seat), (names, phase is Phase.OVER, view.scores, view.eliminated,
                               view.penalties, view.active),
            lambda: speak.scores_sentence(view, names)),
        "who": memo.get(
            ("who", seat), (names, presence, phase is Phase.OVER, view.scores, view.penalties),
            lambda: speak.who_sentence(names, player, view, presence)),
        "hand": memo.get(
            ("hand", seat), (view.hand, view.my_choice), lambda: speak.hand_sentence(view)),
        "decision": decision,
        "decision_with_hand": decision_with_hand,
        "timer": memo.get(("timer", code), None, lambda: tuple(
            speak.timer_sentence(s) for s in range(1, 11))),
        # "You" is named only to a seat the table waits for: every other seat (and a
        # spectator) hears the same idle sentence, made once.
        "idle": memo.get(("idle", (code, player if asked else None)),
                         (names, phase is Phase.OVER, waits),
                         lambda: speak.idle_sentence(view, names)),
        "rules": memo.get(("rules", code), view.rules, lambda: speak.rules_sentence(view.rules)),
    })
