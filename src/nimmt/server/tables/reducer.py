"""The rules of a table, as a pure reducer: ``reduce(table, command, now) → (table, effects)``.

Everything a table decides is decided here: who may sit, act, chat, kick or
start, which decision is whose, when the default player takes a seat over,
which timers run and which bots are asked, what every seat may see. Nothing
here does I/O, reads a clock or draws a random number: the time is the
``now`` the actor passes in, a new game's shuffle comes from the seed its
command carries, and what must happen in the world comes back as
:mod:`effects <.commands>` for the actor (:mod:`.table`) to run in order.
So the table's rules are tested without a server, a database or asyncio
(tests/server/test_table_reducer.py).

The table is event-sourced: a command that changes the table does it through
log entries (:mod:`.tablelog`) applied by :func:`apply`, which is also what
:func:`replay` folds over a stored log after a restart, so a rebuilt table has
the same seats, game and stream, item for item and ``seq`` for ``seq``. A
refused command raises before it changes anything and comes back as one
:class:`~.commands.Refuse`.

:class:`TableData` is changed in place (a game is too costly to copy per
decision); ``reduce`` returns it with the effects. What it holds is kept in two
parts: :class:`Logged`, what the log rebuilds (seats, game, stream, host,
hints), changed only by :func:`apply`, so a replay gives an equal one; and
:class:`Live`, what lives only while the server runs (connections, timers,
bots asked, card changes), which a restart starts afresh.

Hidden information: a view comes from :meth:`nimmt.Game.view` for its seat,
and events are filtered by :func:`nimmt.events.for_viewer` (in :mod:`.fanout`)
before anything is serialized.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Sequence
from dataclasses import InitVar, dataclass, field, fields
from typing import TYPE_CHECKING, Literal, NamedTuple, assert_never

from ... import record as records
from ... import wire as P
from ...deals import Deal
from ...decisions import Decision, DecisionKind
from ...engine import Game
from ...events import CardChosen, CardsRevealed, Event
from ...narrate import SOURCE_LANGUAGE, Narrator, UnknownLanguage, narrator
from ...rules import Rules
from ...wire import Prompt, SeatInfo, TableInfo, TableStatus, build, rules_info
from ..base.text import chat_line, name_key
from ..workers.botpool import AWAY, PEOPLE
from ..workers.botworker import DEFAULT
from .commands import (
    Advise,
    AskBot,
    Attach,
    Audience,
    BotAnswered,
    Broadcast,
    CancelTimer,
    CloseTable,
    Command,
    Create,
    Detach,
    Effect,
    GameResult,
    GraceTimer,
    Halt,
    IdleTimer,
    Message,
    PaceTimer,
    Persist,
    Refuse,
    Resume,
    SendAck,
    SendHistory,
    SendMissed,
    SendPresence,
    SendState,
    Shut,
    StartTimer,
    Timer,
    TimerFired,
    TurnTimer,
    WakeBots,
    Who,
)
from .tablelog import (
    AutoPlay,
    AutoReason,
    BotSeat,
    BotSeated,
    By,
    Chatted,
    Closed,
    Decided,
    Entry,
    HintsSet,
    HostPassed,
    Sat,
    Started,
    Unseated,
)

if TYPE_CHECKING:
    from ..base.settings import Settings

__all__ = [
    "ChatLine",
    "Limits",
    "Live",
    "Logged",
    "Notice",
    "SeatState",
    "StreamItem",
    "TableData",
    "apply",
    "bot_priority",
    "decision_key",
    "host_name",
    "info",
    "prompt",
    "reduce",
    "replay",
    "seat_infos",
    "seat_name",
    "speaker_of",
    "trim",
]


@dataclass(frozen=True, slots=True)
class Limits:
    """What a table allows (docs/security.md), from the server's settings."""

    card_changes: int = 10
    chat_max: int = 300
    chat_per_game: int = 1000
    games_per_table: int = 100
    disconnect_grace: float = 60.0
    idle_close: float = 3600.0
    open_idle_close: float = 180.0
    #: Seconds bots wait after a reveal while a person is at the table (0: no wait).
    reveal_pace: float = 0.0
    #: Characters a second of a listener's voice: a person's turn timer gets the time the
    #: narration of what led to the decision takes at it (0: no allowance) ...
    listen_cps: float = 0.0
    #: ... and at most this many seconds of it.
    listen_max: float = 60.0

    @classmethod
    def of(cls, settings: Settings) -> Limits:
        """The limits ``settings`` set: each is the setting of the same name."""
        return cls(**{f.name: getattr(settings, f.name) for f in fields(cls)})


@dataclass(slots=True)
class SeatState:
    """Who sits in a seat: a person (``player_id``) or a bot (``bot``), by the name records
    keep (a bot's English one). ``auto``: the default player plays for them now, and why
    (``auto_reason``); ``left``: they left (or were removed) and the default player keeps
    the seat."""

    kind: Literal["human", "bot"]
    name: str
    player_id: int | None = None
    bot: BotSeat | None = None
    auto: bool = False
    left: bool = False
    auto_reason: AutoReason | None = None

    @property
    def person(self) -> bool:
        """A person who has not left the table (the default player may play for them
        for now)."""
        return self.kind == "human" and not self.left

    @property
    def in_person(self) -> bool:
        """A person playing the seat themselves, not the default player for them."""
        return self.kind == "human" and not self.auto


def seat_name(s: SeatState, lang: str | None) -> str:
    """Who sits in ``s`` as a reader of ``lang`` hears it: a person by their name, a bot by
    its strength and number in that language (``"Bot Srednji 2"``). The stored name (the
    log, records, ``lang`` None) is the English one."""
    if lang is None or s.bot is None:
        return s.name
    return s.bot.said(speaker_of(lang))


def speaker_of(lang: str) -> Narrator:
    """The narrator of ``lang``; English for a language with no catalog."""
    try:
        return narrator(lang)
    except UnknownLanguage:
        return narrator(SOURCE_LANGUAGE)


@dataclass(frozen=True, slots=True)
class Notice:
    """A change of the table, said as a stream item. The stream keeps what changed, not a
    sentence: each reader hears it from :meth:`nimmt.Narrator.notice_sentence` in their
    own language."""

    notice: str
    reason: AutoReason | None
    seat: int | None
    #: Who the notice is about, as records keep the name (a bot's English one).
    name: str | None
    #: The number of the game that starts (``started``).
    game_no: int = 1
    #: The bot the notice is about: each reader hears its name in their language.
    bot: BotSeat | None = None

    def name_in(self, speak: Narrator) -> str | None:
        """Who the notice is about, as ``speak``'s readers hear them."""
        return self.name if self.bot is None else self.bot.said(speak)

    def said(self, speak: Narrator, viewer: int | None = None) -> str:
        """The notice told by ``speak`` to ``viewer`` (a seat, or None: a spectator)."""
        return speak.notice_sentence(self.notice, self.reason, self.name_in(speak), self.seat,
                                     you=viewer is not None and viewer == self.seat,
                                     game_no=self.game_no)


@dataclass(frozen=True, slots=True)
class ChatLine:
    """A chat line as the stream keeps it."""

    seat: int | None
    name: str
    text: str


class StreamItem(NamedTuple):
    """One item of the table's stream: a game event (unfiltered: it is filtered per seat
    when sent), a notice or a chat line, at position ``seq``."""

    seq: int
    kind: Literal["event", "notice", "chat"]
    payload: Event | Notice | ChatLine


@dataclass(slots=True)
class Logged:
    """What a table's log rebuilds: replaying its stored entries onto a fresh one
    (:func:`replay`) gives an equal one, item for item and ``seq`` for ``seq``. Only
    :func:`apply` changes it, live or replaying, so nothing here can hold what a replay
    would not bring back."""

    #: The host: the store's row has the first, the log each one after.
    host_id: int
    seats: list[SeatState | None]
    status: TableStatus = "open"
    #: The game under way (or the last one). Compared through its events, which are all in
    #: ``items``: a game object has no equality of its own.
    game: Game | None = field(default=None, compare=False)
    game_no: int = 0
    #: The stream (the newest items; older ones are rebuilt from the log when asked for).
    items: list[StreamItem] = field(default_factory=list)
    #: The position of the newest stream item.
    seq: int = 0
    #: Log entries so far.
    n: int = 0
    #: People the host removed: they may watch, never sit again.
    kicked: set[int] = field(default_factory=set)
    #: Chat lines this game (``chat_per_game``).
    chats: int = 0
    #: The seq before the current game's first item: a reconnect needs nothing older.
    game_seq: int = 0
    #: Decisions applied (for the benchmark and tests).
    decisions: int = 0
    #: Whether the host allows hints (rated tables never give them: :attr:`TableData.hints_on`).
    hints: bool = True
    #: Where each game starts: the log position of its ``Started`` entry and the stream
    #: position before it, so a page of old items is rebuilt from its own game's entries.
    starts: list[tuple[int, int]] = field(default_factory=list)

    def seat_of(self, player_id: int) -> int | None:
        """The seat of person ``player_id``, if they have one."""
        for i, s in enumerate(self.seats):
            if s is not None and s.kind == "human" and s.player_id == player_id:
                return i
        return None

    def names(self, lang: str | None = None) -> list[str]:
        """The display names by seat, as the narration names them (bots in ``lang``)."""
        return [seat_name(s, lang) if s is not None else f"{i + 1}"
                for i, s in enumerate(self.seats)]

    def notice(self, what: str, seat: int | None, name: str | None,
               reason: AutoReason | None = None, game_no: int = 1,
               bot: BotSeat | None = None) -> None:
        """A notice, as the next stream item."""
        self.seq += 1
        self.items.append(StreamItem(self.seq, "notice",
                                     Notice(what, reason, seat, name, game_no, bot)))

    def tell(self, events: Iterable[Event]) -> None:
        """Game events, as the next stream items."""
        for ev in events:
            self.seq += 1
            self.items.append(StreamItem(self.seq, "event", ev))


@dataclass(slots=True)
class Live:
    """What a table holds only while the server runs: a restart starts it afresh (nobody
    connected, no timer, no bot asked), and the reducer makes it again from the logged
    state (:class:`~.commands.Resume`)."""

    #: Connections at the table, each with the seat it sees as (None: a spectator).
    watchers: dict[int, int | None] = field(default_factory=dict)
    #: Timers running, with their deadlines on the commands' clock.
    timers: dict[Timer, float] = field(default_factory=dict)
    #: Decisions a bot (or the default player) has been asked for: ``(seat, key)``.
    asked: set[tuple[int, str]] = field(default_factory=set)
    #: Per seat, the decision key and how often its card was chosen for it.
    changes: dict[int, tuple[str, int]] = field(default_factory=dict)
    #: Bots wait until then (the commands' clock) after a reveal (``Limits.reveal_pace``).
    paced_until: float = 0.0
    #: Until then a listener is still hearing the narration of what was logged (at
    #: ``Limits.listen_cps``): a person's turn timer starting earlier gets the difference.
    heard_at: float = 0.0

    def audience(self, skip: int | None = None) -> Audience:
        """The connections at the table now (but ``skip``), with their seats."""
        if skip is None:
            return tuple(self.watchers.items())
        return tuple((c, v) for c, v in self.watchers.items() if c != skip)


@dataclass(eq=False)
class TableData:
    """One table: what it is (its row in the store), what its log rebuilds (``logged``)
    and what lives only while the server runs (``live``)."""

    id: int
    code: str
    name: str
    #: The first host (the store's row); :attr:`Logged.host_id` is the host now.
    host_id: InitVar[int]
    rules: Rules
    turn_timer: float | None
    rated: bool
    private: bool
    limits: Limits = Limits()
    logged: Logged = field(init=False)
    live: Live = field(init=False, default_factory=Live)

    def __post_init__(self, host_id: int) -> None:
        self.logged = Logged(host_id, [None] * self.rules.players)

    def blank(self) -> TableData:
        """The same table before anything happened at it (to replay its log into)."""
        return TableData(self.id, self.code, self.name, self.logged.host_id, self.rules,
                         self.turn_timer, self.rated, self.private, self.limits)

    @property
    def hints_on(self) -> bool:
        """Whether a seated person may ask for a hint: the host allows it, and the table
        is not rated (a hint in a rated game would be help from outside the game)."""
        return self.logged.hints and not self.rated


# -- the log: applying entries ------------------------------------------------------------------


def apply(log: Logged, rules: Rules, entry: Entry, rng: random.Random | None = None,
          deals: Sequence[Deal] = ()) -> Entry:
    """Change ``log`` by one log entry, live or replaying; returns the entry as it is
    stored. Only the logged state is given: what an entry changes, a replay rebuilds.

    A game starts with ``rng`` for its shuffles (only :class:`~.tablelog.Started`
    needs one), but ``deals`` the log holds for it (while replaying) come first: a
    replay never shuffles what was dealt before. The entry returned carries the deals
    the entry made, so the store keeps them.
    """
    match entry:  # decisions first: the cases are tried in order
        case Decided(decision, by):
            current = log.game
            assert current is not None
            round_before = current.round
            events = current.decide(decision)
            log.decisions += 1
            log.tell(events)
            if current.is_over:
                log.status = "over"
            if current.round == round_before:
                return entry  # no round started: no deal to keep
            return Decided(decision, by, current.round_deals[round_before:])
        case Sat(seat, player_id, name):
            log.seats[seat] = SeatState("human", name, player_id=player_id)
            log.notice("sat", seat, name)
        case BotSeated(seat, bot):
            log.seats[seat] = SeatState("bot", bot.name, bot=bot)
            log.notice("bot_added", seat, bot.name, bot=bot)
        case Unseated(seat, reason):
            old = log.seats[seat]
            assert old is not None
            log.seats[seat] = None
            if reason == "kicked" and old.player_id is not None:
                log.kicked.add(old.player_id)
            log.notice(reason, seat, old.name, bot=old.bot)
        case HostPassed(player_id, name):
            log.host_id = player_id
            log.notice("host", log.seat_of(player_id), name)  # the seat hears "You are …"
        case Started(game_no):
            log.starts.append((log.n + 1, log.seq))  # the entry being applied is number n + 1
            log.game_no = game_no
            game = Game(rules, rng, deals=deals)
            log.game = game
            log.status = "playing" if not game.is_over else "over"
            log.chats = 0
            log.notice("started", None, None, game_no=game_no)
            log.game_seq = log.seq
            log.tell(game.events)
            return Started(game_no, game.round_deals)
        case AutoPlay(seat, on, reason):
            s = log.seats[seat]
            assert s is not None
            s.auto = on
            s.auto_reason = reason if on else None
            if reason in ("left", "kicked"):
                s.left = True
            if reason == "kicked" and s.player_id is not None:
                log.kicked.add(s.player_id)
            if reason == "took_over":
                s.left = False
            log.notice("auto_on" if on else "auto_off", seat, s.name, reason, bot=s.bot)
        case Chatted(seat, name, text):
            log.chats += 1
            log.seq += 1
            log.items.append(StreamItem(log.seq, "chat", ChatLine(seat, name, text)))
        case HintsSet(on):
            # The table's info says it (a fresh table_state): no stream item, so clients
            # that know no notice of it have nothing new to read.
            log.hints = on
        case Closed():
            log.status = "closed"
            log.notice("closed", None, None)
    return entry


def replay(log: Logged, rules: Rules, entries: Sequence[tuple[int, Entry]],
           rng: random.Random) -> None:
    """Rebuild ``log`` (a fresh one, :meth:`TableData.blank`'s) from its stored entries:
    ``(n, entry)`` in order. ``rng`` shuffles only the rounds the log has no deal for yet."""
    deals: dict[int, list[Deal]] = {}
    game_no = 0
    for _, e in entries:
        if isinstance(e, Started):
            game_no = e.game_no
        if isinstance(e, Started | Decided):
            deals.setdefault(game_no, []).extend(e.deals)
    for n, e in entries:
        apply(log, rules, e, rng, deals.get(e.game_no, ()) if isinstance(e, Started) else ())
        log.n = n


def trim(t: TableData, keep: int) -> None:
    """Keep the stream in memory bounded: past ``2 × keep`` items, the oldest go (the
    store still has them). Called between commands, never while items wait to be sent."""
    if len(t.logged.items) > 2 * keep:
        del t.logged.items[: len(t.logged.items) - keep]


# -- what a seat is asked, what everyone may see ---------------------------------------------------


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


# -- reducing commands ------------------------------------------------------------------------


def reduce(t: TableData, command: Command, now: float) -> tuple[TableData, list[Effect]]:
    """Apply ``command`` at time ``now``: the table, changed in place, and the effects to
    run in order. A refused command changes nothing and gives one :class:`Refuse`."""
    step = _Step(t, now)
    try:
        step.run(command)
    except P.ProtocolError as exc:
        who = getattr(command, "who", None)
        if who is None:
            raise
        return t, [Refuse(who.conn, exc.code, exc.message, getattr(command, "ref", None))]
    return t, step.effects()


class _Step:
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
        new = t.logged.items[len(t.logged.items) - (t.logged.seq - mark):]
        if any(isinstance(item.payload, CardsRevealed) for item in new) and self.person_here():
            t.live.paced_until = self.now + t.limits.reveal_pace
        self.listen(mark)
        if who is not None:
            self.out.append(SendAck(who.conn, ref))
        self.tell(mark, state)

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

