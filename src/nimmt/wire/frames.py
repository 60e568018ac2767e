"""Reading a frame: the limits a stranger's text meets before any model sees it, the parse
of each direction, the refusal a bad frame gets, and the JSON Schema of both directions.

>>> msg = parse_client('{"type": "play_card", "card": 55}')
>>> type(msg).__name__, msg.card
('PlayCard', 55)
"""

from __future__ import annotations

import json
import re
from typing import Any

from pydantic import TypeAdapter, ValidationError

from ..error_codes import CodeLike, ErrorCode, error_codes
from .advice import GameAnalysis
from .to_client import ServerMessage
from .to_server import PROTOCOL_VERSION, ClientMessage

__all__ = ["MAX_DEPTH", "MAX_DEPTH_CEILING", "MAX_NUMBER", "ProtocolError", "load_json",
           "nesting_depth", "parse_client", "parse_server", "protocol_schema"]


class ProtocolError(Exception):
    """A refusal to send back as an :class:`Error` message."""

    def __init__(self, code: CodeLike, message: str,
                 retry_after: float | None = None) -> None:
        super().__init__(message)
        self.code = ErrorCode(code)
        self.message = message
        #: The seconds to wait before asking again, for a refusal that passes.
        self.retry_after = retry_after


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
    nimmt.wire.frames.ProtocolError: arrays and objects nest at most 2 deep here, not 4
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
