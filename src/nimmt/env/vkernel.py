"""The compiled core of the vectorised environment and of the Parallel kernel backend.

Each game is one row of an ``int64`` matrix: the kernel's round state
(:mod:`nimmt.sim.kernel`: rows, hands, penalties) followed by what an
environment adds: the learning seat, the phase, the round and turn, the
totals, the plays of the turn being resolved (so a resolution can pause at a
row choice and go on at the next step), the cards revealed this round and by
whom, the round's deal, and the game's own random generator. Placing a card
and the default row are the kernel's, which the kernel's tests pin to the
engine; the deal, the order of a turn (every card revealed at once, resolved
in ascending order, a row choice when a card fits no row or is a joker) and the
scoring are written here and pinned to the engine by ``tests/env``.

Two ways to step: :func:`step_all` steps many games of one learning seat each
(the others played by a kernel policy); :func:`table_step` steps one game in
which every seat is an agent (``C_ALL_AGENTS``). Observations are written in
exactly the flat layout of :mod:`nimmt.env.spaces` that the engine-based
environments encode from views, so a policy moves between them unchanged.
"""

from __future__ import annotations

import numpy as np

from ..sim import kernel as K
from ..sim.kernel import (
    FIXED,
    HANDS,
    HLEN,
    PEN,
    R_BULL,
    R_CARDS,
    R_LAST,
    R_LEN,
    IntArray,
    _jit,
)
from . import spaces as S
from .layout import jit_slot as _slot
from .layout import jit_slot_card as _slot_card
from .layout import rel_seat as _rel

# -- layout of one game's row, after the kernel's state ---------------------------------

SEAT = K.STATE_SIZE  # the learning seat
PHASE = SEAT + 1  # PH_CARD, PH_ROW, PH_OVER
ROUND = PHASE + 1
TURN = ROUND + 1
RESET = TURN + 1  # 1: the next step starts a new game (autoreset)
QN = RESET + 1  # plays revealed this turn
QI = QN + 1  # the next play to resolve
QP = QI + 1  # seats of the plays, in resolution order
QC = QP + 10  # their cards
SCORES = QC + 10  # totals before this round
NPLAYED = SCORES + 10  # cards revealed this round
PLAYED = NPLAYED + 1  # (seat, card) of each card revealed this round, in order
RNG = PLAYED + 2 * 100  # the game's xoshiro128** state
DEALT = RNG + 4  # this round's deal as dealt: 10 cards per seat, then the 4 row cards
LAST = DEALT + 10 * 10 + 4  # the card each seat played in the last turn revealed
DECK = LAST + 10  # room to shuffle the deck (104 cards) and the jokers (10)
WIDTH = DECK + 104 + 10

PH_CARD = 1
PH_ROW = 2
PH_OVER = 3

# -- configuration vector -------------------------------------------------------------

C_PLAYERS = 0
C_DECK_TOP = 1
C_JOKERS = 2
C_PROF = 3
C_OPEN_HANDS = 4
C_ROUNDS = 5  # rounds of a fixed-rounds game, 0 for a game to the limit
C_LIMIT = 6
C_REWARD = 7  # R_BULLHEADS, R_GAME, R_RANK
C_OPPONENT = 8  # OPP_CHEAPEST, OPP_RANDOM, OPP_HEURISTIC
C_SEAT = 9  # the learning seat, or -1 for a random seat every game
C_TACTICS = 10
C_ALL_AGENTS = 11  # 1: every seat is an agent (the Parallel environment's table)
C_SIZE = 16

R_BULLHEADS = 0
R_GAME = 1
R_RANK = 2

OPP_CHEAPEST = 0  # a random card, the default row: the ladder's ``cheapest``
OPP_RANDOM = 1  # a random card, a random row
OPP_HEURISTIC = 2  # the kernel's rollout heuristic, the default row

_HAND = S.field_slice("hand").start
_SEEN = S.field_slice("seen").start
_PLAYEDF = S.field_slice("played_by").start
_HELD = S.field_slice("held_by").start
_ROWS = S.field_slice("rows").start
_ENDS = S.field_slice("row_ends").start
_RBULL = S.field_slice("row_bullheads").start
_RLEN = S.field_slice("row_lengths").start
_SCORES = S.field_slice("scores").start
_PENF = S.field_slice("penalties").start
_HSIZE = S.field_slice("hand_sizes").start
_CHOSEN = S.field_slice("chosen").start
_INPLAY = S.field_slice("in_play").start
_PHASEF = S.field_slice("phase").start
_MYCHOICE = S.field_slice("my_choice").start
_PCARD = S.field_slice("pending_card").start
_PREASON = S.field_slice("pending_reason").start
_ROUNDF = S.field_slice("round").start
_TURNF = S.field_slice("turn").start
_VARIANTS = S.field_slice("variants").start
_PLAYERSF = S.field_slice("players").start
_LIMITF = S.field_slice("limit").start
_ROW_ACTION = S.ROW_ACTION
_V_TACTICS = 0
_V_PROF = 2
_V_OPEN_HANDS = 4
_V_JOKERS = 5


@_jit
def _new_round(g: IntArray, cfg: IntArray) -> None:
    """Deal a round and keep a copy of it; the totals stay.

    As the kernel deals (ten cards each, or nine and a joker, then the four rows),
    but shuffling only as many cards as are dealt (a partial Fisher-Yates shuffle:
    every deal as likely as with a whole shuffle) and without allocating, since a
    vectorised step deals thousands of rounds.
    """
    players = cfg[C_PLAYERS]
    top = cfg[C_DECK_TOP]
    jokers = cfg[C_JOKERS] != 0
    rs = g[RNG : RNG + 4]
    g[K.NPLAYERS] = players
    g[K.PROF] = cfg[C_PROF]
    for i in range(top):
        g[DECK + i] = i + 1
    k = 9 if jokers else 10
    m = players * k + 4
    for i in range(m):
        j = i + K.rng_below(rs, top - i)
        x = g[DECK + i]
        g[DECK + i] = g[DECK + j]
        g[DECK + j] = x
    if jokers:
        jk = DECK + 104
        for i in range(10):
            g[jk + i] = i - 10
        for i in range(players):
            j = i + K.rng_below(rs, 10 - i)
            x = g[jk + i]
            g[jk + i] = g[jk + j]
            g[jk + j] = x
    for p in range(players):
        base = HANDS + 10 * p
        for h in range(k):
            g[base + h] = g[DECK + p * k + h]
        if jokers:
            g[base + k] = g[DECK + 104 + p]
        for h in range(10):
            g[DEALT + 10 * p + h] = g[base + h]
        g[HLEN + p] = 10
        g[FIXED + p] = K.NO_CARD
        g[PEN + p] = 0
    for r in range(4):
        c = g[DECK + players * k + r]
        K._start(g, r, c)
        g[DEALT + 100 + r] = c
    g[NPLAYED] = 0
    g[ROUND] += 1
    g[TURN] = 1
    g[PHASE] = PH_CARD
    g[QN] = 0
    g[QI] = 0


@_jit
def reset_game(g: IntArray, cfg: IntArray, master: IntArray) -> None:
    """A new game in row ``g``, its generator seeded from the ``master`` generator."""
    for k in range(WIDTH):
        g[k] = 0
    for k in range(4):
        g[RNG + k] = K.rng_next(master)
    if g[RNG] == 0 and g[RNG + 1] == 0 and g[RNG + 2] == 0 and g[RNG + 3] == 0:
        g[RNG] = 1  # xoshiro's one forbidden state
    players = cfg[C_PLAYERS]
    if cfg[C_SEAT] >= 0:
        g[SEAT] = cfg[C_SEAT]
    else:
        g[SEAT] = K.rng_below(g[RNG : RNG + 4], players)
    _new_round(g, cfg)


@_jit
def _opponent_row(g: IntArray, cfg: IntArray) -> int:
    if cfg[C_OPPONENT] == OPP_RANDOM:
        return K.rng_below(g[RNG : RNG + 4], 4)
    return K.default_row(g)


@_jit
def _finish_round(g: IntArray, cfg: IntArray) -> None:
    """Score the round; start the next one, or end the game."""
    players = cfg[C_PLAYERS]
    over = False
    for p in range(players):
        g[SCORES + p] += g[PEN + p]
    if cfg[C_ROUNDS] > 0:
        over = g[ROUND] >= cfg[C_ROUNDS]
    else:
        for p in range(players):
            if g[SCORES + p] >= cfg[C_LIMIT]:
                over = True
    if over:
        g[PHASE] = PH_OVER
        g[TURN] = 0
    else:
        _new_round(g, cfg)


@_jit
def total(g: IntArray, p: int) -> int:
    """Seat ``p``'s bullheads in this game so far (totals plus this round's, unless the
    game is over: then the totals hold them)."""
    if g[PHASE] == PH_OVER:
        return int(g[SCORES + p])
    return int(g[SCORES + p] + g[PEN + p])


@_jit
def final_reward(g: IntArray, cfg: IntArray, p: int) -> float:
    """Seat ``p``'s end-of-game reward under ``game`` or ``rank`` (0 under ``bullheads``)."""
    if cfg[C_REWARD] == R_GAME:
        return -float(g[SCORES + p])
    if cfg[C_REWARD] != R_RANK:
        return 0.0
    players = cfg[C_PLAYERS]
    better = 0
    same = 0
    for q in range(players):
        if g[SCORES + q] < g[SCORES + p]:
            better += 1
        elif g[SCORES + q] == g[SCORES + p]:
            same += 1
    rank = better + (same + 1) / 2.0
    return float((players + 1 - 2.0 * rank) / (players - 1))


@_jit
def _resolve(g: IntArray, cfg: IntArray) -> None:
    """Place the revealed plays from ``QI`` on, pausing (phase ``PH_ROW``) at a row choice
    that is an agent's: the learner's, or anyone's when every seat is an agent. Then
    the turn ends: the next turn, the next round, or the end of the game."""
    me = g[SEAT]
    everyone = cfg[C_ALL_AGENTS] != 0
    n = g[QN]
    while g[QI] < n:
        k = g[QI]
        p = g[QP + k]
        c = g[QC + k]
        row = -1
        if K.needs_row(g, c):
            if everyone or p == me:
                g[PHASE] = PH_ROW
                return
            row = _opponent_row(g, cfg)
        K.place(g, p, c, row)
        g[QI] = k + 1
    g[PHASE] = PH_CARD
    g[QN] = 0
    g[QI] = 0
    if g[HLEN] == 0:  # every seat holds as many cards: seat 0 tells
        _finish_round(g, cfg)
    else:
        g[TURN] += 1


@_jit
def _holds(g: IntArray, p: int, c: int) -> bool:
    base = HANDS + 10 * p
    for k in range(g[HLEN + p]):  # noqa: SIM110 - numba compiles loops, not generators
        if g[base + k] == c:
            return True
    return False


@_jit
def _reveal(g: IntArray, cfg: IntArray) -> None:
    """Every seat's choice (in ``FIXED``) leaves its hand; all are revealed and resolved."""
    players = cfg[C_PLAYERS]
    qn = 0
    for p in range(players):
        card = g[FIXED + p]
        K.remove_from_hand(g, p, card)
        # insertion in ascending card order
        j = qn
        while j > 0 and g[QC + j - 1] > card:
            g[QC + j] = g[QC + j - 1]
            g[QP + j] = g[QP + j - 1]
            j -= 1
        g[QC + j] = card
        g[QP + j] = p
        qn += 1
        k = g[NPLAYED]
        g[PLAYED + 2 * k] = p
        g[PLAYED + 2 * k + 1] = card
        g[NPLAYED] = k + 1
        g[LAST + p] = card  # kept across the next deal, unlike FIXED
    g[QN] = qn
    g[QI] = 0
    _resolve(g, cfg)


@_jit
def _play_card(g: IntArray, cfg: IntArray, c: int) -> bool:
    """The learner plays ``c``; the others choose, all are revealed and resolved.

    Returns False (nothing changed) when ``c`` is not in the learner's hand.
    """
    me = g[SEAT]
    if not _holds(g, me, c):
        return False
    rs = g[RNG : RNG + 4]
    policy = K.POLICY_SMART if cfg[C_OPPONENT] == OPP_HEURISTIC else K.POLICY_RANDOM
    for p in range(cfg[C_PLAYERS]):
        if p == me:
            g[FIXED + p] = c
        else:
            g[FIXED + p] = g[HANDS + 10 * p + K.choose_card(g, p, policy, 1.0, rs)]
    _reveal(g, cfg)
    return True


@_jit
def _take_row(g: IntArray, cfg: IntArray, row: int) -> None:
    """The seat whose card waits takes row ``row`` (0..3); the resolution goes on."""
    k = g[QI]
    K.place(g, g[QP + k], g[QC + k], row)
    g[QI] = k + 1
    _resolve(g, cfg)


@_jit
def write_obs(g: IntArray, cfg: IntArray, me: int, out: np.ndarray, mask: np.ndarray) -> None:
    """Seat ``me``'s observation and action mask, as :mod:`nimmt.env.spaces` lays them out.

    The mask is the seat's legal actions when it decides now: every seat chooses a
    card at once; a row is chosen by the seat whose card waits.
    """
    out[:] = 0.0
    mask[:] = 0
    players = cfg[C_PLAYERS]
    phase = g[PHASE]
    base = HANDS + 10 * me
    for k in range(g[HLEN + me]):
        out[_HAND + _slot(g[base + k])] = 1.0
    for p in range(players):
        rel = _rel(p, me, players)
        if cfg[C_OPEN_HANDS] != 0:
            base = HANDS + 10 * p
            for k in range(g[HLEN + p]):
                out[_HELD + _slot(g[base + k])] = rel + 1
        out[_SCORES + rel] = g[SCORES + p]
        out[_PENF + rel] = g[PEN + p]
        out[_HSIZE + rel] = g[HLEN + p]
        out[_INPLAY + rel] = 1.0
        if phase == PH_ROW:
            out[_CHOSEN + rel] = 1.0
    # Seen this round: the four cards the rows were dealt with, and every revealed card.
    for r in range(4):
        out[_SEEN + _slot(g[DEALT + 100 + r])] = 1.0
    for k in range(g[NPLAYED]):
        s = _slot(g[PLAYED + 2 * k + 1])
        out[_SEEN + s] = 1.0
        out[_PLAYEDF + s] = _rel(g[PLAYED + 2 * k], me, players) + 1
    for r in range(4):
        n = g[R_LEN + r]
        for k in range(n):
            out[_ROWS + 5 * r + k] = g[R_CARDS + 5 * r + k]
        out[_ENDS + r] = g[R_LAST + r] / 10.0
        out[_RBULL + r] = g[R_BULL + r]
        out[_RLEN + r] = n
    if phase == PH_OVER:
        out[_PHASEF + 3] = 1.0
    elif phase == PH_ROW:
        out[_PHASEF + 2] = 1.0
    else:
        out[_PHASEF + 1] = 1.0
    if phase != PH_CARD and g[FIXED + me] != K.NO_CARD:
        out[_MYCHOICE] = g[FIXED + me]
    if phase == PH_ROW:
        c = g[QC + g[QI]]
        out[_PCARD] = c
        out[_PREASON + (1 if c < 0 else 0)] = 1.0
        if g[QP + g[QI]] == me:
            for r in range(4):
                mask[_ROW_ACTION + r] = 1
    elif phase == PH_CARD:
        base = HANDS + 10 * me
        for k in range(g[HLEN + me]):
            mask[_slot(g[base + k])] = 1
    out[_ROUNDF] = g[ROUND]
    out[_TURNF] = g[TURN]
    if cfg[C_TACTICS] != 0:
        out[_VARIANTS + _V_TACTICS] = 1.0
    if cfg[C_PROF] != 0:
        out[_VARIANTS + _V_PROF] = 1.0
    if cfg[C_OPEN_HANDS] != 0:
        out[_VARIANTS + _V_OPEN_HANDS] = 1.0
    if cfg[C_JOKERS] != 0:
        out[_VARIANTS + _V_JOKERS] = 1.0
    out[_PLAYERSF] = players
    out[_LIMITF] = cfg[C_LIMIT]


@_jit
def step_all(
    games: IntArray,
    cfg: IntArray,
    actions: IntArray,
    master: IntArray,
    obs: np.ndarray,
    mask: np.ndarray,
    reward: np.ndarray,
    terminated: np.ndarray,
    illegal: np.ndarray,
    illegal_reward: float,
) -> None:
    """One step of every game: the learner's action, then play up to its next decision.

    A game that ended at the previous step starts again (seeded from ``master``)
    instead (the next-step autoreset of Gymnasium's vector API), its action
    ignored. An illegal action ends the game with ``illegal_reward``.
    """
    bullheads = cfg[C_REWARD] == R_BULLHEADS
    for i in range(games.shape[0]):
        g = games[i]
        reward[i] = 0.0
        terminated[i] = False
        illegal[i] = False
        if g[RESET] != 0:
            reset_game(g, cfg, master)
        else:
            me = g[SEAT]
            before = total(g, me)
            a = actions[i]
            if g[PHASE] == PH_ROW:
                if _ROW_ACTION <= a < _ROW_ACTION + 4:
                    _take_row(g, cfg, a - _ROW_ACTION)
                else:
                    illegal[i] = True
            elif not (0 <= a < S.CARD_SLOTS and _play_card(g, cfg, _slot_card(a))):
                illegal[i] = True
            if illegal[i]:
                reward[i] = illegal_reward
                g[PHASE] = PH_OVER
            else:
                if bullheads:
                    reward[i] = before - total(g, me)
                if g[PHASE] == PH_OVER:
                    reward[i] += final_reward(g, cfg, me)
            if g[PHASE] == PH_OVER:
                terminated[i] = True
                g[RESET] = 1
        write_obs(g, cfg, g[SEAT], obs[i], mask[i])


@_jit
def reset_all(
    games: IntArray, cfg: IntArray, masters: IntArray, obs: np.ndarray, mask: np.ndarray
) -> None:
    """A new game in every row, game ``i`` seeded from generator ``masters[i]``."""
    for i in range(games.shape[0]):
        reset_game(games[i], cfg, masters[i])
        write_obs(games[i], cfg, games[i, SEAT], obs[i], mask[i])


@_jit
def table_step(
    g: IntArray,
    cfg: IntArray,
    actions: IntArray,
    obs: np.ndarray,
    mask: np.ndarray,
    reward: np.ndarray,
    illegal: np.ndarray,
) -> bool:
    """One step of one game whose every seat is an agent (``C_ALL_AGENTS``).

    A card step takes every seat's card at once; a row step the row of the seat
    whose card waits (the others' actions are ignored). Illegal actions are
    flagged in ``illegal`` and change nothing. Returns True when the game ended.
    Observations, masks and rewards are written for every seat.
    """
    players = cfg[C_PLAYERS]
    any_illegal = False
    for p in range(players):
        illegal[p] = False
        reward[p] = 0.0
    if g[PHASE] == PH_ROW:
        seat = g[QP + g[QI]]
        a = actions[seat]
        if not _ROW_ACTION <= a < _ROW_ACTION + 4:
            illegal[seat] = True
            any_illegal = True
    elif g[PHASE] == PH_CARD:
        for p in range(players):
            a = actions[p]
            if not (0 <= a < S.CARD_SLOTS and _holds(g, p, _slot_card(a))):
                illegal[p] = True
                any_illegal = True
    if not any_illegal and g[PHASE] != PH_OVER:
        for p in range(players):
            reward[p] = total(g, p)
        if g[PHASE] == PH_ROW:
            _take_row(g, cfg, actions[g[QP + g[QI]]] - _ROW_ACTION)
        else:
            for p in range(players):
                g[FIXED + p] = _slot_card(actions[p])
            _reveal(g, cfg)
        bullheads = cfg[C_REWARD] == R_BULLHEADS
        for p in range(players):
            reward[p] = reward[p] - total(g, p) if bullheads else 0.0
            if g[PHASE] == PH_OVER:
                reward[p] += final_reward(g, cfg, p)
    for p in range(players):
        write_obs(g, cfg, p, obs[p], mask[p])
    return bool(g[PHASE] == PH_OVER)


@_jit
def random_actions(mask: np.ndarray, rs: IntArray, out: IntArray) -> None:
    """A uniformly random legal action for every game (0 where nothing is legal)."""
    for i in range(mask.shape[0]):
        n = 0
        for a in range(mask.shape[1]):
            n += mask[i, a]
        out[i] = 0
        if n == 0:
            continue
        k = K.rng_below(rs, n)
        for a in range(mask.shape[1]):
            if mask[i, a] != 0:
                if k == 0:
                    out[i] = a
                    break
                k -= 1


@_jit
def table_reset(
    g: IntArray, cfg: IntArray, master: IntArray, obs: np.ndarray, mask: np.ndarray
) -> None:
    """A new game at an all-agents table, and every seat's first observation."""
    reset_game(g, cfg, master)
    for p in range(cfg[C_PLAYERS]):
        write_obs(g, cfg, p, obs[p], mask[p])
