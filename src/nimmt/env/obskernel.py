"""The compiled writer of observations for the engine-based environments.

:class:`nimmt.env.spaces.Encoder` gathers what one moment of a game shows
(from the views, so nothing hidden is ever in reach) into small integer
arrays; :func:`encode_moment` writes every observer's flat observation and
action mask from them in one call. Python spends its time on the gathering,
which happens once per moment, not once per observer and field.

The moment array (``P_*`` offsets): player count, phase, round, turn, limit,
variant bits, the pending decision's kind, card and reason, how many taken,
pool and public-hand cards the card array holds, then the rows (4 × 5 card
codes), their lengths, and ten entries per seat, in absolute seat order, for
scores, penalties, hand sizes, in play, eliminated, marker, chosen and face-up
cards. The card array: the taken cards, the pool, then ``(seat, card)`` pairs
of public hands. The played array: ``(seat, card)`` of every card revealed
this round. One row per observer: seat, own face-down choice, whether the
seat decides now, hand size, then the hand.
"""

from __future__ import annotations

import numpy as np

from ..cards import BULLHEADS
from ..rules import ROW_CAPACITY, ROWS, VARIANTS
from ..sim.kernel import IntArray, _jit
from . import layout as L
from .layout import CARD_SLOTS, N_ACTIONS, ROW_ACTION, field_slice, jit_slot, rel_seat

NONE = -100  # no card

P_N = 0
P_PHASE = 1
P_ROUND = 2
P_TURN = 3
P_LIMIT = 4
P_VARIANTS = 5
P_KIND = 6  # K_CARD, K_ROW, K_DRAFT, -1 for none
P_PCARD = 7
P_PREASON = 8
P_NTAKEN = 9
P_NPOOL = 10
P_NHELD = 11
P_ROWS = 12
P_RLEN = P_ROWS + ROWS * ROW_CAPACITY
P_SEATS = P_RLEN + ROWS  # eight blocks of ten seats: scores, penalties, hand sizes,
# in play, eliminated, marker (these change with the table), chosen, face up (these
# change with the decision pending)
S_CHOSEN = 6
S_FACE = 7
P_PENDING = P_SEATS + 10 * S_CHOSEN
P_SIZE = P_SEATS + 8 * 10

K_CARD = 0
K_ROW = 1
K_DRAFT = 2

_BULL = np.array(BULLHEADS[:105], dtype=np.int64)
_NV = len(VARIANTS)
# The observation's per-seat fields, in the order of the moment's seat blocks.
_SEAT_FIELDS = np.array(
    [
        field_slice(name).start
        for name in (
            "scores",
            "penalties",
            "hand_sizes",
            "in_play",
            "eliminated",
            "marker",
            "chosen",
            "face_up",
        )
    ],
    dtype=np.int64,
)


@_jit
def encode_moment(
    m: IntArray,
    cards: IntArray,
    played: IntArray,
    seats: IntArray,
    out: np.ndarray,
    masks: np.ndarray,
) -> None:
    """Write observer ``i``'s observation to ``out[i]`` and its mask to ``masks[i]``."""
    n = m[P_N]
    for i in range(seats.shape[0]):
        row = out[i]
        mask = masks[i]
        for k in range(row.shape[0]):
            row[k] = 0.0
        for k in range(N_ACTIONS):
            mask[k] = 0
        me = seats[i, 0]
        hlen = seats[i, 3]
        for k in range(hlen):
            row[L.AT_HAND + jit_slot(seats[i, 4 + k])] = 1.0
        # Seen: the rows, the taken cards, every revealed card, face-up choices.
        for r in range(ROWS):
            length = m[P_RLEN + r]
            end = 0
            bulls = 0
            for k in range(length):
                c = m[P_ROWS + ROW_CAPACITY * r + k]
                row[L.AT_ROWS + ROW_CAPACITY * r + k] = c
                row[L.AT_SEEN + jit_slot(c)] = 1.0
                if c < 0:
                    end = end + c + 10
                    bulls += 1
                else:
                    end = c * 10
                    bulls += _BULL[c]
            row[L.AT_ROW_ENDS + r] = end / 10.0
            row[L.AT_ROW_BULLHEADS + r] = bulls
            row[L.AT_ROW_LENGTHS + r] = length
        ntaken = m[P_NTAKEN]
        npool = m[P_NPOOL]
        for k in range(ntaken):
            row[L.AT_SEEN + jit_slot(cards[k])] = 1.0
        for k in range(npool):
            row[L.AT_POOL + jit_slot(cards[ntaken + k])] = 1.0
        base = ntaken + npool
        for k in range(m[P_NHELD]):
            p = cards[base + 2 * k]
            row[L.AT_HELD_BY + jit_slot(cards[base + 2 * k + 1])] = rel_seat(p, me, n) + 1
        for k in range(played.shape[0]):
            s = jit_slot(played[k, 1])
            row[L.AT_SEEN + s] = 1.0
            row[L.AT_PLAYED_BY + s] = rel_seat(played[k, 0], me, n) + 1
        for p in range(n):
            rel = rel_seat(p, me, n)
            for f in range(7):
                row[_SEAT_FIELDS[f] + rel] = m[P_SEATS + 10 * f + p]
            face = m[P_SEATS + 10 * S_FACE + p]
            if face != NONE:
                row[_SEAT_FIELDS[S_FACE] + rel] = face
                if p != me:
                    s = jit_slot(face)
                    row[L.AT_SEEN + s] = 1.0
                    row[L.AT_PLAYED_BY + s] = rel + 1
        # A card in the observer's own hand is never "seen" elsewhere.
        for k in range(hlen):
            row[L.AT_SEEN + jit_slot(seats[i, 4 + k])] = 0.0
        if m[P_PHASE] >= 0:
            row[L.AT_PHASE + m[P_PHASE]] = 1.0
        if seats[i, 1] != NONE:
            row[L.AT_MY_CHOICE] = seats[i, 1]
        kind = m[P_KIND]
        if kind == K_ROW and m[P_PCARD] != NONE:
            row[L.AT_PENDING_CARD] = m[P_PCARD]
            row[L.AT_PENDING_REASON + m[P_PREASON]] = 1.0
        row[L.AT_ROUND] = m[P_ROUND]
        row[L.AT_TURN] = m[P_TURN]
        for v in range(_NV):
            if (m[P_VARIANTS] >> v) & 1:
                row[L.AT_VARIANTS + v] = 1.0
        row[L.AT_PLAYERS] = n
        row[L.AT_LIMIT] = m[P_LIMIT]
        if seats[i, 2] != 0:
            if kind == K_ROW:
                for r in range(ROWS):
                    mask[ROW_ACTION + r] = 1
            elif kind == K_DRAFT:
                for k in range(npool):
                    mask[jit_slot(cards[ntaken + k])] = 1
            elif kind == K_CARD:
                for k in range(hlen):
                    mask[jit_slot(seats[i, 4 + k])] = 1


assert CARD_SLOTS == 114
