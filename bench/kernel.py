"""Kernel speed: whole rounds of random play, 5 players, the kernel against the engine.

The engine loop is the public API as a bot or client uses it (a view and the
legal options before every decision, the default row for a too-low card), as
in ``bench/engine.py``. The kernel plays the same rules (random cards, default
row) in compiled code. Compile time is excluded: the kernel is warmed up first.
The two are measured alternately in one run, and the best of the repeats kept.

Run: ``.venv/bin/python bench/kernel.py [--seconds S] [--repeat N]``; the last line
is JSON with ``kernel_rounds_per_s``, ``engine_rounds_per_s`` and ``ratio`` (goal >= 20).
"""

from __future__ import annotations

import argparse
import json
import time

from engine import engine_rounds  # bench/engine.py: the same public-API loop
from nimmt.sim import kernel as K


def kernel_rounds(players: int, seconds: float, seed: int, policy: int) -> tuple[float, float]:
    pol, noise = K.seat_policies(players, policy)
    rs = K.rng_state(seed)
    batch = 2000
    rounds = 0
    total = 0
    start = time.perf_counter()
    deadline = start + seconds
    while True:
        pen = K.simulate_rounds(batch, players, 104, False, False, pol, noise, rs)
        rounds += batch
        total += int(pen.sum())
        now = time.perf_counter()
        if now >= deadline:
            return rounds / (now - start), total / (rounds * players)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--seconds", type=float, default=3.0, help="time per measurement")
    parser.add_argument("--repeat", type=int, default=3, help="alternating repeats (best kept)")
    parser.add_argument("--players", type=int, default=5)
    args = parser.parse_args()
    n = args.players
    kernel_rounds(n, 0.05, 0, K.POLICY_RANDOM)  # compile or load from the cache
    kernel_rounds(n, 0.05, 0, K.POLICY_SMART)
    eng = ker = smart = 0.0
    mean_random = mean_smart = 0.0
    for r in range(args.repeat):
        eng = max(eng, engine_rounds(n, args.seconds, r))
        rate, mean_random = kernel_rounds(n, args.seconds, r, K.POLICY_RANDOM)
        ker = max(ker, rate)
        rate, mean_smart = kernel_rounds(n, args.seconds, r, K.POLICY_SMART)
        smart = max(smart, rate)
    print(f"numba: {K.NUMBA}")
    print(f"{n} players, random play: engine {eng:,.0f} rounds/s, kernel {ker:,.0f} rounds/s, "
          f"ratio {ker / eng:.1f}")
    print(f"kernel, smart rollout policy: {smart:,.0f} rounds/s; bullheads per player-round: "
          f"random {mean_random:.2f}, smart {mean_smart:.2f}")
    print(json.dumps({
        "kernel_rounds_per_s": round(ker, 1),
        "engine_rounds_per_s": round(eng, 1),
        "ratio": round(ker / eng, 2),
        "kernel_smart_rounds_per_s": round(smart, 1),
        "players": n,
        "numba": K.NUMBA,
    }))


if __name__ == "__main__":
    main()
