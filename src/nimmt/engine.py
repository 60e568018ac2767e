"""The game: a state machine that takes one decision at a time.

A :class:`Game` deals from a seed (or from explicit :class:`~nimmt.deals.Deal`
values), says which decision is pending and for whom (:attr:`Game.pending`),
lists the legal options (:meth:`Game.legal`), validates and applies one
decision, and returns the typed events it caused. Nothing is ever decided
silently on a player's behalf: a card too low for every row, one that fits
no end, or a joker, pauses the resolution until its player chooses a row.
A decision either applies with all its events or, refused, changes nothing.

Around it: the decisions (:mod:`nimmt.decisions`), the views
(:mod:`nimmt.views`), the deals (:mod:`nimmt.deals`) and the row arithmetic
(:mod:`nimmt.rows`).

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
from operator import itemgetter
from typing import Any, Final

from .cards import Card, card_or_repr
from .deals import Deal, check_deal, random_deal
from .decisions import Decision, DecisionKind, DraftCard, Pending, PlayCard, TakeRow
from .errors import (
    CardNotInHand,
    GameOverError,
    NoSuchRow,
    NotYourDecision,
    RulesError,
    seat_of,
    seats_of,
)
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
    RowsDealt,
    RowTaken,
    TurnStarted,
)
from .rows import (
    LEFT,
    Row,
    RowReason,
    Rows,
    TakeReason,
    card_tenths,
    choice_reason,
    end_value,
    find_target,
    place_at,
    place_chosen,
    row_bullheads,
    start_value,
)
from .rules import HAND_SIZE, ROWS, EndMode, Rules
from .views import Phase, Table, View

__all__ = ["Game"]

# Constants are Final so that mypyc keeps them in C variables (a name that is not
# Final, or that comes from an uncompiled module, is looked up in a dict each time).
ROW_NUMBERS: Final = tuple(range(1, ROWS + 1))
_ROWS: Final = ROWS
_HAND_SIZE: Final = HAND_SIZE
_BY_CARD: Final = itemgetter(1)
_NO_JOKERS: Final = tuple((False,) * n for n in range(11))

# Every attribute of a game, and how an independent copy copies it. This one
# table drives ``__slots__``, :meth:`Game.clone`, pickling and
# :meth:`Game.sample_world` (which must give every field), so that a field
# added here cannot be forgotten by any of them.
_SHARE: Final = 0  # an immutable value: shared
_LIST: Final = 1  # a list of immutable values: copied
_LISTS: Final = 2  # a list of lists of immutable values: copied two deep
_RNG: Final = 3  # the random generator of later deals: copied with its state
_GAME_FIELDS: Final[dict[str, int]] = {
    "rules": _SHARE,
    "events": _LIST,
    "start_scores": _SHARE,
    "scores": _SHARE,
    "winners": _SHARE,
    "round": _SHARE,
    "turn": _SHARE,
    "phase": _SHARE,
    "marker": _SHARE,
    "penalties": _SHARE,
    "revealed": _SHARE,
    "_rng": _RNG,
    "_deals": _LIST,
    "_decisions": _LISTS,
    "_round_deals": _LIST,
    "_eliminated": _LIST,
    "_active": _SHARE,
    "_hands": _LIST,
    "_rows": _LIST,
    "_lasts": _LIST,
    "_firsts": _LIST,
    "_chosen": _LIST,
    "_unchosen": _SHARE,
    "_order": _SHARE,
    "_taken": _SHARE,
    "_queue": _LIST,
    "_qi": _SHARE,
    "_pend_row": _SHARE,
    "_draft_pool": _LIST,
    "_draft_order": _LIST,
    "_draft_i": _SHARE,
    "_first_picker": _SHARE,
    "_open": _SHARE,
    "_no_face_up": _SHARE,
    "_pending": _SHARE,
    "_table": _SHARE,
}
_SLOTS: Final[tuple[str, ...]] = tuple(_GAME_FIELDS)


class Game:
    """One game of 6 nimmt!, from the first deal to the winner.

    Give either ``seed`` (an ``int`` or a ``random.Random``; it deals every
    round) or ``deals`` (explicit deals, used first, round by round), or both.
    When neither can deal the next round, the game waits in
    :attr:`Phase.DEAL` for :meth:`deal`. ``scores`` sets starting totals.

    Ask :attr:`pending` who must decide what, :meth:`legal` for their
    options and :meth:`view` for what a seat may know; answer with
    :meth:`play_card`, :meth:`take_row`, :meth:`draft_card` or
    :meth:`decide`, each of which returns the events the decision caused
    (also kept in :attr:`events`). :meth:`clone`, ``copy.copy``,
    ``copy.deepcopy`` and ``pickle`` give independent games;
    :meth:`sample_world` deals the cards a player cannot see, for search.
    The hands, rows and choices are read-only tuples; the engine changes
    them only through decisions.
    """

    __slots__ = _SLOTS

    rules: Rules
    #: Every event so far, in order (append-only: read it, never change it).
    events: list[Event]
    start_scores: tuple[int, ...]
    scores: tuple[int, ...]
    winners: tuple[int, ...]
    round: int
    turn: int
    phase: Phase
    marker: int | None
    penalties: tuple[int, ...]
    revealed: tuple[tuple[Play, ...], ...]
    _rng: random.Random | None
    _deals: list[Deal]
    _decisions: list[list[Decision]]
    _round_deals: list[Deal]
    _eliminated: list[bool]
    _active: tuple[int, ...]
    _hands: list[tuple[Card, ...]]
    _rows: list[Row]
    _lasts: list[int]
    _firsts: list[int]
    _chosen: list[Card | None]
    _unchosen: int
    _order: tuple[int, ...]
    _taken: tuple[tuple[Card, ...], ...]
    _queue: list[Play]
    _qi: int
    _pend_row: tuple[int, Card, RowReason] | None
    _draft_pool: list[Card]
    _draft_order: list[int]
    _draft_i: int
    _first_picker: int | None
    _open: bool
    _no_face_up: tuple[None, ...]
    _pending: Pending | None
    _table: Table | None

    def __init__(
        self,
        rules: Rules,
        seed: int | random.Random | None = None,
        *,
        deals: Sequence[Deal] = (),
        scores: Sequence[int] | None = None,
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
                    check_deal(rules, deal, everyone)
                except RulesError as exc:
                    raise RulesError(f"round {k} {exc}") from None
        self.start_scores = tuple(start)
        self.scores = tuple(start)
        self._eliminated = [False] * n
        self.events = []
        self._decisions = []
        self._round_deals = []
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
        return self._active

    @property
    def hands(self) -> tuple[tuple[Card, ...], ...]:
        """Every seat's hand (the referee's knowledge: players see theirs in :meth:`view`)."""
        return tuple(self._hands)

    @property
    def rows(self) -> Rows:
        """The rows on the table, row 1 first (none during a ``logic`` draft)."""
        return tuple(self._rows)

    @property
    def chosen(self) -> tuple[Card | None, ...]:
        """The card each seat has chosen this turn and not yet revealed, else ``None``."""
        return tuple(self._chosen)

    @property
    def decisions(self) -> tuple[tuple[Decision, ...], ...]:
        """Every decision applied, round by round: with the deals, what a record holds."""
        return tuple([tuple(d) for d in self._decisions])

    @property
    def round_deals(self) -> tuple[Deal, ...]:
        """The deal of each round so far."""
        return tuple(self._round_deals)

    @property
    def pending(self) -> Pending | None:
        """The decision the game waits for, or ``None`` when over or waiting for a deal."""
        p = self._pending
        if p is None:
            p = self._pending = self._compute_pending()
        return p

    def legal(self, player: int) -> tuple[int, ...]:
        """The options ``player`` may choose now: cards, or row numbers 1..4.

        Empty when no decision of theirs is pending (or ``player`` is no seat).
        """
        if not 0 <= player < len(self._hands):
            return ()
        phase = self.phase
        if phase is Phase.CHOOSE:
            if self._open:
                expected = self._order[len(self._order) - self._unchosen]
                return self._hands[player] if expected == player else ()
            if not self._eliminated[player]:
                return self._hands[player]
            return ()
        if phase is Phase.ROW:
            pend = self._pend_row
            return ROW_NUMBERS if pend is not None and pend[0] == player else ()
        if phase is Phase.DRAFT:
            return (
                tuple(sorted(self._draft_pool))
                if self._draft_order[self._draft_i] == player
                else ()
            )
        return ()

    # -- decisions ------------------------------------------------------------

    def decide(self, decision: Decision) -> list[Event]:
        """Apply one decision; returns the events it caused (also appended to :attr:`events`)."""
        if type(decision) is PlayCard:
            return self.play_card(decision.player, decision.card)
        if type(decision) is TakeRow:
            return self.take_row(decision.player, decision.row)
        if type(decision) is DraftCard:
            return self.draft_card(decision.player, decision.card)
        raise TypeError(f"not a decision: {decision!r}")

    def play_card(self, player: int, card: Card) -> list[Event]:
        """``player`` chooses ``card`` for this turn.

        In the simultaneous game a player may choose again to change their
        card until the last player has chosen; then all cards are revealed at
        once and resolved. In ``open`` players choose in turn order, face up.
        """
        _check_int("player", player)
        _check_int("card", card)
        if self.phase is not Phase.CHOOSE:
            self._wrong_phase(DecisionKind.CARD)
        hands = self._hands
        if not 0 <= player < len(hands):
            raise NotYourDecision(f"there is no player {player!r} at this table")
        if self._eliminated[player]:
            raise NotYourDecision(f"{seat_of(player)} is eliminated and has no cards")
        if card not in hands[player]:
            raise CardNotInHand(
                f"card {card_or_repr(card)} is not in the hand of {seat_of(player)}")
        if self._open:
            expected = self._order[len(self._order) - self._unchosen]
            if player != expected:
                raise NotYourDecision(
                    f"it is the turn of {seat_of(expected)} to choose, not of {seat_of(player)}")
        decision = PlayCard(player, card)
        if self._deals and self._may_end_round():
            self._try_first(decision)
        return self._play_card(decision)

    def take_row(self, player: int, row: int) -> list[Event]:
        """``player`` chooses row ``row`` (1..4) for their card that waits for a row."""
        _check_int("player", player)
        _check_int("row", row)
        if self.phase is not Phase.ROW:
            self._wrong_phase(DecisionKind.ROW)
        self._check_seat(player)
        pend = self._pend_row
        assert pend is not None
        p, card, _ = pend
        if player != p:
            raise NotYourDecision(
                f"{seat_of(p)} chooses the row for card {card_or_repr(card)}, not {seat_of(player)}"
            )
        if not 1 <= row <= _ROWS:
            raise NoSuchRow(f"there is no row {row!r}; rows are numbered 1 to {_ROWS}")
        decision = TakeRow(player, row)
        if self._deals and self._may_end_round():
            self._try_first(decision)
        return self._take_row(decision)

    def draft_card(self, player: int, card: Card) -> list[Event]:
        """Logic: ``player`` takes ``card`` from the face-up pool."""
        _check_int("player", player)
        _check_int("card", card)
        if self.phase is not Phase.DRAFT:
            self._wrong_phase(DecisionKind.DRAFT)
        self._check_seat(player)
        expected = self._draft_order[self._draft_i]
        if player != expected:
            raise NotYourDecision(
                f"it is the turn of {seat_of(expected)} to draft, not of {seat_of(player)}")
        if card not in self._draft_pool:
            raise CardNotInHand(f"card {card_or_repr(card)} is not in the pool")
        self._decisions[-1].append(DraftCard(player, card))
        self._table = None
        self._draft_pool.remove(card)
        self._hands[player] = tuple(sorted((*self._hands[player], card)))
        out: list[Event] = [CardDrafted(player, card)]
        self._draft_i += 1
        self._pending = None
        if self._draft_i == len(self._draft_order):
            rows = tuple([(c,) for c in sorted(self._draft_pool)])
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
        check_deal(self.rules, deal, self._active)
        self._deals.insert(0, deal)
        out: list[Event] = []
        self._next_round(out)
        self.events.extend(out)
        return out

    # -- views ----------------------------------------------------------------

    def view(self, player: int | None = None) -> View:
        """What ``player`` (or a spectator, ``None``) may know now (docs/rules.md §6)."""
        table = self._table
        if table is None:
            table = self._table = self._make_table()
        pending = self._pending
        if pending is None:
            pending = self._pending = self._compute_pending()
        chosen = self._chosen
        face_up = tuple(chosen) if self._open else self._no_face_up
        if player is None:
            return View(self.rules, None, table, pending, face_up, (), None, ())
        _check_int("player", player)
        if not 0 <= player < len(self._hands):
            raise NotYourDecision(f"there is no player {player!r} at this table")
        hand = self._hands[player]
        if self.phase is Phase.CHOOSE and not self._open:
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
            tuple(self._rows),
            self.scores,
            self.penalties,
            self._taken,
            tuple([len(h) for h in self._hands]),
            self.revealed,
            tuple(self._queue[self._qi :]),
            tuple(self._hands) if rules.open_hands or rules.logic else None,
            self._active,
            tuple(self._eliminated),
            self._has_joker(),
            self.marker,
            tuple(sorted(self._draft_pool)) if self._draft_pool else (),
            self.winners,
            self._first_picker,
        )

    # -- copies and sampled worlds ---------------------------------------------

    def clone(self) -> Game:
        """An independent copy (the random generator is copied too)."""
        return _game_from_fields(
            {name: _copied(how, getattr(self, name)) for name, how in _GAME_FIELDS.items()}
        )

    def __copy__(self) -> Game:
        return self.clone()

    def __reduce__(self) -> tuple[Any, ...]:
        # Pickling and copy.deepcopy: the fields by name, rebuilt by _game_from_fields.
        return (_game_from_fields, ({name: getattr(self, name) for name in _SLOTS},))

    @classmethod
    def sample_world(cls, view: View, rng: random.Random) -> Game:
        """A full game consistent with ``view``: the unseen cards dealt at random.

        The other players' hands are drawn from the cards the viewer cannot
        have seen (with the right hand sizes, and one unseen joker for each
        player who has not played theirs). A choice made face down but not
        revealed is unknown to the viewer, so in the world it is undone: that
        player's card is back in their hand and their choice pending again.
        Later rounds of the world are dealt by ``rng``. Only the cards of the
        current round are sampled; totals, rows and everything public are
        copied from the view. This is the determinizer of the search bots.
        """
        if view.player is None:
            raise RulesError("a spectator's view has no hand to sample around")
        rules = view.rules
        me = view.player
        n = rules.players
        active = view.active
        pend_row: tuple[int, Card, RowReason] | None = None
        pending = view.pending
        if view.phase is Phase.ROW and pending is not None:
            assert pending.reason is not None and pending.card is not None
            pend_row = (pending.players[0], pending.card, pending.reason)
        draft_order: list[int] = []
        if view.phase is Phase.DRAFT and pending is not None:
            # The draft continues from the pending picker, in the same seat order.
            k = active.index(pending.players[0])
            remaining = sum(HAND_SIZE - view.hand_sizes[p] for p in active)
            draft_order = (list(active[k:] + active[:k]) * HAND_SIZE)[:remaining]
        hands: list[tuple[Card, ...]]
        if view.hands is not None:
            hands = list(view.hands)
        else:
            hands = [()] * n
            hands[me] = view.hand
            seen = view.seen_cards()
            unseen = [c for c in rules.deck(len(active)) if c not in seen]
            unseen_jokers = [j for j in rules.joker_cards() if j not in seen]
            rng.shuffle(unseen)
            rng.shuffle(unseen_jokers)
            for p in active:
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
                hands[p] = tuple(sorted(cards))
        chosen: list[Card | None] = list(view.face_up)
        if view.my_choice is not None:
            chosen[me] = view.my_choice
        if view.phase is Phase.ROW and view.revealed:
            for p, c in view.revealed[-1]:
                chosen[p] = c
        order: tuple[int, ...] = ()
        if rules.open_play and view.phase is Phase.CHOOSE and view.marker is not None:
            k = active.index(view.marker)
            order = active[k:] + active[:k]
        rows = list(view.rows)
        return _game_from_fields(
            {
                "rules": rules,
                "events": [],
                "start_scores": view.scores,
                "scores": view.scores,
                "winners": view.winners,
                "round": view.round,
                "turn": view.turn,
                "phase": view.phase,
                "marker": view.marker,
                "penalties": view.penalties,
                "revealed": view.revealed,
                "_rng": random.Random(rng.getrandbits(64)),
                "_deals": [],
                # A world starts mid-round: it holds no history to record.
                "_decisions": [[]],
                "_round_deals": [],
                "_eliminated": list(view.eliminated),
                "_active": active,
                "_hands": hands,
                "_rows": rows,
                "_lasts": [end_value(r) for r in rows],
                "_firsts": [start_value(r) for r in rows],
                "_chosen": chosen,
                "_unchosen": sum(1 for p in active if chosen[p] is None),
                "_order": order,
                "_taken": view.taken,
                "_queue": list(view.to_resolve),
                "_qi": 0,
                "_pend_row": pend_row,
                "_draft_pool": list(view.draft_pool),
                "_draft_order": draft_order,
                "_draft_i": 0,
                "_first_picker": view.table.first_picker,
                "_open": rules.open_play,
                "_no_face_up": (None,) * n,
                "_pending": None,
                "_table": None,
            }
        )

    def __repr__(self) -> str:
        return (
            f"<Game {self.rules.name} players={self.rules.players} round={self.round} "
            f"turn={self.turn} phase={self.phase.value}>"
        )

    # -- applying decisions ------------------------------------------------------

    def _may_end_round(self) -> bool:
        """True when the decision at hand may end the round: the round's last turn."""
        return len(self._hands[self._active[0]]) <= 1

    def _try_first(self, decision: Decision) -> None:
        """Apply ``decision`` to a copy first, so that a queued deal that no longer fits
        (elimination: it deals cards to a player the round's end eliminates) refuses the
        decision before anything changes, rather than after it applied half its events.
        The deal is dropped, so that the same decision applies when made again."""
        if self.rules.end is not EndMode.ELIMINATION:
            return  # every queued deal was checked for every seat when the game began
        twin = self.clone()
        try:
            if type(decision) is PlayCard:
                twin._play_card(decision)
            elif type(decision) is TakeRow:
                twin._take_row(decision)
        except RulesError as exc:
            self._deals.pop(0)
            raise RulesError(
                f"{exc}; the decision is refused and the deal dropped: decide again, "
                f"and the game waits for the round's deal (Game.deal)"
            ) from None

    def _play_card(self, decision: PlayCard) -> list[Event]:
        player = decision.player
        card = decision.card
        event = CardChosen(player, card, True) if self._open else CardChosen(player, card)
        self._decisions[-1].append(decision)
        self.events.append(event)
        chosen = self._chosen
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

    def _take_row(self, decision: TakeRow) -> list[Event]:
        pend = self._pend_row
        assert pend is not None
        player, card, reason = pend
        self._decisions[-1].append(decision)
        self._table = None
        out: list[Event] = []
        i = decision.row - 1
        new, taken = place_chosen(self._rows[i], card)
        if taken:
            self._take(player, i, "full" if reason == "joker" else reason, out)
            self._start_row(player, card, i, out)
        else:
            self._rows[i] = new
            self._lasts[i] = end_value(new)
            out.append(CardPlaced(player, card, decision.row))
        self._pend_row = None
        self._qi += 1
        self.phase = Phase.CHOOSE
        self._pending = None
        self._resolve(out)
        self.events.extend(out)
        return out

    # -- internals ------------------------------------------------------------

    def _clear_round(self) -> None:
        n = self.rules.players
        self._hands = [()] * n
        self._rows = []
        self._lasts = []
        self._firsts = []
        self._chosen = [None] * n
        self._order = ()
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
        self._active = tuple([p for p in range(n) if not self._eliminated[p]])

    def _check_seat(self, player: int) -> None:
        if not 0 <= player < self.rules.players:
            raise NotYourDecision(f"there is no player {player!r} at this table")

    def _wrong_phase(self, kind: DecisionKind) -> None:
        if self.phase is Phase.OVER:
            raise GameOverError("the game is over")
        if self.phase is Phase.DEAL:
            raise NotYourDecision("the game waits for the deal of the next round")
        pending = self.pending
        assert pending is not None
        raise NotYourDecision(
            f"a {pending.kind.value} decision is pending for {seats_of(pending.players)}, "
            f"not a {kind.value} decision"
        )

    def _compute_pending(self) -> Pending | None:
        phase = self.phase
        if phase is Phase.CHOOSE:
            if self._open:
                order = self._order
                return Pending(DecisionKind.CARD, (order[len(order) - self._unchosen],))
            chosen = self._chosen
            return Pending(
                DecisionKind.CARD, tuple([p for p in self._active if chosen[p] is None])
            )
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
        return tuple([bool(h) and h[0] < 0 for h in self._hands])

    def _next_round(self, out: list[Event]) -> None:
        """Start the next round, or wait for a deal when none can be made.

        A queued deal that does not fit the round (possible only after
        eliminations changed who plays) raises :class:`RulesError`; the
        decisions check for that on a copy before they change anything.
        """
        self._table = None
        deal: Deal | None = None
        if self._deals:
            deal = self._deals[0]
            active = tuple([p for p in range(self.rules.players) if not self._eliminated[p]])
            try:
                check_deal(self.rules, deal, active)
            except RulesError as exc:
                raise RulesError(f"round {self.round + 1} {exc}") from None
            self._deals.pop(0)
        elif self._rng is None:
            self._clear_round()
            self.phase = Phase.DEAL
            self._pending = None
            return
        self.round += 1
        self._clear_round()
        active = self._active
        if deal is None:
            assert self._rng is not None
            deal = random_deal(self.rules, active, self._rng)
        self._round_deals.append(deal)
        self._decisions.append([])
        out.append(RoundStarted(self.round, active, len(self.rules.deck(len(active)))))
        if self.rules.logic:
            first = self._next_seat(self._first_picker)
            self._first_picker = first
            k = active.index(first)
            order = active[k:] + active[:k]
            self._draft_pool = list(deal.pool)
            self._draft_order = list(order) * _HAND_SIZE
            self._draft_i = 0
            self.phase = Phase.DRAFT
            self._pending = None
            out.append(DraftStarted(tuple(sorted(deal.pool)), first))
            return
        public = self.rules.open_hands
        for p in active:
            hand = tuple(sorted(deal.hands[p]))
            self._hands[p] = hand
            out.append(HandDealt(p, hand, public))
        self._set_rows(deal.rows, out)
        self._start_turn(1, out)

    def _set_rows(self, rows: Rows, out: list[Event]) -> None:
        self._rows = list(rows)
        self._lasts = [end_value(r) for r in rows]
        self._firsts = [start_value(r) for r in rows]
        out.append(RowsDealt(rows))

    def _next_seat(self, previous: int | None) -> int:
        """The next active seat to the left of ``previous`` (the lowest when none)."""
        active = self._active
        if previous is None:
            return active[0]
        n = self.rules.players
        return next(p % n for p in range(previous + 1, previous + n + 1) if p % n in active)

    def _start_turn(self, turn: int, out: list[Event]) -> None:
        self.turn = turn
        self.phase = Phase.CHOOSE
        self._pending = None
        self._chosen = [None] * self.rules.players
        self._unchosen = len(self._active)
        self._table = None
        self._queue = []
        self._qi = 0
        if self._open:
            active = self._active
            marker = self._next_seat(self.marker)
            self.marker = marker
            k = active.index(marker)
            self._order = active[k:] + active[:k]
            out.append(TurnStarted(turn, marker))
        else:
            out.append(TurnStarted(turn))

    def _reveal(self, out: list[Event]) -> None:
        self._table = None
        chosen = self._chosen
        hands = self._hands
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
        rows = self._rows
        lasts = self._lasts
        firsts = self._firsts
        professional = self.rules.professional
        qi = self._qi
        while qi < len(queue):
            p, c = queue[qi]
            t = find_target(lasts, firsts, c, professional)
            if t < 0:
                self._qi = qi
                reason = choice_reason(c, professional)
                self._pend_row = (p, c, reason)
                self.phase = Phase.ROW
                self._pending = None
                out.append(RowChoiceNeeded(p, c, reason))
                return
            left = t >= LEFT
            i = t - LEFT if left else t
            new, taken = place_at(rows[i], c, left)
            if taken:
                self._take(p, i, "full", out)
                self._start_row(p, c, i, out)
            elif left:
                rows[i] = new
                firsts[i] = card_tenths(c)
                out.append(CardPlaced(p, c, i + 1, "left"))
            else:
                rows[i] = new
                lasts[i] = card_tenths(c)
                out.append(CardPlaced(p, c, i + 1))
            qi += 1
        self._qi = qi
        self._end_turn(out)

    def _take(self, p: int, i: int, reason: TakeReason, out: list[Event]) -> None:
        cards = self._rows[i]
        points = row_bullheads(cards)
        pen = list(self.penalties)
        pen[p] += points
        self.penalties = tuple(pen)
        taken = list(self._taken)
        taken[p] = taken[p] + cards
        self._taken = tuple(taken)
        out.append(RowTaken(p, i + 1, cards, points, reason))

    def _start_row(self, p: int, c: Card, i: int, out: list[Event]) -> None:
        self._rows[i] = (c,)
        v = card_tenths(c)
        self._lasts[i] = v
        self._firsts[i] = v
        out.append(CardPlaced(p, c, i + 1, "right", True))

    def _end_turn(self, out: list[Event]) -> None:
        self._pending = None
        if self._hands[self._active[0]]:
            self._start_turn(self.turn + 1, out)
        else:
            self._end_round(out)

    def _end_round(self, out: list[Event]) -> None:
        rules = self.rules
        totals = tuple([s + q for s, q in zip(self.scores, self.penalties, strict=True)])
        self.scores = totals
        out.append(RoundScored(self.round, self.penalties, totals))
        winners: tuple[int, ...] | None = None
        active = self._active
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


def _game_from_fields(fields: dict[str, Any]) -> Game:
    """A game with exactly these fields (see ``_GAME_FIELDS``); all must be given."""
    if fields.keys() != _GAME_FIELDS.keys():
        missing = sorted(_GAME_FIELDS.keys() - fields.keys())
        extra = sorted(fields.keys() - _GAME_FIELDS.keys())
        raise ValueError(f"game fields: missing {missing}, unknown {extra}")
    game = Game(fields["rules"])  # a blank game waiting for a deal, then overwritten
    for name in _SLOTS:
        setattr(game, name, fields[name])
    return game


def _copied(how: int, value: Any) -> Any:
    """``value`` of a field copied as ``_GAME_FIELDS`` says, for :meth:`Game.clone`."""
    if how == _LIST:
        return list(value)
    if how == _LISTS:
        return [list(v) for v in value]
    if how == _RNG and value is not None:
        copy = random.Random()
        copy.setstate(value.getstate())
        return copy
    return value


def _check_int(name: str, value: object) -> None:
    """Seats, cards and rows are ints: anything else is a caller's bug, a ``TypeError``.

    The compiled build refuses it before the call, saying "int object expected";
    this says the same in pure Python, so that both builds refuse alike.
    """
    if not isinstance(value, int):
        raise TypeError(f"int object expected; got {type(value).__name__} ({name} {value!r})")


def _fewest(totals: tuple[int, ...], among: Sequence[int]) -> tuple[int, ...]:
    low = min(totals[p] for p in among)
    return tuple([p for p in among if totals[p] == low])
