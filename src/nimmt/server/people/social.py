"""Friends, mutes and blocks, reports, and the leaderboard: the room around the tables.

A player **follows** another by name; two players who follow each other are
**friends**. The friends list (``friends``) says of each followed player whether
they are online on this process, and, for a friend, at which table and whether it
has a free seat: a one-way follow learns only that they are online, so following
a stranger tells nothing about where they play.

A player **mutes** another (their chat no longer reaches them) or **blocks** them
(more: the blocked player cannot sit at a table the blocker hosts or sits at).
Both are kept per player in ``relations``, read from the store where they are
checked (what that leaves out with several processes: docs/scaling.md).

A player **invites** another to their table (delivered on every connection the
guest has, on any process through the ``signals`` table, in each connection's
language), or makes a one-time **invitation link** that seats a newcomer. The
**lobby chat** is heard by the connections that listen to it; **private messages**
go between friends. Both are kept bounded in ``messages``; a muted or blocked
writer's lines are left out for the one who muted them. A player's **presence**
is pushed to their followers when they come, go or enter a table, at most once
every ``presence_interval``; **who is online** to the lobby's listeners that ask
(:mod:`.online`).

A **report** names a player, and maybe the message they wrote and where, with a
reason; it waits in ``reports`` for an operator (``nimmt admin reports``,
``nimmt admin resolve``, :mod:`.admin`).

Every one of these a stranger can repeat has a bound (:class:`~.settings.Settings`,
docs/security.md). The writes run in transactions of their own, outside the
tables' group commit, so a refusal rolls back nothing else. The leaderboard is one
query per preset and page, kept for ``leaderboard_cache`` seconds.
"""

from __future__ import annotations

import logging
import secrets
import time
from collections.abc import Callable
from typing import Any, Generic, Literal

from ... import wire as P
from ...narrate import narrator
from ..base.quota import Quota
from ..base.settings import Settings
from ..base.text import chat_line, clean_text
from ..store import Op, Refused, Store, hash_token
from ..store import social as db
from .delivery import Batch, Channel
from .members import M, Rooms, Seating
from .presence import Whereabouts
from .roster import Roster
from .sanctions import Sanctions
from .signals import signal

log = logging.getLogger("nimmt.server")

__all__ = ["SOCIAL_MESSAGES", "Social"]

#: The client messages :class:`Social` answers.
SOCIAL_MESSAGES: frozenset[type[P.ClientMessage]] = frozenset({
    P.Follow, P.Unfollow, P.AskFriends, P.Mute, P.Block, P.Report, P.Invite, P.AnswerInvitation,
    P.ListenLobby, P.LobbyChat, P.PrivateMessage, P.AskInviteLink})


class Social(Generic[M]):
    """Follows, mutes, blocks and reports of one server process's players."""

    def __init__(self, settings: Settings, store: Store, roster: Roster[M],
                 sanctions: Sanctions, rooms: Rooms[M], presence: Whereabouts[M],
                 refused: Callable[[str], None]) -> None:
        s = self.settings = settings
        self.store = store
        self.roster = roster
        self.sanctions = sanctions
        self.rooms = rooms
        self.presence = presence

        def quota(setting: str, window: float, what: str) -> Quota:
            limit: int = getattr(s, setting)
            return Quota(limit, window, setting, f"at most {limit} {what}", refused)

        # Each quota is taken before the store is awaited (server/quota.py).
        self.reported = quota("reports_per_hour", 3600.0,
                              "reports an hour per player; the operator reads every one")
        self.invited = quota("invites_per_minute", 60.0, "invitations a minute per player")
        self.links = quota("invite_links_per_hour", 3600.0,
                           "invitation links an hour per player")
        self.lobby_lines = quota("lobby_chat_per_minute", 60.0, "lobby lines a minute per player")
        self.private_lines = quota("private_per_minute", 60.0,
                                   "private messages a minute per player")
        self.relating = quota("relations_per_minute", 60.0,
                              "mutes and blocks made or lifted a minute per player")
        #: The lobby chat, to the connections here that listen to it.
        self.lobby: Channel[M] = Channel("lobby", self._lobby_lines,
                                                  self._lobby_line)
        #: Each player's private messages and invitations, to their connections here.
        self._private: dict[int, Channel[M]] = {}
        self._invites: dict[int, Channel[M]] = {}

    # -- messages ---------------------------------------------------------------------------

    async def message(self, conn: M, msg: Any) -> None:
        """One of :data:`SOCIAL_MESSAGES` from a connection that said hello."""
        me = conn.player_id
        s = self.settings
        match msg:
            case P.Follow(name=name, ref=ref):
                await self._write(db.follow(me, name, s.follows_max))
                conn.send(P.Ack(seq=conn.seq, ref=ref).model_dump_json())
                self.presence.moved(me)  # one who followed this player already: now friends
            case P.Unfollow(name=name, ref=ref):
                await self._write(db.unfollow(me, name))
                conn.send(P.Ack(seq=conn.seq, ref=ref).model_dump_json())
                self.presence.moved(me)
            case P.AskFriends(ref=ref):
                listed = await self.store.read(db.followed(me))
                related = await self.store.read(db.relations_of(me))
                conn.send(P.FriendList(
                    seq=conn.seq, friends=[self.presence.of(f) for f in listed],
                    muted=[n for kind, n in related if kind == "mute"],
                    blocked=[n for kind, n in related if kind == "block"],
                    ref=ref).model_dump_json())
            case P.Mute(name=name, on=on, ref=ref):
                await self._relate(conn, name, "mute", on, ref)
            case P.Block(name=name, on=on, ref=ref):
                await self._relate(conn, name, "block", on, ref)
            case P.Report(name=name, reason=reason, message=text, place=place, ref=ref):
                with self.reported.held(me):
                    await self._write(db.report(
                        me, name, clean_text(reason)[:s.report_max],
                        None if text is None else clean_text(text)[:s.chat_max], place,
                        s.reports_per_target))
                conn.send(P.Ack(seq=conn.seq, ref=ref).model_dump_json())
            case P.Invite(name=name, ref=ref):
                await self._invite(conn, name, ref)
            case P.AnswerInvitation(id=invitation, accept=accept, ref=ref):
                code = await self._write(db.answer(me, invitation, accept,
                                                    time.time() - s.invite_ttl))
                if accept:
                    await self.rooms.enter(conn, code, "join", None, ref)
                else:
                    conn.send(P.Ack(seq=conn.seq, ref=ref).model_dump_json())
            case P.AskInviteLink(ref=ref):
                await self._invite_link(conn, ref)
            case P.ListenLobby(on=on, online=online, ref=ref):
                conn.send(P.Ack(seq=conn.seq, ref=ref).model_dump_json())
                self.presence.online.listen(conn, on and online)
                if not on:
                    self.lobby.leave(conn)
                elif conn not in self.lobby.marks:
                    self.lobby.join(conn)  # sent the newest lines first
                    await self.lobby.deliver()
            case P.LobbyChat(text=raw, ref=ref):
                text = self._line(conn, raw, s.lobby_chat_max)
                with self.lobby_lines.held(me):
                    await self._write(db.post(me, None, text, s.lobby_keep))
                conn.send(P.Ack(seq=conn.seq, ref=ref).model_dump_json())
                await self.lobby.deliver()
                await signal(self.store, "lobby")
            case P.PrivateMessage(name=name, text=raw, ref=ref):
                text = self._line(conn, raw, s.private_max)
                with self.private_lines.held(me):
                    to = await self._write(db.post_private(me, name, text, s.private_keep))
                conn.send(P.Ack(seq=conn.seq, ref=ref).model_dump_json())
                if to is not None:
                    await self.private_deliver(to)
                    await signal(self.store, "private", player_id=to)

    async def _write(self, op: Op) -> Any:
        """Run ``op`` in a transaction of its own, not in the tables' group commit: a
        refusal it raises (no such player, a bound reached) rolls back this one alone, and
        is the answer."""
        try:
            return await self.store.alone(op)
        except Refused as exc:
            raise P.ProtocolError(exc.code, exc.message, exc.retry_after) from None

    async def _relate(self, conn: M, name: str, kind: str, on: bool,
                      ref: P.Ref) -> None:
        """A mute or block made or lifted; only a change is told to every process."""
        with self.relating.held(conn.player_id):
            changed = await self._write(db.relate(conn.player_id, name, kind, on,
                                                  self.settings.relations_max))
        if changed:
            if kind == "block":  # the two leave (or come back to) each other's lists
                self.presence.online.changed(blocks=True)
            await self.refresh(conn.player_id)
            await signal(self.store, "social", player_id=conn.player_id)
        conn.send(P.Ack(seq=conn.seq, ref=ref).model_dump_json())

    # -- who hears what ---------------------------------------------------------------------

    def arrived(self, conn: M) -> None:
        """``conn`` said hello: it hears its player's private messages and invitations."""
        pid = conn.player_id
        for channels, make in ((self._private, self._private_channel),
                               (self._invites, self._invite_channel)):
            channel = channels.get(pid)
            if channel is None:
                channel = channels[pid] = make(pid)
            channel.join(conn)

    def left(self, conn: M) -> None:
        """``conn`` closed: it hears nothing any more (nothing of it is kept)."""
        self.lobby.leave(conn)
        pid = conn.player_id
        for channels in (self._private, self._invites):
            channel = channels.get(pid)
            if channel is not None:
                channel.leave(conn)
                if not channel.marks:  # a delivery still running ends by itself
                    del channels[pid]

    # -- the lobby chat and private messages -----------------------------------------------

    def _line(self, conn: M, raw: str, most: int) -> str:
        """``raw`` as kept, or the refusal: the operator's mute, empty, too long."""
        self.sanctions.check_chat(conn.player_id)
        return chat_line(raw, most)

    @staticmethod
    def _send_line(conn: M, r: Any, channel: Literal["lobby", "private"],
                   to: str | None = None) -> None:
        if r.name in conn.silenced:
            return
        conn.send(P.ChatMessage(seq=conn.seq, channel=channel, id=r.id, by=r.name, to=to,
                                text=r.text, said=narrator(conn.lang).chat_sentence(
                                    r.name, r.text), at=r.at).model_dump_json())

    def _lobby_line(self, conn: M, r: Any) -> None:
        self._send_line(conn, r, "lobby")

    async def _lobby_lines(self, after: int | None) -> Batch:
        """The lobby's lines past ``after``, or its newest ``lobby_backlog``."""
        if after is None:
            rows = await self.store.read(db.lines(None, 0, self.settings.lobby_backlog))
            return rows, max((r.id for r in rows), default=0)
        rows = await self.store.read(db.lines(None, after, 200))
        return rows, max([after, *(r.id for r in rows)])

    async def lobby_deliver(self) -> None:
        """Send the lobby lines written since (on any process) to the connections here that
        listen (but those that muted or blocked the writer)."""
        await self.lobby.deliver()

    def _private_channel(self, player_id: int) -> Channel[M]:
        async def read(after: int | None) -> Batch:
            if after is None:  # new here: the lines of the last minute are new
                rows, top = await self.store.read(db.newest_lines(player_id, 50, 60.0))
                return rows, top
            rows = await self.store.read(db.lines(player_id, after, 200))
            return rows, max([after, *(r.id for r in rows)])

        def send(conn: M, r: Any) -> None:
            self._send_line(conn, r, "private", conn.name)

        return Channel(f"private {player_id}", read, send)

    async def private_deliver(self, player_id: int) -> None:
        """Send ``player_id``'s new private messages to their connections here."""
        channel = self._private.get(player_id)
        if channel is not None:
            await channel.deliver()

    # -- invitations ----------------------------------------------------------------------

    async def _invite(self, conn: M, name: str, ref: P.Ref) -> None:
        me = conn.player_id
        code = self._table_of(conn, "invite people to a table you are at")
        s = self.settings
        with self.invited.held(me):
            to = await self._write(db.new_invitation(me, name, code, s.invite_ttl,
                                                      s.invites_pending,
                                                      s.invites_heard_per_minute))
        conn.send(P.Ack(seq=conn.seq, ref=ref).model_dump_json())
        if to is not None:
            await self.deliver(to)
            await signal(self.store, "invite", player_id=to)

    async def _invite_link(self, conn: M, ref: P.Ref) -> None:
        code = self._table_of(conn, "an invitation link is to a table you are at")
        s = self.settings
        secret = secrets.token_urlsafe(16)
        now = time.time()
        with self.links.held(conn.player_id):
            await self._write(db.new_link(conn.player_id, hash_token(secret), code, now,
                                          now - s.invite_link_ttl))
        conn.send(P.InviteLink(seq=conn.seq, code=secret, table=code,
                               path=f"/play/?invite={secret}", expires=now + s.invite_link_ttl,
                               ref=ref).model_dump_json())

    async def redeem(self, conn: M, secret: str) -> None:
        """``hello`` with an invitation link's code: used up, the connection joins its table
        and takes a free seat (``no_invitation`` for a code used, expired or unknown)."""
        since = time.time() - self.settings.invite_link_ttl
        code: str | None = await self._write(db.use_link(hash_token(secret), since))
        if code is None:
            raise P.ProtocolError("no_invitation", "that invitation link was used already, "
                                  "has expired, or never was")
        await self.rooms.enter(conn, code, "join", None, None)
        table = self.rooms.seating(conn)
        if table is not None:  # held here; a table elsewhere checks the blocks itself
            await self.check_sit(conn.player_id, table)
        if self.rooms.place(conn) is not None:
            self.rooms.act(conn, P.Sit(type="sit"))

    def _invite_channel(self, player_id: int) -> Channel[M]:
        async def read(after: int | None) -> Batch:
            rows = await self.store.read(db.waiting(player_id,
                                                  time.time() - self.settings.invite_ttl))
            return rows, max((r.id for r in rows), default=0)

        def send(conn: M, r: Any) -> None:
            conn.send(P.Invitation(
                seq=conn.seq, id=r.id, by=r.name, table=r.table_code,
                expires=r.at + self.settings.invite_ttl,
                text=narrator(conn.lang).invitation_sentence(r.name, r.table_code, r.title,
                                                             r.host))
                .model_dump_json())

        return Channel(f"invitations {player_id}", read, send)

    async def deliver(self, player_id: int) -> None:
        """Send ``player_id``'s waiting invitations to their connections here that were not
        sent them yet (a connection just made is sent all of them)."""
        channel = self._invites.get(player_id)
        if channel is not None:
            await channel.deliver()

    async def sweep(self) -> None:
        """Housekeeping (with the accounts', every few minutes): invitations and links past
        their time, and resolved reports past ``reports_keep_days``, go."""
        s = self.settings
        invitations, reports = await self.store.run(
            db.sweep(s.invite_ttl, s.invite_link_ttl, s.reports_keep_days))
        if invitations or reports:
            log.info("removed %d expired invitations and %d old resolved reports",
                     invitations, reports)

    async def refresh(self, player_id: int, conn: M | None = None) -> None:
        """Read whom ``player_id`` muted or blocked into their connections here (and into
        ``conn``, one not yet counted among them), and into their connections of other
        processes at the tables owned here, so that their chat is not sent there."""
        names = await self.silenced_of(player_id)
        for c in {*self.roster.online.get(player_id, ()), *([conn] if conn else [])}:
            c.silenced = names
        self.rooms.silence(player_id, names)

    async def silenced_of(self, player_id: int) -> frozenset[str]:
        """The names whose chat ``player_id`` muted or blocked."""
        names: frozenset[str] = await self.store.read(db.silenced_names(player_id))
        return names

    # -- checks of the tables -----------------------------------------------------------------

    async def check_sit(self, player_id: int, table: Seating) -> None:
        """Refuse ``blocked`` when someone who hosts ``table`` or sits at it blocked player
        ``player_id``."""
        there = {s.player_id for s in table.seats if s is not None and s.player_id}
        there.add(table.host_id)
        there.discard(player_id)
        if there and await self.store.read(db.blocked_by(player_id, there)):
            raise P.ProtocolError("blocked", "someone at this table has blocked you: you "
                                  "cannot sit here")

    def _table_of(self, conn: M, why: str) -> str:
        """The code of the table ``conn`` is at (here or at another process), or
        ``not_at_table`` saying ``why``."""
        place = self.rooms.place(conn)
        if place is None:
            raise P.ProtocolError("not_at_table", f"{why}: join or create one first")
        return place[0]
