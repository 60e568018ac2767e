"""What the processes of a cluster say to each other through Redis, and how a message is
checked before it is believed.

Redis is a trust boundary (docs/scaling.md): whoever can publish on it could
otherwise speak for any process, for instance bring a connection to a table as
any player, with no token. So every message is:

- **sealed** (:class:`Sealer`): an HMAC-SHA256, under the key every process of the
  cluster shares, over the channel it is published on, its sender, the sender's
  message number, its time and its body. A message without a seal, with a wrong
  one, or moved to another channel is dropped;
- **fresh and new**: each process numbers its messages from 1 under a sender id
  drawn at its start, and a receiver refuses a number not above the last one it
  took from that sender (what Redis delivers from one publisher keeps its order),
  and any message stamped more than ``cluster_window`` seconds from its own clock;
- **read as strictly as a client's frame** (:func:`parse_body`): the limits of the
  protocol's parser (:func:`~nimmt.wire.load_json`: no ``NaN``, no lone surrogate,
  no endless number, no nesting past a bound, none of it by recursion in Python),
  then one model per kind, with exact types, ranges and sizes, no unknown field
  and no unknown kind.

A message refused at any step is dropped, never raised into the listener, and
counted; the counts are logged at most every :data:`DROP_LOG_EVERY` seconds.
"""

from __future__ import annotations

import hashlib
import hmac
import logging
import secrets
import time
from collections import Counter
from collections.abc import Callable
from typing import Annotated, Literal, TypeAlias

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, ValidationError, field_validator

from ... import wire as P
from ..base.params import ID_MAX
from ..tables.reads import SEQ_MAX, TableRead, languages

__all__ = ["DROP_LOG_EVERY", "NODE_MAX", "NODE_SHIFT", "Batch", "Body", "Drops", "Enter",
           "Forward", "Moved", "NodeAnswer", "NodeAsk", "NodeLeave", "NodeRefused", "Sealer",
           "moved", "parse_body"]

log = logging.getLogger("nimmt.server")

#: Remote connections' numbers at an owner: the edge's node above these bits, so they never
#: meet the owner's own connections' numbers (which count from 1) or another edge's.
NODE_SHIFT = 40
#: The highest process number: a remote connection's number stays below 2⁶³.
NODE_MAX = (1 << 22) - 1
#: Seconds between two log lines about dropped messages (a flood of forgeries logs little).
DROP_LOG_EVERY = 10.0
#: The longest client message forwarded to an owner: a frame the edge read (at most
#: ``max_frame``, itself at most 1 MiB) written again, with room for escapes.
FORWARD_MAX = 2 << 20
#: Bytes of the seal in front of a message: the HMAC-SHA256 in hex.
_MAC_HEX = 64

_Strict = ConfigDict(extra="forbid")
Node: TypeAlias = Annotated[int, Field(strict=True, ge=1, le=NODE_MAX)]
ConnNo: TypeAlias = Annotated[int, Field(strict=True, ge=1, lt=1 << NODE_SHIFT)]
Seq: TypeAlias = Annotated[int, Field(strict=True, ge=0, le=SEQ_MAX)]
PlayerId: TypeAlias = Annotated[int, Field(strict=True, ge=1, le=ID_MAX)]
#: A request's number at the process that asked.
RequestNo: TypeAlias = Annotated[int, Field(strict=True, ge=1, le=SEQ_MAX)]
#: What a batch or an answer carries: frames for clients, or an answer's JSON; the size
#: of the whole message is bounded before it is read (``cluster_message_max``).
Text: TypeAlias = Annotated[str, Field(strict=True)]


class _FromEdge(BaseModel):
    """What an edge says about one of its connections, to the owner of its table."""

    model_config = _Strict
    t: P.Code
    """The table's code."""
    n: Node
    """The edge's process number."""
    c: ConnNo
    """The connection's number at the edge."""
    p: PlayerId
    """The player the edge said hello to on that connection (its token checked there)."""
    nm: Annotated[str, Field(strict=True, min_length=1, max_length=64)]
    """The player's name."""
    l: Annotated[str, Field(strict=True, max_length=35)]  # noqa: E741 (the wire's name)
    """The connection's narration language."""

    @field_validator("l")
    @classmethod
    def _spoken(cls, value: str) -> str:
        if value not in languages():
            raise ValueError(f"no narration in {value!r}")
        return value


class Enter(_FromEdge):
    """A connection joins or watches the table."""

    k: Literal["in"]
    m: Literal["join", "spectate"]
    s: Seq | None
    """The client's ``last_seq``."""
    r: P.Ref
    """The client's ``ref``."""


class Forward(_FromEdge):
    """A table message from a connection, as the client's frame (parsed again at the
    owner with the client's own parser)."""

    k: Literal["msg"]
    x: Annotated[str, Field(strict=True, max_length=FORWARD_MAX)]


class NodeLeave(_FromEdge):
    """A connection left the table (or closed)."""

    k: Literal["out"]


#: One entry of a batch: a frame for connection ``c`` with its ``seq`` (``f``), or a note
#: that it left table ``code`` (``l``) or must reconnect (``d``).
Entry: TypeAlias = tuple[ConnNo, Literal["f", "l", "d"], Text, Seq]


class Batch(BaseModel):
    """What an owner sends the connections of one edge in one turn of its event loop."""

    model_config = _Strict
    k: Literal["b"]
    e: Annotated[list[Entry], Field(min_length=1)]


class Moved(BaseModel):
    """A table has a new owner (on the ``moved`` channel, to every process)."""

    model_config = _Strict
    k: Literal["mv"]
    t: P.Code
    n: Annotated[int, Field(strict=True, ge=0, le=NODE_MAX)]
    """The new owner, or 0: none yet (a draining process let it go)."""


class NodeAsk(BaseModel):
    """An HTTP read of a table, sent to its owner (:mod:`.reads`)."""

    model_config = _Strict
    k: Literal["rq"]
    t: P.Code
    n: Node
    """The asking process, which the answer goes to."""
    i: RequestNo
    q: TableRead


class NodeAnswer(BaseModel):
    """The owner's answer to :class:`NodeAsk` ``i``: the JSON text, or None when the table is
    not (or no longer) here."""

    model_config = _Strict
    k: Literal["rs"]
    i: RequestNo
    a: Text | None


Body: TypeAlias = Enter | Forward | NodeLeave | Batch | Moved | NodeAsk | NodeAnswer
_BODY: TypeAdapter[Body] = TypeAdapter(Annotated[Body, Field(discriminator="k")])


class NodeRefused(Exception):
    """A message from Redis that is not believed; ``reason`` says why (for the log)."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


def moved(code: str, node: int) -> str:
    """The body announcing that table ``code`` is now owned by process ``node`` (0: by
    none, a draining process let it go), made by the model every process reads it with."""
    return Moved(k="mv", t=code, n=node).model_dump_json()


def parse_body(text: str) -> Body:
    """A message's body, checked as strictly as a client's frame, or :class:`NodeRefused`.

    Parsed by pydantic-core's JSON parser straight into the models: it refuses what
    :func:`~nimmt.wire.load_json` refuses (``NaN``, a lone surrogate, a number of
    thousands of digits, nesting past its limit, without recursing in Python), and the
    models accept no nesting beyond their own shape (three levels, a batch's entries).
    It reads a batch of frames some thirty times faster than ``load_json`` and the
    models together would (``load_json`` scans the frames' brackets for their depth):
    the bodies through Redis are many, every frame a remote seat gets."""
    try:
        return _BODY.validate_json(text)
    except ValidationError as exc:
        err = exc.errors()[0]
        where = ".".join(str(x) for x in err["loc"]) or "body"
        raise NodeRefused(f"malformed: {where}: {err['msg']}") from None


class Sealer:
    """Seals this process's messages and opens (checks) everyone's, under ``key``."""

    def __init__(self, key: bytes, window: float, largest: int,
                 clock: Callable[[], float] = time.time) -> None:
        self._key = key
        #: Seconds a message stays valid, either way of the receiver's clock.
        self.window = window
        #: Bytes of the largest message taken.
        self.largest = largest
        self._clock = clock
        #: This process's sender id: new at every start, so its numbers start afresh.
        self.sender = secrets.token_hex(8).encode()
        self._sent = 0
        #: Seconds from the last message opened being sealed to its opening: its way
        #: through Redis (as far as the two processes' clocks agree).
        self.age = 0.0
        #: Sender id → (the newest number taken from it, when).
        self._seen: dict[bytes, tuple[int, float]] = {}

    def _mac(self, channel: bytes, signed: bytes) -> bytes:
        return hmac.new(self._key, channel + b"\n" + signed, hashlib.sha256).hexdigest().encode()

    def seal(self, channel: bytes, body: bytes) -> bytes:
        """``body`` as it is published on ``channel``: ``mac|sender|number|ms|body``. Sealed
        in the order the messages are published, so the numbers rise as they arrive."""
        self._sent += 1
        signed = b"%s|%d|%d|%s" % (self.sender, self._sent, int(self._clock() * 1000), body)
        return self._mac(channel, signed) + b"|" + signed

    def open(self, channel: bytes, data: bytes) -> str:
        """The body of ``data`` received on ``channel``, or :class:`NodeRefused`."""
        if len(data) > self.largest:
            raise NodeRefused(f"larger than {self.largest} bytes")
        if len(data) <= _MAC_HEX or data[_MAC_HEX:_MAC_HEX + 1] != b"|":
            raise NodeRefused("not sealed")
        signed = data[_MAC_HEX + 1:]
        if not hmac.compare_digest(data[:_MAC_HEX], self._mac(channel, signed)):
            raise NodeRefused("bad seal")
        parts = signed.split(b"|", 3)
        if len(parts) != 4 or not (parts[1].isdigit() and parts[2].isdigit()) \
                or len(parts[1]) > 19 or len(parts[2]) > 19:
            raise NodeRefused("malformed seal")
        sender, number, stamp = parts[0], int(parts[1]), int(parts[2])
        now = self._clock()
        if abs(now - stamp / 1000) > self.window:
            raise NodeRefused(f"stamped {now - stamp / 1000:.0f} s ago (more than {self.window:g})")
        last = self._seen.get(sender)
        if last is not None and number <= last[0]:
            raise NodeRefused("replayed")
        try:
            body = parts[3].decode()
        except UnicodeDecodeError:
            raise NodeRefused("malformed: not UTF-8") from None
        self._seen[sender] = (number, now)
        self.age = now - stamp / 1000
        return body

    def forget(self) -> None:
        """Forget the senders not heard from for two windows: any message of theirs that
        could be replayed now is older than a window, and refused for its age."""
        old = self._clock() - 2 * self.window
        for sender in [s for s, (_, when) in self._seen.items() if when < old]:
            del self._seen[sender]

    def sign(self, name: str, value: str) -> str:
        """``value`` as it is stored under ``name`` in Redis (a lobby line): ``mac|value``."""
        return self._mac(b"value:" + name.encode(), value.encode()).decode() + "|" + value

    def unsign(self, name: str, raw: bytes) -> str:
        """The value :meth:`sign` stored under ``name``, or :class:`NodeRefused`."""
        if len(raw) > self.largest or raw[_MAC_HEX:_MAC_HEX + 1] != b"|":
            raise NodeRefused("not signed")
        value = raw[_MAC_HEX + 1:]
        if not hmac.compare_digest(raw[:_MAC_HEX], self._mac(b"value:" + name.encode(), value)):
            raise NodeRefused("bad seal")
        try:
            return value.decode()
        except UnicodeDecodeError:
            raise NodeRefused("malformed: not UTF-8") from None


class Drops:
    """Messages from Redis that were dropped: counted by reason, logged at most every
    :data:`DROP_LOG_EVERY` seconds (the first at once)."""

    def __init__(self) -> None:
        self.total = 0
        self._since: Counter[str] = Counter()
        self._logged = -DROP_LOG_EVERY
        self._last = ""

    def drop(self, reason: str) -> None:
        self.total += 1
        self._since[reason.split(":", 1)[0]] += 1
        self._last = reason
        self.flush()

    def flush(self) -> None:
        """Log what was dropped since the last line, if a line is due."""
        now = time.monotonic()
        if not self._since or now - self._logged < DROP_LOG_EVERY:
            return
        counts = ", ".join(f"{n} {why}" for why, n in self._since.most_common())
        log.warning("dropped %d message(s) from Redis that this cluster did not send or that "
                    "were malformed (%s; the last: %s)", sum(self._since.values()), counts,
                    self._last)
        self._since.clear()
        self._logged = now
