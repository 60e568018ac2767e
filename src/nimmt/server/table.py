"""One table: a serial actor that owns the table's state.

Everything that changes a table goes through :meth:`TableActor.run`, one
command at a time: messages from people, answers from bots, timer expiries,
connections coming and going. A change is made by :meth:`TableActor.apply`
from a *log entry*; the entry is committed to the store before anyone is told
(acknowledged or broadcast). After a restart the table is rebuilt by applying
its stored entries again, which also gives every stream item the same ``seq``
it had, so reconnecting clients carry on where they were.

Hidden information: game events go out through :func:`nimmt.events.for_viewer`
and views through :meth:`nimmt.Game.view`, per seat, before serialization; the
narration sent with them (:meth:`TableActor.narration`, in each connection's
language) is made from those filtered events only; nothing else carries cards.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import random
import secrets
import time
from collections.abc import Callable, Coroutine
from dataclasses import dataclass
from typing import Any, Protocol

import sqlalchemy as sa
from openskill.models import PlackettLuce
from sqlalchemy.ext.asyncio import AsyncConnection

from .. import record as records
from ..bots.registry import BotError
from ..deals import Deal
from ..decisions import DecisionKind
from ..decisions import DraftCard as EDraftCard
from ..decisions import PlayCard as EPlayCard
from ..decisions import TakeRow as ETakeRow
from ..engine import Game
from ..events import (
    Event,
    GameOver,
    RoundScored,
    RoundStarted,
    TurnStarted,
    event_to_dict,
    for_viewer,
)
from ..narrate import narrator
from ..rules import Rules
from ..views import View
from . import protocol as P
from .autoplay import decision_kind
from .botpool import AWAY, DEFAULT, PEOPLE, BotPool, decision_seed
from .settings import Settings
from .store import LogEntry, Store, game_players, games, players, table_log, tables
from .text import clean_text, name_key

__all__ = ["Peer", "Seat", "TableActor", "clean_text", "deal_from_dict", "deal_to_dict"]

log = logging.getLogger("nimmt.server")

_MODEL = PlackettLuce()


class Peer(Protocol):
    """A connection as the table sees it."""

    player_id: int
    name: str
    #: The narration language (``en``, ``sr``, ``cs``).
    lang: str
    seq: int
    table: TableActor | None

    def send(self, text: str) -> None: ...


@dataclass
class Seat:
    """Who sits in a seat. ``auto``: the default player plays for them now;
    ``left``: they left (or were removed) and the default player keeps the seat."""

    kind: str  # "human" | "bot"
    name: str
    player_id: int | None = None
    bot: str | None = None
    auto: bool = False
    left: bool = False


def deal_to_dict(deal: Deal) -> dict[str, Any]:
    return {
        "rows": [list(r) for r in deal.rows],
        "hands": [list(h) for h in deal.hands],
        "pool": list(deal.pool),
    }


def deal_from_dict(data: dict[str, Any]) -> Deal:
    return Deal(
        rows=tuple(tuple(r) for r in data["rows"]),
        hands=tuple(tuple(h) for h in data["hands"]),
        pool=tuple(data["pool"]),
    )


#: The view's public attributes, as sent in ``table_state`` (RULES.md §6 decides their content).
VIEW_FIELDS = (
    "round", "turn", "options", "hand", "my_choice", "rows", "scores", "penalties", "taken",
    "hand_sizes", "chosen", "face_up", "revealed", "to_resolve", "hands", "active",
    "eliminated", "has_joker", "marker", "draft_pool", "winners",
)


def view_to_dict(view: View) -> dict[str, Any]:
    """A view as JSON-ready data (the ``view`` of ``table_state``)."""
    pending = view.pending
    out: dict[str, Any] = {
        "player": view.player,
        "rules": view.rules.to_dict(),
        "rules_name": view.rules.name,
        "phase": view.phase.value,
        "pending": None if pending is None else {
            "kind": pending.kind.value,
            "players": list(pending.players),
            "card": pending.card,
            "reason": pending.reason,
        },
    }
    for name in VIEW_FIELDS:
        out[name] = getattr(view, name)
    return out


_EVENT_FIELDS: dict[type, tuple[str, ...]] = {}


def event_dict(ev: Event) -> dict[str, Any]:
    """:func:`nimmt.events.event_to_dict` without its deep copy (events are immutable values)."""
    cls = type(ev)
    names = _EVENT_FIELDS.get(cls)
    if names is None:
        names = _EVENT_FIELDS[cls] = tuple(event_to_dict(ev))
    out = {name: getattr(ev, name) for name in names}
    out["type"] = ev.type
    return out


#: Events that open a new resolution step: the narration says each step as one entry.
STEP_STARTS = (TurnStarted, RoundStarted, RoundScored, GameOver)


def _dumps(data: dict[str, Any]) -> str:
    return json.dumps(data, separators=(",", ":"), ensure_ascii=False)


def _engine_decision(kind: str, seat: int, value: int) -> EPlayCard | ETakeRow | EDraftCard:
    if kind == "card":
        return EPlayCard(seat, value)
    if kind == "row":
        return ETakeRow(seat, value)
    return EDraftCard(seat, value)


class TableActor:
    """The table with short code ``code``; :meth:`start` runs its command loop."""

    def __init__(
        self,
        *,
        store: Store,
        settings: Settings,
        bots: BotPool,
        on_close: Callable[[TableActor], None],
        table_id: int,
        code: str,
        name: str,
        host_id: int,
        rules: Rules,
        turn_timer: float | None,
        rated: bool,
        private: bool,
    ) -> None:
        self.store = store
        self.settings = settings
        #: Where the bots of this table (and its default player) think.
        self.bots = bots
        self.on_close = on_close
        self.id = table_id
        self.code = code
        self.name = name
        self.host_id = host_id
        self.rules = rules
        self.turn_timer = turn_timer
        self.rated = rated
        self.private = private
        self.status = "open"
        self.seats: list[Seat | None] = [None] * rules.players
        self.game: Game | None = None
        self.game_no = 0
        #: The table stream: ``(seq, kind, payload)``; payload an Event or a dict.
        self.items: list[tuple[int, str, Any]] = []
        self.seq = 0
        self.n = 0
        self.watchers: dict[Peer, int | None] = {}
        self.kicked: set[int] = set()
        self.queue: asyncio.Queue[tuple[Any, ...]] = asyncio.Queue()
        self.task: asyncio.Task[None] | None = None
        self._replay_deals: dict[int, list[Deal]] = {}
        self._asked: set[tuple[int, str]] = set()
        self._timers: dict[tuple[int, str], tuple[asyncio.TimerHandle, float]] = {}
        self._grace: dict[int, asyncio.TimerHandle] = {}
        self._idle: asyncio.TimerHandle | None = None
        self._jobs: set[asyncio.Task[Any]] = set()
        #: Decision count (for the benchmark and tests).
        self.decisions = 0
        #: The client address that opened the table (quotas on unstarted tables).
        self.address: str | None = None
        #: Card changes per seat this turn, and chat messages this game (limits).
        self._changes: dict[int, tuple[str, int]] = {}
        self.chats = 0
        #: The seq of the current game's first item (a reconnect needs no older ones).
        self.game_seq = 0

    # -- running ---------------------------------------------------------------

    def start(self) -> None:
        self.task = asyncio.create_task(self.run(), name=f"table-{self.code}")

    async def stop(self) -> None:
        """Stop the loop and every timer (server shutdown; the log stays as it is)."""
        self._cancel_timers()
        for h in self._grace.values():
            h.cancel()
        self._grace.clear()
        if self._idle is not None:
            self._idle.cancel()
            self._idle = None
        for job in list(self._jobs):
            job.cancel()
        if self.task is not None:
            self.task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self.task

    def post(self, *command: Any) -> None:
        self.queue.put_nowait(command)

    async def run(self) -> None:
        while True:
            command = await self.queue.get()
            try:
                await self._handle(command)
            except P.ProtocolError as exc:
                peer = command[1] if command[0] in ("msg", "attach", "create") else None
                if peer is not None:
                    ref = getattr(command[2], "ref", None) if command[0] == "msg" else None
                    self._error(peer, exc.code, exc.message, ref)
            except asyncio.CancelledError:
                raise
            except Exception:
                log.exception("table %s failed on %s", self.code, command[0])
                if command[0] == "msg":
                    self._error(command[1], "internal", "the server failed on that message")
            self._trim()
            if self.status == "closed" and self.queue.empty():
                self._cancel_timers()
                for job in list(self._jobs):
                    job.cancel()  # a closed table's bots stop thinking (their queue too)
                if self._idle is not None:
                    self._idle.cancel()
                self.on_close(self)
                return

    async def _handle(self, command: tuple[Any, ...]) -> None:
        kind = command[0]
        if kind == "msg":
            await self._message(command[1], command[2])
        elif kind == "attach":
            await self._attach(command[1], command[2], command[3], command[4])
        elif kind == "create":
            await self._create(command[1], command[2])
        elif kind == "detach":
            self._detach(command[1])
        elif kind == "bot":
            await self._bot_answer(command[1], command[2], command[3], command[4])
        elif kind == "timeout":
            await self._timeout(command[1], command[2])
        elif kind == "grace":
            await self._grace_over(command[1])
        elif kind == "idle":
            await self._idle_over()

    # -- the log: apply, persist, broadcast ------------------------------------------

    def apply(self, kind: str, data: dict[str, Any], live: bool) -> None:
        """Change the table by one log entry (live, or replaying the stored log)."""
        if kind == "sit":
            seat = data["seat"]
            self.seats[seat] = Seat("human", data["name"], player_id=data["player_id"])
            self._notice("sat", seat, data["name"], f"{data['name']} sits in seat {seat + 1}.")
        elif kind == "bot":
            seat = data["seat"]
            self.seats[seat] = Seat("bot", data["name"], bot=data["bot"])
            self._notice("bot_added", seat, data["name"], f"Bot {data['name']} sits in seat "
                         f"{seat + 1}.")
        elif kind == "unseat":
            seat = data["seat"]
            old = self.seats[seat]
            assert old is not None
            self.seats[seat] = None
            why = data["reason"]
            if why == "kicked" and old.player_id is not None:
                self.kicked.add(old.player_id)
            text = {
                "left": f"{old.name} left seat {seat + 1}.",
                "kicked": f"The host removed {old.name} from seat {seat + 1}.",
                "removed": f"Bot {old.name} left seat {seat + 1}.",
            }[why]
            self._notice(why, seat, old.name, text)
        elif kind == "host":
            self.host_id = data["player_id"]
            self._notice("host", None, data["name"], f"{data['name']} is now the host.")
        elif kind == "start":
            self.game_no = data["game_no"]
            seed = random.Random(secrets.randbits(64))
            deals = self._replay_deals.get(self.game_no, []) if not live else []
            game = Game(self.rules, seed, deals=deals)
            if live:
                data["deals"] = [deal_to_dict(d) for d in game.round_deals]
            self.game = game
            self.status = "playing" if not game.is_over else "over"
            self._asked.clear()
            self.chats = 0
            word = "starts" if self.game_no == 1 else "starts again (rematch)"
            self._notice("started", None, None, f"Game {self.game_no} {word}.")
            self.game_seq = self.seq
            self._events(game.events)
        elif kind == "decision":
            current = self.game
            assert current is not None
            before = len(current.round_deals)
            events = current.decide(_engine_decision(data["kind"], data["seat"], data["value"]))
            if live and len(current.round_deals) > before:
                data["deals"] = [deal_to_dict(d) for d in current.round_deals[before:]]
            self.decisions += 1
            self._events(events)
            if current.is_over:
                self.status = "over"
        elif kind == "auto":
            seat = data["seat"]
            s = self.seats[seat]
            assert s is not None
            s.auto = data["on"]
            why = data["reason"]
            if why in ("left", "kicked"):
                s.left = True
            if why == "kicked" and s.player_id is not None:
                self.kicked.add(s.player_id)
            if why == "took_over":
                s.left = False
            text = {
                "timeout": f"{s.name} ran out of time; the default bot plays for them.",
                "left": f"{s.name} left; the default bot plays for them.",
                "kicked": f"The host removed {s.name}; the default bot plays for them.",
                "disconnected": f"{s.name} is disconnected; the default bot plays for them.",
                "took_over": f"{s.name} plays again.",
            }[why]
            self._notice("auto_on" if s.auto else "auto_off", seat, s.name, text, reason=why)
        elif kind == "chat":
            self.chats += 1
            self.seq += 1
            self.items.append(
                (self.seq, "chat", {"seat": data.get("seat"), "name": data["name"],
                                    "text": data["text"]})
            )
        elif kind == "close":
            self.status = "closed"
            self._notice("closed", None, None, "The table is closed.")
        else:
            raise ValueError(f"unknown log entry {kind!r}")

    def _notice(self, what: str, seat: int | None, name: str | None, text: str,
                reason: str | None = None) -> None:
        self.seq += 1
        self.items.append((self.seq, "notice", {"notice": what, "reason": reason, "seat": seat,
                                                "name": name, "text": text}))

    def _events(self, events: list[Event]) -> None:
        for ev in events:
            self.seq += 1
            self.items.append((self.seq, "event", ev))

    async def commit(
        self, kind: str, data: dict[str, Any], extra: list[Callable[[AsyncConnection],
                                                                    Coroutine[Any, Any, Any]]]
        | None = None,
    ) -> int:
        """Apply one entry, store it (with ``extra`` writes, atomically), return the first new
        item's index. Nobody hears of the change before the store has it."""
        mark = len(self.items)
        status = self.status
        self.apply(kind, data, live=True)
        self.n += 1
        entry = LogEntry(self.id, self.n, kind, data)
        ops = list(extra or [])
        if self.status != status:
            new = self.status
            ops.append(_status_op(self.id, new))
        if kind == "decision" and self.game is not None and self.game.is_over:
            ops.append(self._record_op(finished=True))
        if kind == "close" and self.game is not None and not self.game.is_over:
            ops.append(self._record_op(finished=False))
        try:
            if ops:
                await self.store.run(_with_log(entry, ops))
            else:
                await self.store.append(entry)
        except Exception:
            # The change is in memory but not stored: this actor must not go on from a state
            # the store does not have. It stops; a restart resumes the table from its log.
            log.exception("table %s: storing entry %d failed; the table stops", self.code, self.n)
            self.status = "closed"
            for peer in list(self.watchers):
                self._error(peer, "internal", "the server could not store that; the table "
                            "stops until the server restarts")
                peer.table = None
            self.watchers.clear()
            raise P.ProtocolError("internal", "the server could not store that") from None
        return mark

    def replay(self, entries: list[LogEntry]) -> None:
        """Rebuild the table from its stored log (after a restart)."""
        game_no = 0
        for e in entries:
            if e.kind == "start":
                game_no = e.data["game_no"]
            for d in e.data.get("deals", ()):
                self._replay_deals.setdefault(game_no, []).append(deal_from_dict(d))
        for e in entries:
            self.apply(e.kind, e.data, live=False)
            self.n = e.n
        self._replay_deals.clear()

    def resume(self) -> None:
        """After :meth:`replay`: everyone is disconnected; bots and timers start again."""
        if self.status == "playing":
            for i, s in enumerate(self.seats):
                if s is not None and s.kind == "human" and not s.auto:
                    self._start_grace(i)
        self._check_idle()
        self._schedule()

    # -- game-over writes -----------------------------------------------------------

    def _record_op(
        self, finished: bool
    ) -> Callable[[AsyncConnection], Coroutine[Any, Any, Any]]:
        game = self.game
        assert game is not None
        names = [s.name if s is not None else f"Seat {i + 1}" for i, s in enumerate(self.seats)]
        rec = records.to_json(records.record_from_game(game, names))
        seats = [(i, s.player_id if s is not None and s.kind == "human" else None, names[i])
                 for i, s in enumerate(self.seats)]
        totals = list(game.scores)
        winners = set(game.winners)
        rated = self.rated and finished
        table_id, game_no = self.id, self.game_no

        async def op(conn: AsyncConnection) -> None:
            res = await conn.execute(
                games.insert().values(
                    table_id=table_id, game_no=game_no, rated=rated, finished=finished,
                    record=rec, ended=time.time(),
                )
            )
            game_id = res.inserted_primary_key[0]  # type: ignore[index]
            mu_after: dict[int, float] = {}
            humans = [(i, pid) for i, pid, _ in seats if pid is not None]
            if rated and len({pid for _, pid in humans}) >= 2:
                ids = [pid for _, pid in humans]
                rows = {
                    r.id: r
                    for r in await conn.execute(sa.select(players).where(players.c.id.in_(ids)))
                }
                teams = [[_MODEL.rating(mu=rows[pid].mu, sigma=rows[pid].sigma)]
                         for _, pid in humans]
                new = _MODEL.rate(teams, scores=[-totals[i] for i, _ in humans])
                for (i, pid), (r,) in zip(humans, new, strict=True):
                    mu_after[i] = r.mu
                    await conn.execute(
                        players.update().where(players.c.id == pid).values(
                            mu=r.mu, sigma=r.sigma, rated_games=players.c.rated_games + 1
                        )
                    )
            await conn.execute(
                game_players.insert(),
                [
                    {"game_id": game_id, "seat": i, "player_id": pid, "name": name,
                     "total": totals[i], "winner": i in winners, "mu_after": mu_after.get(i)}
                    for i, pid, name in seats
                ],
            )

        return op

    # -- sending ----------------------------------------------------------------------

    def _item_dict(
        self, item: tuple[int, str, Any], viewer: int | None,
        cache: dict[int, dict[str, Any]] | None = None,
    ) -> dict[str, Any] | None:
        seq, kind, payload = item
        if kind == "event":
            ev = for_viewer(payload, viewer)
            if ev is None:
                return None
            if ev is payload and cache is not None:
                # The same event for every viewer who may see it whole: build its dict once.
                out = cache.get(seq)
                if out is None:
                    out = cache[seq] = {"seq": seq, "kind": "event", "event": event_dict(ev)}
                return out
            return {"seq": seq, "kind": "event", "event": event_dict(ev)}
        if kind == "notice":
            return {"seq": seq, "kind": "notice", **payload}
        return {"seq": seq, "kind": "chat", **payload}

    def names(self) -> list[str]:
        """The display names by seat, as the narration names them."""
        return [s.name if s is not None else f"{i + 1}" for i, s in enumerate(self.seats)]

    def narration(self, items: list[tuple[int, str, Any]], viewer: int | None,
                  lang: str) -> list[str]:
        """The sentences of the game events among ``items``, one entry per resolution step,
        in ``lang``, for ``viewer``. Each event is first filtered for the viewer (a spectator
        gets the public events), so no sentence tells what the viewer may not know."""
        speak = narrator(lang)
        names = self.names()
        out: list[str] = []
        step: list[Event] = []
        for _, kind, payload in items:
            if kind != "event":
                continue
            ev = for_viewer(payload, viewer)
            if ev is None:
                continue
            if step and isinstance(ev, STEP_STARTS):
                out.append(speak.announce(step, names, viewer))
                step = []
            step.append(ev)
        if step:
            out.append(speak.announce(step, names, viewer))
        return [text for text in out if text]

    def _events_text(self, items: list[tuple[int, str, Any]], viewer: int | None, lang: str,
                     cache: dict[int, dict[str, Any]] | None, *, always: bool) -> str | None:
        """One ``events`` frame for ``viewer`` in ``lang`` (None: nothing to send)."""
        dicts = [d for d in (self._item_dict(it, viewer, cache) for it in items)
                 if d is not None]
        prompt = self._prompt(viewer)
        if not dicts and (prompt is None or not always):
            return None
        return _dumps({"type": "events", "seq": self.seq, "items": dicts, "prompt": prompt,
                       "text": self.narration(items, viewer, lang)})

    def _broadcast(self, mark: int, *, state: bool = False) -> None:
        """Send the items from index ``mark`` on to every watcher, filtered per seat and
        narrated in each connection's language."""
        new = self.items[mark:]
        cache: dict[int, dict[str, Any]] = {}
        groups: dict[tuple[int | None, str], list[Peer]] = {}
        for peer, viewer in self.watchers.items():
            groups.setdefault((viewer, peer.lang), []).append(peer)
        states: dict[int | None, str] = {}
        for (viewer, lang), peers in groups.items():
            text: str | None
            if state:
                if viewer not in states:
                    states[viewer] = self._state_text(viewer, None)
                text = states[viewer]
            else:
                text = self._events_text(new, viewer, lang, cache, always=True)
                if text is None:
                    continue
            for peer in peers:
                peer.seq = self.seq
                peer.send(text)
        if state and new:
            # Items that came with a state change still go out, for logs and narration.
            for (viewer, lang), peers in groups.items():
                text = self._events_text(new, viewer, lang, cache, always=False)
                if text is not None:
                    for peer in peers:
                        peer.send(text)

    def _state_text(self, viewer: int | None, ref: P.Ref) -> str:
        view = None
        if self.game is not None:
            view = view_to_dict(self.game.view(viewer))
        return _dumps({
            "type": "table_state", "seq": self.seq, "table": self.info(),
            "you": viewer, "view": view, "prompt": self._prompt(viewer), "ref": ref,
        })

    def info(self) -> dict[str, Any]:
        host = None
        seats = []
        connected = {v for v in self.watchers.values() if v is not None}
        for i, s in enumerate(self.seats):
            if s is None:
                seats.append({"seat": i, "name": None, "kind": "empty", "bot": None,
                              "connected": False, "auto": False})
                continue
            if s.player_id == self.host_id:
                host = s.name
            seats.append({"seat": i, "name": s.name, "kind": s.kind, "bot": s.bot,
                          "connected": s.kind == "bot" or i in connected, "auto": s.auto})
        return {
            "code": self.code, "name": self.name, "host": host, "rules": self.rules.to_dict(),
            "rules_name": self.rules.name, "status": self.status,
            "turn_timer": self.turn_timer, "rated": self.rated, "private": self.private,
            "seats": seats, "game_no": self.game_no,
            "spectators": sum(1 for v in self.watchers.values() if v is None),
        }

    def _error(self, peer: Peer, code: P.ErrorCode, message: str, ref: P.Ref = None) -> None:
        peer.send(_dumps({"type": "error", "seq": peer.seq, "code": code, "message": message,
                          "ref": ref}))

    def _ack(self, peer: Peer, ref: P.Ref) -> None:
        peer.send(_dumps({"type": "ack", "seq": self.seq, "ref": ref}))

    # -- prompts, bots and timers ---------------------------------------------------------

    def _key(self, seat: int) -> str:
        game = self.game
        assert game is not None
        pend = game.pending
        assert pend is not None
        base = f"{self.game_no}.{game.round}"
        if pend.kind is DecisionKind.CARD:
            return f"{base}.{game.turn}.card"
        if pend.kind is DecisionKind.ROW:
            return f"{base}.{game.turn}.row.{seat}"
        return f"{base}.draft.{len(game.view(None).draft_pool)}"

    def _prompt(self, viewer: int | None) -> dict[str, Any] | None:
        game = self.game
        if viewer is None or game is None or self.status != "playing":
            return None
        pend = game.pending
        if pend is None or viewer not in pend.players:
            return None
        s = self.seats[viewer]
        if s is None or s.kind != "human" or s.auto:
            return None
        key = self._key(viewer)
        timer = self._timers.get((viewer, key))
        seconds = None
        if timer is not None:
            seconds = max(0.0, round(timer[1] - asyncio.get_running_loop().time(), 3))
        return {"kind": pend.kind.value, "key": key, "options": list(game.legal(viewer)),
                "card": pend.card, "reason": pend.reason, "seconds": seconds}

    def _schedule(self) -> None:
        """Ask bots (and the default player for absent people); start turn timers."""
        game = self.game
        if game is None or self.status != "playing":
            self._cancel_timers()
            return
        present = set(self.watchers.values())
        for i, s in enumerate(self.seats):
            # A person who went away before the game started is waited for only so long.
            if (s is not None and s.kind == "human" and not s.auto and i not in present
                    and i not in self._grace):
                self._start_grace(i)
        pend = game.pending
        if pend is None:
            return
        live: set[tuple[int, str]] = set()
        loop = asyncio.get_running_loop()
        for p in pend.players:
            s = self.seats[p]
            if s is None:
                continue
            key = self._key(p)
            live.add((p, key))
            if s.kind == "bot" or s.auto:
                if (p, key) in self._asked:
                    continue
                self._asked.add((p, key))
                spec = s.bot if s.kind == "bot" and s.bot is not None else DEFAULT
                self._spawn(self._think(p, key, spec, game.view(p)))
            elif self.turn_timer is not None and (p, key) not in self._timers:
                handle = loop.call_later(self.turn_timer, self.post, "timeout", p, key)
                self._timers[(p, key)] = (handle, loop.time() + self.turn_timer)
        for k in [k for k in self._timers if k not in live]:
            self._timers.pop(k)[0].cancel()

    def _spawn(self, coro: Coroutine[Any, Any, Any]) -> None:
        task = asyncio.create_task(coro)
        self._jobs.add(task)
        task.add_done_callback(self._jobs.discard)

    async def _think(self, seat: int, key: str, spec: str, view: View) -> None:
        """Ask the bot pool (worker processes; see :mod:`.botpool`) and post the answer.

        The seed comes from the table, the seat and the decision's key, so the answer does
        not depend on which worker gave it (and a replayed table asks the same questions)."""
        value = await self.bots.decide(self, seat, spec, decision_seed(self.id, seat, key), view)
        self.post("bot", seat, key, decision_kind(view), value)

    def bot_priority(self) -> int | None:
        """How urgent this table's bot jobs are (:mod:`.botpool`): first while a seated person
        is connected, last while they are all away, not at all with nobody seated (its
        bots stop until someone comes back)."""
        people = {i for i, s in enumerate(self.seats)
                  if s is not None and s.kind == "human" and not s.left}
        if not people:
            return None
        if any(v in people for v in self.watchers.values()):
            return PEOPLE
        return AWAY

    def _cancel_timers(self) -> None:
        for handle, _ in self._timers.values():
            handle.cancel()
        self._timers.clear()

    def _start_grace(self, seat: int) -> None:
        if seat in self._grace:
            return
        loop = asyncio.get_running_loop()
        self._grace[seat] = loop.call_later(self.settings.disconnect_grace, self.post,
                                            "grace", seat)

    async def _bot_answer(self, seat: int, key: str, kind: str, value: int) -> None:
        self._asked.discard((seat, key))
        game = self.game
        if game is None or self.status != "playing":
            return
        pend = game.pending
        s = self.seats[seat]
        if (pend is None or seat not in pend.players or s is None
                or not (s.kind == "bot" or s.auto) or self._key(seat) != key
                or value not in game.legal(seat)):
            self._schedule()
            return
        await self._decide(seat, kind, value, "bot" if s.kind == "bot" else "default", None,
                           None)

    async def _timeout(self, seat: int, key: str) -> None:
        self._timers.pop((seat, key), None)
        game = self.game
        if game is None or self.status != "playing":
            return
        pend = game.pending
        s = self.seats[seat]
        if pend is None or seat not in pend.players or s is None or s.auto:
            return
        if self._key(seat) != key:
            return
        mark = await self.commit("auto", {"seat": seat, "on": True, "reason": "timeout"})
        self._schedule()  # first: the prompts sent carry the timer
        self._broadcast(mark, state=True)

    async def _grace_over(self, seat: int) -> None:
        self._grace.pop(seat, None)
        s = self.seats[seat]
        if self.status != "playing" or s is None or s.kind != "human" or s.auto:
            return
        if seat in self.watchers.values():
            return
        mark = await self.commit("auto", {"seat": seat, "on": True, "reason": "disconnected"})
        self._schedule()  # first: the prompts sent carry the timer
        self._broadcast(mark, state=True)

    # -- connections -------------------------------------------------------------------

    def seat_of(self, player_id: int) -> int | None:
        for i, s in enumerate(self.seats):
            if s is not None and s.kind == "human" and s.player_id == player_id:
                return i
        return None

    async def _items_after(self, seq: int) -> list[tuple[int, str, Any]]:
        """The stream items after ``seq`` that a reconnecting client missed, back to the
        start of the current game at most (its snapshot holds the rest). Items no longer
        in memory are rebuilt from the store's log, which gives them their seq again."""
        seq = max(seq, self.game_seq - 1)
        first = self.items[0][0] if self.items else self.seq + 1
        recent = [it for it in self.items if it[0] > seq]
        if seq + 1 >= first:
            return recent
        scratch = self._scratch()
        scratch.replay(await self.store.table_entries(self.id))
        return [it for it in scratch.items if seq < it[0] < first] + recent

    def _scratch(self) -> TableActor:
        """A fresh actor of this table that nothing runs: for rebuilding its stream."""
        return TableActor(
            store=self.store, settings=self.settings, bots=self.bots,
            on_close=lambda _: None, table_id=self.id, code=self.code, name=self.name,
            host_id=self.host_id, rules=self.rules, turn_timer=self.turn_timer,
            rated=self.rated, private=self.private,
        )

    def _trim(self) -> None:
        """Keep the stream in memory bounded (between commands: marks are indices)."""
        keep = self.settings.stream_keep
        if len(self.items) > 2 * keep:
            del self.items[: len(self.items) - keep]

    async def _attach(self, peer: Peer, mode: str, last_seq: int | None, ref: P.Ref) -> None:
        if self.status == "closed":
            raise P.ProtocolError("closed", f"table {self.code} is closed")
        viewer = self.seat_of(peer.player_id) if mode == "join" else None
        if viewer is not None:
            s = self.seats[viewer]
            assert s is not None
            if s.left and peer.player_id in self.kicked:
                viewer = None
        self.watchers[peer] = viewer
        peer.table = self
        if viewer is not None and viewer in self._grace:
            self._grace.pop(viewer).cancel()
        peer.seq = self.seq
        peer.send(self._state_text(viewer, ref))
        if last_seq is not None:
            missed = await self._items_after(last_seq)
            text = self._events_text(missed, viewer, peer.lang, None, always=False)
            if text is not None:
                peer.send(text)
        if viewer is not None:
            self._presence(peer)
            self.bots.wake()  # a person is back: this table's bots come first again
        self._check_idle()

    def _presence(self, skip: Peer | None) -> None:
        """Tell the others that someone came or went (a fresh table_state, no new item)."""
        for peer, viewer in self.watchers.items():
            if peer is not skip:
                peer.send(self._state_text(viewer, None))

    def _detach(self, peer: Peer) -> None:
        viewer = self.watchers.pop(peer, None)
        if peer.table is self:
            peer.table = None
        if viewer is None:
            return
        if viewer not in self.watchers.values():
            s = self.seats[viewer]
            if self.status == "playing" and s is not None and s.kind == "human" and not s.auto:
                self._start_grace(viewer)
            self._presence(None)
        self._check_idle()

    def _check_idle(self) -> None:
        """With no seated person connected, the table is closed after ``idle_close`` seconds
        (once any game on it is over), so forgotten tables do not pile up."""
        seated = {v for v in self.watchers.values() if v is not None}
        if seated:
            if self._idle is not None:
                self._idle.cancel()
                self._idle = None
            return
        if self._idle is None and self.status != "closed":
            loop = asyncio.get_running_loop()
            # An unstarted table nobody sits at is cheap to open: it goes within minutes.
            wait = (self.settings.open_idle_close if self.status == "open"
                    else self.settings.idle_close)
            self._idle = loop.call_later(wait, self.post, "idle")

    async def _idle_over(self) -> None:
        self._idle = None
        if self.status == "closed" or any(v is not None for v in self.watchers.values()):
            return
        if self.status == "playing":
            self._check_idle()  # the default bot finishes the game first
            return
        mark = await self.commit("close", {})
        self._broadcast(mark, state=True)
        for peer in list(self.watchers):
            peer.table = None
        self.watchers.clear()

    # -- messages ---------------------------------------------------------------------------

    def _viewer(self, peer: Peer) -> int | None:
        if peer not in self.watchers:
            raise P.ProtocolError("not_at_table", "join or spectate a table first")
        return self.watchers[peer]

    def _seated(self, peer: Peer) -> int:
        viewer = self._viewer(peer)
        if viewer is None:
            if self.seat_of(peer.player_id) is not None:
                raise P.ProtocolError("spectator", "you are spectating; join to play your seat")
            raise P.ProtocolError("spectator", "spectators watch; they do not act")
        return viewer

    def _host(self, peer: Peer) -> None:
        self._viewer(peer)
        if peer.player_id != self.host_id:
            raise P.ProtocolError("not_host", "only the host may do that")

    async def _create(self, peer: Peer, ref: P.Ref) -> None:
        self.watchers[peer] = None
        peer.table = self
        await self.commit("sit", {"seat": 0, "player_id": peer.player_id, "name": peer.name})
        self.watchers[peer] = 0
        peer.seq = self.seq
        peer.send(self._state_text(0, ref))

    async def _message(self, peer: Peer, msg: Any) -> None:
        t = msg.type
        ref = msg.ref
        if self.status == "closed":
            raise P.ProtocolError("closed", f"table {self.code} is closed")
        if t in ("play_card", "take_row", "draft_card"):
            seat = self._seated(peer)
            kind = {"play_card": "card", "take_row": "row", "draft_card": "draft"}[t]
            value = msg.row if kind == "row" else msg.card
            self._check_decision(seat, kind, value)
            if kind == "card":
                self._count_change(seat)
            await self._decide(seat, kind, value, "player", peer, ref)
        elif t == "take_over":
            seat = self._seated(peer)
            s = self.seats[seat]
            assert s is not None
            if s.auto:
                mark = await self.commit("auto", {"seat": seat, "on": False,
                                                  "reason": "took_over"})
                self._ack(peer, ref)
                self._schedule()  # first: the prompts sent carry the timer
                self._broadcast(mark, state=True)
            else:
                self._ack(peer, ref)
        elif t == "chat":
            viewer = self._viewer(peer)
            text = clean_text(msg.text)
            if not text:
                raise P.ProtocolError("chat_empty", "the chat message is empty")
            if len(text) > self.settings.chat_max:
                raise P.ProtocolError(
                    "chat_too_long",
                    f"chat messages hold at most {self.settings.chat_max} characters, "
                    f"not {len(text)}",
                )
            if self.chats >= self.settings.chat_per_game:
                raise P.ProtocolError(
                    "quota", f"this table has had {self.settings.chat_per_game} chat messages "
                    "this game, as many as it keeps")
            mark = await self.commit("chat", {"seat": viewer, "name": peer.name, "text": text})
            self._ack(peer, ref)
            self._broadcast(mark)
        elif t == "sit":
            await self._sit(peer, msg.seat, ref)
        elif t == "add_bot":
            await self._add_bot(peer, msg.strength, msg.seat, ref)
        elif t == "remove_bot":
            self._host(peer)
            self._before_start()
            s = self._seat(msg.seat)
            if s.kind != "bot":
                raise P.ProtocolError("no_seat", f"seat {msg.seat + 1} holds no bot")
            await self._change("unseat", {"seat": msg.seat, "reason": "removed"}, peer, ref)
        elif t == "start":
            self._host(peer)
            self._before_start()
            empty = [i + 1 for i, s in enumerate(self.seats) if s is None]
            if empty:
                raise P.ProtocolError(
                    "seats_empty", f"seat {empty[0]} is empty: add a bot or wait for a player"
                )
            await self._change("start", {"game_no": 1}, peer, ref)
        elif t == "rematch":
            self._host(peer)
            if self.status != "over":
                raise P.ProtocolError("not_over", "a rematch starts when the game is over")
            if self.game_no >= self.settings.games_per_table:
                raise P.ProtocolError(
                    "quota", f"a table plays at most {self.settings.games_per_table} games; "
                    "open a new one")
            await self._change("start", {"game_no": self.game_no + 1}, peer, ref)
        elif t == "kick":
            await self._kick(peer, msg.seat, ref)
        elif t == "leave":
            await self._leave(peer, ref)
        else:
            raise P.ProtocolError("bad_message", f"{t} is not a table message")

    def _count_change(self, seat: int) -> None:
        """A chosen card may be changed until the reveal, but not without end: each
        change is stored and sent to every seat."""
        key = self._key(seat)
        last, n = self._changes.get(seat, (key, 0))
        if last != key:
            n = 0
        if n > self.settings.card_changes:
            raise P.ProtocolError(
                "too_many_changes", f"your card may change at most {self.settings.card_changes}"
                " times a turn; it stays as it is")
        self._changes[seat] = (key, n + 1)

    def _seat(self, i: int) -> Seat:
        if not 0 <= i < len(self.seats) or self.seats[i] is None:
            raise P.ProtocolError("no_seat", f"there is nobody in seat {i + 1}")
        s = self.seats[i]
        assert s is not None
        return s

    def _before_start(self) -> None:
        if self.status != "open":
            raise P.ProtocolError("already_started", "the game has already started")

    async def _change(self, kind: str, data: dict[str, Any], peer: Peer, ref: P.Ref) -> None:
        """A table change everyone sees in full: commit, ack, new table_state to all."""
        mark = await self.commit(kind, data)
        self._ack(peer, ref)
        self._schedule()  # first: the prompts sent carry the timer
        self._broadcast(mark, state=True)

    def _check_decision(self, seat: int, kind: str, value: int) -> None:
        game = self.game
        if game is None or self.status == "open":
            raise P.ProtocolError("not_started", "the game has not started")
        if game.is_over:
            raise P.ProtocolError("game_over", "the game is over")
        pend = game.pending
        legal = game.legal(seat)
        if pend is None or pend.kind.value != kind or not legal:
            wanted = "nothing" if pend is None else f"a {pend.kind.value} choice"
            who = "" if pend is None else " from seat" + (
                "s " if len(pend.players) > 1 else " ") + ", ".join(
                str(p + 1) for p in pend.players)
            raise P.ProtocolError("not_your_turn", f"the table waits for {wanted}{who}, not "
                                  f"a {kind} choice from seat {seat + 1}")
        if value not in legal:
            if kind == "row":
                raise P.ProtocolError("no_such_row",
                                      f"there is no row {value}; rows are numbered 1 to 4")
            where = "the pool" if kind == "draft" else "your hand"
            raise P.ProtocolError("card_not_in_hand", f"card {value} is not in {where}")

    async def _decide(self, seat: int, kind: str, value: int, by: str, peer: Peer | None,
                      ref: P.Ref) -> None:
        s = self.seats[seat]
        assert s is not None
        mark = len(self.items)
        state = False
        if by == "player" and s.auto:
            await self.commit("auto", {"seat": seat, "on": False, "reason": "took_over"})
            state = True
        await self.commit("decision", {"seat": seat, "kind": kind, "value": value, "by": by})
        if peer is not None:
            self._ack(peer, ref)
        self._schedule()  # first: the prompts sent carry the timer
        self._broadcast(mark, state=state)

    async def _sit(self, peer: Peer, seat: int | None, ref: P.Ref) -> None:
        viewer = self._viewer(peer)
        if viewer is not None or self.seat_of(peer.player_id) is not None:
            raise P.ProtocolError("seat_taken", "you already have a seat at this table")
        if peer.player_id in self.kicked:
            raise P.ProtocolError("kicked", "the host removed you from this table")
        self._before_start()
        if seat is None:
            free = [i for i, s in enumerate(self.seats) if s is None]
            if not free:
                raise P.ProtocolError("table_full", "every seat is taken")
            seat = free[0]
        elif not 0 <= seat < len(self.seats):
            raise P.ProtocolError("no_seat", f"this table has seats 1 to {len(self.seats)}")
        elif self.seats[seat] is not None:
            raise P.ProtocolError("seat_taken", f"seat {seat + 1} is taken")
        # Alike is the same here too (server/text.py): "Аna" may not sit beside "Ana".
        key = name_key(peer.name)
        if any(s is not None and name_key(s.name) == key for s in self.seats):
            raise P.ProtocolError("name_taken", f"the name {peer.name!r} is used at this table")
        mark = await self.commit("sit", {"seat": seat, "player_id": peer.player_id,
                                         "name": peer.name})
        self.watchers[peer] = seat
        self._ack(peer, ref)
        self._broadcast(mark, state=True)

    async def _add_bot(self, peer: Peer, strength: str, seat: int | None, ref: P.Ref) -> None:
        self._host(peer)
        self._before_start()
        try:
            self.bots.check(strength)  # only names this server offers: nothing is imported
        except BotError as exc:
            raise P.ProtocolError("bad_bot", str(exc)) from None
        if seat is None:
            free = [i for i, s in enumerate(self.seats) if s is None]
            if not free:
                raise P.ProtocolError("table_full", "every seat is taken")
            seat = free[0]
        elif not 0 <= seat < len(self.seats):
            raise P.ProtocolError("no_seat", f"this table has seats 1 to {len(self.seats)}")
        elif self.seats[seat] is not None:
            raise P.ProtocolError("seat_taken", f"seat {seat + 1} is taken")
        names = {name_key(s.name) for s in self.seats if s is not None}
        k = 1
        while name_key(f"{strength} bot {k}") in names:
            k += 1
        await self._change("bot", {"seat": seat, "bot": strength, "name": f"{strength} bot {k}"},
                           peer, ref)

    async def _kick(self, peer: Peer, seat: int, ref: P.Ref) -> None:
        self._host(peer)
        s = self._seat(seat)
        if s.kind != "human":
            raise P.ProtocolError("no_seat", f"seat {seat + 1} holds a bot: use remove_bot")
        if s.player_id == self.host_id:
            raise P.ProtocolError("no_seat", "the host cannot remove themselves; leave instead")
        victims = [p for p, v in self.watchers.items() if v == seat]
        if self.status == "open":
            await self._change("unseat", {"seat": seat, "reason": "kicked"}, peer, ref)
        else:
            await self._change("auto", {"seat": seat, "on": True, "reason": "kicked"}, peer, ref)
        for victim in victims:
            self.watchers.pop(victim, None)
            victim.table = None
            self._error(victim, "kicked", "the host removed you from this table")
        self._check_idle()

    async def _leave(self, peer: Peer, ref: P.Ref) -> None:
        self._viewer(peer)
        mark = len(self.items)
        seat = self.seat_of(peer.player_id)
        if seat is not None and self.status == "open":
            await self.commit("unseat", {"seat": seat, "reason": "left"})
        elif seat is not None:
            s = self.seats[seat]
            assert s is not None
            if not s.left:
                await self.commit("auto", {"seat": seat, "on": True, "reason": "left"})
        if seat is not None and peer.player_id == self.host_id:
            await self._pass_host()
        for p in [p for p, v in self.watchers.items()
                  if p is peer or (seat is not None and v == seat)]:
            self.watchers.pop(p, None)
            p.table = None
        self._ack(peer, ref)
        present = [s for s in self.seats if s is not None and s.kind == "human" and not s.left]
        if not present and self.status != "closed":
            await self.commit("close", {})
        self._schedule()  # first: the prompts sent carry the timer
        self._broadcast(mark, state=True)
        self._check_idle()

    async def _pass_host(self) -> None:
        for s in self.seats:
            if s is not None and s.kind == "human" and not s.left and s.player_id is not None:
                await self.commit("host", {"player_id": s.player_id, "name": s.name})
                return


def _status_op(table_id: int, status: str) -> Callable[[AsyncConnection], Coroutine[Any, Any, Any]]:
    async def op(conn: AsyncConnection) -> None:
        await conn.execute(tables.update().where(tables.c.id == table_id).values(status=status))

    return op


def _with_log(
    entry: LogEntry, ops: list[Callable[[AsyncConnection], Coroutine[Any, Any, Any]]]
) -> Callable[[AsyncConnection], Coroutine[Any, Any, Any]]:
    """One transaction: the log entry and the writes that go with it."""

    async def op(conn: AsyncConnection) -> None:
        await conn.execute(
            table_log.insert().values(
                table_id=entry.table_id, n=entry.n, kind=entry.kind, data=json.dumps(entry.data)
            )
        )
        for extra in ops:
            await extra(conn)

    return op
