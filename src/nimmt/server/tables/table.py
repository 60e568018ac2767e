"""One table's actor: a serial task that feeds its reducer and runs the effects.

Everything that happens to a table (a person's message, a connection coming
or going, a bot's answer, a timer running out) becomes a command
(:mod:`.commands`) on the actor's queue, so one thing happens at a time. For
each, the rules of the table (:func:`.reducer.reduce`) say what changes and
what must be done; the actor does it, in that order: first the store
(:mod:`.persist`: nobody hears of a change before the store has it), then the
answers and broadcasts (:mod:`.fanout`), the timers and bot questions
(:mod:`.schedule`). What the reducer may not do itself (read the clock, draw a
seed, ask the bot registry, read old items back from the store) is done here.

After a restart the table is rebuilt by replaying its stored log
(:meth:`TableActor.replay`), which gives every stream item the same ``seq`` it
had, so reconnecting clients carry on where they were.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import logging
import random
import secrets
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol

from ... import wire as P
from ...engine import Game
from ...rules import Rules
from ...views import View
from ...wire import TableInfo, TableStatus, view_payload
from ..base.logs import event
from ..base.settings import Settings
from ..store import LogEntry, StaleOwner, Store
from ..workers.botpool import BotPool
from ..workers.tutor import Tutor
from .apply import replay, trim
from .asides import Asides
from .commands import (
    Advise,
    AskBot,
    Attach,
    BotAnswered,
    Broadcast,
    CancelTimer,
    CloseTable,
    Command,
    Create,
    Detach,
    Effect,
    Halt,
    Message,
    Persist,
    Refuse,
    Resume,
    SendAck,
    SendHistory,
    SendMissed,
    SendPresence,
    SendState,
    StartTimer,
    WakeBots,
    Who,
    who_of,
)
from .facts import bot_priority, info
from .fanout import Fanout, Receiver
from .history import Pages
from .persist import persist
from .reducer import reduce
from .schedule import Scheduler
from .state import Limits, SeatState, StreamItem, TableData
from .tablelog import entry_from_row

__all__ = ["TableActor", "TablePeer", "view_to_dict"]

log = logging.getLogger("nimmt.server")
#: Broadcasts a busy table holds at most before it sends them (:meth:`.fanout.Fanout.flush`).
HOLD_MOST = 8


class TablePeer(Receiver, Protocol):
    """A connection as its table knows it: it also says which table it is at, and whether
    a hint it asked for is still being computed (one at a time per connection)."""

    table: TableActor | None
    hinting: bool


def _no_quota(_table: TableActor, _bot: str | None) -> None:
    """No limit on bots (a table the hub has not given its count)."""
    return None


def view_to_dict(view: View) -> dict[str, Any]:
    """A view as JSON-ready data (the ``view`` of ``table_state``)."""
    return view_payload(view).model_dump(mode="json")


class TableActor:
    """The table with short code ``code``; :meth:`start` runs its command loop."""

    def __init__(
        self,
        *,
        store: Store,
        settings: Settings,
        bots: BotPool,
        tutor: Tutor,
        pages: Pages,
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
        self.on_close = on_close
        #: The table's state: everything its rules read and change.
        self.table = TableData(table_id, code, name, host_id, rules, turn_timer, rated,
                               private, Limits.of(settings))
        #: The connections at the table, and those with commands on the queue, by number.
        self.peers: dict[int, TablePeer] = {}
        #: Commands on the queue per connection: a connection is kept while it has any.
        self._queued: dict[int, int] = {}
        self.fanout = Fanout(self.table, self.peers)
        #: Where the bots of this table (and its default player) are asked, and its timers.
        self.scheduler = Scheduler(self.post, bots, self, table_id)
        #: The hints and pages of history being computed for its connections.
        self.asides = Asides(self.table, self.peers, self.fanout, settings, tutor, pages)
        self.queue: asyncio.Queue[Command] = asyncio.Queue()
        self.task: asyncio.Task[None] | None = None
        #: The client address that opened the table (quotas on unstarted tables).
        self.address: str | None = None
        #: Why the host may not seat another bot of a name now (None: a rematch, the table's
        #: bots playing again), or None when they may: the hub counts the search bots at
        #: the live tables. Asked just before an ``add_bot`` or a ``rematch`` is reduced.
        self.bot_quota: Callable[[TableActor, str | None], str | None] = _no_quota
        #: This process's fencing token for the table (many processes, docs/scaling.md):
        #: every write carries it, and the store refuses it once a newer owner has written.
        self.token: int | None = None
        #: Where the loop stands: closing, lost, settling, handling a command.
        self.life = Life()

    # -- what the hub and the web routes read ------------------------------------------------

    @property
    def id(self) -> int:
        return self.table.id

    @property
    def lost(self) -> bool:
        """Another process owns the table now: the loop ended, answering nothing more."""
        return self.life.lost

    @property
    def code(self) -> str:
        return self.table.code

    @property
    def name(self) -> str:
        return self.table.name

    @property
    def host_id(self) -> int:
        return self.table.logged.host_id

    @property
    def rules(self) -> Rules:
        return self.table.rules

    @property
    def private(self) -> bool:
        return self.table.private

    @property
    def status(self) -> TableStatus:
        return self.table.logged.status

    @property
    def seats(self) -> list[SeatState | None]:
        return self.table.logged.seats

    @property
    def game(self) -> Game | None:
        return self.table.logged.game

    @property
    def items(self) -> list[StreamItem]:
        return self.table.logged.items

    @property
    def seq(self) -> int:
        return self.table.logged.seq

    @property
    def kicked(self) -> set[int]:
        return self.table.logged.kicked

    @property
    def decisions(self) -> int:
        """Decisions applied (for the benchmark and tests)."""
        return self.table.logged.decisions

    def seat_of(self, player_id: int) -> int | None:
        return self.table.logged.seat_of(player_id)

    def info(self) -> TableInfo:
        """The table's public facts now."""
        return info(self.table)

    def bot_priority(self) -> int | None:
        """How urgent this table's bot jobs are (:func:`.reducer.bot_priority`)."""
        return bot_priority(self.table)

    # -- what the hub posts ------------------------------------------------------------------

    def post(self, command: Command) -> None:
        """Queue ``command``: it happens after everything queued before it."""
        conn = _conn_of(command)
        if conn is not None:
            self._queued[conn] = self._queued.get(conn, 0) + 1
        self.queue.put_nowait(command)

    def create(self, peer: TablePeer, ref: P.Ref, hints: bool = True) -> None:
        """``peer`` opened this table: it takes seat 0. ``hints``: whether it allows hints."""
        self.peers[peer.id] = peer
        self.post(Create(who_of(peer), ref, hints))

    def attach(self, peer: TablePeer, mode: str, last_seq: int | None, ref: P.Ref) -> None:
        """``peer`` joins (``mode`` ``join``) or watches (``spectate``) this table."""
        self.peers[peer.id] = peer
        self.post(Attach(who_of(peer), ref, mode == "spectate", last_seq))

    def detach(self, peer: TablePeer) -> None:
        """``peer`` went away or entered another table."""
        self.post(Detach(peer.id))

    def take(self, peer: TablePeer, command: Message) -> None:
        """A person's table message from ``peer``, already the typed command the edge (or,
        for a connection of another process, the cluster) made of it
        (:func:`~.commands.from_message`)."""
        self.peers.setdefault(peer.id, peer)
        self.post(command)

    # -- running ------------------------------------------------------------------------

    def start(self) -> None:
        """Start the command loop."""
        self.task = asyncio.create_task(self.run(), name=f"table-{self.code}")

    async def stop(self) -> None:
        """Stop the loop, every timer and every hint (server shutdown; the log stays as it
        is)."""
        self.scheduler.stop()
        self.asides.stop()
        if self.task is not None:
            self.task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self.task

    async def settle(self, seconds: float) -> None:
        """Wind down for a stop (a drain, a hand-over to another process): timers and bots
        stop, the commands already received are handled (their writes finish and are
        acknowledged) for at most ``seconds``, then the loop stops. The log is then
        complete: whoever resumes the table next starts from exactly what was told."""
        self.life.settling = True
        self.scheduler.stop()
        task = self.task
        if task is not None and not task.done() and (self.life.handling or not self.queue.empty()):
            with contextlib.suppress(asyncio.TimeoutError, asyncio.CancelledError):
                await asyncio.wait_for(asyncio.shield(task), seconds)
        await self.stop()

    async def run(self) -> None:
        """The command loop, until the table closes. Decisions waiting together are handled
        as one batch (:meth:`handle`); anything else one at a time. A command that fails
        unexpectedly is logged and answered ``internal``; the loop goes on."""
        carry: Command | None = None
        while True:
            first = carry if carry is not None else await self.queue.get()
            carry = None
            batch = [first]
            while (_batchable(batch[-1]) and len(batch) < HOLD_MOST
                   and not self.queue.empty()):
                nxt = self.queue.get_nowait()
                if _batchable(nxt):
                    batch.append(nxt)
                else:
                    carry = nxt
                    break
            self.life.handling = True
            try:
                await self.handle(batch)
            except asyncio.CancelledError:
                raise
            except Exception:
                log.exception("table %s failed on %s", self.code, type(batch[-1]).__name__,
                              extra=event("table.error", table=self.code))
                for command in batch:
                    who = getattr(command, "who", None)
                    if who is not None:
                        self.fanout.refuse(who.conn, "internal", "the server failed on that "
                                           "message", getattr(command, "ref", None))
            for command in batch:
                conn = _conn_of(command)
                if conn is not None:
                    left = self._queued.pop(conn, 1) - 1
                    if left > 0:
                        self._queued[conn] = left
            waiting = carry is not None or not self.queue.empty()
            # The broadcasts held go once no command waits (or after a few: a busy table's
            # people still hear each turn at once).
            if not waiting or self.fanout.holding >= HOLD_MOST:
                self.fanout.flush(asyncio.get_running_loop().time())
            self._release()
            trim(self.table, self.settings.stream_keep)
            self.life.handling = False
            if self.life.lost or (self.life.closing and not waiting):
                self.fanout.flush(asyncio.get_running_loop().time())
                self.on_close(self)
                return
            if self.life.settling and not waiting:
                return

    async def handle(self, batch: list[Command]) -> None:
        """Reduce the commands of ``batch`` and run their effects, in order: the store's
        first (one write for the whole batch), and nothing else until the store has it.

        Decisions that came together (four people choosing at once while the first one's
        write was stored) are reduced one after another, stored in one write and told
        in one frame per connection: a change is still never told before it is stored."""
        loop = asyncio.get_running_loop()
        reduced = [(command, self._reduce(command, loop.time())) for command in batch]
        stored = [e[0] for _, e in reduced if e and isinstance(e[0], Persist)]
        if stored:
            write = stored[0] if len(stored) == 1 else _joined(stored)
            try:
                await persist(self.store, self.table.id, write, self.token)
            except StaleOwner:
                log.warning("table %s is owned by another process now; it stops here",
                            self.code, extra=event("table.lost", table=self.code))
                self.lose()
                return
            except Exception:
                log.exception("table %s: storing entries from %d failed; the table stops",
                              self.code, write.first_n,
                              extra=event("db.error", table=self.code))
                reduced = [(batch[-1], self._halt(batch[-1]))]
            else:
                for done in stored:
                    _tell(self.code, done)
        now = loop.time()
        for _, effects in reduced:
            for effect in effects:
                if not isinstance(effect, Persist):
                    self.run_effect(effect, now)

    def _reduce(self, command: Command, now: float) -> list[Effect]:
        """``command`` reduced into the table: its effects, the store's first."""
        logged = self.table.logged.n
        if isinstance(command, Message):
            match command.msg:
                case P.AddBot(strength=bot) if command.refusal is None:
                    # Counted here, with nothing awaited before the reducer seats the bot:
                    # two tables' add_bot cannot both pass on the same count.
                    command = dataclasses.replace(command, quota=self.bot_quota(self, bot))
                case P.Rematch() if self.status == "over":
                    # A rematch makes the table live again, its bots with it.
                    command = dataclasses.replace(command, quota=self.bot_quota(self, None))
        try:
            _, effects = reduce(self.table, command, now)
        except Exception:
            if self.table.logged.n == logged:
                raise  # nothing was applied: the table is still what the store has
            log.exception("table %s failed on %s after changing; the table stops",
                          self.code, type(command).__name__,
                          extra=event("table.error", table=self.code))
            effects = self._halt(command)
        return effects

    def lose(self) -> None:
        """Another process owns the table now: stop its timers and bots, answer nothing
        more (what the store refused was never acknowledged); the hub sends its
        connections on to the new owner."""
        self.life.lost = True
        self.scheduler.stop()

    def _halt(self, command: Command) -> list[Effect]:
        """The table changed in memory and the store does not have it: the table must not
        go on from a state the store does not have. It stops, everyone at it is told, and
        a restart resumes it from its log."""
        who = getattr(command, "who", None)
        _, effects = reduce(self.table, Halt(who, getattr(command, "ref", None)),
                            asyncio.get_running_loop().time())
        return effects

    def run_effect(self, effect: Effect, now: float) -> None:
        """One effect other than storing (:meth:`handle` does that)."""
        fan = self.fanout
        if isinstance(effect, SendState | SendPresence | SendMissed | SendHistory):
            # What was held goes before anything else that sends items or a view. An answer
            # to a command may go before it: it carries the stream position its connection
            # was sent, not the table's.
            fan.flush(now)
        match effect:
            case SendAck(conn, ref):
                fan.ack(conn, ref)
            case Refuse(conn, code, message, ref):
                fan.refuse(conn, code, message, ref)
            case SendState(conn, viewer, ref):
                peer = self.peers.get(conn)
                if peer is not None:
                    peer.table = self
                fan.send_state(conn, viewer, ref, now)
            case Broadcast(after, state, audience):
                fan.broadcast(after, state, audience, now)
            case SendPresence(audience):
                fan.presence(audience, now)
            case SendMissed(conn, viewer, after):
                s = self.settings
                fan.catch_up(conn, viewer, after, now, s.catchup_items, s.catchup_bytes)
            case SendHistory():
                self.asides.history(effect)
            case AskBot():
                self.scheduler.ask(effect)
            case Advise():
                self.asides.advise(effect)
            case StartTimer():
                self.scheduler.start(effect)
            case CancelTimer(timer):
                self.scheduler.cancel(timer)
            case WakeBots():
                self.scheduler.wake()
            case CloseTable():
                self.scheduler.stop()  # a closed table's timers and bots stop at once
                self.life.closing = True
            case Persist():
                raise AssertionError(f"{effect} goes through handle()")

    def _release(self) -> None:
        """Forget the connections no longer at the table (and with nothing on its queue);
        they no longer point at it."""
        watchers = self.table.live.watchers
        if len(self.peers) == len(watchers):
            return  # every connection known is at the table
        for conn in [c for c in self.peers if c not in watchers and c not in self._queued]:
            peer = self.peers.pop(conn)
            self.fanout.forget(conn)
            if peer.table is self:
                peer.table = None

    # -- the log ------------------------------------------------------------------------------

    def replay(self, entries: list[LogEntry]) -> None:
        """Rebuild the table from its stored log (after a restart). Rounds the log holds no
        deal for yet are shuffled afresh."""
        t = self.table
        replay(t.logged, t.rules, _entries(entries), random.Random(secrets.randbits(64)))

    def resume(self) -> None:
        """After :meth:`replay`: everyone is disconnected; bots and timers start again."""
        self.post(Resume())


@dataclass(slots=True)
class Life:
    """Where a table's command loop stands."""

    #: The table closed: the loop ends once the commands queued are answered.
    closing: bool = False
    #: Another process owns the table now: the loop ends at once, answering nothing more.
    lost: bool = False
    #: The table winds down for a stop (:meth:`TableActor.settle`): no timer fires, and the
    #: loop ends once the commands already queued are handled.
    settling: bool = False
    #: A command is being handled (its write may be under way).
    handling: bool = False


def _batchable(command: Command) -> bool:
    """Whether ``command`` may be handled in one batch with others like it: a decision (a
    person's or a bot's), whose effects are its write, its answer and its broadcast."""
    if isinstance(command, BotAnswered):
        return True
    return isinstance(command, Message) and isinstance(command.msg, P.DecisionMessage)


def _joined(writes: list[Persist]) -> Persist:
    """One write of the consecutive ``writes`` of a batch: their entries in order, the last
    status, every game result."""
    status = None
    for w in writes:
        if w.status is not None:
            status = w.status
    return Persist(writes[0].first_n, tuple(e for w in writes for e in w.entries), status,
                   tuple(r for w in writes for r in w.results))


def _tell(code: str, stored: Persist) -> None:
    """Log what a stored change means in the table's life: a new status (``playing``: a game
    started; ``over``; ``closed``), a game ended."""
    if stored.status is not None:
        log.info("table %s is %s now", code, stored.status,
                 extra=event("table.status", table=code, status=stored.status))
    for game in stored.results:
        log.info("table %s: game %d %s", code, game.game_no,
                 "finished" if game.finished else "was cut short",
                 extra=event("game.ended", table=code, game=game.game_no,
                             finished=game.finished, rated=game.rated,
                             seats=len(game.players),
                             bots=sum(1 for p in game.players if p is None)))


def _entries(rows: list[LogEntry]) -> list[tuple[int, Any]]:
    return [(row.n, entry_from_row(row.kind, row.data)) for row in rows]


def _conn_of(command: Command) -> int | None:
    """The connection a command comes from, if any."""
    if type(command) is Detach:
        return command.conn
    who: Who | None = getattr(command, "who", None)
    return None if who is None else who.conn
