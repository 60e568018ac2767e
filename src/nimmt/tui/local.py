"""A game on this machine: the engine and the bots, driven directly, no server.

The session holds a :class:`nimmt.Game`, one bot per other seat (any spec of
:func:`nimmt.bots.make_bot`), and the player's seat 0. After each of the
player's decisions the bots answer every decision pending for them, from their
own views only, until the game waits for the player again or ends; the events
of that stretch are narrated for the player's seat as the server narrates a frame: one
line per resolution step (:meth:`nimmt.Narrator.steps`). A seed
makes the whole game repeatable (the deals and every bot's choices), and the
record of each finished game can be saved and replayed with ``nimmt replay``.
"""

from __future__ import annotations

import random
import secrets
import zlib
from collections.abc import Sequence
from pathlib import Path

from ..bots import Budget, make_bot
from ..bots.base import Bot
from ..decisions import DecisionKind, DraftCard, PlayCard, TakeRow
from ..engine import Game
from ..events import CardsRevealed, Event, for_viewer
from ..narrate.events import others_have_chosen
from ..record import record_from_game, save_record
from ..rules import Rules
from ..walk import Steps, walk
from ..wire import Prompt, SeatInfo, build, sheet_payload
from .session import InputRefused, Listener, Session, Snapshot, default_name

__all__ = ["BOT_NAMES", "LocalSession"]

#: Names for the bots' seats, in seat order (a name the player took is skipped).
BOT_NAMES = ("Ana", "Bob", "Cleo", "Dan", "Eva", "Filip", "Greta", "Hugo", "Iva", "Jan", "Kim")


class LocalSession(Session):
    """The player in seat 0 against ``bots`` (one spec per other seat) under ``rules``.

    ``seed`` deals the rounds and seeds the bots (a fresh one when ``None``; each
    rematch uses the next); ``bot_seconds`` is a search bot's think time per
    decision; ``record`` is where each finished game's record is written (the
    second game of a session to ``NAME-2.json``, and so on).
    """

    def __init__(
        self,
        rules: Rules,
        bots: Sequence[str],
        *,
        name: str | None = None,
        seed: int | None = None,
        lang: str = "en",
        bot_seconds: float = 1.0,
        record: Path | None = None,
        listener: Listener | None = None,
    ) -> None:
        super().__init__(lang, listener)
        if len(bots) != rules.players - 1:
            raise ValueError(f"{rules.players} players need {rules.players - 1} bots")
        self.rules = rules
        self.specs = list(bots)
        self.seed = secrets.randbits(32) if seed is None else seed
        self.bot_seconds = bot_seconds
        self.record = record
        me = name or default_name()
        others = [n for n in BOT_NAMES if n != me]
        self.names = [me, *others[: len(bots)]]
        #: The seats as a server would show them: the player, then a bot in every other.
        self.seats = tuple(
            build(SeatInfo, {"seat": p, "name": name, "kind": "bot" if p else "human",
                             "bot": self.specs[p - 1] if p else None, "connected": True,
                             "auto": False})
            for p, name in enumerate(self.names))
        self.game_no = 0
        self.game: Game | None = None
        self.bots: list[Bot | None] = []

    # -- the game ----------------------------------------------------------------------

    def open(self) -> None:
        with self.lock:
            self.say(self.narrator.rules_sentence(self.rules), "info")
            self.say(self.narrator.players_sentence(self.names), "info")
            self._new_game()

    def _new_game(self) -> None:
        self.game_no += 1
        seed = self.seed + self.game_no - 1
        budget = Budget(seconds=self.bot_seconds)
        self.bots = [None] + [
            make_bot(spec, seed=seed * 16 + seat, budget=budget)
            for seat, spec in enumerate(self.specs, 1)
        ]
        self.game = Game(self.rules, random.Random(seed))
        self._tell(list(self.game.events) + self._run_bots())

    def _run_bots(self) -> list[Event]:
        """Let the bots make every decision pending for them; the events that came of it."""
        game = self.game
        assert game is not None
        out: list[Event] = []
        while not game.is_over:
            pending = game.pending
            if pending is None:
                break
            seat = next((p for p in pending.players if p != 0), None)
            if seat is None:
                break
            bot = self.bots[seat]
            assert bot is not None
            view = game.view(seat)
            if pending.kind is DecisionKind.CARD:
                out += game.decide(PlayCard(seat, bot.choose_card(view)))
            elif pending.kind is DecisionKind.ROW:
                out += game.decide(TakeRow(seat, bot.choose_row(view)))
            else:
                out += game.decide(DraftCard(seat, bot.draft_card(view)))
        return out

    def _tell(self, events: list[Event]) -> None:
        """Narrate ``events`` for seat 0 as the server would (one line per resolution step,
        the others' hidden choices summed up when only the player's card is awaited), then
        show the table as it is."""
        game = self.game
        assert game is not None
        seen = [e for e in (for_viewer(event, 0) for event in events) if e is not None]
        others = others_have_chosen(game.view(0))
        for line in self.narrator.steps(seen, self.names, 0, others):
            self.say(line)
        revealed = [step for step in walk(seen, Steps())
                    if any(type(e) is CardsRevealed for e in step)]
        if revealed:
            # Key R: the last step that revealed cards, as it was just told.
            self.last_reveal = self.narrator.announce(revealed[-1], self.names, 0, others)
        self._refresh()
        if game.is_over:
            self._finish()

    def _refresh(self) -> None:
        game = self.game
        assert game is not None
        view = game.view(0)
        ask = None
        pending = view.pending
        if pending is not None and 0 in pending.players and view.options:
            kind = pending.kind.value
            key = f"{self.game_no}.{view.round}.{view.turn}.{kind}.{pending.card}.{len(view.hand)}"
            ask = build(Prompt, {"kind": kind, "key": key, "options": view.options,
                                 "card": pending.card, "reason": pending.reason})
        snap = Snapshot(
            status="over" if game.is_over else "playing",
            host=True,
            you=0,
            seats=self.seats,
            rules_name=self.rules.name,
            game_no=self.game_no,
            view=view,
            ask=ask,
            # Said as the server says it to a seat: the same function makes both.
            sheet=sheet_payload(view, self.names, self.narrator,
                                presence=[s.presence for s in self.seats]),
        )
        self._set(snap)

    def _finish(self) -> None:
        for line in self.results():
            self.say(line, "info")
        if self.record is not None:
            game = self.game
            assert game is not None
            path = self.record
            if self.game_no > 1:
                path = path.with_name(f"{path.stem}-{self.game_no}{path.suffix}")
            path.parent.mkdir(parents=True, exist_ok=True)
            save_record(record_from_game(game, self.names), path)
            self.say(self.labels("record.saved", path=path), "info")
        self.say(self.labels("results.again"), "info")

    # -- the player's intentions ---------------------------------------------------------

    def answer(self, value: int) -> None:
        with self.lock:
            ask = self.check_answer(value)
            game = self.game
            assert game is not None
            if ask.kind == "card":
                events = game.decide(PlayCard(0, value))
            elif ask.kind == "row":
                events = game.decide(TakeRow(0, value))
            else:
                events = game.decide(DraftCard(0, value))
            self._tell(events + self._run_bots())

    def hint(self) -> str:
        with self.lock:
            game = self.game
            ask = self.snapshot.ask
            if game is None or ask is None:
                raise InputRefused(self.labels("nothing_asked"))
            view = game.view(0)  # the player's view: a hint knows what they know
        try:
            from ..sim.advice import advise
        except ImportError:  # no numpy/numba: no search
            raise InputRefused(self.labels("hint.unavailable")) from None
        # The decision's own seed: the same question gets the same answer.
        advice = advise(view, seed=zlib.crc32(f"{self.seed}:{ask.key}".encode()))
        return self.narrator.advice_sentence(advice)

    def command(self, name: str, arg: str = "") -> None:
        with self.lock:
            if name == "rematch":
                if self.game is not None and not self.game.is_over:
                    raise InputRefused(self.narrator.refusal_sentence("not_over"))
                self._new_game()
                return
            raise InputRefused(self.labels("online.local_only"))
