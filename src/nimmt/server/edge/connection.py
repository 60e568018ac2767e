"""One WebSocket client: who it is and where (:class:`Connection`), and how frames reach
it (:class:`Outbox`).

Frames to a client wait in its own queue, written by its own task
(:meth:`Outbox.write_loop`), so whoever sends (a table, the people, the edge) never
waits for the client. A client that stops reading is closed, never waited for: when
its unsent frames pass ``send_backlog_bytes``, or when its transport has taken nothing
for ``write_timeout`` seconds (the guard's :class:`~.httpguard.Link` says so). The
close is an abort (the socket's buffers dropped, the peer reset): a polite close would
wait for the peer to read first.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import logging
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Protocol

from starlette.websockets import WebSocket

from ... import wire as P
from ...wire import Sheet
from ..base.limits import Bucket
from ..base.settings import Settings
from ..tables.fanout import echo_ref, error_frame
from .httpguard import Link, link_of

if TYPE_CHECKING:
    from ..cluster import RemoteTable
    from ..tables.table import TableActor

__all__ = ["FRAME_COST", "Connection", "Outbox", "Sent"]

log = logging.getLogger("nimmt.server")

#: What one queued frame costs beyond its characters (the string object and its slot):
#: ``send_backlog_bytes`` counts it, so a flood of tiny frames is bounded too.
FRAME_COST = 64
#: Numbers for connections (how tables tell them apart).
_CONNECTION_IDS = itertools.count(1)


class Sent(Protocol):
    """Where the frames sent are counted (the metrics)."""

    frames_out: int


class Outbox:
    """The frames on their way to one client, and how it is closed."""

    def __init__(self, ws: WebSocket, settings: Settings, address: str,
                 sent: Sent | None = None, refused: Callable[[str], None] | None = None) -> None:
        self.ws = ws
        self.address = address
        #: The transport's controls, when served by the guard (edge/httpguard.py).
        self.link: Link | None = link_of(ws.scope)
        if self.link is not None:
            self.link.on_stall = self._stalled
        self.backlog = settings.send_backlog_bytes
        self.write_timeout = settings.write_timeout
        #: Where frames sent, and slow readers closed, are counted.
        self.sent = sent
        self.refused = refused
        #: Bytes of frames queued and not yet handed to the transport (plus FRAME_COST each).
        self.unsent = 0
        #: Whether the server closed this client for not reading (:meth:`close_slow`).
        self.cut_slow = False
        self.out: asyncio.Queue[str | None] = asyncio.Queue()
        self.gone = False
        #: Why the server closes the connection (a client that stopped reading, a flooder).
        self.close_reason = "too slow"
        #: Whether the server is closing this connection (a last frame is on its way).
        self.closing = False
        #: The close code when the server closes (1008 policy; 1012 the table moved).
        self.close_code = 1008

    def send(self, text: str) -> None:
        """Send ``text``; never waits. With nothing queued before it, the frame goes to the
        transport at once (no task switch, no ASGI layers: a table sends a frame to every
        seat after every turn); else it is queued for :meth:`write_loop`. Past
        ``send_backlog_bytes`` waiting (in the queue, or in a transport the client does
        not empty) the connection is closed instead (one frame alone always fits)."""
        if self.gone:
            return
        link = self.link
        if link is not None and not self.unsent and link.write_text(text):
            if self.sent is not None:
                self.sent.frames_out += 1
            if link.buffered() > self.backlog:
                self.close_slow(f"more than {self.backlog} bytes waiting (send_backlog_bytes)")
            return
        size = len(text) + FRAME_COST
        if self.unsent and self.unsent + size > self.backlog:
            self.close_slow(f"more than {self.backlog} bytes waiting (send_backlog_bytes)")
            return
        self.unsent += size
        self.out.put_nowait(text)
        if self.sent is not None:
            self.sent.frames_out += 1

    async def write_loop(self) -> None:
        while True:
            text = await self.out.get()
            if text is None:
                with contextlib.suppress(Exception):
                    await self.ws.close(code=self.close_code, reason=self.close_reason)
                return
            try:
                await self.ws.send_text(text)
            except Exception:
                self.gone = True
                return
            self.unsent = max(0, self.unsent - len(text) - FRAME_COST)

    def close_slow(self, why: str) -> None:
        """Close a client that does not take what it is sent: logged (its address, the bytes
        it left unsent), counted (``slow_reader``), its queue dropped now, its transport
        aborted. Without the guard's link (an app served otherwise) the close is polite."""
        if self.cut_slow:
            return
        self.cut_slow = True
        buffered = self.link.buffered() if self.link is not None else 0
        log.warning("closed a connection from %s that does not read: %d bytes unsent (%s)",
                    self.address, self.unsent + buffered, why)
        if self.refused is not None:
            self.refused("slow_reader")
        self.gone = True
        self.unsent = 0
        while not self.out.empty():
            self.out.get_nowait()
        if self.link is not None:
            self.link.abort()
        else:
            self.out.put_nowait(None)

    def _stalled(self) -> None:
        self.close_slow(f"nothing taken for {self.write_timeout:g} s (write_timeout)")

    def close(self, code: int, reason: str) -> None:
        """Close with ``code`` once what is queued has gone out."""
        self.close_code = code
        self.close_reason = reason
        self.closing = True
        self.gone = True
        self.out.put_nowait(None)


class Connection:
    """One WebSocket client: who it is (its ``hello``), where (its table, here or at another
    process), what it may still send (its rate), and its :class:`Outbox`."""

    def __init__(self, outbox: Outbox, settings: Settings) -> None:
        self.outbox = outbox
        #: This connection's number, unique in this process.
        self.id = next(_CONNECTION_IDS)
        #: The client address as counted by the limits (:func:`~.base.limits.address_key`).
        self.address = outbox.address
        self.player_id = 0
        self.name = ""
        #: The session this connection's ``hello`` used or made (people/accounts.py).
        self.session_id = 0
        #: The narration language of this connection (its ``hello`` says which).
        self.lang = "en"
        self.seq = 0
        #: The last sheet a table sent this connection, whole (its ``events`` carry changes).
        self.sheet: Sheet | None = None
        self.table: TableActor | None = None
        #: The table this connection is at when another server process owns it.
        self.remote: RemoteTable | None = None
        #: Whether a hint this connection asked for is being computed (one at a time).
        self.hinting = False
        #: The names of the players this one muted or blocked: their chat is not sent here.
        self.silenced: frozenset[str] = frozenset()
        self.rate = Rate(settings)

    @property
    def gone(self) -> bool:
        return self.outbox.gone

    @property
    def closing(self) -> bool:
        """Whether the server is closing this connection (a last frame is on its way)."""
        return self.outbox.closing

    def send(self, text: str) -> None:
        """Send ``text``; never waits (:meth:`Outbox.send`)."""
        self.outbox.send(text)

    def error(self, code: P.CodeLike, message: str, ref: P.Ref = None,
              retry_after: float | None = None) -> None:
        self.send(error_frame(self.seq, code, message, ref, self.lang, retry_after))

    def cut_off(self, code: P.CodeLike, message: str) -> None:
        """Send a last error and close (policy violation) once it has gone out."""
        self.error(code, message)
        self.outbox.close(self.outbox.close_code, code)

    def drop(self, reason: str = "the table moved: reconnect") -> None:
        """Close with 1012 (service restart), once what is queued has gone out: the table
        moved to another server process, or this one stops; the client reconnects (through
        any process) and carries on from its last ``seq``."""
        if not self.outbox.gone:
            self.outbox.close(1012, reason)

    def throttled(self, message: str, frame: str | bytes = "") -> None:
        """A frame refused for rate: say so at most once a second (no echo for a flood),
        with the frame's ``ref`` (read only then: a flood's frames are never parsed)."""
        now = time.monotonic()
        if now - self.rate.told >= 1.0:
            self.rate.told = now
            text = frame if isinstance(frame, str) else frame.decode("utf-8", "replace")
            self.error("rate_limited", message, echo_ref(text) if text else None)


class Rate:
    """What one connection may still send: its bucket of messages, and the frames refused
    in a row (past ``flood_cutoff`` it is closed)."""

    def __init__(self, settings: Settings) -> None:
        self.bucket = Bucket(settings.rate, float(settings.burst))
        #: Frames refused for rate since the last one that passed.
        self.refused = 0
        #: When the client was last told it sends too fast.
        self.told = 0.0
