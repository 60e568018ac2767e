"""Environment speed: random-play games per second through the RL environments.

Single-round games of 4 players (``end="rounds", rounds=1``), random legal
actions drawn from each observation's ``action_mask``, measured side by side
in one run for: the PettingZoo AEC environment (``nimmt.env.env()``, with
PettingZoo's standard wrappers, and ``raw_env`` without them), the PettingZoo
Parallel environment (its default backend: the kernel for these rules), the vectorised
environment (``num_envs`` games per step, 1,024 by default, on the kernel, one learning seat per
game against ``cheapest`` opponents; its random actions are drawn in compiled
code too), and the engine loop of ``bench/engine.py`` (the engine's public API
without any environment). Compile time is excluded: everything is warmed up
first. The best of the alternating repeats is kept.

Run: ``.venv/bin/python bench/env.py [--seconds S] [--repeat N] [--num-envs N]``; the
last line is JSON with ``aec_games_per_s``, ``aec_raw_games_per_s``,
``parallel_games_per_s``, ``vector_games_per_s`` and ``engine_games_per_s``.
"""

from __future__ import annotations

import argparse
import json
import random
import time
from collections.abc import Callable
from typing import Any

import numpy as np

import nimmt.env as nenv
from engine import engine_rounds  # bench/engine.py: the same public-API loop
from nimmt.env.vector import NimmtVectorEnv
from nimmt.sim import kernel as K

RULES: dict[str, Any] = {"players": 4, "end": "rounds", "rounds": 1}


def _pick(mask: np.ndarray, rng: random.Random) -> int:
    """A random legal action; 0 for an agent without a decision (its action is ignored)."""
    legal = mask.nonzero()[0]
    return int(legal[int(rng.random() * len(legal))]) if len(legal) else 0


def aec_games(seconds: float, seed: int, raw: bool = False) -> float:
    env = nenv.raw_env(**RULES) if raw else nenv.env(**RULES)
    rng = random.Random(seed)
    games = 0
    start = time.perf_counter()
    deadline = start + seconds
    while True:
        env.reset(seed=seed + games)
        for _agent in env.agent_iter():
            obs, _, terminated, truncated, _ = env.last()
            env.step(None if terminated or truncated else _pick(obs["action_mask"], rng))
        games += 1
        now = time.perf_counter()
        if now >= deadline:
            return games / (now - start)


def parallel_games(seconds: float, seed: int) -> float:
    env = nenv.parallel_env(**RULES)
    rng = random.Random(seed)
    games = 0
    start = time.perf_counter()
    deadline = start + seconds
    while True:
        obs, _ = env.reset(seed=seed + games)
        while env.agents:
            actions = {agent: _pick(o["action_mask"], rng) for agent, o in obs.items()}
            obs, *_ = env.step(actions)
        games += 1
        now = time.perf_counter()
        if now >= deadline:
            return games / (now - start)


def vector_games(seconds: float, seed: int, num_envs: int) -> float:
    env = NimmtVectorEnv(num_envs, **RULES)
    env.reset(seed=seed)
    rs = K.rng_state(seed)
    games = 0
    start = time.perf_counter()
    deadline = start + seconds
    while True:
        for _ in range(20):
            _, _, terminated, _, _ = env.step(env.random_actions(state=rs))
            games += int(terminated.sum())
        now = time.perf_counter()
        if now >= deadline:
            return games / (now - start)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--seconds", type=float, default=3.0, help="time per measurement")
    parser.add_argument("--repeat", type=int, default=3, help="alternating repeats (best kept)")
    parser.add_argument("--num-envs", type=int, default=1024, help="games per vectorised step")
    args = parser.parse_args()
    loops: dict[str, Callable[[float, int], float]] = {
        "engine": lambda s, r: engine_rounds(4, s, r),
        "aec": aec_games,
        "aec_raw": lambda s, r: aec_games(s, r, raw=True),
        "parallel": parallel_games,
        "vector": lambda s, r: vector_games(s, r, args.num_envs),
    }
    for fn in loops.values():
        fn(0.2, 0)  # warm up: compile the kernel or load it from the cache
    best = dict.fromkeys(loops, 0.0)
    cpu = dict.fromkeys(loops, 0.0)
    for r in range(args.repeat):
        # Alternate the loops so that machine noise hits them alike.
        for name, fn in loops.items():
            wall0, cpu0 = time.perf_counter(), time.process_time()
            rate = fn(args.seconds, r + 1)
            wall, used = time.perf_counter() - wall0, time.process_time() - cpu0
            best[name] = max(best[name], rate)
            # Per second of this process's own CPU time: what other jobs on a shared
            # machine take away from the wall-clock rate, they do not take from this one.
            cpu[name] = max(cpu[name], rate * wall / used)
    eng = best["engine"]
    print(f"numba: {K.NUMBA}; 4 players, single rounds, random legal actions")
    for name in ("engine", "aec", "aec_raw", "parallel", "vector"):
        print(f"{name:>9}: {best[name]:>10,.0f} games/s  ({best[name] / eng:.2f} x the engine), "
              f"{cpu[name]:>10,.0f} games per CPU second")
    print(json.dumps({
        "aec_games_per_s": round(best["aec"], 1),
        "aec_raw_games_per_s": round(best["aec_raw"], 1),
        "parallel_games_per_s": round(best["parallel"], 1),
        "vector_games_per_s": round(best["vector"], 1),
        "engine_games_per_s": round(eng, 1),
        **{f"{name}_games_per_cpu_s": round(cpu[name], 1) for name in loops},
        "num_envs": args.num_envs,
        "numba": K.NUMBA,
    }))


if __name__ == "__main__":
    main()
