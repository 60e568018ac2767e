"""What a table says of itself: the decision asked of a seat and its key, the table's
public facts and its seats as the connections at it see them, how urgent its bots are.

These build the payloads the frames carry (the wire's models), from the table's state;
the reducer decides, these only say.
"""

from __future__ import annotations

from ...decisions import DecisionKind
from ...wire import Prompt, SeatInfo, TableInfo, build, rules_info
from ..workers.botpool import AWAY, PEOPLE
from .commands import Audience, TurnTimer
from .state import TableData, seat_name, speaker_of

__all__ = ["bot_priority", "decision_key", "host_name", "info", "prompt", "seat_infos"]


def decision_key(t: TableData, seat: int) -> str:
    """The name of the decision ``seat`` is asked for now: the same while that decision is
    pending (a card choice may be changed under one key), and never used again."""
    game = t.logged.game
    assert game is not None
    pend = game.pending
    assert pend is not None
    base = f"{t.logged.game_no}.{game.round}"
    if pend.kind is DecisionKind.CARD:
        return f"{base}.{game.turn}.card"
    if pend.kind is DecisionKind.ROW:
        return f"{base}.{game.turn}.row.{seat}"
    return f"{base}.draft.{len(game.view(None).draft_pool)}"


def prompt(t: TableData, viewer: int | None, now: float) -> Prompt | None:
    """The decision asked of seat ``viewer`` now, if a person plays it (and the time left
    on its timer at ``now``)."""
    game = t.logged.game
    if viewer is None or game is None or t.logged.status != "playing":
        return None
    pend = game.pending
    if pend is None or viewer not in pend.players:
        return None
    s = t.logged.seats[viewer]
    if s is None or s.kind != "human" or s.auto:
        return None
    key = decision_key(t, viewer)
    deadline = t.live.timers.get(TurnTimer(viewer, key)) if t.turn_timer is not None else None
    seconds = None if deadline is None else max(0.0, round(deadline - now, 3))
    return build(Prompt, {"kind": pend.kind, "key": key, "options": game.legal(viewer),
                          "card": pend.card, "reason": pend.reason, "seconds": seconds})


def host_name(t: TableData) -> str | None:
    """The host's display name, while the host has a seat."""
    for s in t.logged.seats:
        if s is not None and s.player_id == t.logged.host_id:
            return s.name
    return None


def info(t: TableData, audience: Audience | None = None, lang: str | None = None) -> TableInfo:
    """The table's public facts, as the connections ``audience`` (default: those at the
    table now) see it: whose seats are connected, how many watch without a seat; bots
    named in ``lang``."""
    watchers = t.live.audience() if audience is None else audience
    return build(TableInfo, {
        "code": t.code, "name": t.name, "host": host_name(t), "rules": rules_info(t.rules),
        "rules_name": t.rules.name if lang is None else speaker_of(lang).rules_name(t.rules),
        "status": t.logged.status, "turn_timer": t.turn_timer,
        "listen_max": t.limits.listen_max
        if t.turn_timer is not None and t.limits.listen_cps > 0 else 0,
        "rated": t.rated, "private": t.private, "seats": seat_infos(t, watchers, lang),
        "game_no": t.logged.game_no,
        "spectators": sum(1 for _, v in watchers if v is None), "hints": t.hints_on,
    })


def seat_infos(t: TableData, audience: Audience | None = None,
               lang: str | None = None) -> list[SeatInfo]:
    """Who sits in each seat, as the connections ``audience`` (default: those at the table
    now) see it: a person is connected while one of them watches from that seat; bots
    named in ``lang``. Key W's marks are these seats' :attr:`~nimmt.wire.SeatInfo.presence`."""
    watchers = t.live.audience() if audience is None else audience
    connected = {v for _, v in watchers if v is not None}
    seats = []
    for i, s in enumerate(t.logged.seats):
        if s is None:
            seats.append(build(SeatInfo, {"seat": i, "name": None, "kind": "empty", "bot": None,
                                          "connected": False, "auto": False}))
        else:
            seats.append(build(SeatInfo, {
                "seat": i, "name": seat_name(s, lang), "kind": s.kind,
                "bot": None if s.bot is None else s.bot.kind,
                "connected": s.kind == "bot" or i in connected, "auto": s.auto}))
    return seats


def bot_priority(t: TableData) -> int | None:
    """How urgent this table's bot jobs are (:mod:`.botpool`): first while a seated person
    is connected, last while they are all away, not at all with nobody seated (its bots
    wait until someone comes back)."""
    people = {i for i, s in enumerate(t.logged.seats) if s is not None and s.person}
    if not people:
        return None
    if any(v in people for v in t.live.watchers.values()):
        return PEOPLE
    return AWAY
