"""Observations, actions and masks: one fixed layout for every rule set.

A learning agent should not have to be rebuilt because a table has six seats
instead of four or plays ``professional``: every space here has the same
shape for 2 to 10 players and every variant. Seats are *relative*: index 0
is the observer, index ``k`` the ``k``-th seat to their left, so that a policy
learned in one seat plays in any other. Cards have fixed *slots*: the jokers
0.0..0.9 in slots 0..9, number card ``c`` in slot ``c + 9`` (slots 10..113).

Everything is encoded from the engine's :class:`~nimmt.views.View` of the
observer, which already holds only what that seat may know (docs/rules.md §6): no
other hand (unless hands are public), no undealt card, no face-down choice of
another seat. The encoder reads nothing else, so it cannot leak what the view
hides.

**Actions** are one ``Discrete(118)`` for every decision: action ``a < 114``
plays (or drafts) the card in slot ``a``; action ``114 + r - 1`` takes row
``r`` (1..4). The ``action_mask`` marks the legal ones for the seat asked now.

**Observations** come flat (one ``float32`` vector of :data:`FLAT_SIZE`, the
fields below in order) or as a dict of the same fields (``int32`` arrays,
``row_ends`` ``float32``). The fields, with their shapes:

==================  ========  ===============================================
field               shape     meaning
==================  ========  ===============================================
``hand``            114       1 for each card in the observer's hand
``seen``            114       1 for each card seen this round outside the hand
                              (rows, taken, revealed, chosen face up)
``played_by``       114       1 + relative seat of who played the card this
                              round (revealed or chosen face up), else 0
``held_by``         114       1 + relative seat holding the card where hands
                              are public (``open-hands``, ``logic``), else 0
``pool``            114       ``logic``: 1 for each card still to draft
``rows``            4 × 5     the rows' cards (card codes: jokers -10..-1), 0
                              for an empty place
``row_ends``        4         each row's end value (87.9 after joker 0.9)
``row_bullheads``   4         each row's bullheads
``row_lengths``     4         cards in each row
``scores``          10        totals before this round, by relative seat
``penalties``       10        bullheads taken this round, by relative seat
``hand_sizes``      10        cards in hand, by relative seat
``chosen``          10        1 for each seat that has chosen this turn
``face_up``         10        ``open``: the card each seat chose face up, 0 if
                              none
``in_play``         10        1 for each seat dealt in this round
``eliminated``      10        1 for each seat out of the game (elimination)
``marker``          10        ``open``: 1 at the seat holding the marker
``phase``           4         one-hot: draft, card, row, over
``my_choice``       1         the observer's own face-down choice, 0 if none
``pending_card``    1         the card waiting for a row choice, 0 if none
``pending_reason``  2         one-hot: a number card that fits no row (too low,
                              or ``professional``: at no end), a joker
``round``           1         the round, from 1
``turn``            1         the turn within the round, 1..10 (0 in a draft)
``variants``        6         1 for each variant in play, in ``VARIANTS`` order
``players``         1         seats at the table
``limit``           1         the score limit
==================  ========  ===============================================

>>> from nimmt import Game, Rules
>>> game = Game(Rules.preset("classic", players=3), seed=1)
>>> obs = encode(game.view(0))
>>> obs.shape == (FLAT_SIZE,), int(obs[field_slice("hand")].sum())
(True, 10)
>>> int(action_mask(game.view(0)).sum())
10
"""

from __future__ import annotations

import functools
import math
from collections.abc import Mapping, Sequence
from types import MappingProxyType
from typing import Any

import gymnasium
import numpy as np
import numpy.typing as npt

from ..cards import BULLHEADS
from ..decisions import Decision, DecisionKind, TakeRow, make_decision
from ..rows import end_value, row_bullheads
from ..rules import HAND_SIZE, MAX_PLAYERS, ROW_CAPACITY, ROWS, VARIANTS, EndMode, Rules
from ..views import View
from . import layout as L
from . import obskernel as O
from .layout import (
    CARD_SLOTS,
    FIELDS,
    FLAT_SIZE,
    N_ACTIONS,
    PHASES,
    ROW_ACTION,
    SEATS,
    Field,
    field_slice,
    slot,
    slot_card,
)

__all__ = [
    "CARD_SLOTS",
    "FIELDS",
    "FLAT_SIZE",
    "N_ACTIONS",
    "ROW_ACTION",
    "SEATS",
    "Encoder",
    "Field",
    "action_mask",
    "action_of",
    "action_space",
    "decision_of",
    "encode",
    "encode_reference",
    "field_bounds",
    "field_slice",
    "observation_space",
    "slot",
    "slot_card",
    "to_dict",
]

FloatArray = npt.NDArray[np.float32]
Int8Array = npt.NDArray[np.int8]

#: The largest whole number a ``float32`` holds exactly: no bound may pass it.
EXACT = 2**24


def _round_bullheads(rules: Rules) -> tuple[int, int]:
    """The most bullheads one player can take in a round, and in one row.

    A player takes only cards dealt this round, so a round's worth is bounded by the
    bullheads of the whole deck of a full table (the tactics deck is largest with
    every seat in play) and its jokers, one each; a row holds at most
    ``ROW_CAPACITY`` of those cards.
    """
    n = rules.players
    heads = sorted(
        [BULLHEADS[c] for c in rules.deck(n)] + [BULLHEADS[c] for c in rules.joker_cards()[:n]]
    )
    return sum(heads), sum(heads[-ROW_CAPACITY:])


@functools.cache
def field_bounds(rules: Rules | None = None) -> Mapping[str, tuple[float, float]]:
    """Each field's lowest and highest value under ``rules``, derived from the rules.

    Cards are codes up to the deck's highest card (jokers -10..-1 where they are
    dealt); a row's end value is highest on the top card followed by the
    largest jokers (104, 0.9, 0.8, 0.7, 0.6 ends at 107.0); a round's penalty is at
    most the bullheads dealt. Totals end at most one round's bullheads past
    ``limit - 1`` (classic and elimination: a total that reaches the limit ends
    the game or the player's part in it) or after ``rounds`` rounds; and since
    every round with two or more players takes at least one row (ten cards each
    do not fit into four rows of five), no game outlasts ``players × limit``
    rounds. ``rules=None`` gives bounds that hold for every rule set, with no
    upper bound (``inf``) for totals, rounds and the limit, which the rules
    leave open.
    """
    if rules is None:
        widest = Rules(players=MAX_PLAYERS, variants=frozenset({"jokers"}))
        out = dict(field_bounds(widest))
        for name in ("scores", "round", "limit"):
            out[name] = (0.0, math.inf)
        return MappingProxyType(out)
    n = rules.players
    top = max(rules.deck(n))
    low = float(min(rules.joker_cards(), default=0))
    per_round, per_row = _round_bullheads(rules)
    jokers = sorted(rules.joker_cards())[-min(n, ROW_CAPACITY - 1) :] if rules.jokers else []
    if rules.end is EndMode.ROUNDS:
        assert rules.rounds is not None
        scores, rounds = rules.rounds * per_round, rules.rounds
    else:
        scores, rounds = rules.limit - 1 + per_round, n * rules.limit
    if max(scores, rounds) > EXACT:
        what = f"{rules.rounds} rounds" if rules.end is EndMode.ROUNDS else f"limit {rules.limit}"
        raise ValueError(
            f"a {what} is too large for an observation: totals up to {scores} and rounds "
            f"up to {rounds} would pass {EXACT}, the largest whole number a float32 holds "
            "exactly"
        )
    seat = float(n)
    card = (low, float(top))
    return MappingProxyType({
        "hand": (0, 1),
        "seen": (0, 1),
        "played_by": (0, seat),
        "held_by": (0, seat),
        "pool": (0, 1),
        "rows": card,
        "row_ends": (0, end_value((top, *jokers)) / 10),
        "row_bullheads": (0, per_row),
        "row_lengths": (0, ROW_CAPACITY),
        "scores": (0, scores),
        "penalties": (0, per_round),
        "hand_sizes": (0, HAND_SIZE),
        "chosen": (0, 1),
        "face_up": card,
        "in_play": (0, 1),
        "eliminated": (0, 1),
        "marker": (0, 1),
        "phase": (0, 1),
        "my_choice": card,
        "pending_card": card,
        "pending_reason": (0, 1),
        "round": (0, rounds),
        "turn": (0, HAND_SIZE),
        "variants": (0, 1),
        "players": (0, seat),
        "limit": (0, rules.limit),
    })


_PHASE_INDEX = {p: i for i, p in enumerate(PHASES)}
_SLOT = tuple(slot(c) if c else -1 for c in range(-10, 105))  # _SLOT[c + 10]

def encode_reference(view: View) -> FloatArray:
    """The flat observation of a seat's ``view``, written plainly: the definition.

    :class:`Encoder` computes the same numbers much faster (compiled, sharing the
    public part between seats) and the vectorised environment writes them from
    its own state; the tests pin both to this function.
    """
    me = view.player
    if me is None:
        raise ValueError("observations are encoded for a seat, not for a spectator")
    rules = view.rules
    n = rules.players
    table = view.table
    out = np.zeros(FLAT_SIZE, dtype=np.float32)
    for c in view.hand:
        out[L.AT_HAND + slot(c)] = 1
    seen = view.seen_cards() - set(view.hand)
    for c in seen:
        out[L.AT_SEEN + slot(c)] = 1
    for turn in table.revealed:
        for p, c in turn:
            out[L.AT_PLAYED_BY + slot(c)] = (p - me) % n + 1
    for p, face in enumerate(view.face_up):
        if face is not None and p != me:
            out[L.AT_PLAYED_BY + slot(face)] = (p - me) % n + 1
    if table.hands is not None:
        for p, hand in enumerate(table.hands):
            for c in hand:
                out[L.AT_HELD_BY + slot(c)] = (p - me) % n + 1
    for c in table.draft_pool:
        out[L.AT_POOL + slot(c)] = 1
    for r, row in enumerate(table.rows):
        for k, c in enumerate(row):
            out[L.AT_ROWS + ROW_CAPACITY * r + k] = c
        out[L.AT_ROW_ENDS + r] = end_value(row) / 10
        out[L.AT_ROW_BULLHEADS + r] = row_bullheads(row)
        out[L.AT_ROW_LENGTHS + r] = len(row)
    chosen = view.chosen
    for p in range(n):
        rel = (p - me) % n
        out[L.AT_SCORES + rel] = table.scores[p]
        out[L.AT_PENALTIES + rel] = table.penalties[p]
        out[L.AT_HAND_SIZES + rel] = table.hand_sizes[p]
        out[L.AT_CHOSEN + rel] = chosen[p]
        out[L.AT_FACE_UP + rel] = view.face_up[p] or 0
        out[L.AT_IN_PLAY + rel] = p in table.active
        out[L.AT_ELIMINATED + rel] = table.eliminated[p]
        out[L.AT_MARKER + rel] = table.marker == p
    if table.phase in _PHASE_INDEX:
        out[L.AT_PHASE + _PHASE_INDEX[table.phase]] = 1
    out[L.AT_MY_CHOICE] = view.my_choice or 0
    pending = view.pending
    if pending is not None and pending.kind is DecisionKind.ROW and pending.card is not None:
        out[L.AT_PENDING_CARD] = pending.card
        out[L.AT_PENDING_REASON + (1 if pending.reason == "joker" else 0)] = 1
    out[L.AT_ROUND] = table.round
    out[L.AT_TURN] = table.turn
    for i, v in enumerate(VARIANTS):
        out[L.AT_VARIANTS + i] = v in rules.variants
    out[L.AT_PLAYERS] = n
    out[L.AT_LIMIT] = rules.limit
    return out



class Encoder:
    """Encodes views to flat observations and masks, fast.

    One encoder per environment. The engine hands every view of one moment the
    same ``Table`` and ``Pending`` objects, so what is public is gathered once
    per moment (and what was revealed, once per turn) into small integer arrays;
    one compiled call (:func:`nimmt.env.obskernel.encode_moment`) then writes
    every observer's row and mask. The result equals :func:`encode_reference`.
    """

    __slots__ = ("_cards", "_last", "_moment", "_pending", "_played", "_round", "_table", "_turns")

    def __init__(self) -> None:
        self._table: object = None
        self._pending: object = None
        self._moment = np.zeros(O.P_SIZE, dtype=np.int64)
        self._cards = np.zeros(0, dtype=np.int64)
        self._played = np.zeros((0, 2), dtype=np.int64)
        self._round = -1
        self._turns = 0
        self._last: object = None

    def __reduce__(self) -> tuple[type[Encoder], tuple[()]]:
        # The cache holds engine objects; a copy starts with an empty one.
        return (Encoder, ())

    def encode(self, view: View) -> FloatArray:
        """The flat observation of ``view`` (a seat's view, not a spectator's)."""
        flats, _ = self.encode_all([view])
        row: FloatArray = flats[0]
        return row

    def encode_all(
        self, views: Sequence[View]
    ) -> tuple[npt.NDArray[np.float32], npt.NDArray[np.int8]]:
        """Observations and action masks of several seats' views of one moment, a row each."""
        first = views[0]
        table = first.table
        pending = first.pending
        if table is not self._table:
            self._public(first)
            self._table_part(first)
            self._pending_part(first)
        elif pending is not self._pending:
            self._pending_part(first)
        deciding = pending.players if pending is not None else ()
        seats = []
        for view in views:
            me = view.player
            if me is None:
                raise ValueError("observations are encoded for a seat, not for a spectator")
            if view.table is not table:
                raise ValueError("encode_all takes views of one moment")
            hand = view.hand
            choice = view.my_choice
            seats.append(
                [me, O.NONE if choice is None else choice, me in deciding, len(hand), *hand]
                + [0] * (10 - len(hand))
            )
        k = len(views)
        out = np.empty((k, FLAT_SIZE), dtype=np.float32)
        masks = np.empty((k, N_ACTIONS), dtype=np.int8)
        O.encode_moment(
            self._moment, self._cards, self._played, np.array(seats, dtype=np.int64), out, masks
        )
        return out, masks

    def _public(self, view: View) -> None:
        """What changes only with the table: revealed plays, taken cards, pool, public hands."""
        table = view.table
        revealed = table.revealed
        done = self._turns
        if (
            table.round != self._round
            or len(revealed) < done
            or (done and revealed[done - 1] is not self._last)
        ):
            # Another round or another game: nothing revealed is known yet.
            self._played = np.zeros((0, 2), dtype=np.int64)
            self._round = table.round
            self._turns = done = 0
        if len(revealed) > done:
            new = np.array([pc for turn in revealed[done:] for pc in turn], dtype=np.int64)
            self._played = np.concatenate([self._played, new.reshape(-1, 2)])
            self._turns = len(revealed)
            self._last = revealed[-1]
        cards = [c for pile in table.taken for c in pile]
        n_taken = len(cards)
        cards.extend(table.draft_pool)
        n_pool = len(table.draft_pool)
        n_held = 0
        if table.hands is not None:
            for p, hand in enumerate(table.hands):
                for c in hand:
                    cards.append(p)
                    cards.append(c)
                    n_held += 1
        self._cards = np.array(cards, dtype=np.int64)
        self._table = table
        m = self._moment
        m[O.P_NTAKEN] = n_taken
        m[O.P_NPOOL] = n_pool
        m[O.P_NHELD] = n_held

    def _table_part(self, view: View) -> None:
        """The public numbers that change only with the table."""
        table = view.table
        rules = view.rules
        n = rules.players
        rows = [0] * (ROWS * ROW_CAPACITY)
        lens = [0] * ROWS
        for r, row in enumerate(table.rows):
            rows[ROW_CAPACITY * r : ROW_CAPACITY * r + len(row)] = row
            lens[r] = len(row)
        pad = [0] * (SEATS - n)
        active = [0] * n
        for p in table.active:
            active[p] = 1
        marker = [0] * n
        if table.marker is not None:
            marker[table.marker] = 1
        m = self._moment
        m[: O.P_KIND] = [
            n,
            _PHASE_INDEX.get(table.phase, -1),
            table.round,
            table.turn,
            rules.limit,
            sum(1 << i for i, v in enumerate(VARIANTS) if v in rules.variants),
        ]
        m[O.P_ROWS : O.P_PENDING] = [
            *rows,
            *lens,
            *table.scores, *pad,
            *table.penalties, *pad,
            *table.hand_sizes, *pad,
            *active, *pad,
            *table.eliminated, *pad,
            *marker, *pad,
        ]  # fmt: skip

    def _pending_part(self, view: View) -> None:
        """The public numbers that change with the decision pending: who has chosen, what."""
        pending = view.pending
        self._pending = pending
        m = self._moment
        kind = -1
        pcard = O.NONE
        reason = 0
        if pending is not None:
            kind = _KIND_INDEX[pending.kind]
            if pending.card is not None:
                pcard = pending.card
                reason = 1 if pending.reason == "joker" else 0
        m[O.P_KIND : O.P_NTAKEN] = [kind, pcard, reason]
        pad = [0] * (SEATS - view.rules.players)
        faces = [O.NONE if c is None else c for c in view.face_up]
        m[O.P_PENDING:] = [*view.chosen, *pad, *faces, *pad]


_KIND_INDEX = {
    DecisionKind.CARD: O.K_CARD,
    DecisionKind.ROW: O.K_ROW,
    DecisionKind.DRAFT: O.K_DRAFT,
}
_ENCODER = Encoder()


def encode(view: View) -> FloatArray:
    """The flat observation of a seat's ``view`` (see the table in the module docstring)."""
    return _ENCODER.encode(view)


def to_dict(flat: FloatArray) -> dict[str, npt.NDArray[Any]]:
    """The dict form of a flat observation: one array per field, ``int32`` or ``float32``."""
    out: dict[str, npt.NDArray[Any]] = {}
    for f in FIELDS:
        part = flat[f.start : f.start + f.size].reshape(f.shape)
        out[f.name] = part.astype(np.int32) if f.integer else part.copy()
    return out


def action_mask(view: View) -> Int8Array:
    """1 for each action legal for the viewer now (all zeros when they have no decision)."""
    mask = np.zeros(N_ACTIONS, dtype=np.int8)
    pending = view.pending
    if pending is None or view.player not in pending.players:
        return mask
    if pending.kind is DecisionKind.ROW:
        mask[ROW_ACTION : ROW_ACTION + ROWS] = 1
    else:
        for c in view.options:
            mask[_SLOT[c + 10]] = 1
    return mask


def decision_of(kind: DecisionKind, player: int, action: int) -> Decision:
    """The engine decision that ``action`` stands for when a ``kind`` decision is pending."""
    if kind is DecisionKind.ROW:
        return make_decision(kind, player, action - ROW_ACTION + 1)
    return make_decision(kind, player, slot_card(action) if 0 <= action < CARD_SLOTS else 0)


def action_of(decision: Decision) -> int:
    """The action that stands for an engine decision (inverse of :func:`decision_of`)."""
    if isinstance(decision, TakeRow):
        return ROW_ACTION + decision.row - 1
    return slot(decision.card)


def action_space() -> gymnasium.spaces.Discrete:
    """``Discrete(118)``: a card slot, or one of the four rows."""
    return gymnasium.spaces.Discrete(N_ACTIONS)


def observation_space(kind: str = "flat", rules: Rules | None = None) -> gymnasium.spaces.Dict:
    """``{"observation": ..., "action_mask": MultiBinary(118)}``, flat or as a dict of fields.

    The bounds are those :func:`field_bounds` derives from ``rules`` (every rule set
    when ``None``); the shapes are the same for all rules.
    """
    bounds = field_bounds(rules)
    mask = gymnasium.spaces.Box(0, 1, (N_ACTIONS,), dtype=np.int8)
    inner: gymnasium.spaces.Space[Any]
    if kind == "flat":
        low = np.zeros(FLAT_SIZE, dtype=np.float32)
        high = np.zeros(FLAT_SIZE, dtype=np.float32)
        for f in FIELDS:
            low[f.start : f.start + f.size], high[f.start : f.start + f.size] = bounds[f.name]
        inner = gymnasium.spaces.Box(low, high, dtype=np.float32)
    elif kind == "dict":
        top = float(np.iinfo(np.int32).max)
        inner = gymnasium.spaces.Dict(
            {
                f.name: gymnasium.spaces.Box(
                    bounds[f.name][0],
                    bounds[f.name][1] if not f.integer else min(bounds[f.name][1], top),
                    f.shape,
                    dtype=np.int32 if f.integer else np.float32,
                )
                for f in FIELDS
            }
        )
    else:
        raise ValueError(f"observation must be 'flat' or 'dict', not {kind!r}")
    return gymnasium.spaces.Dict({"observation": inner, "action_mask": mask})
