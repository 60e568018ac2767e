"""The operator's actions on the store: mutes, bans, renames, closed tables, ratings.

``nimmt admin`` (:mod:`nimmt.server.ops.admin_cli`) runs these against the server's database,
beside the running server. Each action is one transaction that does three
things together: the change itself, a row of the ``audit`` table (who did what,
when, to whom, and why), and a row of the ``signals`` table for the running
server processes, which read it within ``signal_poll`` seconds
(:mod:`nimmt.server.people.signals`) and act on open connections at once: a banned
player's or address's connections are closed, a renamed player's reconnect
under the new name, a closed table's players are told. So an action is never
half done, and never done without its record.

Every function here takes the store and raises :class:`AdminError` with a
sentence for the operator when the action cannot be done (its transaction then
changes nothing).
"""

from __future__ import annotations

import json
import re
import time
from dataclasses import dataclass
from typing import Any

import sqlalchemy as sa
from sqlalchemy.ext.asyncio import AsyncConnection

from ..base.limits import address_network
from ..base.text import BadName, check_name, name_key
from .accounts import replace_codes, write_signal
from .errors import Conflict
from .queries import Store
from .ratings import INITIAL
from .schema import audit, game_players, players, reports, sanctions, sessions, tables

__all__ = [
    "AdminError",
    "Audited",
    "ban",
    "close_table",
    "history",
    "lift",
    "mute",
    "new_recovery_codes",
    "parse_duration",
    "rename",
    "reports_listed",
    "reset_rating",
    "resolve",
    "sanctions_in_force",
    "show",
    "sign_out",
    "table_status",
]

_UNITS = {"s": 1, "m": 60, "h": 3600, "d": 86400, "w": 604800}


class AdminError(Exception):
    """An action that cannot be done, and why (one sentence for the operator)."""


@dataclass(frozen=True, slots=True)
class Audited:
    """What an action did: its audit row's id and a sentence saying it."""

    id: int
    said: str


async def _transaction(store: Store, op: Any) -> Any:
    """Run ``op`` in a transaction of its own (not the server's group commit: a refused
    action rolls back without a trace)."""
    return await store.alone(op)


def parse_duration(raw: str) -> float:
    """Seconds from ``90``, ``90s``, ``30m``, ``12h``, ``7d`` or ``2w``.

    >>> parse_duration("12h"), parse_duration("90")
    (43200.0, 90.0)
    """
    m = re.fullmatch(r"\s*(\d+(?:\.\d+)?)\s*([smhdw]?)\s*", raw.lower())
    if not m or float(m.group(1)) <= 0:
        raise AdminError(f"{raw!r} is not a duration: write 90s, 30m, 12h, 7d or 2w")
    return float(m.group(1)) * _UNITS[m.group(2) or "s"]


async def _player(c: AsyncConnection, name: str) -> Any:
    """The player named ``name`` (as written, or by its look), or AdminError."""
    row = (await c.execute(sa.select(players).where(players.c.name == name))).first()
    if row is None:
        try:
            key = name_key(check_name(name))
        except BadName:
            key = None
        if key is not None:
            row = (await c.execute(sa.select(players).where(players.c.skeleton == key))).first()
    if row is None:
        raise AdminError(f"no player is named {name!r}")
    return row


async def _record(c: AsyncConnection, by: str, action: str, target: str,
                  player_id: int | None = None, **detail: Any) -> int:
    res = await c.execute(audit.insert().values(
        at=time.time(), actor=by[:64], action=action, player_id=player_id, target=target,
        detail=json.dumps(detail, ensure_ascii=False)))
    return int(res.inserted_primary_key[0])  # type: ignore[index]


def _for(seconds: float | None) -> str:
    if seconds is None:
        return "until lifted"
    return "until " + time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime(time.time() + seconds))


async def mute(store: Store, name: str, *, by: str, seconds: float | None = None,
               reason: str = "") -> Audited:
    """Mute a player: their chat is refused (``muted``) until ``seconds`` from now (or until
    lifted)."""

    async def op(c: AsyncConnection) -> Audited:
        row = await _player(c, name)
        now = time.time()
        until = None if seconds is None else now + seconds
        await c.execute(sanctions.insert().values(
            kind="mute", player_id=row.id, address=None, created=now, until=until, lifted=None,
            reason=reason, by=by[:64]))
        aid = await _record(c, by, "mute", row.name, row.id, until=until, reason=reason)
        await write_signal("sanctions", player_id=row.id)(c)
        return Audited(aid, f"{row.name} is muted {_for(seconds)}.")

    result: Audited = await _transaction(store, op)
    return result


def _network(name: str | None, address: str | None, verb: str) -> str | None:
    """The network a sanction on ``address`` names (None: it names the player ``name``);
    an operator who gave both or neither is told, before anything is written."""
    if (name is None) == (address is None):
        raise AdminError(f"{verb} a player by name, or an address: one of them")
    if address is None:
        return None
    try:
        return address_network(address)
    except ValueError:
        raise AdminError(f"{address!r} is not an IP address or network") from None


async def ban(store: Store, name: str | None = None, *, address: str | None = None, by: str,
              seconds: float | None = None, reason: str = "") -> Audited:
    """Ban a player (``name``) or an address or network (``address``): their connections are
    closed (``banned``) and their ``hello`` refused until ``seconds`` from now (or until
    lifted)."""
    network = _network(name, address, "ban")

    async def op(c: AsyncConnection) -> Audited:
        now = time.time()
        until = None if seconds is None else now + seconds
        row = None if name is None else await _player(c, name)
        pid = None if row is None else int(row.id)
        await c.execute(sanctions.insert().values(
            kind="ban", player_id=pid, address=network, created=now, until=until, lifted=None,
            reason=reason, by=by[:64]))
        target = network if row is None else str(row.name)
        assert target is not None
        aid = await _record(c, by, "ban", target, pid, until=until, reason=reason)
        await write_signal("ban", player_id=pid, address=network)(c)
        return Audited(aid, f"{target} is banned {_for(seconds)}.")

    result: Audited = await _transaction(store, op)
    return result


async def lift(store: Store, kind: str, name: str | None = None, *,
               address: str | None = None, by: str) -> Audited:
    """Lift the ``kind`` (``mute``, ``ban``) sanctions in force on a player or an address."""
    network = _network(name, address, "un" + kind)

    async def op(c: AsyncConnection) -> Audited:
        row = None if name is None else await _player(c, name)
        which = (sanctions.c.address == network if row is None
                 else sanctions.c.player_id == row.id)
        res = await c.execute(sanctions.update().where(
            which, sanctions.c.kind == kind, sanctions.c.lifted.is_(None))
            .values(lifted=time.time()))
        target = network if row is None else str(row.name)
        assert target is not None
        if res.rowcount == 0:
            raise AdminError(f"{target} has no {kind} in force")
        aid = await _record(c, by, "un" + kind, target, None if row is None else row.id,
                            lifted=int(res.rowcount))
        await write_signal("sanctions")(c)
        return Audited(aid, f"{target}: the {kind} is lifted.")

    result: Audited = await _transaction(store, op)
    return result


async def rename(store: Store, name: str, new: str, *, by: str, reason: str = "") -> Audited:
    """Give a player another name (checked as any name is, and free by its look); their
    connections reconnect under it. Games already played keep the name they were played
    under."""
    try:
        new_name = check_name(new)
    except BadName as exc:
        raise AdminError(f"{new!r} cannot be a name: {exc.message}") from None
    key = name_key(new_name)

    async def op(c: AsyncConnection) -> Audited:
        row = await _player(c, name)
        other = (await c.execute(sa.select(players.c.name).where(
            players.c.skeleton == key, players.c.id != row.id))).first()
        if other is not None:
            raise AdminError(f"{new_name!r} looks like {other.name!r}, another player's name")
        await c.execute(players.update().where(players.c.id == row.id).values(
            name=new_name, skeleton=key, released=None, released_name=None))
        aid = await _record(c, by, "rename", row.name, row.id, new=new_name, reason=reason)
        await write_signal("rename", player_id=row.id)(c)
        return Audited(aid, f"{row.name} is now named {new_name}.")

    try:
        result: Audited = await _transaction(store, op)
    except Conflict:
        raise AdminError(f"the name {new_name!r} is taken") from None
    return result


async def close_table(store: Store, code: str, *, by: str, reason: str = "") -> Audited:
    """Ask the server process holding table ``code`` to close it (a game under way is kept,
    unfinished). Done once :func:`table_status` says ``closed``."""
    code = code.strip().upper()

    async def op(c: AsyncConnection) -> Audited:
        row = (await c.execute(sa.select(tables.c.id, tables.c.status).where(
            tables.c.code == code).order_by(tables.c.id.desc()))).first()
        if row is None or row.status == "closed":
            raise AdminError(f"no open table has the code {code!r}")
        aid = await _record(c, by, "close_table", code, None, table_id=row.id, reason=reason)
        await write_signal("close", code=code)(c)
        return Audited(aid, f"Table {code} is being closed.")

    result: Audited = await _transaction(store, op)
    return result


async def table_status(store: Store, code: str) -> str | None:
    """The status of the newest table with ``code``."""

    async def q(c: AsyncConnection) -> str | None:
        res = await c.execute(sa.select(tables.c.status).where(tables.c.code == code.upper())
                              .order_by(tables.c.id.desc()))
        return res.scalar()

    status: str | None = await store.read(q)
    return status


async def reset_rating(store: Store, name: str, *, by: str, reason: str = "") -> Audited:
    """Set a player's rating back to a new player's (μ, σ); the games played stay counted
    and in their history. The audit row keeps the rating before."""

    async def op(c: AsyncConnection) -> Audited:
        row = await _player(c, name)
        await c.execute(players.update().where(players.c.id == row.id)
                        .values(mu=INITIAL[0], sigma=INITIAL[1]))
        aid = await _record(c, by, "reset_rating", row.name, row.id, mu=row.mu,
                            sigma=row.sigma, reason=reason)
        return Audited(aid, f"{row.name}'s rating is back to μ {INITIAL[0]:g}, "
                       f"σ {INITIAL[1]:.2f} (it was μ {row.mu:.2f}, σ {row.sigma:.2f}).")

    result: Audited = await _transaction(store, op)
    return result


async def sign_out(store: Store, name: str, *, by: str, reason: str = "") -> Audited:
    """End every session of a player: their connections are closed (``signed_out``). An
    account signs in again with its password; a guest, who has no password, loses the
    name for good (the command refuses a guest)."""

    async def op(c: AsyncConnection) -> Audited:
        row = await _player(c, name)
        if row.password_hash is None:
            raise AdminError(f"{row.name} is a guest: their session is the only key to their "
                             "name (ban them instead)")
        res = await c.execute(sessions.delete().where(sessions.c.player_id == row.id))
        aid = await _record(c, by, "sign_out", row.name, row.id, sessions=int(res.rowcount),
                            reason=reason)
        await write_signal("out", player_id=row.id)(c)
        return Audited(aid, f"{row.name} is signed out of {res.rowcount} sessions.")

    result: Audited = await _transaction(store, op)
    return result


async def new_recovery_codes(store: Store, name: str, *, by: str,
                             reason: str = "") -> tuple[Audited, list[str]]:
    """New recovery codes for an account (the old ones stop working), for the operator to
    hand over by a channel of their own once they know who asks: the hook a mail service
    would call (docs/accounts.md)."""

    async def op(c: AsyncConnection) -> tuple[Audited, list[str]]:
        row = await _player(c, name)
        if row.password_hash is None:
            raise AdminError(f"{row.name} is a guest: a guest has no password to recover")
        codes = await replace_codes(c, int(row.id), time.time())
        aid = await _record(c, by, "recovery_codes", row.name, row.id, reason=reason)
        return Audited(aid, f"New recovery codes for {row.name} (the old ones no longer "
                       "work):"), codes

    result: tuple[Audited, list[str]] = await _transaction(store, op)
    return result


async def show(store: Store, name: str) -> list[str]:
    """What the operator may want to know of a player, one sentence a line."""

    async def q(c: AsyncConnection) -> list[str]:
        row = await _player(c, name)
        now = time.time()
        kind = "an account" if row.password_hash is not None else "a guest"
        lines = [f"{row.name} (player {row.id}) is {kind}, made "
                 f"{_when(row.created)}, last seen {_when(row.last_seen)}."]
        if row.released is not None:
            lines.append(f"Their name {row.released_name!r} was released {_when(row.released)}.")
        games = (await c.execute(sa.select(sa.func.count()).select_from(game_players).where(
            game_players.c.player_id == row.id))).scalar()
        lines.append(f"Rating μ {row.mu:.2f}, σ {row.sigma:.2f}; {row.rated_games} rated "
                     f"games, {games} games in all.")
        for s in await c.execute(sa.select(sessions).where(sessions.c.player_id == row.id)
                                 .order_by(sessions.c.last_seen.desc())):
            lines.append(f"Session {s.id}: made {_when(s.created)} from {s.address or '?'}, "
                         f"last used {_when(s.last_seen)} from {s.last_address or '?'}.")
        for s in await c.execute(sa.select(sanctions).where(
                sanctions.c.player_id == row.id, sanctions.c.lifted.is_(None),
                sa.or_(sanctions.c.until.is_(None), sanctions.c.until > now))):
            lines.append(_sanction_line(s))
        return lines

    result: list[str] = await store.read(q)
    return result


async def sanctions_in_force(store: Store) -> list[str]:
    """Every mute and ban in force, one line each."""

    async def q(c: AsyncConnection) -> list[str]:
        now = time.time()
        res = await c.execute(
            sa.select(sanctions, players.c.name)
            .join(players, players.c.id == sanctions.c.player_id, isouter=True)
            .where(sanctions.c.lifted.is_(None),
                   sa.or_(sanctions.c.until.is_(None), sanctions.c.until > now))
            .order_by(sanctions.c.id))
        return [_sanction_line(s) for s in res]

    result: list[str] = await store.read(q)
    return result


async def history(store: Store, limit: int = 50) -> list[str]:
    """The newest ``limit`` operator actions, oldest first: who, when, what, to whom."""

    async def q(c: AsyncConnection) -> list[str]:
        res = await c.execute(sa.select(audit).order_by(audit.c.id.desc()).limit(limit))
        lines = []
        for r in reversed(list(res)):
            detail = json.loads(r.detail)
            extra = "; ".join(f"{k} {_shown(k, v)}" for k, v in detail.items()
                              if v not in (None, ""))
            lines.append(f"{r.id}. {_when(r.at)}: {r.actor} did {r.action} on {r.target}"
                         + (f" ({extra})" if extra else "") + ".")
        return lines

    result: list[str] = await store.read(q)
    return result


async def reports_listed(store: Store, *, resolved: bool = False,
                         limit: int = 100) -> list[str]:
    """The players' reports waiting for an operator, the most reported players first and
    each one's newest report first (``resolved``: the newest ``limit`` resolved ones
    instead, oldest first), one line each: its id, when, who reported whom (and how many
    reports wait on them), where, why, and the message reported."""

    async def q(c: AsyncConnection) -> list[str]:
        reporter = players.alias("reporter")
        reported = players.alias("reported")
        waiting = (sa.select(reports.c.player_id, sa.func.count().label("n"),
                             sa.func.max(reports.c.id).label("newest"))
                   .where(reports.c.resolved.is_(None))
                   .group_by(reports.c.player_id).subquery())
        query = (sa.select(reports, reporter.c.name.label("by_name"),
                           reported.c.name.label("on_name"),
                           sa.func.coalesce(waiting.c.n, 0).label("waiting"))
                 .join(reporter, reporter.c.id == reports.c.reporter_id, isouter=True)
                 .join(reported, reported.c.id == reports.c.player_id, isouter=True)
                 .join(waiting, waiting.c.player_id == reports.c.player_id, isouter=True))
        if resolved:
            query = (query.where(reports.c.resolved.is_not(None))
                     .order_by(reports.c.id.desc()).limit(limit))
        else:
            query = (query.where(reports.c.resolved.is_(None))
                     .order_by(waiting.c.n.desc(), waiting.c.newest.desc(),
                               reports.c.id.desc()).limit(limit))
        rows = list(await c.execute(query))
        if resolved:
            rows.reverse()
        return [_report_line(r) for r in rows]

    result: list[str] = await store.read(q)
    return result


async def resolve(store: Store, report_id: int, *, by: str, note: str = "") -> Audited:
    """Mark report ``report_id`` resolved, with what was done (``note``)."""

    async def op(c: AsyncConnection) -> Audited:
        row = (await c.execute(sa.select(reports).where(reports.c.id == report_id))).first()
        if row is None:
            raise AdminError(f"there is no report {report_id}")
        if row.resolved is not None:
            raise AdminError(f"report {report_id} was resolved by {row.resolved_by} "
                             f"{_when(row.resolved)}")
        await c.execute(reports.update().where(reports.c.id == report_id).values(
            resolved=time.time(), resolved_by=by[:64], resolution=note))
        on = (await c.execute(sa.select(players.c.name)
                              .where(players.c.id == row.player_id))).scalar()
        aid = await _record(c, by, "resolve", f"report {report_id}", row.player_id,
                            player=on, note=note)
        return Audited(aid, f"Report {report_id} is resolved.")

    result: Audited = await _transaction(store, op)
    return result


def _report_line(r: Any) -> str:
    by = r.by_name or f"player {r.reporter_id}"
    on = r.on_name or f"player {r.player_id}"
    if r.waiting > 1:
        on += f" ({r.waiting} reports wait on them)"
    where = f" at {r.place}" if r.place else ""
    said = f" The message: {r.message!r}." if r.message is not None else ""
    done = (f" Resolved by {r.resolved_by} {_when(r.resolved)}"
            + (f": {r.resolution}." if r.resolution else ".")) if r.resolved else ""
    return f"Report {r.id}, {_when(r.at)}: {by} reported {on}{where}: {r.reason}.{said}{done}"


def _shown(key: str, value: Any) -> str:
    if key == "until" and isinstance(value, int | float):
        return _when(value)
    return str(value)


def _sanction_line(s: Any) -> str:
    who = getattr(s, "name", None) or s.address or f"player {s.player_id}"
    until = "until lifted" if s.until is None else f"until {_when(s.until)}"
    why = f": {s.reason}" if s.reason else ""
    return f"{s.kind.capitalize()} {s.id} on {who}, {until}, by {s.by} {_when(s.created)}{why}."


def _when(t: float | None) -> str:
    if t is None:
        return "never"
    return time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime(t))
