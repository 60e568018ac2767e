"""The WebSocket protocol: every message, defined once as a pydantic model.

Messages are JSON objects discriminated by ``type``. Client messages are
*intentions* (the server decides); server messages carry ``seq``, the table
stream position of the newest table item this connection has been sent (0
before any table), so a client that reconnects can say what it already saw.
What server messages carry (views, events, prompts, stream items, tables) is
typed too, in :mod:`.payloads`. The JSON Schema served at ``/protocol.json`` is
generated from these models (:func:`protocol_schema`); every field's docstring is
its description there. ``docs/protocol.md`` describes them with examples.

>>> msg = parse_client('{"type": "play_card", "card": 55}')
>>> type(msg).__name__, msg.card
('PlayCard', 55)
>>> Error(seq=3, code="bad_json", message="not JSON", text="Not read.").model_dump(mode="json")
... # doctest: +NORMALIZE_WHITESPACE
{'seq': 3, 'type': 'error', 'code': 'bad_json', 'message': 'not JSON', 'text': 'Not read.',
 'ref': None, 'retry_after': None}
"""

from __future__ import annotations

import json
import re
from typing import TYPE_CHECKING, Annotated, Any, ClassVar, Literal, TypeAlias, TypeGuard, get_args

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, ValidationError, create_model

from .. import decisions as D
from ..bots.registry import NAME_PATTERN as BOT_NAME_PATTERN
from ..decisions import Decision
from ..error_codes import CodeLike, ErrorCode, error_codes
from .payloads import (
    AdvicePayload,
    ChatItem,
    EventItem,
    GameAnalysis,
    Item,
    Line,
    NoticeItem,
    Older,
    Prompt,
    SeatInfo,
    Sheet,
    SheetChange,
    TableInfo,
    TableStatus,
    ViewPayload,
)

__all__ = [
    "DECISION_MESSAGES",
    "PROTOCOL_VERSION",
    "TABLE_MESSAGES",
    "ChatItem",
    "ClientMessage",
    "CodeLike",
    "DecisionMessage",
    "ErrorCode",
    "EventItem",
    "History",
    "Item",
    "Line",
    "NoticeItem",
    "Older",
    "Prompt",
    "ProtocolError",
    "SeatInfo",
    "ServerMessage",
    "TableInfo",
    "TableMessage",
    "ViewPayload",
    "decision",
    "is_table_message",
    "load_json",
    "parse_client",
    "parse_server",
    "protocol_schema",
]

#: Bumped whenever a message changes incompatibly; ``hello`` says which one a client speaks.
PROTOCOL_VERSION = 1

class ProtocolError(Exception):
    """A refusal to send back as an :class:`Error` message."""

    def __init__(self, code: CodeLike, message: str,
                 retry_after: float | None = None) -> None:
        super().__init__(message)
        self.code = ErrorCode(code)
        self.message = message
        #: The seconds to wait before asking again, for a refusal that passes.
        self.retry_after = retry_after


Card: TypeAlias = Annotated[int, Field(strict=True, ge=-10, le=104)]
Ref: TypeAlias = Annotated[str, Field(max_length=64)] | Annotated[int, Field(strict=True)] | None
Code: TypeAlias = Annotated[str, Field(min_length=1, max_length=16)]
Name: TypeAlias = Annotated[str, Field(min_length=1, max_length=64)]
SeatNo: TypeAlias = Annotated[int, Field(strict=True, ge=0, le=9)]
#: A password as sent (the server's own bounds, ``password_min`` and ``password_max``, are
#: checked after it is read: ``weak_password``).
Password: TypeAlias = Annotated[str, Field(min_length=1, max_length=1024)]

# Field docstrings are the descriptions of the JSON Schema (every field is described).
_STRICT = ConfigDict(extra="forbid", strict=True, use_attribute_docstrings=True)


class _Client(BaseModel):
    """Fields every client message may carry: ``ref`` is echoed in the answer."""

    model_config = _STRICT
    ref: Ref = None
    """Any string (at most 64 characters) or integer; the answer to this message carries
    it back."""


# -- client → server -------------------------------------------------------------


class Hello(_Client):
    """Say who you are. With ``token``: an existing player (reconnect). With ``name`` and
    ``password``: sign in to that account (the answer carries a new session token). With
    ``name``, ``recovery_code`` and ``password``: set a new password with one of the
    account's recovery codes, and sign in. With ``name`` alone: a new player (a guest);
    the answer carries the token to keep. ``table`` + ``last_seq`` rejoin a table at once
    and receive the items missed after ``last_seq``. ``lang`` is the language of the
    narration this connection receives (``en``, ``sr``, ``cs``; English when absent)."""

    type: Literal["hello"]
    """The message's name."""
    version: Annotated[int, Field(strict=True, ge=1)] = PROTOCOL_VERSION
    """The protocol version the client speaks."""
    name: Name | None = None
    """A new player's display name."""
    lang: Annotated[str, Field(min_length=1, max_length=35)] | None = None
    """The narration language (``en``, ``sr``, ``cs``, or a tag such as ``cs_CZ``)."""
    token: Annotated[str, Field(max_length=128)] | None = None
    """An existing player's token (from their first ``welcome``)."""
    password: Password | None = None
    """With ``name``: the account's password (sign in); with ``recovery_code``: the new
    password."""
    recovery_code: Annotated[str, Field(min_length=1, max_length=64)] | None = None
    """With ``name`` and ``password``: one of the account's recovery codes (dashes and case
    do not matter); it is used up."""
    table: Code | None = None
    """A table to rejoin at once."""
    last_seq: Annotated[int, Field(strict=True, ge=0)] | None = None
    """The highest ``seq`` seen at that table: the items after it are sent again."""
    invite: Annotated[str, Field(min_length=1, max_length=64)] | None = None
    """The code of an invitation link (``invite_link``): used up, it joins its table and
    takes a free seat."""


class RulesSpec(BaseModel):
    """The rules of a new table (see ``Rules.to_dict``)."""

    model_config = _STRICT
    preset: Annotated[str, Field(max_length=32)] = "classic"
    """``classic`` or ``category5``."""
    variants: Annotated[list[Annotated[str, Field(max_length=32)]], Field(max_length=8)] = []
    """Any of ``tactics``, ``logic``, ``professional``, ``open``, ``open-hands``, ``jokers``
    (where docs/rules.md allows the combination)."""
    players: Annotated[int, Field(strict=True, ge=2, le=10)] = 4
    """Seats at the table."""
    limit: Annotated[int, Field(strict=True, ge=1, le=10_000)] | None = None
    """The points that end the game; null: the preset's."""
    end: Literal["classic", "elimination", "rounds"] = "classic"
    """How the game ends."""
    rounds: Annotated[int, Field(strict=True, ge=1, le=100)] | None = None
    """The number of rounds, for ``end: rounds``."""


class CreateTable(_Client):
    """Open a table and become its host (and take seat 0). ``turn_timer`` is seconds per
    decision, or null for no timer."""

    type: Literal["create_table"]
    """The message's name."""
    rules: RulesSpec = RulesSpec()
    """The rules of the table's games."""
    turn_timer: Annotated[float, Field(gt=0, le=3600)] | None = None
    """Seconds each person has per decision; null for no timer."""
    rated: bool = False
    """Whether finished games change the players' ratings."""
    private: bool = False
    """Whether to leave the table out of the lobby."""
    name: Annotated[str, Field(max_length=64)] | None = None
    """The table's name (plain text); null: after the host."""
    hints: bool = True
    """Whether seated people may ask for hints (never in a rated game)."""


class Join(_Client):
    """Enter the table with short code ``table`` (seat restored if you hold one)."""

    type: Literal["join"]
    """The message's name."""
    table: Code
    """The table's short code (any case)."""
    last_seq: Annotated[int, Field(strict=True, ge=0)] | None = None
    """The highest ``seq`` seen at that table: the items after it are sent again."""


class Spectate(_Client):
    """Watch the table ``table`` without a seat (public information only)."""

    type: Literal["spectate"]
    """The message's name."""
    table: Code
    """The table's short code (any case)."""
    last_seq: Annotated[int, Field(strict=True, ge=0)] | None = None
    """The highest ``seq`` seen at that table: the items after it are sent again."""


class Sit(_Client):
    """Take a free seat (the first free one when ``seat`` is null)."""

    type: Literal["sit"]
    """The message's name."""
    seat: SeatNo | None = None
    """The seat to take (from 0); null: the first free one."""


class AddBot(_Client):
    """Host: seat a bot of ``strength`` (easy, medium, hard, expert, or a bot name).

    A plain name only (letters, digits, ``-``, ``_``): the server seats the bots
    of its own list, so a client names nothing executable; a name not on the list
    gets ``bad_bot`` with the list.
    """

    type: Literal["add_bot"]
    """The message's name."""
    strength: Annotated[str, Field(pattern=BOT_NAME_PATTERN)] = "medium"
    """A strength or a bot name the server offers."""
    seat: SeatNo | None = None
    """The seat (from 0); null: the first free one."""


class RemoveBot(_Client):
    """Host: remove the bot in ``seat`` before the game starts."""

    type: Literal["remove_bot"]
    """The message's name."""
    seat: SeatNo
    """The bot's seat (from 0)."""


class Start(_Client):
    """Host: start the game (every seat must be taken)."""

    type: Literal["start"]
    """The message's name."""


class Leave(_Client):
    """Leave the table. During a game the default bot plays your seat."""

    type: Literal["leave"]
    """The message's name."""


class DecisionMessage(_Client):
    """A client message that makes a decision: ``play_card``, ``take_row`` or
    ``draft_card``. Each is made from its :class:`~nimmt.decisions.DecisionCodec`
    (:data:`DECISION_MESSAGES`), so its name, ``type`` and value field are the codec's."""

    codec: ClassVar[D.DecisionCodec]
    """The decision's codec: the kind of decision, the message's name and its value field."""
    type: str
    """The message's name (the codec's ``message``)."""

    @property
    def value(self) -> int:
        """The card or the row the message names (its codec's field)."""
        value: int = getattr(self, self.codec.field)
        return value


#: What the protocol says of each decision message, to the client that sends it: the
#: message, and its value field with the type that bounds it.
_DECISION_WORDS: dict[D.DecisionKind, tuple[str, Any, str]] = {
    D.DecisionKind.CARD: ("Choose (or change) your card for this turn.",
                          Card, "The card (jokers as −10..−1)."),
    D.DecisionKind.ROW: ("Choose the row (1..4) for your too-low card or joker.",
                         Annotated[int, Field(strict=True)], "The row number, 1 to 4."),
    D.DecisionKind.DRAFT: ("Logic: take ``card`` from the face-up pool.",
                           Card, "The card to take."),
}


def _decision_model(codec: D.DecisionCodec) -> type[DecisionMessage]:
    """The client message of ``codec``'s decision, named as the decision's class."""
    doc, value_type, field_doc = _DECISION_WORDS[codec.kind]
    fields: dict[str, Any] = {
        "type": (Literal[codec.message], Field(description="The message's name.")),
        codec.field: (value_type, Field(description=field_doc))}
    model = create_model(codec.type.__name__, __base__=DecisionMessage,
                         __module__=__name__, __doc__=doc, **fields)
    model.codec = codec
    return model


#: The client message of each kind of decision, made from its codec.
DECISION_MESSAGES: dict[D.DecisionKind, type[DecisionMessage]] = {
    codec.kind: _decision_model(codec) for codec in D.CODECS.values()}
if TYPE_CHECKING:
    PlayCard = DecisionMessage
    TakeRow = DecisionMessage
    DraftCard = DecisionMessage
else:
    PlayCard = DECISION_MESSAGES[D.DecisionKind.CARD]
    TakeRow = DECISION_MESSAGES[D.DecisionKind.ROW]
    DraftCard = DECISION_MESSAGES[D.DecisionKind.DRAFT]


class TakeOver(_Client):
    """Take your seat back from the default bot."""

    type: Literal["take_over"]
    """The message's name."""


class Chat(_Client):
    """Say something to the table (plain text, never markup)."""

    type: Literal["chat"]
    """The message's name."""
    text: Annotated[str, Field(max_length=4096)]
    """What to say (the server keeps at most ``NIMMT_CHAT_MAX`` characters)."""


class Kick(_Client):
    """Host: remove the player in ``seat`` (the default bot plays it if a game is on)."""

    type: Literal["kick"]
    """The message's name."""
    seat: SeatNo
    """The person's seat (from 0)."""


class Rematch(_Client):
    """Host: after the game, start a new one with the same seats."""

    type: Literal["rematch"]
    """The message's name."""


class AskHint(_Client):
    """Ask the expert for advice on your pending decision. Answered, to you only, by a
    ``hint`` (or an ``error``: ``hints_off``, ``not_your_turn``, ``hint_pending``,
    ``busy``, …). One hint at a time per connection."""

    type: Literal["hint"]
    """The message's name."""


class SetHints(_Client):
    """Host: allow (``true``) or forbid (``false``) hints at this table. Rated tables never
    allow them."""

    type: Literal["set_hints"]
    """The message's name."""
    hints: bool
    """Whether seated people may ask for hints."""


class SetPassword(_Client):
    """Keep your name: a guest adds a password and becomes an account (answered by
    ``recovery_codes``, shown once); an account changes its password with ``old``
    (answered by ``ack``; every other session of the account ends)."""

    type: Literal["set_password"]
    """The message's name."""
    password: Password
    """The new password."""
    old: Password | None = None
    """The current password (to change it); null when adding the first one."""


class AskRecoveryCodes(_Client):
    """Ask for new recovery codes (the old ones stop working); answered by
    ``recovery_codes``."""

    type: Literal["recovery_codes"]
    """The message's name."""
    password: Password
    """The account's password."""


class AskSessions(_Client):
    """Ask for the list of your sessions (the sign-ins that are still valid); answered by
    ``sessions``."""

    type: Literal["sessions"]
    """The message's name."""


class EndSession(_Client):
    """End one of your sessions (its connections are closed at once)."""

    type: Literal["end_session"]
    """The message's name."""
    session: Annotated[int, Field(strict=True, ge=1)]
    """The session's ``id`` (from ``sessions``)."""


class SignOut(_Client):
    """End this session (``this``), every other one (``others``), or all of them
    (``all``: sign out everywhere). Ended sessions' connections are closed at once; this
    one is answered ``ack`` first."""

    type: Literal["sign_out"]
    """The message's name."""
    scope: Literal["this", "others", "all"] = "this"
    """Which sessions to end."""


class AskHistory(_Client):
    """Ask for older items of the table's stream than a frame carried (a catch-up sends the
    newest only and says what it left out in ``older``): the newest items with ``after_seq
    < seq < before_seq``, at most ``limit`` of them (the server caps it too), answered by
    ``history``."""

    type: Literal["history"]
    """The message's name."""
    before_seq: Annotated[int, Field(strict=True, ge=1)]
    """The items wanted come before this position (``older.before`` of the last frame)."""
    after_seq: Annotated[int, Field(strict=True, ge=0)] = 0
    """... and after this one (``older.after``; 0: back to the table's first item)."""
    limit: Annotated[int, Field(strict=True, ge=1, le=10_000)] | None = None
    """Positions of the stream one page covers at most; null: the server's page size."""


class Follow(_Client):
    """Follow a player by name (their look: ``ana`` finds ``Ana``); two players who follow
    each other are friends. Answered ``ack`` (``no_player``, ``quota``)."""

    type: Literal["follow"]
    """The message's name."""
    name: Name
    """The player's name."""


class Unfollow(_Client):
    """Stop following a player; answered ``ack``."""

    type: Literal["unfollow"]
    """The message's name."""
    name: Name
    """The player's name."""


class AskFriends(_Client):
    """Ask for the players you follow and where they are; answered by ``friends``."""

    type: Literal["friends"]
    """The message's name."""


class Mute(_Client):
    """Mute a player (``on``) or lift the mute: their chat no longer reaches you. Kept for
    your player, on every connection. Answered ``ack``."""

    type: Literal["mute"]
    """The message's name."""
    name: Name
    """The player's name."""
    on: bool = True
    """True: mute; false: lift the mute."""


class Block(_Client):
    """Block a player (``on``) or lift the block: their chat no longer reaches you, and
    they cannot sit at a table you host or sit at. Answered ``ack``."""

    type: Literal["block"]
    """The message's name."""
    name: Name
    """The player's name."""
    on: bool = True
    """True: block; false: lift the block."""


class Invite(_Client):
    """Invite a player to the table you are at: they get an ``invitation`` on every
    connection they have (a player who blocked you gets nothing, and you are not told).
    Answered ``ack`` (``not_at_table``, ``no_player``, ``quota``)."""

    type: Literal["invite"]
    """The message's name."""
    name: Name
    """The player's name."""


class AnswerInvitation(_Client):
    """Accept an ``invitation`` (you join its table: answered ``table_state``) or decline
    it (answered ``ack``); ``no_invitation`` when it was answered or expired."""

    type: Literal["answer_invitation"]
    """The message's name."""
    id: Annotated[int, Field(strict=True, ge=1)]
    """The invitation's ``id``."""
    accept: bool
    """True: join its table; false: decline."""


class ListenLobby(_Client):
    """Start (``on``) or stop hearing the lobby chat on this connection; starting sends the
    newest lines first. Answered ``ack``."""

    type: Literal["listen_lobby"]
    """The message's name."""
    on: bool = True
    """True: send the lobby chat here; false: stop."""


class LobbyChat(_Client):
    """Say something in the lobby chat (heard by every connection listening to it, but
    those who muted or blocked you). Answered ``ack``."""

    type: Literal["lobby_chat"]
    """The message's name."""
    text: Annotated[str, Field(max_length=4096)]
    """What to say (at most ``NIMMT_LOBBY_CHAT_MAX`` characters)."""


class PrivateMessage(_Client):
    """Write to a friend (a player you follow who follows you); they get it on every
    connection they have. Answered ``ack`` (``not_friends``, ``no_player``)."""

    type: Literal["private_message"]
    """The message's name."""
    name: Name
    """The friend's name."""
    text: Annotated[str, Field(max_length=4096)]
    """What to say (at most ``NIMMT_PRIVATE_MAX`` characters)."""


class AskInviteLink(_Client):
    """Make a one-time invitation link to the table you are at, for someone without an
    account: answered by ``invite_link``."""

    type: Literal["invite_link"]
    """The message's name."""


class Report(_Client):
    """Report a player, or a message of theirs, to the server's operator, saying why.
    Answered ``ack`` (``quota`` past ``NIMMT_REPORTS_PER_HOUR``)."""

    type: Literal["report"]
    """The message's name."""
    name: Name
    """The player reported."""
    reason: Annotated[str, Field(min_length=1, max_length=4096)]
    """Why (the server keeps at most ``NIMMT_REPORT_MAX`` characters)."""
    message: Annotated[str, Field(max_length=4096)] | None = None
    """The message reported, as you saw it (null: the player as a whole)."""
    place: Annotated[str, Field(max_length=32)] | None = None
    """Where it was written: the table's code (null: not a message)."""


class Lobby(_Client):
    """Ask for the list of open tables."""

    type: Literal["lobby"]
    """The message's name."""


class Ping(_Client):
    """Keep-alive; answered by ``pong``."""

    type: Literal["ping"]
    """The message's name."""


#: The client messages that go to the table the connection is at: its actor receives each
#: as it is, as one command (:class:`~.commands.Message`).
TableMessage: TypeAlias = (
    PlayCard | TakeRow | DraftCard | Sit | AddBot | RemoveBot | Start | Rematch | TakeOver
    | Chat | Kick | Leave | AskHint | SetHints | AskHistory
)

ClientMessage: TypeAlias = Annotated[
    Hello
    | CreateTable
    | Join
    | Spectate
    | Sit
    | AddBot
    | RemoveBot
    | Start
    | Leave
    | PlayCard
    | TakeRow
    | DraftCard
    | TakeOver
    | Chat
    | Kick
    | Rematch
    | AskHint
    | SetHints
    | SetPassword
    | AskRecoveryCodes
    | AskSessions
    | EndSession
    | SignOut
    | AskHistory
    | Follow
    | Unfollow
    | AskFriends
    | Mute
    | Block
    | Report
    | Invite
    | AnswerInvitation
    | AskInviteLink
    | ListenLobby
    | LobbyChat
    | PrivateMessage
    | Lobby
    | Ping,
    Field(discriminator="type"),
]

#: The classes of :data:`TableMessage`, which the hub routes to the connection's table.
TABLE_MESSAGES: frozenset[type[ClientMessage]] = frozenset(get_args(TableMessage))


def is_table_message(msg: ClientMessage) -> TypeGuard[TableMessage]:
    """Whether ``msg`` goes to the table the connection is at (:data:`TableMessage`)."""
    return type(msg) in TABLE_MESSAGES


def decision(msg: DecisionMessage, seat: int) -> Decision:
    """The :data:`~nimmt.decisions.Decision` that ``msg`` asks for, by ``seat``: the one
    place where the protocol's decision messages meet the engine's decisions.

    >>> decision(TakeRow(type="take_row", row=2), seat=1)
    TakeRow(player=1, row=2)
    """
    return D.make_decision(msg.codec.kind, seat, msg.value)


# -- server → client -------------------------------------------------------------


class _ServerMessage(BaseModel):
    """Fields every server message carries: ``seq``, so a client that reconnects can say
    what it already saw."""

    model_config = ConfigDict(extra="forbid", use_attribute_docstrings=True)
    seq: int
    """The stream position of the newest table item this connection has been sent (0
    before any table)."""


class Welcome(_ServerMessage):
    """Answer to ``hello``. ``token`` is sent when a session starts (a new player, a
    sign-in): keep it, and say ``hello`` with it next time. ``lang`` is the narration
    language the server chose for this connection; ``account`` whether the player has a
    password."""

    type: Literal["welcome"] = "welcome"
    """The message's name."""
    version: int = PROTOCOL_VERSION
    """The protocol version the server speaks."""
    player: str
    """Your display name."""
    token: str | None = None
    """Your session's token, when the session was just made (a new player, a sign-in):
    keep it; else null."""
    lang: str = "en"
    """The narration language of this connection."""
    account: bool = False
    """Whether the player has a password (an account); false for a guest."""
    ref: Ref = None
    """The ``ref`` of the ``hello``."""


class Error(_ServerMessage):
    """A refusal: nothing changed. ``code`` is machine-readable, ``message`` the details in
    English (for logs and programs), ``text`` what a person hears."""

    type: Literal["error"] = "error"
    """The message's name."""
    code: ErrorCode
    """What went wrong (the list is ``error_codes`` of this schema)."""
    message: str
    """The details, in English (for logs and programs)."""
    text: str = ""
    """The refusal said to a person, in the connection's language (English before
    ``hello`` chose one): the server's narration, from the code."""
    ref: Ref = None
    """The ``ref`` of the refused message, when it could be read."""
    retry_after: float | None = None
    """For a refusal that passes (``busy``, ``hint_pending``, ``sign_in_limited``): the
    seconds the server expects to pass before it could take the request (an estimate; ask
    again then)."""


class Ack(_ServerMessage):
    """The intention ``ref`` was accepted and is stored."""

    type: Literal["ack"] = "ack"
    """The message's name."""
    ref: Ref = None
    """The ``ref`` of the accepted message."""


class TableState(_ServerMessage):
    """Everything you may know now: the table and your view of the game (docs/rules.md §6).

    ``you`` is your seat (null for a spectator). ``view`` is null before the
    first game starts.
    """

    type: Literal["table_state"] = "table_state"
    """The message's name."""
    table: TableInfo
    """The table's public facts."""
    you: int | None
    """Your seat (from 0); null for a spectator."""
    view: ViewPayload | None
    """Your view of the game; null before the first game."""
    prompt: Prompt | None = None
    """The decision asked of you now; null if none."""
    sheet: Sheet | None = None
    """What the shortcuts say about ``view``, in your language; before the first game (no
    view) what they say about the seats: ``who`` and ``rules``, the other fields empty.
    Null only from a server of an earlier release, before a game."""
    ref: Ref = None
    """The ``ref`` of the message this answers (``join``, ``spectate``, ``create_table``),
    else null."""


class Events(_ServerMessage):
    """New table stream items, in order, and the decision now asked of you (if any).

    ``text`` is the narration of the game events among ``items``, as your seat may know
    them, in the language of your ``hello``: one entry per resolution step (a turn's
    reveal and placements, a round's start, its scores, the end of the game).
    """

    type: Literal["events"] = "events"
    """The message's name."""
    items: list[Item]
    """The new items, filtered for you, in stream order."""
    prompt: Prompt | None = None
    """The decision asked of you now; null if none."""
    text: list[str] = []
    """The narration of the game events among the items: one entry per step."""
    view: ViewPayload | None = None
    """Your view of the game after these items, when they hold a game event; else null."""
    sheet: SheetChange | None = None
    """With ``view``: what the shortcuts say about it that changed since the last sheet
    sent to you (merge it into that one: docs/protocol.md); null with no view."""
    older: Annotated[Older | None, Field(exclude_if=lambda v: v is None)] = None
    """On a catch-up (``last_seq`` given) that left items out to stay small: which ones,
    for ``history`` to page back. Absent from every other frame (so clients of before
    it read them as ever)."""


class History(_ServerMessage):
    """A page of the table's stream, older than what the client has (answer to
    ``history``): the items, filtered for you as ever, and the page said line by line."""

    type: Literal["history"] = "history"
    """The message's name."""
    items: list[Item]
    """The page's items, filtered for you, in stream order."""
    lines: list[Line]
    """The page said in your language, in stream order: one line per resolution step,
    notice and chat line."""
    older: Older | None
    """What is still older than this page (ask again with it); null: the page reaches
    ``after_seq`` (or the table's first item)."""
    ref: Ref = None
    """The ``ref`` of the ``history`` message."""


class LobbyTable(BaseModel):
    """A table in the lobby listing."""

    model_config = ConfigDict(use_attribute_docstrings=True)
    code: str
    """The table's short code."""
    name: str
    """The table's name."""
    host: str | None
    """The host's display name."""
    rules_name: str
    """The rules in a few words."""
    seats: int
    """Seats at the table."""
    rules_label: str = ""
    """The rules in words of the reader's language (the connection's, or ``/api/tables``'s
    ``lang``): ``"Klasična + Taktika"``."""
    taken: int
    """Seats taken."""
    status: TableStatus
    """``open`` (not started) or ``playing``."""


class LobbyList(_ServerMessage):
    """The open, public tables."""

    type: Literal["lobby"] = "lobby"
    """The message's name."""
    tables: list[LobbyTable]
    """The tables, oldest first."""
    ref: Ref = None
    """The ``ref`` of the ``lobby`` message."""


class Hint(_ServerMessage):
    """The expert's advice on your decision ``key`` (the ``key`` of the prompt it answers;
    if your prompt's key has changed since, the advice is about a decision already
    made). ``text`` is the hint in one or two short sentences in your language; ``advice``
    the numbers behind it (to highlight the advised card or row)."""

    type: Literal["hint"] = "hint"
    """The message's name."""
    key: str
    """The decision it advises on (the prompt's ``key``)."""
    text: str
    """The hint, said in the language of your ``hello``."""
    advice: AdvicePayload
    """The advice as data."""
    ref: Ref = None
    """The ``ref`` of the ``hint`` message."""


class RecoveryCodes(_ServerMessage):
    """Your account's recovery codes, shown this once: each sets a new password once
    (``hello`` with ``recovery_code``). Any codes given before no longer work."""

    type: Literal["recovery_codes"] = "recovery_codes"
    """The message's name."""
    codes: list[str]
    """The codes (``ABCD-EFGH-JKMN-PQRS``)."""
    ref: Ref = None
    """The ``ref`` of the ``set_password`` or ``recovery_codes`` message."""


class SessionInfo(BaseModel):
    """One session of yours: when and from where it was made and last used."""

    model_config = ConfigDict(use_attribute_docstrings=True)
    id: int
    """The session's id (for ``end_session``)."""
    created: float
    """When it was made (sign-in, or the guest's first ``hello``), in Unix seconds."""
    last_seen: float
    """When it was last used, in Unix seconds."""
    address: str | None
    """The client address it was made from (an IPv6 address by its /64); null when not
    known (a session older than accounts)."""
    last_address: str | None
    """The client address it was last used from."""
    current: bool
    """Whether it is the session of this connection."""


class SessionList(_ServerMessage):
    """Your sessions, the most recently used first."""

    type: Literal["sessions"] = "sessions"
    """The message's name."""
    sessions: list[SessionInfo]
    """The sessions."""
    ref: Ref = None
    """The ``ref`` of the ``sessions`` message."""


class FriendInfo(BaseModel):
    """One player you follow, and where they are."""

    model_config = ConfigDict(use_attribute_docstrings=True)
    name: str
    """Their name."""
    mutual: bool
    """Whether they follow you too (a friend)."""
    online: bool
    """Whether they are connected (to this server process)."""
    table: str | None = None
    """A friend's table's code, when they are at one; null for a one-way follow."""
    free_seat: bool | None = None
    """Whether that table has a free seat (null: not known here)."""


class FriendList(_ServerMessage):
    """The players you follow, by name."""

    type: Literal["friends"] = "friends"
    """The message's name."""
    friends: list[FriendInfo]
    """The players."""
    muted: list[str] = []
    """The names of the players you muted, by name."""
    blocked: list[str] = []
    """The names of the players you blocked, by name."""
    ref: Ref = None
    """The ``ref`` of the ``friends`` message."""


class Invitation(_ServerMessage):
    """A player invites you to their table (on every connection you have; again on each
    new one while it waits). Answer with ``answer_invitation``."""

    type: Literal["invitation"] = "invitation"
    """The message's name."""
    id: int
    """The invitation's id (for ``answer_invitation``)."""
    by: str
    """Who invites you."""
    table: str
    """The table's code."""
    expires: float
    """When it expires unanswered, in Unix seconds."""
    text: str
    """The invitation said in this connection's language."""


class ChatMessage(_ServerMessage):
    """A line of the lobby chat (``channel`` ``lobby``) or a private message to you or from
    you on another connection (``private``)."""

    type: Literal["chat_message"] = "chat_message"
    """The message's name."""
    channel: Literal["lobby", "private"]
    """Where it was written."""
    id: int
    """Its number (grows with time, per server)."""
    by: str
    """Who wrote it."""
    to: str | None = None
    """A private message's addressee; null in the lobby."""
    text: str
    """What they wrote (plain text: never render it as markup)."""
    said: str
    """The line as said in this connection's language (\"Ana says: …\")."""
    at: float
    """When it was written, in Unix seconds."""


class InviteLink(_ServerMessage):
    """A one-time invitation to your table: whoever says ``hello`` with ``invite`` set to
    ``code`` (a new guest, or anyone) joins it and takes a free seat, once, until
    ``expires``. ``path`` is the web client's address of it on this server."""

    type: Literal["invite_link"] = "invite_link"
    """The message's name."""
    code: str
    """The link's one-time code."""
    table: str
    """The table's code."""
    path: str
    """The link's path on this server (``/play/?invite=CODE``)."""
    expires: float
    """When it stops working, in Unix seconds."""
    ref: Ref = None
    """The ``ref`` of the ``invite_link`` message."""


class Presence(_ServerMessage):
    """A player you follow came, went, or moved to another table (on this server process):
    their entry of ``friends`` as it is now. Pushed at most every
    ``NIMMT_PRESENCE_INTERVAL`` seconds per player."""

    type: Literal["presence"] = "presence"
    """The message's name."""
    friend: FriendInfo
    """Where they are now."""


class Pong(_ServerMessage):
    """Answer to ``ping``."""

    type: Literal["pong"] = "pong"
    """The message's name."""
    ref: Ref = None
    """The ``ref`` of the ``ping``."""


ServerMessage: TypeAlias = Annotated[
    Welcome | Error | Ack | TableState | Events | History | LobbyList | Hint | RecoveryCodes
    | SessionList | FriendList | Presence | Invitation | InviteLink | ChatMessage | Pong,
    Field(discriminator="type"),
]

_CLIENT: TypeAdapter[ClientMessage] = TypeAdapter(ClientMessage)
_SERVER: TypeAdapter[ServerMessage] = TypeAdapter(ServerMessage)


#: Deepest nesting of arrays and objects a client frame may have unless the settings say
#: otherwise (``Settings.max_depth``). The deepest message, ``create_table`` with its
#: ``rules.variants``, is 3 deep; Python's JSON parser recurses once per level, so a
#: frame 1,000 deep would raise RecursionError instead of an error code.
MAX_DEPTH = 8
#: The most ``Settings.max_depth`` may be: far below the interpreter's recursion limit.
MAX_DEPTH_CEILING = 64
#: Longest number literal a frame may hold: every number of the protocol is small, and
#: turning a 4,000-digit literal into an int costs quadratic time.
MAX_NUMBER = 40

# A JSON string (escapes included; an unterminated one runs to the end, as the parser
# reads no further) or a bracket: what the depth scan looks at, in one linear pass.
_TOKENS = re.compile(r'"(?:[^"\\]|\\.)*(?:"|\\?\Z)|[\[\]{}]', re.S)


def nesting_depth(text: str) -> int:
    """How deep arrays and objects nest in ``text``, brackets inside strings not counted.

    Meant for text not yet known to be JSON: strings are skipped exactly as the JSON
    parser reads them, so it never reports less than the depth the parser would reach
    before it stops, and a frame it passes cannot recurse deeper than it said.

    >>> nesting_depth('{"a": [1, {"b": "[[[["}]}')
    3
    """
    depth = deepest = 0
    for m in _TOKENS.finditer(text):
        ch = m.group()
        if ch in "[{":
            depth += 1
            deepest = max(deepest, depth)
        elif ch in "]}":
            depth = max(0, depth - 1)
    return deepest


def _int_literal(raw: str) -> int:
    if len(raw) > MAX_NUMBER:
        raise ProtocolError("bad_message", f"numbers hold at most {MAX_NUMBER} digits, "
                            f"not {len(raw)}")
    return int(raw)


def _float_literal(raw: str) -> float:
    if len(raw) > MAX_NUMBER:
        raise ProtocolError("bad_message", f"numbers hold at most {MAX_NUMBER} characters, "
                            f"not {len(raw)}")
    return float(raw)


def _constant(raw: str) -> Any:
    raise ProtocolError("bad_json", f"the number {raw} is not JSON (Python writes it; JSON "
                        "has no such number)")


def load_json(text: str | bytes, max_depth: int = MAX_DEPTH) -> Any:
    """Decode one client frame with the limits a stranger's input needs.

    Refused with :class:`ProtocolError`: text that is not UTF-8 JSON (``bad_json``,
    which includes ``NaN`` and ``Infinity``); nesting deeper than ``max_depth``, number
    literals longer than :data:`MAX_NUMBER` and strings holding a lone surrogate
    (``\\ud800``, which no UTF-8 encoder, database or browser takes) (``bad_message``).
    The depth is checked before the parser runs, the numbers while it runs.

    >>> load_json('{"a": [[[1]]]}', max_depth=2)
    Traceback (most recent call last):
    ...
    nimmt.server.protocol.ProtocolError: arrays and objects nest at most 2 deep here, not 4
    """
    if isinstance(text, bytes):
        try:
            text = text.decode()
        except UnicodeDecodeError as exc:
            raise ProtocolError("bad_json", f"the frame is not UTF-8: {exc}") from None
    max_depth = min(max_depth, MAX_DEPTH_CEILING)
    # Counting the openers is enough for nearly every frame; only one with more
    # openers than the limit (maybe inside strings) is scanned.
    if text.count("[") + text.count("{") > max_depth:
        depth = nesting_depth(text)
        if depth > max_depth:
            raise ProtocolError("bad_message", f"arrays and objects nest at most {max_depth} "
                                f"deep here, not {depth}")
    try:
        data = json.loads(text, parse_int=_int_literal, parse_float=_float_literal,
                          parse_constant=_constant)
    except ValueError as exc:
        raise ProtocolError("bad_json", f"the frame is not valid JSON: {exc}") from None
    if "\\u" in text:
        try:
            json.dumps(data, ensure_ascii=False).encode()
        except UnicodeEncodeError:
            raise ProtocolError("bad_message", "strings may not hold a lone surrogate "
                                "(\\ud800 to \\udfff without its pair)") from None
    return data


def parse_client(text: str | bytes, max_depth: int = MAX_DEPTH) -> ClientMessage:
    """Parse one client frame, or raise :class:`ProtocolError` saying what is wrong.

    ``max_depth`` is the deepest nesting accepted (see :func:`load_json`)."""
    data = load_json(text, max_depth)
    if not isinstance(data, dict):
        raise ProtocolError("bad_json", "a message must be a JSON object")
    try:
        return _CLIENT.validate_python(data)
    except ValidationError as exc:
        err = exc.errors()[0]
        where = ".".join(str(x) for x in err["loc"]) or "message"
        if err["type"] == "union_tag_invalid":
            kind = data.get("type")
            raise ProtocolError("bad_message", f"unknown message type {kind!r}") from None
        if err["type"] == "union_tag_not_found":
            raise ProtocolError("bad_message", "the message has no 'type' field") from None
        raise ProtocolError("bad_message", f"{where}: {err['msg']}") from None


def parse_server(text: str | bytes) -> ServerMessage:
    """Parse one server frame (clients and tests use it)."""
    return _SERVER.validate_json(text)


def protocol_schema() -> dict[str, Any]:
    """The JSON Schema of both directions, served at ``/protocol.json``."""
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": "nimmt WebSocket protocol",
        "version": PROTOCOL_VERSION,
        "client": _CLIENT.json_schema(),
        "server": _SERVER.json_schema(),
        "error_codes": error_codes(),
        "http": {"analysis": TypeAdapter(GameAnalysis).json_schema()},
    }
