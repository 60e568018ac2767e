"""The store's part of the social room: the reads and writes of follows, mutes and blocks,
invitations, the lobby chat and private messages, reports, and the leaderboard's pages,
that the social room makes (:mod:`nimmt.server.people.social`). Each function gives a store
operation (run with :meth:`~.db.Database.run`, :meth:`~.db.Database.read`, or in a
transaction of its own, :meth:`~.db.Database.alone`); an operation that finds the change
not allowed (no such player, a bound reached) raises :class:`~.errors.Refused` with the
code of the refusal, and its transaction changes nothing.

A bound counted in the store, or a row looked for before it is written, holds only
if no other transaction changes them between: each operation that checks then
writes takes the lock of the player it counts for first (:func:`.db.exclusive`),
so the same player's writes, from any connection of any process, run one after
the other; the lobby's writers take the lobby's, so its lines' ids are in the
order of their commits (the channels of :mod:`nimmt.server.people.delivery` rely on it).
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass
from typing import Any

import sqlalchemy as sa
from sqlalchemy.ext.asyncio import AsyncConnection

from ..base.text import BadName, check_name, clean_text, name_key
from .db import LOBBY_LOCK, Op, exclusive
from .errors import Refused
from .schema import (
    follows,
    game_players,
    games,
    invitations,
    messages,
    players,
    relations,
    reports,
    tables,
)


async def find(c: AsyncConnection, raw: str) -> Any:
    """The player named ``raw`` (as written, or by its look), or ``no_player``."""
    row = (await c.execute(sa.select(players.c.id, players.c.name)
                           .where(players.c.name == raw))).first()
    if row is None:
        try:
            key = name_key(check_name(raw))
        except BadName:
            key = None
        if key is not None:
            row = (await c.execute(sa.select(players.c.id, players.c.name)
                                   .where(players.c.skeleton == key))).first()
    if row is None:
        raise Refused("no_player", f"no player is named {raw[:64]!r}")
    return row


@dataclass(frozen=True, slots=True)
class Friend:
    """One followed player as the store knows them."""

    id: int
    name: str
    mutual: bool


def follow(me: int, raw: str, most: int) -> Op:
    """``me`` follows ``raw`` (already following: nothing changes); past ``most``
    followed players, ``quota``."""

    async def op(c: AsyncConnection) -> None:
        await exclusive(c, me)
        other = await find(c, raw)
        if other.id == me:
            raise Refused("bad_message", "you cannot follow yourself")
        known = (await c.execute(sa.select(follows.c.created).where(
            follows.c.follower_id == me, follows.c.followed_id == other.id))).first()
        if known is not None:
            return
        have = (await c.execute(sa.select(sa.func.count()).select_from(follows)
                                .where(follows.c.follower_id == me))).scalar_one()
        if have >= most:
            raise Refused("quota", f"you follow {most} players, the most one "
                          "may; unfollow some first")
        await c.execute(follows.insert().values(follower_id=me, followed_id=other.id,
                                                created=time.time()))

    return op

def relate(me: int, raw: str, kind: str, on: bool, most: int) -> Op:
    """``me`` mutes or blocks ``raw`` (``kind``), or lifts it; whether anything changed
    (a mute made twice is made once)."""

    async def op(c: AsyncConnection) -> bool:
        await exclusive(c, me)
        other = await find(c, raw)
        if other.id == me:
            raise Refused("bad_message", f"you cannot {kind} yourself")
        where = (relations.c.player_id == me, relations.c.other_id == other.id,
                 relations.c.kind == kind)
        if not on:
            return bool((await c.execute(relations.delete().where(*where))).rowcount)
        if (await c.execute(sa.select(relations.c.created).where(*where))).first():
            return False
        have = (await c.execute(sa.select(sa.func.count()).select_from(relations)
                                .where(relations.c.player_id == me))).scalar_one()
        if have >= most:
            raise Refused("quota", f"you mute or block {most} players, the most "
                          "one may; lift some first")
        await c.execute(relations.insert().values(player_id=me, other_id=other.id,
                                                  kind=kind, created=time.time()))
        return True

    return op




def unfollow(me: int, raw: str) -> Op:
    async def op(c: AsyncConnection) -> None:
        other = await find(c, raw)
        await c.execute(follows.delete().where(follows.c.follower_id == me,
                                               follows.c.followed_id == other.id))

    return op


def followed(me: int) -> Op:
    async def q(c: AsyncConnection) -> list[Friend]:
        back = sa.select(follows.c.follower_id).where(follows.c.followed_id == me)
        rows = await c.execute(
            sa.select(players.c.id, players.c.name,
                      players.c.id.in_(back).label("mutual"))
            .join(follows, follows.c.followed_id == players.c.id)
            .where(follows.c.follower_id == me).order_by(players.c.name))
        return [Friend(r.id, r.name, bool(r.mutual)) for r in rows]

    return q


def followers(player_id: int) -> Op:
    """Who follows ``player_id``: each as a :class:`Friend` carrying ``player_id``'s own
    name (what the follower is told of) and whether ``player_id`` follows them back."""

    async def q(c: AsyncConnection) -> list[Friend]:
        name = (await c.execute(sa.select(players.c.name)
                                .where(players.c.id == player_id))).scalar()
        if name is None:
            return []
        back = sa.select(follows.c.followed_id).where(follows.c.follower_id == player_id)
        rows = await c.execute(
            sa.select(follows.c.follower_id, follows.c.follower_id.in_(back).label("mutual"))
            .where(follows.c.followed_id == player_id))
        return [Friend(int(r.follower_id), str(name), bool(r.mutual)) for r in rows]

    return q


def blocked_by(me: int, others: set[int]) -> Op:
    async def q(c: AsyncConnection) -> bool:
        row = (await c.execute(sa.select(relations.c.player_id).where(
            relations.c.other_id == me, relations.c.kind == "block",
            relations.c.player_id.in_(sorted(others))).limit(1))).first()
        return row is not None

    return q


def blocks_among(ids: set[int]) -> Op:
    """The blocks between the players ``ids``: (who blocked, whom blocked) pairs."""

    async def q(c: AsyncConnection) -> set[tuple[int, int]]:
        found: set[tuple[int, int]] = set()
        ordered = sorted(ids)
        for at in range(0, len(ordered), 500):  # a bounded IN list per statement
            rows = await c.execute(sa.select(relations.c.player_id, relations.c.other_id).where(
                relations.c.kind == "block", relations.c.player_id.in_(ordered[at:at + 500])))
            found.update((int(r.player_id), int(r.other_id)) for r in rows
                         if r.other_id in ids)
        return found

    return q


def silenced_by(me: int) -> Op:
    async def q(c: AsyncConnection) -> set[int]:
        rows = await c.execute(sa.select(relations.c.player_id).where(
            relations.c.other_id == me))
        return {int(r.player_id) for r in rows}

    return q


#: Seconds over which the invitations one player hears are counted.
HEARD_WINDOW = 60.0


def new_invitation(me: int, raw: str, code: str, ttl: float, most: int,
                   heard: int) -> Op:
    """Store an invitation of ``raw`` by ``me`` to ``code``; the invitee's id, or None when
    they blocked ``me`` (nothing is stored, and the inviter is not told). A player hears
    at most ``heard`` invitations a minute, from everyone together (``quota`` to the
    inviter past it: each one rings and is spoken to them)."""

    async def op(c: AsyncConnection) -> int | None:
        other = await find(c, raw)
        if other.id == me:
            raise Refused("bad_message", "you cannot invite yourself")
        await exclusive(c, other.id)
        blocked = (await c.execute(sa.select(relations.c.kind).where(
            relations.c.player_id == other.id, relations.c.other_id == me,
            relations.c.kind == "block"))).first()
        if blocked is not None:
            return None
        now = time.time()
        to = invitations.c.to_id == other.id
        # What expired goes; what was answered is kept a minute, counted as heard.
        await c.execute(invitations.delete().where(to, sa.or_(
            invitations.c.at < now - max(ttl, HEARD_WINDOW),
            sa.and_(invitations.c.answered.is_not(None),
                    invitations.c.at < now - HEARD_WINDOW))))
        recent = (await c.execute(sa.select(sa.func.count(), sa.func.min(invitations.c.at))
                                  .where(to, invitations.c.at >= now - HEARD_WINDOW))).one()
        if recent[0] >= heard:
            wait = max(1, math.ceil(recent[1] + HEARD_WINDOW - now))
            raise Refused("quota", f"{other.name} has been invited {heard} times in "
                          "the last minute, as many as one player hears; invite "
                          f"them again in {wait} s", retry_after=wait)
        # One invitation waits per inviter and guest: an earlier one is replaced.
        await c.execute(invitations.update().where(
            to, invitations.c.from_id == me, invitations.c.answered.is_(None))
            .values(answered=now, accepted=False))
        await c.execute(invitations.insert().values(at=now, from_id=me, to_id=other.id,
                                                    table_code=code))
        # At most ``most`` wait: the oldest go.
        waits = (to, invitations.c.answered.is_(None))
        keep = (sa.select(invitations.c.id).where(*waits)
                .order_by(invitations.c.id.desc()).limit(most))
        await c.execute(invitations.delete().where(*waits, invitations.c.id.not_in(
            sa.select(keep.subquery().c.id))))
        return int(other.id)

    return op


def new_link(me: int, code_hash: str, table: str, now: float, stale: float) -> Op:
    async def op(c: AsyncConnection) -> None:
        # The links of anyone that expired unused go (the table of links stays small).
        await c.execute(invitations.delete().where(invitations.c.code_hash.is_not(None),
                                                   invitations.c.at < stale))
        await c.execute(invitations.insert().values(at=now, from_id=me, code_hash=code_hash,
                                                    table_code=table))

    return op


def use_link(code_hash: str, since: float) -> Op:
    async def op(c: AsyncConnection) -> str | None:
        row = (await c.execute(sa.select(invitations.c.id, invitations.c.table_code).where(
            invitations.c.code_hash == code_hash, invitations.c.answered.is_(None),
            invitations.c.at >= since))).first()
        if row is None:
            return None
        done = await c.execute(invitations.update().where(
            invitations.c.id == row.id, invitations.c.answered.is_(None))
            .values(answered=time.time(), accepted=True))
        return str(row.table_code) if done.rowcount == 1 else None

    return op


def waiting(me: int, since: float) -> Op:
    """The invitations waiting for ``me``: each with its inviter's name, and its table's
    name (``title``, empty when its host gave none) and host's name (``host``), both None
    for a table the store does not know."""

    async def q(c: AsyncConnection) -> list[Any]:
        host = players.alias("host")
        rows = await c.execute(
            sa.select(invitations.c.id, invitations.c.at, invitations.c.table_code,
                      players.c.name, tables.c.name.label("title"),
                      host.c.name.label("host"))
            .join(players, players.c.id == invitations.c.from_id)
            .outerjoin(tables, tables.c.code == invitations.c.table_code)
            .outerjoin(host, host.c.id == tables.c.host_id)
            .where(invitations.c.to_id == me, invitations.c.answered.is_(None),
                   invitations.c.at >= since)
            .order_by(invitations.c.id))
        return list(rows)

    return q


def answer(me: int, invitation: int, accept: bool, since: float) -> Op:
    async def op(c: AsyncConnection) -> str:
        row = (await c.execute(sa.select(invitations.c.table_code).where(
            invitations.c.id == invitation, invitations.c.to_id == me,
            invitations.c.answered.is_(None), invitations.c.at >= since))).first()
        if row is None:
            raise Refused("no_invitation", f"you have no invitation {invitation} "
                          "waiting (answered, expired, or never made)")
        await c.execute(invitations.update().where(invitations.c.id == invitation)
                        .values(answered=time.time(), accepted=accept))
        return str(row.table_code)

    return op


def post(me: int, to: int | None, text: str, keep: int) -> Op:
    """Keep a line (``to`` null: the lobby), and only the newest ``keep`` of its kind."""

    async def op(c: AsyncConnection) -> None:
        await exclusive(c, LOBBY_LOCK if to is None else to)
        await c.execute(messages.insert().values(at=time.time(), from_id=me, to_id=to,
                                                 text=text))
        where = messages.c.to_id.is_(None) if to is None else messages.c.to_id == to
        newest = sa.select(messages.c.id).where(where).order_by(messages.c.id.desc()).limit(keep)
        # PostgreSQL and SQLite both read the subquery before deleting.
        await c.execute(messages.delete().where(where, messages.c.id.not_in(
            sa.select(newest.subquery().c.id))))

    return op


def post_private(me: int, raw: str, text: str, keep: int) -> Op:
    """A private message to a friend: their id, or None when they blocked ``me`` (nothing
    kept, nothing said to the writer); ``not_friends`` unless they follow each other."""

    async def op(c: AsyncConnection) -> int | None:
        other = await find(c, raw)
        both = (await c.execute(sa.select(sa.func.count()).select_from(follows).where(sa.or_(
            sa.and_(follows.c.follower_id == me, follows.c.followed_id == other.id),
            sa.and_(follows.c.follower_id == other.id, follows.c.followed_id == me))))
        ).scalar_one()
        if both < 2 or other.id == me:
            raise Refused("not_friends", f"{other.name} and you do not follow each "
                          "other: private messages go between friends")
        blocked = (await c.execute(sa.select(relations.c.kind).where(
            relations.c.player_id == other.id, relations.c.other_id == me,
            relations.c.kind == "block"))).first()
        if blocked is not None:
            return None
        await post(me, other.id, text, keep)(c)
        return int(other.id)

    return op


def lines(to: int | None, after: int, limit: int, since: float | None = None) -> Op:
    """The lobby's lines (``to`` None) or ``to``'s private messages after id ``after``: the
    newest ``limit`` of them, oldest first, with the writer's name."""

    async def q(c: AsyncConnection) -> list[Any]:
        where = [messages.c.id > after,
                 messages.c.to_id.is_(None) if to is None else messages.c.to_id == to]
        if since is not None:
            where.append(messages.c.at >= since)
        rows = await c.execute(
            sa.select(messages.c.id, messages.c.at, messages.c.text, players.c.name)
            .join(players, players.c.id == messages.c.from_id).where(*where)
            .order_by(messages.c.id.desc()).limit(limit))
        return list(reversed(list(rows)))

    return q


def newest_lines(to: int, limit: int, seconds: float) -> Op:
    """``to``'s private messages of the last ``seconds`` (the newest ``limit``, oldest
    first), and the id of their newest private message, sent or not (0: none)."""

    async def q(c: AsyncConnection) -> tuple[list[Any], int]:
        # The newest id first, and the lines up to it: one written between the two reads
        # is left for the next delivery, never marked as sent.
        top = int((await c.execute(sa.select(sa.func.max(messages.c.id))
                                   .where(messages.c.to_id == to))).scalar() or 0)
        rows = await lines(to, 0, limit, time.time() - seconds)(c)
        return [r for r in rows if r.id <= top], top

    return q


def relations_of(me: int) -> Op:
    """Whom ``me`` muted or blocked: (kind, name) pairs, by name."""

    async def q(c: AsyncConnection) -> list[tuple[str, str]]:
        rows = await c.execute(sa.select(relations.c.kind, players.c.name).join(
            players, relations.c.other_id == players.c.id).where(
            relations.c.player_id == me).order_by(players.c.name))
        return [(str(r.kind), str(r.name)) for r in rows]

    return q


def silenced_names(me: int) -> Op:
    async def q(c: AsyncConnection) -> frozenset[str]:
        rows = await c.execute(sa.select(players.c.name).join(
            relations, relations.c.other_id == players.c.id).where(
            relations.c.player_id == me))
        return frozenset(str(r.name) for r in rows)

    return q


def report(me: int, raw: str, reason: str, message: str | None, place: str | None,
           most: int) -> Op:
    """``me`` reports ``raw``. One report of each reporter waits per reported player (a
    second one replaces the first), and at most ``most`` wait per reported player (the
    oldest go): a crowd of reporters cannot bury the others' reports."""

    async def op(c: AsyncConnection) -> None:
        other = await find(c, raw)
        if not reason:
            raise Refused("bad_message", "say why you report them (reason)")
        await exclusive(c, other.id)
        on = (reports.c.player_id == other.id, reports.c.resolved.is_(None))
        await c.execute(reports.delete().where(*on, reports.c.reporter_id == me))
        await c.execute(reports.insert().values(
            at=time.time(), reporter_id=me, player_id=other.id, message=message,
            place=None if place is None else clean_text(place)[:32], reason=reason))
        keep = sa.select(reports.c.id).where(*on).order_by(reports.c.id.desc()).limit(most)
        await c.execute(reports.delete().where(*on, reports.c.id.not_in(
            sa.select(keep.subquery().c.id))))

    return op


def sweep(invite_ttl: float, link_ttl: float, reports_days: float) -> Op:
    """Housekeeping: invitations past their time (answered or not) and links past theirs
    go, and resolved reports older than ``reports_days`` days; how many of each."""

    async def op(c: AsyncConnection) -> tuple[int, int]:
        now = time.time()
        gone = await c.execute(invitations.delete().where(sa.or_(
            sa.and_(invitations.c.code_hash.is_(None),
                    invitations.c.at < now - max(invite_ttl, HEARD_WINDOW)),
            sa.and_(invitations.c.code_hash.is_not(None), invitations.c.at < now - link_ttl))))
        old = await c.execute(reports.delete().where(
            reports.c.resolved.is_not(None), reports.c.resolved < now - reports_days * 86400))
        return int(gone.rowcount), int(old.rowcount)

    return op


def leaderboard_query(preset: str, offset: int, limit: int) -> Op:
    """A page of the leaderboard of ``preset``: the players with a rated game finished
    under it, by the rating's conservative estimate (μ − 3σ, the one the lobby shows),
    highest first; each with μ, σ, their rated games under the preset and in all."""

    async def q(c: AsyncConnection) -> dict[str, Any]:
        played = (
            sa.select(game_players.c.player_id, sa.func.count().label("n"))
            .select_from(game_players.join(games, games.c.id == game_players.c.game_id)
                         .join(tables, tables.c.id == games.c.table_id))
            .where(games.c.rated.is_(True), games.c.finished.is_(True),
                   tables.c.preset == preset, game_players.c.player_id.is_not(None))
            .group_by(game_players.c.player_id).subquery())
        ordinal = (players.c.mu - 3 * players.c.sigma)
        total = (await c.execute(sa.select(sa.func.count()).select_from(played))).scalar_one()
        rows = await c.execute(
            sa.select(players.c.name, players.c.mu, players.c.sigma, players.c.rated_games,
                      played.c.n)
            .join(played, played.c.player_id == players.c.id)
            .where(players.c.released.is_(None))
            .order_by(ordinal.desc(), players.c.rated_games.desc(), players.c.name)
            .offset(offset).limit(limit))
        return {
            "preset": preset, "offset": offset, "limit": limit, "total": int(total),
            "players": [{"rank": offset + i + 1, "name": r.name,
                         "rating": {"mu": r.mu, "sigma": r.sigma,
                                    "ordinal": r.mu - 3 * r.sigma},
                         "games": int(r.n), "rated_games": r.rated_games}
                        for i, r in enumerate(rows)],
        }

    return q
