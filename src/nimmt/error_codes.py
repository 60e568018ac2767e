"""The codes of the server's refusals, each declared once with what it means.

An ``error`` message's ``code`` (docs/protocol.md) is one of these. The protocol's
JSON Schema lists them from here (its ``error_codes`` and the ``code`` field's enum),
and the narration keys its refusal sentences by them, so a code cannot be added to
one and forgotten in another. This module imports nothing of the engine or the
server: the narration, the clients and the server all read it.

>>> ErrorCode("bad_json") is ErrorCode.BAD_JSON, ErrorCode.BAD_JSON == "bad_json"
(True, True)
>>> ErrorCode.NO_SUCH_ROW.description
'rows are numbered 1 to 4'
"""

from __future__ import annotations

from enum import StrEnum
from typing import TypeAlias

__all__ = ["CodeLike", "ErrorCode", "error_codes"]


class ErrorCode(StrEnum):
    """A refusal's code: its value is the wire string, ``description`` what it means."""

    description: str

    def __new__(cls, value: str, description: str = "") -> ErrorCode:
        member = str.__new__(cls, value)
        member._value_ = value
        member.description = description
        return member

    BAD_JSON = "bad_json", "the frame is not a JSON object"
    BAD_MESSAGE = (
        "bad_message",
        "unknown message type, wrong or missing fields, or past a parser limit (nesting "
        "depth, number length, a lone surrogate)"
    )
    FRAME_TOO_LARGE = "frame_too_large", "the frame is larger than the server accepts"
    RATE_LIMITED = "rate_limited", "too many messages; slow down"
    VERSION = "version", "the client speaks a protocol version the server does not"
    NOT_AUTHENTICATED = "not_authenticated", "send hello first"
    BAD_TOKEN = "bad_token", "the token is wrong"
    BAD_NAME = (
        "bad_name",
        "the display name is empty, too long, shows nothing, or holds control or "
        "invisible characters"
    )
    BAD_LANGUAGE = "bad_language", "no narration in that language (en, sr, cs)"
    NAME_TAKEN = (
        "name_taken",
        "that name, or one that looks like it, belongs to another player or is used at "
        "this table"
    )
    NO_TABLE = "no_table", "no table has that code"
    NOT_AT_TABLE = "not_at_table", "join or spectate a table first"
    TABLE_FULL = "table_full", "every seat is taken"
    SEAT_TAKEN = "seat_taken", "that seat is taken"
    NO_SEAT = "no_seat", "there is no such seat, or it is empty"
    NOT_SEATED = "not_seated", "only a seated player may do that"
    SPECTATOR = "spectator", "spectators watch; they do not act"
    NOT_HOST = "not_host", "only the host may do that"
    BAD_RULES = "bad_rules", "the rules are not valid"
    BAD_BOT = "bad_bot", "this server offers no bot of that name (the message lists those it does)"
    NOT_STARTED = "not_started", "the game has not started"
    ALREADY_STARTED = "already_started", "the game has already started"
    NOT_OVER = "not_over", "the game is not over yet"
    SEATS_EMPTY = "seats_empty", "a seat is still empty"
    NOT_YOUR_TURN = "not_your_turn", "that decision is not yours to make now"
    CARD_NOT_IN_HAND = "card_not_in_hand", "that card is not in your hand (or not in the pool)"
    NO_SUCH_ROW = "no_such_row", "rows are numbered 1 to 4"
    GAME_OVER = "game_over", "the game is over"
    CHAT_TOO_LONG = "chat_too_long", "the chat message is too long"
    CHAT_EMPTY = "chat_empty", "the chat message is empty"
    CLOSED = "closed", "the table is closed"
    KICKED = "kicked", "the host removed you from this table"
    INTERNAL = "internal", "the server failed; the table's state is unchanged"
    FLOODING = "flooding", "too many refused messages: the connection is closed"
    TOO_MANY_CONNECTIONS = "too_many_connections", "too many connections from one address"
    SERVER_FULL = "server_full", "the server holds as many tables or connections as it may"
    QUOTA = "quota", "a limit per player or address is reached (tables, new names, chat, games)"
    TOO_MANY_CHANGES = "too_many_changes", "the chosen card was changed too often this turn"
    HINTS_OFF = (
        "hints_off",
        "hints are off at this table (always in rated games; the host may turn them off)"
    )
    HINT_PENDING = (
        "hint_pending",
        "a hint you asked for (on any connection, at any table) is still being computed"
    )
    BUSY = "busy", "the server is computing as many hints and analyses as it may; ask again later"
    SIGN_IN_FAILED = (
        "sign_in_failed",
        "the name and password (or recovery code) do not match an account"
    )
    SIGN_IN_LIMITED = (
        "sign_in_limited",
        "too many failed sign-ins on that account or from that address: wait the seconds "
        "the message says"
    )
    SIGN_IN_BUSY = (
        "sign_in_busy",
        "the server is checking as many passwords as it may; ask again in a moment"
    )
    WEAK_PASSWORD = (
        "weak_password",
        "a password is too short or too long (the message says the bounds)"
    )
    NO_PASSWORD = "no_password", "that needs an account: add a password to your player first"
    SIGNED_OUT = "signed_out", "this session was ended (signed out); the connection is closed"
    NO_SESSION = "no_session", "you have no session with that id"
    BANNED = "banned", "the operator banned this player or address; the connection is closed"
    MUTED = "muted", "the operator muted this player: chat is refused"
    SERVER_BUSY = (
        "server_busy",
        "the server rebuilds as many older items and game replays as it may; ask again in"
        " a moment"
    )
    NO_PLAYER = "no_player", "no player has that name"
    NO_INVITATION = (
        "no_invitation",
        "no invitation of yours has that id, or it was answered or expired"
    )
    NOT_FRIENDS = (
        "not_friends",
        "private messages go between friends (players who follow each other)"
    )
    BLOCKED = "blocked", "someone at that table blocked you: you cannot sit there"
    RESTARTING = (
        "restarting",
        "this server process is stopping (a restart or an upgrade): it takes no new "
        "table, and its connections close with code 1012; reconnect and carry on"
    )


#: A code as the enum or as its wire string: the server's many refusals name theirs by the
#: string (``ProtocolError("no_table", ...)``), which :class:`ErrorCode` checks when the
#: refusal is made (an unknown string raises ``ValueError``), and a test reads every one.
CodeLike: TypeAlias = ErrorCode | str


def error_codes() -> dict[str, str]:
    """Every code with what it means, in declaration order (the schema's ``error_codes``)."""
    return {code.value: code.description for code in ErrorCode}
