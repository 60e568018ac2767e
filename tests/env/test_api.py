"""PettingZoo's and Gymnasium's own checks over a matrix of rules and player counts.

``api_test``, ``parallel_api_test``, ``seed_test`` and ``check_env`` are the
libraries' definition of a correct environment; they run here on presets,
every variant, single rounds, whole games, both ends with a limit and 2 to 10
players. Their advice about unusual but deliberate choices (masked dict
observations, an env without a registered spec) is silenced; their failures
are not.

The libraries' checks draw their actions from the action spaces' own
generators, which start from fresh entropy: each configuration seeds them
(and the deals) with its own seed, shown in the test's name, so that a
failure repeats.
"""

from __future__ import annotations

import warnings
from typing import Any

import gymnasium
import pettingzoo
import pytest
from gymnasium.utils.env_checker import check_env
from pettingzoo.test import api_test, parallel_api_test, seed_test
from pettingzoo.test.seed_test import parallel_seed_test

import nimmt.env as nenv
from nimmt.env.single import NimmtEnv


def _matrix() -> list[dict[str, Any]]:
    """Every variant and the defined combinations, on both presets, every end, 2..10 players.

    Player counts, ends, rewards and observation kinds rotate through the list so
    each appears with several rule sets without multiplying the run time.
    """
    specs = [
        "classic",
        "category5",
        "tactics",
        "category5+logic",
        "professional",
        "open",
        "category5+open-hands",
        "jokers",
        "tactics+professional",
        "category5+professional+jokers",
        "open+jokers",
        "tactics+open-hands",
        "logic+professional",
        "open+professional+open-hands",
    ]
    ends: list[dict[str, Any]] = [
        {},
        {"end": "rounds", "rounds": 1},
        {"end": "elimination", "limit": 25},
        {"end": "rounds", "rounds": 2},
    ]
    rewards = ["bullheads", "game", "rank"]
    out = []
    for i, spec in enumerate(specs):
        players = 2 + (i * 4) % 9  # 2..10, each once in the first nine
        if "open" in spec.split("+") and players == 10:
            players = 9  # card 1 is the marker: at most 9 players
        out.append(
            {
                "rules": spec,
                "players": players,
                **ends[i % len(ends)],
                "reward": rewards[i % len(rewards)],
                "observation": "dict" if i % 5 == 4 else "flat",
            }
        )
    return out


#: Each configuration's seed, for the deals and the actions the checks draw.
SEED = 20


def _seeded(env: Any, seed: int) -> Any:
    """``env`` with its deals and every agent's action space seeded from ``seed``."""
    env.reset(seed=seed)
    agents = getattr(env, "possible_agents", None)
    if agents is None:
        env.action_space.seed(seed)
    for k, agent in enumerate(agents or ()):
        env.action_space(agent).seed(seed + k)
    return env


MATRIX = _matrix()


def _id(kwargs: dict[str, Any]) -> str:
    return "-".join(str(v) for v in kwargs.values()) + f"-seed{SEED}"


@pytest.fixture(autouse=True)
def _quiet() -> Any:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        yield


@pytest.mark.parametrize("kwargs", MATRIX, ids=_id)
def test_pettingzoo_api(kwargs: dict[str, Any]) -> None:
    api_test(_seeded(nenv.env(**kwargs), SEED), num_cycles=200)
    # The kernel where it can, then the engine.
    parallel_api_test(_seeded(nenv.parallel_env(**kwargs), SEED), num_cycles=200)
    parallel_api_test(_seeded(nenv.parallel_env(backend="engine", **kwargs), SEED), num_cycles=200)


@pytest.mark.parametrize("kwargs", MATRIX, ids=_id)
def test_pettingzoo_seeds(kwargs: dict[str, Any]) -> None:
    seed_test(lambda: nenv.env(**kwargs), num_cycles=100)
    parallel_seed_test(lambda: nenv.parallel_env(**kwargs), num_cycles=100)


@pytest.mark.parametrize("kwargs", MATRIX, ids=_id)
def test_gymnasium_check_env(kwargs: dict[str, Any]) -> None:
    check_env(_seeded(NimmtEnv(**kwargs, seat=None), SEED))
    made = gymnasium.make("nimmt/Nimmt-v0", render_mode="ansi", **kwargs)
    check_env(_seeded(made.unwrapped, SEED))


def test_registered_ids() -> None:
    single = gymnasium.make("nimmt/NimmtRound-v0", players=5)
    assert single.unwrapped.rules.end == "rounds"
    vec = gymnasium.make_vec("nimmt/Nimmt-v0", num_envs=3, players=3)
    obs, _ = vec.reset(seed=1)
    assert obs["observation"].shape[0] == 3
    assert pettingzoo.make("aec", "nimmt/nimmt-v0", players=3).max_num_agents == 3
    par = pettingzoo.make("parallel", "nimmt/nimmt-v0", players=3)
    par.reset(seed=1)
    assert par.agents == ["player_0", "player_1", "player_2"]
