"""One command being reduced: the entries it logs, the effects that follow them, and what
every command's reduction shares (the checks that refuse before anything changes, a
change told to everyone, a decision applied, the timers and the bots asked).

The commands' own rules are :mod:`.reducer`'s; nothing here does I/O, reads a clock or
draws a random number.
"""

from __future__ import annotations

import random

from ... import record as records
from ... import wire as P
from ...decisions import Decision, DecisionKind
from ...engine import Game
from ...events import CardChosen, CardsRevealed, Event
from ...narrate import SOURCE_LANGUAGE, narrator
from ...views import Phase
from ..workers.botworker import DEFAULT
from .apply import apply
from .commands import (
    AskBot,
    Broadcast,
    CancelTimer,
    CloseTable,
    DealTimer,
    Effect,
    GameResult,
    GraceTimer,
    IdleTimer,
    PaceTimer,
    Persist,
    SendAck,
    StartTimer,
    Timer,
    TurnTimer,
    Who,
)
from .facts import decision_key
from .state import SeatState, TableData
from .tablelog import AutoPlay, By, Closed, Dealt, Decided, Entry, Started

__all__ = ["Step"]


class Step:
    """One command being reduced: the entries it logs and the effects that follow them."""

    def __init__(self, t: TableData, now: float) -> None:
        self.t = t
        self.now = now
        self.status = t.logged.status
        self.first_n = t.logged.n + 1
        self.entries: list[Entry] = []
        self.results: list[GameResult] = []
        self.out: list[Effect] = []

    def effects(self) -> list[Effect]:
        """The effects, the store's first: nobody hears of a change before it is stored;
        the table's closing last, once everything about it was said."""
        t = self.t
        if t.logged.status == "closed" and self.status != "closed":
            self.out.append(CloseTable())
        if not self.entries:
            return self.out
        status = t.logged.status if t.logged.status != self.status else None
        return [Persist(self.first_n, tuple(self.entries), status, tuple(self.results)),
                *self.out]

    def log(self, entry: Entry, rng: random.Random | None = None) -> None:
        """Apply ``entry`` and keep it for the store (with the game it ends, if any)."""
        t = self.t
        stored = apply(t.logged, t.rules, entry, rng)
        t.logged.n += 1
        if isinstance(entry, Started):
            t.live.asked.clear()  # a new game: no question asked of the last one stands
        self.entries.append(stored)
        game = t.logged.game
        if isinstance(entry, Decided) and game is not None and game.is_over:
            self.results.append(_result(t, finished=True))
        if isinstance(entry, Closed) and game is not None and not game.is_over:
            self.results.append(_result(t, finished=False))

    # -- checks (each raises before anything changes) ---------------------------------------------

    def viewer(self, who: Who) -> int | None:
        if who.conn not in self.t.live.watchers:
            raise P.ProtocolError("not_at_table", "join or spectate a table first")
        return self.t.live.watchers[who.conn]

    def seated(self, who: Who) -> int:
        viewer = self.viewer(who)
        if viewer is None:
            if self.t.logged.seat_of(who.player_id) is not None:
                raise P.ProtocolError("spectator", "you are spectating; join to play your seat")
            raise P.ProtocolError("spectator", "spectators watch; they do not act")
        return viewer

    def host(self, who: Who) -> None:
        self.viewer(who)
        if who.player_id != self.t.logged.host_id:
            raise P.ProtocolError("not_host", "only the host may do that")

    def before_start(self) -> None:
        if self.t.logged.status != "open":
            raise P.ProtocolError("already_started", "the game has already started")

    def occupant(self, seat: int) -> SeatState:
        seats = self.t.logged.seats
        s = seats[seat] if 0 <= seat < len(seats) else None
        if s is None:
            raise P.ProtocolError("no_seat", f"there is nobody in seat {seat + 1}")
        return s

    def free_seat(self, seat: int | None) -> int:
        seats = self.t.logged.seats
        if seat is None:
            free = [i for i, s in enumerate(seats) if s is None]
            if not free:
                raise P.ProtocolError("table_full", "every seat is taken")
            return free[0]
        if not 0 <= seat < len(seats):
            raise P.ProtocolError("no_seat", f"this table has seats 1 to {len(seats)}")
        if seats[seat] is not None:
            raise P.ProtocolError("seat_taken", f"seat {seat + 1} is taken")
        return seat

    def game_on(self) -> Game:
        """The game under way; refused before it starts and once it is over."""
        t = self.t
        game = t.logged.game
        if game is None or t.logged.status == "open":
            raise P.ProtocolError("not_started", "the game has not started")
        if t.logged.status != "playing" or game.is_over:
            raise P.ProtocolError("game_over", "the game is over")
        return game

    def check_decision(self, decision: Decision) -> None:
        game = self.game_on()
        seat, kind, value = decision.player, decision.kind, decision.value
        pend = game.pending
        legal = game.legal(seat)
        if pend is None or pend.kind is not kind or not legal:
            wanted = "nothing" if pend is None else f"a {pend.kind.value} choice"
            who = "" if pend is None else " from seat" + (
                "s " if len(pend.players) > 1 else " ") + ", ".join(
                str(p + 1) for p in pend.players)
            raise P.ProtocolError("not_your_turn", f"the table waits for {wanted}{who}, not "
                                  f"a {kind.value} choice from seat {seat + 1}")
        if value not in legal:
            if kind is DecisionKind.ROW:
                raise P.ProtocolError("no_such_row",
                                      f"there is no row {value}; rows are numbered 1 to 4")
            where = "the pool" if kind is DecisionKind.DRAFT else "your hand"
            raise P.ProtocolError("card_not_in_hand", f"card {value} is not in {where}")

    def count_change(self, seat: int) -> None:
        """A chosen card may be changed until the reveal, but not without end: each change
        is stored and sent to every seat."""
        t = self.t
        key = decision_key(t, seat)
        last, n = t.live.changes.get(seat, (key, 0))
        if last != key:
            n = 0
        if n > t.limits.card_changes:
            raise P.ProtocolError(
                "too_many_changes", f"your card may change at most {t.limits.card_changes}"
                " times a turn; it stays as it is")
        t.live.changes[seat] = (key, n + 1)

    # -- changes ------------------------------------------------------------------------------

    def change(self, entry: Entry, who: Who, ref: P.Ref,
               rng: random.Random | None = None) -> None:
        """A change everyone sees in full: logged, acknowledged, a new table_state to all."""
        mark = self.t.logged.seq
        self.log(entry, rng)
        self.listen(mark)
        self.out.append(SendAck(who.conn, ref))
        self.tell(mark)

    def decide(self, decision: Decision, by: By, who: Who | None, ref: P.Ref,
               mark: int | None = None) -> None:
        """Apply ``decision`` and tell it; ``mark``: the stream number from which items
        are new (given when items were logged just before, in the same step)."""
        t = self.t
        s = t.logged.seats[decision.player]
        assert s is not None
        state = mark is not None
        if mark is None:
            mark = t.logged.seq
        if by == "player" and s.auto:
            self.log(AutoPlay(decision.player, False, "took_over"))
            state = True
        self.log(Decided(decision, by))
        if by == "default" and s.auto and s.auto_reason == "timeout":
            # A timeout hands the seat over for that one decision: the next is theirs.
            self.log(AutoPlay(decision.player, False, "returned"))
            state = True
        self.deal_after_round()
        new = t.logged.items[len(t.logged.items) - (t.logged.seq - mark):]
        if any(isinstance(item.payload, CardsRevealed) for item in new) and self.person_here():
            t.live.paced_until = self.now + t.limits.reveal_pace
        self.listen(mark)
        if who is not None:
            self.out.append(SendAck(who.conn, ref))
        self.tell(mark, state)

    def waits_for_deal(self) -> bool:
        """Whether the game under way has ended a round and waits for the next deal."""
        game = self.t.logged.game
        return (game is not None and self.t.logged.status == "playing"
                and game.phase is Phase.DEAL)

    def deal_after_round(self) -> None:
        """A round has just ended: the next is dealt after ``round_pause`` seconds while a
        person is at the table (the round's score sheet is seen meanwhile), else at once."""
        if not self.waits_for_deal():
            return
        pause = self.t.limits.round_pause if self.person_here() else 0.0
        if pause > 0:
            self.start(DealTimer(), pause)
        else:
            self.log(Dealt())

    def deal(self) -> None:
        """The pause after a round's end is over: the next round is dealt and told."""
        if not self.waits_for_deal():
            return
        mark = self.t.logged.seq
        self.log(Dealt())
        self.listen(mark)
        self.tell(mark)

    # -- bots and timers ------------------------------------------------------------------------

    def start(self, timer: Timer, seconds: float) -> None:
        if timer in self.t.live.timers:
            return
        deadline = self.now + seconds
        self.t.live.timers[timer] = deadline
        self.out.append(StartTimer(timer, seconds, deadline))

    def cancel(self, timer: Timer) -> None:
        if self.t.live.timers.pop(timer, None) is not None:
            self.out.append(CancelTimer(timer))

    def schedule(self) -> None:
        """Ask bots (and the default player for absent people); start turn timers."""
        t = self.t
        game = t.logged.game
        turns = [k for k in t.live.timers if isinstance(k, TurnTimer)]
        if game is None or t.logged.status != "playing":
            for k in turns:
                self.cancel(k)
            return
        present = set(t.live.watchers.values())
        for i, s in enumerate(t.logged.seats):
            # A person who went away before the game started is waited for only so long.
            if s is not None and s.in_person and i not in present:
                self.start(GraceTimer(i), t.limits.disconnect_grace)
        pend = game.pending
        if pend is None:
            return
        # The turn timers of decisions no longer pending go (``live``: those that are).
        live: set[Timer] | None = set() if turns else None
        for p in pend.players:
            s = t.logged.seats[p]
            if s is None:
                continue
            robot = s.kind == "bot" or s.auto
            if not robot and t.turn_timer is None and live is None:
                continue  # a person with no timer: nothing to run for them
            key = decision_key(t, p)
            if live is not None:
                live.add(TurnTimer(p, key))
            if robot:
                if (p, key) in t.live.asked:
                    continue
                if t.live.paced_until > self.now:
                    # After a reveal the bots wait, so a person hears it before more
                    # plays are told; the pace timer asks them.
                    self.start(PaceTimer(), t.live.paced_until - self.now)
                    continue
                t.live.asked.add((p, key))
                bot = s.bot.kind if s.bot is not None else DEFAULT
                self.out.append(AskBot(p, key, bot, game.view(p)))
            elif t.turn_timer is not None:
                # The clock is fair to a listener: the time to hear what led here comes on top.
                heard = min(t.limits.listen_max, max(0.0, t.live.heard_at - self.now))
                self.start(TurnTimer(p, key), t.turn_timer + heard)
        for k in turns:
            if live is not None and k not in live:
                self.cancel(k)

    def listen(self, mark: int) -> None:
        """What was logged after ``mark``, as a listener hears it: its narration (in the
        source language; the others are about as long) is said after what they are still
        hearing, at ``listen_cps`` characters a second. Only tables with a turn timer keep
        count."""
        t = self.t
        cps = t.limits.listen_cps
        if t.turn_timer is None or cps <= 0 or t.logged.game is None:
            return
        fresh = t.logged.items[max(0, len(t.logged.items) - (t.logged.seq - mark)):]
        # Another seat's face-down choice is not told one by one (the web client says once
        # that all others have chosen).
        events = [i.payload for i in fresh if isinstance(i.payload, Event)
                  and not (isinstance(i.payload, CardChosen) and not i.payload.face_up)]
        if not events:
            return
        text = narrator(SOURCE_LANGUAGE).announce(events, t.logged.names(SOURCE_LANGUAGE))
        t.live.heard_at = max(t.live.heard_at, self.now) + len(text) / cps

    def person_here(self) -> bool:
        """Whether a seated person (not one the default player replaced for good) is
        connected: only then do the bots keep a pace."""
        t = self.t
        return any(v is not None and (s := t.logged.seats[v]) is not None and s.person
                   for v in t.live.watchers.values())

    def check_idle(self) -> None:
        """With no seated person connected, the table closes after ``idle_close`` seconds
        (``open_idle_close`` before its first game), once any game on it is over, so
        forgotten tables do not pile up."""
        t = self.t
        if any(v is not None for v in t.live.watchers.values()):
            self.cancel(IdleTimer())
            return
        if t.logged.status != "closed":
            # An unstarted table nobody sits at is cheap to open: it goes within minutes.
            self.start(IdleTimer(), t.limits.open_idle_close if t.logged.status == "open"
                       else t.limits.idle_close)

    def tell(self, mark: int, state: bool = True) -> None:
        """Everyone at the table hears what was logged after ``mark`` (``state``: with a
        fresh table_state), once the bots are asked and the timers started, so the
        prompts sent carry the timer."""
        self.schedule()
        self.out.append(Broadcast(mark, state, self.t.live.audience()))

    def close(self) -> None:
        """The table closes: everyone at it is told, and nobody is at it any more."""
        t = self.t
        mark = t.logged.seq
        self.log(Closed())
        self.out.append(Broadcast(mark, True, t.live.audience()))
        t.live.watchers.clear()


def _result(t: TableData, *, finished: bool) -> GameResult:
    """The current game as ``games`` keeps it."""
    game = t.logged.game
    assert game is not None
    names = tuple(s.name if s is not None else f"Seat {i + 1}"
                  for i, s in enumerate(t.logged.seats))
    return GameResult(
        game_no=t.logged.game_no,
        finished=finished,
        rated=t.rated and finished,
        record=records.to_json(records.record_from_game(game, list(names))),
        players=tuple(s.player_id if s is not None and s.kind == "human" else None
                      for s in t.logged.seats),
        names=names,
        totals=tuple(game.scores),
        winners=frozenset(game.winners),
    )
