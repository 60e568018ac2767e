"""Kernel speed: whole rounds of random play, 5 players, the kernel against the engine
and against a bare compiled loop.

The engine loop is the public API as a bot or client uses it (a view and the
legal options before every decision, the default row for a too-low card), as
in ``bench/engine.py``. The kernel plays the same rules (random cards, default
row) in compiled code, built of the functions that the searches and the
vectorised environment share (the deal, the reveal, placing a card). The bare
loop is the same round written here as one compiled function of local arrays,
with the same random source: what those shared functions cost is the gap
between the two. Compile time is excluded: everything is warmed up first. The
loops are measured alternately in one run, and the best of the repeats kept.

Run: ``.venv/bin/python bench/kernel.py [--seconds S] [--repeat N]``; the last line
is JSON with ``kernel_rounds_per_s``, ``engine_rounds_per_s``, ``ratio`` (to the
engine, goal >= 20), ``bare_rounds_per_s`` and ``bare_ratio`` (kernel to the bare
loop, goal >= 0.85).
"""

from __future__ import annotations

import argparse
import json
import time
from collections.abc import Callable

import numpy as np

from engine import engine_rounds  # bench/engine.py: the same public-API loop
from nimmt.cards import BULLHEADS
from nimmt.sim import kernel as K

_BULL = np.array(BULLHEADS[:105], dtype=np.int64)


@K._jit
def bare_loop(rounds: int, players: int, rs: K.IntArray) -> K.IntArray:
    """``rounds`` rounds of the base rules, random cards and the default row, on local
    arrays in one function; returns the penalties, one row per round."""
    out = np.zeros((rounds, players), dtype=np.int64)
    deck = np.empty(104, dtype=np.int64)
    hands = np.empty((players, 10), dtype=np.int64)
    last = np.empty(4, dtype=np.int64)
    length = np.empty(4, dtype=np.int64)
    bulls = np.empty(4, dtype=np.int64)
    qp = np.empty(players, dtype=np.int64)
    qc = np.empty(players, dtype=np.int64)
    for g in range(rounds):
        for i in range(104):
            deck[i] = i + 1
        for i in range(players * 10 + 4):
            j = i + K.rng_below(rs, 104 - i)
            x = deck[i]
            deck[i] = deck[j]
            deck[j] = x
        for p in range(players):
            for h in range(10):
                hands[p, h] = deck[10 * p + h]
        for r in range(4):
            c = deck[10 * players + r]
            last[r] = c
            length[r] = 1
            bulls[r] = _BULL[c]
        for turn in range(10):
            left = 10 - turn
            for p in range(players):
                k = K.rng_below(rs, left)
                c = hands[p, k]
                hands[p, k] = hands[p, left - 1]
                j = p
                while j > 0 and qc[j - 1] > c:
                    qc[j] = qc[j - 1]
                    qp[j] = qp[j - 1]
                    j -= 1
                qc[j] = c
                qp[j] = p
            for k in range(players):
                c = qc[k]
                p = qp[k]
                best = -1
                for r in range(4):
                    if last[r] < c and (best < 0 or last[r] > last[best]):
                        best = r
                if best < 0:
                    best = 0
                    for r in range(1, 4):
                        if bulls[r] < bulls[best] or (
                            bulls[r] == bulls[best] and length[r] < length[best]
                        ):
                            best = r
                    out[g, p] += bulls[best]
                    length[best] = 1
                    bulls[best] = _BULL[c]
                elif length[best] == 5:
                    out[g, p] += bulls[best]
                    length[best] = 1
                    bulls[best] = _BULL[c]
                else:
                    length[best] += 1
                    bulls[best] += _BULL[c]
                last[best] = c
    return out


def _timed(
    batch_of: Callable[[int], K.IntArray], players: int, seconds: float
) -> tuple[float, float]:
    """Rounds per second of ``batch_of(2000)`` called for ``seconds``, and the mean
    bullheads per player-round of the penalties it returned."""
    batch = 2000
    rounds = 0
    total = 0
    start = time.perf_counter()
    deadline = start + seconds
    while True:
        pen = batch_of(batch)
        rounds += batch
        total += int(pen.sum())
        now = time.perf_counter()
        if now >= deadline:
            return rounds / (now - start), total / (rounds * players)


def bare_rounds(players: int, seconds: float, seed: int) -> tuple[float, float]:
    rs = K.rng_state(seed)
    return _timed(lambda batch: bare_loop(batch, players, rs), players, seconds)


def kernel_rounds(players: int, seconds: float, seed: int, policy: int) -> tuple[float, float]:
    pol, noise = K.seat_policies(players, policy)
    rs = K.rng_state(seed)
    return _timed(
        lambda batch: K.simulate_rounds(batch, players, 104, False, False, pol, noise, rs),
        players,
        seconds,
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--seconds", type=float, default=3.0, help="time per measurement")
    parser.add_argument("--repeat", type=int, default=3, help="alternating repeats (best kept)")
    parser.add_argument("--players", type=int, default=5)
    args = parser.parse_args()
    n = args.players
    kernel_rounds(n, 0.05, 0, K.POLICY_RANDOM)  # compile or load from the cache
    kernel_rounds(n, 0.05, 0, K.POLICY_SMART)
    bare_rounds(n, 0.05, 0)
    eng = ker = smart = bare = 0.0
    mean_random = mean_smart = mean_bare = 0.0
    for r in range(args.repeat):
        eng = max(eng, engine_rounds(n, args.seconds, r))
        rate, mean_random = kernel_rounds(n, args.seconds, r, K.POLICY_RANDOM)
        ker = max(ker, rate)
        rate, mean_bare = bare_rounds(n, args.seconds, r)
        bare = max(bare, rate)
        rate, mean_smart = kernel_rounds(n, args.seconds, r, K.POLICY_SMART)
        smart = max(smart, rate)
    print(f"numba: {K.NUMBA}")
    print(f"{n} players, random play: engine {eng:,.0f} rounds/s, kernel {ker:,.0f} rounds/s, "
          f"ratio {ker / eng:.1f}")
    print(f"bare compiled loop {bare:,.0f} rounds/s (bullheads per player-round "
          f"{mean_bare:.2f}): kernel to bare {ker / bare:.2f}")
    print(f"kernel, smart rollout policy: {smart:,.0f} rounds/s; bullheads per player-round: "
          f"random {mean_random:.2f}, smart {mean_smart:.2f}")
    print(json.dumps({
        "kernel_rounds_per_s": round(ker, 1),
        "engine_rounds_per_s": round(eng, 1),
        "ratio": round(ker / eng, 2),
        "bare_rounds_per_s": round(bare, 1),
        "bare_ratio": round(ker / bare, 3),
        "kernel_smart_rounds_per_s": round(smart, 1),
        "players": n,
        "numba": K.NUMBA,
    }))


if __name__ == "__main__":
    main()
