"""A table on a nimmt server, as a session for the terminal faces.

The session speaks the WebSocket protocol through :class:`nimmt.client_sync.SyncClient`
(which reconnects by itself with backoff, and rejoins the table with the token
and the last ``seq``). Every sentence about the game is the server's, and it comes
in the frames, as the web client takes it: an ``events`` frame's ``text`` is the
narration of its events for this seat, and each frame with a view carries the
sentences of the shortcuts (a ``table_state`` the whole sheet, an ``events`` frame
what changed in it), so the terminal and the browser say the same words. Notices,
chat lines and refusals come said too (their ``text``, ``said`` and ``text``), in
the language of the ``hello``.

The player's token is kept per server and name in ``client.json`` in the data
directory (``NIMMT_DATA_DIR``, else ``~/.local/share/nimmt``), so ``nimmt play
URL --join CODE`` after a crash, a closed terminal or a lost network gives the
player their seat back.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..client_sync import (
    FINAL,
    ConnectionLost,
    ServerError,
    ServerUnreachable,
    Status,
    SyncClient,
    http_url,
    is_game_over,
)
from ..paths import default_data_dir
from ..wire import (
    CardsRevealed,
    ChatItem,
    Error,
    EventItem,
    Events,
    Hint,
    Invitation,
    NoticeItem,
    Prompt,
    SheetChange,
    TableState,
    ViewPayload,
    merge_sheet,
    merge_view,
)
from ..wire import Sheet as SheetPayload
from .session import InputRefused, Listener, Session, Sheet, Snapshot, default_name

__all__ = ["DEFAULT_SERVER", "RemoteSession", "RemoteTarget", "TokenStore"]

#: The server ``--join CODE`` goes to when no address is given (or ``NIMMT_SERVER``).
DEFAULT_SERVER = "http://127.0.0.1:8000"

_CODE = re.compile(r"(?:#/table/|/table/)([A-Za-z0-9]{1,16})")


@dataclass(frozen=True, slots=True)
class RemoteTarget:
    """Where to play: the server's HTTP base, and a table ``code`` to join or watch (none:
    open a new table)."""

    url: str
    code: str | None = None
    spectate: bool = False

    @classmethod
    def parse(cls, url: str | None, join: str | None = None,
              spectate: str | None = None) -> RemoteTarget:
        """From ``nimmt play``'s address (a server or a table link) and its options."""
        raw = url or os.environ.get("NIMMT_SERVER") or DEFAULT_SERVER
        code = spectate or join
        if code is None and url is not None:
            m = _CODE.search(url)
            if m:
                code = m.group(1)
        return cls(http_url(raw), code.strip().upper() if code else None, spectate is not None)


class TokenStore:
    """The tokens of this user's players, by server and name, in a small JSON file."""

    def __init__(self, path: Path | None = None) -> None:
        self.path = path or default_data_dir() / "client.json"

    def _load(self) -> dict[str, Any]:
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return {}
        return data if isinstance(data, dict) else {}

    def get(self, url: str, name: str | None) -> tuple[str, str] | None:
        """``(name, token)`` for ``name`` at ``url`` (the last one used when no name)."""
        server = self._load().get(url) or {}
        players = server.get("players") or {}
        who = name or server.get("last")
        token = players.get(who) if who else None
        return (str(who), str(token)) if token else None

    def put(self, url: str, name: str, token: str) -> None:
        data = self._load()
        server = data.setdefault(url, {})
        server.setdefault("players", {})[name] = token
        server["last"] = name
        with contextlib.suppress(OSError):
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self.path.write_text(json.dumps(data, indent=1), encoding="utf-8")
            self.path.chmod(0o600)

    def forget(self, url: str, name: str) -> None:
        data = self._load()
        (data.get(url) or {}).get("players", {}).pop(name, None)
        with contextlib.suppress(OSError):
            self.path.write_text(json.dumps(data, indent=1), encoding="utf-8")


#: Server error codes that the narration says (the same sentences as a local refusal).

class RemoteSession(Session):
    """The player at a server's table: open one (``rules``, ``bots``) or join ``target.code``."""

    def __init__(
        self,
        target: RemoteTarget,
        *,
        name: str | None = None,
        lang: str = "en",
        rules: dict[str, Any] | None = None,
        bots: list[str] | None = None,
        retries: int | None = 8,
        tokens: TokenStore | None = None,
        listener: Listener | None = None,
        password: str | None = None,
    ) -> None:
        super().__init__(lang, listener)
        self.target = target
        self.name = name
        #: With ``name``: sign in to that account (a new session) instead of using a token.
        self.password = password
        self.rules = rules or {"preset": "classic", "players": 4}
        self.bots = bots or []
        self.retries = retries
        self.tokens = tokens or TokenStore()
        self.client: SyncClient | None = None
        self._state: TableState | None = None
        #: The newest invitation to a table, until answered (``/accept``, ``/decline``).
        self._invitation: Invitation | None = None
        self._view: ViewPayload | None = None
        #: The sheet as the server holds it for this connection (each change merged in).
        self._sheet = Sheet.empty()
        self._sheet_held: SheetPayload | None = None
        self._prompt: Prompt | None = None

    # -- connecting ------------------------------------------------------------------

    def _connect(self) -> SyncClient:
        url = self.target.url
        try:
            client = self._dial(url)
        except ServerUnreachable:
            raise InputRefused(self.labels("online.unreachable", url=url)) from None
        except ServerError as exc:
            raise InputRefused(self._refusal(exc)) from None
        if client.name and client.token:
            self.tokens.put(url, client.name, client.token)
        return client

    def _dial(self, url: str) -> SyncClient:
        """A sign-in when a password was given; else the token kept for this name (or the
        last one used here); else a new guest."""
        if self.password is not None:
            password, self.password = self.password, None  # kept no longer than needed
            return SyncClient.connect(url, name=self.name, password=password,
                                      lang=self.lang, retries=self.retries)
        saved = self.tokens.get(url, self.name)
        if saved is not None:
            try:
                return SyncClient.connect(url, token=saved[1], lang=self.lang,
                                          retries=self.retries)
            except ServerError as exc:
                if exc.code != "bad_token":
                    raise
                self.tokens.forget(url, saved[0])
        return SyncClient.connect(url, name=self.name or default_name(), lang=self.lang,
                                  retries=self.retries)

    def open(self) -> None:
        self.say(self.labels("online.connecting", url=self.target.url), "status")
        client = self.client = self._connect()
        self.say(self.labels("online.hello", name=client.name or ""), "status")
        code = self.target.code
        try:
            if code is not None and self.target.spectate:
                state = client.spectate(code)
                self.say(self.labels("online.spectating", code=state.table.code), "status")
            elif code is not None:
                state = client.join(code)
                if state.you is None and state.table.status == "open":
                    try:
                        client.sit()
                    except ServerError as exc:
                        if exc.code != "table_full":
                            raise
                        self.say(self._refusal(exc), "error")
                self.say(self.labels("online.table", url=self.target.url,
                                     code=state.table.code), "status")
            else:
                state = client.create_table(rules=self.rules)
                self.say(self.labels("online.table", url=self.target.url,
                                     code=state.table.code), "status")
                for strength in self.bots[: len(state.table.seats) - 1]:
                    client.add_bot(strength)
                if len(self.bots) >= len(state.table.seats) - 1:
                    client.start()
                else:
                    self.say(self.labels("online.wait_host"), "status")
        except ServerError as exc:
            client.close()
            raise InputRefused(self._refusal(exc)) from None
        except ConnectionLost:
            client.close()
            raise InputRefused(self.labels("online.unreachable", url=self.target.url)) from None
        if state.table.status == "open" and code is not None and not self.target.spectate:
            self.say(self.labels("online.wait_guest"), "status")

    def close(self) -> None:
        if self.client is not None:
            self.client.close()
        self.end()

    # -- what arrives -----------------------------------------------------------------

    def pump(self, timeout: float = 0.0) -> None:
        client = self.client
        if client is None or self.ended:
            return
        msg = client.next(timeout)
        if msg is None:
            return
        with self.lock:
            self.holding = True
            try:
                while msg is not None and not self.ended:
                    self._take(msg)
                    # A table state is often followed at once by the events that led to it.
                    msg = client.next(0.05 if isinstance(msg, TableState) else 0)
            finally:
                self.holding = False
            self.announce()

    def _take(self, msg: object) -> None:
        if isinstance(msg, TableState):
            self._state = msg
            self._prompt = msg.prompt
            if msg.view is not None:
                self._view = msg.view
            self._take_sheet(msg.sheet)  # before a game too: key W's seats
            self._refresh()
        elif isinstance(msg, Events):
            self._events(msg)
        elif isinstance(msg, Error):
            self.say(self._refusal(ServerError(msg)), "error")
            if msg.code in ("no_table", "closed", "kicked"):
                self.end(self.labels("online.table_gone", code=self.target.code or ""))
        elif isinstance(msg, Invitation):
            # The newest invitation is the one /accept and /decline answer.
            self._invitation = msg
            self.say(f"{msg.text} {self.labels('online.invitation_how')}", "status")
        elif isinstance(msg, Status):
            self._status(msg)

    def _status(self, status: Status) -> None:
        if status.state == "lost":
            self.say(self.labels("online.lost"), "status")
        elif status.state == "retrying":
            self.say(self.labels("online.retrying", attempt=status.attempt), "status")
        elif status.state == "back":
            self.say(self.labels("online.back"), "status")
            # The decision still asked is said again: it may have been missed while away.
            self.forget_announced()
        elif status.reason in FINAL:
            self.end()  # the server said why (signed out, banned): no way back from here
        else:
            code = self._state.table.code if self._state is not None else None
            if code:
                text = self.labels("online.gone", url=self.target.url, code=code)
            else:
                text = self.labels("online.gone_lobby")
            self.end(text)

    def _events(self, msg: Events) -> None:
        self._prompt = msg.prompt
        items = msg.items
        events = [it for it in items if isinstance(it, EventItem)]
        first = events[0].seq if events else None
        others = [it for it in items if not isinstance(it, EventItem)]
        before = [self._item_text(it) for it in others if first is None or it.seq < first]
        after = [self._item_text(it) for it in others if first is not None and it.seq > first]
        if msg.older is not None:
            # A catch-up carries the newest items only: said from where it starts.
            self.say(self.labels("online.older"), "status")
        for text in before:
            self.say(text, "notice")
        for sentence in msg.text:
            self.say(sentence)
        if any(isinstance(it.event, CardsRevealed) for it in events):
            # As the web client keeps it: the narration of the frame that revealed cards.
            self.last_reveal = " ".join(msg.text)
        if msg.view is not None:
            self._view = merge_view(self._view, msg.view)
            self._take_sheet(msg.sheet)
        for text in after:
            self.say(text, "notice")
        self._refresh()
        if any(is_game_over(it) for it in events):
            for line in self.results():
                self.say(line, "info")
            self.say(self.labels("results.again" if self.snapshot.host
                                 else "results.again_guest"), "info")

    def _take_sheet(self, sheet: SheetPayload | SheetChange | None) -> None:
        """The sheet a frame carries: a ``table_state``'s whole, or an ``events`` frame's
        change merged into the one held (docs/protocol.md)."""
        if sheet is None:
            return
        if isinstance(sheet, SheetChange):
            sheet = merge_sheet(self._sheet_held, sheet)
        self._sheet = self._sheet_held = sheet

    def _item_text(self, item: NoticeItem | ChatItem) -> str:
        """A notice or a chat line as the server says it in the player's language."""
        return item.said if isinstance(item, ChatItem) else item.text

    def _refresh(self) -> None:
        state = self._state
        if state is None:
            return
        info = state.table
        view = self._view
        status = info.status if info.status in ("open", "playing", "over") else "over"
        if view is not None:
            status = "over" if view.phase == "over" else "playing"
        snap = Snapshot(
            status=status,
            code=info.code,
            host=info.host is not None and info.host == (self.client.name if self.client else None),
            you=state.you,
            seats=tuple(info.seats),
            rules_name=info.rules_name,
            game_no=info.game_no,
            view=view,
            ask=self._prompt,
            sheet=self._sheet,
        )
        self._set(snap)

    # -- the player's intentions --------------------------------------------------------

    def answer(self, value: int) -> None:
        ask = self.check_answer(value)
        client = self.client
        assert client is not None
        try:
            client.answer(value, ask.kind)
        except ServerError as exc:
            raise InputRefused(self._refusal(exc)) from None
        except (ConnectionLost, TimeoutError):
            raise InputRefused(self.labels("online.lost")) from None

    def hint(self) -> str:
        """The server computes the hint from this seat's view and says it in this
        session's language."""
        if self.snapshot.ask is None:
            raise InputRefused(self.labels("nothing_asked"))
        client = self.client
        assert client is not None
        try:
            msg = client.request({"type": "hint"}, want="hint")
        except ServerError as exc:
            raise InputRefused(self._refusal(exc)) from None
        except (ConnectionLost, TimeoutError):
            raise InputRefused(self.labels("online.lost")) from None
        assert isinstance(msg, Hint)
        return msg.text

    def command(self, name: str, arg: str = "") -> None:
        client = self.client
        assert client is not None
        try:
            if name == "say":
                if arg:
                    client.chat(arg)
            elif name == "bot":
                client.add_bot(arg or "medium")
            elif name == "sit":
                client.sit(int(arg) - 1 if arg.isdigit() else None)
            elif name == "start":
                client.start()
            elif name == "rematch":
                client.rematch()
            elif name == "leave":
                client.leave()
                self.end()
            elif name == "invite":
                client.act("invite", name=arg)
                self.say(self.labels("online.invited", name=arg), "status")
            elif name in ("accept", "decline"):
                invitation, self._invitation = self._invitation, None
                if invitation is None:
                    raise InputRefused(self.labels("online.no_invitation"))
                if name == "decline":
                    client.act("answer_invitation", id=invitation.id, accept=False)
                else:
                    self._take(client.answer_invitation(invitation.id))
                    self.say(self.labels("online.table", url=self.target.url,
                                         code=invitation.table), "status")
            else:
                raise InputRefused(self.labels("unknown_command", command="/" + name))
        except ServerError as exc:
            raise InputRefused(self._refusal(exc)) from None
        except (ConnectionLost, TimeoutError):
            raise InputRefused(self.labels("online.lost")) from None

    def _refusal(self, exc: ServerError) -> str:
        """A server's refusal as the server says it in the player's language, and how to
        act on it in the terminal where that differs from the browser."""
        said = exc.error.text or self.labels("error.other", message=exc.error.message)
        how = f"how.{exc.code}"
        return f"{said} {self.labels(how)}" if self.labels.has(how) else said
