"""The messages the server sends, each a pydantic model discriminated by ``type``
(:data:`ServerMessage`). Every one carries ``seq``, the table stream position of the newest
table item this connection has been sent (0 before any table), so a client that
reconnects can say what it already saw. What they carry (views, events, prompts, stream
items, tables) is typed too (:mod:`.payloads`, :mod:`.sheet`, :mod:`.advice`).

>>> Error(seq=3, code="bad_json", message="not JSON", text="Not read.").model_dump(mode="json")
... # doctest: +NORMALIZE_WHITESPACE
{'seq': 3, 'type': 'error', 'code': 'bad_json', 'message': 'not JSON', 'text': 'Not read.',
 'ref': None, 'retry_after': None}
"""

from __future__ import annotations

from typing import Annotated, Literal, TypeAlias

from pydantic import BaseModel, ConfigDict, Field

from ..error_codes import ErrorCode
from .advice import AdvicePayload
from .base import Ref
from .derived import RoundScored, ViewChange, ViewPayload
from .payloads import Item, Line, Older, Prompt, TableInfo, TableStatus
from .sheet import Sheet, SheetChange
from .to_server import PROTOCOL_VERSION

__all__ = [
    "Ack",
    "ChatMessage",
    "Error",
    "Events",
    "FriendInfo",
    "FriendList",
    "Hint",
    "History",
    "Invitation",
    "InviteLink",
    "LobbyList",
    "LobbySeat",
    "LobbyTable",
    "Online",
    "Pong",
    "Presence",
    "RecoveryCodes",
    "ServerMessage",
    "SessionInfo",
    "SessionList",
    "TableState",
    "Welcome",
]


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
    rounds: list[RoundScored] = []
    """The score sheet of the game in ``view``: its rounds scored so far, round 1 first
    (each round's ``round_scored`` event), so a client that enters or comes back mid-game
    has every round; the ``round_scored`` events that follow add to it."""


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
    view: ViewChange | None = None
    """When the items hold a game event: what changed in your view of the game since the
    last view sent to you (merge it into that one: docs/protocol.md); else null."""
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


class LobbySeat(BaseModel):
    """A seat of a table in the lobby listing: who sits there."""

    model_config = ConfigDict(use_attribute_docstrings=True)
    kind: Literal["empty", "human", "bot"]
    """Nobody, a person or a bot."""
    name: str | None = None
    """A person's display name; null for an empty seat and for a bot (a client names a bot
    by its ``bot`` in its reader's language)."""
    bot: str | None = None
    """A bot's kind (its strength: ``easy``, ``medium``, ``hard``, or an operator's name);
    null for a person or an empty seat."""


class LobbyTable(BaseModel):
    """A table in the lobby listing."""

    model_config = ConfigDict(use_attribute_docstrings=True)
    code: str
    """The table's short code."""
    name: str
    """The table's name (plain text); empty: its host did not name it, and a client says it
    after the host in its reader's language ("Ana's table")."""
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
    players: list[LobbySeat] = []
    """Every seat, in order: who sits there (empty seats too)."""
    rated: bool = False
    """Whether finished games change the players' ratings."""
    turn_timer: float | None = None
    """Seconds each person has per decision, or null for no timer."""


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


class Online(_ServerMessage):
    """Who is connected now (to this server process), for a connection that listens to the
    lobby with ``online``: sent when it starts listening and again when someone comes or
    goes, at most every ``NIMMT_ONLINE_INTERVAL`` seconds (changes in between coalesced).
    Players who blocked you, and those you blocked, are left out."""

    type: Literal["online"] = "online"
    """The message's name."""
    players: list[str]
    """Their names, in alphabetical order: at most ``NIMMT_ONLINE_MAX`` of them."""
    total: int
    """How many are online (of those you may see), listed or not."""


class Pong(_ServerMessage):
    """Answer to ``ping``."""

    type: Literal["pong"] = "pong"
    """The message's name."""
    ref: Ref = None
    """The ``ref`` of the ``ping``."""


ServerMessage: TypeAlias = Annotated[
    Welcome | Error | Ack | TableState | Events | History | LobbyList | Hint | RecoveryCodes
    | SessionList | FriendList | Presence | Invitation | InviteLink | ChatMessage | Online
    | Pong,
    Field(discriminator="type"),
]
