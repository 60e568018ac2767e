"""Between the engine and the kernel: encode a game, step a turn, know what is hidden.

:func:`encode_game` turns a full engine :class:`~nimmt.engine.Game` (a real table,
or a world from :meth:`~nimmt.engine.Game.sample_world`) into the kernel's
state array, reading it only through the public API (views). :func:`hidden_cards`
says, from one player's view, which cards the others may hold, so the kernel
can deal fresh worlds itself (exactly as ``Game.sample_world`` deals them)
without a trip through Python per rollout. Row values come from the engine's
row arithmetic (:mod:`nimmt.rows`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ..cards import Card
from ..engine import Game
from ..rows import end_value, row_bullheads, start_value
from ..views import Phase, View
from . import kernel as K

__all__ = ["Hidden", "KernelWorld", "encode_game", "hidden_cards", "rows_of", "step_turn"]


@dataclass(slots=True)
class KernelWorld:
    """A game encoded for the kernel.

    ``seats[k]`` is the table seat of kernel seat ``k`` (only active players are
    encoded). In the row phase ``queue_players``/``queue_cards`` hold the plays
    still to resolve, the one waiting for its row first.
    """

    state: K.IntArray
    seats: tuple[int, ...]
    queue_players: K.IntArray
    queue_cards: K.IntArray

    def index(self, seat: int) -> int:
        """The kernel seat of table seat ``seat``."""
        return self.seats.index(seat)


@dataclass(slots=True)
class Hidden:
    """What one player cannot see: ``need[k]`` number cards and ``needj[k]`` jokers in
    kernel seat ``k``'s hand, drawn from ``pool`` and ``jpool``."""

    pool: K.IntArray
    jpool: K.IntArray
    need: K.IntArray
    needj: K.IntArray

    @property
    def any(self) -> bool:
        """True when there is something to deal."""
        return bool(self.need.any() or self.needj.any())


def encode_rows(st: K.IntArray, rows: Sequence[Sequence[Card]]) -> None:
    """Write the four rows into a kernel state."""
    for r, row in enumerate(rows):
        for k, c in enumerate(row):
            st[K.R_CARDS + 5 * r + k] = c
        st[K.R_LEN + r] = len(row)
        st[K.R_LAST + r] = end_value(row)
        st[K.R_FIRST + r] = start_value(row)
        st[K.R_BULL + r] = row_bullheads(row)


def encode_game(game: Game) -> KernelWorld:
    """The kernel state of ``game`` during a round (card choice or row choice).

    A card chosen but not revealed yet (a face-up choice in ``open``, or any
    choice already made in a real game) becomes that seat's fixed choice.
    """
    phase = game.phase
    if phase not in (Phase.CHOOSE, Phase.ROW):
        raise ValueError(f"the kernel encodes a round in play, not the {phase.value} phase")
    public = game.view(None)
    seats = tuple(public.active)
    st = np.zeros(K.STATE_SIZE, dtype=np.int64)
    st[K.NPLAYERS] = len(seats)
    st[K.PROF] = 1 if game.rules.professional else 0
    encode_rows(st, public.rows)
    for k, seat in enumerate(seats):
        v = game.view(seat)
        st[K.PEN + k] = public.penalties[seat]
        hand = list(v.hand)
        fixed = K.NO_CARD
        if phase is Phase.CHOOSE and v.my_choice is not None:
            fixed = v.my_choice
            hand.remove(fixed)
        st[K.FIXED + k] = fixed
        st[K.HLEN + k] = len(hand)
        for i, c in enumerate(hand):
            st[K.HANDS + 10 * k + i] = c
    qp = np.array([seats.index(p) for p, _ in public.to_resolve], dtype=np.int64)
    qc = np.array([c for _, c in public.to_resolve], dtype=np.int64)
    return KernelWorld(st, seats, qp, qc)


def hidden_cards(view: View, seats: Sequence[int]) -> Hidden:
    """The cards ``view.player`` cannot see and how many of them each other seat holds.

    The same reasoning as ``Game.sample_world``: everything not in the viewer's hand,
    the rows, the taken piles, the revealed cards or face up may be in another
    hand or set aside. Where hands are public there is nothing hidden.
    """
    if view.player is None:
        raise ValueError("a spectator's view has no hand to sample around")
    n = len(seats)
    need = np.zeros(n, dtype=np.int64)
    needj = np.zeros(n, dtype=np.int64)
    empty = np.zeros(0, dtype=np.int64)
    if view.hands is not None:
        return Hidden(empty, empty, need, needj)
    rules = view.rules
    seen = view.seen_cards()
    if view.my_choice is not None:
        seen.add(view.my_choice)
    pool = np.array(
        [c for c in rules.deck(len(view.active)) if c not in seen], dtype=np.int64
    )
    jpool = np.array([j for j in rules.joker_cards() if j not in seen], dtype=np.int64)
    for k, seat in enumerate(seats):
        if seat == view.player:
            continue
        face = view.face_up[seat]
        joker = 1 if view.has_joker[seat] and not (face is not None and face < 0) else 0
        needj[k] = joker
        need[k] = view.hand_sizes[seat] - joker - (1 if face is not None else 0)
    return Hidden(pool, jpool, need, needj)


def rows_of(st: K.IntArray) -> tuple[tuple[Card, ...], ...]:
    """The rows of a kernel state, as the engine writes them."""
    return tuple(
        tuple(int(st[K.R_CARDS + 5 * r + k]) for k in range(int(st[K.R_LEN + r])))
        for r in range(4)
    )


def step_turn(st: K.IntArray, cards: Sequence[Card], rows: Sequence[int]) -> int:
    """Play one turn in the kernel with the given card of each kernel seat; row choices
    (1..4) are taken from ``rows`` in the order they are needed. Returns how many row
    choices were used."""
    n = int(st[K.NPLAYERS])
    if len(cards) != n:
        raise ValueError(f"{n} cards are needed, one per seat")
    for k, c in enumerate(cards):
        K.remove_from_hand(st, k, c)
        st[K.FIXED + k] = c
    seq = np.array([*rows, 1], dtype=np.int64)
    pos = np.zeros(1, dtype=np.int64)
    rs = K.rng_state(0)
    pol, noise = K.seat_policies(n, K.POLICY_RANDOM)
    K.play_turn(st, pol, noise, K.ROW_SEQUENCE, seq, pos, rs)
    return int(pos[0])
