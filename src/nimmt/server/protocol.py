"""The WebSocket protocol: every message, defined once as a pydantic model.

Messages are JSON objects discriminated by ``type``. Client messages are
*intentions* (the server decides); server messages carry ``seq``, the table
stream position of the newest table item this connection has been sent (0
before any table), so a client that reconnects can say what it already saw.
The JSON Schema served at ``/protocol.json`` is generated from these models
(:func:`protocol_schema`), and ``docs/protocol.md`` describes them with examples.

>>> msg = parse_client('{"type": "play_card", "card": 55}')
>>> type(msg).__name__, msg.card
('PlayCard', 55)
>>> Error(seq=3, code="bad_json", message="not JSON").model_dump_json()
'{"seq":3,"type":"error","code":"bad_json","message":"not JSON","ref":null}'
"""

from __future__ import annotations

import json
import re
from typing import Annotated, Any, Literal, TypeAlias

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, ValidationError

from ..bots.registry import NAME_PATTERN as BOT_NAME_PATTERN

__all__ = [
    "PROTOCOL_VERSION",
    "ClientMessage",
    "ErrorCode",
    "ProtocolError",
    "ServerMessage",
    "load_json",
    "parse_client",
    "parse_server",
    "protocol_schema",
]

#: Bumped whenever a message changes incompatibly; ``hello`` says which one a client speaks.
PROTOCOL_VERSION = 1

#: Every error code the server sends, with what it means (also in docs/protocol.md).
ERROR_CODES: dict[str, str] = {
    "bad_json": "the frame is not a JSON object",
    "bad_message": "unknown message type, wrong or missing fields, or past a parser limit "
                   "(nesting depth, number length, a lone surrogate)",
    "frame_too_large": "the frame is larger than the server accepts",
    "rate_limited": "too many messages; slow down",
    "version": "the client speaks a protocol version the server does not",
    "not_authenticated": "send hello first",
    "bad_token": "the token is wrong",
    "bad_name": "the display name is empty, too long, shows nothing, or holds control or "
                "invisible characters",
    "bad_language": "no narration in that language (en, sr, cs)",
    "name_taken": "that name, or one that looks like it, belongs to another player or is "
                  "used at this table",
    "no_table": "no table has that code",
    "not_at_table": "join or spectate a table first",
    "table_full": "every seat is taken",
    "seat_taken": "that seat is taken",
    "no_seat": "there is no such seat, or it is empty",
    "not_seated": "only a seated player may do that",
    "spectator": "spectators watch; they do not act",
    "not_host": "only the host may do that",
    "bad_rules": "the rules are not valid",
    "bad_bot": "this server offers no bot of that name (the message lists those it does)",
    "not_started": "the game has not started",
    "already_started": "the game has already started",
    "not_over": "the game is not over yet",
    "seats_empty": "a seat is still empty",
    "not_your_turn": "that decision is not yours to make now",
    "card_not_in_hand": "that card is not in your hand (or not in the pool)",
    "no_such_row": "rows are numbered 1 to 4",
    "game_over": "the game is over",
    "chat_too_long": "the chat message is too long",
    "chat_empty": "the chat message is empty",
    "closed": "the table is closed",
    "kicked": "the host removed you from this table",
    "internal": "the server failed; the table's state is unchanged",
    "flooding": "too many refused messages: the connection is closed",
    "too_many_connections": "too many connections from one address",
    "server_full": "the server holds as many tables or connections as it may",
    "quota": "a limit per player or address is reached (tables, new names, chat, games)",
    "too_many_changes": "the chosen card was changed too often this turn",
}

ErrorCode: TypeAlias = Literal[
    "bad_json",
    "bad_message",
    "frame_too_large",
    "rate_limited",
    "version",
    "not_authenticated",
    "bad_token",
    "bad_name",
    "bad_language",
    "name_taken",
    "no_table",
    "not_at_table",
    "table_full",
    "seat_taken",
    "no_seat",
    "not_seated",
    "spectator",
    "not_host",
    "bad_rules",
    "bad_bot",
    "not_started",
    "already_started",
    "not_over",
    "seats_empty",
    "not_your_turn",
    "card_not_in_hand",
    "no_such_row",
    "game_over",
    "chat_too_long",
    "chat_empty",
    "closed",
    "kicked",
    "internal",
    "flooding",
    "too_many_connections",
    "server_full",
    "quota",
    "too_many_changes",
]


class ProtocolError(Exception):
    """A refusal to send back as an :class:`Error` message."""

    def __init__(self, code: ErrorCode, message: str) -> None:
        super().__init__(message)
        self.code: ErrorCode = code
        self.message = message


Card: TypeAlias = Annotated[int, Field(strict=True, ge=-10, le=104)]
Ref: TypeAlias = Annotated[str, Field(max_length=64)] | Annotated[int, Field(strict=True)] | None
Code: TypeAlias = Annotated[str, Field(min_length=1, max_length=16)]
Name: TypeAlias = Annotated[str, Field(min_length=1, max_length=64)]

_STRICT = ConfigDict(extra="forbid", strict=True)


class _Client(BaseModel):
    """Fields every client message may carry: ``ref`` is echoed in the answer."""

    model_config = _STRICT
    ref: Ref = None


# -- client → server -------------------------------------------------------------


class Hello(_Client):
    """Say who you are. With ``token``: an existing player (reconnect). Without: a new player
    named ``name``; the answer carries the token to keep. ``table`` + ``last_seq`` rejoin a
    table at once and receive the items missed after ``last_seq``. ``lang`` is the language
    of the narration this connection receives (``en``, ``sr``, ``cs``; English when absent)."""

    type: Literal["hello"]
    version: Annotated[int, Field(strict=True, ge=1)] = PROTOCOL_VERSION
    name: Name | None = None
    lang: Annotated[str, Field(min_length=1, max_length=35)] | None = None
    token: Annotated[str, Field(max_length=128)] | None = None
    table: Code | None = None
    last_seq: Annotated[int, Field(strict=True, ge=0)] | None = None


class RulesSpec(BaseModel):
    """The rules of a new table (see ``Rules.to_dict``)."""

    model_config = _STRICT
    preset: Annotated[str, Field(max_length=32)] = "classic"
    variants: Annotated[list[Annotated[str, Field(max_length=32)]], Field(max_length=8)] = []
    players: Annotated[int, Field(strict=True, ge=2, le=10)] = 4
    limit: Annotated[int, Field(strict=True, ge=1, le=10_000)] | None = None
    end: Literal["classic", "elimination", "rounds"] = "classic"
    rounds: Annotated[int, Field(strict=True, ge=1, le=100)] | None = None


class CreateTable(_Client):
    """Open a table and become its host (and take seat 0). ``turn_timer`` is seconds per
    decision, or null for no timer."""

    type: Literal["create_table"]
    rules: RulesSpec = RulesSpec()
    turn_timer: Annotated[float, Field(gt=0, le=3600)] | None = None
    rated: bool = False
    private: bool = False
    name: Annotated[str, Field(max_length=64)] | None = None


class Join(_Client):
    """Enter the table with short code ``table`` (seat restored if you hold one)."""

    type: Literal["join"]
    table: Code
    last_seq: Annotated[int, Field(strict=True, ge=0)] | None = None


class Spectate(_Client):
    """Watch the table ``table`` without a seat (public information only)."""

    type: Literal["spectate"]
    table: Code
    last_seq: Annotated[int, Field(strict=True, ge=0)] | None = None


class Sit(_Client):
    """Take a free seat (the first free one when ``seat`` is null)."""

    type: Literal["sit"]
    seat: Annotated[int, Field(strict=True, ge=0, le=9)] | None = None


class AddBot(_Client):
    """Host: seat a bot of ``strength`` (easy, medium, hard, expert, or a bot name).

    A plain name only (letters, digits, ``-``, ``_``): the server seats the bots
    of its own list, so a client names nothing executable; a name not on the list
    gets ``bad_bot`` with the list.
    """

    type: Literal["add_bot"]
    strength: Annotated[str, Field(pattern=BOT_NAME_PATTERN)] = "medium"
    seat: Annotated[int, Field(strict=True, ge=0, le=9)] | None = None


class RemoveBot(_Client):
    """Host: remove the bot in ``seat`` before the game starts."""

    type: Literal["remove_bot"]
    seat: Annotated[int, Field(strict=True, ge=0, le=9)]


class Start(_Client):
    """Host: start the game (every seat must be taken)."""

    type: Literal["start"]


class Leave(_Client):
    """Leave the table. During a game the default bot plays your seat."""

    type: Literal["leave"]


class PlayCard(_Client):
    """Choose (or change) your card for this turn."""

    type: Literal["play_card"]
    card: Card


class TakeRow(_Client):
    """Choose the row (1..4) for your too-low card or joker."""

    type: Literal["take_row"]
    row: Annotated[int, Field(strict=True)]


class DraftCard(_Client):
    """Logic: take ``card`` from the face-up pool."""

    type: Literal["draft_card"]
    card: Card


class TakeOver(_Client):
    """Take your seat back from the default bot."""

    type: Literal["take_over"]


class Chat(_Client):
    """Say something to the table (plain text, never markup)."""

    type: Literal["chat"]
    text: Annotated[str, Field(max_length=4096)]


class Kick(_Client):
    """Host: remove the player in ``seat`` (the default bot plays it if a game is on)."""

    type: Literal["kick"]
    seat: Annotated[int, Field(strict=True, ge=0, le=9)]


class Rematch(_Client):
    """Host: after the game, start a new one with the same seats."""

    type: Literal["rematch"]


class Lobby(_Client):
    """Ask for the list of open tables."""

    type: Literal["lobby"]


class Ping(_Client):
    """Keep-alive; answered by ``pong``."""

    type: Literal["ping"]


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
    | Lobby
    | Ping,
    Field(discriminator="type"),
]

# -- server → client -------------------------------------------------------------


class _Server(BaseModel):
    model_config = ConfigDict(extra="forbid")
    seq: int


class Welcome(_Server):
    """Answer to ``hello``. ``token`` is sent once, when the player is created: keep it.
    ``lang`` is the narration language the server chose for this connection."""

    type: Literal["welcome"] = "welcome"
    version: int = PROTOCOL_VERSION
    player: str
    token: str | None = None
    lang: str = "en"
    ref: Ref = None


class Error(_Server):
    """A refusal: nothing changed. ``code`` is machine-readable, ``message`` a sentence."""

    type: Literal["error"] = "error"
    code: str
    message: str
    ref: Ref = None


class Ack(_Server):
    """The intention ``ref`` was accepted and is stored."""

    type: Literal["ack"] = "ack"
    ref: Ref = None


class SeatInfo(BaseModel):
    """One seat: who sits there. ``auto`` is true while the default bot plays for them."""

    seat: int
    name: str | None
    kind: Literal["empty", "human", "bot"]
    bot: str | None = None
    connected: bool = False
    auto: bool = False


class TableInfo(BaseModel):
    """The public facts of a table."""

    code: str
    name: str
    host: str | None
    rules: dict[str, Any]
    rules_name: str
    status: Literal["open", "playing", "over", "closed"]
    turn_timer: float | None
    rated: bool
    private: bool
    seats: list[SeatInfo]
    game_no: int
    spectators: int = 0


class Prompt(BaseModel):
    """The decision asked of *you* now: ``options`` are legal cards or rows.

    ``key`` names this decision: it stays the same while the same decision is
    pending, so a client answers each key once (a card may still be changed).

    ``card`` and ``reason`` are set for a row choice; ``seconds`` is the time
    left on the turn timer (null: no timer).
    """

    kind: Literal["card", "row", "draft"]
    key: str
    options: list[int]
    card: int | None = None
    reason: str | None = None
    seconds: float | None = None


class TableState(_Server):
    """Everything you may know now: the table and your view of the game (RULES.md §6).

    ``you`` is your seat (null for a spectator). ``view`` is null before the
    first game starts; it is :class:`nimmt.engine.View` as JSON.
    """

    type: Literal["table_state"] = "table_state"
    table: TableInfo
    you: int | None
    view: dict[str, Any] | None
    prompt: Prompt | None = None
    ref: Ref = None


class Item(BaseModel):
    """One table stream item: a game ``event`` (filtered for you), a ``notice`` or a ``chat``.

    A notice names what changed (``notice``), the ``seat`` it concerns and, for the default
    player taking a seat over or handing it back (``auto_on``, ``auto_off``), the
    ``reason``: ``timeout``, ``left``, ``kicked``, ``disconnected`` or ``took_over``.
    ``text`` is an English sentence for logs; clients say it in their own language.
    """

    seq: int
    kind: Literal["event", "notice", "chat"]
    event: dict[str, Any] | None = None
    notice: str | None = None
    reason: str | None = None
    seat: int | None = None
    name: str | None = None
    text: str | None = None


class Events(_Server):
    """New table stream items, in order, and the decision now asked of you (if any).

    ``text`` is the narration of the game events among ``items``, as your seat may know
    them, in the language of your ``hello``: one entry per resolution step (a turn's
    reveal and placements, a round's start, its scores, the end of the game).
    """

    type: Literal["events"] = "events"
    items: list[Item]
    prompt: Prompt | None = None
    text: list[str] = []


class LobbyTable(BaseModel):
    """A table in the lobby listing."""

    code: str
    name: str
    host: str | None
    rules_name: str
    seats: int
    taken: int
    status: str


class LobbyList(_Server):
    """The open, public tables."""

    type: Literal["lobby"] = "lobby"
    tables: list[LobbyTable]
    ref: Ref = None


class Pong(_Server):
    """Answer to ``ping``."""

    type: Literal["pong"] = "pong"
    ref: Ref = None


ServerMessage: TypeAlias = Annotated[
    Welcome | Error | Ack | TableState | Events | LobbyList | Pong,
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
        "error_codes": ERROR_CODES,
    }
