"""The table's rules, without a server, a database or asyncio (server/reducer.py).

A :class:`Harness` plays the actor: it feeds commands to the reducer with a
clock of its own, keeps what :class:`~nimmt.server.tables.commands.Persist` stores
(through the stored JSON form, as the database would), renders every frame
through the real fan-out to fake connections, and answers the bots a table
asks with the default player. The plain tests walk through the rules one by
one; :class:`TableMachine` lets hypothesis drive random sequences of people
sitting, bots, starts, decisions legal and illegal, chat, leaving, kicks,
timeouts and rematches, and checks after each step that a refused command
changed nothing, that the store hears of every change first, that no frame
tells a seat a card it may not know, and at the end that the stored entries,
replayed from scratch, give the same table and the same stream.
"""

from __future__ import annotations

import copy
import json
import random
from dataclasses import dataclass, field, fields, replace
from typing import Any

import pytest
from hypothesis import event, settings
from hypothesis import strategies as st
from hypothesis.stateful import (
    RuleBasedStateMachine,
    initialize,
    invariant,
    precondition,
    rule,
)

from nimmt import Rules
from nimmt import wire as P
from nimmt.decisions import DecisionKind, DraftCard, PlayCard, TakeRow, make_decision
from nimmt.events import CardChosen, CardsRevealed, Event
from nimmt.narrate import narrator
from nimmt.server.tables.apply import replay, trim
from nimmt.server.tables.commands import (
    Advise,
    AskBot,
    Attach,
    BotAnswered,
    Broadcast,
    CancelTimer,
    CloseTable,
    Command,
    Create,
    DealTimer,
    Detach,
    Effect,
    GraceTimer,
    IdleTimer,
    Message,
    PaceTimer,
    Persist,
    Refuse,
    Resume,
    SendAck,
    SendMissed,
    SendPresence,
    SendState,
    Shut,
    StartTimer,
    TimerFired,
    TurnTimer,
    WakeBots,
    Who,
)
from nimmt.server.tables.fanout import Fanout
from nimmt.server.tables.reducer import reduce
from nimmt.server.tables.state import Limits, Live, TableData
from nimmt.server.tables.tablelog import (
    BotSeat,
    BotSeated,
    Decided,
    Entry,
    entry_from_row,
    entry_to_row,
)
from nimmt.server.workers.autoplay import default_decision
from nimmt.views import Phase
from nimmt.wire import Sheet
from profiles import examples

NAMES = {1: "Ana", 2: "Bob", 3: "Cleo", 4: "Dan"}
SHORT = Rules.parse("classic", players=3, end="rounds", rounds=1)


@dataclass
class FakePeer:
    """A connection that keeps its frames, as the seat the table sent them for."""

    id: int
    player_id: int
    name: str
    lang: str = "en"
    seq: int = 0
    viewer: int | None = None
    frames: list[tuple[int | None, dict[str, Any]]] = field(default_factory=list)
    sheet: Sheet | None = None

    def send(self, text: str) -> None:
        self.frames.append((self.viewer, json.loads(text)))


class Harness:
    """The actor's part, done synchronously: the store is a list, the clock a number."""

    def __init__(self, rules: Rules = SHORT, limits: Limits | None = None, *,
                 turn_timer: float | None = None) -> None:
        self.table = TableData(7, "ABCDEF", "test", 1, rules, turn_timer, True, False,
                               limits or Limits())
        self.peers: dict[int, FakePeer] = {}
        self.fanout = Fanout(self.table, self.peers)
        #: The stored log, as the database holds it: (n, kind, JSON text).
        self.store: list[tuple[int, str, str]] = []
        self.results: list[Any] = []
        self.statuses: list[str] = []
        self.asks: dict[tuple[int, str], AskBot] = {}
        self.now = 1000.0
        self.effects: list[Effect] = []
        self._conns = iter(range(1, 10_000))

    # -- connections --------------------------------------------------------------------------

    def connect(self, player_id: int) -> Who:
        who = Who(next(self._conns), player_id, NAMES[player_id])
        self.peers[who.conn] = FakePeer(who.conn, player_id, who.name)
        return who

    # -- running ------------------------------------------------------------------------------

    def run(self, command: Command) -> list[Effect]:
        _, effects = reduce(self.table, command, self.now)
        self.effects = effects
        for k, effect in enumerate(effects):
            if isinstance(effect, SendState | SendPresence | SendMissed):
                self.fanout.flush(self.now)  # as the table does: what is held goes first
            self.effect(effect, first=k == 0)
        self.fanout.flush(self.now)  # the table's queue is empty: the broadcasts held go
        return effects

    def effect(self, effect: Effect, *, first: bool) -> None:
        match effect:
            case Persist(first_n, entries, status, results):
                assert first, "the store hears of a change before anyone else"
                assert first_n == len(self.store) + 1
                for i, entry in enumerate(entries):
                    kind, data = entry_to_row(entry)
                    self.store.append((first_n + i, kind, json.dumps(data)))
                if status is not None:
                    self.statuses.append(status)
                self.results.extend(results)
            case SendAck(conn, ref):
                self.fanout.ack(conn, ref)
            case Refuse(conn, code, message, ref):
                self.fanout.refuse(conn, code, message, ref)
            case SendState(conn, viewer, ref):
                self._as(((conn, viewer),))
                self.fanout.send_state(conn, viewer, ref, self.now)
            case SendMissed(conn, viewer, after):
                self._as(((conn, viewer),))
                self.fanout.catch_up(conn, viewer, after, self.now, 300, 1 << 17)
            case Broadcast(after, state, audience):
                self._as(audience)
                self.fanout.broadcast(after, state, audience, self.now)
            case SendPresence(audience):
                self._as(audience)
                self.fanout.presence(audience, self.now)
            case AskBot(seat, key):
                self.asks[(seat, key)] = effect
            case StartTimer() | CancelTimer() | WakeBots() | CloseTable():
                pass

    def _as(self, audience: tuple[tuple[int, int | None], ...]) -> None:
        for conn, viewer in audience:
            peer = self.peers.get(conn)
            if peer is not None:
                peer.viewer = viewer

    # -- helpers -------------------------------------------------------------------------------

    def stored(self) -> list[tuple[int, Entry]]:
        return [(n, entry_from_row(kind, json.loads(data))) for n, kind, data in self.store]

    def answer_bots(self) -> int:
        """Answer every question asked of a bot with the default player's decision."""
        made = 0
        for (seat, key), ask in list(self.asks.items()):
            del self.asks[(seat, key)]
            self.run(BotAnswered(seat, key, default_decision(ask.view)))
            made += 1
        return made

    def play_human(self, who: Who) -> bool:
        """The first legal option for ``who``'s seat, if it is asked something."""
        t = self.table
        seat = t.live.watchers.get(who.conn)
        game = t.logged.game
        if seat is None or game is None or game.pending is None:
            return False
        if seat not in game.pending.players or not game.legal(seat):
            return False
        value = game.legal(seat)[0]
        self.run(Message(who, _message(game.pending.kind, value)))
        return True


def _message(kind: DecisionKind, value: int, ref: P.Ref = None) -> P.DecisionMessage:
    if kind is DecisionKind.CARD:
        return P.PlayCard(type="play_card", card=value, ref=ref)
    if kind is DecisionKind.ROW:
        return P.TakeRow(type="take_row", row=value, ref=ref)
    return P.DraftCard(type="draft_card", card=value, ref=ref)


def _copied(part: Any) -> Any:
    """``part`` (a table's logged or live state) as it is now: its containers copied, the
    seats whole (a seat changes in place)."""
    return replace(part, **{f.name: copy.deepcopy(v) if f.name == "seats" else copy.copy(v)
                            for f in fields(part) if (v := getattr(part, f.name)) is not None
                            and f.name != "game"})


def snapshot(t: TableData) -> dict[str, Any]:
    """Everything a command could change, to see that a refused one changed nothing."""
    game = t.logged.game
    return {
        "logged": _copied(t.logged), "live": _copied(t.live),
        "events": None if game is None else len(game.events),
        "pending": None if game is None else game.pending,
    }


def rebuilt(t: TableData) -> dict[str, Any]:
    """What the log must rebuild: the logged state, its game as every seat sees it."""
    game = t.logged.game
    views = None if game is None else [game.view(v) for v in (None, *range(len(t.logged.seats)))]
    return {"logged": t.logged, "views": views, "events": None if game is None else game.events}


def replayed(h: Harness) -> TableData:
    fresh = h.table.blank()
    replay(fresh.logged, fresh.rules, h.stored(), random.Random(0))
    return fresh


def seated_table(h: Harness, bots: int = 1) -> tuple[Who, Who]:
    """Ana hosts, Bob sits, bots fill the rest."""
    ana, bob = h.connect(1), h.connect(2)
    h.run(Create(ana, None))
    h.run(Attach(bob, None, False, None))
    h.run(Message(bob, P.Sit(type="sit")))
    for _ in range(bots):
        h.run(Message(ana, P.AddBot(type="add_bot", strength="easy")))
    return ana, bob


def play_out(h: Harness, people: list[Who]) -> None:
    for _ in range(1000):
        if h.table.logged.status != "playing":
            return
        moved = h.answer_bots()
        for who in people:
            moved += h.play_human(who)
        assert moved, "the game is stuck"
    raise AssertionError("the game did not end")


# -- plain tests -------------------------------------------------------------------------------


def test_a_game_from_the_first_seat_to_its_record() -> None:
    h = Harness()
    ana, bob = seated_table(h)
    assert h.table.logged.seats[2] is not None and h.table.logged.seats[2].name == "Easy Bot 1"
    effects = h.run(Message(ana, P.Start(type="start", ref="go"), seed=42))
    assert isinstance(effects[0], Persist) and effects[0].status == "playing"
    assert SendAck(ana.conn, "go") in effects
    assert any(isinstance(e, AskBot) and e.seat == 2 for e in effects)
    play_out(h, [ana, bob])
    assert h.table.logged.status == "over" and h.statuses == ["playing", "over"]
    (result,) = h.results
    assert result.finished and result.rated and result.players == (1, 2, None)
    assert result.totals == tuple(h.table.logged.game.scores)  # type: ignore[union-attr]
    assert rebuilt(replayed(h)) == rebuilt(h.table)


def test_the_log_rebuilds_the_logged_state_and_nothing_live() -> None:
    """A table played through a game, a timeout and a chat, rebuilt from its stored
    entries: an equal logged state, and a live state as fresh as a restart makes it."""
    h = Harness(turn_timer=30.0)
    ana, bob = seated_table(h)
    h.run(Message(bob, P.Chat(type="chat", text="good luck")))
    h.run(Message(ana, P.Start(type="start"), seed=3))
    h.run(TimerFired(TurnTimer(1, "1.1.1.card"), h.table.live.timers[TurnTimer(1, "1.1.1.card")]))
    play_out(h, [ana, bob])
    assert h.table.live.watchers and h.table.live.changes  # the live state was used
    again = replayed(h)
    assert again.logged == h.table.logged
    assert again.logged.game is not None and h.table.logged.game is not None
    assert again.logged.game.events == h.table.logged.game.events
    assert again.live == Live()


def test_every_decision_is_stored_typed() -> None:
    h = Harness()
    ana, _bob = seated_table(h)
    h.run(Message(ana, P.Start(type="start"), seed=1))
    h.play_human(ana)
    _n, kind, data = h.store[-1]
    assert kind == "decision"
    stored = json.loads(data)
    assert stored["by"] == "player" and stored["decision"]["type"] == "play_card"
    assert stored["decision"]["player"] == 0
    assert isinstance(h.stored()[-1][1], Decided)


def test_a_log_of_the_previous_version_replays() -> None:
    """Tables stored before decisions were typed (``{"seat", "kind", "value", "by"}``) resume
    after an upgrade, with the same stream and the same game."""
    h = Harness(Rules.parse("classic+professional", players=3, end="rounds", rounds=2))
    ana, bob = seated_table(h)
    h.run(Message(ana, P.Start(type="start"), seed=5))
    for _ in range(12):
        h.answer_bots()
        h.play_human(ana)
        h.play_human(bob)
    old: list[tuple[int, Entry]] = []
    kinds = set()
    for n, kind, text in h.store:
        data = json.loads(text)
        if kind == "decision":
            d = data.pop("decision")
            value = d.get("card", d.get("row"))
            data |= {"seat": d["player"], "value": value,
                     "kind": {"play_card": "card", "take_row": "row", "draft_card": "draft"}[
                         d["type"]]}
            kinds.add(data["kind"])
        old.append((n, entry_from_row(kind, json.loads(json.dumps(data)))))
    assert "card" in kinds
    fresh = h.table.blank()
    replay(fresh.logged, fresh.rules, old, random.Random(0))
    assert rebuilt(fresh) == rebuilt(h.table)
    # The rebuilt table plays on.
    play_out(h, [ana, bob])


def test_bots_stored_by_their_name_alone_replay_as_typed_bots() -> None:
    """A log written before a bot was a typed value holds its English name only; it is
    read once into the same bot (kind and number), and the table rebuilds the same."""
    h = Harness(Rules.parse("classic", players=4, end="rounds", rounds=1))
    ana, bob = seated_table(h, bots=2)
    h.run(Message(ana, P.Start(type="start"), seed=8))
    play_out(h, [ana, bob])
    old: list[tuple[int, Entry]] = []
    for n, kind, text in h.store:
        data = json.loads(text)
        if kind == "bot":
            assert data.pop("number") in (1, 2)
        old.append((n, entry_from_row(kind, data)))
    assert [e.bot for _, e in old if isinstance(e, BotSeated)] == [
        BotSeat("easy", 1), BotSeat("easy", 2)]
    fresh = h.table.blank()
    replay(fresh.logged, fresh.rules, old, random.Random(0))
    assert rebuilt(fresh) == rebuilt(h.table)
    # Names of an earlier version still end in the bot's number.
    assert entry_from_row("bot", {"seat": 1, "bot": "medium", "name": "medium bot 3"}) == (
        BotSeated(1, BotSeat("medium", 3)))
    with pytest.raises(ValueError, match="no number"):
        entry_from_row("bot", {"seat": 1, "bot": "medium", "name": "Medium"})


def test_a_bots_notices_name_it_in_each_readers_language() -> None:
    """A bot's name is said from what it is, not looked up by its English name: a bot
    removed before the game is named in Serbian too, though it sits nowhere any more."""
    h = Harness()
    ana, bob = seated_table(h)
    h.peers[bob.conn].lang = "sr"
    h.run(Message(ana, P.RemoveBot(type="remove_bot", seat=2)))
    notices = [it for _, f in h.peers[bob.conn].frames if f["type"] == "events"
               for it in f["items"] if it["kind"] == "notice"]
    assert [(n["notice"], n["name"]) for n in notices[-1:]] == [("removed", "Bot Laki 1")]
    english = [it for _, f in h.peers[ana.conn].frames if f["type"] == "events"
               for it in f["items"] if it["kind"] == "notice"]
    assert english[-1]["name"] == "Easy Bot 1"
    assert h.table.logged.seats[2] is None


def test_refusals_change_nothing() -> None:
    h = Harness(limits=Limits(card_changes=1, chat_per_game=1, games_per_table=1))
    ana, bob = seated_table(h)
    cleo = h.connect(3)
    h.run(Attach(cleo, None, True, None))

    def refused(command: Command, code: str) -> None:
        before = snapshot(h.table)
        effects = h.run(command)
        assert len(effects) == 1 and isinstance(effects[0], Refuse), effects
        assert effects[0].code == code, effects[0]
        assert snapshot(h.table) == before

    refused(Message(ana, P.PlayCard(type="play_card", card=5)), "not_started")
    refused(Message(bob, P.Start(type="start"), seed=1), "not_host")
    refused(Message(ana, P.AddBot(type="add_bot", strength="godlike"),
                    refusal="unknown bot 'godlike'"), "bad_bot")
    refused(Message(ana, P.AddBot(type="add_bot", strength="easy")), "table_full")
    refused(Message(cleo, P.Sit(type="sit", seat=0)), "seat_taken")
    refused(Message(ana, P.RemoveBot(type="remove_bot", seat=1)), "no_seat")
    refused(Message(ana, P.Kick(type="kick", seat=0)), "no_seat")
    refused(Message(ana, P.Rematch(type="rematch"), seed=1), "not_over")
    refused(Message(cleo, P.Chat(type="chat", text=" \u202e ")), "chat_empty")
    refused(Message(cleo, P.Chat(type="chat", text="x" * 301)), "chat_too_long")
    h.run(Message(cleo, P.Chat(type="chat", text="hello")))
    refused(Message(ana, P.Chat(type="chat", text="again")), "quota")
    stranger = h.connect(4)
    refused(Message(stranger, P.Sit(type="sit")), "not_at_table")
    h.run(Message(ana, P.Start(type="start"), seed=3))
    refused(Message(ana, P.AddBot(type="add_bot", strength="easy")), "already_started")
    refused(Message(cleo, P.TakeOver(type="take_over")), "spectator")
    game = h.table.logged.game
    assert game is not None
    hand = game.view(0).hand
    mine = game.view(1).hand
    refused(Message(ana, P.PlayCard(type="play_card", card=mine[0])), "card_not_in_hand")
    refused(Message(ana, P.TakeRow(type="take_row", row=1)), "not_your_turn")
    h.run(Message(ana, P.PlayCard(type="play_card", card=hand[0])))
    h.run(Message(ana, P.PlayCard(type="play_card", card=hand[1])))  # one change
    refused(Message(ana, P.PlayCard(type="play_card", card=hand[2])), "too_many_changes")
    play_out(h, [ana, bob])
    refused(Message(ana, P.PlayCard(type="play_card", card=hand[0])), "game_over")
    refused(Message(ana, P.Rematch(type="rematch"), seed=1), "quota")
    h.run(Message(ana, P.Leave(type="leave")))
    h.run(Message(bob, P.Leave(type="leave")))
    assert h.table.logged.status == "closed"
    refused(Message(cleo, P.Chat(type="chat", text="anyone?")), "closed")
    refused(Attach(h.connect(2), None, False, None), "closed")


def test_a_bot_answer_that_is_stale_or_wrong_is_asked_again() -> None:
    h = Harness()
    ana, _bob = seated_table(h)
    h.run(Message(ana, P.Start(type="start"), seed=9))
    (key, ask), = ((k, a) for k, a in h.asks.items() if k[0] == 2)
    h.asks.clear()
    wrong = PlayCard(2, 200)
    before = h.table.logged.decisions
    effects = h.run(BotAnswered(2, key[1], wrong))
    assert h.table.logged.decisions == before
    assert [e for e in effects if isinstance(e, AskBot)] == [ask]  # asked again
    effects = h.run(BotAnswered(2, "0.0.0.card", default_decision(ask.view)))
    assert h.table.logged.decisions == before
    effects = h.run(BotAnswered(2, key[1], default_decision(ask.view)))
    assert h.table.logged.decisions == before + 1 and isinstance(effects[0], Persist)
    assert effects[0].entries[0].by == "bot"  # type: ignore[union-attr]


def test_a_bot_that_ran_out_of_time_is_told_in_the_log_and_plays_its_next_decision() -> None:
    h = Harness()
    ana, bob = seated_table(h)
    h.run(Message(ana, P.Start(type="start"), seed=9))
    (key, ask), = ((k, a) for k, a in h.asks.items() if k[0] == 2)
    h.asks.clear()
    mark = h.table.logged.seq
    effects = h.run(BotAnswered(2, key[1], default_decision(ask.view), timed_out=True))
    persisted = effects[0]
    assert isinstance(persisted, Persist)
    assert [(type(e).__name__, getattr(e, "by", None), getattr(e, "reason", None))
            for e in persisted.entries] == [
        ("AutoPlay", None, "timeout"), ("Decided", "default", None),
        ("AutoPlay", None, "returned")]
    seat = h.table.logged.seats[2]
    assert seat is not None and seat.kind == "bot" and not seat.auto
    # Everyone hears it, in their language, from the stream (and so does a replay).
    frame = next(f for _, f in h.peers[bob.conn].frames[::-1] if f.get("items"))
    said = [i["text"] for i in frame["items"] if i["kind"] == "notice"]
    assert said == [
        "Easy Bot 1 ran out of time; the default bot makes this decision for them.",
        "Easy Bot 1 plays again after the default bot's decision."]
    log = h.table.logged
    assert [i.seq for i in log.items if i.kind == "notice"][-2:] == [mark + 1, log.seq]
    assert rebuilt(replayed(h)) == rebuilt(h.table)
    # Its next decision is the bot's own again.
    for _ in range(10):
        if any(k[0] == 2 for k in h.asks):
            break
        assert h.play_human(ana) or h.play_human(bob)
    assert [a.bot for k, a in h.asks.items() if k[0] == 2] == ["easy"]


def test_turn_timer_hands_the_seat_to_the_default_player_and_back() -> None:
    h = Harness(turn_timer=30.0)
    ana, bob = seated_table(h)
    effects = h.run(Message(ana, P.Start(type="start"), seed=11))
    timers = [e for e in effects if isinstance(e, StartTimer)]
    assert {e.timer for e in timers} >= {TurnTimer(0, "1.1.1.card"), TurnTimer(1, "1.1.1.card")}
    deadline = h.table.live.timers[TurnTimer(1, "1.1.1.card")]
    assert deadline == h.now + 30.0
    # Bob's prompt says how long he has.
    h.now += 10.0
    frame = h.fanout.state_frame(1, "en", None, h.now)[0]
    assert json.loads(frame)["prompt"]["seconds"] == 20.0
    # A timer fired for a deadline that is not the current one changes nothing.
    assert h.run(TimerFired(TurnTimer(1, "1.1.1.card"), deadline - 1)) == []
    h.now += 20.0
    effects = h.run(TimerFired(TurnTimer(1, "1.1.1.card"), deadline))
    assert isinstance(effects[0], Persist)
    seat = h.table.logged.seats[1]
    assert seat is not None and seat.auto
    notice = h.table.logged.items[-1].payload
    assert (notice.notice, notice.reason) == ("auto_on", "timeout")  # type: ignore[union-attr]
    assert any(isinstance(e, AskBot) and e.seat == 1 and e.bot == "default" for e in effects)
    assert any(isinstance(e, Broadcast) and e.state for e in effects)
    # Bob acts before the default player answers: his seat is his again, in the same
    # command as his decision.
    h.asks.clear()
    game = h.table.logged.game
    assert game is not None
    effects = h.run(Message(bob, P.PlayCard(type="play_card", card=game.legal(1)[0])))
    assert isinstance(effects[0], Persist)
    assert [type(e).__name__ for e in effects[0].entries] == ["AutoPlay", "Decided"]
    assert seat.auto is False


def test_a_listener_gets_the_time_to_hear_what_led_to_the_decision() -> None:
    """With ``listen_cps``, a person's turn timer gets the time the narration of what was
    just logged takes to say at that rate (the start of the game, a reveal), at most
    ``listen_max``; the bots are not held back by it."""
    def next_turn(limits: Limits) -> tuple[float, str, Harness]:
        h = Harness(limits=limits, turn_timer=30.0)
        ana, bob = seated_table(h)
        h.run(Message(ana, P.Start(type="start"), seed=11))
        h.answer_bots()
        game = h.table.logged.game
        assert game is not None
        # Long after the start was heard (a listener hears one thing after another: told
        # at once, the reveal would wait for the start's narration).
        h.now += 100.0
        mark = h.table.logged.seq
        h.run(Message(ana, P.PlayCard(type="play_card", card=game.legal(0)[-1])))
        effects = h.run(Message(bob, P.PlayCard(type="play_card", card=game.legal(1)[-1])))
        # The bot plays at once; then the reveal, and the next turn's timers start.
        h.answer_bots()
        starts = [e for e in h.effects + effects if isinstance(e, StartTimer)
                  and isinstance(e.timer, TurnTimer) and e.timer.seat == 1]
        events = [i.payload for i in h.table.logged.items if i.seq > mark
                  and isinstance(i.payload, Event) and not isinstance(i.payload, CardChosen)]
        text = narrator("en").announce(events, h.table.logged.names("en"))
        return starts[-1].seconds, text, h

    seconds, text, h = next_turn(Limits(listen_cps=20.0))
    assert "revealed" in text
    assert seconds == pytest.approx(30.0 + len(text) / 20.0)
    assert json.loads(h.fanout.state_frame(1, "en", None, h.now)[0])["prompt"]["seconds"] == (
        pytest.approx(seconds))
    assert next_turn(Limits(listen_cps=20.0, listen_max=2.0))[0] == 32.0
    assert next_turn(Limits())[0] == 30.0
    # The start of the game: the deal and the first turn's narration on top of the timer.
    h = Harness(limits=Limits(listen_cps=20.0), turn_timer=30.0)
    ana, _ = seated_table(h)
    effects = h.run(Message(ana, P.Start(type="start"), seed=11))
    first = [e.seconds for e in effects
             if isinstance(e, StartTimer) and e.timer == TurnTimer(1, "1.1.1.card")]
    assert first and first[0] > 30.0


def test_a_timeout_hands_over_that_decision_only() -> None:
    """The default player makes the one decision whose time ran out; the next is the
    person's, with a timer, and everyone is told (``returned``)."""
    h = Harness(turn_timer=30.0)
    ana, _bob = seated_table(h)
    h.run(Message(ana, P.Start(type="start"), seed=11))
    h.answer_bots()
    h.play_human(ana)
    h.now += 30.0
    h.run(TimerFired(TurnTimer(1, "1.1.1.card"), h.table.live.timers[TurnTimer(1, "1.1.1.card")]))
    seat = h.table.logged.seats[1]
    assert seat is not None and seat.auto and seat.auto_reason == "timeout"
    (ask,) = h.asks.values()
    assert (ask.seat, ask.bot) == (1, "default")
    effects = h.run(BotAnswered(1, ask.key, default_decision(ask.view)))
    persist = effects[0]
    assert isinstance(persist, Persist)
    assert [type(e).__name__ for e in persist.entries] == ["Decided", "AutoPlay"]
    assert not seat.auto and seat.auto_reason is None
    notices = [i.payload for i in h.table.logged.items if i.kind == "notice"]
    assert (notices[-1].notice, notices[-1].reason) == ("auto_off", "returned")  # type: ignore[union-attr]
    assert any(isinstance(e, Broadcast) and e.state for e in effects)
    # Bob is asked the next decision himself, with his own timer running.
    game = h.table.logged.game
    assert game is not None and game.pending is not None and 1 in game.pending.players
    assert any(isinstance(k, TurnTimer) and k.seat == 1 for k in h.table.live.timers)
    assert json.loads(h.fanout.state_frame(1, "en", None, h.now)[0])["prompt"] is not None
    # The log rebuilds the same seat.
    again = replayed(h).logged.seats[1]
    assert again is not None and not again.auto


def test_bots_wait_after_a_reveal_while_a_person_is_there() -> None:
    """With a reveal pace, the bots are asked the next turn only when the pace timer
    fires, so the reveal is heard first; without a person connected they do not wait."""
    h = Harness(limits=Limits(reveal_pace=2.5))
    ana, bob = seated_table(h)
    h.run(Message(ana, P.Start(type="start"), seed=11))
    h.answer_bots()
    game = h.table.logged.game
    assert game is not None
    # The highest cards: this deal asks nobody to choose a row on the first turn.
    h.run(Message(ana, P.PlayCard(type="play_card", card=game.legal(0)[-1])))
    effects = h.run(Message(bob, P.PlayCard(type="play_card", card=game.legal(1)[-1])))
    assert any(isinstance(i.payload, CardsRevealed) for i in h.table.logged.items[-12:])
    assert game is not None and game.pending is not None and 2 in game.pending.players
    assert not h.asks, "the bot is not asked before the pace has passed"
    starts = [e for e in effects if isinstance(e, StartTimer) and isinstance(e.timer, PaceTimer)]
    assert [e.seconds for e in starts] == [2.5]
    h.now += 2.5
    h.run(TimerFired(PaceTimer(), starts[0].deadline))
    assert [seat for seat, _ in h.asks] == [2]
    # Nobody seated connected: no pace.
    h2 = Harness(limits=Limits(reveal_pace=2.5))
    ana2, bob2 = seated_table(h2)
    h2.run(Message(ana2, P.Start(type="start"), seed=11))
    h2.answer_bots()
    h2.play_human(ana2)
    h2.run(Detach(ana2.conn))
    h2.run(Detach(bob2.conn))
    h2.run(TimerFired(GraceTimer(1), h2.table.live.timers[GraceTimer(1)]))
    assert any(seat == 1 for seat, _ in h2.asks)
    h2.answer_bots()
    assert any(seat == 2 for seat, _ in h2.asks), "no pace without a person to hear it"


def _to_round_end(h: Harness, people: list[Who]) -> None:
    """Play until the game's first round has ended."""
    game = h.table.logged.game
    assert game is not None
    while game.round == 1 and game.phase is not Phase.DEAL:
        assert h.answer_bots() + sum(h.play_human(who) for who in people), "stuck"


def test_the_next_deal_waits_after_a_round_while_a_person_is_there() -> None:
    """With a round pause, a round's end holds the next deal (nobody is asked anything, no
    timer runs) until the deal timer fires; the sheet of the rounds scored comes with every
    ``table_state``; the log (a ``deal`` entry) rebuilds the same table, and a table
    rebuilt during the pause deals after it. With no person connected it deals at once."""
    rules = Rules.parse("classic", players=3, end="rounds", rounds=2)
    h = Harness(rules, limits=Limits(round_pause=5.0), turn_timer=30.0)
    ana, bob = seated_table(h)
    h.run(Message(ana, P.Start(type="start"), seed=11))
    _to_round_end(h, [ana, bob])
    game = h.table.logged.game
    assert game is not None and game.phase is Phase.DEAL and game.pending is None
    deadline = h.table.live.timers[DealTimer()]
    assert deadline == h.now + 5.0
    assert not h.asks and not any(isinstance(k, TurnTimer) for k in h.table.live.timers)
    frame = json.loads(h.fanout.state_frame(0, "en", None, h.now)[0])
    assert [r["round"] for r in frame["rounds"]] == [1]
    assert frame["rounds"][0]["totals"] == list(game.scores)
    assert frame["prompt"] is None
    h.run(Message(bob, P.Chat(type="chat", text="well played")))
    # Rebuilt from its log during the pause: it waits, and deals once the pause is over.
    paused = replayed(h)
    assert rebuilt(paused) == rebuilt(h.table)
    effects = reduce(paused, Resume(), h.now)[1]
    assert any(isinstance(e, StartTimer) and e.timer == DealTimer() for e in effects)
    h.now += 5.0
    h.run(TimerFired(DealTimer(), deadline))
    assert (game.round, game.phase) == (2, Phase.CHOOSE)
    assert [kind for _, kind, _ in h.store].count("deal") == 1
    assert any(isinstance(k, TurnTimer) for k in h.table.live.timers)
    play_out(h, [ana, bob])
    assert rebuilt(replayed(h)) == rebuilt(h.table)
    frame = json.loads(h.fanout.state_frame(0, "en", None, h.now)[0])
    assert [r["round"] for r in frame["rounds"]] == [1, 2]
    # Nobody seated connected (bots only, or everyone away): no pause.
    h2 = Harness(rules, limits=Limits(round_pause=5.0))
    ana2, bob2 = seated_table(h2)
    h2.run(Message(ana2, P.Start(type="start"), seed=11))
    h2.run(Detach(ana2.conn))
    h2.run(Detach(bob2.conn))
    for seat in (0, 1):
        h2.run(TimerFired(GraceTimer(seat), h2.table.live.timers[GraceTimer(seat)]))
    game2 = h2.table.logged.game
    assert game2 is not None
    while game2.round == 1:
        assert h2.answer_bots(), "stuck"
    assert game2.phase is not Phase.DEAL and DealTimer() not in h2.table.live.timers


def test_disconnect_grace_and_idle_close() -> None:
    h = Harness(limits=Limits(disconnect_grace=5.0, idle_close=50.0, open_idle_close=20.0))
    ana, bob = seated_table(h)
    h.run(Message(ana, P.Start(type="start"), seed=2))
    effects = h.run(Detach(bob.conn))
    (grace,) = [e for e in effects if isinstance(e, StartTimer)]
    assert grace.timer == GraceTimer(1) and grace.seconds == 5.0
    assert any(isinstance(e, SendPresence) for e in effects)
    # Back in time: the grace timer goes.
    bob2 = h.connect(2)
    effects = h.run(Attach(bob2, None, False, 0))
    assert CancelTimer(GraceTimer(1)) in effects
    game_seq = h.table.logged.game_seq
    assert any(isinstance(e, SendMissed) and e.after == game_seq - 1 for e in effects)
    h.run(Detach(bob2.conn))
    deadline = h.table.live.timers[GraceTimer(1)]
    h.run(TimerFired(GraceTimer(1), deadline))
    seat = h.table.logged.seats[1]
    assert seat is not None and seat.auto
    # Nobody seated connected: the table closes once its game is over.
    h.run(Detach(ana.conn))
    idle = h.table.live.timers[IdleTimer()]
    assert idle == h.now + 50.0
    h.run(TimerFired(IdleTimer(), idle))
    assert h.table.logged.status == "playing"  # the default player finishes the game first
    h.run(TimerFired(GraceTimer(0), h.table.live.timers[GraceTimer(0)]))
    while h.table.logged.status == "playing":
        assert h.answer_bots()
    effects = h.run(TimerFired(IdleTimer(), h.table.live.timers[IdleTimer()]))
    assert h.table.logged.status == "closed" and isinstance(effects[0], Persist)
    assert h.statuses[-1] == "closed"


def test_kick_tells_the_victim_after_the_table() -> None:
    h = Harness()
    ana, bob = seated_table(h)
    h.run(Message(ana, P.Start(type="start"), seed=4))
    effects = h.run(Message(ana, P.Kick(type="kick", ref="k", seat=1)))
    kinds = [type(e).__name__ for e in effects]
    assert kinds[0] == "Persist" and kinds.index("Broadcast") < kinds.index("Refuse")
    (broadcast,) = [e for e in effects if isinstance(e, Broadcast)]
    assert (bob.conn, 1) in broadcast.audience  # Bob hears it, then that he was removed
    assert Refuse(bob.conn, "kicked", "the host removed you from this table") in effects
    assert bob.conn not in h.table.live.watchers and 2 in h.table.logged.kicked
    # Bob may come back to watch, never to play.
    effects = h.run(Attach(h.connect(2), None, False, None))
    assert isinstance(effects[0], SendState) and effects[0].viewer is None


def test_leaving_passes_the_host_and_the_last_one_closes() -> None:
    h = Harness()
    ana, bob = seated_table(h)
    h.run(Message(ana, P.Start(type="start"), seed=8))
    h.run(Message(ana, P.Leave(type="leave", ref="bye")))
    assert h.table.logged.host_id == 2
    assert [it.payload.notice for it in h.table.logged.items[-2:]] == [  # type: ignore[union-attr]
        "auto_on", "host"]
    effects = h.run(Message(bob, P.Leave(type="leave")))
    assert h.table.logged.status == "closed" and effects[-1] == CloseTable()
    persist = effects[0]
    assert isinstance(persist, Persist) and persist.status == "closed"
    (result,) = persist.results
    assert not result.finished and not result.rated  # an unfinished game is kept, unrated


def test_the_operator_closes_a_table_during_a_game() -> None:
    h = Harness()
    ana, bob = seated_table(h)
    h.run(Message(ana, P.Start(type="start"), seed=5))
    effects = h.run(Shut())
    assert h.table.logged.status == "closed" and effects[-1] == CloseTable()
    persist = effects[0]
    assert isinstance(persist, Persist) and persist.status == "closed"
    (result,) = persist.results
    assert not result.finished and not result.rated
    (broadcast,) = [e for e in effects if isinstance(e, Broadcast)]
    assert {(ana.conn, 0), (bob.conn, 1)} <= set(broadcast.audience)
    assert h.table.logged.items[-1].payload.notice == "closed"  # type: ignore[union-attr]
    assert not h.table.live.watchers
    assert h.run(Shut()) == []  # closed already: nothing more
    again = replayed(h)  # the log holds it: a restart does not bring the table back
    assert again.logged.status == "closed" and again.logged.seq == h.table.logged.seq


def test_rematch_starts_the_next_game_with_its_own_shuffle() -> None:
    h = Harness()
    ana, bob = seated_table(h)
    h.run(Message(ana, P.Start(type="start"), seed=1))
    first = h.table.logged.game
    play_out(h, [ana, bob])
    h.run(Message(ana, P.Rematch(type="rematch"), seed=2))
    log = h.table.logged
    assert log.game_no == 2 and log.status == "playing" and log.game is not first
    assert log.game_seq == log.seq - len(log.game.events)  # type: ignore[union-attr]
    play_out(h, [ana, bob])
    assert len(h.results) == 2
    assert rebuilt(replayed(h)) == rebuilt(h.table)


def test_trimmed_stream_is_rebuilt_from_the_log() -> None:
    h = Harness()
    ana, bob = seated_table(h)
    h.run(Message(ana, P.Start(type="start"), seed=6))
    play_out(h, [ana, bob])
    whole = list(h.table.logged.items)
    trim(h.table, 16)
    assert len(h.table.logged.items) == 16
    again = replayed(h)
    assert again.logged.items == whole


def test_resume_after_replay_restarts_timers_and_bots() -> None:
    h = Harness(turn_timer=10.0)
    ana, _bob = seated_table(h)
    h.run(Message(ana, P.Start(type="start"), seed=3))
    fresh = replayed(h)
    h2 = Harness(turn_timer=10.0)
    h2.table = fresh
    effects = h2.run(Resume())
    started = {e.timer for e in effects if isinstance(e, StartTimer)}
    assert {GraceTimer(0), GraceTimer(1), IdleTimer()} <= started
    assert any(isinstance(e, AskBot) and e.seat == 2 for e in effects)


def test_the_default_players_decisions_are_typed() -> None:
    h = Harness(Rules.parse("classic+logic", players=3, end="rounds", rounds=1))
    ana, bob = seated_table(h)
    h.run(Message(ana, P.Start(type="start"), seed=1))
    kinds = set()
    for _ in range(30):
        for ask in list(h.asks.values()):
            decision = default_decision(ask.view)
            assert decision == make_decision(decision.kind, ask.seat, decision.value)
            assert isinstance(decision, PlayCard | TakeRow | DraftCard)
            kinds.add(decision.kind)
        h.answer_bots()
        h.play_human(ana)
        h.play_human(bob)
    assert DecisionKind.DRAFT in kinds


# -- random command sequences ------------------------------------------------------------------

RULE_SETS = [
    Rules.parse("classic", players=3, end="rounds", rounds=1),
    Rules.parse("classic+tactics+professional", players=2, end="rounds", rounds=1),
    Rules.parse("category5+jokers", players=4, end="rounds", rounds=1),
]
#: Seats free, taken and past the table's (the protocol refuses a negative one: ``SeatNo``).
SEATS = st.integers(0, 4)
WORDS = st.sampled_from(["hi", "", "  ", "gg", "x" * 40, "\u202eevil", "<b>"])


class TableMachine(RuleBasedStateMachine):
    """Random commands at one table; after each, the rules' invariants."""

    def __init__(self) -> None:
        super().__init__()
        self.h = Harness()
        self.conns: list[Who] = []
        self.refused = False
        self.before: dict[str, Any] = {}

    @initialize(rules=st.sampled_from(RULE_SETS),
                limits=st.builds(Limits, card_changes=st.integers(1, 3),
                                 chat_per_game=st.integers(1, 4),
                                 games_per_table=st.integers(1, 3)),
                timer=st.sampled_from([None, 20.0]), played=st.integers(0, 80) | st.none(),
                people=st.integers(0, 3), seed=st.integers(0, 2**32), rated=st.booleans(),
                hints=st.booleans())
    def open_table(self, rules: Rules, limits: Limits, timer: float | None,
                   played: int | None, people: int, seed: int, rated: bool,
                   hints: bool) -> None:
        self.h = Harness(rules, limits, turn_timer=timer)
        self.h.table.rated = rated
        host = self.h.connect(1)
        self.conns.append(host)
        self.step(Create(host, None, hints))
        if played is not None:  # most examples begin with a game under way
            self.fill_and_start(people, seed)
            if played:
                self.everyone_plays(played)

    def step(self, command: Command) -> None:
        self.before = snapshot(self.h.table)
        for peer in self.h.peers.values():
            peer.frames.clear()
        effects = self.h.run(command)
        self.refused = len(effects) == 1 and isinstance(effects[0], Refuse) and (
            getattr(command, "who", None) is not None
            and effects[0].conn == command.who.conn)  # type: ignore[union-attr]

    def pick(self, data: st.DataObject) -> Who:
        return data.draw(st.sampled_from(self.conns))

    # -- people ------------------------------------------------------------------------------

    @rule(person=st.integers(1, 4), spectate=st.booleans(), last=st.none() | st.integers(0, 50))
    def come(self, person: int, spectate: bool, last: int | None) -> None:
        who = self.h.connect(person)
        self.conns.append(who)
        self.step(Attach(who, "a", spectate, last))

    @rule(data=st.data())
    def go(self, data: st.DataObject) -> None:
        self.step(Detach(self.pick(data).conn))

    @rule(data=st.data(), seat=st.none() | SEATS)
    def sit(self, data: st.DataObject, seat: int | None) -> None:
        self.step(Message(self.pick(data), P.Sit(type="sit", ref="s", seat=seat)))

    @rule(data=st.data(), seat=st.none() | SEATS, bot=st.sampled_from(["easy", "hard", "nope"]))
    def add_bot(self, data: st.DataObject, seat: int | None, bot: str) -> None:
        refusal = "unknown bot 'nope'" if bot == "nope" else None
        self.step(Message(self.pick(data),
                          P.AddBot(type="add_bot", ref="b", strength=bot, seat=seat),
                          refusal=refusal))

    @rule(data=st.data(), seat=SEATS)
    def remove_bot(self, data: st.DataObject, seat: int) -> None:
        self.step(Message(self.pick(data), P.RemoveBot(type="remove_bot", ref="r", seat=seat)))

    @rule(data=st.data(), seed=st.integers(0, 2**32))
    def start(self, data: st.DataObject, seed: int) -> None:
        self.step(Message(self.pick(data), P.Start(type="start", ref="g"), seed=seed))

    @rule(data=st.data(), seed=st.integers(0, 2**32))
    def rematch(self, data: st.DataObject, seed: int) -> None:
        self.step(Message(self.pick(data), P.Rematch(type="rematch", ref="m"), seed=seed))

    @rule(data=st.data(), text=WORDS)
    def chat(self, data: st.DataObject, text: str) -> None:
        self.step(Message(self.pick(data), P.Chat(type="chat", ref="c", text=text)))

    @rule(data=st.data())
    def hint(self, data: st.DataObject) -> None:
        who = self.pick(data)
        self.step(Message(who, P.AskHint(type="hint")))
        for effect in self.h.effects:
            if isinstance(effect, Advise):
                # Only the asker's own seat, its pending decision, and its view alone.
                t = self.h.table
                assert t.hints_on and t.live.watchers[who.conn] == effect.seat
                assert t.logged.game is not None and effect.view == t.logged.game.view(effect.seat)
                pend = t.logged.game.pending
                assert pend is not None and effect.seat in pend.players
                assert self.h.effects == [effect]

    @rule(data=st.data(), on=st.booleans())
    def set_hints(self, data: st.DataObject, on: bool) -> None:
        self.step(Message(self.pick(data), P.SetHints(type="set_hints", hints=on)))

    @rule(data=st.data())
    def take_over(self, data: st.DataObject) -> None:
        self.step(Message(self.pick(data), P.TakeOver(type="take_over", ref="t")))

    @rule(data=st.data(), seat=SEATS)
    def kick(self, data: st.DataObject, seat: int) -> None:
        self.step(Message(self.pick(data), P.Kick(type="kick", ref="k", seat=seat)))

    @rule(data=st.data())
    def leave(self, data: st.DataObject) -> None:
        self.step(Message(self.pick(data), P.Leave(type="leave", ref="l")))

    @precondition(lambda self: self.h.table.logged.status == "open")
    @rule(people=st.integers(0, 3), seed=st.integers(0, 2**32))
    def fill_and_start(self, people: int, seed: int) -> None:
        """People sit, the host fills the other seats with bots and starts (a game is
        otherwise a long way off for random commands)."""
        t = self.h.table
        host = next((w for w in self.conns
                     if w.player_id == t.logged.host_id
                     and t.live.watchers.get(w.conn) is not None), None)
        if host is None:
            host = self.h.connect(t.logged.host_id)
            self.conns.append(host)
            self.step(Attach(host, "h", False, None))
        for person in range(2, 2 + people):
            who = self.h.connect(person)
            self.conns.append(who)
            self.step(Attach(who, "p", False, None))
            self.step(Message(who, P.Sit(type="sit", ref="s")))
        for _ in range(len(t.logged.seats)):
            self.step(Message(host, P.AddBot(type="add_bot", ref="b", strength="easy")))
        self.step(Message(host, P.Start(type="start", ref="g"), seed=seed))

    # -- decisions -------------------------------------------------------------------------------

    @rule(data=st.data(), legal=st.booleans(), kind=st.sampled_from(list(DecisionKind)),
          value=st.integers(-10, 104))
    def decide(self, data: st.DataObject, legal: bool, kind: DecisionKind, value: int) -> None:
        who = self.pick(data)
        game = self.h.table.logged.game
        seat = self.h.table.live.watchers.get(who.conn)
        if legal and game is not None and game.pending is not None and seat is not None:
            options = game.legal(seat)
            if options:
                kind, value = game.pending.kind, data.draw(st.sampled_from(options))
        self.step(Message(who, _message(kind, value, "d")))

    @precondition(lambda self: self.h.table.logged.status == "playing")
    @rule(decisions=st.integers(1, 60))
    def everyone_plays(self, decisions: int) -> None:
        """Every seat answers what it is asked, legally, until about ``decisions`` are made
        or the table waits for someone away (a game gets somewhere)."""
        h = self.h
        goal = h.table.logged.decisions + decisions
        while h.table.logged.decisions < goal and h.table.logged.status == "playing":
            moved = False
            for ask in list(h.asks.values()):
                h.asks.pop((ask.seat, ask.key), None)
                self.step(BotAnswered(ask.seat, ask.key, default_decision(ask.view)))
                moved = True
            for who in list(self.conns):
                if who.conn in h.table.live.watchers:
                    self.before = snapshot(h.table)
                    moved |= h.play_human(who)
                    self.refused = False
            if not moved:
                break

    @precondition(lambda self: bool(self.h.asks))
    @rule(data=st.data(), wrong=st.booleans(), late=st.booleans())
    def bot_answers(self, data: st.DataObject, wrong: bool, late: bool) -> None:
        key = data.draw(st.sampled_from(sorted(self.h.asks)))
        ask = self.h.asks.pop(key)
        decision = default_decision(ask.view)
        if wrong:
            decision = make_decision(decision.kind, ask.seat, 999)
        # ``late``: the bot ran past its deadline and the pool answered for it.
        self.step(BotAnswered(ask.seat, ask.key, decision, late))

    @precondition(lambda self: bool(self.h.table.live.timers))
    @rule(data=st.data(), stale=st.booleans())
    def timer_runs_out(self, data: st.DataObject, stale: bool) -> None:
        timers = self.h.table.live.timers
        timer = data.draw(st.sampled_from(sorted(timers, key=repr)))
        self.h.now = max(self.h.now, timers[timer])
        self.step(TimerFired(timer, timers[timer] - (1.0 if stale else 0.0)))

    # -- invariants ------------------------------------------------------------------------------

    @invariant()
    def a_refusal_changes_nothing(self) -> None:
        if self.refused:
            assert snapshot(self.h.table) == self.before

    @invariant()
    def a_table_closes_once(self) -> None:
        closes = [e for e in self.h.effects if isinstance(e, CloseTable)]
        before = self.before.get("logged")
        assert len(closes) == ((before is None or before.status != "closed")
                               and self.h.table.logged.status == "closed")

    @invariant()
    def the_store_hears_first(self) -> None:
        persists = [k for k, e in enumerate(self.h.effects) if isinstance(e, Persist)]
        assert persists in ([], [0])
        assert self.h.table.logged.n == len(self.h.store)

    @invariant()
    def no_frame_tells_a_secret(self) -> None:
        t = self.h.table
        game = t.logged.game
        for peer in self.h.peers.values():
            for viewer, frame in peer.frames:
                check_frame(frame, viewer, game)

    @invariant()
    def prompts_go_to_people_and_questions_to_bots(self) -> None:
        t = self.h.table
        for effect in self.h.effects:
            if isinstance(effect, AskBot):
                s = t.logged.seats[effect.seat]
                assert s is not None and (s.kind == "bot" or s.auto)
                assert effect.view.player == effect.seat
        for peer in self.h.peers.values():
            for viewer, frame in peer.frames:
                if frame.get("prompt") is not None:
                    assert viewer is not None
                    s = t.logged.seats[viewer]
                    assert s is not None and s.kind == "human" and not s.auto

    def teardown(self) -> None:
        h = self.h
        # What the example reached (--hypothesis-show-statistics shows the spread).
        event(f"status {h.table.logged.status}, game {h.table.logged.game_no}")
        event("decisions made" if h.table.logged.decisions else "no decision")
        assert rebuilt(replayed(h)) == rebuilt(h.table)


def check_frame(frame: dict[str, Any], viewer: int | None, game: Any) -> None:
    """No secret of another seat in a frame sent as ``viewer``: hands dealt face down, cards
    chosen face down, another seat's hand in a view or a prompt."""
    own: set[int] = set()
    if game is not None and viewer is not None:
        for deal in game.round_deals:
            if deal.hands:
                own |= set(deal.hands[viewer])
            own |= set(deal.pool)
    if frame["type"] == "table_state":
        view = frame["view"]
        if view is not None and view["hands"] is None:
            assert set(view["hand"]) <= own
            assert view["my_choice"] is None or view["my_choice"] in own
        prompt = frame["prompt"]
        if prompt is not None:
            assert viewer is not None and frame["you"] == viewer
            if prompt["kind"] == "card":
                assert set(prompt["options"]) <= own
    if frame["type"] == "events":
        for item in frame["items"]:
            ev = item.get("event")
            if ev is None:
                continue
            if ev["type"] == "hand_dealt" and not ev["public"]:
                assert ev["player"] == viewer
            if ev["type"] == "card_chosen" and not ev["face_up"] and ev["card"] is not None:
                assert ev["player"] == viewer


TableMachine.TestCase.settings = settings(max_examples=examples(1), stateful_step_count=40)
test_random_commands = TableMachine.TestCase


@pytest.mark.parametrize("stored", [
    ("sit", {"seat": 0, "player_id": 1, "name": "Ana"}),
    ("decision", {"seat": 2, "kind": "row", "value": 3, "by": "bot"}),
    ("decision", {"decision": {"type": "draft_card", "player": 1, "card": 40}, "by": "default"}),
    ("close", {}),
])
def test_stored_entries_read_back(stored: tuple[str, dict[str, Any]]) -> None:
    entry = entry_from_row(*stored)
    kind, data = entry_to_row(entry)
    assert kind == stored[0] and entry_from_row(kind, data) == entry


def test_frames_with_a_view_carry_the_shortcuts_sentences_in_each_language() -> None:
    """A table_state, and an events frame holding a game event, bring the view's speech
    sheet in the connection's language, so a client answers a key without asking."""
    h = Harness()
    ana, bob = seated_table(h)
    h.peers[bob.conn].lang = "sr"
    h.run(Message(ana, P.Start(type="start"), seed=11))
    for peer, rows_word in ((h.peers[ana.conn], "Row 1: "), (h.peers[bob.conn], "Skup 1: ")):
        state = next(f for _, f in reversed(peer.frames) if f["type"] == "table_state")
        sheet = state["sheet"]
        assert sheet["row"][0].startswith(rows_word), sheet["row"]
        assert [c for c, _ in sheet["cards"]] == state["view"]["hand"]
        assert len(sheet["timer"]) == 10
        assert sheet["decision"] is not None
    # Bob chooses: the events frame brings his view (his choice in it) and what of its
    # sheet changed: the hand and who has chosen, not the rows.
    assert h.table.logged.game is not None
    card = h.table.logged.game.view(1).hand[0]
    h.run(Message(bob, P.PlayCard(type="play_card", card=card)))
    events = [f for _, f in h.peers[bob.conn].frames if f["type"] == "events"][-1]
    assert events["view"]["my_choice"] == card
    assert "rows" not in events["sheet"] and "timer" not in events["sheet"]
    assert events["sheet"]["hand"]
    game = h.table.logged.game
    assert game is not None
    # Bots are named in the reader's language ("Bot Laki 1", not "Easy Bot 1").
    said = narrator("sr").chosen_sentence(game.view(1), h.table.logged.names("sr"))
    assert events["sheet"]["chosen"] == said and "Bot Laki 1" in said
    # A frame without a game event (a chat line) carries no view.
    h.run(Message(ana, P.Chat(type="chat", text="hi")))
    chat = [f for _, f in h.peers[bob.conn].frames if f["type"] == "events"][-1]
    assert chat["view"] is None and chat["sheet"] is None


def test_sheet_w_names_the_seats_before_a_game_and_follows_presence() -> None:
    """Key W's sentence comes with every table_state, a game or none: before the first game
    it names each seat and who sits there, and in one each player with their bullheads; a
    bot is marked, and a player who drops is away (then played by the default bot) in the
    very next frame the others get, never a stale sentence."""
    h = Harness(limits=Limits(disconnect_grace=5.0))
    ana, bob = seated_table(h)

    def w(conn: int) -> str:
        """W as the connection's client has it: each table_state's, with changes merged."""
        said = ""
        for _, f in h.peers[conn].frames:
            if f.get("sheet") and (f["type"] == "table_state" or "who" in f["sheet"]):
                said = f["sheet"]["who"]
        return said

    bot = h.table.logged.names("en")[2]
    assert w(ana.conn) == f"Seat 1: Ana (you). Seat 2: Bob. Seat 3: {bot} (bot)."
    assert w(bob.conn) == f"Seat 1: Ana. Seat 2: Bob (you). Seat 3: {bot} (bot)."
    h.run(Detach(bob.conn))
    assert "Seat 2: Bob, away." in w(ana.conn)
    bob = h.connect(2)
    h.run(Attach(bob, None, False, None))
    assert "Seat 2: Bob." in w(ana.conn)
    h.run(Message(ana, P.Start(type="start"), seed=3))
    assert w(ana.conn) == (f"At the table: Ana (you): 0 bullheads; Bob: 0 bullheads; "
                           f"{bot} (bot): 0 bullheads.")
    h.run(Detach(bob.conn))
    assert "Bob: 0 bullheads, away;" in w(ana.conn)
    h.run(TimerFired(GraceTimer(1), h.table.live.timers[GraceTimer(1)]))
    assert "Bob: 0 bullheads, away, played by the default bot;" in w(ana.conn)
