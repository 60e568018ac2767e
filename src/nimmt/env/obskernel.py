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
from .spaces import CARD_SLOTS, N_ACTIONS, ROW_ACTION, field_slice

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
_HAND = field_slice("hand").start
_SEEN = field_slice("seen").start
_PLAYED = field_slice("played_by").start
_HELD = field_slice("held_by").start
_POOL = field_slice("pool").start
_ROWSF = field_slice("rows").start
_ENDS = field_slice("row_ends").start
_RBULL = field_slice("row_bullheads").start
_RLENF = field_slice("row_lengths").start
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
_PHASEF = field_slice("phase").start
_MYCHOICE = field_slice("my_choice").start
_PCARDF = field_slice("pending_card").start
_PREASONF = field_slice("pending_reason").start
_ROUNDF = field_slice("round").start
_TURNF = field_slice("turn").start
_VARIANTSF = field_slice("variants").start
_PLAYERSF = field_slice("players").start
_LIMITF = field_slice("limit").start


@_jit
def _slot(c: int) -> int:
    if c < 0:
        return c + 10
    return c + 9


@_jit
def _rel(p: int, me: int, n: int) -> int:
    """Seat ``p`` as seen from seat ``me``: 0 for itself, k for the k-th seat to its left.

    A branch rather than ``%``: an integer division per card costs more than the
    rest of an observation.
    """
    r = p - me
    if r < 0:
        r += n
    return r


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
            row[_HAND + _slot(seats[i, 4 + k])] = 1.0
        # Seen: the rows, the taken cards, every revealed card, face-up choices.
        for r in range(ROWS):
            length = m[P_RLEN + r]
            end = 0
            bulls = 0
            for k in range(length):
                c = m[P_ROWS + ROW_CAPACITY * r + k]
                row[_ROWSF + ROW_CAPACITY * r + k] = c
                row[_SEEN + _slot(c)] = 1.0
                if c < 0:
                    end = end + c + 10
                    bulls += 1
                else:
                    end = c * 10
                    bulls += _BULL[c]
            row[_ENDS + r] = end / 10.0
            row[_RBULL + r] = bulls
            row[_RLENF + r] = length
        ntaken = m[P_NTAKEN]
        npool = m[P_NPOOL]
        for k in range(ntaken):
            row[_SEEN + _slot(cards[k])] = 1.0
        for k in range(npool):
            row[_POOL + _slot(cards[ntaken + k])] = 1.0
        base = ntaken + npool
        for k in range(m[P_NHELD]):
            p = cards[base + 2 * k]
            row[_HELD + _slot(cards[base + 2 * k + 1])] = _rel(p, me, n) + 1
        for k in range(played.shape[0]):
            s = _slot(played[k, 1])
            row[_SEEN + s] = 1.0
            row[_PLAYED + s] = _rel(played[k, 0], me, n) + 1
        for p in range(n):
            rel = _rel(p, me, n)
            for f in range(7):
                row[_SEAT_FIELDS[f] + rel] = m[P_SEATS + 10 * f + p]
            face = m[P_SEATS + 10 * S_FACE + p]
            if face != NONE:
                row[_SEAT_FIELDS[S_FACE] + rel] = face
                if p != me:
                    s = _slot(face)
                    row[_SEEN + s] = 1.0
                    row[_PLAYED + s] = rel + 1
        # A card in the observer's own hand is never "seen" elsewhere.
        for k in range(hlen):
            row[_SEEN + _slot(seats[i, 4 + k])] = 0.0
        if m[P_PHASE] >= 0:
            row[_PHASEF + m[P_PHASE]] = 1.0
        if seats[i, 1] != NONE:
            row[_MYCHOICE] = seats[i, 1]
        kind = m[P_KIND]
        if kind == K_ROW and m[P_PCARD] != NONE:
            row[_PCARDF] = m[P_PCARD]
            row[_PREASONF + m[P_PREASON]] = 1.0
        row[_ROUNDF] = m[P_ROUND]
        row[_TURNF] = m[P_TURN]
        for v in range(_NV):
            if (m[P_VARIANTS] >> v) & 1:
                row[_VARIANTSF + v] = 1.0
        row[_PLAYERSF] = n
        row[_LIMITF] = m[P_LIMIT]
        if seats[i, 2] != 0:
            if kind == K_ROW:
                for r in range(ROWS):
                    mask[ROW_ACTION + r] = 1
            elif kind == K_DRAFT:
                for k in range(npool):
                    mask[_slot(cards[ntaken + k])] = 1
            elif kind == K_CARD:
                for k in range(hlen):
                    mask[_slot(seats[i, 4 + k])] = 1


assert CARD_SLOTS == 114
