"""The environments' own promises: rewards, opponents, illegal actions, rendering, copies."""

from __future__ import annotations

import copy
import pickle
import random
from typing import Any

import numpy as np
import pytest

from nimmt import IllegalMove, View
from nimmt.bots.simple import DodgerBot
from nimmt.env import env as aec_env
from nimmt.env import parallel_env, raw_env
from nimmt.env.single import NimmtEnv


def _legal(obs: dict[str, Any], rng: random.Random) -> int:
    return int(rng.choice(np.flatnonzero(obs["action_mask"]).tolist()))


def play_aec(env: Any, rng: random.Random) -> dict[str, float]:
    totals: dict[str, float] = {}
    for agent in env.agent_iter():
        obs, reward, terminated, truncated, _ = env.last()
        totals[agent] = totals.get(agent, 0.0) + reward
        env.step(None if terminated or truncated else _legal(obs, rng))
    return totals


@pytest.mark.parametrize("spec", ["classic", "logic", "open+jokers"])
def test_aec_bullhead_rewards_add_up_to_the_scores(spec: str) -> None:
    env = raw_env(spec, players=4)
    env.reset(seed=5)
    totals = play_aec(env, random.Random(1))
    game = env.game
    assert game.is_over
    assert [totals[f"player_{p}"] for p in range(4)] == [-s for s in game.scores]


def test_rank_rewards_in_an_elimination_game() -> None:
    env = raw_env(players=5, end="elimination", limit=30, reward="rank")
    env.reset(seed=2)
    totals = play_aec(env, random.Random(3))
    ranks = sorted(totals.values(), reverse=True)
    assert sum(ranks) == pytest.approx(0.0)
    assert ranks[0] == 1.0 or ranks[0] == ranks[1]  # a shared first place splits
    winners = env.game.winners
    assert all(totals[f"player_{w}"] == ranks[0] for w in winners)


def test_parallel_turn_is_one_step_and_illegal_actions() -> None:
    env = parallel_env(players=3, end="rounds", rounds=1)
    obs, _ = env.reset(seed=4)
    rng = random.Random(0)
    # Everyone chooses at once.
    assert all(o["action_mask"].any() for o in obs.values())
    card_steps = 0
    while env.agents:
        deciding = [a for a, o in obs.items() if o["action_mask"].any()]
        card_steps += len(deciding) == 3
        assert len(deciding) in (1, 3)  # a turn's choice, or one row choice
        actions = {a: _legal(o, rng) if a in deciding else 0 for a, o in obs.items()}
        obs, rewards, term, _, _ = env.step(actions)
    assert card_steps == 10
    obs, _ = env.reset(seed=4)
    bad = int(np.flatnonzero(obs["player_0"]["action_mask"] == 0)[0])
    obs, rewards, term, _, _ = env.step({a: bad for a in env.agents})
    assert all(term.values()) and env.agents == []
    assert min(rewards.values()) == env.illegal_reward
    strict = parallel_env(players=3, illegal="raise")
    obs, _ = strict.reset(seed=4)
    before = strict.game.view(0)
    with pytest.raises(IllegalMove):
        strict.step({"player_0": 117, "player_1": 117, "player_2": 117})
    assert strict.game.view(0).hand == before.hand


def test_aec_wrapper_ends_the_game_on_an_illegal_action() -> None:
    env = aec_env(players=3)
    env.reset(seed=1)
    obs, *_ = env.last()
    bad = int(np.flatnonzero(obs["action_mask"] == 0)[0])
    env.step(bad)
    assert all(env.terminations.values())
    assert env.rewards[env.possible_agents[0]] < -171


def test_single_agent_opponents_and_rewards() -> None:
    calls: list[int] = []

    def lowest(view: View) -> int:
        calls.append(1)
        return min(view.options)

    env = NimmtEnv(players=4, seat=None, opponents=["cheapest", lowest, DodgerBot(seed=1)])
    rng = random.Random(6)
    for seed in range(3):
        obs, info = env.reset(seed=seed)
        total = 0.0
        done = False
        while not done:
            obs, reward, done, _, info = env.step(_legal(obs, rng))
            total += reward
        assert total == -info["scores"][info["seat"]]
    assert calls
    assert not env.action_masks().any()
    with pytest.raises(IllegalMove):
        env.step(0)


def test_single_agent_illegal_and_render() -> None:
    env = NimmtEnv(players=3, render_mode="ansi")
    obs, _ = env.reset(seed=1)
    text = env.render()
    assert text is not None and "Row 1" in text and "Waiting for you" in text
    bad = int(np.flatnonzero(obs["action_mask"] == 0)[0])
    _, reward, terminated, _, info = env.step(bad)
    assert terminated and info["illegal"] and reward == env.illegal_reward


def _continue_aec(env: Any, seed: int) -> list[Any]:
    rng = random.Random(seed)
    trace: list[Any] = []
    for _ in range(25):
        if not env.agents:
            break
        obs, reward, terminated, truncated, _ = env.last()
        trace.append((env.agent_selection, obs["observation"].tolist(), reward))
        env.step(None if terminated or truncated else _legal(obs, rng))
    return trace


@pytest.mark.parametrize("make", [raw_env, aec_env])
def test_aec_envs_pickle_and_copy(make: Any) -> None:
    env = make(rules="professional+jokers", players=5)
    env.reset(seed=8)
    _continue_aec(env, 1)
    for clone in (pickle.loads(pickle.dumps(env)), copy.deepcopy(env)):
        assert _continue_aec(clone, 2) == _continue_aec(copy.deepcopy(env), 2)
    assert _continue_aec(pickle.loads(pickle.dumps(env)), 3) == _continue_aec(env, 3)


@pytest.mark.parametrize("backend", ["engine", "kernel"])
def test_parallel_and_single_envs_pickle_and_copy(backend: str) -> None:
    par = parallel_env(rules="logic" if backend == "engine" else "jokers", players=3)
    assert par.backend == backend
    obs, _ = par.reset(seed=3)
    rng = random.Random(1)
    for _ in range(12):
        obs, *_ = par.step(
            {a: _legal(o, rng) if o["action_mask"].any() else 0 for a, o in obs.items()}
        )
    actions = {a: _legal(o, random.Random(5)) if o["action_mask"].any() else 0
               for a, o in obs.items()}
    reference = copy.deepcopy(par)
    want = reference.step(actions)[0]["player_1"]["observation"]
    for clone in (pickle.loads(pickle.dumps(par)), copy.deepcopy(par)):
        got = clone.step(actions)[0]["player_1"]["observation"]
        np.testing.assert_array_equal(got, want)
        assert clone.game.view(1).hand == reference.game.view(1).hand
    single = NimmtEnv(players=4, opponents="dodger")
    obs, _ = single.reset(seed=2)
    obs, *_ = single.step(_legal(obs, rng))
    twin = pickle.loads(pickle.dumps(single))
    a = _legal(obs, rng)
    np.testing.assert_array_equal(single.step(a)[0]["observation"], twin.step(a)[0]["observation"])


@pytest.mark.parametrize("backend", ["engine", "kernel"])
def test_parallel_render_narrates_as_to_a_spectator(backend: str) -> None:
    env = parallel_env(players=3, render_mode="ansi", backend=backend)
    obs, _ = env.reset(seed=6)
    first = env.render()
    assert first is not None and "Waiting for" in first
    hand = env.game.view(0).hand
    rng = random.Random(2)
    obs, *_ = env.step({a: _legal(o, rng) for a, o in obs.items()})
    text = env.render()
    assert text is not None and "Cards revealed" in text
    # A spectator is never told a hand: no sentence lists seat 0's remaining cards.
    assert ", ".join(str(c) for c in env.game.view(0).hand) not in text
    assert hand
