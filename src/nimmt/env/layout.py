"""The flat layout of observations and actions, apart from everything that writes them.

:mod:`nimmt.env.spaces` documents the layout (its fields, shapes and meaning)
and encodes views into it; :mod:`nimmt.env.obskernel` and
:mod:`nimmt.env.vkernel` write the same layout in compiled code. All three read
it from here, so the dependency goes one way: the layout imports none of its
writers, and the compiled writers never import the Python encoder that calls
them.

The ``AT_*`` constants are where each field starts in the flat vector: plain
module integers, which numba compiles as constants.
"""

from __future__ import annotations

import numpy as np

from ..cards import Card
from ..rules import MAX_PLAYERS, ROW_CAPACITY, ROWS, VARIANTS
from ..sim.kernel import _jit
from ..views import Phase

__all__ = [
    "CARD_SLOTS",
    "FIELDS",
    "FLAT_SIZE",
    "N_ACTIONS",
    "PHASES",
    "ROW_ACTION",
    "SEATS",
    "Field",
    "field_slice",
    "jit_slot",
    "jit_slot_card",
    "rel_seat",
    "slot",
    "slot_card",
]

#: Card slots: ten jokers, then the number cards 1..104.
CARD_SLOTS = 114
#: Seats in every per-seat field, whatever the player count.
SEATS = MAX_PLAYERS
#: Action ``ROW_ACTION + r - 1`` takes row ``r``.
ROW_ACTION = CARD_SLOTS
N_ACTIONS = CARD_SLOTS + ROWS
#: The phases of the one-hot ``phase`` field, in order.
PHASES = (Phase.DRAFT, Phase.CHOOSE, Phase.ROW, Phase.OVER)


def slot(card: Card) -> int:
    """The slot of a card: joker 0.d in slot d, number card c in slot c + 9."""
    return card + 10 if card < 0 else card + 9


def slot_card(s: int) -> Card:
    """The card in slot ``s`` (inverse of :func:`slot`)."""
    return s - 10 if s < 10 else s - 9


# The same two for compiled code (Python callers keep the plain functions: a call into
# compiled code from Python costs more than the arithmetic).
jit_slot = _jit(slot)
jit_slot_card = _jit(slot_card)


@_jit
def rel_seat(p: int, me: int, n: int) -> int:
    """Seat ``p`` as seen from seat ``me``: 0 for itself, k for the k-th seat to its left.

    A branch rather than ``%``: an integer division per card costs more than the
    rest of an observation.
    """
    r = p - me
    if r < 0:
        r += n
    return r


class Field:
    """One named part of the observation: its shape and where it sits in the flat vector.

    Its bounds depend on the rules (the deck, the jokers, the limit, the end):
    :func:`nimmt.env.spaces.field_bounds` derives them.
    """

    __slots__ = ("integer", "name", "shape", "size", "start")

    def __init__(self, name: str, shape: tuple[int, ...], integer: bool = True) -> None:
        self.name = name
        self.shape = shape
        self.size = int(np.prod(shape))
        self.integer = integer
        self.start = 0


FIELDS: tuple[Field, ...] = (
    Field("hand", (CARD_SLOTS,)),
    Field("seen", (CARD_SLOTS,)),
    Field("played_by", (CARD_SLOTS,)),
    Field("held_by", (CARD_SLOTS,)),
    Field("pool", (CARD_SLOTS,)),
    Field("rows", (ROWS, ROW_CAPACITY)),
    Field("row_ends", (ROWS,), integer=False),
    Field("row_bullheads", (ROWS,)),
    Field("row_lengths", (ROWS,)),
    Field("scores", (SEATS,)),
    Field("penalties", (SEATS,)),
    Field("hand_sizes", (SEATS,)),
    Field("chosen", (SEATS,)),
    Field("face_up", (SEATS,)),
    Field("in_play", (SEATS,)),
    Field("eliminated", (SEATS,)),
    Field("marker", (SEATS,)),
    Field("phase", (len(PHASES),)),
    Field("my_choice", (1,)),
    Field("pending_card", (1,)),
    Field("pending_reason", (2,)),
    Field("round", (1,)),
    Field("turn", (1,)),
    Field("variants", (len(VARIANTS),)),
    Field("players", (1,)),
    Field("limit", (1,)),
)
_start = 0
for _f in FIELDS:
    _f.start = _start
    _start += _f.size
#: Length of the flat observation.
FLAT_SIZE = _start
_BY_NAME = {f.name: f for f in FIELDS}


def field_slice(name: str) -> slice:
    """Where field ``name`` lies in the flat vector."""
    f = _BY_NAME[name]
    return slice(f.start, f.start + f.size)


# Where each field starts, read on the hot paths (and compiled as constants).
AT_HAND = _BY_NAME["hand"].start
AT_SEEN = _BY_NAME["seen"].start
AT_PLAYED_BY = _BY_NAME["played_by"].start
AT_HELD_BY = _BY_NAME["held_by"].start
AT_POOL = _BY_NAME["pool"].start
AT_ROWS = _BY_NAME["rows"].start
AT_ROW_ENDS = _BY_NAME["row_ends"].start
AT_ROW_BULLHEADS = _BY_NAME["row_bullheads"].start
AT_ROW_LENGTHS = _BY_NAME["row_lengths"].start
AT_SCORES = _BY_NAME["scores"].start
AT_PENALTIES = _BY_NAME["penalties"].start
AT_HAND_SIZES = _BY_NAME["hand_sizes"].start
AT_CHOSEN = _BY_NAME["chosen"].start
AT_FACE_UP = _BY_NAME["face_up"].start
AT_IN_PLAY = _BY_NAME["in_play"].start
AT_ELIMINATED = _BY_NAME["eliminated"].start
AT_MARKER = _BY_NAME["marker"].start
AT_PHASE = _BY_NAME["phase"].start
AT_MY_CHOICE = _BY_NAME["my_choice"].start
AT_PENDING_CARD = _BY_NAME["pending_card"].start
AT_PENDING_REASON = _BY_NAME["pending_reason"].start
AT_ROUND = _BY_NAME["round"].start
AT_TURN = _BY_NAME["turn"].start
AT_VARIANTS = _BY_NAME["variants"].start
AT_PLAYERS = _BY_NAME["players"].start
AT_LIMIT = _BY_NAME["limit"].start
