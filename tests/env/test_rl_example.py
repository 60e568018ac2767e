"""The learning example's code path: a tiny training run, its files, the bot it makes.

Strength is measured by the arena (docs/rl.md), not here: this only shows that
training, saving, loading and playing through the bot protocol work.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from examples.rl.policy import FEATURES, LearnedBot, features, load_theta, masked_softmax
from examples.rl.train import save, train

from nimmt import Rules
from nimmt.bots.play import play_game
from nimmt.bots.registry import make_bot
from nimmt.bots.simple import CheapestBot
from nimmt.env.vector import NimmtVectorEnv


def test_tiny_training_run_saves_a_policy_that_plays(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    theta, curve = train(num_envs=32, steps=14, max_iterations=3, log=False)
    assert theta.shape == (len(FEATURES),) and len(curve) == 3
    save(theta, curve, tmp_path, reference=12.0)
    for name in ("weights.json", "learning_curve.csv", "learning_curve.png"):
        assert (tmp_path / name).stat().st_size > 0
    np.testing.assert_allclose(load_theta(tmp_path / "weights.json"), theta, atol=1e-5)
    monkeypatch.setenv("NIMMT_RL_WEIGHTS", str(tmp_path / "weights.json"))
    bot = make_bot("examples.rl.policy:LearnedBot", seed=1)
    assert isinstance(bot, LearnedBot)
    for spec in ("classic", "jokers+professional", "logic"):
        rules = Rules.parse(spec, players=4, end="rounds", rounds=1)
        game = play_game(rules, [bot, CheapestBot(1), CheapestBot(2), CheapestBot(3)], seed=5)
        assert game.is_over


def test_policy_probabilities_respect_the_mask() -> None:
    env = NimmtVectorEnv(8, end="rounds", rounds=1)
    obs, _ = env.reset(seed=2)
    phi = features(obs["observation"])
    probs = masked_softmax(phi @ np.ones(len(FEATURES), dtype=np.float32), obs["action_mask"])
    assert np.allclose(probs.sum(axis=1), 1.0)
    assert (probs[obs["action_mask"] == 0] == 0).all()
