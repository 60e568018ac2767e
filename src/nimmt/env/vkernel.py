"""The compiled core of the vectorised environment and of the Parallel kernel backend.

Each game is one row of an ``int64`` matrix: the kernel's round state
(:mod:`nimmt.sim.kernel`: rows, hands, penalties) followed by what an
environment adds: the learning seat, the phase, the round and turn, the
totals, the plays of the turn being resolved (so a resolution can pause at a
row choice and go on at the next step), the cards revealed this round and by
whom, the round's deal, and the game's own random generator. The rules are the
kernel's, which the kernel's tests pin to the engine: the deal
(:func:`~nimmt.sim.kernel.deal`), the reveal and its order
(:func:`~nimmt.sim.kernel.reveal`), placing a card and the default row, the end
of the game and the places (:func:`~nimmt.sim.kernel.game_over`,
:func:`~nimmt.sim.kernel.places`). What is written here is what only an
environment does: a resolution that pauses at an agent's row choice, the
rewards, the observations; ``tests/env`` pins them to the engine.

Two ways to step: :func:`step_all` steps many games of one learning seat each
(the others played by a kernel policy); :func:`table_step` steps one game in
which every seat is an agent (``C_ALL_AGENTS``). Observations are written in
exactly the flat layout (:mod:`nimmt.env.layout`) that the engine-based
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
    FloatArray,
    IntArray,
    _jit,
)
from . import layout as L
from .layout import CARD_SLOTS, ROW_ACTION, jit_slot, jit_slot_card, rel_seat

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
DECK = LAST + 10  # room for the kernel's deal to shuffle the deck and the jokers in
WIDTH = DECK + K.DEAL_ROOM

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

_V_TACTICS = 0
_V_PROF = 2
_V_OPEN_HANDS = 4
_V_JOKERS = 5


@_jit
def _new_round(g: IntArray, cfg: IntArray) -> None:
    """Deal a round (the kernel's deal, shuffling in ``DECK``) and keep a copy of it; the
    totals stay."""
    players = cfg[C_PLAYERS]
    K.deal(
        g, players, cfg[C_DECK_TOP], cfg[C_JOKERS] != 0, cfg[C_PROF] != 0,
        g[RNG : RNG + 4], g[DECK : DECK + K.DEAL_ROOM],
    )
    for p in range(players):
        for h in range(10):
            g[DEALT + 10 * p + h] = g[HANDS + 10 * p + h]
    for r in range(4):
        g[DEALT + 100 + r] = g[R_CARDS + 5 * r]
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
    for p in range(players):
        g[SCORES + p] += g[PEN + p]
    rounds = cfg[C_ROUNDS]
    mode = K.MODE_ROUNDS if rounds > 0 else K.MODE_CLASSIC
    if K.game_over(g[SCORES : SCORES + players], players, mode, cfg[C_LIMIT], rounds - g[ROUND]):
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
    inn = np.ones(players, dtype=np.int64)
    better, level, _ = K.places(g[SCORES : SCORES + players], inn, p, players)
    # The average of the places the tied seats share, 1 for the fewest points.
    rank = better + (level + 2) / 2.0
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
def _reveal(g: IntArray, cfg: IntArray, policy: IntArray, noise: FloatArray) -> None:
    """The kernel's reveal: every seat without a fixed choice picks by ``policy``, all the
    cards leave the hands and queue in resolution order; they are recorded and resolved."""
    qn = K.reveal(g, policy, noise, g[QP : QP + 10], g[QC : QC + 10], g[RNG : RNG + 4], True)
    for k in range(qn):
        p = g[QP + k]
        card = g[QC + k]
        n = g[NPLAYED]
        g[PLAYED + 2 * n] = p
        g[PLAYED + 2 * n + 1] = card
        g[NPLAYED] = n + 1
        g[LAST + p] = card  # kept across the next deal, unlike the queue
    g[QN] = qn
    g[QI] = 0
    _resolve(g, cfg)


@_jit
def _fix(g: IntArray, p: int, c: int) -> None:
    """Seat ``p`` chooses ``c``: it leaves the hand, as the kernel keeps a fixed choice."""
    K.remove_from_hand(g, p, c)
    g[FIXED + p] = c


@_jit
def _opponents(cfg: IntArray) -> tuple[IntArray, FloatArray]:
    """The kernel's per-seat policy and noise for the seats the environment plays."""
    policy = K.POLICY_SMART if cfg[C_OPPONENT] == OPP_HEURISTIC else K.POLICY_RANDOM
    return np.full(K.MAX_PLAYERS, policy, dtype=np.int64), np.ones(K.MAX_PLAYERS)


@_jit
def _play_card(g: IntArray, cfg: IntArray, c: int, policy: IntArray, noise: FloatArray) -> bool:
    """The learner plays ``c``; the others choose by ``policy``, all are revealed and
    resolved. Returns False (nothing changed) when ``c`` is not in the learner's hand.
    """
    me = g[SEAT]
    if not _holds(g, me, c):
        return False
    _fix(g, me, c)
    _reveal(g, cfg, policy, noise)
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
        out[L.AT_HAND + jit_slot(g[base + k])] = 1.0
    for p in range(players):
        rel = rel_seat(p, me, players)
        if cfg[C_OPEN_HANDS] != 0:
            base = HANDS + 10 * p
            for k in range(g[HLEN + p]):
                out[L.AT_HELD_BY + jit_slot(g[base + k])] = rel + 1
        out[L.AT_SCORES + rel] = g[SCORES + p]
        out[L.AT_PENALTIES + rel] = g[PEN + p]
        out[L.AT_HAND_SIZES + rel] = g[HLEN + p]
        out[L.AT_IN_PLAY + rel] = 1.0
        if phase == PH_ROW:
            out[L.AT_CHOSEN + rel] = 1.0
    # Seen this round: the four cards the rows were dealt with, and every revealed card.
    for r in range(4):
        out[L.AT_SEEN + jit_slot(g[DEALT + 100 + r])] = 1.0
    for k in range(g[NPLAYED]):
        s = jit_slot(g[PLAYED + 2 * k + 1])
        out[L.AT_SEEN + s] = 1.0
        out[L.AT_PLAYED_BY + s] = rel_seat(g[PLAYED + 2 * k], me, players) + 1
    for r in range(4):
        n = g[R_LEN + r]
        for k in range(n):
            out[L.AT_ROWS + 5 * r + k] = g[R_CARDS + 5 * r + k]
        out[L.AT_ROW_ENDS + r] = g[R_LAST + r] / 10.0
        out[L.AT_ROW_BULLHEADS + r] = g[R_BULL + r]
        out[L.AT_ROW_LENGTHS + r] = n
    if phase == PH_OVER:
        out[L.AT_PHASE + 3] = 1.0
    elif phase == PH_ROW:
        out[L.AT_PHASE + 2] = 1.0
    else:
        out[L.AT_PHASE + 1] = 1.0
    if phase != PH_CARD and g[NPLAYED] > 0:  # its card of the turn revealed last
        out[L.AT_MY_CHOICE] = g[LAST + me]
    if phase == PH_ROW:
        c = g[QC + g[QI]]
        out[L.AT_PENDING_CARD] = c
        out[L.AT_PENDING_REASON + (1 if c < 0 else 0)] = 1.0
        if g[QP + g[QI]] == me:
            for r in range(4):
                mask[ROW_ACTION + r] = 1
    elif phase == PH_CARD:
        base = HANDS + 10 * me
        for k in range(g[HLEN + me]):
            mask[jit_slot(g[base + k])] = 1
    out[L.AT_ROUND] = g[ROUND]
    out[L.AT_TURN] = g[TURN]
    if cfg[C_TACTICS] != 0:
        out[L.AT_VARIANTS + _V_TACTICS] = 1.0
    if cfg[C_PROF] != 0:
        out[L.AT_VARIANTS + _V_PROF] = 1.0
    if cfg[C_OPEN_HANDS] != 0:
        out[L.AT_VARIANTS + _V_OPEN_HANDS] = 1.0
    if cfg[C_JOKERS] != 0:
        out[L.AT_VARIANTS + _V_JOKERS] = 1.0
    out[L.AT_PLAYERS] = players
    out[L.AT_LIMIT] = cfg[C_LIMIT]


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
    policy, noise = _opponents(cfg)
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
                if ROW_ACTION <= a < ROW_ACTION + 4:
                    _take_row(g, cfg, a - ROW_ACTION)
                else:
                    illegal[i] = True
            elif not (0 <= a < CARD_SLOTS and _play_card(g, cfg, jit_slot_card(a), policy, noise)):
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
        if not ROW_ACTION <= a < ROW_ACTION + 4:
            illegal[seat] = True
            any_illegal = True
    elif g[PHASE] == PH_CARD:
        for p in range(players):
            a = actions[p]
            if not (0 <= a < CARD_SLOTS and _holds(g, p, jit_slot_card(a))):
                illegal[p] = True
                any_illegal = True
    if not any_illegal and g[PHASE] != PH_OVER:
        for p in range(players):
            reward[p] = total(g, p)
        if g[PHASE] == PH_ROW:
            _take_row(g, cfg, actions[g[QP + g[QI]]] - ROW_ACTION)
        else:
            for p in range(players):
                _fix(g, p, jit_slot_card(actions[p]))
            policy, noise = _opponents(cfg)
            _reveal(g, cfg, policy, noise)
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
