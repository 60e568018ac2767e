"""Who a connection is: guests, accounts, sessions, and the operator's sanctions.

A **player** is the identity: their id holds the name, the rating and the
history. A **guest** is a player without a password; an **account** is a
player with one (argon2id, :mod:`.passwords`). Every token is a **session** of
its player (the ``sessions`` table): a guest has the one they got with their
name; an account gets a new one at each sign-in, and can list and end them.
docs/accounts.md tells players and operators how it all behaves.

What this module decides, for the edge, which only dispatches:

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

A session ended here closes this process's connections at once (:mod:`.roster`) and
tells the other processes (:mod:`.signals`); the operator's sanctions are
:mod:`.sanctions`'.
"""

from __future__ import annotations

import logging
import math
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, Generic

from ... import wire as P
from ..base.limits import Backoff, WindowCounter
from ..base.quota import Quota
from ..base.settings import Settings
from ..base.text import NAME_MAX, check_name, name_key
from ..store import Conflict, Store
from ..store import accounts as db
from ..store.accounts import RELEASED
from ..store.tokens import hash_code, new_token
from .members import M
from .passwords import Hasher, HasherBusy, check_password
from .roster import Roster
from .sanctions import Sanctions
from .signals import signal

__all__ = ["ACCOUNT_MESSAGES", "Accounts", "Identity", "released_placeholder"]

log = logging.getLogger("nimmt.server")

#: The messages :meth:`Accounts.message` answers.
ACCOUNT_MESSAGES: frozenset[type[P.ClientMessage]] = frozenset({
    P.SetPassword, P.AskRecoveryCodes, P.AskSessions, P.EndSession, P.SignOut})


def released_placeholder(player_id: int) -> str:
    """The ``name`` a released guest's row holds: longer than any name a player can
    choose (:data:`~.text.NAME_MAX`), so no ``hello`` can ever take it.

    >>> released_placeholder(7), len(released_placeholder(7)) > NAME_MAX
    ('(released name of player 7)', True)
    """
    return f"{RELEASED}{player_id})"


@dataclass(frozen=True, slots=True)
class Identity:
    """Who a ``hello`` made the connection: the player, their session, the token to give
    (a new session), and whether the player has a password."""

    player_id: int
    name: str
    session_id: int
    token: str | None
    account: bool


class Accounts(Generic[M]):
    """Identities and sessions of one server process (see the module)."""

    def __init__(self, settings: Settings, store: Store, roster: Roster[M],
                 sanctions: Sanctions, refused: Callable[[str], None]) -> None:
        self.settings = settings
        self.store = store
        self.roster = roster
        self.sanctions = sanctions
        s = settings
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
                               "address; wait, or say hello with your token", refused)

    # -- life ----------------------------------------------------------------------------

    async def open(self) -> None:
        await self.hasher.open()

    def close(self) -> None:
        self.hasher.close()

    # -- hello ---------------------------------------------------------------------------

    async def hello(self, conn: M, msg: P.Hello) -> Identity:
        """Who ``msg`` makes ``conn`` (its player, name and session are set, and it is
        online here), or a refusal (:class:`~nimmt.wire.ProtocolError`)."""
        self.sanctions.check_hello(conn.address)
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
        conn.player_id, conn.name, conn.session_id = ident.player_id, ident.name, ident.session_id
        self.roster.joined(conn)
        return ident

    async def _resume(self, conn: M, token: str) -> Identity:
        row = await self.store.player_by_token(token)
        if row is None:
            raise P.ProtocolError("bad_token", "no player has that token")
        pid = int(row.id)
        self.sanctions.check_player(pid)
        name = str(row.name)
        if row.released is not None:
            name = await self._restore(pid, str(row.released_name or "Player"))
        return Identity(pid, name, int(row.session_id), None, row.password_hash is not None)

    async def _new_guest(self, conn: M, raw: str) -> Identity:
        name = check_name(raw)
        with self.new_names.held(conn.address):
            return await self._make_guest(conn, name)

    async def _make_guest(self, conn: M, name: str) -> Identity:
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

    async def _sign_in(self, conn: M, raw_name: str, password: str,
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
        self.sanctions.check_player(pid)
        token = new_token()
        if new_password is not None:
            assert code is not None
            session = await self.store.run(
                db.recover(pid, hash_code(code), new_hash, token, address))
            if session is None:
                raise P.ProtocolError("sign_in_failed", "that recovery code was used "
                                      "meanwhile")
            # Every session made before is over: whoever held one is out.
            self.roster.ended_player(pid, None, "signed_out")
            await signal(self.store, "out", player_id=pid, session_id=session)
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

    async def message(self, conn: M, msg: Any) -> None:
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
                await self.roster.flush(self.store)
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
        self.roster.ended_session(session_id, "signed_out")
        await signal(self.store, "session", player_id=player_id, session_id=session_id)

    async def end_all(self, player_id: int, keep: int | None) -> None:
        """Every session of ``player_id`` but ``keep`` was ended: the same, for them all."""
        self.roster.ended_player(player_id, keep, "signed_out")
        await signal(self.store, "out", player_id=player_id, session_id=keep)

    async def _need_account(self, conn: M) -> None:
        row = await self.store.read(db.player(conn.player_id))
        if row is None or row.password_hash is None:
            raise P.ProtocolError("no_password", "a guest has one session, the only key to "
                                  "their name: add a password first")

    async def _check_own(self, conn: M, password: str) -> Any:
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

    async def _set_password(self, conn: M, raw: str, old: str | None,
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
