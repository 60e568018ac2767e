"""A synchronous client of the nimmt server, with reconnection.

:class:`nimmt.client.Client` is asyncio; a terminal program, a user's bot or a
notebook usually is not. :class:`SyncClient` runs an async client on an event
loop of its own in a background thread (as python-chess's ``SimpleEngine`` does
over its async engine) and offers the same requests as plain blocking calls.

What the server sends is read by one task only (a WebSocket allows one reader)
and handed over in order: the answer to a request goes to the caller waiting
for it; everything else (table states, events, errors not answering a request)
goes to a queue read with :meth:`SyncClient.next`. When the connection drops,
the reader reconnects with exponential backoff, saying ``hello`` with the
player's token, the table's code and the last ``seq`` seen, so the server sends
the table as it is now and every item missed. How that goes is put in the same
queue as :class:`Status` values, so a face can say it.

::

    with SyncClient.connect("http://127.0.0.1:8000", name="Ana") as ana:
        state = ana.create_table(rules={"preset": "classic", "players": 2})
        ana.add_bot("easy")
        ana.start()
        while not ana.game_over:
            msg = ana.next(timeout=30)
            if ana.prompt is not None:
                ana.answer(ana.prompt.options[0])

:func:`view_from_dict` turns the ``view`` of a table state (or of the speech
endpoint) back into a :class:`nimmt.View`, so a bot written for the local
engine plays online unchanged (``nimmt bot``).
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import queue
import threading
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Coroutine
from dataclasses import dataclass
from types import TracebackType
from typing import Any, Literal, TypeVar

from websockets.exceptions import ConnectionClosed, InvalidHandshake, InvalidURI

from .client import Client, ServerError
from .decisions import DecisionKind, Pending, decision_message
from .rules import Rules
from .views import Phase, Table, View
from .wire import (
    Ack,
    Error,
    EventItem,
    Events,
    GameOver,
    NoticeItem,
    Prompt,
    ServerMessage,
    Sheet,
    TableState,
    ViewPayload,
    merge_view,
)

__all__ = [
    "FINAL",
    "ConnectionLost",
    "ServerError",
    "ServerUnreachable",
    "Status",
    "SyncClient",
    "http_url",
    "is_game_over",
    "view_from_dict",
]

T = TypeVar("T")

#: Seconds between reconnection attempts: doubled after each failure, up to the last.
BACKOFF: tuple[float, ...] = (0.5, 1, 2, 4, 8, 16, 30)
#: Errors after which the server closes the connection for good: no reconnection follows
#: (the session was ended, the operator banned the player or the address).
FINAL = frozenset({"signed_out", "banned"})


class ServerUnreachable(ConnectionError):
    """No server answers at that address (refused, not found, timed out, not a nimmt server)."""


class ConnectionLost(ConnectionError):
    """The connection dropped while a request waited for its answer; nothing was confirmed."""


@dataclass(frozen=True, slots=True)
class Status:
    """How the connection is doing, queued among the server's messages.

    ``state`` is ``lost`` (the connection dropped), ``retrying`` (attempt
    ``attempt`` starts in ``delay`` seconds), ``back`` (reconnected: a table
    state and the missed items follow) or ``gone`` (given up: ``reason`` says
    why; the game goes on at the server, which can be rejoined later).
    """

    state: Literal["lost", "retrying", "back", "gone"]
    attempt: int = 0
    delay: float = 0.0
    reason: str = ""


def http_url(url: str) -> str:
    """The server's HTTP base from any address a person may give: ``ws://h:p/ws``,
    ``http://h:p/``, or a table link ``http://h:p/play/#/table/CODE``."""
    url = url.strip()
    if "://" not in url:
        url = "http://" + url
    parts = urllib.parse.urlsplit(url)
    scheme = {"ws": "http", "wss": "https"}.get(parts.scheme, parts.scheme)
    return f"{scheme}://{parts.netloc}"


def view_from_dict(data: ViewPayload | dict[str, Any]) -> View:
    """A :class:`nimmt.View` from its wire form (``view`` of ``table_state``, or its JSON
    from the speech endpoint): what a bot needs to decide online exactly as it would
    locally."""
    v = data if isinstance(data, ViewPayload) else ViewPayload.model_validate(data)

    def tup(x: Any) -> Any:
        return tuple(tup(y) for y in x) if isinstance(x, list | tuple) else x

    pend = v.pending
    pending = None
    if pend is not None:
        pending = Pending(DecisionKind(pend.kind), tup(pend.players), pend.card, pend.reason)
    table = Table(
        v.round, v.turn, Phase(v.phase), tup(v.rows), tup(v.scores), tup(v.penalties),
        tup(v.taken), tup(v.hand_sizes), tup(v.revealed), tup(v.to_resolve),
        None if v.hands is None else tup(v.hands), tup(v.active), tup(v.eliminated),
        tup(v.has_joker), v.marker, tup(v.draft_pool), tup(v.winners), None,
    )
    return View(Rules.from_dict(v.rules.model_dump()), v.player, table, pending,
                tup(v.face_up), tup(v.hand), v.my_choice, tup(v.options))


def is_game_over(item: object) -> bool:
    """Whether a stream item is the event that ends the game."""
    return isinstance(item, EventItem) and isinstance(item.event, GameOver)


class SyncClient:
    """One player's connection to a server, used from ordinary (blocking) code.

    Make it with :meth:`connect`. Requests block until the server answers and
    raise :class:`~nimmt.client.ServerError` for a refusal and
    :class:`ConnectionLost` when the connection dropped first (the reader is
    already reconnecting; ask again). ``retries`` bounds the reconnection
    attempts after a drop (``None``: never give up).
    """

    def __init__(self, url: str, lang: str | None, retries: int | None,
                 keepalive: float | None) -> None:
        self.url = http_url(url)
        self._lang = lang
        self.retries = retries
        self.keepalive = keepalive
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, name="nimmt-client",
                                        daemon=True)
        self._client: Client | None = None
        self._inbox: queue.Queue[ServerMessage | Status] = queue.Queue()
        self._waiting: dict[str, tuple[str, asyncio.Future[ServerMessage]]] = {}
        self._refs = itertools.count(1)
        self._reader: asyncio.Task[None] | None = None
        self._pinger: asyncio.Task[None] | None = None
        self._closing = False
        #: The code of the table this connection is at (rejoined after a reconnect).
        self.code: str | None = None
        #: The latest table state, and the decision asked of this player now.
        self.state: TableState | None = None
        self.prompt: Prompt | None = None
        #: This seat's view of the game as the latest frame that held one said it: the
        #: frame that asks a decision holds the view it is asked in.
        self._view: ViewPayload | None = None
        self.game_over = False
        self.seq = 0
        self.name: str | None = None
        self.token: str | None = None
        #: Whether the player has a password (an account), from the latest ``welcome``.
        self.account = False
        #: The error with which the server closed this connection for good, if it did.
        self.final: str | None = None

    # -- connecting and closing ---------------------------------------------------

    @classmethod
    def connect(
        cls,
        url: str,
        *,
        name: str | None = None,
        token: str | None = None,
        password: str | None = None,
        lang: str | None = None,
        retries: int | None = 8,
        keepalive: float | None = 15.0,
        timeout: float = 15.0,
    ) -> SyncClient:
        """Connect and say hello: as a new player ``name``, the player of ``token``, or the
        account ``name`` signing in with ``password`` (its new session's token is
        :attr:`token` then, which reconnections use).

        Raises :class:`ServerUnreachable` when nothing (or not a nimmt server)
        answers, and :class:`~nimmt.client.ServerError` when the server refuses
        the hello (a name taken, a wrong token or password, an unknown language).
        """
        self = cls(url, lang, retries, keepalive)
        self._thread.start()
        try:
            self._call(self._open(name, token, password, timeout), timeout + 5)
        except BaseException:
            self.close()
            raise
        return self

    async def _open(self, name: str | None, token: str | None, password: str | None,
                    timeout: float) -> None:
        hello: dict[str, Any] = {"name": name, "token": token}
        if password is not None:
            hello["password"] = password
        client = await _dial(self.url, lang=self._lang, timeout=timeout, **hello)
        self._adopt(client)
        self._reader = asyncio.create_task(self._read())
        if self.keepalive:
            self._pinger = asyncio.create_task(self._ping(self.keepalive))

    def _adopt(self, client: Client) -> None:
        client.seq = max(client.seq, self.seq)
        self._client = client
        self.name = client.name
        self.token = client.token or self.token
        self.account = client.account
        self._lang = client.lang

    @property
    def lang(self) -> str:
        """The language the server narrates in for this connection."""
        return self._lang or "en"

    @property
    def sheet(self) -> Sheet | None:
        """What the shortcuts say now, as the server holds it for this connection: the
        last table_state's sheet with each ``events`` change merged in (a connection made
        again starts from its new table_state)."""
        client = self._client
        return None if client is None else client.sheet

    def close(self) -> None:
        """Close the connection and stop the background loop (safe to call twice)."""
        if self._closing:
            return
        self._closing = True
        if self._thread.is_alive():
            with contextlib.suppress(Exception):
                self._call(self._shutdown(), 5)
            self._loop.call_soon_threadsafe(self._loop.stop)
            self._thread.join(5)
        if not self._loop.is_running():
            self._loop.close()

    async def _shutdown(self) -> None:
        if self._reader is not None:
            self._reader.cancel()
        if self._client is not None:
            with contextlib.suppress(Exception):
                await self._client.close()
        for task in asyncio.all_tasks():
            if task is not asyncio.current_task():
                task.cancel()

    def __enter__(self) -> SyncClient:
        return self

    def __exit__(
        self, t: type[BaseException] | None, e: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()

    def drop(self) -> None:
        """Close the socket as a network failure would, without leaving the table (tests, and
        a face's "reconnect now"): the reader notices and reconnects."""
        client = self._client
        if client is not None:
            self._call(client.ws.close(), 5)

    # -- the reader ---------------------------------------------------------------

    async def _read(self) -> None:
        while not self._closing:
            client = self._client
            assert client is not None
            try:
                msg = await client.recv(timeout=3600)
            except TimeoutError:
                continue
            except (ConnectionClosed, OSError):
                if self._closing:
                    return
                if self.final is not None:
                    self._inbox.put(Status("gone", reason=self.final))
                    return
                if not await self._reconnect():
                    return
                continue
            self._note(msg)

    def _note(self, msg: ServerMessage) -> None:
        self.seq = max(self.seq, msg.seq)
        if isinstance(msg, TableState):
            self.state = msg
            self._view = msg.view
            self.prompt = msg.prompt
            self.code = msg.table.code
            self.game_over = msg.table.status == "over"
        elif isinstance(msg, Events):
            if msg.view is not None:
                self._view = merge_view(self._view, msg.view)
            self.prompt = msg.prompt
            for item in msg.items:
                if is_game_over(item):
                    self.game_over = True
                if isinstance(item, NoticeItem) and item.notice == "started":
                    self.game_over = False
        elif (isinstance(msg, Error) and msg.code in ("no_table", "closed", "kicked")
              and (msg.ref is None or str(msg.ref) not in self._waiting)):
            self.code = None
        elif isinstance(msg, Error) and msg.code in FINAL:
            self.final = msg.code
        ref = getattr(msg, "ref", None)
        waiting = self._waiting.get(str(ref)) if ref is not None else None
        if waiting is not None and msg.type in (waiting[0], "error"):
            del self._waiting[str(ref)]
            if not waiting[1].done():
                waiting[1].set_result(msg)
            if isinstance(msg, Ack | Error):
                return
        if isinstance(msg, Ack) or msg.type in ("welcome", "pong"):
            return
        self._inbox.put(msg)

    async def _reconnect(self) -> bool:
        """Dial again with backoff until it works (True) or the retries run out (False)."""
        for ref, (_, fut) in list(self._waiting.items()):
            del self._waiting[ref]
            if not fut.done():
                fut.set_exception(ConnectionLost("the connection dropped; ask again"))
        # What the table asks is unknown until it is sent again after the rejoin: a
        # decision answered just before the drop may be stored already, and answering the
        # old prompt again would be refused (``not_your_turn``).
        self.prompt = None
        self._inbox.put(Status("lost"))
        attempt = 0
        while not self._closing:
            attempt += 1
            if self.retries is not None and attempt > self.retries:
                self._inbox.put(Status("gone", attempt - 1, reason="no answer"))
                return False
            delay = BACKOFF[min(attempt - 1, len(BACKOFF) - 1)]
            self._inbox.put(Status("retrying", attempt, delay))
            await asyncio.sleep(delay)
            try:
                client = await _dial(self.url, token=self.token, table=self.code,
                                     last_seq=self.seq if self.code else None,
                                     lang=self._lang, timeout=10)
            except ServerUnreachable:
                continue
            except ServerError as exc:
                self._inbox.put(Status("gone", attempt, reason=exc.code))
                return False
            self._adopt(client)
            self._inbox.put(Status("back", attempt))
            return True
        return False

    async def _ping(self, every: float) -> None:
        """Ask the server for a pong now and then: a silent network is found out, and the
        reader's reconnection starts, instead of waiting forever."""
        while not self._closing:
            await asyncio.sleep(every)
            client = self._client
            if client is None:
                continue
            try:
                await self._request({"type": "ping"}, "pong", every)
            except (TimeoutError, ConnectionLost):
                with contextlib.suppress(Exception):
                    await client.ws.close()
            except (ConnectionClosed, OSError, ServerError):
                continue

    # -- requests -----------------------------------------------------------------

    def _call(self, coro: Coroutine[Any, Any, T], timeout: float) -> T:
        future = asyncio.run_coroutine_threadsafe(coro, self._loop)
        try:
            return future.result(timeout)
        except TimeoutError:
            future.cancel()
            raise

    async def _request(self, message: dict[str, Any], want: str,
                       timeout: float) -> ServerMessage:
        client = self._client
        if client is None:
            raise ConnectionLost("not connected")
        ref = f"s{next(self._refs)}"
        fut: asyncio.Future[ServerMessage] = asyncio.get_running_loop().create_future()
        self._waiting[ref] = (want, fut)
        try:
            await client.send({**message, "ref": ref})
        except (ConnectionClosed, OSError):
            self._waiting.pop(ref, None)
            raise ConnectionLost("the connection dropped; ask again") from None
        try:
            msg = await asyncio.wait_for(fut, timeout)
        finally:
            self._waiting.pop(ref, None)
        if isinstance(msg, Error):
            raise ServerError(msg)
        return msg

    def request(self, message: dict[str, Any], want: str = "ack",
                timeout: float = 30) -> ServerMessage:
        """Send ``message`` and wait for its answer of type ``want`` (``ack`` by default)."""
        return self._call(self._request(message, want, timeout), timeout + 5)

    def next(self, timeout: float | None = None) -> ServerMessage | Status | None:
        """The next message that was not an answer (or a :class:`Status`); ``None`` when
        nothing came within ``timeout`` seconds."""
        try:
            return self._inbox.get(timeout=timeout)
        except queue.Empty:
            return None

    def _state(self, message: dict[str, Any]) -> TableState:
        msg = self.request(message, want="table_state")
        assert isinstance(msg, TableState)
        return msg

    def create_table(self, **fields: Any) -> TableState:
        """Open a table (``rules``, ``turn_timer``, ``private``, ``name``…) and sit as host."""
        return self._state({"type": "create_table", **fields})

    def join(self, code: str) -> TableState:
        """Enter the table ``code`` (your seat is given back if you hold one)."""
        return self._state({"type": "join", "table": code.strip().upper()})

    def spectate(self, code: str) -> TableState:
        """Watch the table ``code`` without a seat."""
        return self._state({"type": "spectate", "table": code.strip().upper()})

    def answer_invitation(self, invitation: int) -> TableState:
        """Accept an invitation: join its table."""
        return self._state({"type": "answer_invitation", "id": invitation, "accept": True})

    def lobby(self) -> ServerMessage:
        """The open public tables."""
        return self.request({"type": "lobby"}, want="lobby")

    def act(self, type_: str, **fields: Any) -> None:
        """Send an intention (``sit``, ``start``, ``play_card``…) and wait for its ``ack``."""
        self.request({"type": type_, **fields})

    def sit(self, seat: int | None = None) -> None:
        self.act("sit", seat=seat)

    def add_bot(self, strength: str = "medium", seat: int | None = None) -> None:
        self.act("add_bot", strength=strength, seat=seat)

    def start(self) -> None:
        self.act("start")

    def rematch(self) -> None:
        self.act("rematch")

    def leave(self) -> None:
        self.act("leave")

    def chat(self, text: str) -> None:
        self.act("chat", text=text)

    def answer(self, value: int, kind: str | None = None) -> None:
        """Answer the decision asked (``kind`` card, row or draft; the prompt's by default)."""
        kind = kind or (self.prompt.kind if self.prompt is not None else "card")
        message = decision_message(kind, value)
        self.act(message.pop("type"), **message)

    # -- the speech endpoint ------------------------------------------------------

    def speech(self, after: int | None = None, upto: int | None = None,
               timeout: float = 15) -> dict[str, Any]:
        """What the server says about this table for this seat (``GET /api/speech``): the
        sentences of the events ``after < seq <= upto``, the view now and the sentences of
        the shortcuts, in this connection's language. Raises :class:`ConnectionLost` when
        the server cannot be asked."""
        if self.code is None:
            raise ConnectionLost("not at a table")
        upto = self.seq if upto is None else upto
        after = upto if after is None else after
        query = urllib.parse.urlencode({"lang": self.lang, "after": after, "upto": upto})
        req = urllib.request.Request(
            f"{self.url}/api/speech/{urllib.parse.quote(self.code)}?{query}",
            headers={"X-Nimmt-Token": self.token or ""},
        )
        try:
            with urllib.request.urlopen(req, timeout=timeout) as resp:
                data: dict[str, Any] = json.loads(resp.read())
        except (urllib.error.URLError, OSError, ValueError) as exc:
            raise ConnectionLost(f"the server did not answer: {exc}") from None
        return data

    def view(self) -> View | None:
        """This seat's view of the game as the frames said it (``None`` before the first
        game): decoded from what the connection already received, never asked again."""
        data = self._view
        return None if data is None else view_from_dict(data)


async def _dial(url: str, *, timeout: float, **hello: Any) -> Client:
    """Connect and say hello; every way of not reaching a server is :class:`ServerUnreachable`."""
    try:
        client = await Client.connect(url, open_timeout=timeout, **hello)
    except ServerError:
        raise
    except (OSError, TimeoutError, InvalidHandshake, InvalidURI, ConnectionClosed) as exc:
        reason = getattr(exc, "strerror", None) or str(exc) or type(exc).__name__
        raise ServerUnreachable(f"no nimmt server answers at {url}: {reason}") from None
    return client
