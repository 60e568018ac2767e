"""The single-agent Gymnasium environment: one seat learns, bots play the others.

Most learning code expects one agent. Here one seat (``seat``; ``None``
draws a seat at every reset, so a policy cannot learn a seat's quirks) is
the agent; every other seat is played by an opponent: a name from the bot
ladder (``"cheapest"``, ``"dodger"``, ``"expert"``, a strength, or an import
path ``pkg.mod:Class``), a bot object, or any callable that takes a
:class:`~nimmt.views.View` and returns one of ``view.options``. Opponents see
only their own views, like every bot. A step is the agent's decision and
everything the opponents decide until the agent's next decision (or the end
of its game); the reward is what that stretch was worth to the agent.

Ladder names are rebuilt at every reset with seeds drawn from the
environment's generator, so ``reset(seed=...)`` makes whole episodes
reproducible; bot objects and callables keep their own state.

Observations, actions and masks are those of :mod:`nimmt.env.spaces`; the
mask is also given by :meth:`NimmtEnv.action_masks`, as maskable learners expect.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, TypeAlias

import gymnasium
import numpy as np
import numpy.typing as npt

from ..bots.base import Bot
from ..bots.registry import make_bot
from ..decisions import DecisionKind, DraftCard, PlayCard, TakeRow
from ..errors import IllegalMove
from ..rules import Rules
from ..views import View
from .match import MatchEnv, settings
from .spaces import Encoder, action_mask, action_space, decision_of, observation_space, to_dict

__all__ = ["NimmtEnv", "Opponent"]

#: An opponent: a ladder name or import path, a bot, or a callable from a view to an option.
Opponent: TypeAlias = str | Bot | Callable[[View], int]


class _CallableBot:
    """A callable dressed as a bot: it answers every kind of decision."""

    def __init__(self, fn: Callable[[View], int]) -> None:
        self.fn = fn
        self.name = getattr(fn, "__name__", "callable")

    def choose_card(self, view: View) -> int:
        return self.fn(view)

    def choose_row(self, view: View) -> int:
        return self.fn(view)

    def draft_card(self, view: View) -> int:
        return self.fn(view)


class NimmtEnv(MatchEnv, gymnasium.Env[dict[str, Any], Any]):
    """One learning seat against bots; see the module docstring.

    Keywords: the rules (``rules``, ``players``, ``variants``, ``end``,
    ``limit``, ``rounds``), ``seat``, ``opponents`` (one for every other seat,
    or one for all), ``reward``, ``observation``, ``render_mode`` (``"ansi"``),
    ``illegal`` (``"terminate"``: an illegal action ends the episode with
    ``illegal_reward``; ``"raise"``: the engine's error, nothing changed).
    """

    metadata: dict[str, Any] = {"render_modes": ["ansi"]}  # noqa: RUF012 - as Gymnasium types it

    def __init__(
        self,
        rules: Rules | str | None = None,
        *,
        players: int = 4,
        variants: tuple[str, ...] = (),
        end: str | None = None,
        limit: int | None = None,
        rounds: int | None = None,
        seat: int | None = 0,
        opponents: Opponent | Sequence[Opponent] = "cheapest",
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
        n = self.rules.players
        if seat is not None and not 0 <= seat < n:
            raise ValueError(f"seat must be 0..{n - 1} or None, not {seat!r}")
        if isinstance(opponents, str) or callable(opponents) or isinstance(opponents, Bot):
            specs: list[Opponent] = [opponents] * (n - 1)
        else:
            specs = list(opponents)
            if len(specs) == 1:
                specs = specs * (n - 1)
            if len(specs) != n - 1:
                raise ValueError(
                    f"give one opponent for all or {n - 1} opponents, not {len(specs)}"
                )
        self._specs = specs
        self.seat_choice = seat
        self.seat = seat if seat is not None else 0
        self.illegal_reward = self.settings.illegal_reward
        self.observation_space = observation_space(observation, self.rules)
        self.action_space: gymnasium.spaces.Discrete = action_space()
        self._encoder = Encoder()
        self._bots: list[Any] = []
        self._done = True

    def _make_bots(self) -> list[Any]:
        bots: list[Any] = []
        for spec in self._specs:
            seed = self._seeds.getrandbits(32)
            if isinstance(spec, str):
                bots.append(make_bot(spec, seed=seed))
            elif isinstance(spec, Bot):
                bots.append(spec)
            else:
                bots.append(_CallableBot(spec))
        return bots

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[dict[str, Any], dict[str, Any]]:
        gymnasium.Env.reset(self, seed=seed)
        self._new_game(seed)
        if self.seat_choice is None:
            self.seat = self._seeds.randrange(self.rules.players)
        others = iter(self._make_bots())
        self._bots = [None if p == self.seat else next(others) for p in range(self.rules.players)]
        self._rendered = 0
        self._done = False
        # Nobody takes a row before the agent's first decision: no reward is lost here.
        self._play_others()
        return self._observe(), self._info()

    def _play_others(self) -> tuple[float, bool]:
        """Let the opponents decide until the agent has a decision or its game ends."""
        match = self._match
        game = match.game
        me = self.seat
        total = 0.0
        while True:
            if me in match.out:
                return total, True
            pending = game.pending
            assert pending is not None
            if me in pending.players:
                return total, False
            p = pending.players[0]
            bot = self._bots[p]
            view = game.view(p)
            kind = pending.kind
            decision: PlayCard | TakeRow | DraftCard
            if kind is DecisionKind.CARD:
                decision = PlayCard(p, bot.choose_card(view))
            elif kind is DecisionKind.ROW:
                decision = TakeRow(p, bot.choose_row(view))
            else:
                decision = DraftCard(p, bot.draft_card(view))
            _, rewards, _ = match.apply(decision)
            total += rewards[me]

    def _observe(self) -> dict[str, Any]:
        flats, masks = self._encoder.encode_all([self._match.game.view(self.seat)])
        flat = flats[0]
        mask = masks[0]
        if self._done:
            mask[:] = 0
        obs: Any = flat if self.settings.observation == "flat" else to_dict(flat)
        return {"observation": obs, "action_mask": mask}

    def _info(self) -> dict[str, Any]:
        game = self._match.game
        return {
            "seat": self.seat,
            "scores": tuple(game.scores),
            "winners": tuple(game.winners),
        }

    def action_masks(self) -> npt.NDArray[np.bool_]:
        """The legal actions now, as booleans (the convention of maskable learners)."""
        if self._done:
            return np.zeros(self.action_space.n, dtype=np.bool_)
        return action_mask(self._match.game.view(self.seat)).astype(bool)

    def step(self, action: Any) -> tuple[dict[str, Any], float, bool, bool, dict[str, Any]]:
        if self._done:
            raise IllegalMove("the episode is over: reset the environment")
        match = self._match
        pending = match.game.pending
        assert pending is not None
        decision = decision_of(pending.kind, self.seat, int(action))
        try:
            _, rewards, _ = match.apply(decision)
        except IllegalMove:
            if self.settings.illegal == "raise":
                raise
            self._done = True
            info = self._info()
            info["illegal"] = True
            return self._observe(), float(self.illegal_reward), True, False, info
        more, done = self._play_others()
        self._done = done
        return self._observe(), rewards[self.seat] + more, done, False, self._info()

    def _names(self) -> list[str]:
        return [("you" if p == self.seat else f"player_{p}") for p in range(self.rules.players)]

    def render(self) -> str | None:
        return MatchEnv.render(self)
