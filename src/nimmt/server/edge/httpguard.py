"""The guard at the HTTP layer: what a connection may hold before the app sees it.

uvicorn reads a request's headers for as long as the client takes, holds any
number of connections from one address, and closes a WebSocket whose client
stopped reading politely, which needs that client to read. So a stranger could
hold the server's file descriptors with half-sent requests (slowloris), and a
client that never reads kept its frames, its transport buffer and its kernel
buffers for ever. The guard is uvicorn's own protocols, subclassed
(:func:`guarded`, given to ``uvicorn.Config`` as ``http`` and ``ws``):

- **Header timeout.** A request's headers, and its body if it has one, must arrive
  within ``header_timeout`` seconds of the moment the server waits for them (the
  connection opened, or the previous answer went out); otherwise the connection is
  answered 408 and closed. Keep-alive and WebSocket upgrades work as before: the
  timer stops once the request is in.
- **Connections per address and in all.** A TCP connection is counted from its
  accept to its close, the WebSocket it may become included, under its peer's
  address (IPv6 by its /64, as the limits on frames count). Past
  ``tcp_per_address`` from one address it is answered 429 and closed at once,
  before anything is read; past the open-file limit less ``fd_reserve`` in all,
  503. A peer listed in ``trusted_proxies`` is not counted per address: all its
  connections are many people's, so the proxy must bound its clients itself.
- **Writes that do not finish.** A WebSocket whose transport is full (its buffer
  over the high-water mark, so the app's writes wait) and has taken no byte for
  ``write_timeout`` seconds is aborted; one that drains, however slowly, is not.
  The app is told first through its :class:`Link`, to log what it had not sent.
  A WebSocket that does not answer a ping (uvicorn's keep-alive: 20 s apart, 20 s
  to answer) is aborted too, and so is every other close still waiting for its
  peer after the close's own wait plus ``write_timeout``: a polite close waits for
  a peer that never reads for ever. An abort discards what the transport and the
  socket hold (``SO_LINGER`` 0: the peer is reset), and each socket's kernel
  buffer is held to :data:`SEND_BUFFER`.
- **Out of descriptors.** asyncio logs a traceback for every refused ``accept``,
  thousands a second once the process has no descriptor left; the guard's handler
  (:func:`quiet_accept_errors`) says it in one line per interval instead.

Refusals are counted in the metrics' refusals and logged at most once per
:data:`LOG_EVERY` seconds per kind, with how many there were: a flood of
half-sent requests is not a flood of log lines.
"""

from __future__ import annotations

import asyncio
import contextlib
import errno
import ipaddress
import logging
import socket
import struct
from collections import Counter
from collections.abc import Callable
from typing import Any, ClassVar

import h11
from uvicorn.protocols.http.h11_impl import H11Protocol
from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol
from websockets.exceptions import InvalidState
from websockets.http11 import Request

from ..base.limits import address_key
from ..base.settings import Settings

try:
    import resource
except ImportError:  # pragma: no cover - not on Unix
    resource = None  # type: ignore[assignment]

__all__ = ["LOG_EVERY", "SEND_BUFFER", "Guard", "Link", "guarded", "link_of", "open_file_limit",
           "quiet_accept_errors", "raise_open_file_limit"]

log = logging.getLogger("nimmt.server")

#: Seconds between two log lines of one kind of refusal (the count says how many).
LOG_EVERY = 10.0
#: Errors of ``accept`` that mean the process or the machine is out of a resource.
_OUT_OF = (errno.EMFILE, errno.ENFILE, errno.ENOBUFS, errno.ENOMEM)
#: The kernel's send buffer of each connection (``SO_SNDBUF``; Linux keeps twice this for
#: its bookkeeping). Left to itself Linux grows it up to ``tcp_wmem``'s maximum, 4 MiB,
#: even toward a client that reads nothing; 256 KiB is 2.5 MB/s at a 100 ms round trip.
SEND_BUFFER = 256 * 1024
#: ``SO_LINGER`` on, with no time: closing discards what the socket still holds (a reset).
_RESET = struct.pack("ii", 1, 0)


def open_file_limit() -> int:
    """The process's open-file limit (its soft ``RLIMIT_NOFILE``)."""
    if resource is None:  # pragma: no cover - not on Unix
        return 1 << 16
    soft, _hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    return soft if soft != resource.RLIM_INFINITY else 1 << 20


def raise_open_file_limit() -> int:
    """Raise the open-file limit to its hard limit (every connection is a descriptor;
    systemd's default soft limit is 1,024); returns the limit now."""
    if resource is not None:
        soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
        if soft != hard:
            with contextlib.suppress(ValueError, OSError):  # a limit the OS will not give
                resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    return open_file_limit()


class Proxies:
    """The peers named by ``trusted_proxies``: addresses, networks, or ``*`` (any)."""

    def __init__(self, spec: str) -> None:
        self.any = False
        self.networks: list[ipaddress.IPv4Network | ipaddress.IPv6Network] = []
        self.names: set[str] = set()
        for item in (p.strip() for p in spec.split(",")):
            if item == "*":
                self.any = True
            elif item:
                try:
                    self.networks.append(ipaddress.ip_network(item, strict=False))
                except ValueError:
                    self.names.add(item)  # a literal peer name (a Unix socket's, say)

    def __contains__(self, host: str) -> bool:
        if self.any or host in self.names:
            return True
        try:
            ip = ipaddress.ip_address(host)
        except ValueError:
            return False
        if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
            ip = ip.ipv4_mapped
        return any(ip in net for net in self.networks)


class Tally:
    """Counts events by kind and logs them: the first of a kind at once, then at most
    one line per :data:`LOG_EVERY` seconds, the newest event with how many there were."""

    def __init__(self, counts: Counter[str]) -> None:
        self.counts = counts
        #: Kinds logged less than LOG_EVERY seconds ago (a line is due at the window's end).
        self._open: set[str] = set()
        #: Per kind: events not logged in the current window, the newest one's message.
        self._quiet: dict[str, tuple[int, str, tuple[object, ...]]] = {}

    def note(self, kind: str, message: str, *args: object) -> None:
        self.counts[kind] += 1
        if kind in self._open:
            n = self._quiet[kind][0] if kind in self._quiet else 0
            self._quiet[kind] = (n + 1, message, args)
            return
        log.warning(message, *args)
        self._open.add(kind)
        asyncio.get_running_loop().call_later(LOG_EVERY, self._flush, kind)

    def _flush(self, kind: str) -> None:
        quiet = self._quiet.pop(kind, None)
        if quiet is None:
            self._open.discard(kind)
            return
        n, message, args = quiet
        log.warning(message + "; %d more in the last %g s", *args, n, LOG_EVERY)
        asyncio.get_running_loop().call_later(LOG_EVERY, self._flush, kind)


class Guard:
    """The connections of one server process, as the HTTP layer sees them."""

    def __init__(self, settings: Settings, counts: Counter[str]) -> None:
        self.header_timeout = settings.header_timeout
        self.write_timeout = settings.write_timeout
        self.per_address = (settings.tcp_per_address if settings.tcp_per_address is not None
                            else settings.connections_per_address + 32)
        #: TCP connections open at once: the open-file limit less what the server keeps.
        self.most = max(16, open_file_limit() - settings.fd_reserve)
        self.proxies = Proxies(settings.trusted_proxies)
        self.tally = Tally(counts)
        #: Open TCP connections: each transport's address key (None: a trusted proxy's).
        self.open: dict[asyncio.BaseTransport, str | None] = {}
        self.by_address: Counter[str] = Counter()

    def admit(self, transport: asyncio.Transport) -> tuple[int, str] | None:
        """Count a new connection in; or the HTTP status and sentence that refuse it."""
        peer = transport.get_extra_info("peername")
        host = str(peer[0]) if isinstance(peer, (tuple, list)) and peer else ""
        if len(self.open) >= self.most:
            self.tally.note("tcp_server_full", "refused a connection: %d open, as many as "
                            "the open-file limit allows (fd_reserve)", len(self.open))
            return 503, "the server holds as many connections as it may; try later"
        key = None if host in self.proxies else address_key(host or None)
        if key is not None and self.by_address[key] >= self.per_address:
            self.tally.note("tcp_per_address", "refused a connection from %s: %d open "
                            "from there (tcp_per_address)", key, self.by_address[key])
            return 429, f"at most {self.per_address} connections at once from one address"
        self.open[transport] = key
        if key is not None:
            self.by_address[key] += 1
        return None

    def release(self, transport: asyncio.BaseTransport) -> None:
        if transport not in self.open:
            return
        key = self.open.pop(transport)
        if key is not None:
            left = self.by_address[key] - 1
            if left > 0:
                self.by_address[key] = left
            else:
                del self.by_address[key]


def reset(transport: asyncio.BaseTransport) -> None:
    """Close ``transport`` now, dropping what it and its socket still hold."""
    sock = transport.get_extra_info("socket")
    if sock is not None:
        with contextlib.suppress(OSError):  # a socket already gone
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, _RESET)
    if isinstance(transport, asyncio.Transport):
        transport.abort()
    else:  # pragma: no cover - every transport uvicorn gives is one
        transport.close()


def answer_and_close(transport: asyncio.Transport, status: int, reason: str,
                     sentence: str) -> None:
    """A last HTTP answer, then the close (a reset if the peer will not take it)."""
    body = sentence.encode()
    retry = b"retry-after: 10\r\n" if status in (429, 503) else b""
    transport.write(b"HTTP/1.1 %d %s\r\ncontent-type: text/plain; charset=utf-8\r\n"
                    b"content-length: %d\r\nconnection: close\r\n%s\r\n%s"
                    % (status, reason.encode(), len(body), retry, body))
    if transport.get_write_buffer_size():
        reset(transport)
    else:
        transport.close()


class Link:
    """What the app may do with its WebSocket's transport: the ASGI scope extension
    ``nimmt.link`` (``scope["extensions"]["nimmt.link"]["link"]``)."""

    __slots__ = ("_protocol", "on_stall")

    def __init__(self, protocol: GuardedWebSockets) -> None:
        self._protocol = protocol
        #: Called when a write has waited ``write_timeout`` seconds, before the transport is
        #: aborted (the app logs what it had not sent); None: the guard logs it.
        self.on_stall: Callable[[], None] | None = None

    def abort(self) -> None:
        """Close the connection now, without waiting for the peer to read anything."""
        self._protocol.abort()

    def buffered(self) -> int:
        """Bytes in the transport's buffer, not yet taken by the kernel."""
        transport = self._protocol.transport
        return 0 if transport is None else transport.get_write_buffer_size()

    def write_text(self, text: str) -> bool:
        """Frame ``text`` and hand it to the transport now, as the ASGI ``websocket.send``
        does, without its layers and without a task switch: whether it was written (False:
        the connection is not open for frames; the caller sends it the ASGI way, which
        says why). The transport buffers what the kernel does not take yet; the writes'
        deadline (``write_timeout``) watches it as it watches every write."""
        proto = self._protocol
        if (proto.close_sent or proto.initial_response is not None or proto.transport is None
                or proto.transport.is_closing() or not proto.handshake_complete):
            return False
        try:
            proto.conn.send_text(text.encode())
        except InvalidState:
            return False
        proto.transport.write(b"".join(proto.conn.data_to_send()))
        return True


def link_of(scope: Any) -> Link | None:
    """The :class:`Link` of a WebSocket's ASGI scope (None when not served by the guard)."""
    found = (scope.get("extensions") or {}).get("nimmt.link") or {}
    link = found.get("link")
    return link if isinstance(link, Link) else None


class GuardedH11(H11Protocol):
    """uvicorn's HTTP/1.1 protocol with the header timeout and the connection caps."""

    guard: ClassVar[Guard]

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        self._header_timer: asyncio.TimerHandle | None = None
        self._counted = False
        super().connection_made(transport)
        refused = self.guard.admit(transport)
        if refused is not None:
            status, sentence = refused
            phrase = "Too Many Requests" if status == 429 else "Service Unavailable"
            answer_and_close(transport, status, phrase, sentence)
            return
        self._counted = True
        sock = transport.get_extra_info("socket")
        if sock is not None:
            with contextlib.suppress(OSError):
                sock.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, SEND_BUFFER)
        self._wait_for_request(fresh=True)

    def connection_lost(self, exc: Exception | None) -> None:
        self._stop_header_timer()
        if self._counted:
            self.guard.release(self.transport)
        super().connection_lost(exc)

    def data_received(self, data: bytes) -> None:
        super().data_received(data)
        self._wait_for_request(fresh=False)

    def on_response_complete(self) -> None:
        super().on_response_complete()
        self._wait_for_request(fresh=True)

    def handle_websocket_upgrade(self, event: h11.Request) -> None:
        # The WebSocket protocol takes the transport over (and its count: it releases it).
        self._stop_header_timer()
        self._counted = False
        super().handle_websocket_upgrade(event)

    def _wait_for_request(self, fresh: bool) -> None:
        """Run the header timer while a request is awaited or being read; ``fresh``: a new
        wait begins (the connection opened, an answer went out), with a whole timeout."""
        waiting = (self.conn.their_state in (h11.IDLE, h11.SEND_BODY)
                   and not self.transport.is_closing() and self.transport.get_protocol() is self)
        if not waiting:
            self._stop_header_timer()
        elif fresh or self._header_timer is None:
            self._stop_header_timer()
            self._header_timer = self.loop.call_later(self.guard.header_timeout,
                                                      self._header_timed_out)

    def _stop_header_timer(self) -> None:
        if self._header_timer is not None:
            self._header_timer.cancel()
            self._header_timer = None

    def _header_timed_out(self) -> None:
        self._header_timer = None
        if self.transport.is_closing():
            return
        host = self.client[0] if self.client else "unknown"
        self.guard.tally.note("header_timeout", "closed a connection from %s: its request "
                              "did not arrive within %g s (header_timeout)", host,
                              self.guard.header_timeout)
        if self.conn.our_state is h11.IDLE:
            answer_and_close(self.transport, 408, "Request Timeout",
                             f"the request did not arrive within {self.guard.header_timeout:g} "
                             "seconds")
        else:
            reset(self.transport)


class GuardedWebSockets(WebSocketsSansIOProtocol):
    """uvicorn's WebSocket protocol whose writes have a deadline and whose closes end."""

    guard: ClassVar[Guard]

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.link = Link(self)
        self._stall_timer: asyncio.TimerHandle | None = None
        self._stall_mark = 0
        self._reap_timer: asyncio.TimerHandle | None = None
        super().connection_made(transport)

    def connection_lost(self, exc: Exception | None) -> None:
        for timer in (self._stall_timer, self._reap_timer):
            if timer is not None:
                timer.cancel()
        self._stall_timer = self._reap_timer = None
        self.guard.release(self.transport)
        super().connection_lost(exc)

    def handle_connect(self, event: Request) -> None:
        super().handle_connect(event)
        scope = getattr(self, "scope", None)
        if scope is not None:
            scope["extensions"]["nimmt.link"] = {"link": self.link}

    def abort(self) -> None:
        if not self.disconnected and self.transport is not None:
            reset(self.transport)

    def pause_writing(self) -> None:
        super().pause_writing()
        if self._stall_timer is None:
            self._watch_writes()

    def resume_writing(self) -> None:
        super().resume_writing()
        if self._stall_timer is not None:
            self._stall_timer.cancel()
            self._stall_timer = None

    def _watch_writes(self) -> None:
        """Look again in ``write_timeout`` seconds whether the buffer has shrunk since."""
        self._stall_mark = self.transport.get_write_buffer_size()
        self._stall_timer = self.loop.call_later(self.guard.write_timeout, self._stalled)

    def _stalled(self) -> None:
        self._stall_timer = None
        if self.disconnected:
            return
        if self.transport.get_write_buffer_size() < self._stall_mark:
            self._watch_writes()  # slow, but reading: a phone on a poor network
            return
        if self.link.on_stall is not None:
            self.link.on_stall()
        else:
            host = self.client[0] if self.client else "unknown"
            self.guard.tally.note("write_timeout", "aborted a WebSocket from %s: nothing it was "
                                  "sent was taken for %g s (write_timeout)", host,
                                  self.guard.write_timeout)
        self.abort()

    def keepalive_timeout(self) -> None:
        super().keepalive_timeout()
        # No answer to a ping: nobody reads. What the socket still holds for the peer is
        # dropped now rather than kept while the kernel tries to deliver it.
        self.abort()

    async def run_asgi(self) -> None:
        await super().run_asgi()
        # The app is done; its close (or uvicorn's) waits for the peer to take the last
        # bytes and to answer: a peer that never does is reset after the close's own wait.
        if not self.disconnected:
            self._reap_timer = self.loop.call_later(
                self.close_timeout + self.guard.write_timeout, self.abort)


def guarded(guard: Guard) -> tuple[type[GuardedH11], type[GuardedWebSockets]]:
    """The HTTP and WebSocket protocol classes of one server, guarded by ``guard``."""

    class Http(GuardedH11):
        pass

    class WebSockets(GuardedWebSockets):
        pass

    Http.guard = guard
    WebSockets.guard = guard
    return Http, WebSockets


def quiet_accept_errors(loop: asyncio.AbstractEventLoop, tally: Tally
                        ) -> Callable[[], None]:
    """Say a failed ``accept`` (out of descriptors) in one line per interval rather than
    a traceback per attempt; other errors go where they went. Returns the undoing."""
    previous = loop.get_exception_handler()

    def handler(loop: asyncio.AbstractEventLoop, context: dict[str, Any]) -> None:
        exc = context.get("exception")
        message = str(context.get("message", ""))
        if (isinstance(exc, OSError) and exc.errno in _OUT_OF
                and message.startswith("socket.accept()")):
            tally.note("accept_failed", "could not accept connections: %s (open-file limit "
                       "%d)", exc.strerror, open_file_limit())
            return
        if isinstance(exc, (OSError, ValueError)) and "._start_serving(" in message:
            # Each failed accept of a burst schedules its own retry a second later, which
            # fails in turn when the listening socket has closed meanwhile (a shutdown).
            tally.note("accept_retry_failed", "could not listen again after running out of "
                       "descriptors: %s", exc)
            return
        if previous is not None:
            previous(loop, context)
        else:
            loop.default_exception_handler(context)

    loop.set_exception_handler(handler)
    return lambda: loop.set_exception_handler(previous)
