"""Who a connection is: guests, accounts, sessions, and the operator's sanctions.

A **player** is the identity: their id holds the name, the rating and the
history. A **guest** is a player without a password; an **account** is a
player with one (argon2id, :mod:`.passwords`). Every token is a **session** of
its player (the ``sessions`` table): a guest has the one they got with their
name; an account gets a new one at each sign-in, and can list and end them.
docs/accounts.md tells players and operators how it all behaves.

What this module decides, for the hub (:mod:`.app`), which only dispatches:

- ``hello``: a session's token, a sign-in (name and password), a recovery
  (name, recovery code and a new password), or a new guest by name; banned
  players and addresses are refused here.
- Sign-ins are limited per account and per address (:class:`~.limits.Backoff`),
  and a wrong name costs what a wrong password costs (one argon2 check, against a
  dummy hash), so neither the answer nor its timing tells whether a name has an
  account. A sign-in from an address the account already has a session from is
  not held back by the account's failures (a guesser elsewhere cannot keep the
  owner out); the address's own limit still applies.
- The account messages: ``set_password``, ``recovery_codes``, ``sessions``,
  ``end_session``, ``sign_out``.
- **Signals**: what every server process must act on at once (a session ended,
  a ban, a rename, a table to close) is written to the ``signals`` table, by this
  process or by ``nimmt admin``; every process reads the new rows every
  ``signal_poll`` seconds and closes the connections concerned. A session ended
  here closes this process's connections at once, without waiting for the poll.
- **Housekeeping**, every few minutes: sessions of accounts unused for
  ``session_days`` end; guest names unused for ``guest_release_days`` are
  released; signals older than a day go.
"""

from __future__ import annotations

import asyncio
import contextlib
import ipaddress
import logging
import math
import time
from collections.abc import Awaitable, Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ... import wire as P
from ..base.limits import Backoff, WindowCounter
from ..base.quota import Quota
from ..base.settings import Settings
from ..base.text import NAME_MAX, check_name, name_key
from ..store import Conflict, Store
from ..store import accounts as db
from ..store.accounts import RELEASED
from ..store.tokens import hash_code, new_token
from .passwords import Hasher, HasherBusy, check_password

if TYPE_CHECKING:
    from ..app import Connection, Hub

__all__ = ["ACCOUNT_MESSAGES", "Accounts", "Identity", "Sanctions", "released_placeholder"]

log = logging.getLogger("nimmt.server")

#: The messages :meth:`Accounts.message` answers.
ACCOUNT_MESSAGES: frozenset[type[P.ClientMessage]] = frozenset({
    P.SetPassword, P.AskRecoveryCodes, P.AskSessions, P.EndSession, P.SignOut})
#: Longest time between two housekeeping rounds.
SWEEP_MAX = 600.0
DAY = 86400.0


def released_placeholder(player_id: int) -> str:
    """The ``name`` a released guest's row holds: longer than any name a player can
    choose (:data:`~.text.NAME_MAX`), so no ``hello`` can ever take it.

    >>> released_placeholder(7), len(released_placeholder(7)) > NAME_MAX
    ('(released name of player 7)', True)
    """
    return f"{RELEASED}{player_id})"


def _network_of(address: str) -> ipaddress.IPv4Network | ipaddress.IPv6Network | None:
    """The network a connection's address key stands for, or None (an address that is not
    an IP address: a test client, a Unix socket)."""
    try:
        return ipaddress.ip_network(address, strict=False)
    except ValueError:
        return None


def _until(until: float | None) -> str:
    if until is None:
        return "until it is lifted"
    return "until " + time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime(until))


@dataclass(frozen=True, slots=True)
class Identity:
    """Who a ``hello`` made the connection: the player, their session, the token to give
    (a new session), and whether the player has a password."""

    player_id: int
    name: str
    session_id: int
    token: str | None
    account: bool


@dataclass(slots=True)
class Sanction:
    """One mute or ban in force."""

    kind: str
    player_id: int | None
    network: ipaddress.IPv4Network | ipaddress.IPv6Network | None
    until: float | None
    reason: str

    def live(self, now: float) -> bool:
        return self.until is None or self.until > now

    def said(self) -> str:
        why = f": {self.reason}" if self.reason else ""
        return f"{_until(self.until)}{why}"


class Sanctions:
    """The mutes and bans in force, read from the store (and again at each ``ban`` or
    ``sanctions`` signal, and at each housekeeping round)."""

    def __init__(self, rows: Iterable[Any] = ()) -> None:
        self.items: list[Sanction] = []
        for r in rows:
            network = None
            if r.address is not None:
                network = _network_of(r.address)
                if network is None:
                    continue
            self.items.append(Sanction(r.kind, r.player_id, network, r.until, r.reason or ""))

    def player(self, kind: str, player_id: int, now: float) -> Sanction | None:
        """The ``kind`` sanction in force on player ``player_id``."""
        for s in self.items:
            if s.kind == kind and s.player_id == player_id and s.live(now):
                return s
        return None

    def address(self, kind: str, address: str, now: float) -> Sanction | None:
        """The ``kind`` sanction in force on a network that holds ``address``."""
        if not any(s.network is not None for s in self.items):
            return None
        net = _network_of(address)
        if net is None:
            return None
        for s in self.items:
            if (s.kind == kind and s.network is not None and s.live(now)
                    and s.network.version == net.version and s.network.overlaps(net)):
                return s
        return None


class Accounts:
    """Identities, sessions and sanctions of one server process (see the module)."""

    def __init__(self, hub: Hub) -> None:
        self.hub = hub
        self.settings: Settings = hub.settings
        self.store: Store = hub.store
        s = self.settings
        self.hasher = Hasher(s)
        self.account_fails = Backoff(s.signin_free, s.signin_delay_max, s.signin_window)
        self.address_fails = Backoff(s.signin_address_free, s.signin_address_delay_max,
                                     s.signin_window)
        #: Password checks each address asked for in the last minute.
        self.checks = WindowCounter(s.password_checks_per_minute, 60.0)
        #: New players each address made in the last minute (taken before the store is
        #: asked whether the name is free: server/quota.py).
        self.new_names = Quota(s.names_per_minute, 60.0, "names_per_minute",
                               f"at most {s.names_per_minute} new players a minute from one "
                               "address; wait, or say hello with your token",
                               hub.metrics.refused)
        self.sanctions = Sanctions()
        #: Connections by player, for closing them when a session ends or a ban comes.
        self.online: dict[int, set[Connection]] = {}
        #: When each player and session was last seen, not yet written.
        self._seen_players: dict[int, float] = {}
        self._seen_sessions: dict[int, tuple[float, str]] = {}
        self._last_signal = 0
        self._task: asyncio.Task[None] | None = None
        #: How many signals this process acted on (tests and the log read it).
        self.signals_seen = 0

    # -- life ----------------------------------------------------------------------------

    async def open(self) -> None:
        await self.hasher.open()
        self._last_signal = await self.store.read(db.last_signal())
        await self.reload_sanctions()
        self._task = asyncio.create_task(self._loop(), name="nimmt-accounts")

    async def close(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
            self._task = None
        with contextlib.suppress(Exception):
            await self._flush_seen()
        self.hasher.close()

    def sweep_every(self) -> float:
        """Seconds between housekeeping rounds: a tenth of the shortest time it enforces,
        at most ten minutes, at least one signal poll."""
        s = self.settings
        spans = [s.session_days * DAY]
        if s.guest_release_days > 0:
            spans.append(s.guest_release_days * DAY)
        return max(s.signal_poll, min(SWEEP_MAX, min(spans) / 10))

    async def _loop(self) -> None:
        loop = asyncio.get_running_loop()
        next_sweep = loop.time() + self.sweep_every()
        while True:
            await asyncio.sleep(self.settings.signal_poll)
            try:
                await self._flush_seen()
                await self.poll()
                if loop.time() >= next_sweep:
                    next_sweep = loop.time() + self.sweep_every()
                    await self.sweep()
            except asyncio.CancelledError:
                raise
            except Exception:
                log.exception("reading signals or housekeeping failed; trying again")

    # -- hello ---------------------------------------------------------------------------

    async def hello(self, conn: Connection, msg: P.Hello) -> Identity:
        """Who ``msg`` makes ``conn``, or a refusal (:class:`~nimmt.wire.ProtocolError`)."""
        now = time.time()
        banned = self.sanctions.address("ban", conn.address, now)
        if banned is not None:
            raise P.ProtocolError("banned", f"this address is banned {banned.said()}")
        if msg.token is not None:
            if msg.name is not None or msg.password is not None or msg.recovery_code is not None:
                raise P.ProtocolError("bad_message", "hello has a token, or a name, not both")
            ident = await self._resume(conn, msg.token)
        elif msg.name is not None and msg.password is not None:
            ident = await self._sign_in(conn, msg.name, msg.password, msg.recovery_code)
        elif msg.name is not None:
            if msg.recovery_code is not None:
                raise P.ProtocolError("bad_message", "a recovery code comes with the new "
                                      "password")
            ident = await self._new_guest(conn, msg.name)
        else:
            raise P.ProtocolError("bad_message", "hello needs a name (new player), a name and "
                                  "a password (sign in) or a token")
        self.joined(conn, ident)
        return ident

    def _banned(self, player_id: int) -> None:
        banned = self.sanctions.player("ban", player_id, time.time())
        if banned is not None:
            raise P.ProtocolError("banned", f"this player is banned {banned.said()}")

    async def _resume(self, conn: Connection, token: str) -> Identity:
        row = await self.store.player_by_token(token)
        if row is None:
            raise P.ProtocolError("bad_token", "no player has that token")
        pid = int(row.id)
        self._banned(pid)
        name = str(row.name)
        if row.released is not None:
            name = await self._restore(pid, str(row.released_name or "Player"))
        return Identity(pid, name, int(row.session_id), None, row.password_hash is not None)

    async def _new_guest(self, conn: Connection, raw: str) -> Identity:
        name = check_name(raw)
        with self.new_names.held(conn.address):
            return await self._make_guest(conn, name)

    async def _make_guest(self, conn: Connection, name: str) -> Identity:
        key = name_key(name)
        exists = await self.store.player_by_skeleton(key)
        if exists is not None:
            like = "" if exists.name == name else f" looks like {exists.name!r}, which"
            raise P.ProtocolError("name_taken", f"the name {name!r}{like} belongs to another "
                                  "player; choose another, or send your token (or your "
                                  "password, if the name is your account's)")
        token = new_token()
        address = conn.address
        try:
            pid, session = await self.store.run(db.new_player(name, key, token, address))
        except Conflict:
            raise P.ProtocolError("name_taken", f"the name {name!r} is taken") from None
        return Identity(pid, name, session, token, False)

    async def _restore(self, player_id: int, old: str) -> str:
        """A released guest is back: their old name if nobody took one like it since, else
        the first free ``old 2``, ``old 3``, …; their rating and games never left."""
        for n in range(1, 1000):
            suffix = "" if n == 1 else f" {n}"
            name = old[:NAME_MAX - len(suffix)].rstrip() + suffix
            key = name_key(name)
            if await self.store.player_by_skeleton(key) is not None:
                continue
            try:
                await self.store.run(db.restore_name(player_id, name, key))
            except Conflict:
                continue
            log.info("player %d is back: their released name is %r again", player_id, name)
            return name
        raise P.ProtocolError("name_taken", "no name like the released one is free")

    # -- signing in ----------------------------------------------------------------------

    async def _sign_in(self, conn: Connection, raw_name: str, password: str,
                       code: str | None) -> Identity:
        """Sign in with a password, or set a new one with a recovery ``code``. Every way of
        failing (no such name, a guest's name, a wrong password, a wrong code) costs one
        argon2 check and gives the same answer."""
        name = check_name(raw_name)
        new_password = check_password(password, self.settings) if code is not None else None
        key = name_key(name)
        address = conn.address
        row = await self.store.read(db.account(key, name, address))
        known = row is not None and bool(row.known)
        stamp = self._limit(key, address, skip_account=known)
        stored = None if row is None else row.password_hash
        pid = -1 if row is None or stored is None else int(row.id)
        try:
            if new_password is not None:
                assert code is not None
                valid = await self.store.read(db.code_valid(pid, hash_code(code)))
                if valid:
                    new_hash = await self._hashing(self.hasher.hash(new_password))
                else:
                    await self._hashing(self.hasher.verify(None, new_password))
                ok, rehash = valid, False
            else:
                ok, rehash = await self._hashing(self.hasher.verify(stored, password))
        except P.ProtocolError as exc:
            if exc.code is P.ErrorCode.SIGN_IN_BUSY:  # nothing was checked: not counted
                self.checks.give_back(address, stamp)
            raise
        if not ok or row is None:
            self._failed(key, address)
            what = "recovery code" if code is not None else "password"
            raise P.ProtocolError("sign_in_failed", f"the name and {what} do not match an "
                                  "account")
        self.account_fails.clear(key)
        self._banned(pid)
        token = new_token()
        if new_password is not None:
            assert code is not None
            session = await self.store.run(
                db.recover(pid, hash_code(code), new_hash, token, address))
            if session is None:
                raise P.ProtocolError("sign_in_failed", "that recovery code was used "
                                      "meanwhile")
            # Every session made before is over: whoever held one is out.
            self.ended_player(pid, None, "signed_out")
            await self.signal("out", player_id=pid, session_id=session)
            ended = []
        else:
            if rehash:
                new_hash = await self._hashing(self.hasher.hash(password))
                await self.store.run(db.set_hash(pid, new_hash))
            session, ended = await self.store.run(
                db.open_session(pid, token, address, self.settings.sessions_per_player))
        for old in ended:
            await self.end_session(pid, old)
        return Identity(pid, str(row.name), session, token, True)

    def _limit(self, key: str, address: str, skip_account: bool = False) -> float:
        """Refuse a password check that must wait (``sign_in_limited``), or count it (its
        stamp: :meth:`~.limits.WindowCounter.give_back` if it is not made)."""
        now = time.monotonic()
        wait = self.address_fails.wait(address, now)
        if not skip_account:
            wait = max(wait, self.account_fails.wait(key, now))
        if wait > 0:
            raise P.ProtocolError(
                "sign_in_limited", f"too many failed sign-ins on this account or from this "
                f"address: try again in {math.ceil(wait)} s", retry_after=math.ceil(wait))
        stamp = self.checks.take(address)
        if stamp is None:
            raise P.ProtocolError(
                "sign_in_limited", f"at most {self.settings.password_checks_per_minute} "
                "password checks a minute from one address: try again in a minute",
                retry_after=60)
        return stamp

    def _failed(self, key: str, address: str) -> None:
        now = time.monotonic()
        self.account_fails.fail(key, now)
        self.address_fails.fail(address, now)

    async def _hashing(self, work: Awaitable[Any]) -> Any:
        try:
            return await work
        except HasherBusy:
            raise P.ProtocolError("sign_in_busy", "the server checks as many passwords as it "
                                  "may; ask again in a moment") from None

    # -- the account messages ------------------------------------------------------------

    async def message(self, conn: Connection, msg: Any) -> None:
        """One of :data:`ACCOUNT_MESSAGES` from a connection that said hello."""
        match msg:
            case P.SetPassword(password=password, old=old, ref=ref):
                await self._set_password(conn, password, old, ref)
            case P.AskRecoveryCodes(password=password, ref=ref):
                await self._check_own(conn, password)
                codes = await self.store.run(db.new_codes(conn.player_id))
                conn.send(P.RecoveryCodes(seq=conn.seq, codes=codes, ref=ref)
                          .model_dump_json())
            case P.AskSessions(ref=ref):
                await self._flush_seen()
                rows = await self.store.read(db.sessions_of(conn.player_id))
                listed = [P.SessionInfo(id=r.id, created=r.created, last_seen=r.last_seen,
                                        address=r.address, last_address=r.last_address,
                                        current=r.id == conn.session_id) for r in rows]
                conn.send(P.SessionList(seq=conn.seq, sessions=listed, ref=ref)
                          .model_dump_json())
            case P.EndSession(session=session, ref=ref):
                await self._need_account(conn)
                if not await self.store.run(db.end_sessions(conn.player_id, only=session)):
                    raise P.ProtocolError("no_session", f"you have no session {session}")
                conn.send(P.Ack(seq=conn.seq, ref=ref).model_dump_json())
                await self.end_session(conn.player_id, session)
            case P.SignOut(scope=scope, ref=ref):
                await self._need_account(conn)
                if scope == "this":
                    await self.store.run(db.end_sessions(conn.player_id, only=conn.session_id))
                    conn.send(P.Ack(seq=conn.seq, ref=ref).model_dump_json())
                    await self.end_session(conn.player_id, conn.session_id)
                else:
                    keep = conn.session_id if scope == "others" else None
                    await self.store.run(db.end_sessions(conn.player_id, keep=keep))
                    conn.send(P.Ack(seq=conn.seq, ref=ref).model_dump_json())
                    await self.end_all(conn.player_id, keep)

    async def end_session(self, player_id: int, session_id: int) -> None:
        """Session ``session_id`` was ended (its row is gone): close its connections here at
        once (after what was queued for them, an ``ack`` say), and tell the other
        processes."""
        self.ended_session(session_id, "signed_out")
        await self.signal("session", player_id=player_id, session_id=session_id)

    async def end_all(self, player_id: int, keep: int | None) -> None:
        """Every session of ``player_id`` but ``keep`` was ended: the same, for them all."""
        self.ended_player(player_id, keep, "signed_out")
        await self.signal("out", player_id=player_id, session_id=keep)

    async def _need_account(self, conn: Connection) -> None:
        row = await self.store.read(db.player(conn.player_id))
        if row is None or row.password_hash is None:
            raise P.ProtocolError("no_password", "a guest has one session, the only key to "
                                  "their name: add a password first")

    async def _check_own(self, conn: Connection, password: str) -> Any:
        """Check ``conn``'s player's own password, limited like a sign-in; the player's
        row."""
        row = await self.store.read(db.player(conn.player_id))
        if row is None or row.password_hash is None:
            raise P.ProtocolError("no_password", "this player has no password yet: add one "
                                  "with set_password")
        key = name_key(str(row.name))
        self._limit(key, conn.address)
        ok, _ = await self._hashing(self.hasher.verify(row.password_hash, password))
        if not ok:
            self._failed(key, conn.address)
            raise P.ProtocolError("sign_in_failed", "that is not this account's password")
        self.account_fails.clear(key)
        return row

    async def _set_password(self, conn: Connection, raw: str, old: str | None,
                            ref: P.Ref) -> None:
        password = check_password(raw, self.settings)
        row = await self.store.read(db.player(conn.player_id))
        if row is None:
            raise P.ProtocolError("bad_token", "this player is gone")
        if row.password_hash is None:
            # A guest keeps their name: the first password, and recovery codes shown once.
            self._limit(name_key(str(row.name)), conn.address)
            new_hash = await self._hashing(self.hasher.hash(password))
            codes = await self.store.run(db.claim(conn.player_id, new_hash))
            if codes is None:
                raise P.ProtocolError("sign_in_failed", "this player has a password already: "
                                      "send the current one as old")
            log.info("player %d (%s) added a password", conn.player_id, conn.name)
            conn.send(P.RecoveryCodes(seq=conn.seq, codes=codes, ref=ref).model_dump_json())
            return
        if old is None:
            raise P.ProtocolError("sign_in_failed", "to change the password, send the current "
                                  "one as old")
        await self._check_own(conn, old)
        new_hash = await self._hashing(self.hasher.hash(password))
        await self.store.run(db.change(conn.player_id, new_hash, keep=conn.session_id))
        conn.send(P.Ack(seq=conn.seq, ref=ref).model_dump_json())
        # Whoever else held a session of this account (a stolen one) is out.
        await self.end_all(conn.player_id, conn.session_id)

    # -- connections ---------------------------------------------------------------------

    def joined(self, conn: Connection, ident: Identity) -> None:
        self.online.setdefault(ident.player_id, set()).add(conn)
        self.seen(ident.player_id, ident.session_id, conn.address)

    def left(self, conn: Connection) -> None:
        """``conn`` is gone: forget it, and note when its player was last seen."""
        mine = self.online.get(conn.player_id)
        if mine is None or conn not in mine:
            return
        mine.discard(conn)
        if not mine:
            del self.online[conn.player_id]
        self.seen(conn.player_id, conn.session_id, conn.address)

    def seen(self, player_id: int, session_id: int, address: str) -> None:
        now = time.time()
        self._seen_players[player_id] = now
        if session_id:
            self._seen_sessions[session_id] = (now, address)

    def check_chat(self, conn: Connection) -> None:
        """Refuse chat from a muted player (``muted``)."""
        muted = self.sanctions.player("mute", conn.player_id, time.time())
        if muted is not None:
            raise P.ProtocolError("muted", f"the operator muted you {muted.said()}")

    def _connections(self, player_id: int | None = None) -> list[Connection]:
        if player_id is not None:
            return list(self.online.get(player_id, ()))
        return [c for conns in self.online.values() for c in conns]

    def ended_session(self, session_id: int, code: P.CodeLike) -> int:
        """Close this process's connections of session ``session_id``; how many."""
        hit = [c for c in self._connections() if c.session_id == session_id]
        for c in hit:
            self._shut(c, code, "this session was ended")
        return len(hit)

    def ended_player(self, player_id: int, keep: int | None, code: P.CodeLike,
                     why: str = "this session was ended") -> int:
        """Close this process's connections of ``player_id`` but those of session
        ``keep``; how many."""
        hit = [c for c in self._connections(player_id) if c.session_id != keep]
        for c in hit:
            self._shut(c, code, why)
        return len(hit)

    def _shut(self, conn: Connection, code: P.CodeLike, why: str) -> None:
        if conn.gone and conn.closing:
            return
        conn.cut_off(code, why)
        self.left(conn)

    # -- signals -------------------------------------------------------------------------

    async def signal(self, kind: str, *, player_id: int | None = None,
                     session_id: int | None = None, address: str | None = None,
                     code: str | None = None) -> None:
        """Tell every server process (this one reads it too, and acts again harmlessly: an
        ``out`` closes only connections whose session no longer exists)."""
        await self.store.run(db.write_signal(kind, player_id=player_id, session_id=session_id,
                                          address=address, code=code))

    async def poll(self) -> None:
        """Act on the signals written since the last look."""
        last = self._last_signal
        rows = await self.store.read(db.signals_after(last))
        if not rows:
            return
        reload = any(r.kind in ("ban", "sanctions") for r in rows)
        if reload:
            await self.reload_sanctions()
        # A sign-out ended the sessions that were there when it was written; one made
        # since (a sign-in a moment later) is not ended by reading it: the player's
        # sessions that still exist are kept.
        outs = {int(r.player_id) for r in rows if r.kind == "out" and r.player_id is not None}
        live = {pid: await self.store.read(db.session_ids(pid)) for pid in outs}
        for r in rows:
            self._last_signal = max(self._last_signal, int(r.id))
            self.signals_seen += 1
            self.act(r, live)
        # A player muted or blocked someone (on any process): their connections here learn.
        for pid in {int(r.player_id) for r in rows if r.kind == "social" and r.player_id}:
            await self.hub.social.refresh(pid)
        # An invitation waits for a player (written by any process): sent to them here.
        for pid in {int(r.player_id) for r in rows if r.kind == "invite" and r.player_id}:
            await self.hub.social.deliver(pid)
        # Lobby lines and private messages written (at any process): sent to them here.
        if any(r.kind == "lobby" for r in rows):
            await self.hub.social.lobby_deliver()
        for pid in {int(r.player_id) for r in rows if r.kind == "private" and r.player_id}:
            await self.hub.social.private_deliver(pid)

    def act(self, r: Any, live: dict[int, set[int]]) -> None:
        """One signal, here: close what it ends, close the table it names (``live``: the
        sessions that still exist of each player an ``out`` signal names)."""
        if r.kind == "session" and r.session_id is not None:
            self.ended_session(int(r.session_id), "signed_out")
        elif r.kind == "out" and r.player_id is not None:
            kept = live.get(int(r.player_id), set())
            for c in self._connections(int(r.player_id)):
                if c.session_id not in kept:
                    self._shut(c, "signed_out", "this session was ended")
        elif r.kind == "ban":
            now = time.time()
            if r.player_id is not None:
                ban = self.sanctions.player("ban", int(r.player_id), now)
                if ban is not None:
                    self.ended_player(int(r.player_id), None, "banned",
                                      f"this player is banned {ban.said()}")
            if r.address is not None:
                for c in self._connections():
                    ban = self.sanctions.address("ban", c.address, now)
                    if ban is not None:
                        self._shut(c, "banned", f"this address is banned {ban.said()}")
        elif r.kind == "rename" and r.player_id is not None:
            # They come back at once (the clients reconnect) under the new name.
            for c in self._connections(int(r.player_id)):
                c.drop()
                self.left(c)
        elif r.kind == "close" and r.code is not None:
            from ..commands import Shut

            actor = self.hub.tables.get(str(r.code))
            if actor is not None:
                log.info("table %s closed by the operator", r.code)
                actor.post(Shut())

    async def reload_sanctions(self) -> None:
        now = time.time()
        self.sanctions = Sanctions(await self.store.read(db.live_sanctions(now)))

    # -- housekeeping --------------------------------------------------------------------

    async def _flush_seen(self) -> None:
        players_seen, self._seen_players = self._seen_players, {}
        sessions_seen, self._seen_sessions = self._seen_sessions, {}
        if not players_seen and not sessions_seen:
            return
        await self.store.run(db.write_seen(players_seen, sessions_seen))

    async def sweep(self) -> None:
        """End idle sessions of accounts, release unused guest names, drop old signals,
        read the sanctions again (some ran out)."""
        for pid, conns in self.online.items():
            for c in conns:
                self.seen(pid, c.session_id, c.address)
        await self._flush_seen()
        s = self.settings
        released, expired = await self.store.run(
            db.housekeeping(s.session_days * DAY, s.guest_release_days * DAY))
        if released:
            log.info("released the names of %d guests unused for %g days", released,
                     s.guest_release_days)
        if expired:
            log.info("ended %d sessions unused for %g days", expired, s.session_days)
        await self.hub.social.sweep()
        await self.reload_sanctions()


# -- store operations ------------------------------------------------------------------------

