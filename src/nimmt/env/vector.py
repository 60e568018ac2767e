"""The vectorised environment: thousands of games stepped at once on the compiled kernel.

:class:`NimmtVectorEnv` follows Gymnasium's ``VectorEnv`` API: numpy arrays in
and out, one learning seat per game, the other seats played inside the
compiled kernel (:mod:`nimmt.env.vkernel`). Each step takes one action per
game (the learner's card, or its row when its card fits no row or is a joker),
lets the opponents choose, reveals and resolves, and stops at the learner's
next decision. Observations and masks use the flat layout of
:mod:`nimmt.env.spaces`, identical to what the engine-based environments
produce for the same moment (a test checks it), so a policy trained here plays
in :class:`~nimmt.env.single.NimmtEnv`, the PettingZoo environments and the
arena unchanged.

What it plays exactly: presets ``classic`` and ``category5``; variants
``tactics``, ``professional``, ``jokers`` and ``open-hands`` and their
combinations; single rounds, fixed rounds or whole games to the limit. It
refuses, with an error naming the reason, what it cannot play exactly:
``logic`` (a draft before every round asks for decisions the kernel does not
model), ``open`` (choices are made one after another, face up, so the
opponents would have to see the learner's card) and the elimination end
(seats leave the table, and the tactics deck shrinks with them).

Opponents (``opponents=``): ``"cheapest"`` (a random card and the cheapest
row: the ladder's ``cheapest``), ``"random"`` (random rows too) or
``"heuristic"`` (the kernel's rollout heuristic with the cheapest row).
Autoreset is Gymnasium's next-step mode: the step after a game ends starts a
new one and ignores that game's action.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt
from gymnasium.vector import AutoresetMode, VectorEnv
from gymnasium.vector.utils import batch_space

from ..deals import Deal
from ..rules import VARIANTS, EndMode, Rules
from ..sim import kernel as K
from . import vkernel as V
from .match import default_illegal_reward, make_rules
from .spaces import FLAT_SIZE, N_ACTIONS, action_space, observation_space

__all__ = [
    "OPPONENTS",
    "NimmtVectorEnv",
    "VectorRulesError",
    "dealt",
    "kernel_config",
    "kernel_refusal",
]

OPPONENTS = {"cheapest": V.OPP_CHEAPEST, "random": V.OPP_RANDOM, "heuristic": V.OPP_HEURISTIC}
_REWARDS = {"bullheads": V.R_BULLHEADS, "game": V.R_GAME, "rank": V.R_RANK}
_REFUSED = {
    "logic": "logic: it drafts the hands face up before every round, a decision the kernel "
    "does not model",
    "open": "open: players choose one after another, face up, while the kernel reveals a "
    "turn's cards at once",
}


def kernel_refusal(rules: Rules) -> str | None:
    """Why the kernel cannot play ``rules`` exactly (``None`` when it can)."""
    for v in VARIANTS:
        if v in rules.variants and v in _REFUSED:
            return _REFUSED[v]
    if rules.end is EndMode.ELIMINATION:
        return (
            "the elimination end: seats leave the table, and the tactics deck shrinks with them"
        )
    return None


def kernel_config(rules: Rules, reward: str) -> npt.NDArray[np.int64]:
    """The kernel's configuration vector for ``rules`` (which it must be able to play)."""
    if reward not in _REWARDS:
        raise ValueError(f"reward must be one of {', '.join(_REWARDS)}, not {reward!r}")
    n = rules.players
    cfg = np.zeros(V.C_SIZE, dtype=np.int64)
    cfg[V.C_PLAYERS] = n
    cfg[V.C_DECK_TOP] = rules.deck(n)[-1]
    cfg[V.C_JOKERS] = int(rules.jokers)
    cfg[V.C_PROF] = int(rules.professional)
    cfg[V.C_OPEN_HANDS] = int(rules.open_hands)
    cfg[V.C_TACTICS] = int("tactics" in rules.variants)
    cfg[V.C_ROUNDS] = rules.rounds if rules.rounds is not None else 0
    cfg[V.C_LIMIT] = rules.limit
    cfg[V.C_REWARD] = _REWARDS[reward]
    return cfg


class VectorRulesError(ValueError):
    """Rules the vectorised environment cannot play exactly; the message says why."""


def dealt(g: npt.NDArray[np.int64], players: int) -> Deal:
    """The deal of the current round of the kernel game ``g`` (one row), as dealt."""
    hands = tuple(
        tuple(sorted(int(c) for c in g[V.DEALT + 10 * p : V.DEALT + 10 * p + 10]))
        for p in range(players)
    )
    return Deal(rows=tuple((int(c),) for c in g[V.DEALT + 100 : V.DEALT + 104]), hands=hands)


class NimmtVectorEnv(VectorEnv[dict[str, Any], Any, Any]):
    """``num_envs`` games of 6 nimmt!, one learning seat each; see the module docstring.

    Keywords: the rules (``rules``, ``players``, ``variants``, ``end``,
    ``limit``, ``rounds``), ``seat`` (``None``: a random seat every game),
    ``opponents``, ``reward`` (``"bullheads"``, ``"game"``, ``"rank"``) and
    ``illegal_reward`` (an illegal action ends its game with it). ``copy=False``
    returns the environment's own observation arrays, overwritten by the next
    step, instead of fresh copies.
    """

    metadata: dict[str, Any] = {  # noqa: RUF012 - Gymnasium declares it per instance
        "autoreset_mode": AutoresetMode.NEXT_STEP,
        "render_modes": [],
    }

    def __init__(
        self,
        num_envs: int = 1,
        rules: Rules | str | None = None,
        *,
        players: int = 4,
        variants: tuple[str, ...] = (),
        end: str | None = None,
        limit: int | None = None,
        rounds: int | None = None,
        seat: int | None = 0,
        opponents: str = "cheapest",
        reward: str = "bullheads",
        observation: str = "flat",
        illegal_reward: float | None = None,
        copy: bool = True,
        render_mode: str | None = None,
    ) -> None:
        if render_mode is not None:
            raise ValueError("the vectorised environment does not render")
        if observation != "flat":
            raise ValueError("the vectorised environment gives flat observations (spaces.to_dict)")
        self.rules = make_rules(
            rules, players=players, variants=variants, end=end, limit=limit, rounds=rounds
        )
        rules_ = self.rules
        why = kernel_refusal(rules_)
        if why is not None:
            raise VectorRulesError(f"the vectorised environment cannot play {why}")
        if opponents not in OPPONENTS:
            raise ValueError(f"opponents must be one of {', '.join(OPPONENTS)}, not {opponents!r}")
        n = rules_.players
        if seat is not None and not 0 <= seat < n:
            raise ValueError(f"seat must be 0..{n - 1} or None, not {seat!r}")
        if num_envs < 1:
            raise ValueError("num_envs must be at least 1")
        self.num_envs = num_envs
        self.copy = copy
        self.render_mode = None
        if illegal_reward is None:
            illegal_reward = default_illegal_reward(rules_, reward)
        self.illegal_reward = float(illegal_reward)
        cfg = kernel_config(rules_, reward)
        cfg[V.C_OPPONENT] = OPPONENTS[opponents]
        cfg[V.C_SEAT] = -1 if seat is None else seat
        self._cfg = cfg
        self.single_observation_space = observation_space("flat", rules_)
        self.single_action_space = action_space()
        self.observation_space = batch_space(self.single_observation_space, num_envs)
        self.action_space = batch_space(self.single_action_space, num_envs)
        self.games = np.zeros((num_envs, V.WIDTH), dtype=np.int64)
        self._obs = np.zeros((num_envs, FLAT_SIZE), dtype=np.float32)
        self._mask = np.zeros((num_envs, N_ACTIONS), dtype=np.int8)
        self._reward = np.zeros(num_envs, dtype=np.float64)
        self._terminated = np.zeros(num_envs, dtype=np.bool_)
        self._truncated = np.zeros(num_envs, dtype=np.bool_)
        self._illegal = np.zeros(num_envs, dtype=np.bool_)
        self._master = K.rng_state(0)
        self._actions = np.zeros(num_envs, dtype=np.int64)
        self._ready = False

    def reset(
        self, *, seed: int | list[int] | None = None, options: dict[str, Any] | None = None
    ) -> tuple[dict[str, npt.NDArray[Any]], dict[str, Any]]:
        """New games everywhere: from ``seed`` (an int, or one per game), or where the last
        seed left off (fresh entropy the first time)."""
        if isinstance(seed, list):
            if len(seed) != self.num_envs:
                raise ValueError(f"give {self.num_envs} seeds, not {len(seed)}")
            masters = np.stack([K.rng_state(int(s)) for s in seed])
            self._master = K.rng_state(int(seed[0]) ^ 0x5EED)
        else:
            if isinstance(seed, int):
                self._master = K.rng_state(int(seed))
            elif not self._ready:
                entropy = int(np.random.SeedSequence().entropy)  # type: ignore[arg-type]
                self._master = K.rng_state(entropy % (1 << 63))
            masters = np.stack(
                [K.rng_state(int(K.rng_next(self._master)) << 32 | i) for i in range(self.num_envs)]
            )
        self._fresh()
        V.reset_all(self.games, self._cfg, masters, self._obs, self._mask)
        self._ready = True
        return self._out(), {}

    def _fresh(self) -> None:
        # The kernel writes every number of every row, so a copy is as good as fresh
        # arrays written directly: cheaper than writing and then copying.
        if self.copy:
            self._obs = np.empty((self.num_envs, FLAT_SIZE), dtype=np.float32)
            self._mask = np.empty((self.num_envs, N_ACTIONS), dtype=np.int8)

    def _out(self) -> dict[str, npt.NDArray[Any]]:
        return {"observation": self._obs, "action_mask": self._mask}

    def step(
        self, actions: Any
    ) -> tuple[
        dict[str, npt.NDArray[Any]],
        npt.NDArray[np.float64],
        npt.NDArray[np.bool_],
        npt.NDArray[np.bool_],
        dict[str, Any],
    ]:
        if not self._ready:
            raise RuntimeError("reset the environment before stepping it")
        acts = np.asarray(actions)
        if acts.shape != (self.num_envs,):
            raise ValueError(f"actions must have shape ({self.num_envs},), not {acts.shape}")
        self._actions[:] = acts
        self._fresh()
        V.step_all(
            self.games,
            self._cfg,
            self._actions,
            self._master,
            self._obs,
            self._mask,
            self._reward,
            self._terminated,
            self._illegal,
            self.illegal_reward,
        )
        info: dict[str, Any] = {}
        if self._illegal.any():
            info = {"illegal": self._illegal.copy(), "_illegal": self._illegal.copy()}
        if self.copy:
            return (
                self._out(),
                self._reward.copy(),
                self._terminated.copy(),
                self._truncated.copy(),
                info,
            )
        return self._out(), self._reward, self._terminated, self._truncated, info

    def random_actions(self, seed: int = 0, state: npt.NDArray[np.int64] | None = None) -> Any:
        """A uniformly random legal action for every game (for baselines and benchmarks).

        ``state`` is a kernel generator state (:func:`nimmt.sim.kernel.rng_state`) to
        draw from and advance; by default one is made from ``seed``.
        """
        rs = state if state is not None else K.rng_state(seed)
        out = np.zeros(self.num_envs, dtype=np.int64)
        V.random_actions(self._mask, rs, out)
        return out

    def dealt(self, i: int) -> Deal:
        """The deal of game ``i``'s current round, as dealt (to replay it in the engine)."""
        return dealt(self.games[i], self.rules.players)

    def last_turn(self, i: int) -> tuple[int, ...]:
        """The card each seat of game ``i`` played in the last turn revealed."""
        return tuple(int(c) for c in self.games[i, V.LAST : V.LAST + self.rules.players])

    def seats(self) -> npt.NDArray[np.int64]:
        """The learning seat of every game."""
        return self.games[:, V.SEAT].copy()

    def close_extras(self, **kwargs: Any) -> None:
        pass

