"""The game: a state machine that takes one decision at a time.

A :class:`Game` deals from a seed (or from explicit :class:`Deal` values), says
which decision is pending and for whom (:attr:`Game.pending`), lists the legal
options (:meth:`Game.legal`), validates and applies one decision, and returns
the typed events it caused. Nothing is ever decided silently on a player's
behalf: a card too low for every row, or a joker, pauses the resolution until
its player chooses a row.

>>> from nimmt import Game, Rules
>>> game = Game(Rules.preset("classic", players=3), seed=7)
>>> game.pending.kind, game.pending.players
(<DecisionKind.CARD: 'card'>, (0, 1, 2))
>>> card = game.legal(0)[0]
>>> [type(e).__name__ for e in game.play_card(0, card)]
['CardChosen']
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum
from operator import itemgetter
from typing import Literal, TypeAlias

from .cards import BULLHEADS, JOKERS, Card, card_label, is_card
from .errors import CardNotInHand, GameOverError, NoSuchRow, NotYourDecision, RulesError
from .events import (
    CardChosen,
    CardDrafted,
    CardPlaced,
    CardsRevealed,
    DraftStarted,
    Event,
    GameOver,
    HandDealt,
    Play,
    PlayerEliminated,
    RoundScored,
    RoundStarted,
    RowChoiceNeeded,
    Rows,
    RowsDealt,
    RowTaken,
    TurnStarted,
)
from .rules import HAND_SIZE, ROW_CAPACITY, ROWS, EndMode, Rules

__all__ = [
    "Deal",
    "Decision",
    "DecisionKind",
    "DraftCard",
    "Game",
    "Pending",
    "Phase",
    "PlayCard",
    "TakeRow",
    "View",
    "sample_world",
]

ROW_NUMBERS: tuple[int, ...] = tuple(range(1, ROWS + 1))


class Phase(StrEnum):
    """Where the game stands."""

    DRAFT = "draft"  #: logic: players pick cards from the face-up pool
    CHOOSE = "choose"  #: players choose the card of this turn
    ROW = "row"  #: the resolution waits for a row choice
    DEAL = "deal"  #: a new round needs a deal (no seed and no deal left); see Game.deal
    OVER = "over"  #: the game has ended


_CHOOSE = Phase.CHOOSE
_BY_CARD = itemgetter(1)
_NO_JOKERS = tuple((False,) * n for n in range(11))


class DecisionKind(StrEnum):
    """The three kinds of decision a player can be asked for (RULES.md §5)."""

    CARD = "card"
    ROW = "row"
    DRAFT = "draft"


_CARD = DecisionKind.CARD


@dataclass(slots=True, init=False)
class Pending:
    """The decision the game waits for.

    ``players`` are the seats that still have to decide: for the card choice
    every player who has not chosen yet (all at once; a player who has chosen
    may still change their card until the last one chooses); for a row choice
    or a draft pick, one player. For a row choice ``card`` is the card to place
    and ``reason`` says why the choice is needed.
    """

    kind: DecisionKind
    players: tuple[int, ...]
    card: Card | None = None
    reason: Literal["too_low", "joker"] | None = None

    def __init__(
        self,
        kind: DecisionKind,
        players: tuple[int, ...],
        card: Card | None = None,
        reason: Literal["too_low", "joker"] | None = None,
    ) -> None:
        self.kind = kind
        self.players = players
        self.card = card
        self.reason = reason

    # A value, never mutated; not frozen only because it is created on the hot path.


@dataclass(frozen=True, slots=True)
class PlayCard:
    """Choose ``card`` for this turn."""

    player: int
    card: Card


@dataclass(frozen=True, slots=True)
class TakeRow:
    """Choose row ``row`` (1..4) for the card waiting to be placed."""

    player: int
    row: int


@dataclass(frozen=True, slots=True)
class DraftCard:
    """Logic: take ``card`` from the face-up pool."""

    player: int
    card: Card


Decision: TypeAlias = PlayCard | TakeRow | DraftCard


@dataclass(frozen=True, slots=True)
class Deal:
    """One round's deal, given explicitly (tests, puzzles, replays).

    ``rows`` are the four starting rows (usually one card each; a puzzle may
    give longer rows), ``hands`` one tuple per seat (empty for eliminated
    seats), all the same size from 1 to 10. For ``logic`` give only ``pool``:
    the face-up cards to draft.
    """

    rows: Rows = ()
    hands: tuple[tuple[Card, ...], ...] = ()
    pool: tuple[Card, ...] = ()


# Pending, Table and View spell out __init__ for the same reason as the events
# (see events.py): they are created on every decision.
@dataclass(slots=True, init=False)
class Table:
    """The public part of the table: what every player and spectator may know.

    One snapshot is shared by every view until the table changes, so that
    asking for a view costs little. ``hands`` holds every hand only where hands
    are public (``open-hands``, and the face-up ``logic`` draft), else ``None``.
    ``first_picker`` is the seat that picked first in this round's ``logic`` draft.
    A value: never mutate it.
    """

    round: int
    turn: int
    phase: Phase
    rows: Rows
    scores: tuple[int, ...]
    penalties: tuple[int, ...]
    taken: tuple[tuple[Card, ...], ...]
    hand_sizes: tuple[int, ...]
    revealed: tuple[tuple[Play, ...], ...]
    to_resolve: tuple[Play, ...]
    hands: tuple[tuple[Card, ...], ...] | None
    active: tuple[int, ...]
    eliminated: tuple[bool, ...]
    has_joker: tuple[bool, ...]
    marker: int | None
    draft_pool: tuple[Card, ...]
    winners: tuple[int, ...]
    first_picker: int | None

    def __init__(
        self,
        round: int,
        turn: int,
        phase: Phase,
        rows: Rows,
        scores: tuple[int, ...],
        penalties: tuple[int, ...],
        taken: tuple[tuple[Card, ...], ...],
        hand_sizes: tuple[int, ...],
        revealed: tuple[tuple[Play, ...], ...],
        to_resolve: tuple[Play, ...],
        hands: tuple[tuple[Card, ...], ...] | None,
        active: tuple[int, ...],
        eliminated: tuple[bool, ...],
        has_joker: tuple[bool, ...],
        marker: int | None,
        draft_pool: tuple[Card, ...],
        winners: tuple[int, ...],
        first_picker: int | None,
    ) -> None:
        self.round = round
        self.turn = turn
        self.phase = phase
        self.rows = rows
        self.scores = scores
        self.penalties = penalties
        self.taken = taken
        self.hand_sizes = hand_sizes
        self.revealed = revealed
        self.to_resolve = to_resolve
        self.hands = hands
        self.active = active
        self.eliminated = eliminated
        self.has_joker = has_joker
        self.marker = marker
        self.draft_pool = draft_pool
        self.winners = winners
        self.first_picker = first_picker


@dataclass(slots=True, init=False)
class View:
    """Everything one player may know (RULES.md §6), and nothing more.

    ``player`` is ``None`` for a spectator, who sees only public information.
    ``table`` is the public part (its fields are also readable here directly:
    ``view.rows``, ``view.scores``, ...). ``chosen`` says who has chosen this
    turn; ``face_up`` holds the cards chosen face up this turn (``open``); a
    face-down choice is visible only to its chooser, as ``my_choice``.
    ``options`` are the viewer's legal options now. A value: never mutate it.
    """

    rules: Rules
    player: int | None
    table: Table
    pending: Pending | None
    face_up: tuple[Card | None, ...]
    hand: tuple[Card, ...]
    my_choice: Card | None
    options: tuple[int, ...]

    def __init__(
        self,
        rules: Rules,
        player: int | None,
        table: Table,
        pending: Pending | None,
        face_up: tuple[Card | None, ...],
        hand: tuple[Card, ...],
        my_choice: Card | None,
        options: tuple[int, ...],
    ) -> None:
        self.rules = rules
        self.player = player
        self.table = table
        self.pending = pending
        self.face_up = face_up
        self.hand = hand
        self.my_choice = my_choice
        self.options = options

    def seen_cards(self) -> set[Card]:
        """Every card the viewer has seen this round.

        Their hand, the rows, the taken piles, the revealed cards and the cards
        chosen face up: what a card-counting bot or a determinizer must exclude
        from the other hands.
        """
        seen: set[Card] = set(self.hand)
        table = self.table
        for row in table.rows:
            seen.update(row)
        for pile in table.taken:
            seen.update(pile)
        for turn in table.revealed:
            for _, c in turn:
                seen.add(c)
        for face in self.face_up:
            if face is not None:
                seen.add(face)
        return seen

    @property
    def chosen(self) -> tuple[bool, ...]:
        """Per seat: has chosen this turn's card (not what, unless face up)."""
        # Derived rather than stored: asking for a view stays cheap.
        table = self.table
        n = len(table.eliminated)
        if table.phase is Phase.ROW:
            active = table.active
            return tuple([p in active for p in range(n)])
        if table.phase is not Phase.CHOOSE or self.pending is None:
            return (False,) * n
        if self.rules.open_play:
            return tuple([c is not None for c in self.face_up])
        waiting = self.pending.players
        active = table.active
        return tuple([p in active and p not in waiting for p in range(n)])

    @property
    def round(self) -> int:
        """The round number, from 1."""
        return self.table.round

    @property
    def turn(self) -> int:
        """The turn within the round (1..10); 0 between rounds and during a draft."""
        return self.table.turn

    @property
    def phase(self) -> Phase:
        """Where the game stands."""
        return self.table.phase

    @property
    def rows(self) -> Rows:
        """The four rows, row 1 first."""
        return self.table.rows

    @property
    def scores(self) -> tuple[int, ...]:
        """Totals per seat before this round's penalties."""
        return self.table.scores

    @property
    def penalties(self) -> tuple[int, ...]:
        """This round's penalties so far, per seat."""
        return self.table.penalties

    @property
    def taken(self) -> tuple[tuple[Card, ...], ...]:
        """The cards each seat has taken this round."""
        return self.table.taken

    @property
    def hand_sizes(self) -> tuple[int, ...]:
        """How many cards each seat holds."""
        return self.table.hand_sizes

    @property
    def revealed(self) -> tuple[tuple[Play, ...], ...]:
        """Every turn's revealed plays this round, in resolution order."""
        return self.table.revealed

    @property
    def to_resolve(self) -> tuple[Play, ...]:
        """Revealed plays not yet placed; the first may await a row choice."""
        return self.table.to_resolve

    @property
    def hands(self) -> tuple[tuple[Card, ...], ...] | None:
        """Every hand, where hands are public; else ``None``."""
        return self.table.hands

    @property
    def active(self) -> tuple[int, ...]:
        """The seats playing this round."""
        return self.table.active

    @property
    def eliminated(self) -> tuple[bool, ...]:
        """Per seat: out of the game (elimination end)."""
        return self.table.eliminated

    @property
    def has_joker(self) -> tuple[bool, ...]:
        """Per seat: still holds their joker (jokers variant)."""
        return self.table.has_joker

    @property
    def marker(self) -> int | None:
        """Open: the seat holding the first-player marker this turn."""
        return self.table.marker

    @property
    def draft_pool(self) -> tuple[Card, ...]:
        """Logic: the face-up cards still to draft."""
        return self.table.draft_pool

    @property
    def winners(self) -> tuple[int, ...]:
        """The winners once the game is over; empty before."""
        return self.table.winners


# Every attribute of a game: its slots, and what clone() copies.
_GAME_FIELDS: tuple[str, ...] = (
    "_active_tuple",
    "_deals",
    "_draft_i",
    "_draft_order",
    "_draft_pool",
    "_eliminated",
    "_first_picker",
    "_firsts",
    "_lasts",
    "_no_face_up",
    "_open",
    "_pend_row",
    "_pending",
    "_qi",
    "_queue",
    "_rng",
    "_table",
    "_taken",
    "_unchosen",
    "chosen",
    "decisions",
    "events",
    "hands",
    "marker",
    "order",
    "penalties",
    "phase",
    "revealed",
    "round",
    "round_deals",
    "rows",
    "rules",
    "scores",
    "start_scores",
    "turn",
    "winners",
)


class Game:
    """One game of 6 nimmt!, from the first deal to the winner.

    Give either ``seed`` (an ``int`` or a ``random.Random``; it deals every
    round) or ``deals`` (explicit deals, used first, round by round), or both.
    When neither can deal the next round, the game waits in
    :attr:`Phase.DEAL` for :meth:`deal`. ``scores`` sets starting totals.
    """

    __slots__ = _GAME_FIELDS

    rules: Rules
    _rng: random.Random | None
    _deals: list[Deal]
    start_scores: tuple[int, ...]
    scores: tuple[int, ...]
    _eliminated: list[bool]
    events: list[Event]
    decisions: list[list[tuple[str, int, int]]]
    round_deals: list[Deal]
    winners: tuple[int, ...]
    round: int
    turn: int
    marker: int | None
    phase: Phase
    _pending: Pending | None
    hands: list[tuple[Card, ...]]
    rows: list[tuple[Card, ...]]
    _lasts: list[int]
    _firsts: list[int]
    chosen: list[Card | None]
    order: tuple[int, ...]
    penalties: tuple[int, ...]
    _taken: tuple[tuple[Card, ...], ...]
    revealed: tuple[tuple[Play, ...], ...]
    _queue: list[Play]
    _qi: int
    _pend_row: tuple[int, Card, Literal["too_low", "joker"]] | None
    _draft_pool: list[Card]
    _draft_order: list[int]
    _draft_i: int
    _active_tuple: tuple[int, ...]
    _first_picker: int | None
    _no_face_up: tuple[None, ...]
    _open: bool
    _table: Table | None
    _unchosen: int

    def __init__(
        self,
        rules: Rules,
        seed: object = None,
        *,
        deals: Sequence[Deal] = (),
        scores: Sequence[object] | None = None,
    ) -> None:
        self.rules = rules
        self._open = rules.open_play
        self._no_face_up = (None,) * rules.players
        self._table = None
        if seed is None or isinstance(seed, random.Random):
            self._rng = seed
        elif type(seed) is int:
            self._rng = random.Random(seed)
        else:
            raise TypeError(f"seed must be an int or a random.Random, not {seed!r}")
        n = rules.players
        start = [0] * n
        if scores is not None:
            start = [s for s in scores if type(s) is int and s >= 0]
            if len(scores) != n or len(start) != n:
                raise RulesError(f"starting scores must be {n} whole numbers >= 0")
        self._deals = list(deals)
        if self._deals and rules.end is not EndMode.ELIMINATION:
            # Every seat plays every round: each deal can be checked now, before any play.
            everyone = tuple(range(n))
            for k, deal in enumerate(self._deals, 1):
                try:
                    self._check_deal(deal, everyone)
                except RulesError as exc:
                    raise RulesError(f"round {k} {exc}") from None
        self.start_scores = tuple(start)
        self.scores = tuple(start)
        self._eliminated = [False] * n
        self.events = []
        #: Decisions of each round as ``(kind, player, value)``, for records.
        self.decisions = []
        #: The deal of each round, for records.
        self.round_deals = []
        self.winners = ()
        self.round = 0
        self.turn = 0
        self.marker = None
        self._first_picker = None
        self.phase = Phase.DEAL
        self._pending = None
        self._clear_round()
        self._next_round(self.events)

    # -- public queries -------------------------------------------------------

    @property
    def is_over(self) -> bool:
        """True once the game has ended (see :attr:`winners`)."""
        return self.phase is Phase.OVER

    @property
    def active(self) -> tuple[int, ...]:
        """The seats playing this round (not eliminated)."""
        return self._active_tuple

    @property
    def pending(self) -> Pending | None:
        """The decision the game waits for, or ``None`` when over or waiting for a deal."""
        p = self._pending
        if p is None:
            p = self._pending = self._compute_pending()
        return p

    def legal(self, player: object) -> tuple[int, ...]:
        """The options ``player`` may choose now: cards, or row numbers 1..4.

        Empty when no decision of theirs is pending (or ``player`` is no seat).
        """
        if type(player) is not int or not 0 <= player < len(self.hands):
            return ()
        phase = self.phase
        if phase is Phase.CHOOSE:
            if self.rules.open_play:
                expected = self.order[len(self.order) - self._unchosen]
                return self.hands[player] if expected == player else ()
            if 0 <= player < len(self.hands) and not self._eliminated[player]:
                return self.hands[player]
            return ()
        if phase is Phase.ROW:
            return ROW_NUMBERS if self._pend_row is not None and self._pend_row[0] == player else ()
        if phase is Phase.DRAFT:
            return (
                tuple(sorted(self._draft_pool))
                if self._draft_order[self._draft_i] == player
                else ()
            )
        return ()

    # -- decisions ------------------------------------------------------------

    def decide(self, decision: object) -> list[Event]:
        """Apply one decision; returns the events it caused (also appended to :attr:`events`)."""
        if type(decision) is PlayCard:
            return self.play_card(decision.player, decision.card)
        if type(decision) is TakeRow:
            return self.take_row(decision.player, decision.row)
        if type(decision) is DraftCard:
            return self.draft_card(decision.player, decision.card)
        raise TypeError(f"not a decision: {decision!r}")

    def play_card(self, player: object, card: object) -> list[Event]:
        """``player`` chooses ``card`` for this turn.

        In the simultaneous game a player may choose again to change their
        card until the last player has chosen; then all cards are revealed at
        once and resolved. In ``open`` players choose in turn order, face up.
        """
        if self.phase is not _CHOOSE:
            self._wrong_phase(DecisionKind.CARD)
        hands = self.hands
        if type(player) is not int or not 0 <= player < len(hands):
            raise NotYourDecision(f"there is no player {player!r} at this table")
        if self._eliminated[player]:
            raise NotYourDecision(f"player {player} is eliminated and has no cards")
        if type(card) is not int or card not in hands[player]:
            raise CardNotInHand(f"card {_label(card)} is not in player {player}'s hand")
        chosen = self.chosen
        if self._open:
            expected = self.order[len(self.order) - self._unchosen]
            if player != expected:
                raise NotYourDecision(f"it is player {expected}'s turn to choose, not {player}'s")
            event = CardChosen(player, card, True)
        else:
            event = CardChosen(player, card)
        self.decisions[-1].append(("card", player, card))
        self.events.append(event)
        if chosen[player] is not None:  # a changed choice: nobody new has chosen
            chosen[player] = card
            return [event]
        chosen[player] = card
        self._pending = None
        self._unchosen -= 1
        if self._unchosen:
            return [event]
        out: list[Event] = []
        self._reveal(out)
        self.events.extend(out)
        out.insert(0, event)
        return out

    def take_row(self, player: object, row: object) -> list[Event]:
        """``player`` chooses row ``row`` (1..4) for their too-low card or joker."""
        if self.phase is not Phase.ROW:
            self._wrong_phase(DecisionKind.ROW)
        self._check_seat(player)
        pend = self._pend_row
        assert pend is not None
        p, card, reason = pend
        if player != p:
            raise NotYourDecision(
                f"player {p} chooses the row for card {_label(card)}, not {player}"
            )
        if type(row) is not int or not 1 <= row <= ROWS:
            raise NoSuchRow(f"there is no row {row!r}; rows are numbered 1 to {ROWS}")
        self.decisions[-1].append(("row", player, row))
        self._table = None
        out: list[Event] = []
        i = row - 1
        if reason == "too_low":
            self._take(player, i, "too_low", out)
            self._start_row(player, card, i, out)
        elif len(self.rows[i]) >= ROW_CAPACITY:
            self._take(player, i, "full", out)
            self._start_row(player, card, i, out)
        else:
            self.rows[i] = (*self.rows[i], card)
            self._lasts[i] += card + 10
            out.append(CardPlaced(player, card, row))
        self._pend_row = None
        self._qi += 1
        self.phase = Phase.CHOOSE
        self._pending = None
        self._resolve(out)
        self.events.extend(out)
        return out

    def draft_card(self, player: object, card: object) -> list[Event]:
        """Logic: ``player`` takes ``card`` from the face-up pool."""
        if self.phase is not Phase.DRAFT:
            self._wrong_phase(DecisionKind.DRAFT)
        self._check_seat(player)
        expected = self._draft_order[self._draft_i]
        if player != expected:
            raise NotYourDecision(f"it is player {expected}'s turn to draft, not {player}'s")
        if type(card) is not int or card not in self._draft_pool:
            raise CardNotInHand(f"card {_label(card)} is not in the pool")
        self.decisions[-1].append(("draft", player, card))
        self._table = None
        self._draft_pool.remove(card)
        self.hands[player] = tuple(sorted((*self.hands[player], card)))
        out: list[Event] = [CardDrafted(player, card)]
        self._draft_i += 1
        self._pending = None
        if self._draft_i == len(self._draft_order):
            rows = tuple((c,) for c in sorted(self._draft_pool))
            self._draft_pool = []
            self._set_rows(rows, out)
            self._start_turn(1, out)
        self.events.extend(out)
        return out

    def deal(self, deal: Deal) -> list[Event]:
        """Give the deal of the next round when the game waits for one (:attr:`Phase.DEAL`).

        A deal that does not fit the round is refused and changes nothing.
        """
        if self.phase is Phase.OVER:
            raise GameOverError("the game is over")
        if self.phase is not Phase.DEAL:
            raise NotYourDecision("the game is not waiting for a deal")
        self._check_deal(deal, self._seats_in_play())
        self._deals.insert(0, deal)
        out: list[Event] = []
        self._next_round(out)
        self.events.extend(out)
        return out

    # -- views ----------------------------------------------------------------

    def view(self, player: object = None) -> View:
        """What ``player`` (or a spectator, ``None``) may know now (RULES.md §6)."""
        table = self._table
        if table is None:
            table = self._table = self._make_table()
        pending = self._pending
        if pending is None:
            pending = self._pending = self._compute_pending()
        chosen = self.chosen
        face_up = tuple(chosen) if self._open else self._no_face_up
        if player is None:
            return View(self.rules, None, table, pending, face_up, (), None, ())
        if type(player) is not int or not 0 <= player < len(self.hands):
            raise NotYourDecision(f"there is no player {player!r} at this table")
        hand = self.hands[player]
        if self.phase is _CHOOSE and not self._open:
            options = () if self._eliminated[player] else hand
        else:
            options = self.legal(player)
        return View(self.rules, player, table, pending, face_up, hand, chosen[player], options)

    def _make_table(self) -> Table:
        rules = self.rules
        return Table(
            self.round,
            self.turn,
            self.phase,
            tuple(self.rows),
            self.scores,
            self.penalties,
            self._taken,
            tuple([len(h) for h in self.hands]),
            self.revealed,
            tuple(self._queue[self._qi :]),
            tuple(self.hands) if rules.open_hands or rules.logic else None,
            self._active_tuple,
            tuple(self._eliminated),
            self._has_joker(),
            self.marker,
            tuple(sorted(self._draft_pool)) if self._draft_pool else (),
            self.winners,
            self._first_picker,
        )

    def clone(self) -> Game:
        """An independent copy (the random generator is copied too)."""
        g = Game(self.rules)  # a blank game waiting for a deal, then overwritten
        for name in _GAME_FIELDS:
            setattr(g, name, getattr(self, name))
        g._rng = _copy_rng(self._rng)
        g._deals = list(self._deals)
        g._eliminated = list(self._eliminated)
        g.events = list(self.events)
        g.decisions = [list(d) for d in self.decisions]
        g.round_deals = list(self.round_deals)
        g.rows = list(self.rows)
        g._lasts = list(self._lasts)
        g._firsts = list(self._firsts)
        g.hands = list(self.hands)
        g.chosen = list(self.chosen)
        g._queue = list(self._queue)
        g._draft_pool = list(self._draft_pool)
        g._draft_order = list(self._draft_order)
        return g

    def __repr__(self) -> str:
        return (
            f"<Game {self.rules.name} players={self.rules.players} round={self.round} "
            f"turn={self.turn} phase={self.phase.value}>"
        )

    # -- internals ------------------------------------------------------------

    def _clear_round(self) -> None:
        n = self.rules.players
        self.hands = [()] * n
        self.rows = []
        self._lasts = []
        self._firsts = []
        self.chosen = [None] * n
        self.order = ()
        self.penalties = (0,) * n
        self._taken = ((),) * n
        self.revealed = ()
        self._queue = []
        self._qi = 0
        self._pend_row = None
        self._draft_pool = []
        self._draft_order = []
        self._draft_i = 0
        self._unchosen = 0
        self._active_tuple = tuple(p for p in range(n) if not self._eliminated[p])

    def _check_seat(self, player: object) -> None:
        if type(player) is not int or not 0 <= player < self.rules.players:
            raise NotYourDecision(f"there is no player {player!r} at this table")

    def _wrong_phase(self, kind: DecisionKind) -> None:
        if self.phase is Phase.OVER:
            raise GameOverError("the game is over")
        if self.phase is Phase.DEAL:
            raise NotYourDecision("the game waits for the deal of the next round")
        pending = self.pending
        assert pending is not None
        raise NotYourDecision(
            f"a {pending.kind.value} decision is pending (players {list(pending.players)}), "
            f"not a {kind.value} decision"
        )

    def _compute_pending(self) -> Pending | None:
        phase = self.phase
        if phase is Phase.CHOOSE:
            if self.rules.open_play:
                return Pending(DecisionKind.CARD, (self.order[len(self.order) - self._unchosen],))
            chosen = self.chosen
            return Pending(_CARD, tuple([p for p in self._active_tuple if chosen[p] is None]))
        if phase is Phase.ROW:
            assert self._pend_row is not None
            p, card, reason = self._pend_row
            return Pending(DecisionKind.ROW, (p,), card, reason)
        if phase is Phase.DRAFT:
            return Pending(DecisionKind.DRAFT, (self._draft_order[self._draft_i],))
        return None

    def _has_joker(self) -> tuple[bool, ...]:
        if not self.rules.jokers:
            return _NO_JOKERS[self.rules.players]
        return tuple([bool(h) and h[0] < 0 for h in self.hands])

    def _seats_in_play(self) -> tuple[int, ...]:
        return tuple(p for p in range(self.rules.players) if not self._eliminated[p])

    def _next_round(self, out: list[Event]) -> None:
        """Start the next round, or wait for a deal when none can be made.

        A queued explicit deal that does not fit the round (possible only
        after eliminations changed who plays) is dropped and refused; the game
        then waits for a deal in :attr:`Phase.DEAL`, consistent and unstuck.
        """
        self._table = None
        deal: Deal | None = None
        if self._deals:
            deal = self._deals.pop(0)
            try:
                self._check_deal(deal, self._seats_in_play())
            except RulesError as exc:
                self._wait_for_deal()
                raise RulesError(
                    f"round {self.round + 1} {exc}; the game waits for a deal (Game.deal)"
                ) from None
        elif self._rng is None:
            self._wait_for_deal()
            return
        self.round += 1
        self._clear_round()
        if deal is None:
            assert self._rng is not None
            deal = self._random_deal(self._rng)
        self.round_deals.append(deal)
        self.decisions.append([])
        active = self._active_tuple
        out.append(RoundStarted(self.round, active, len(self.rules.deck(len(active)))))
        if self.rules.logic:
            first = self._next_seat(self._first_picker)
            self._first_picker = first
            k = active.index(first)
            order = active[k:] + active[:k]
            self._draft_pool = list(deal.pool)
            self._draft_order = list(order) * HAND_SIZE
            self._draft_i = 0
            self.phase = Phase.DRAFT
            self._pending = None
            out.append(DraftStarted(tuple(sorted(deal.pool)), first))
            return
        public = self.rules.open_hands
        for p in active:
            hand = tuple(sorted(deal.hands[p]))
            self.hands[p] = hand
            out.append(HandDealt(p, hand, public))
        self._set_rows(deal.rows, out)
        self._start_turn(1, out)

    def _wait_for_deal(self) -> None:
        self._clear_round()
        self.phase = Phase.DEAL
        self._pending = None

    def _random_deal(self, rng: random.Random) -> Deal:
        rules = self.rules
        active = self._active_tuple
        deck = list(rules.deck(len(active)))
        if rules.logic:
            return Deal(pool=tuple(deck))
        rng.shuffle(deck)
        hands: list[tuple[Card, ...]] = [()] * rules.players
        k = rules.number_cards_per_hand()
        jokers = list(rules.joker_cards())
        if jokers:
            rng.shuffle(jokers)
        for i, p in enumerate(active):
            cards = deck[i * k : (i + 1) * k]
            if jokers:
                cards.append(jokers[i])
            hands[p] = tuple(sorted(cards))
        top = len(active) * k
        rows = tuple((c,) for c in deck[top : top + ROWS])
        return Deal(rows=rows, hands=tuple(hands))

    def _check_deal(self, deal: Deal, active: tuple[int, ...]) -> None:
        rules = self.rules
        allowed = set(rules.deck(len(active))) | set(rules.joker_cards())
        seen: set[Card] = set()

        def use(card: Card, where: str) -> None:
            if not is_card(card) or card not in allowed:
                raise RulesError(f"deal: {where} holds {card!r}, which is not in this round's deck")
            if card in seen:
                raise RulesError(f"deal: card {_label(card)} appears twice")
            seen.add(card)

        if rules.logic:
            if deal.rows or deal.hands:
                raise RulesError(
                    "deal: logic deals only the face-up pool; rows come from the draft"
                )
            if len(deal.pool) != HAND_SIZE * len(active) + ROWS:
                raise RulesError(
                    f"deal: the logic pool must hold {HAND_SIZE * len(active) + ROWS} cards"
                )
            for c in deal.pool:
                use(c, "the pool")
            return
        if deal.pool:
            raise RulesError("deal: a pool is only dealt in logic")
        if len(deal.rows) != ROWS:
            raise RulesError(f"deal: {ROWS} rows are needed, not {len(deal.rows)}")
        for r, row in enumerate(deal.rows, 1):
            if not 1 <= len(row) <= ROW_CAPACITY:
                raise RulesError(f"deal: row {r} must hold 1 to {ROW_CAPACITY} cards")
            if any(c < 0 for c in row) or list(row) != sorted(row):
                raise RulesError(f"deal: row {r} must hold number cards in ascending order")
            for c in row:
                use(c, f"row {r}")
        if len(deal.hands) != rules.players:
            raise RulesError(f"deal: {rules.players} hands are needed (empty for eliminated seats)")
        sizes = {len(deal.hands[p]) for p in active}
        if len(sizes) != 1 or not 1 <= next(iter(sizes)) <= HAND_SIZE:
            raise RulesError(
                f"deal: every active hand must hold the same number (1 to {HAND_SIZE})"
            )
        for p, hand in enumerate(deal.hands):
            if p not in active and hand:
                raise RulesError(f"deal: player {p} is eliminated and gets no cards")
            if rules.jokers and p in active and sum(1 for c in hand if c < 0) != 1:
                raise RulesError(f"deal: with jokers, player {p} must hold exactly one joker")
            for c in hand:
                use(c, f"player {p}'s hand")

    def _set_rows(self, rows: Rows, out: list[Event]) -> None:
        self.rows = [tuple(r) for r in rows]
        self._lasts = [r[-1] * 10 for r in self.rows]
        self._firsts = [r[0] * 10 for r in self.rows]
        out.append(RowsDealt(tuple(self.rows)))

    def _next_seat(self, previous: int | None) -> int:
        """The next active seat to the left of ``previous`` (the lowest when none)."""
        active = self._active_tuple
        if previous is None:
            return active[0]
        n = self.rules.players
        return next(p % n for p in range(previous + 1, previous + n + 1) if p % n in active)

    def _start_turn(self, turn: int, out: list[Event]) -> None:
        self.turn = turn
        self.phase = Phase.CHOOSE
        self._pending = None
        self.chosen = [None] * self.rules.players
        self._unchosen = len(self._active_tuple)
        self._table = None
        self._queue = []
        self._qi = 0
        if self._open:
            active = self._active_tuple
            marker = self._next_seat(self.marker)
            self.marker = marker
            k = active.index(marker)
            self.order = active[k:] + active[:k]
            out.append(TurnStarted(turn, marker))
        else:
            out.append(TurnStarted(turn))

    def _reveal(self, out: list[Event]) -> None:
        self._table = None
        chosen = self.chosen
        hands = self.hands
        queue: list[Play] = [(p, c) for p, c in enumerate(chosen) if c is not None]
        queue.sort(key=_BY_CARD)
        for p, c in queue:
            h = hands[p]
            i = h.index(c)
            hands[p] = h[:i] + h[i + 1 :]
        self._queue = queue
        self._qi = 0
        t = tuple(queue)
        self.revealed = (*self.revealed, t)
        out.append(CardsRevealed(t))
        self._resolve(out)

    def _resolve(self, out: list[Event]) -> None:
        """Place revealed cards in order until one needs a row choice or the turn ends."""
        queue = self._queue
        rows = self.rows
        lasts = self._lasts
        professional = self.rules.professional
        qi = self._qi
        while qi < len(queue):
            p, c = queue[qi]
            if c < 0:
                self._qi = qi
                self._ask_row(p, c, "joker", out)
                return
            v = c * 10
            # The row whose last card is the highest below v; four rows, unrolled.
            best = -1
            best_last = -1
            last = lasts[0]
            if last < v:
                best = 0
                best_last = last
            last = lasts[1]
            if best_last < last < v:
                best = 1
                best_last = last
            last = lasts[2]
            if best_last < last < v:
                best = 2
                best_last = last
            last = lasts[3]
            if best_last < last < v:
                best = 3
                best_last = last
            if professional:
                left, _ = self._professional_left(v, best_last if best >= 0 else None)
                if left >= 0:
                    self._qi = qi
                    self._place_left(p, c, left, out)
                    qi += 1
                    continue
            if best < 0:
                self._qi = qi
                self._ask_row(p, c, "too_low", out)
                return
            row = rows[best]
            if len(row) >= ROW_CAPACITY:
                self._take(p, best, "full", out)
                self._start_row(p, c, best, out)
            else:
                rows[best] = (*row, c)
                lasts[best] = v
                out.append(CardPlaced(p, c, best + 1))
            qi += 1
        self._qi = qi
        self._end_turn(out)

    def _professional_left(self, v: int, best_last: int | None) -> tuple[int, int]:
        """The row whose left end takes value ``v`` when it beats the right end (ties go right)."""
        best = -1
        best_diff = (v - best_last) if best_last is not None else 1 << 30
        firsts = self._firsts
        for i in range(ROWS):
            first = firsts[i]
            if first > v and first - v < best_diff:
                best = i
                best_diff = first - v
        return best, best_diff

    def _place_left(self, p: int, c: Card, i: int, out: list[Event]) -> None:
        if len(self.rows[i]) >= ROW_CAPACITY:
            self._take(p, i, "full", out)
            self._start_row(p, c, i, out)
            return
        self.rows[i] = (c, *self.rows[i])
        self._firsts[i] = c * 10
        out.append(CardPlaced(p, c, i + 1, "left"))

    def _ask_row(
        self, p: int, c: Card, reason: Literal["too_low", "joker"], out: list[Event]
    ) -> None:
        self._pend_row = (p, c, reason)
        self.phase = Phase.ROW
        self._pending = None
        out.append(RowChoiceNeeded(p, c, reason))

    def _take(self, p: int, i: int, reason: Literal["full", "too_low"], out: list[Event]) -> None:
        cards = self.rows[i]
        points = sum([BULLHEADS[x] for x in cards])
        pen = list(self.penalties)
        pen[p] += points
        self.penalties = tuple(pen)
        taken = list(self._taken)
        taken[p] = taken[p] + cards
        self._taken = tuple(taken)
        out.append(RowTaken(p, i + 1, cards, points, reason))

    def _start_row(self, p: int, c: Card, i: int, out: list[Event]) -> None:
        self.rows[i] = (c,)
        v = c + 10 if c < 0 else c * 10
        self._lasts[i] = v
        self._firsts[i] = v
        out.append(CardPlaced(p, c, i + 1, "right", True))

    def _end_turn(self, out: list[Event]) -> None:
        self._pending = None
        if self.hands[self._active_tuple[0]]:
            self._start_turn(self.turn + 1, out)
        else:
            self._end_round(out)

    def _end_round(self, out: list[Event]) -> None:
        rules = self.rules
        totals = tuple(s + q for s, q in zip(self.scores, self.penalties, strict=True))
        self.scores = totals
        out.append(RoundScored(self.round, self.penalties, totals))
        winners: tuple[int, ...] | None = None
        active = self._active_tuple
        if rules.end is EndMode.CLASSIC:
            if any(totals[p] >= rules.limit for p in active):
                winners = _fewest(totals, active)
        elif rules.end is EndMode.ROUNDS:
            assert rules.rounds is not None
            if self.round >= rules.rounds:
                winners = _fewest(totals, active)
        else:
            out_now = [p for p in active if totals[p] >= rules.limit]
            for p in out_now:
                self._eliminated[p] = True
                out.append(PlayerEliminated(p, totals[p]))
            remaining = [p for p in active if not self._eliminated[p]]
            if len(remaining) == 1:
                winners = (remaining[0],)
            elif not remaining:
                winners = _fewest(totals, out_now)
        self.turn = 0
        self._table = None
        if winners is not None:
            self.winners = winners
            self.phase = Phase.OVER
            self._pending = None
            out.append(GameOver(winners, totals))
            return
        self._next_round(out)


def _fewest(totals: tuple[int, ...], among: Sequence[int]) -> tuple[int, ...]:
    low = min(totals[p] for p in among)
    return tuple(p for p in among if totals[p] == low)


def _label(card: object) -> str:
    return card_label(card) if is_card(card) else repr(card)  # type: ignore[arg-type]


def _copy_rng(rng: random.Random | None) -> random.Random | None:
    if rng is None:
        return None
    copy = random.Random()
    copy.setstate(rng.getstate())
    return copy


def sample_world(view: View, rng: random.Random) -> Game:
    """A full game consistent with ``view``: the unseen cards dealt at random.

    The other players' hands are drawn from the cards the viewer cannot have
    seen (with the right hand sizes, and one unseen joker for each player who
    has not played theirs). A choice made face down but not revealed is
    unknown to the viewer, so in the world it is undone: that player's card is
    back in their hand and their choice pending again. Later rounds of the
    world are dealt by ``rng``. Only the cards of the current round are
    sampled; totals, rows and everything public are copied from the view.
    """
    if view.player is None:
        raise RulesError("a spectator's view has no hand to sample around")
    rules = view.rules
    me = view.player
    g = Game(rules)  # a blank game waiting for a deal, then overwritten
    g.rules = rules
    g._open = rules.open_play
    g._no_face_up = (None,) * rules.players
    g._table = None
    g._rng = random.Random(rng.getrandbits(64))
    g._deals = []
    g._eliminated = list(view.eliminated)
    g.events = []
    g.decisions = [[]]
    g.round_deals = []
    g.winners = view.winners
    g.round = view.round
    g.turn = view.turn
    g.marker = view.marker
    g._first_picker = view.table.first_picker
    g.scores = view.scores
    g.start_scores = view.scores
    g._pending = None
    g._clear_round()
    g._active_tuple = view.active
    g.penalties = view.penalties
    g._taken = view.taken
    g.revealed = view.revealed
    g.rows = list(view.rows)
    g._lasts = [_row_last(r) for r in view.rows]
    g._firsts = [_row_first(r) for r in view.rows]
    g.phase = view.phase
    g._queue = list(view.to_resolve)
    g._qi = 0
    if view.phase is Phase.ROW and view.pending is not None:
        assert view.pending.reason is not None and view.pending.card is not None
        g._pend_row = (view.pending.players[0], view.pending.card, view.pending.reason)
    g._draft_pool = list(view.draft_pool)
    if view.phase is Phase.DRAFT and view.pending is not None:
        # The draft continues from the pending picker, in the same seat order.
        active = view.active
        k = active.index(view.pending.players[0])
        remaining = sum(HAND_SIZE - view.hand_sizes[p] for p in active)
        cycle = list(active[k:] + active[:k])
        g._draft_order = (cycle * HAND_SIZE)[:remaining]
    if view.hands is not None:
        g.hands = list(view.hands)
    else:
        g.hands = [()] * rules.players
        g.hands[me] = view.hand
        seen = view.seen_cards()
        unseen = [c for c in rules.deck(len(view.active)) if c not in seen]
        unseen_jokers = [j for j in rules.joker_cards() if j not in seen]
        rng.shuffle(unseen)
        rng.shuffle(unseen_jokers)
        for p in view.active:
            if p == me:
                continue
            size = view.hand_sizes[p]
            cards: list[Card] = []
            # A face-up choice not yet revealed is still in its player's hand.
            face = view.face_up[p] if view.phase is Phase.CHOOSE else None
            if face is not None:
                cards.append(face)
            if view.has_joker[p] and not (face is not None and face < 0):
                cards.append(unseen_jokers.pop())
            while len(cards) < size:
                cards.append(unseen.pop())
            g.hands[p] = tuple(sorted(cards))
    chosen: list[Card | None] = [None] * rules.players
    for p in range(rules.players):
        if view.face_up[p] is not None:
            chosen[p] = view.face_up[p]
    if view.my_choice is not None:
        chosen[me] = view.my_choice
    if view.phase is Phase.ROW and view.revealed:
        for p, c in view.revealed[-1]:
            chosen[p] = c
    g.chosen = chosen
    g._unchosen = sum(1 for p in view.active if chosen[p] is None)
    if rules.open_play and view.phase is Phase.CHOOSE and view.marker is not None:
        k = view.active.index(view.marker)
        g.order = view.active[k:] + view.active[:k]
    return g


def _row_last(row: tuple[Card, ...]) -> int:
    """A row's end value in tenths, jokers raising it by their decimal."""
    value = 0
    for c in row:
        value = value + c + 10 if c < 0 else c * 10
    return value


def _row_first(row: tuple[Card, ...]) -> int:
    c = row[0]
    return c + 10 if c < 0 else c * 10


assert JOKERS[0] == -10
