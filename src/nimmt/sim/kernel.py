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

import math
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


def _inline(fn: _F) -> _F:
    """:func:`_jit`, and written into every compiled caller (numba's ``inline="always"``).

    For the small steps of a turn (a random number, a card's target, placing it):
    called from another compiled function, each call would pass its arrays by
    reference counting, which costs more than the step; inlined, most of those counts
    go, and the loops that play whole turns (:func:`_free`) have none
    (``bench/kernel.py`` measures the round against one hand-written loop).
    """
    if NUMBA:
        return cast(_F, numba.njit(cache=True, inline="always")(fn))
    return fn


def _free(fn: _F) -> _F:
    """:func:`_jit` without numba's reference counting (its ``_nrt=False``), and written
    into its compiled callers by LLVM (``forceinline``): for the code that plays whole
    turns and rounds, which allocates nothing.

    Every array an inlined step takes is counted when the step starts and again when it
    ends, with atomic instructions; where steps are inlined into steps (a card's placement
    inside a turn inside a round) the compiler removes only some of those counts, and
    what is left costs about as much as the rest of the round. Here the arrays belong to
    the caller, which holds them for the whole call. LLVM's inlining costs little compile
    time, where numba's (:func:`_inline`) copies the callee again at every call site.
    """
    if NUMBA:
        # ``_nrt`` is a compiler option numba's type stubs do not list
        jit = numba.njit(cache=True, _nrt=False, forceinline=True)  # type: ignore[call-overload]
        return cast(_F, jit(fn))
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
DECK = 38  # the highest number card of this round's deck (104, or 10n+4 in tactics)
PEN = 39  # penalties this round, per seat
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


@_inline
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


@_inline
def rng_below(rs: IntArray, n: int) -> int:
    """A uniform integer in ``0..n-1``."""
    return (rng_next(rs) * n) >> 32


@_inline
def rng_unit(rs: IntArray) -> float:
    """A uniform float in [0, 1)."""
    return rng_next(rs) / 4294967296.0


# -- cards and rows -------------------------------------------------------------


@_inline
def bull(c: int) -> int:
    """Bullheads of a card; jokers (negative codes) are worth 1."""
    if c < 0:
        return 1
    return int(_BULL[c])


@_inline
def tenths(c: int) -> int:
    """A card's value in tenths: 87 -> 870, joker 0.9 (code -1) -> 9."""
    if c < 0:
        return c + 10
    return c * 10


@_inline
def target(st: IntArray, c: int) -> int:
    """Where number card ``c`` goes: row ``r`` (0..3) at the right end, ``4 + r`` at the
    left end (professional), or -1 when it is too low for every row (a row choice)."""
    return _target(st, c, st[PROF] != 0)


@_inline
def _target(st: IntArray, c: int, prof: bool) -> int:
    """:func:`target` with the variant given: a constant where a round is compiled for
    one variant, so that the base game's rounds have no search for the left ends."""
    v = c * 10
    best = -1
    best_last = -1
    for i in range(4):
        last = st[R_LAST + i]
        if best_last < last < v:
            best = i
            best_last = last
    if prof:
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


@_inline
def _take(st: IntArray, p: int, r: int) -> int:
    b = int(st[R_BULL + r])
    st[PEN + p] += b
    return b


@_inline
def _start(st: IntArray, r: int, c: int) -> None:
    st[R_CARDS + 5 * r] = c
    st[R_LEN + r] = 1
    v = tenths(c)
    st[R_LAST + r] = v
    st[R_FIRST + r] = v
    st[R_BULL + r] = bull(c)


@_inline
def place(st: IntArray, p: int, c: int, row: int) -> int:
    """Resolve seat ``p``'s card ``c``. ``row`` (0..3) is used only when the card needs a
    row choice (a joker, or too low for every row); pass -1 otherwise. Returns the
    bullheads the seat took."""
    prof = st[PROF] != 0
    return place_at(st, p, c, -1 if c < 0 else _target(st, c, prof), row, prof)


@_inline
def place_at(st: IntArray, p: int, c: int, t: int, row: int, prof: bool) -> int:
    """:func:`place` with the card's :func:`target` ``t`` already known (-1 for a joker)
    and the variant given (see :func:`_target`). Returns the bullheads seat ``p`` took:
    0 when its card joined a row."""
    took = 0
    if t >= 0:
        r = t & 3
        n = st[R_LEN + r]
        if n >= ROW_CAP:
            took = _take(st, p, r)
            _start(st, r, c)
        elif prof and t >= 4:
            base = R_CARDS + 5 * r
            for k in range(n, 0, -1):
                st[base + k] = st[base + k - 1]
            st[base] = c
            st[R_LEN + r] = n + 1
            st[R_FIRST + r] = c * 10
            st[R_BULL + r] += _BULL[c]
        else:
            st[R_CARDS + 5 * r + n] = c
            st[R_LEN + r] = n + 1
            st[R_LAST + r] = c * 10
            st[R_BULL + r] += _BULL[c]
    elif c >= 0 or st[R_LEN + row] >= ROW_CAP:
        # too low for every row, or a joker on a full row
        took = _take(st, p, row)
        _start(st, row, c)
    else:
        n = st[R_LEN + row]
        st[R_CARDS + 5 * row + n] = c
        st[R_LEN + row] = n + 1
        st[R_LAST + row] += c + 10
        st[R_BULL + row] += 1
    return took


@_inline
def needs_row(st: IntArray, c: int) -> bool:
    """True when card ``c`` would pause the resolution for a row choice."""
    return c < 0 or target(st, c) < 0


@_inline
def default_row(st: IntArray) -> int:
    """docs/rules.md §5: fewest bullheads, then fewest cards, then the lowest row (0..3)."""
    best = 0
    for i in range(1, 4):
        if st[R_BULL + i] < st[R_BULL + best] or (
            st[R_BULL + i] == st[R_BULL + best] and st[R_LEN + i] < st[R_LEN + best]
        ):
            best = i
    return best


@_inline
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


@_inline
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


@_inline
def remove_from_hand(st: IntArray, p: int, c: int) -> None:
    """Take card ``c`` out of seat ``p``'s hand (it must be there)."""
    base = HANDS + 10 * p
    n = st[HLEN + p]
    for k in range(n):
        if st[base + k] == c:
            st[base + k] = st[base + n - 1]
            st[HLEN + p] = n - 1
            return


@_inline
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
    # The chance others fill the gap grows with how densely their cards cover the numbers:
    # 3 others in 104 numbers is the scale of 1/40 that was tuned for classic 4 players.
    deck = st[DECK] if st[DECK] > 0 else 104
    lam = gap * others * 2.6 / deck
    if lam > 1.0:
        lam = 1.0
    risk = lam
    for _ in range(ROW_CAP - 1 - n):
        risk *= lam
    return float(risk * (st[R_BULL + r] + 2.0) + 0.01 * gap)


@_free
def choose_card(st: IntArray, p: int, policy: int, noise: float, rs: IntArray) -> int:
    """The hand index seat ``p`` plays: random, or the least heuristic cost plus noise.

    Inlined by LLVM, not by numba: copied by numba into each variant of a round
    (:func:`_play_out`), the heuristic made the kernel take about twice as long to
    compile."""
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


@_inline
def enqueue(qp: IntArray, qc: IntArray, m: int, p: int, c: int) -> int:
    """Add seat ``p``'s revealed card ``c`` to the ``m`` plays of the queue ``qp``/``qc``,
    kept in resolution order: ascending cards (docs/rules.md §2). Returns ``m + 1``."""
    j = m
    while j > 0 and qc[j - 1] > c:
        qc[j] = qc[j - 1]
        qp[j] = qp[j - 1]
        j -= 1
    qc[j] = c
    qp[j] = p
    return m + 1


@_inline
def reveal(
    st: IntArray,
    policy: IntArray,
    noise: FloatArray,
    qp: IntArray,
    qc: IntArray,
    rs: IntArray,
    smart: bool,
) -> int:
    """Every seat without a fixed choice picks by its ``policy[p]`` (with ``noise[p]``);
    the turn's plays go to ``qp``/``qc`` in ascending card order. Returns their number.

    ``smart=False`` says that every seat plays at random (:func:`all_random`): the
    cards are drawn here, with the same draws as :func:`choose_card` makes, and a
    compiled caller passing the constant gets a turn without the heuristic."""
    np_ = st[NPLAYERS]
    m = 0
    for p in range(np_):
        c = st[FIXED + p]
        if c == NO_CARD:
            n = st[HLEN + p]
            if n == 0:
                continue
            k = choose_card(st, p, policy[p], noise[p], rs) if smart else rng_below(rs, n)
            c = st[HANDS + 10 * p + k]
            # out of the hand by its place (remove_from_hand would look for it)
            n -= 1
            st[HANDS + 10 * p + k] = st[HANDS + 10 * p + n]
            st[HLEN + p] = n
        st[FIXED + p] = NO_CARD
        m = enqueue(qp, qc, m, p, c)
    return m


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
    qp = np.empty(MAX_PLAYERS, dtype=np.int64)
    qc = np.empty(MAX_PLAYERS, dtype=np.int64)
    m = reveal(st, policy, noise, qp, qc, rs, True)
    resolve(st, qp, qc, 0, m, row_mode, seq, pos, rs, -1, st[PROF] != 0)


#: Why seat ``me`` took cards during a watched turn (:func:`resolve`).
TOOK_NOTHING = 0
TOOK_SIXTH = 1  # its card was a row's sixth
TOOK_ROW = 2  # its card was too low (or fitted no end), or its joker met a full row


@_inline
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
    me: int,
    prof: bool,
) -> int:
    """Resolve plays ``start..n-1`` of the queue (seats ``qp``, cards ``qc``, already in
    resolution order), taking rows for too-low cards and jokers with ``row_mode``;
    ``prof``: the professional variant (``st[PROF] != 0``; see :func:`_target`).

    Returns why seat ``me``'s card took a row (``-1``: no seat is watched):
    ``TOOK_NOTHING``, ``TOOK_SIXTH`` or ``TOOK_ROW``, what a hint tells a player
    about the alternatives."""
    why = TOOK_NOTHING
    for k in range(start, n):
        c = qc[k]
        p = qp[k]
        # A joker fits no right end (row ends are never negative), only a left one.
        t = -1 if prof and c < 0 else _target(st, c, prof)
        if t < 0:
            took = place_at(st, p, c, t, pick_row(st, c, row_mode, seq, pos, rs), prof)
            if took > 0 and p == me:
                why = TOOK_ROW
        else:
            took = place_at(st, p, c, t, -1, prof)
            if took > 0 and p == me:
                why = TOOK_SIXTH
    return why


@_inline
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
    qp = np.empty(MAX_PLAYERS, dtype=np.int64)
    qc = np.empty(MAX_PLAYERS, dtype=np.int64)
    smart = not all_random(policy, st[NPLAYERS])
    if st[PROF] != 0:
        _play_out(st, policy, noise, row_mode, seq, pos, rs, qp, qc, True, smart)
    else:
        _play_out(st, policy, noise, row_mode, seq, pos, rs, qp, qc, False, smart)


@_inline
def all_random(policy: IntArray, players: int) -> bool:
    """Whether every seat plays ``POLICY_RANDOM``."""
    for p in range(players):  # noqa: SIM110 - numba compiles loops, not generators
        if policy[p] != POLICY_RANDOM:
            return False
    return True


@_free
def _play_out(
    st: IntArray,
    policy: IntArray,
    noise: FloatArray,
    row_mode: int,
    seq: IntArray,
    pos: IntArray,
    rs: IntArray,
    qp: IntArray,
    qc: IntArray,
    prof: bool,
    smart: bool,
) -> None:
    """The turns left of the round, in the queue's room given (a rollout allocates it
    once, not once a turn: an allocation costs as much as resolving a turn).

    ``prof`` (the professional variant) is a constant at each call site, so that the base
    game's copy has no search for the left ends; ``smart`` (some seat does not play at
    random) picks the reveal once a turn, not once a seat."""
    # Each turn every seat holding cards plays one, so the turns left are known now.
    for _ in range(cards_left(st)):
        if smart:
            m = reveal(st, policy, noise, qp, qc, rs, True)
        else:
            m = reveal(st, policy, noise, qp, qc, rs, False)
        resolve(st, qp, qc, 0, m, row_mode, seq, pos, rs, -1, prof)


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


#: Room :func:`deal` shuffles in: the deck (up to 104 cards), then the ten jokers.
DEAL_ROOM = 114


@_inline
def deal(
    st: IntArray,
    players: int,
    deck_top: int,
    jokers: bool,
    professional: bool,
    rs: IntArray,
    room: IntArray,
) -> None:
    """A fresh random round: cards 1..deck_top shuffled, ten each (or nine and a joker),
    then the four rows; the whole state is cleared first.

    Only as many cards are shuffled as are dealt (a partial Fisher-Yates shuffle: every
    deal as likely as with a whole shuffle), in ``room`` (:data:`DEAL_ROOM` ints), so that
    a caller dealing many rounds allocates nothing.
    """
    for i in range(STATE_SIZE):
        st[i] = 0
    st[NPLAYERS] = players
    st[PROF] = 1 if professional else 0
    st[DECK] = deck_top
    for i in range(deck_top):
        room[i] = i + 1
    k = 9 if jokers else 10
    for i in range(players * k + 4):
        j = i + rng_below(rs, deck_top - i)
        x = room[i]
        room[i] = room[j]
        room[j] = x
    jk = 104
    if jokers:
        for i in range(10):
            room[jk + i] = i - 10
        for i in range(players):
            j = i + rng_below(rs, 10 - i)
            x = room[jk + i]
            room[jk + i] = room[jk + j]
            room[jk + j] = x
    for p in range(players):
        st[FIXED + p] = NO_CARD
        for h in range(k):
            st[HANDS + 10 * p + h] = room[p * k + h]
        if jokers:
            st[HANDS + 10 * p + k] = room[jk + p]
        st[HLEN + p] = 10
    for r in range(4):
        _start(st, r, room[players * k + r])


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
    room = np.empty(DEAL_ROOM, dtype=np.int64)
    seq = np.zeros(1, dtype=np.int64)
    pos = np.zeros(1, dtype=np.int64)
    qp = np.empty(MAX_PLAYERS, dtype=np.int64)
    qc = np.empty(MAX_PLAYERS, dtype=np.int64)
    _rounds(out, st, room, deck_top, jokers, professional, policy, noise, rs, seq, pos, qp, qc)
    return out


@_free
def _rounds(
    out: IntArray,
    st: IntArray,
    room: IntArray,
    deck_top: int,
    jokers: bool,
    professional: bool,
    policy: IntArray,
    noise: FloatArray,
    rs: IntArray,
    seq: IntArray,
    pos: IntArray,
    qp: IntArray,
    qc: IntArray,
) -> None:
    """:func:`simulate_rounds` in the room given, one row of ``out`` per round."""
    players = out.shape[1]
    smart = not all_random(policy, players)
    for i in range(out.shape[0]):
        deal(st, players, deck_top, jokers, professional, rs, room)
        if professional:
            _play_out(st, policy, noise, ROW_DEFAULT, seq, pos, rs, qp, qc, True, smart)
        else:
            _play_out(st, policy, noise, ROW_DEFAULT, seq, pos, rs, qp, qc, False, smart)
        for p in range(players):
            out[i, p] = st[PEN + p]


# -- the game around a round ----------------------------------------------------------
#
# A search plays the rest of the round; what that round means for the game is said by
# ``game_value``: the chance the seat wins the game given everyone's totals, the limit
# and the end mode. Where the round ends the game the answer is exact (the engine's own
# end-of-round rules, docs/rules.md §3); where the game goes on, a model of the rounds to
# come: each player's later rounds add a normal penalty with the player's own mean
# (its rounds so far, shrunk to a prior) and a common spread, over the rounds the game
# should still last. The model is smooth, so that one bullhead more or less always
# moves the value a little and the search can compare cards on it.

#: ``ctx`` slots (a float64 array the search reads and never writes).
GAME_MODE = 0  # one of the MODE_ constants
GAME_LIMIT = 1  # the limit of the classic and elimination ends
GAME_LEFT = 2  # fixed rounds: rounds still to play after this one
GAME_SIGMA = 3  # the spread of one player's penalty over one round
GAME_PAIR = 4  # weight of the chance to finish ahead of each other player
GAME_SHARE = 5  # weight of the others' penalties of this round (0..1) in the model
GAME_TOTAL = 8  # totals before this round, one per kernel seat
GAME_MEAN = GAME_TOTAL + MAX_PLAYERS  # expected penalty per later round, per kernel seat
GAME_SIZE = GAME_MEAN + MAX_PLAYERS

#: What a search rates: the round's bullheads alone, or the game by its end mode.
MODE_ROUND = 0
MODE_CLASSIC = 1
MODE_ELIMINATION = 2
MODE_ROUNDS = 3

#: ``stats`` columns, one row per option of a search.
S_COUNT = 0  # rollouts
S_BULL = 1  # the seat's bullheads for the rest of the round, summed
S_BULL2 = 2  # their squares
S_WIN = 3  # the game's win chance (a tied win shared), summed
S_VALUE = 4  # win chance plus the weighted chance to finish ahead of each other player
S_WIN_MIN = 5  # the least and the greatest win chance met in any rollout
S_WIN_MAX = 6
S_SIXTH = 7  # bullheads taken this turn because the card was a sixth
S_LOW = 8  # bullheads taken this turn by a row choice (too low, no end, joker on a full row)
S_VALUE2 = 9  # squares of S_VALUE
NSTATS = 10

# Gauss-Hermite nodes for an expectation over one standard normal variable.
_GH_X, _GH_W = np.polynomial.hermite_e.hermegauss(16)
_GH_W = _GH_W / np.sqrt(2.0 * np.pi)
# Expected maximum of k standard normals, k = 0..10: how fast the highest total grows.
_MAXN = np.array([0.0, 0.0, 0.564, 0.846, 1.029, 1.163, 1.267, 1.352, 1.424, 1.485, 1.539])


def new_stats(options: int) -> FloatArray:
    """A zeroed statistics table for ``options`` options (see the ``S_`` columns)."""
    out = np.zeros((options, NSTATS), dtype=np.float64)
    out[:, S_WIN_MIN] = 2.0
    out[:, S_WIN_MAX] = -1.0
    return out


@_jit
def _upper(x: float) -> float:
    """P(Z > x) for a standard normal Z."""
    return 0.5 * math.erfc(x * 0.7071067811865476)


@_jit
def places(t: Any, inn: IntArray, me: int, n: int) -> tuple[int, int, int]:
    """Where seat ``me`` stands among the other seats of its group (those with ``inn[k]``
    equal to ``inn[me]``: still in, or out) by totals ``t``, fewest first: how many of
    them have fewer points, how many as many, and how many there are."""
    better = 0
    level = 0
    group = 0
    for k in range(n):
        if k == me or inn[k] != inn[me]:
            continue
        group += 1
        if t[k] < t[me]:
            better += 1
        elif t[k] == t[me]:
            level += 1
    return better, level, group


@_jit
def game_over(t: Any, n: int, mode: int, limit: float, left: float) -> bool:
    """Whether the end of a round with totals ``t`` ends a game that ends after its
    rounds (``MODE_ROUNDS``: none ``left``) or at the limit (otherwise: a total reaches
    ``limit``), docs/rules.md §3. (An elimination game ends for each seat on its own:
    :func:`game_value` says when.)"""
    if mode == MODE_ROUNDS:
        return left <= 0
    for k in range(n):  # noqa: SIM110 - numba compiles loops, not generators
        if t[k] >= limit:
            return True
    return False


@_jit
def _exact(t: FloatArray, inn: IntArray, me: int, n: int) -> tuple[float, float]:
    """A finished game among the seats with ``inn[k] == 1``: fewest points win, ties share;
    ahead = the share of the other seats ``me`` beats (seats out earlier are beaten)."""
    better, level, group = places(t, inn, me, n)
    win = 0.0
    ahead = (group - better - level) + 0.5 * level
    if inn[me] == 1:
        if better == 0:
            win = 1.0 / (level + 1)
        ahead += n - 1 - group
    return win, ahead / max(n - 1, 1)


@_jit
def _model(
    t: FloatArray, mean: FloatArray, inn: IntArray, me: int, n: int, rounds: float, sigma: float
) -> tuple[float, float]:
    """The game goes on for ``rounds`` more rounds among the seats with ``inn[k] == 1``:
    each adds ``rounds * mean[k]`` and a normal spread ``sigma * sqrt(rounds)``. The chance
    that ``me`` ends lowest, and the share of the others it ends below."""
    s = sigma * math.sqrt(rounds)
    if s <= 0.0:
        s = 1e-9
    f_me = t[me] + rounds * mean[me]
    win = 0.0
    for i in range(_GH_X.shape[0]):
        z = _GH_X[i]
        prod = 1.0
        for k in range(n):
            if k == me or inn[k] == 0:
                continue
            prod *= _upper((f_me - t[k] - rounds * mean[k]) / s + z)
        win += _GH_W[i] * prod
    ahead = 0.0
    for k in range(n):
        if k == me:
            continue
        if inn[k] == 0:
            ahead += 1.0
        else:
            ahead += _upper((f_me - t[k] - rounds * mean[k]) / (s * 1.4142135623730951))
    return win, ahead / max(n - 1, 1)


@_jit
def game_value(st: IntArray, me: int, ctx: FloatArray) -> tuple[float, float]:
    """``(win, ahead)`` for seat ``me`` at the end of the round in ``st``: its chance to win
    the game (a tied win shared) and the share of the other seats it finishes ahead of.

    Exact when the round ends the game (docs/rules.md §3, the engine's end of round);
    otherwise the model of the rounds to come described above.
    """
    n = st[NPLAYERS]
    mode = int(ctx[GAME_MODE])
    lim = ctx[GAME_LIMIT]
    share = ctx[GAME_SHARE]
    t = np.empty(n, dtype=np.float64)
    real = np.empty(n, dtype=np.float64)
    mean = np.empty(n, dtype=np.float64)
    inn = np.ones(n, dtype=np.int64)
    hi = -1e18
    for k in range(n):
        real[k] = ctx[GAME_TOTAL + k] + st[PEN + k]
        # The model sees the others' bullheads of this round shrunk: in a rollout they
        # come from a crude model of the others' play (see the module docstring).
        w = 1.0 if k == me else share
        t[k] = ctx[GAME_TOTAL + k] + w * st[PEN + k] + (1.0 - w) * ctx[GAME_MEAN + k]
        mean[k] = ctx[GAME_MEAN + k]
        if real[k] > hi:
            hi = real[k]
    sigma = ctx[GAME_SIGMA]
    left = ctx[GAME_LEFT]
    if mode != MODE_ELIMINATION and game_over(real, n, mode, lim, left):
        return _exact(real, inn, me, n)
    if mode == MODE_ROUNDS:
        return _model(t, mean, inn, me, n, left, sigma)
    if mode == MODE_CLASSIC:
        # Rounds until the highest total reaches the limit: it grows by the mean plus the
        # expected maximum of n spreads (the leader is whoever is unluckiest).
        mu = 0.0
        for k in range(n):
            mu += mean[k]
        mu /= n
        gap = lim - hi
        grow = mu + sigma * _MAXN[min(n, 10)]
        rounds = gap / max(grow, 0.5)
        if rounds > 1.0:
            rounds = gap / max(mu + sigma * _MAXN[min(n, 10)] / math.sqrt(rounds), 0.5)
        return _model(t, mean, inn, me, n, max(rounds, 1.0), sigma)
    # Elimination: those reaching the limit are out now.
    left_in = 0
    for k in range(n):
        if real[k] >= lim:
            inn[k] = 0
        else:
            left_in += 1
    if left_in == 0:
        for k in range(n):
            inn[k] = 1
        return _exact(real, inn, me, n)
    if inn[me] == 0 or left_in == 1:
        return _exact(real, inn, me, n)
    # The last one in wins: the game lasts until the second lowest reaches the limit.
    lowest = 1e18
    second = 1e18
    for k in range(n):
        if inn[k] == 1:
            if real[k] < lowest:
                second = lowest
                lowest = real[k]
            elif real[k] < second:
                second = real[k]
    mu = 0.0
    for k in range(n):
        mu += mean[k]
    mu /= n
    rounds = max((lim - second) / max(mu, 0.5), 1.0)
    return _model(t, mean, inn, me, n, rounds, sigma)


@_jit
def _score(
    st: IntArray, me: int, base_pen: int, ctx: FloatArray, stats: FloatArray, i: int,
    why: int, turn_pen: int,
) -> None:
    """Add one finished rollout of option ``i`` to ``stats``."""
    b = float(st[PEN + me] - base_pen)
    stats[i, S_COUNT] += 1.0
    stats[i, S_BULL] += b
    stats[i, S_BULL2] += b * b
    if why == TOOK_SIXTH:
        stats[i, S_SIXTH] += turn_pen
    elif why == TOOK_ROW:
        stats[i, S_LOW] += turn_pen
    if int(ctx[GAME_MODE]) == MODE_ROUND:
        win = 0.0
        value = -b
    else:
        win, ahead = game_value(st, me, ctx)
        value = win + ctx[GAME_PAIR] * ahead
    stats[i, S_WIN] += win
    stats[i, S_VALUE] += value
    stats[i, S_VALUE2] += value * value
    if win < stats[i, S_WIN_MIN]:
        stats[i, S_WIN_MIN] = win
    if win > stats[i, S_WIN_MAX]:
        stats[i, S_WIN_MAX] = win


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
    ctx: FloatArray,
    stats: FloatArray,
    rs: IntArray,
) -> None:
    """Flat Monte-Carlo for a card: each iteration deals one world and plays every option
    in it with the same random numbers (common random numbers) to the end of the round,
    adding what it meant for seat ``me`` to ``stats`` (one row per option)."""
    k = options.shape[0]
    base_pen = st0[PEN + me]
    seq = np.zeros(1, dtype=np.int64)
    pos = np.zeros(1, dtype=np.int64)
    qp = np.empty(MAX_PLAYERS, dtype=np.int64)
    qc = np.empty(MAX_PLAYERS, dtype=np.int64)
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
            m = reveal(st, policy, noise, qp, qc, r2, True)
            why = resolve(st, qp, qc, 0, m, ROW_DEFAULT, seq, pos, r2, me, st[PROF] != 0)
            turn_pen = st[PEN + me] - base_pen
            rollout(st, policy, noise, ROW_DEFAULT, r2)
            _score(st, me, base_pen, ctx, stats, i, why, turn_pen)


@_jit
def flat_row_search(
    st0: IntArray,
    me: int,
    qp: IntArray,
    qc: IntArray,
    rows: IntArray,
    pool: IntArray,
    jpool: IntArray,
    need: IntArray,
    needj: IntArray,
    iterations: int,
    policy: IntArray,
    noise: FloatArray,
    ctx: FloatArray,
    stats: FloatArray,
    rs: IntArray,
) -> None:
    """Flat Monte-Carlo for a row choice: the queue ``qp``/``qc`` starts with ``me``'s
    card waiting for a row; each row of ``rows`` (0..3; ``stats`` has a line for each)
    is tried in the same worlds with the same random numbers, the rest of the turn and
    of the round played out."""
    n = qp.shape[0]
    base_pen = st0[PEN + me]
    seq = np.zeros(1, dtype=np.int64)
    pos = np.zeros(1, dtype=np.int64)
    for _ in range(iterations):
        world = st0.copy()
        redeal(world, pool, jpool, need, needj, rs)
        seed = rs.copy()
        rng_next(rs)
        for i in range(rows.shape[0]):
            r = rows[i]
            st = world.copy()
            r2 = seed.copy()
            place(st, me, qc[0], r)
            took = st[PEN + me] - base_pen
            why = resolve(st, qp, qc, 1, n, ROW_DEFAULT, seq, pos, r2, me, st[PROF] != 0)
            turn_pen = st[PEN + me] - base_pen
            rollout(st, policy, noise, ROW_DEFAULT, r2)
            _score(st, me, base_pen, ctx, stats, i, TOOK_ROW if took > 0 else why, turn_pen)
