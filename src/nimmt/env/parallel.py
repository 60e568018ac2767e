"""The Parallel environment: the simultaneous card choice as one step.

Every step takes an action from each agent; the agents that have a decision
(their ``action_mask`` is not all zero) are the ones whose action counts.
A turn's card choice is one step for all seats at once; the reveal and the
resolution follow, and a card that needs a row choice makes the next step a
row choice of its player alone (the others' actions are ignored then). In
``logic`` each draft pick is a step of its picker, and in ``open`` each face-up
choice is a step of the seat whose turn it is, as the rules order them.

An illegal action (or a missing one from an agent with a decision) ends the
game: that agent gets ``illegal_reward`` (default: worse than any outcome of
play), every agent terminates. Give ``illegal="raise"`` to get the engine's
:class:`~nimmt.errors.IllegalMove` instead, with nothing changed.

Two backends play the game (``backend=``). ``"engine"`` is the engine itself,
for every rule set. ``"kernel"`` is the compiled kernel of the vectorised
environment, for the rule sets it plays exactly (all but ``logic``, ``open``
and the elimination end; the tests pin it to the engine, observation for
observation): several times faster, as whole steps run compiled. ``"auto"``
(the default) takes the kernel where it can. The two deal differently from
the same seed; each is reproducible. With the kernel, :attr:`game` (and
``render``) replays the decisions through the engine when asked for.
"""

from __future__ import annotations

import random
from typing import Any, ClassVar

import gymnasium
import numpy as np
from pettingzoo import ParallelEnv

from ..deals import Deal
from ..decisions import DecisionKind, PlayCard, TakeRow
from ..engine import Game
from ..errors import IllegalMove
from ..rules import Rules
from ..sim import kernel as K
from ..views import Phase
from . import vkernel as V
from .match import MatchEnv, settings
from .spaces import (
    FLAT_SIZE,
    N_ACTIONS,
    ROW_ACTION,
    Encoder,
    action_space,
    decision_of,
    observation_space,
    slot_card,
    to_dict,
)
from .vector import VectorRulesError, dealt, kernel_config, kernel_refusal

__all__ = ["ParallelNimmt", "parallel_env"]

#: What a step returns: observations, rewards, terminations, truncations, infos.
StepResult = tuple[
    dict[str, Any], dict[str, float], dict[str, bool], dict[str, bool], dict[str, dict[str, Any]]
]


class ParallelNimmt(MatchEnv, ParallelEnv):  # type: ignore[misc]
    """6 nimmt! as a PettingZoo Parallel environment; see the module docstring.

    Keywords as for :class:`~nimmt.env.aec.raw_env`, plus ``illegal``
    (``"terminate"`` or ``"raise"``) and ``illegal_reward``.
    """

    metadata: ClassVar[dict[str, Any]] = {"name": "nimmt_v0", "render_modes": ["ansi"]}

    def __init__(
        self,
        rules: Rules | str | None = None,
        *,
        players: int = 4,
        variants: tuple[str, ...] = (),
        end: str | None = None,
        limit: int | None = None,
        rounds: int | None = None,
        reward: str = "bullheads",
        observation: str = "flat",
        render_mode: str | None = None,
        illegal: str = "terminate",
        illegal_reward: float | None = None,
        backend: str = "auto",
    ) -> None:
        self._start(
            settings(
                rules,
                players=players,
                variants=variants,
                end=end,
                limit=limit,
                rounds=rounds,
                reward=reward,
                observation=observation,
                render_mode=render_mode,
                illegal=illegal,
                illegal_reward=illegal_reward,
            )
        )
        self.illegal_reward = self.settings.illegal_reward
        self.possible_agents = self._names()
        space = observation_space(observation, self.rules)
        self.observation_spaces = dict.fromkeys(self.possible_agents, space)
        self.action_spaces = {a: action_space() for a in self.possible_agents}
        self._encoder = Encoder()
        self.agents: list[str] = []
        why = kernel_refusal(self.rules)
        if backend not in ("auto", "engine", "kernel"):
            raise ValueError(f"backend must be 'auto', 'engine' or 'kernel', not {backend!r}")
        if backend == "kernel" and why is not None:
            raise VectorRulesError(f"the kernel cannot play {why}")
        self.backend = "kernel" if backend != "engine" and why is None else "engine"
        self._table: _KernelTable | None = None
        if self.backend == "kernel":
            self._table = _KernelTable(self.rules, self.settings.reward)

    @property
    def game(self) -> Game:
        """The engine game being played (read it; deciding through it breaks the env).

        With the kernel backend it is replayed from the deals and decisions so far.
        """
        if self._table is not None:
            return self._table.replay()
        return self._match.game

    def observation_space(self, agent: str) -> gymnasium.spaces.Space[Any]:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> gymnasium.spaces.Space[Any]:
        return self.action_spaces[agent]

    def reset(
        self, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[dict[str, Any], dict[str, dict[str, Any]]]:
        self.agents = list(self.possible_agents)
        if self._table is not None:
            if seed is not None:
                self._seeds = random.Random(seed)
            self._rendered = 0
            self._table.reset(self._seeds.getrandbits(63))
            return self._table.observations(self), {a: {} for a in self.agents}
        self._new_game(seed)
        return self._observations(), {a: {} for a in self.agents}

    def _observations(self) -> dict[str, Any]:
        game = self._match.game
        seats = [int(a[7:]) for a in self.agents]
        flats, masks = self._encoder.encode_all([game.view(seat) for seat in seats])
        possible = self.possible_agents
        if self.settings.observation == "flat":
            return {
                possible[seat]: {"observation": flats[i], "action_mask": masks[i]}
                for i, seat in enumerate(seats)
            }
        return {
            possible[seat]: {"observation": to_dict(flats[i]), "action_mask": masks[i]}
            for i, seat in enumerate(seats)
        }

    def step(self, actions: dict[str, Any]) -> StepResult:
        if self._table is not None:
            return self._table.step(self, actions)
        match = self._match
        game = match.game
        pending = game.pending
        agents = self.agents
        rewards = dict.fromkeys(agents, 0.0)
        terminations = dict.fromkeys(agents, False)
        if pending is None:
            raise IllegalMove("the game is over: reset the environment")
        kind = pending.kind
        seats = pending.players
        decisions = []
        offenders = []
        for seat in seats:
            agent = self.possible_agents[seat]
            action = actions.get(agent)
            legal = game.legal(seat)
            if action is None:
                offenders.append(agent)
                continue
            a = int(action)
            if kind is DecisionKind.ROW:
                ok = ROW_ACTION <= a < ROW_ACTION + 4
            else:
                ok = 0 <= a < ROW_ACTION and slot_card(a) in legal
            if not ok:
                offenders.append(agent)
            decisions.append(decision_of(kind, seat, a))
        if offenders:
            if self.settings.illegal == "raise":
                raise IllegalMove(
                    f"illegal or missing action from {', '.join(offenders)} "
                    f"for a {kind.value} decision"
                )
            for agent in offenders:
                rewards[agent] = self.illegal_reward
            terminations = dict.fromkeys(agents, True)
            obs = self._observations()
            self.agents = []
            return obs, rewards, terminations, dict.fromkeys(agents, False), {a: {} for a in agents}
        possible = self.possible_agents
        ended_all: list[int] = []
        for d in decisions:
            events, step_rewards, ended = match.apply(d)
            if len(events) > 1:
                for agent in agents:
                    r = step_rewards[int(agent[7:])]
                    if r:
                        rewards[agent] += r
                ended_all.extend(ended)
        for p in ended_all:
            terminations[possible[p]] = True
        obs = self._observations()
        if ended_all:
            self.agents = [a for a in agents if not terminations[a]]
        return obs, rewards, terminations, dict.fromkeys(agents, False), {a: {} for a in agents}

    def render(self) -> str | None:
        return MatchEnv.render(self)

    def close(self) -> None:
        pass


class _KernelTable:
    """The kernel backend: one game in a kernel row, every seat an agent."""

    def __init__(self, rules: Rules, reward: str) -> None:
        self.rules = rules
        self.cfg = kernel_config(rules, reward)
        self.cfg[V.C_ALL_AGENTS] = 1
        n = rules.players
        self.g = np.zeros(V.WIDTH, dtype=np.int64)
        self.actions = np.zeros(n, dtype=np.int64)
        self.reward = np.zeros(n, dtype=np.float64)
        self.illegal = np.zeros(n, dtype=np.bool_)
        self.obs = np.zeros((n, FLAT_SIZE), dtype=np.float32)
        self.mask = np.zeros((n, N_ACTIONS), dtype=np.int8)
        # What the engine needs to replay the game: each round's deal, each step's actions.
        self.deals: list[Deal] = []
        self.moves: list[tuple[int, tuple[int, ...]]] = []

    def reset(self, seed: int) -> None:
        self.obs = np.empty_like(self.obs)
        self.mask = np.empty_like(self.mask)
        V.table_reset(self.g, self.cfg, K.rng_state(seed), self.obs, self.mask)
        self.deals = [dealt(self.g, self.rules.players)]
        self.moves = []

    def observations(self, env: ParallelNimmt) -> dict[str, Any]:
        obs = self.obs
        mask = self.mask
        possible = env.possible_agents
        if env.settings.observation == "flat":
            return {a: {"observation": obs[p], "action_mask": mask[p]} for p, a in
                    enumerate(possible)}
        return {a: {"observation": to_dict(obs[p]), "action_mask": mask[p]} for p, a in
                enumerate(possible)}

    def step(self, env: ParallelNimmt, actions: dict[str, Any]) -> StepResult:
        agents = env.agents
        if not agents:
            raise IllegalMove("the game is over: reset the environment")
        acts = self.actions
        for p, agent in enumerate(agents):
            a = actions.get(agent)
            acts[p] = -1 if a is None else int(a)
        g = self.g
        phase = int(g[V.PHASE])
        before = self.obs, self.mask
        self.obs = np.empty_like(self.obs)
        self.mask = np.empty_like(self.mask)
        over = V.table_step(g, self.cfg, acts, self.obs, self.mask, self.reward, self.illegal)
        truncations = dict.fromkeys(agents, False)
        infos: dict[str, dict[str, Any]] = {a: {} for a in agents}
        if self.illegal.any():
            self.obs, self.mask = before  # nothing changed
            offenders = [agents[p] for p in np.flatnonzero(self.illegal)]
            if env.settings.illegal == "raise":
                kind = "row" if phase == V.PH_ROW else "card"
                raise IllegalMove(
                    f"illegal or missing action from {', '.join(offenders)} "
                    f"for a {kind} decision"
                )
            rewards = dict.fromkeys(agents, 0.0)
            for agent in offenders:
                rewards[agent] = env.illegal_reward
            obs = self.observations(env)
            env.agents = []
            return obs, rewards, dict.fromkeys(agents, True), truncations, infos
        self.moves.append((phase, tuple(acts.tolist())))
        if not over and int(g[V.ROUND]) > len(self.deals):
            self.deals.append(dealt(self.g, self.rules.players))
        rewards = dict(zip(agents, self.reward.tolist(), strict=True))
        obs = self.observations(env)
        if over:
            env.agents = []
        return obs, rewards, dict.fromkeys(agents, over), truncations, infos

    def replay(self) -> Game:
        """The game so far, played again through the engine."""
        game = Game(self.rules)
        deals = iter(self.deals)
        game.deal(next(deals))
        for phase, acts in self.moves:
            if phase == V.PH_ROW:
                pending = game.pending
                assert pending is not None
                seat = pending.players[0]
                game.decide(TakeRow(seat, acts[seat] - ROW_ACTION + 1))
            else:
                for p, a in enumerate(acts):
                    game.decide(PlayCard(p, slot_card(a)))
            while game.phase is Phase.DEAL:
                game.deal(next(deals))
        return game


def parallel_env(**kwargs: Any) -> ParallelNimmt:
    """The Parallel environment; keywords as for :class:`ParallelNimmt`."""
    return ParallelNimmt(**kwargs)
