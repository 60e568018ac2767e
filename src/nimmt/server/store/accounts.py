"""The store's part of accounts: the reads and writes of players, sessions, recovery
codes, sanctions and signals that the accounts make (and ``nimmt admin``,
:mod:`.operator`). Each function gives a store operation (run with
:meth:`~.db.Database.run` or :meth:`~.db.Database.read`), or takes the connection of a
transaction already open; the rules of accounts (who may do what, and when) stay with
the accounts (:mod:`nimmt.server.people.accounts`).
"""

from __future__ import annotations

import time
from typing import Any

import sqlalchemy as sa
from sqlalchemy.ext.asyncio import AsyncConnection

from .db import Op
from .ratings import INITIAL
from .schema import players, recovery_codes, sanctions, sessions, signals
from .tokens import RECOVERY_CODES, hash_code, hash_token, new_recovery_code

__all__ = [
    "RELEASED",
    "SIGNAL_KEEP",
    "account",
    "change",
    "claim",
    "code_valid",
    "end_sessions",
    "housekeeping",
    "last_signal",
    "live_sanctions",
    "new_codes",
    "new_player",
    "open_session",
    "player",
    "recover",
    "replace_codes",
    "restore_name",
    "session_ids",
    "sessions_of",
    "set_hash",
    "signals_after",
    "write_seen",
    "write_signal",
]

#: What a released guest's row holds as its ``name``: this, the player's id and ")".
RELEASED = "(released name of player "


#: Seconds a signal is kept in the table for processes that poll it.
SIGNAL_KEEP = 86400.0

#: A store operation of accounts.
Read = Op


def write_signal(kind: str, *, player_id: int | None = None, session_id: int | None = None,
                 address: str | None = None, code: str | None = None) -> Read:
    """The store operation that writes one signal (``nimmt admin`` writes them too)."""

    async def op(c: AsyncConnection) -> None:
        await c.execute(signals.insert().values(at=time.time(), kind=kind, player_id=player_id,
                                                session_id=session_id, address=address,
                                                code=code))

    return op


async def add_session(c: AsyncConnection, player_id: int, token: str, address: str,
                       now: float) -> int:
    res = await c.execute(sessions.insert().values(
        player_id=player_id, token_hash=hash_token(token), created=now, last_seen=now,
        address=address, last_address=address))
    return int(res.inserted_primary_key[0])  # type: ignore[index]


def account(key: str, name: str, address: str) -> Read:
    """The player a sign-in names (by the look of the name; by the exact name for a player
    older than skeletons whose look another holds), and whether the account has a session
    from ``address``: one query whatever the answer."""

    async def q(c: AsyncConnection) -> Any:
        known = sa.exists().where(sessions.c.player_id == players.c.id,
                                  sa.or_(sessions.c.address == address,
                                         sessions.c.last_address == address))
        res = await c.execute(
            sa.select(players.c.id, players.c.name, players.c.password_hash,
                      known.label("known"))
            .where(sa.or_(players.c.skeleton == key,
                          sa.and_(players.c.skeleton.is_(None), players.c.name == name,
                                  players.c.released.is_(None))))
            .order_by(players.c.skeleton.is_(None)).limit(1))
        return res.first()

    return q


def player(player_id: int) -> Read:
    async def q(c: AsyncConnection) -> Any:
        return (await c.execute(sa.select(players).where(players.c.id == player_id))).first()

    return q


def code_valid(player_id: int, code_hash: str) -> Read:
    async def q(c: AsyncConnection) -> bool:
        res = await c.execute(sa.select(recovery_codes.c.id).where(
            recovery_codes.c.player_id == player_id, recovery_codes.c.code_hash == code_hash,
            recovery_codes.c.used.is_(None)))
        return res.first() is not None

    return q


async def trim_sessions(c: AsyncConnection, player_id: int, cap: int) -> list[int]:
    """End the player's least recently used sessions past ``cap`` - 1 (one is about to be
    made); their ids."""
    res = await c.execute(sa.select(sessions.c.id).where(sessions.c.player_id == player_id)
                          .order_by(sessions.c.last_seen.desc(), sessions.c.id.desc())
                          .offset(cap - 1))
    old = [int(r.id) for r in res]
    if old:
        await c.execute(sessions.delete().where(sessions.c.id.in_(old)))
    return old


def open_session(player_id: int, token: str, address: str, cap: int) -> Read:
    async def op(c: AsyncConnection) -> tuple[int, list[int]]:
        now = time.time()
        ended = await trim_sessions(c, player_id, cap)
        await c.execute(players.update().where(players.c.id == player_id)
                        .values(last_seen=now))
        return await add_session(c, player_id, token, address, now), ended

    return op


def set_hash(player_id: int, new_hash: str) -> Read:
    async def op(c: AsyncConnection) -> None:
        await c.execute(players.update().where(players.c.id == player_id)
                        .values(password_hash=new_hash))

    return op


async def replace_codes(c: AsyncConnection, player_id: int, now: float) -> list[str]:
    """New recovery codes for ``player_id`` in ``c``'s transaction (the old ones go)."""
    codes = [new_recovery_code() for _ in range(RECOVERY_CODES)]
    await c.execute(recovery_codes.delete().where(recovery_codes.c.player_id == player_id))
    await c.execute(recovery_codes.insert(), [
        {"player_id": player_id, "code_hash": hash_code(code), "created": now, "used": None}
        for code in codes])
    return codes


def new_codes(player_id: int) -> Read:
    async def op(c: AsyncConnection) -> list[str]:
        return await replace_codes(c, player_id, time.time())

    return op


def claim(player_id: int, new_hash: str) -> Read:
    """A guest's first password, and their recovery codes; None if the player has a
    password already (two claims at once: the first one wins)."""

    async def op(c: AsyncConnection) -> list[str] | None:
        now = time.time()
        res = await c.execute(players.update().where(
            players.c.id == player_id, players.c.password_hash.is_(None))
            .values(password_hash=new_hash, password_changed=now))
        if res.rowcount != 1:
            return None
        return await replace_codes(c, player_id, now)

    return op


def change(player_id: int, new_hash: str, keep: int) -> Read:
    """A new password; every session but ``keep`` ends."""

    async def op(c: AsyncConnection) -> None:
        await c.execute(players.update().where(players.c.id == player_id)
                        .values(password_hash=new_hash, password_changed=time.time()))
        await c.execute(sessions.delete().where(sessions.c.player_id == player_id,
                                                sessions.c.id != keep))

    return op


def recover(player_id: int, code_hash: str, new_hash: str, token: str,
             address: str) -> Read:
    """A recovery code used: the new password, every old session ended, a new one made;
    its id. None when the code was used meanwhile (checked again here, in the write)."""

    async def op(c: AsyncConnection) -> int | None:
        now = time.time()
        res = await c.execute(recovery_codes.update().where(
            recovery_codes.c.player_id == player_id, recovery_codes.c.code_hash == code_hash,
            recovery_codes.c.used.is_(None)).values(used=now))
        if res.rowcount != 1:
            return None
        await c.execute(players.update().where(players.c.id == player_id).values(
            password_hash=new_hash, password_changed=now, last_seen=now))
        await c.execute(sessions.delete().where(sessions.c.player_id == player_id))
        return await add_session(c, player_id, token, address, now)

    return op


def session_ids(player_id: int) -> Read:
    """The ids of the player's sessions (an ended one has no row)."""

    async def q(c: AsyncConnection) -> set[int]:
        res = await c.execute(sa.select(sessions.c.id).where(sessions.c.player_id == player_id))
        return {int(r.id) for r in res}

    return q


def sessions_of(player_id: int) -> Read:
    async def q(c: AsyncConnection) -> list[Any]:
        res = await c.execute(sa.select(sessions).where(sessions.c.player_id == player_id)
                              .order_by(sessions.c.last_seen.desc(), sessions.c.id.desc()))
        return list(res)

    return q


def end_sessions(player_id: int, *, only: int | None = None, keep: int | None = None) -> Read:
    """End the player's session ``only``, or all of them but ``keep``; how many ended."""

    async def op(c: AsyncConnection) -> int:
        where = [sessions.c.player_id == player_id]
        if only is not None:
            where.append(sessions.c.id == only)
        if keep is not None:
            where.append(sessions.c.id != keep)
        res = await c.execute(sessions.delete().where(*where))
        return int(res.rowcount)

    return op


def write_seen(players_seen: dict[int, float],
                sessions_seen: dict[int, tuple[float, str]]) -> Read:
    async def op(c: AsyncConnection) -> None:
        if players_seen:
            await c.execute(
                players.update().where(players.c.id == sa.bindparam("pid"))
                .values(last_seen=sa.bindparam("t")),
                [{"pid": pid, "t": t} for pid, t in sorted(players_seen.items())])
        if sessions_seen:
            await c.execute(
                sessions.update().where(sessions.c.id == sa.bindparam("sid"))
                .values(last_seen=sa.bindparam("t"), last_address=sa.bindparam("a")),
                [{"sid": sid, "t": t, "a": a} for sid, (t, a) in sorted(sessions_seen.items())])

    return op


def housekeeping(session_age: float, release_age: float) -> Read:
    """Release guest names unused for ``release_age`` seconds (0: never), end accounts'
    sessions unused for ``session_age``, drop old signals: how many released and ended."""

    async def op(c: AsyncConnection) -> tuple[int, int]:
        now = time.time()
        released = 0
        if release_age > 0:
            placeholder = (sa.literal(RELEASED) + sa.cast(players.c.id, sa.String)
                           + sa.literal(")"))
            res = await c.execute(players.update().where(
                players.c.password_hash.is_(None), players.c.released.is_(None),
                players.c.last_seen < now - release_age,
            ).values(released=now, released_name=players.c.name, name=placeholder,
                     skeleton=None))
            released = int(res.rowcount)
        accounts = sa.select(players.c.id).where(players.c.password_hash.is_not(None))
        res = await c.execute(sessions.delete().where(
            sessions.c.last_seen < now - session_age, sessions.c.player_id.in_(accounts)))
        await c.execute(signals.delete().where(signals.c.at < now - SIGNAL_KEEP))
        return released, int(res.rowcount)

    return op


def last_signal() -> Read:
    """The id of the newest signal (0: none)."""

    async def q(c: AsyncConnection) -> int:
        return int((await c.execute(sa.select(sa.func.max(signals.c.id)))).scalar() or 0)

    return q


def signals_after(last: int) -> Read:
    """The signals newer than ``last``, oldest first (at most 1,000)."""

    async def q(c: AsyncConnection) -> list[Any]:
        res = await c.execute(sa.select(signals).where(signals.c.id > last)
                              .order_by(signals.c.id).limit(1000))
        return list(res)

    return q


def live_sanctions(now: float) -> Read:
    """The sanctions in force at ``now``: not lifted, not run out."""

    async def q(c: AsyncConnection) -> list[Any]:
        res = await c.execute(sa.select(sanctions).where(
            sanctions.c.lifted.is_(None),
            sa.or_(sanctions.c.until.is_(None), sanctions.c.until > now)))
        return list(res)

    return q


def new_player(name: str, key: str, token: str, address: str) -> Read:
    """A new guest named ``name`` (its look ``key``) with a session of ``token``: the
    player's id and the session's (:class:`~.store.Conflict`: the name was taken meanwhile)."""

    async def op(c: AsyncConnection) -> tuple[int, int]:
        now = time.time()
        res = await c.execute(players.insert().values(
            name=name, skeleton=key, mu=INITIAL[0], sigma=INITIAL[1], rated_games=0,
            created=now, last_seen=now))
        pid = int(res.inserted_primary_key[0])  # type: ignore[index]
        return pid, await add_session(c, pid, token, address, now)

    return op


def restore_name(player_id: int, name: str, key: str) -> Read:
    """A released guest's name back (:class:`~.store.Conflict`: one like it was taken meanwhile)."""

    async def op(c: AsyncConnection) -> None:
        await c.execute(players.update().where(players.c.id == player_id).values(
            name=name, skeleton=key, released=None, released_name=None,
            last_seen=time.time()))

    return op
