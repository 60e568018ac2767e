"""The messages a client sends: *intentions* (the server decides), each a pydantic model,
discriminated by ``type`` (:data:`ClientMessage`).

Every field is bounded here, at the trust boundary: a stranger's frame that passes these
models is one the server may read (the server's own limits, from its settings, are
checked after). Each field's docstring is its description in the JSON Schema.

>>> TakeRow(type="take_row", row=2).value
2
"""

from __future__ import annotations

from typing import Annotated, Any, ClassVar, Literal, TypeAlias, TypeGuard, get_args

from pydantic import BaseModel, Field

from .. import decisions as D
from ..bots.registry import NAME_PATTERN as BOT_NAME_PATTERN
from ..decisions import Decision
from .base import STRICT, Card, Code, Name, Password, Ref, SeatNo

__all__ = [
    "DECISION_MESSAGES",
    "PROTOCOL_VERSION",
    "TABLE_MESSAGES",
    "AddBot",
    "AnswerInvitation",
    "AskFriends",
    "AskHint",
    "AskHistory",
    "AskInviteLink",
    "AskRecoveryCodes",
    "AskSessions",
    "Block",
    "Chat",
    "ClientMessage",
    "CreateTable",
    "DecisionMessage",
    "DraftCard",
    "EndSession",
    "Follow",
    "Hello",
    "Invite",
    "Join",
    "Kick",
    "Leave",
    "ListenLobby",
    "Lobby",
    "LobbyChat",
    "Mute",
    "Ping",
    "PlayCard",
    "PrivateMessage",
    "Rematch",
    "RemoveBot",
    "Report",
    "RulesSpec",
    "SetHints",
    "SetPassword",
    "SignOut",
    "Sit",
    "Spectate",
    "Start",
    "TableMessage",
    "TakeOver",
    "TakeRow",
    "Unfollow",
    "decision",
    "is_table_message",
]

#: Bumped whenever a message changes incompatibly; ``hello`` says which one a client speaks.
#: 2: ``events`` carries the view's changes, not the whole view (CHANGELOG.md).
PROTOCOL_VERSION = 2


class _Client(BaseModel):
    """Fields every client message may carry: ``ref`` is echoed in the answer."""

    model_config = STRICT
    ref: Ref = None
    """Any string (at most 64 characters) or integer; the answer to this message carries
    it back."""


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

    model_config = STRICT
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
    """The table's name (plain text); null or empty: after the host, in each reader's
    language."""
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
    ``draft_card``. Each is named after its decision's class and speaks its
    :class:`~nimmt.decisions.DecisionCodec` (its ``type`` is the codec's ``message``, its
    value field the codec's ``field``), which is checked as the class is made."""

    codec: ClassVar[D.DecisionCodec]
    """The decision's codec: the kind of decision, the message's name and its value field."""
    type: str
    """The message's name (the codec's ``message``)."""

    @classmethod
    def __pydantic_init_subclass__(cls, **kwargs: Any) -> None:
        super().__pydantic_init_subclass__(**kwargs)
        codec = cls.codec
        written = get_args(cls.model_fields["type"].annotation)
        if (cls.__name__ != codec.type.__name__ or written != (codec.message,)
                or list(cls.model_fields)[-1] != codec.field):
            raise TypeError(f"{cls.__name__} does not speak its codec {codec}")

    @property
    def value(self) -> int:
        """The card or the row the message names (its codec's field)."""
        value: int = getattr(self, self.codec.field)
        return value


class PlayCard(DecisionMessage):
    """Choose (or change) your card for this turn."""

    codec: ClassVar[D.DecisionCodec] = D.CODECS[D.DecisionKind.CARD]
    type: Literal["play_card"]
    """The message's name."""
    card: Card
    """The card (jokers as −10..−1)."""


class TakeRow(DecisionMessage):
    """Choose the row (1..4) for your too-low card or joker."""

    codec: ClassVar[D.DecisionCodec] = D.CODECS[D.DecisionKind.ROW]
    type: Literal["take_row"]
    """The message's name."""
    row: Annotated[int, Field(strict=True)]
    """The row number, 1 to 4."""


class DraftCard(DecisionMessage):
    """Logic: take ``card`` from the face-up pool."""

    codec: ClassVar[D.DecisionCodec] = D.CODECS[D.DecisionKind.DRAFT]
    type: Literal["draft_card"]
    """The message's name."""
    card: Card
    """The card to take."""


#: The client message of each kind of decision.
DECISION_MESSAGES: dict[D.DecisionKind, type[DecisionMessage]] = {
    cls.codec.kind: cls for cls in (PlayCard, TakeRow, DraftCard)}


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
    newest lines first. With ``online``, who is connected comes too (``online``), now and
    whenever it changes. Answered ``ack``."""

    type: Literal["listen_lobby"]
    """The message's name."""
    on: bool = True
    """True: send the lobby chat here; false: stop (the list of who is online too)."""
    online: bool = False
    """With ``on``: send the list of who is online here too (``online``), now and when it
    changes."""


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
