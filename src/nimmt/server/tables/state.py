"""What a table holds: what its log rebuilds (:class:`Logged`), what lives only while the
server runs (:class:`Live`), and the two together with what the table is
(:class:`TableData`); the stream's items, the seats, and the limits a table keeps.

:class:`TableData` is changed in place (a game is too costly to copy per decision).
What it holds is kept in two parts: :class:`Logged`, what the log rebuilds (seats, game,
stream, host, hints), changed only by :func:`.apply.apply`, so a replay gives an equal
one; and :class:`Live`, what lives only while the server runs (connections, timers,
bots asked, card changes), which a restart starts afresh.
"""

from __future__ import annotations

import random
from collections.abc import Iterable
from dataclasses import InitVar, dataclass, field, fields
from typing import TYPE_CHECKING, Literal, NamedTuple

from ...engine import Game
from ...events import Event
from ...narrate import SOURCE_LANGUAGE, Narrator, UnknownLanguage, narrator
from ...rules import Rules
from ...wire import TableStatus
from .commands import Audience, Timer
from .tablelog import AutoReason, BotSeat

if TYPE_CHECKING:
    from ..base.settings import Settings

__all__ = ["ChatLine", "Limits", "Live", "Logged", "Notice", "SeatState", "StreamItem",
           "TableData", "seat_name", "speaker_of"]


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
    #: Seconds the next round's deal waits after a round's end while a person is at the
    #: table, so the round's score sheet can be seen (0: no wait).
    round_pause: float = 0.0
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
    #: The shuffle of the rounds the game still deals (:class:`~.tablelog.Dealt`): the
    #: game's seed, or a fresh one after a restart, which deals only what the log lacks.
    shuffle: random.Random | None = field(default=None, compare=False)
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
