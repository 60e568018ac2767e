"""What an HTTP route takes from its URL, checked before anything is looked up.

A stranger can put anything in a path: ids past the 64-bit range (SQLite raises
OverflowError, PostgreSQL refuses the parameter), NUL bytes (PostgreSQL text
cannot hold them), 5,000 digits (``int()`` gives up past 4,300), other scripts'
digits and underscores that ``int()`` quietly takes. Each helper here turns such
input into :class:`BadParam`, which a route answers with its status (400 for what
is malformed, 404 for what is well formed and cannot exist), so the API answers
4xx to bad input and never 5xx. A read that is well asked and cannot be answered now
(a limit, a busy pool, a table between processes) is a :class:`ReadRefused`.
"""

from __future__ import annotations

import re
import unicodedata

from ...narrate import Narrator, UnknownLanguage, narrator
from .text import NAME_MAX

__all__ = ["ID_MAX", "BadParam", "ReadRefused", "player_names", "row_id", "shown",
           "table_code", "whole_number"]

#: Largest id a row can have: the ids are ``sa.Integer`` columns, 32 bits on PostgreSQL
#: (which refuses a larger parameter: "integer out of range"); SQLite's hold 64.
ID_MAX = 2**31 - 1
# ASCII digits only: int() also reads "١٢", " 12 " and "1_2".
_WHOLE = re.compile(r"-?[0-9]{1,30}")
_CODE = re.compile(r"[A-Za-z0-9]{1,16}")


class BadParam(Exception):
    """A path or query value a route refuses, with the HTTP status to answer."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = message


class ReadRefused(Exception):
    """A read that cannot be answered now: the HTTP status, the English details, the
    seconds to wait (``Retry-After``) and the error code whose sentence a person hears.
    Refused here before any work, or by the cluster when the process that holds a table
    cannot answer."""

    def __init__(self, status: int, message: str, retry: int = 1,
                 code: str = "server_busy") -> None:
        super().__init__(message)
        self.status = status
        self.message = message
        self.retry = retry
        self.code = code


def speaker(raw: str | None) -> Narrator:
    """The narrator of a ``lang`` query value (English when absent), or 400 for a language
    without a catalog."""
    try:
        return narrator((raw or "en")[:35])
    except UnknownLanguage as exc:
        raise BadParam(400, str(exc)) from None


def shown(raw: str, limit: int = 40) -> str:
    """``raw`` quoted for an error message, cut to ``limit`` characters."""
    return repr(raw if len(raw) <= limit else raw[:limit] + "…")


def whole_number(raw: str, what: str) -> int:
    """An integer written in ASCII digits (a sign allowed), at most 30 of them.

    >>> whole_number("-12", "after")
    -12
    >>> whole_number("1_0", "after")
    Traceback (most recent call last):
    ...
    nimmt.server.base.params.BadParam: after is a whole number, not '1_0'
    """
    if not _WHOLE.fullmatch(raw):
        raise BadParam(400, f"{what} is a whole number, not {shown(raw)}")
    return int(raw)


def row_id(raw: str, what: str) -> int:
    """The id of a stored row: ASCII digits (else 400), from 1 to :data:`ID_MAX` (else
    404: no row has it, and no database is asked)."""
    if not re.fullmatch(r"[0-9]+", raw):
        raise BadParam(400, f"a {what} id is a number, not {shown(raw)}")
    if len(raw) > 12 or not 1 <= int(raw) <= ID_MAX:
        raise BadParam(404, f"no {what} {shown(raw)}")
    return int(raw)


def table_code(raw: str) -> str:
    """A table code as the tables are keyed (upper case): 1 to 16 ASCII letters and digits."""
    code = raw.strip()
    if not _CODE.fullmatch(code):
        raise BadParam(404, f"no open table has the code {shown(raw)}")
    return code.upper()


def player_names(raw: str) -> list[str]:
    """The names to look a player up by: ``raw`` and its NFC form (names are kept in NFC
    since migration 0002; older ones as typed). A name no player can have (longer than
    :data:`~.text.NAME_MAX`, or holding a control character, which PostgreSQL text cannot
    even hold when it is NUL) is refused before the database is asked."""
    if any(unicodedata.category(ch) in ("Cc", "Cs") for ch in raw):
        raise BadParam(400, "a player name holds no control characters")
    if len(raw) > NAME_MAX * 4:
        raise BadParam(404, f"no player named {shown(raw)}")
    nfc = unicodedata.normalize("NFC", raw)
    return [raw] if nfc == raw else [nfc, raw]
