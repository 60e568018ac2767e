"""A Python client of the nimmt server (WebSocket protocol, see docs/protocol.md).

:class:`Client` connects, says hello, and keeps what the server told it: the
last sequence number (for reconnecting), the latest table state and the
decision asked of it (:attr:`Client.prompt`). :meth:`Client.request` sends one
message and waits for its answer (``ack``, ``error`` or a reply with the same
``ref``); everything else received meanwhile is kept in :attr:`Client.inbox`.
The narration the server sends with each batch of events (in the language
given to :meth:`Client.connect` as ``lang``) is collected in
:attr:`Client.narration`.

::

    async with await Client.connect("http://127.0.0.1:8000", name="Ana") as ana:
        state = await ana.create_table(rules={"preset": "classic", "players": 3})
        await ana.add_bot("easy")
        await ana.add_bot("medium")
        await ana.start()
        await ana.play_until_over()
"""

from __future__ import annotations

import asyncio
import itertools
import json
import random
from collections.abc import Callable
from types import TracebackType
from typing import Any

from websockets.asyncio.client import ClientConnection, connect

from .decisions import decision_message
from .wire import (
    PROTOCOL_VERSION,
    Ack,
    Error,
    EventItem,
    Events,
    FriendInfo,
    FriendList,
    GameOver,
    Hint,
    History,
    Invitation,
    LobbyList,
    NoticeItem,
    Prompt,
    RecoveryCodes,
    ServerMessage,
    SessionInfo,
    SessionList,
    Sheet,
    TableState,
    Welcome,
    merge_sheet,
    parse_server,
)

__all__ = ["Client", "ServerError", "ws_url"]


class ServerError(Exception):
    """The server refused a request: ``code`` and the server's sentence."""

    def __init__(self, error: Error) -> None:
        super().__init__(f"{error.code}: {error.message}")
        self.code = error.code
        self.error = error


def ws_url(url: str) -> str:
    """``http://host:port`` (or ``ws://…``) → the WebSocket endpoint ``ws://host:port/ws``."""
    if url.startswith("http://"):
        url = "ws://" + url[len("http://"):]
    elif url.startswith("https://"):
        url = "wss://" + url[len("https://"):]
    url = url.rstrip("/")
    return url if url.endswith("/ws") else url + "/ws"


class Client:
    """One connection to a server, as one player."""

    def __init__(self, ws: ClientConnection, *, record: bool = False) -> None:
        self.ws = ws
        self.seq = 0
        self.name: str | None = None
        self.token: str | None = None
        #: Whether the player has a password (an account), from ``welcome``.
        self.account = False
        self.state: TableState | None = None
        self.prompt: Prompt | None = None
        #: What the shortcuts say now: the last table_state's sheet with every ``events``
        #: change merged in (docs/protocol.md); None with no game in view.
        self.sheet: Sheet | None = None
        self.inbox: list[ServerMessage] = []
        #: Every raw frame received, when ``record`` is true (tests of hidden information).
        self.frames: list[str] | None = [] if record else None
        self.game_over = False
        #: The language the server narrates in for this connection (from ``welcome``).
        self.lang = "en"
        #: Every narration entry received (one per resolution step), in order.
        self.narration: list[str] = []
        self._refs = itertools.count(1)

    # -- connecting -------------------------------------------------------------------

    @classmethod
    async def connect(
        cls,
        url: str,
        *,
        name: str | None = None,
        token: str | None = None,
        password: str | None = None,
        recovery_code: str | None = None,
        table: str | None = None,
        last_seq: int | None = None,
        lang: str | None = None,
        invite: str | None = None,
        record: bool = False,
        open_timeout: float = 30,
        local_addr: tuple[str, int] | None = None,
        version: int = PROTOCOL_VERSION,
        compress: bool = False,
    ) -> Client:
        """Connect and say hello: as a new player ``name``, the player of ``token``, the
        account ``name`` signing in with ``password``, or setting ``password`` as its new
        one with a ``recovery_code``. A sign-in's session token is :attr:`token` then.

        ``lang`` (``en``, ``sr``, ``cs``) is the language of the narration the server sends;
        an unknown one is refused with :class:`ServerError` ``bad_language``.
        ``local_addr`` is the local ``(address, port)`` to connect from, on a machine
        with several addresses (the server counts its limits per client address).
        ``version`` is the protocol version to speak (a benchmark beside an older build);
        ``compress``: negotiate permessage-deflate, as browsers do.
        """
        extra: dict[str, Any] = {} if local_addr is None else {"local_addr": local_addr}
        ws = await connect(ws_url(url), max_size=None, open_timeout=open_timeout,
                           ping_interval=None,
                           compression="deflate" if compress else None, **extra)
        client = cls(ws, record=record)
        # The version it speaks: a server of another refuses it at once (``version``).
        msg: dict[str, Any] = {"type": "hello", "version": version}
        if name is not None:
            msg["name"] = name
        if token is not None:
            msg["token"] = token
        if password is not None:
            msg["password"] = password
        if recovery_code is not None:
            msg["recovery_code"] = recovery_code
        if table is not None:
            msg["table"] = table
        if last_seq is not None:
            msg["last_seq"] = last_seq
        if lang is not None:
            msg["lang"] = lang
        if invite is not None:
            msg["invite"] = invite  # an invitation link's code: seated at its table
        welcome = await client.request(msg, want="welcome")
        assert isinstance(welcome, Welcome)
        client.name = welcome.player
        client.token = welcome.token or token
        client.lang = welcome.lang
        client.account = welcome.account
        return client

    async def close(self) -> None:
        await self.ws.close()

    async def __aenter__(self) -> Client:
        return self

    async def __aexit__(
        self, t: type[BaseException] | None, e: BaseException | None, tb: TracebackType | None
    ) -> None:
        await self.close()

    # -- sending and receiving --------------------------------------------------------------

    async def send(self, message: dict[str, Any]) -> None:
        await self.ws.send(json.dumps(message))

    async def send_raw(self, frame: str | bytes) -> None:
        """Send a frame as it is (tests of bad input)."""
        await self.ws.send(frame)

    async def recv(self, timeout: float = 30) -> ServerMessage:
        """The next server message (also noted: seq, state, prompt)."""
        text = await asyncio.wait_for(self.ws.recv(), timeout)
        if self.frames is not None:
            self.frames.append(text if isinstance(text, str) else text.decode())
        msg = parse_server(text)
        self.seq = max(self.seq, msg.seq)
        if isinstance(msg, TableState):
            self.state = msg
            self.prompt = msg.prompt
            self.sheet = msg.sheet
        elif isinstance(msg, Events):
            self.prompt = msg.prompt
            if msg.sheet is not None:
                self.sheet = merge_sheet(self.sheet, msg.sheet)
            self.narration.extend(msg.text)
            for item in msg.items:
                if isinstance(item, EventItem) and isinstance(item.event, GameOver):
                    self.game_over = True
                if isinstance(item, NoticeItem) and item.notice == "started":
                    self.game_over = False
        return msg

    async def expect(
        self, predicate: Callable[[ServerMessage], bool], timeout: float = 30
    ) -> ServerMessage:
        """Receive until a message matches ``predicate`` (others go to :attr:`inbox`)."""
        loop = asyncio.get_running_loop()
        end = loop.time() + timeout
        while True:
            msg = await self.recv(max(0.001, end - loop.time()))
            if predicate(msg):
                return msg
            self.inbox.append(msg)

    async def request(
        self, message: dict[str, Any], want: str = "ack", timeout: float = 30
    ) -> ServerMessage:
        """Send ``message`` with a fresh ``ref``; return the answer of type ``want``.

        Raises :class:`ServerError` when the server answers with an error.
        """
        ref = next(self._refs)
        await self.send({**message, "ref": ref})

        def answer(m: ServerMessage) -> bool:
            return getattr(m, "ref", None) == ref and (m.type == want or m.type == "error")

        msg = await self.expect(answer, timeout)
        if isinstance(msg, Error):
            raise ServerError(msg)
        return msg

    # -- the messages -------------------------------------------------------------------------

    async def create_table(self, **fields: Any) -> TableState:
        msg = await self.request({"type": "create_table", **fields}, want="table_state")
        assert isinstance(msg, TableState)
        return msg

    async def join(self, code: str, last_seq: int | None = None) -> TableState:
        extra = {} if last_seq is None else {"last_seq": last_seq}
        msg = await self.request({"type": "join", "table": code, **extra}, want="table_state")
        assert isinstance(msg, TableState)
        return msg

    async def spectate(self, code: str) -> TableState:
        msg = await self.request({"type": "spectate", "table": code}, want="table_state")
        assert isinstance(msg, TableState)
        return msg

    async def lobby(self) -> LobbyList:
        msg = await self.request({"type": "lobby"}, want="lobby")
        assert isinstance(msg, LobbyList)
        return msg

    async def act(self, type_: str, **fields: Any) -> Ack:
        msg = await self.request({"type": type_, **fields})
        assert isinstance(msg, Ack)
        return msg

    async def sit(self, seat: int | None = None) -> Ack:
        return await self.act("sit", seat=seat)

    async def add_bot(self, strength: str = "medium", seat: int | None = None) -> Ack:
        return await self.act("add_bot", strength=strength, seat=seat)

    async def start(self) -> Ack:
        return await self.act("start")

    async def play_card(self, card: int) -> Ack:
        return await self.act("play_card", card=card)

    async def take_row(self, row: int) -> Ack:
        return await self.act("take_row", row=row)

    async def draft_card(self, card: int) -> Ack:
        return await self.act("draft_card", card=card)

    async def chat(self, text: str) -> Ack:
        return await self.act("chat", text=text)

    async def leave(self) -> Ack:
        return await self.act("leave")

    async def hint(self, timeout: float = 30) -> Hint:
        """The expert's advice on this player's pending decision (:class:`ServerError`
        ``hints_off``, ``not_your_turn``, … when the server refuses)."""
        msg = await self.request({"type": "hint"}, want="hint", timeout=timeout)
        assert isinstance(msg, Hint)
        return msg

    async def history(self, before_seq: int, after_seq: int = 0,
                      limit: int | None = None) -> History:
        """A page of the table's stream older than ``before_seq`` (and newer than
        ``after_seq``): what a catch-up left out (its ``older`` says which), page by page
        (each page's ``older`` says what is still older)."""
        msg: dict[str, Any] = {"type": "history", "before_seq": before_seq,
                               "after_seq": after_seq}
        if limit is not None:
            msg["limit"] = limit
        page = await self.request(msg, want="history")
        assert isinstance(page, History)
        return page

    async def set_hints(self, on: bool) -> Ack:
        """Host: allow or forbid hints at the table."""
        return await self.act("set_hints", hints=on)

    # -- the account ----------------------------------------------------------------------

    async def set_password(self, password: str, old: str | None = None) -> list[str]:
        """Keep this name: a guest's first password gives the recovery codes (shown this
        once: keep them); an account changes its password with ``old`` (every other session
        ends) and gets no codes."""
        if old is None and not self.account:
            msg = await self.request({"type": "set_password", "password": password},
                                     want="recovery_codes")
            assert isinstance(msg, RecoveryCodes)
            self.account = True
            return msg.codes
        await self.act("set_password", password=password, old=old)
        return []

    async def recovery_codes(self, password: str) -> list[str]:
        """New recovery codes (the old ones stop working)."""
        msg = await self.request({"type": "recovery_codes", "password": password},
                                 want="recovery_codes")
        assert isinstance(msg, RecoveryCodes)
        return msg.codes

    async def sessions(self) -> list[SessionInfo]:
        """This player's sessions, the most recently used first."""
        msg = await self.request({"type": "sessions"}, want="sessions")
        assert isinstance(msg, SessionList)
        return msg.sessions

    async def end_session(self, session: int) -> Ack:
        """End one of this player's sessions."""
        return await self.act("end_session", session=session)

    async def sign_out(self, scope: str = "this") -> Ack:
        """End this session (``this``), the others (``others``) or all (``all``)."""
        return await self.act("sign_out", scope=scope)

    # -- friends, mutes, blocks, reports ---------------------------------------------------

    async def follow(self, name: str) -> Ack:
        """Follow ``name`` (two who follow each other are friends)."""
        return await self.act("follow", name=name)

    async def unfollow(self, name: str) -> Ack:
        return await self.act("unfollow", name=name)

    async def friends(self) -> list[FriendInfo]:
        """The players this one follows, and where they are."""
        return (await self.friend_list()).friends

    async def friend_list(self) -> FriendList:
        """The whole answer to ``friends``: the players followed, and those this player
        muted and blocked."""
        msg = await self.request({"type": "friends"}, want="friends")
        assert isinstance(msg, FriendList)
        return msg

    async def mute(self, name: str, on: bool = True) -> Ack:
        """Mute ``name`` (``on`` false: lift the mute)."""
        return await self.act("mute", name=name, on=on)

    async def block(self, name: str, on: bool = True) -> Ack:
        """Block ``name`` (``on`` false: lift the block)."""
        return await self.act("block", name=name, on=on)

    async def report(self, name: str, reason: str, message: str | None = None,
                     place: str | None = None) -> Ack:
        """Report ``name`` (or a message of theirs, written at ``place``) to the operator."""
        return await self.act("report", name=name, reason=reason, message=message,
                              place=place)

    async def invite(self, name: str) -> Ack:
        """Invite ``name`` to the table this connection is at."""
        return await self.act("invite", name=name)

    async def invitation(self, timeout: float = 30) -> Invitation:
        """The next invitation (one set aside while waiting for an answer first)."""
        for m in self.inbox:
            if isinstance(m, Invitation):
                self.inbox.remove(m)
                return m
        msg = await self.expect(lambda m: isinstance(m, Invitation), timeout)
        assert isinstance(msg, Invitation)
        return msg

    async def accept(self, invitation: int) -> TableState:
        """Accept an invitation: join its table."""
        msg = await self.request({"type": "answer_invitation", "id": invitation,
                                  "accept": True}, want="table_state")
        assert isinstance(msg, TableState)
        return msg

    async def decline(self, invitation: int) -> Ack:
        return await self.act("answer_invitation", id=invitation, accept=False)

    # -- playing --------------------------------------------------------------------------------

    async def answer(self, prompt: Prompt, rng: random.Random | None = None) -> None:
        """Answer ``prompt``: a random option (``rng``) or the first one."""
        value = rng.choice(prompt.options) if rng is not None else prompt.options[0]
        message = decision_message(prompt.kind, value)
        await self.act(message.pop("type"), **message)

    async def play_until_over(
        self, rng: random.Random | None = None, timeout: float = 120
    ) -> None:
        """Answer every prompt once until the game is over."""
        loop = asyncio.get_running_loop()
        end = loop.time() + timeout
        answered: set[str] = set()
        while not self.game_over:
            prompt = self.prompt
            if prompt is not None and prompt.key not in answered:
                answered.add(prompt.key)
                await self.answer(prompt, rng)
                continue
            msg = await self.recv(max(0.001, end - loop.time()))
            self.inbox.append(msg)
