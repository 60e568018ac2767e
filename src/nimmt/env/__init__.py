"""Reinforcement-learning environments: PettingZoo (AEC and Parallel) and Gymnasium.

Install with ``pip install 'nimmt[rl]'``. The environments play the exact
rules of the engine, every preset and variant, 2 to 10 players, single
rounds or whole games (``end="rounds", rounds=1`` for one round). The
observation and action spaces are the same for every rule set
(:mod:`nimmt.env.spaces`); rewards are described in :mod:`nimmt.env.match`.

=====================  ==========================================================
module conventions     ``env()``, ``parallel_env()``, ``raw_env`` (PettingZoo)
agents                 ``player_0`` .. ``player_{n-1}``, by seat
action space           ``Discrete(118)``: card slots 0..113, rows 114..117
observation space      ``{"observation": Box(FLAT_SIZE) or Dict, "action_mask":
                       Box(0, 1, (118,), int8)}``
single agent           ``gymnasium.make("nimmt/Nimmt-v0", ...)``
                       (:class:`~nimmt.env.single.NimmtEnv`)
vectorised             ``gymnasium.make_vec("nimmt/Nimmt-v0", num_envs=...)``
                       (:class:`~nimmt.env.vector.NimmtVectorEnv`)
PettingZoo ids         ``pettingzoo.make("aec" | "parallel", "nimmt/nimmt-v0")``
=====================  ==========================================================

The guide, with the observation fields, rewards, speed and a learning
example: ``docs/rl.md``.

Version history:

- v0: first release.
"""

from __future__ import annotations

from typing import Any

from pettingzoo.utils import wrappers

from .aec import raw_env
from .match import default_illegal_reward, make_rules
from .parallel import ParallelNimmt

__all__ = ["env", "parallel_env", "raw_env"]


def env(illegal_reward: float | None = None, **kwargs: Any) -> Any:
    """The AEC environment with PettingZoo's standard wrappers.

    An illegal action ends the game with ``illegal_reward`` for the agent that
    made it (default: worse than any game's outcome under the chosen reward).
    Keywords are those of :class:`~nimmt.env.aec.raw_env`.
    """
    raw = raw_env(**kwargs)
    if illegal_reward is None:
        illegal_reward = default_illegal_reward(raw.rules, kwargs.get("reward", "bullheads"))
    wrapped: Any = wrappers.TerminateIllegalWrapper(raw, illegal_reward=illegal_reward)
    wrapped = wrappers.AssertOutOfBoundsWrapper(wrapped)
    return wrappers.OrderEnforcingWrapper(wrapped)


def parallel_env(**kwargs: Any) -> Any:
    """The Parallel environment (:class:`~nimmt.env.parallel.ParallelNimmt`)."""
    return ParallelNimmt(**kwargs)


__all__ += ["default_illegal_reward", "make_rules"]


def _register() -> None:
    """Register the environment ids with Gymnasium and PettingZoo (once per process)."""
    import gymnasium
    import pettingzoo

    single = {"nimmt/Nimmt-v0": {}, "nimmt/NimmtRound-v0": {"end": "rounds", "rounds": 1}}
    for env_id, kwargs in single.items():
        if env_id not in gymnasium.registry:
            gymnasium.register(
                env_id,
                entry_point="nimmt.env.single:NimmtEnv",
                vector_entry_point="nimmt.env.vector:NimmtVectorEnv",
                kwargs=kwargs,
            )
    for kind, entry in (("aec", "nimmt.env:env"), ("parallel", "nimmt.env:parallel_env")):
        registry = pettingzoo.aec_registry if kind == "aec" else pettingzoo.parallel_registry
        if "nimmt/nimmt-v0" not in registry:
            pettingzoo.register(kind, "nimmt/nimmt-v0", entry_point=entry)


_register()
