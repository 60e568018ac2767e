"""The AEC environment: every decision of the game, one agent at a time.

PettingZoo's agent-environment cycle asks one agent at a time. The
simultaneous card choice is asked seat by seat (each sees who has chosen,
never what); the cards are revealed when the last one has chosen. A card too
low for every row, or a joker, then asks its player for a row, and in
``logic`` the draft asks each picker in turn. So the agents are asked exactly
the decisions the engine pends, in its order.

An illegal action raises the engine's :class:`~nimmt.errors.IllegalMove` in
the raw environment; :func:`nimmt.env.env` wraps it so that an illegal action
ends the game with ``illegal_reward`` for its agent instead (PettingZoo's
``TerminateIllegalWrapper``).
"""

from __future__ import annotations

from typing import Any, ClassVar

import gymnasium
from pettingzoo import AECEnv

from ..rules import Rules
from ..views import Phase
from .match import MatchEnv, settings
from .spaces import Encoder, action_space, decision_of, observation_space, to_dict

__all__ = ["raw_env"]


class raw_env(MatchEnv, AECEnv):  # type: ignore[misc]
    """6 nimmt! as an AEC environment; agents ``player_0`` .. ``player_{n-1}`` by seat.

    Keywords: the rules (``rules``, ``players``, ``variants``, ``end``,
    ``limit``, ``rounds``; see :func:`~nimmt.env.match.make_rules`), ``reward``
    (``"bullheads"``, ``"game"``, ``"rank"``; see :mod:`nimmt.env.match`),
    ``observation`` (``"flat"`` or ``"dict"``; see :mod:`nimmt.env.spaces`) and
    ``render_mode`` (``"ansi"``: the narration of what happened since the last
    render). Each agent's game ends (``terminations``) when the game ends or
    when it is eliminated.
    """

    # Not "parallelizable" in PettingZoo's sense (aec_to_parallel): a row choice is a
    # cycle's extra decision of one agent. parallel_env() is the Parallel form.
    metadata: ClassVar[dict[str, Any]] = {
        "name": "nimmt_v0",
        "render_modes": ["ansi"],
        "is_parallelizable": False,
    }

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
    ) -> None:
        AECEnv.__init__(self)
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
            )
        )
        self.possible_agents = self._names()
        self._seat = {a: p for p, a in enumerate(self.possible_agents)}
        space = observation_space(observation, self.rules)
        self.observation_spaces = dict.fromkeys(self.possible_agents, space)
        self.action_spaces = {a: action_space() for a in self.possible_agents}
        self._encoder = Encoder()
        self.agents: list[str] = []

    def observation_space(self, agent: str) -> gymnasium.spaces.Space[Any]:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> gymnasium.spaces.Space[Any]:
        return self.action_spaces[agent]

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        self._new_game(seed)
        self.agents = list(self.possible_agents)
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos: dict[str, dict[str, Any]] = {a: {} for a in self.agents}
        self._skip_agent_selection = None
        self.agent_selection = self._next_agent()

    def _next_agent(self) -> str:
        pending = self._match.game.pending
        if pending is None:  # over: any agent, the dead steps follow
            first: str = self.agents[0]
            return first
        return self.possible_agents[pending.players[0]]

    def observe(self, agent: str) -> dict[str, Any]:
        view = self._match.game.view(self._seat[agent])
        flats, masks = self._encoder.encode_all([view])
        flat = flats[0]
        mask = masks[0]
        if agent != self.agent_selection:
            # One agent at a time: the others wait, whatever the engine would let them do.
            mask[:] = 0
        obs: Any = flat if self.settings.observation == "flat" else to_dict(flat)
        return {"observation": obs, "action_mask": mask}

    def step(self, action: Any) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        match = self._match
        pending = match.game.pending
        assert pending is not None
        seat = self._seat[agent]
        decision = decision_of(pending.kind, seat, int(action))
        _, rewards, ended = match.apply(decision)
        self._cumulative_rewards[agent] = 0.0
        for a in self.agents:
            self.rewards[a] = rewards[self._seat[a]]
        for p in ended:
            self.terminations[self.possible_agents[p]] = True
        self._accumulate_rewards()
        if match.game.phase is not Phase.OVER:
            self.agent_selection = self._next_agent()
        if ended:
            self._deads_step_first()

    def render(self) -> str | None:
        return MatchEnv.render(self)

    def close(self) -> None:
        pass
