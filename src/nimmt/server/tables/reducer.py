"""The rules of a table, as a pure reducer: ``reduce(table, command, now) → (table, effects)``.

Everything a table decides is decided here: who may sit, act, chat, kick or
start, which decision is whose, when the default player takes a seat over,
which timers run and which bots are asked, what every seat may see. Nothing
here does I/O, reads a clock or draws a random number: the time is the
``now`` the actor passes in, a new game's shuffle comes from the seed its
command carries, and what must happen in the world comes back as
:mod:`effects <.commands>` for the actor (:mod:`.table`) to run in order.
So the table's rules are tested without a server, a database or asyncio
(tests/server/test_server_reducer.py).

The table is event-sourced: a command that changes the table does it through
log entries (:mod:`.tablelog`) applied by :func:`.apply.apply`, which is also
what a replay folds over a stored log after a restart. A refused command raises
before it changes anything and comes back as one :class:`~.commands.Refuse`.
The table's state is :mod:`.state`'s :class:`~.state.TableData`, changed in
place; ``reduce`` returns it with the effects. What every command's reduction
shares (the checks, a change told, a decision applied, timers and bots) is
:class:`~.step.Step`; what the table says of itself (its facts, the prompts) is
:mod:`.facts`.

Hidden information: a view comes from :meth:`nimmt.Game.view` for its seat,
and events are filtered by :func:`nimmt.events.for_viewer` (in :mod:`.fanout`)
before anything is serialized.
"""

from __future__ import annotations

import random
from typing import assert_never

from ... import wire as P
from ...decisions import Decision, DecisionKind
from ..base.text import chat_line, name_key
from .commands import (
    Advise,
    Attach,
    BotAnswered,
    Broadcast,
    CloseTable,
    Command,
    Create,
    DealTimer,
    Detach,
    Effect,
    GraceTimer,
    Halt,
    IdleTimer,
    Message,
    PaceTimer,
    Refuse,
    Resume,
    SendAck,
    SendHistory,
    SendMissed,
    SendPresence,
    SendState,
    Shut,
    TimerFired,
    TurnTimer,
    WakeBots,
    Who,
)
from .facts import decision_key
from .state import TableData
from .step import Step
from .tablelog import (
    AutoPlay,
    AutoReason,
    BotSeat,
    BotSeated,
    Chatted,
    Closed,
    HintsSet,
    HostPassed,
    Sat,
    Started,
    Unseated,
)

__all__ = ["reduce"]


def reduce(t: TableData, command: Command, now: float) -> tuple[TableData, list[Effect]]:
    """Apply ``command`` at time ``now``: the table, changed in place, and the effects to
    run in order. A refused command changes nothing and gives one :class:`Refuse`."""
    step = _Reduce(t, now)
    try:
        step.run(command)
    except P.ProtocolError as exc:
        who = getattr(command, "who", None)
        if who is None:
            raise
        return t, [Refuse(who.conn, exc.code, exc.message, getattr(command, "ref", None))]
    return t, step.effects()


class _Reduce(Step):
    """One command being reduced by the table's rules (see the module)."""

    # -- dispatch ------------------------------------------------------------------------

    def run(self, command: Command) -> None:
        t = self.t
        if t.logged.status == "closed" and isinstance(command, Message | Attach):
            raise P.ProtocolError("closed", f"table {t.code} is closed")
        # The commands of a game under way first: ``match`` tries the cases in order.
        match command:
            case Message():
                self.message(command)
            case BotAnswered(seat, key, decision, timed_out):
                self.bot_answered(seat, key, decision, timed_out)
            case Create(who, ref, hints):
                self.log(Sat(0, who.player_id, who.name))
                if not hints:
                    self.log(HintsSet(False))
                t.live.watchers[who.conn] = 0
                self.out.append(SendState(who.conn, 0, ref))
            case Attach(who, ref, spectate, last_seq):
                self.attach(who, ref, spectate, last_seq)
            case Detach(conn):
                self.detach(conn)
            case Resume():
                if t.logged.status == "playing":
                    for i, s in enumerate(t.logged.seats):
                        if s is not None and s.in_person:
                            self.start(GraceTimer(i), t.limits.disconnect_grace)
                self.check_idle()
                self.schedule()
                if self.waits_for_deal():  # stopped during the pause after a round
                    self.start(DealTimer(), t.limits.round_pause)
            case Halt(who, ref):
                self.halt(who, ref)
            case Shut():
                self.shut()
            case TimerFired(timer, deadline):
                if t.live.timers.get(timer) != deadline:
                    return  # cancelled, or started again since
                del t.live.timers[timer]
                match timer:
                    case TurnTimer(seat, key):
                        self.timed_out(seat, key)
                    case GraceTimer(seat):
                        self.grace_over(seat)
                    case IdleTimer():
                        self.idle_over()
                    case PaceTimer():
                        self.schedule()
                    case DealTimer():
                        self.deal()

    def message(self, command: Message) -> None:
        """A person's table message, read as the protocol parsed it (the messages of a game
        under way first)."""
        t = self.t
        who, ref = command.who, command.ref
        match command.msg:
            case P.PlayCard() | P.TakeRow() | P.DraftCard() as msg:
                seat = self.seated(who)
                decision = P.decision(msg, seat)
                self.check_decision(decision)
                if decision.kind is DecisionKind.CARD:
                    self.count_change(seat)
                self.decide(decision, "player", who, ref)
            case P.AskHint():
                self.hint(who, ref)
            case P.AskHistory(before_seq=before, after_seq=after, limit=limit):
                viewer = self.viewer(who)
                self.out.append(SendHistory(who.conn, viewer, ref, before, after, limit))
            case P.TakeOver():
                seat = self.seated(who)
                s = t.logged.seats[seat]
                assert s is not None
                if s.auto:
                    self.change(AutoPlay(seat, False, "took_over"), who, ref)
                else:
                    self.out.append(SendAck(who.conn, ref))
            case P.Chat(text=text):
                self.say(who, ref, text)
            case P.Sit(seat=seat):
                self.sit(who, ref, seat)
            case P.AddBot(strength=bot, seat=seat):
                self.add_bot(who, ref, bot, seat, command.refusal, command.quota)
            case P.RemoveBot(seat=seat):
                self.host(who)
                self.before_start()
                if self.occupant(seat).kind != "bot":
                    raise P.ProtocolError("no_seat", f"seat {seat + 1} holds no bot")
                self.change(Unseated(seat, "removed"), who, ref)
            case P.Start():
                self.host(who)
                self.before_start()
                empty = [i + 1 for i, s in enumerate(t.logged.seats) if s is None]
                if empty:
                    raise P.ProtocolError("seats_empty", f"seat {empty[0]} is empty: add a bot "
                                          "or wait for a player")
                self.change(Started(1), who, ref, _shuffle(command))
            case P.Rematch():
                self.host(who)
                if t.logged.status != "over":
                    raise P.ProtocolError("not_over", "a rematch starts when the game is over")
                if t.logged.game_no >= t.limits.games_per_table:
                    raise P.ProtocolError(
                        "quota", f"a table plays at most {t.limits.games_per_table} games; "
                        "open a new one")
                if command.quota is not None:
                    raise P.ProtocolError("quota", command.quota)
                self.change(Started(t.logged.game_no + 1), who, ref, _shuffle(command))
            case P.SetHints(hints=on):
                self.host(who)
                if on and t.rated:
                    raise P.ProtocolError("hints_off", "a rated table gives no hints")
                if on == t.logged.hints:
                    self.out.append(SendAck(who.conn, ref))
                else:
                    self.change(HintsSet(on), who, ref)
            case P.Kick(seat=seat):
                self.kick(who, ref, seat)
            case P.Leave():
                self.leave(who, ref)
            case _:
                assert_never(command.msg)

    def hint(self, who: Who, ref: P.Ref) -> None:
        """A hint on the asker's own pending decision, made from their seat's view only:
        the actor has it computed in a worker and answers that connection alone."""
        t = self.t
        seat = self.seated(who)
        if t.rated:
            raise P.ProtocolError("hints_off", "a rated game gives no hints")
        if not t.logged.hints:
            raise P.ProtocolError("hints_off", "the host turned hints off at this table")
        game = self.game_on()
        pend = game.pending
        if pend is None or seat not in pend.players or not game.legal(seat):
            raise P.ProtocolError("not_your_turn", "nothing is asked of you now; a hint is "
                                  "for your own pending decision")
        self.out.append(Advise(who.conn, ref, seat, decision_key(t, seat), game.view(seat)))

    def say(self, who: Who, ref: P.Ref, raw: str) -> None:
        t = self.t
        viewer = self.viewer(who)
        text = chat_line(raw, t.limits.chat_max)
        if t.logged.chats >= t.limits.chat_per_game:
            raise P.ProtocolError(
                "quota", f"this table has had {t.limits.chat_per_game} chat messages "
                "this game, as many as it keeps")
        mark = t.logged.seq
        self.log(Chatted(viewer, who.name, text))
        self.out.append(SendAck(who.conn, ref))
        self.out.append(Broadcast(mark, False, t.live.audience()))

    def sit(self, who: Who, ref: P.Ref, seat: int | None) -> None:
        t = self.t
        viewer = self.viewer(who)
        if viewer is not None or t.logged.seat_of(who.player_id) is not None:
            raise P.ProtocolError("seat_taken", "you already have a seat at this table")
        if who.player_id in t.logged.kicked:
            raise P.ProtocolError("kicked", "the host removed you from this table")
        self.before_start()
        seat = self.free_seat(seat)
        # Alike is the same here too (server/text.py): "Аna" may not sit beside "Ana".
        key = name_key(who.name)
        if any(s is not None and name_key(s.name) == key for s in t.logged.seats):
            raise P.ProtocolError("name_taken", f"the name {who.name!r} is used at this table")
        mark = t.logged.seq
        self.log(Sat(seat, who.player_id, who.name))
        t.live.watchers[who.conn] = seat
        self.out.append(SendAck(who.conn, ref))
        self.out.append(Broadcast(mark, True, t.live.audience()))

    def add_bot(self, who: Who, ref: P.Ref, bot: str, seat: int | None,
                refusal: str | None, quota: str | None = None) -> None:
        t = self.t
        self.host(who)
        self.before_start()
        if refusal is not None:  # only names this server offers: nothing is imported
            raise P.ProtocolError("bad_bot", refusal)
        if quota is not None:
            raise P.ProtocolError("quota", quota)
        seat = self.free_seat(seat)
        names = {name_key(s.name) for s in t.logged.seats if s is not None}
        k = 1
        while name_key(BotSeat(bot, k).name) in names:
            k += 1
        self.change(BotSeated(seat, BotSeat(bot, k)), who, ref)

    def kick(self, who: Who, ref: P.Ref, seat: int) -> None:
        t = self.t
        self.host(who)
        s = self.occupant(seat)
        if s.kind != "human":
            raise P.ProtocolError("no_seat", f"seat {seat + 1} holds a bot: use remove_bot")
        if s.player_id == t.logged.host_id:
            raise P.ProtocolError("no_seat", "the host cannot remove themselves; leave instead")
        victims = [c for c, v in t.live.watchers.items() if v == seat]
        if t.logged.status == "open":
            self.change(Unseated(seat, "kicked"), who, ref)
        else:
            self.change(AutoPlay(seat, True, "kicked"), who, ref)
        for conn in victims:
            del t.live.watchers[conn]
            self.out.append(Refuse(conn, "kicked", "the host removed you from this table"))
        self.check_idle()

    def leave(self, who: Who, ref: P.Ref) -> None:
        t = self.t
        self.viewer(who)
        mark = t.logged.seq
        seat = t.logged.seat_of(who.player_id)
        if seat is not None and t.logged.status == "open":
            self.log(Unseated(seat, "left"))
        elif seat is not None:
            s = t.logged.seats[seat]
            assert s is not None
            if not s.left:
                self.log(AutoPlay(seat, True, "left"))
        if seat is not None and who.player_id == t.logged.host_id:
            for s in t.logged.seats:
                if s is not None and s.person and s.player_id is not None:
                    self.log(HostPassed(s.player_id, s.name))
                    break
        for conn in [c for c, v in t.live.watchers.items()
                     if c == who.conn or (seat is not None and v == seat)]:
            del t.live.watchers[conn]
        self.out.append(SendAck(who.conn, ref))
        if (not any(s is not None and s.person for s in t.logged.seats)
                and t.logged.status != "closed"):
            self.log(Closed())
        self.tell(mark)
        self.check_idle()

    def halt(self, who: Who | None, ref: P.Ref) -> None:
        t = self.t
        if self.status == "closed":  # closed by the very command that failed to be stored
            self.out.append(CloseTable())
        t.logged.status = "closed"
        for conn in t.live.watchers:
            self.out.append(Refuse(conn, "internal", "the server could not store that; the "
                                   "table stops until the server restarts"))
        if who is not None and who.conn not in t.live.watchers:
            self.out.append(Refuse(who.conn, "internal", "the server could not store that", ref))
        t.live.watchers.clear()

    # -- connections --------------------------------------------------------------------------

    def attach(self, who: Who, ref: P.Ref, spectate: bool, last_seq: int | None) -> None:
        t = self.t
        viewer = None if spectate else t.logged.seat_of(who.player_id)
        if viewer is not None:
            s = t.logged.seats[viewer]
            assert s is not None
            if s.left and who.player_id in t.logged.kicked:
                viewer = None
        t.live.watchers[who.conn] = viewer
        if viewer is not None:
            self.cancel(GraceTimer(viewer))
        self.out.append(SendState(who.conn, viewer, ref))
        if last_seq is not None:
            # A reconnect needs nothing older than the current game: its snapshot has it.
            # What it gets is bounded (the newest items); ``history`` pages back the rest.
            self.out.append(SendMissed(who.conn, viewer, max(last_seq, t.logged.game_seq - 1)))
        if viewer is not None:
            self.out.append(SendPresence(t.live.audience(skip=who.conn)))
            self.out.append(WakeBots())  # a person is back: this table's bots come first
        self.check_idle()

    def detach(self, conn: int) -> None:
        t = self.t
        if conn not in t.live.watchers:
            return
        viewer = t.live.watchers.pop(conn)
        if viewer is None:
            return
        if viewer not in t.live.watchers.values():
            s = t.logged.seats[viewer]
            if t.logged.status == "playing" and s is not None and s.in_person:
                self.start(GraceTimer(viewer), t.limits.disconnect_grace)
            self.out.append(SendPresence(t.live.audience()))
        self.check_idle()

    def bot_answered(self, seat: int, key: str, decision: Decision, timed_out: bool) -> None:
        t = self.t
        t.live.asked.discard((seat, key))
        game = t.logged.game
        if game is None or t.logged.status != "playing":
            return
        pend = game.pending
        s = t.logged.seats[seat]
        if (pend is None or seat not in pend.players or s is None
                or not (s.kind == "bot" or s.auto) or decision_key(t, seat) != key
                or decision.player != seat or decision.kind is not pend.kind
                or decision.value not in game.legal(seat)):
            self.schedule()  # stale: whoever plays the seat now is asked
            return
        if timed_out and s.kind == "bot" and not s.auto:
            # The bot ran past its deadline: the log says so as it says it of a person whose
            # turn timer ran out (the default player makes this one decision, and the
            # replay tells it), and the seat is the bot's again at once.
            mark = t.logged.seq
            self.log(AutoPlay(seat, True, "timeout"))
            self.decide(decision, "default", None, None, mark)
            return
        self.decide(decision, "bot" if s.kind == "bot" else "default", None, None)

    def timed_out(self, seat: int, key: str) -> None:
        t = self.t
        game = t.logged.game
        if game is None or t.logged.status != "playing":
            return
        pend = game.pending
        s = t.logged.seats[seat]
        if (pend is None or seat not in pend.players or s is None or s.auto
                or decision_key(t, seat) != key):
            return
        self.auto(seat, "timeout")

    def grace_over(self, seat: int) -> None:
        t = self.t
        s = t.logged.seats[seat]
        if t.logged.status != "playing" or s is None or not s.in_person:
            return
        if seat in t.live.watchers.values():
            return
        self.auto(seat, "disconnected")

    def auto(self, seat: int, reason: AutoReason) -> None:
        """The default player takes ``seat`` over, and everyone is told."""
        mark = self.t.logged.seq
        self.log(AutoPlay(seat, True, reason))
        self.tell(mark)

    def shut(self) -> None:
        """The operator closes the table, game or not."""
        if self.t.logged.status != "closed":
            self.close()

    def idle_over(self) -> None:
        t = self.t
        if t.logged.status == "closed" or any(v is not None for v in t.live.watchers.values()):
            return
        if t.logged.status == "playing":
            self.check_idle()  # the default player finishes the game first
            return
        self.close()



def _shuffle(command: Message) -> random.Random:
    """The shuffles of the game ``command`` starts, from the seed the actor chose for it:
    the reducer draws no random number of its own."""
    if command.seed is None:
        raise ValueError(f"{command.msg.type} starts a game: its command needs a seed")
    return random.Random(command.seed)
