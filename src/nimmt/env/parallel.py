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
"""

from __future__ import annotations

from typing import Any, ClassVar

import gymnasium
from pettingzoo import ParallelEnv

from ..engine import DecisionKind
from ..errors import IllegalMove
from ..rules import Rules
from .match import MatchEnv, settings
from .spaces import (
    ROW_ACTION,
    Encoder,
    action_space,
    decision_of,
    observation_space,
    slot_card,
    to_dict,
)

__all__ = ["ParallelNimmt", "parallel_env"]


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
        space = observation_space(observation)
        self.observation_spaces = dict.fromkeys(self.possible_agents, space)
        self.action_spaces = {a: action_space() for a in self.possible_agents}
        self._encoder = Encoder()
        self.agents: list[str] = []

    def observation_space(self, agent: str) -> gymnasium.spaces.Space[Any]:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> gymnasium.spaces.Space[Any]:
        return self.action_spaces[agent]

    def reset(
        self, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[dict[str, Any], dict[str, dict[str, Any]]]:
        self._new_game(seed)
        self.agents = list(self.possible_agents)
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

    def step(
        self, actions: dict[str, Any]
    ) -> tuple[
        dict[str, Any],
        dict[str, float],
        dict[str, bool],
        dict[str, bool],
        dict[str, dict[str, Any]],
    ]:
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


def parallel_env(**kwargs: Any) -> ParallelNimmt:
    """The Parallel environment; keywords as for :class:`ParallelNimmt`."""
    return ParallelNimmt(**kwargs)
