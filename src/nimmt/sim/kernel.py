"""The fast kernel: the rules of one round on a flat ``int64`` array, compiled with numba.

Search bots spend almost all their time playing the rest of a round again and
again; the engine (floor 1) is exact and safe but pays for views, events and
validation on every step. The kernel keeps only what resolution needs: rows
(cards, length, end values, bullheads), hands, this turn's fixed choices and
penalties, all in one array (:data:`STATE_SIZE` ints) so that copying a world
is one ``ndarray.copy``.

It implements every rule that changes how cards are placed: the base game,
``tactics`` (only the deck differs), ``professional`` (both ends, ties go
right) and ``jokers`` (placed first, anywhere, raising the row's end by their
decimal). ``open``, ``open-hands`` and ``logic`` change who knows what and who
chooses when, not resolution, so a kernel round plays them exactly too; the
bots give the kernel the cards already chosen face up (``fixed``).

Randomness is explicit: an xoshiro128** generator whose state is a small
``int64`` array passed to every function (:func:`rng_state`). All arithmetic
stays below 2**63, so the compiled code and the plain Python fallback give the
same numbers bit for bit. Without numba (or with ``NIMMT_NO_NUMBA=1``) the same
functions run uncompiled: slow, but identical.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any, TypeVar, cast

import numpy as np
import numpy.typing as npt

from ..cards import BULLHEADS

__all__ = [
    "NUMBA",
    "POLICY_MIXED",
    "POLICY_RANDOM",
    "POLICY_SMART",
    "ROW_DEFAULT",
    "ROW_RANDOM",
    "ROW_SEQUENCE",
    "STATE_SIZE",
    "IntArray",
]

IntArray = npt.NDArray[np.int64]
FloatArray = npt.NDArray[np.float64]
_F = TypeVar("_F", bound=Callable[..., Any])

NUMBA = False
if not os.environ.get("NIMMT_NO_NUMBA"):
    try:
        import numba

        NUMBA = True
    except ImportError:  # pragma: no cover - depends on the installation
        NUMBA = False


def _jit(fn: _F) -> _F:
    """Compile ``fn`` with numba when it is there; otherwise run it as plain Python."""
    if NUMBA:
        return cast(_F, numba.njit(cache=True)(fn))
    return fn


# -- layout of the state array ------------------------------------------------

MAX_PLAYERS = 10
ROW_CAP = 5
R_CARDS = 0  # 4 rows x 5 cards
R_LEN = 20  # cards in each row
R_LAST = 24  # each row's right end, in tenths (jokers raise it by their decimal)
R_FIRST = 28  # each row's left end, in tenths (professional)
R_BULL = 32  # bullheads in each row
NPLAYERS = 36  # seats in this kernel world (active players, renumbered 0..n-1)
PROF = 37  # 1 with the professional variant
PEN = 38  # penalties this round, per seat
HLEN = PEN + MAX_PLAYERS  # cards in each hand (not counting a fixed choice)
FIXED = HLEN + MAX_PLAYERS  # the card each seat has already chosen this turn, or NO_CARD
HANDS = FIXED + MAX_PLAYERS  # 10 cards per seat, unordered
STATE_SIZE = HANDS + 10 * MAX_PLAYERS
NO_CARD = -100

#: Card choice in rollouts: uniformly random, or the cheap heuristic with noise.
POLICY_RANDOM = 0
POLICY_SMART = 1
#: Each choice random or smart with even odds: a model of an opponent of unknown skill.
POLICY_MIXED = 2
#: Row choice (too-low card or joker): the table's default rule, a given sequence, random.
ROW_DEFAULT = 0
ROW_SEQUENCE = 1
ROW_RANDOM = 2

_M32 = 0xFFFFFFFF
_BULL = np.array(BULLHEADS[:105], dtype=np.int64)


def seat_policies(
    players: int, policy: int, noise: float = 1.0
) -> tuple[IntArray, npt.NDArray[np.float64]]:
    """The per-seat policy and noise arrays for every seat playing ``policy``."""
    return (
        np.full(MAX_PLAYERS, policy, dtype=np.int64),
        np.full(MAX_PLAYERS, noise, dtype=np.float64),
    )


# -- random numbers -------------------------------------------------------------


def rng_state(seed: int) -> IntArray:
    """A fresh generator state from any integer seed (splitmix64 spreads the bits)."""
    x = seed & 0xFFFFFFFFFFFFFFFF
    words = []
    for _ in range(4):
        x = (x + 0x9E3779B97F4A7C15) & 0xFFFFFFFFFFFFFFFF
        z = x
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & 0xFFFFFFFFFFFFFFFF
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & 0xFFFFFFFFFFFFFFFF
        z ^= z >> 31
        words.append(z & _M32)
    if not any(words):
        words[0] = 1
    return np.array(words, dtype=np.int64)


@_jit
def rng_next(rs: IntArray) -> int:
    """The next 32-bit number of xoshiro128** (state ``rs``: four 32-bit words)."""
    s0 = rs[0]
    s1 = rs[1]
    s2 = rs[2]
    s3 = rs[3]
    x = (s1 * 5) & _M32
    x = ((x << 7) | (x >> 25)) & _M32
    result = (x * 9) & _M32
    t = (s1 << 9) & _M32
    s2 ^= s0
    s3 ^= s1
    s1 ^= s2
    s0 ^= s3
    s2 ^= t
    s3 = ((s3 << 11) | (s3 >> 21)) & _M32
    rs[0] = s0
    rs[1] = s1
    rs[2] = s2
    rs[3] = s3
    return int(result)


@_jit
def rng_below(rs: IntArray, n: int) -> int:
    """A uniform integer in ``0..n-1``."""
    return (rng_next(rs) * n) >> 32


@_jit
def rng_unit(rs: IntArray) -> float:
    """A uniform float in [0, 1)."""
    return rng_next(rs) / 4294967296.0


# -- cards and rows -------------------------------------------------------------


@_jit
def bull(c: int) -> int:
    """Bullheads of a card; jokers (negative codes) are worth 1."""
    if c < 0:
        return 1
    return int(_BULL[c])


@_jit
def tenths(c: int) -> int:
    """A card's value in tenths: 87 -> 870, joker 0.9 (code -1) -> 9."""
    if c < 0:
        return c + 10
    return c * 10


@_jit
def target(st: IntArray, c: int) -> int:
    """Where number card ``c`` goes: row ``r`` (0..3) at the right end, ``4 + r`` at the
    left end (professional), or -1 when it is too low for every row (a row choice)."""
    v = c * 10
    best = -1
    best_last = -1
    for i in range(4):
        last = st[R_LAST + i]
        if best_last < last < v:
            best = i
            best_last = last
    if st[PROF] != 0:
        diff = v - best_last if best >= 0 else 1 << 30
        left = -1
        for i in range(4):
            first = st[R_FIRST + i]
            if first > v and first - v < diff:
                left = i
                diff = first - v
        if left >= 0:
            return 4 + left
    return best


@_jit
def _take(st: IntArray, p: int, r: int) -> None:
    st[PEN + p] += st[R_BULL + r]


@_jit
def _start(st: IntArray, r: int, c: int) -> None:
    st[R_CARDS + 5 * r] = c
    st[R_LEN + r] = 1
    v = tenths(c)
    st[R_LAST + r] = v
    st[R_FIRST + r] = v
    st[R_BULL + r] = bull(c)


@_jit
def place(st: IntArray, p: int, c: int, row: int) -> None:
    """Resolve seat ``p``'s card ``c``. ``row`` (0..3) is used only when the card needs a
    row choice (a joker, or too low for every row); pass -1 otherwise."""
    if c < 0:
        if st[R_LEN + row] >= ROW_CAP:
            _take(st, p, row)
            _start(st, row, c)
        else:
            n = st[R_LEN + row]
            st[R_CARDS + 5 * row + n] = c
            st[R_LEN + row] = n + 1
            st[R_LAST + row] += c + 10
            st[R_BULL + row] += 1
        return
    t = target(st, c)
    if t < 0:
        _take(st, p, row)
        _start(st, row, c)
        return
    r = t & 3
    n = st[R_LEN + r]
    if n >= ROW_CAP:
        _take(st, p, r)
        _start(st, r, c)
    elif t >= 4:
        base = R_CARDS + 5 * r
        for k in range(n, 0, -1):
            st[base + k] = st[base + k - 1]
        st[base] = c
        st[R_LEN + r] = n + 1
        st[R_FIRST + r] = c * 10
        st[R_BULL + r] += bull(c)
    else:
        st[R_CARDS + 5 * r + n] = c
        st[R_LEN + r] = n + 1
        st[R_LAST + r] = c * 10
        st[R_BULL + r] += bull(c)


@_jit
def needs_row(st: IntArray, c: int) -> bool:
    """True when card ``c`` would pause the resolution for a row choice."""
    return c < 0 or target(st, c) < 0


@_jit
def default_row(st: IntArray) -> int:
    """RULES.md §5: fewest bullheads, then fewest cards, then the lowest row (0..3)."""
    best = 0
    for i in range(1, 4):
        if st[R_BULL + i] < st[R_BULL + best] or (
            st[R_BULL + i] == st[R_BULL + best] and st[R_LEN + i] < st[R_LEN + best]
        ):
            best = i
    return best


@_jit
def joker_row(st: IntArray) -> int:
    """A cheap joker placement: the row that costs least now (nothing unless it is
    full), then the shortest, then the lowest number."""
    best = 0
    best_key = 1 << 30
    for i in range(4):
        cost = st[R_BULL + i] if st[R_LEN + i] >= ROW_CAP else 0
        key = cost * 16 + st[R_LEN + i]
        if key < best_key:
            best = i
            best_key = key
    return best


@_jit
def pick_row(
    st: IntArray, c: int, mode: int, seq: IntArray, pos: IntArray, rs: IntArray
) -> int:
    """The row (0..3) a policy takes for card ``c``: ``ROW_DEFAULT`` (the table's
    default for a too-low card, :func:`joker_row` for a joker), ``ROW_SEQUENCE``
    (the next entry of ``seq``, rows 1..4, advancing ``pos[0]``) or ``ROW_RANDOM``."""
    if mode == ROW_SEQUENCE:
        r = seq[pos[0]] - 1
        pos[0] += 1
        return int(r)
    if mode == ROW_RANDOM:
        return rng_below(rs, 4)
    if c < 0:
        return joker_row(st)
    return default_row(st)


# -- a turn ------------------------------------------------------------------------


@_jit
def remove_from_hand(st: IntArray, p: int, c: int) -> None:
    """Take card ``c`` out of seat ``p``'s hand (it must be there)."""
    base = HANDS + 10 * p
    n = st[HLEN + p]
    for k in range(n):
        if st[base + k] == c:
            st[base + k] = st[base + n - 1]
            st[HLEN + p] = n - 1
            return


@_jit
def resolve(
    st: IntArray,
    qp: IntArray,
    qc: IntArray,
    start: int,
    n: int,
    row_mode: int,
    seq: IntArray,
    pos: IntArray,
    rs: IntArray,
) -> None:
    """Resolve plays ``start..n-1`` of the queue (seats ``qp``, cards ``qc``, already in
    resolution order), taking rows for too-low cards and jokers with ``row_mode``."""
    for k in range(start, n):
        c = qc[k]
        row = -1
        if needs_row(st, c):
            row = pick_row(st, c, row_mode, seq, pos, rs)
        place(st, qp[k], c, row)


@_jit
def heuristic_cost(st: IntArray, c: int) -> float:
    """A cheap estimate of what playing ``c`` now costs, from the rows alone.

    A too-low card costs the cheapest row; a sixth card costs its row; otherwise
    the risk grows with the gap other cards could fill and with how few places
    are left before the sixth. Jokers cost a constant: they are worth keeping
    until a turn where every number card is expensive.
    """
    if c < 0:
        return 2.5
    t = target(st, c)
    if t < 0:
        cheapest = st[R_BULL + default_row(st)]
        return float(cheapest + 0.5)
    r = t & 3
    n = st[R_LEN + r]
    if n >= ROW_CAP:
        return float(st[R_BULL + r])
    gap = (st[R_FIRST + r] - c * 10) // 10 if t >= 4 else (c * 10 - st[R_LAST + r]) // 10
    others = st[NPLAYERS] - 1
    lam = gap * others / 40.0
    if lam > 1.0:
        lam = 1.0
    risk = lam
    for _ in range(ROW_CAP - 1 - n):
        risk *= lam
    return float(risk * (st[R_BULL + r] + 2.0) + 0.01 * gap)


@_jit
def choose_card(st: IntArray, p: int, policy: int, noise: float, rs: IntArray) -> int:
    """The hand index seat ``p`` plays: random, or the least heuristic cost plus noise."""
    n = st[HLEN + p]
    if policy == POLICY_MIXED and n > 1 and rng_next(rs) < 2147483648:
        return rng_below(rs, n)
    if policy == POLICY_RANDOM or n == 1:
        return rng_below(rs, n)
    base = HANDS + 10 * p
    best = 0
    best_cost = 1e30
    for k in range(n):
        cost = heuristic_cost(st, st[base + k]) + noise * rng_unit(rs)
        if cost < best_cost:
            best = k
            best_cost = cost
    return best


@_jit
def play_turn(
    st: IntArray,
    policy: IntArray,
    noise: FloatArray,
    row_mode: int,
    seq: IntArray,
    pos: IntArray,
    rs: IntArray,
) -> None:
    """One whole turn: every seat without a fixed choice picks by its ``policy[p]`` (with
    ``noise[p]``), then all the cards are revealed and resolved in ascending order."""
    np_ = st[NPLAYERS]
    qp = np.empty(MAX_PLAYERS, dtype=np.int64)
    qc = np.empty(MAX_PLAYERS, dtype=np.int64)
    m = 0
    for p in range(np_):
        c = st[FIXED + p]
        if c == NO_CARD:
            if st[HLEN + p] == 0:
                continue
            k = choose_card(st, p, policy[p], noise[p], rs)
            c = st[HANDS + 10 * p + k]
            remove_from_hand(st, p, c)
        st[FIXED + p] = NO_CARD
        # insertion in ascending card order
        j = m
        while j > 0 and qc[j - 1] > c:
            qc[j] = qc[j - 1]
            qp[j] = qp[j - 1]
            j -= 1
        qc[j] = c
        qp[j] = p
        m += 1
    resolve(st, qp, qc, 0, m, row_mode, seq, pos, rs)


@_jit
def cards_left(st: IntArray) -> int:
    """Cards still to play this round by the seat holding most (a fixed choice counts)."""
    most = 0
    for p in range(st[NPLAYERS]):
        k = st[HLEN + p] + (1 if st[FIXED + p] != NO_CARD else 0)
        if k > most:
            most = k
    return most


@_jit
def rollout(
    st: IntArray, policy: IntArray, noise: FloatArray, row_mode: int, rs: IntArray
) -> None:
    """Play the rest of the round from the start of a turn (fixed choices included)."""
    seq = np.zeros(1, dtype=np.int64)
    pos = np.zeros(1, dtype=np.int64)
    while cards_left(st) > 0:
        play_turn(st, policy, noise, row_mode, seq, pos, rs)


# -- determinization ---------------------------------------------------------------


@_jit
def redeal(
    st: IntArray,
    pool: IntArray,
    jpool: IntArray,
    need: IntArray,
    needj: IntArray,
    rs: IntArray,
) -> None:
    """Deal the hidden cards again: seat ``p`` gets ``needj[p]`` jokers from ``jpool`` and
    ``need[p]`` number cards from ``pool``, uniformly (as ``Game.sample_world`` does). Seats
    with ``need[p] + needj[p] == 0`` keep their hands."""
    npool = pool.shape[0]
    buf = pool.copy()
    jbuf = jpool.copy()
    nj = jbuf.shape[0]
    top = 0
    jtop = 0
    for p in range(st[NPLAYERS]):
        total = need[p] + needj[p]
        if total == 0:
            continue
        base = HANDS + 10 * p
        h = 0
        for _ in range(needj[p]):
            k = jtop + rng_below(rs, nj - jtop)
            x = jbuf[k]
            jbuf[k] = jbuf[jtop]
            jbuf[jtop] = x
            st[base + h] = x
            h += 1
            jtop += 1
        for _ in range(need[p]):
            k = top + rng_below(rs, npool - top)
            x = buf[k]
            buf[k] = buf[top]
            buf[top] = x
            st[base + h] = x
            h += 1
            top += 1
        st[HLEN + p] = h


# -- mass simulation ---------------------------------------------------------------


@_jit
def deal_round(
    st: IntArray, players: int, deck_top: int, jokers: bool, professional: bool, rs: IntArray
) -> None:
    """A fresh random round: cards 1..deck_top shuffled, ten (or nine and a joker) each."""
    for i in range(STATE_SIZE):
        st[i] = 0
    st[NPLAYERS] = players
    st[PROF] = 1 if professional else 0
    deck = np.arange(1, deck_top + 1)
    for i in range(deck_top - 1, 0, -1):
        j = rng_below(rs, i + 1)
        x = deck[i]
        deck[i] = deck[j]
        deck[j] = x
    k = 9 if jokers else 10
    jk = np.arange(-10, 0)
    if jokers:
        for i in range(9, 0, -1):
            j = rng_below(rs, i + 1)
            x = jk[i]
            jk[i] = jk[j]
            jk[j] = x
    for p in range(players):
        st[FIXED + p] = NO_CARD
        for h in range(k):
            st[HANDS + 10 * p + h] = deck[p * k + h]
        if jokers:
            st[HANDS + 10 * p + k] = jk[p]
        st[HLEN + p] = 10
    for r in range(4):
        _start(st, r, deck[players * k + r])


@_jit
def simulate_rounds(
    rounds: int,
    players: int,
    deck_top: int,
    jokers: bool,
    professional: bool,
    policy: IntArray,
    noise: FloatArray,
    rs: IntArray,
) -> IntArray:
    """Play ``rounds`` random deals, seat ``p`` choosing cards by ``policy[p]`` and rows by
    the default rule; returns the penalties, one row per round."""
    out = np.zeros((rounds, players), dtype=np.int64)
    st = np.zeros(STATE_SIZE, dtype=np.int64)
    for i in range(rounds):
        deal_round(st, players, deck_top, jokers, professional, rs)
        rollout(st, policy, noise, ROW_DEFAULT, rs)
        for p in range(players):
            out[i, p] = st[PEN + p]
    return out


# -- searches --------------------------------------------------------------------------


@_jit
def flat_card_search(
    st0: IntArray,
    me: int,
    options: IntArray,
    pool: IntArray,
    jpool: IntArray,
    need: IntArray,
    needj: IntArray,
    iterations: int,
    policy: IntArray,
    noise: FloatArray,
    totals: FloatArray,
    counts: FloatArray,
    rs: IntArray,
) -> None:
    """Flat Monte-Carlo for a card: each iteration deals one world and plays every option
    in it with the same random numbers (common random numbers), adding seat ``me``'s
    penalty for the rest of the round to ``totals`` (``counts`` counts the rollouts)."""
    k = options.shape[0]
    base_pen = st0[PEN + me]
    for _ in range(iterations):
        world = st0.copy()
        redeal(world, pool, jpool, need, needj, rs)
        seed = rs.copy()
        rng_next(rs)
        for i in range(k):
            st = world.copy()
            r2 = seed.copy()
            remove_from_hand(st, me, options[i])
            st[FIXED + me] = options[i]
            rollout(st, policy, noise, ROW_DEFAULT, r2)
            totals[i] += st[PEN + me] - base_pen
            counts[i] += 1.0


@_jit
def flat_row_search(
    st0: IntArray,
    me: int,
    qp: IntArray,
    qc: IntArray,
    pool: IntArray,
    jpool: IntArray,
    need: IntArray,
    needj: IntArray,
    iterations: int,
    policy: IntArray,
    noise: FloatArray,
    totals: FloatArray,
    counts: FloatArray,
    rs: IntArray,
) -> None:
    """Flat Monte-Carlo for a row choice: the queue ``qp``/``qc`` starts with ``me``'s
    card waiting for a row; each of the 4 rows is tried in the same worlds with the
    same random numbers, the rest of the turn and of the round played out."""
    n = qp.shape[0]
    base_pen = st0[PEN + me]
    seq = np.zeros(1, dtype=np.int64)
    pos = np.zeros(1, dtype=np.int64)
    for _ in range(iterations):
        world = st0.copy()
        redeal(world, pool, jpool, need, needj, rs)
        seed = rs.copy()
        rng_next(rs)
        for r in range(4):
            st = world.copy()
            r2 = seed.copy()
            place(st, me, qc[0], r)
            resolve(st, qp, qc, 1, n, ROW_DEFAULT, seq, pos, r2)
            rollout(st, policy, noise, ROW_DEFAULT, r2)
            totals[r] += st[PEN + me] - base_pen
            counts[r] += 1.0
