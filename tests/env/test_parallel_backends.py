"""The Parallel environment's kernel backend against the engine, observation for observation.

After every step of random games, each agent's observation and mask must be
what the engine's view of the same game (replayed from the kernel's deals and
the same decisions) encodes to, and the rewards what the engine's events say.
"""

from __future__ import annotations

import random
from typing import Any

import numpy as np
import pytest

from nimmt.env import parallel_env
from nimmt.env import spaces as S
from nimmt.env.vector import VectorRulesError

CASES: list[dict[str, Any]] = [
    {"players": 4, "end": "rounds", "rounds": 2},
    {"rules": "category5", "players": 7},
    {"rules": "tactics+professional", "players": 3, "reward": "rank"},
    {"rules": "jokers", "players": 5, "reward": "game", "end": "rounds", "rounds": 1},
    {"rules": "open-hands", "players": 2, "end": "rounds", "rounds": 3},
]


@pytest.mark.parametrize("kwargs", CASES, ids=lambda k: "-".join(str(v) for v in k.values()))
def test_kernel_backend_matches_the_engine(kwargs: dict[str, Any]) -> None:
    env = parallel_env(**kwargs)
    assert env.backend == "kernel"
    obs, _ = env.reset(seed=3)
    rng = random.Random(4)
    totals = dict.fromkeys(env.possible_agents, 0.0)
    steps = 0
    while env.agents:
        game = env.game  # replayed through the engine from the deals and decisions
        for p, agent in enumerate(env.possible_agents):
            view = game.view(p)
            np.testing.assert_array_equal(obs[agent]["observation"], S.encode_reference(view))
            np.testing.assert_array_equal(obs[agent]["action_mask"], S.action_mask(view))
        actions = {}
        for agent, o in obs.items():
            legal = np.flatnonzero(o["action_mask"])
            actions[agent] = int(rng.choice(legal.tolist())) if len(legal) else 0
        obs, rewards, *_ = env.step(actions)
        for agent, r in rewards.items():
            totals[agent] += r
        steps += 1
    assert steps >= 10
    if kwargs.get("reward", "bullheads") == "bullheads":
        scores = env.game.scores
        assert [totals[a] for a in env.possible_agents] == [-s for s in scores]


def test_whole_games_on_both_backends_end_alike() -> None:
    for backend in ("kernel", "engine"):
        env = parallel_env(players=5, backend=backend)
        obs, _ = env.reset(seed=1)
        rng = random.Random(2)
        totals = dict.fromkeys(env.possible_agents, 0.0)
        while env.agents:
            actions = {}
            for agent, o in obs.items():
                legal = np.flatnonzero(o["action_mask"])
                actions[agent] = int(rng.choice(legal.tolist())) if len(legal) else 0
            obs, rewards, *_ = env.step(actions)
            for agent, r in rewards.items():
                totals[agent] += r
        game = env.game
        assert game.is_over and max(game.scores) >= 66
        assert [totals[a] for a in env.possible_agents] == [-s for s in game.scores]


def test_backend_choice() -> None:
    assert parallel_env(rules="logic", players=3).backend == "engine"
    assert parallel_env(end="elimination").backend == "engine"
    assert parallel_env(backend="engine").backend == "engine"
    with pytest.raises(VectorRulesError, match="open"):
        parallel_env(rules="open", backend="kernel")
