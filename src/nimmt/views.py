"""Views: what one player may know (docs/rules.md §6), and nothing more.

:meth:`Game.view <nimmt.engine.Game.view>` answers a :class:`View` for a seat
(or a spectator); bots, clients and the RL environment see the game only
through views. The public part of the table, the same for everyone, is one
:class:`Table` snapshot shared by every view until the table changes, so that
asking for a view costs little. A view also answers the row arithmetic a bot
needs (:meth:`View.target`, :meth:`View.row_end`, :meth:`View.row_bullheads`)
with the engine's own rules, from :mod:`nimmt.rows`.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from .cards import Card
from .decisions import Pending
from .events import Play
from .rows import Rows, Target, end_value, row_bullheads, target
from .rules import Rules
from .value import Value

__all__ = ["Phase", "Table", "View"]


class Phase(StrEnum):
    """Where the game stands."""

    DRAFT = "draft"  #: logic: players pick cards from the face-up pool
    CHOOSE = "choose"  #: players choose the card of this turn
    ROW = "row"  #: the resolution waits for a row choice
    DEAL = "deal"  #: a new round needs a deal (no seed and no deal left); see Game.deal
    OVER = "over"  #: the game has ended


# Table and View spell out __init__ for the same reason as the events (see
# events.py): they are created on every decision.
@dataclass(slots=True, init=False)
class Table(Value):
    """The public part of the table: what every player and spectator may know.

    One snapshot is shared by every view until the table changes, so that
    asking for a view costs little. ``hands`` holds every hand only where hands
    are public (``open-hands``, and the face-up ``logic`` draft), else ``None``.
    ``first_picker`` is the seat that picked first in this round's ``logic`` draft.
    A value: never mutate it.
    """

    round: int
    """The round number, from 1."""
    turn: int
    """The turn within the round (1..10); 0 between rounds and during a draft."""
    phase: Phase
    """Where the game stands."""
    rows: Rows
    """The four rows, row 1 first, each from its left end."""
    scores: tuple[int, ...]
    """Totals per seat before this round's penalties."""
    penalties: tuple[int, ...]
    """This round's penalties so far, per seat."""
    taken: tuple[tuple[Card, ...], ...]
    """The cards each seat has taken this round."""
    hand_sizes: tuple[int, ...]
    """How many cards each seat holds."""
    revealed: tuple[tuple[Play, ...], ...]
    """Every turn's revealed plays this round, in resolution order."""
    to_resolve: tuple[Play, ...]
    """Revealed plays not yet placed; the first may wait for a row choice."""
    hands: tuple[tuple[Card, ...], ...] | None
    """Every hand, where hands are public (``open-hands``, the ``logic`` draft); else null."""
    active: tuple[int, ...]
    """The seats playing this round."""
    eliminated: tuple[bool, ...]
    """Per seat: out of the game (elimination end)."""
    has_joker: tuple[bool, ...]
    """Per seat: still holds their joker (``jokers``)."""
    marker: int | None
    """``open``: the seat holding the first-player marker this turn; else null."""
    draft_pool: tuple[Card, ...]
    """``logic``: the face-up cards still to draft."""
    winners: tuple[int, ...]
    """The winning seats once the game is over; empty before."""
    first_picker: int | None
    """``logic``: the seat that picked first in this round's draft; else null."""

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

    @property
    def totals(self) -> tuple[int, ...]:
        """Per seat: its points now, this round's penalties counted (once the game is over,
        ``scores`` hold the last round already)."""
        if self.phase is Phase.OVER:
            return self.scores
        return tuple(s + p for s, p in zip(self.scores, self.penalties, strict=True))

    @property
    def places(self) -> tuple[int, ...]:
        """Per seat: its place in the standings, from 1. The winners come first (with the
        elimination end, the last one in may have more points than one out before,
        docs/rules.md §3), then the fewest points; seats that tie share a place and the
        next place is skipped (1, 1, 3). Both clients' results show these places."""
        won = set(self.winners)
        keys = [(p not in won, total) for p, total in enumerate(self.totals)]
        return tuple(1 + sum(other < key for other in keys) for key in keys)


@dataclass(slots=True, init=False)
class View(Value):
    """Everything one player may know (docs/rules.md §6), and nothing more.

    ``player`` is ``None`` for a spectator, who sees only public information.
    ``table`` is the public part (its fields are also readable here directly:
    ``view.rows``, ``view.scores``, ...). ``chosen`` says who has chosen this
    turn; ``face_up`` holds the cards chosen face up this turn (``open``); a
    face-down choice is visible only to its chooser, as ``my_choice``.
    ``options`` are the viewer's legal options now. A value: never mutate it.
    """

    rules: Rules
    """The rules of this game."""
    player: int | None
    """The seat this view is for; null for a spectator."""
    table: Table
    """The public part, shared by every view of the same moment."""
    pending: Pending | None
    """The decision the game waits for; null when it waits for none."""
    face_up: tuple[Card | None, ...]
    """Per seat: the card chosen face up this turn (``open``), else null."""
    hand: tuple[Card, ...]
    """Your hand (empty for a spectator)."""
    my_choice: Card | None
    """The card you chose this turn and may still change; null if none."""
    options: tuple[int, ...]
    """Your legal options now: cards, or row numbers for a row choice."""

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

    @property
    def totals(self) -> tuple[int, ...]:
        """Per seat: its points now (:attr:`Table.totals`)."""
        return self.table.totals

    @property
    def places(self) -> tuple[int, ...]:
        """Per seat: its place in the standings (:attr:`Table.places`)."""
        return self.table.places

    # -- row arithmetic, for bots ---------------------------------------------------

    def target(self, card: Card) -> Target:
        """Where ``card`` would go on the rows now, or why it would need a row choice.

        The engine's own placement (:func:`nimmt.rows.target`) with this
        table's rules (both ends in ``professional``). For a card played
        later in the turn the rows may have changed by then.
        """
        return target(self.table.rows, card, self.rules.professional)

    def row_end(self, row: int) -> int:
        """The value a card must beat to follow row ``row`` (1..4), in tenths.

        87 → 870; a joker raises it by its decimal: 87 then 0.9 → 879.
        """
        return end_value(self.table.rows[row - 1])

    def row_bullheads(self, row: int) -> int:
        """The bullheads of row ``row`` (1..4): what taking it costs now."""
        return row_bullheads(self.table.rows[row - 1])
