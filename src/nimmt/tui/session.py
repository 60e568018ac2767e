"""The game session: one table, as both terminal faces see it.

The plain line mode and the full-screen Textual app are two faces of one
client. Neither talks to the engine, the bots or the server itself: each holds
a :class:`Session` and only shows what it says. A session keeps

- a :class:`Snapshot` of the table (the seats, your view of the game, the decision
  asked of you as the server's :class:`~nimmt.wire.Prompt`) with the
  :class:`Sheet`, the sentences the shortcuts speak (docs/rules.md §9): the wire's own
  model, as the server sends it;
- a stream of :class:`Said` lines given to its listeners: the narration of
  the game (one line per step of the game, locally as online), notices,
  chat, the decision asked (once per decision), refusals and connection troubles.

Two sessions exist: :class:`~nimmt.tui.local.LocalSession` drives the engine
and the bots on this machine; :class:`~nimmt.tui.remote.RemoteSession` sits at
a table on a server. Sentences about the game come only from
:mod:`nimmt.narrate`: locally the session asks the narrator, online the server
does (with the same narrator), so every face and the web client say the same.
"""

from __future__ import annotations

import threading
import time
from abc import ABC, abstractmethod
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Literal

from ..errors import CardNotInHand, NoSuchRow
from ..narrate import narrator
from ..views import View
from ..wire import Prompt, SeatInfo, Sheet, ViewPayload
from .labels import Labels

__all__ = [
    "Changed",
    "Ended",
    "InputRefused",
    "Listener",
    "Said",
    "Session",
    "Sheet",
    "Snapshot",
    "Update",
    "default_name",
]

SaidKind = Literal["event", "notice", "chat", "decision", "error", "status", "info"]


class InputRefused(Exception):
    """An input the session cannot take; the message is the sentence to say to the player."""


@dataclass(frozen=True, slots=True)
class Snapshot:
    """The table as a face shows it. ``status`` is ``open`` (seating, online), ``playing`` or
    ``over``; ``you`` is your seat (``None`` while watching); ``host`` says whether you may
    start, add bots and ask for a rematch. The game is ``view``, your share of it as the
    engine (locally) or the server (online) gives it; ``seats`` and ``ask`` are the
    server's own models, which a local game makes as the server would."""

    status: Literal["open", "playing", "over"] = "open"
    code: str | None = None
    host: bool = False
    you: int | None = None
    seats: tuple[SeatInfo, ...] = ()
    rules_name: str = ""
    game_no: int = 0
    view: View | ViewPayload | None = None
    ask: Prompt | None = None
    sheet: Sheet = field(default_factory=Sheet.empty)

    @property
    def playing(self) -> bool:
        return self.view is not None or self.status != "open"


@dataclass(frozen=True, slots=True)
class Said:
    """A line to say: ``kind`` tells a face how to show it (a decision or an error is
    urgent; an event is the narration)."""

    text: str
    kind: SaidKind = "event"


@dataclass(frozen=True, slots=True)
class Changed:
    """The snapshot changed: redraw."""


@dataclass(frozen=True, slots=True)
class Ended:
    """The session is over (quit, or the server gone for good); ``text`` says why."""

    text: str = ""


Update = Said | Changed | Ended
Listener = Callable[[Update], None]


class Session(ABC):
    """What both faces hold: the table, the lines to say, and the player's intentions.

    Faces call :meth:`open` once, then :meth:`pump` in a loop (online it takes what
    the server sent; locally there is nothing to take), :meth:`answer` for a card,
    row or draft pick, and :meth:`command` for the table commands. Every change is
    told to the listeners, from the thread that made it; the lock keeps the
    snapshot whole when a face answers from one thread while another pumps.
    """

    def __init__(self, lang: str, listener: Listener | None = None) -> None:
        self.narrator = narrator(lang)
        self.lang = self.narrator.language
        self.labels = Labels(self.lang)
        self.snapshot = Snapshot()
        self.ended = False
        self.lock = threading.RLock()
        self._listeners: list[Listener] = [listener] if listener is not None else []
        self._announced: str | None = None
        #: True while a batch of messages is being told: the decision waits for its end.
        self.holding = False
        #: The last thing said to the player (``/repeat`` says it again).
        self.last_said = ""
        #: The narration of the last reveal of cards (key R says it again).
        self.last_reveal = ""

    # -- listeners ------------------------------------------------------------------

    def listen(self, listener: Listener) -> None:
        self._listeners.append(listener)

    def _emit(self, update: Update) -> None:
        for listener in list(self._listeners):
            listener(update)

    def say(self, text: str, kind: SaidKind = "event") -> None:
        """Give a line to the faces (empty text says nothing)."""
        if not text:
            return
        if kind != "status":
            self.last_said = text
        self._emit(Said(text, kind))

    def _set(self, snapshot: Snapshot) -> None:
        """Take a new snapshot, and say the decision asked if it is a new one (unless
        :attr:`holding`: the session says it once the messages that came together are told)."""
        self.snapshot = snapshot
        self._emit(Changed())
        if not self.holding:
            self.announce()

    def announce(self) -> None:
        """Say the decision asked of the player, once per decision."""
        ask = self.snapshot.ask
        if ask is not None and ask.key != self._announced:
            self._announced = ask.key
            self.say(self.snapshot.sheet.typed_decision or "", "decision")

    def forget_announced(self) -> None:
        """Say the decision asked again at the next change, even if it was said before."""
        self._announced = None

    def end(self, text: str = "") -> None:
        if not self.ended:
            self.ended = True
            self._emit(Ended(text))

    # -- what faces call ---------------------------------------------------------------

    @abstractmethod
    def open(self) -> None:
        """Start: deal the first round (local) or connect and take a seat (online)."""

    def pump(self, timeout: float = 0.0) -> None:
        """Take what arrived (online) within ``timeout`` seconds. Locally nothing arrives
        by itself (the bots answer within :meth:`answer`): this only waits."""
        if timeout > 0:
            time.sleep(timeout)

    @abstractmethod
    def answer(self, value: int) -> None:
        """Answer the decision asked: a card, a row number or a draft pick.

        Raises :class:`InputRefused` with the sentence to say when it cannot be taken.
        """

    @abstractmethod
    def hint(self) -> str:
        """The expert's advice on the decision asked of the player, as one sentence, from
        the player's view only. Takes up to a second (a search): faces that must stay
        responsive call it from a thread. Raises :class:`InputRefused` with the sentence to
        say when there is nothing to advise on or no hint may be had."""

    @abstractmethod
    def command(self, name: str, arg: str = "") -> None:
        """A table command: ``start``, ``bot`` (strength), ``sit``, ``rematch``, ``say``
        (chat text), ``leave``. Raises :class:`InputRefused` with the sentence to say."""

    def close(self) -> None:
        """Stop (online: close the connection; the seat waits at the server)."""
        self.end()

    # -- checks both sessions share ------------------------------------------------------

    def check_answer(self, value: int) -> Prompt:
        """The decision ``value`` answers, or :class:`InputRefused` saying why it cannot."""
        ask = self.snapshot.ask
        if ask is None:
            raise InputRefused(self.labels("nothing_asked"))
        if value not in ask.options:
            error = NoSuchRow() if ask.kind == "row" else CardNotInHand()
            raise InputRefused(self.narrator.error_sentence(error))
        return ask

    def results(self) -> list[str]:
        """The final scores in the order of the standings, each with its place as the view
        gives it (the web client's results show the same), and the winners: lines for the
        end."""
        snap = self.snapshot
        view = snap.view
        if view is None:
            return []
        n = self.narrator
        names = [self.labels("seat.you", name=s.name) if p == snap.you else s.name or ""
                 for p, s in enumerate(snap.seats)]
        places = view.places
        order = sorted(range(len(places)), key=lambda p: (places[p], p))
        lines = [self.labels("results.title")]
        for p in order:
            lines.append(self.labels("results.line", place=places[p], name=names[p],
                                     points=n.count_bullheads(view.totals[p])))
        winners = [names[p] for p in view.winners]
        if winners:
            key = "results.winner" if len(winners) == 1 else "results.winners"
            lines.append(self.labels(key, names=n.join(winners)))
        return lines


def default_name() -> str:
    """The login name, capitalized: what a person is likely called at a table (``Player``
    when there is none, or it is ``root``)."""
    import getpass
    import re

    try:
        who = getpass.getuser()
    except Exception:
        who = ""
    who = re.sub(r"[^\w.-]", "", who)[:24]
    return who.capitalize() if who and who != "root" else "Player"
