"""The game behind every environment: rules from keywords, seeds, rewards.

The AEC, Parallel and single-agent environments differ only in how they hand
decisions out; what a game is, how it is seeded and what a step is worth
live here once.

Rewards (``reward=``), per seat:

- ``"bullheads"`` (default): after every step, minus the bullheads the seat
  took in it. Over a game they add up to minus the seat's penalty total.
- ``"game"``: nothing until the seat's game ends, then minus its penalty
  total for the whole game at once (the same sum, delivered late).
- ``"rank"``: nothing until the seat's game ends, then its place as a number
  from 1 (first) to -1 (last), linear in between; tied places share their
  average. Places are the arena's: winners first, then (elimination) those
  who lasted more rounds, then fewer bullheads.

A seat's game ends when the game ends, or when it is eliminated (elimination
end); its place is final at that moment, since everyone still playing will
outlast it.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import gymnasium

from ..decisions import Decision
from ..engine import Game
from ..events import Event, GameOver, PlayerEliminated, RoundStarted, RowTaken
from ..rules import EndMode, Rules
from ..sim.arena import ranks_of

__all__ = [
    "REWARDS",
    "Match",
    "MatchEnv",
    "MatchSettings",
    "default_illegal_reward",
    "make_rules",
    "settings",
    "worst_total",
]

REWARDS = ("bullheads", "game", "rank")


def make_rules(
    rules: Rules | str | None = None,
    *,
    players: int = 4,
    variants: Iterable[str] = (),
    end: str | None = None,
    limit: int | None = None,
    rounds: int | None = None,
) -> Rules:
    """Rules from an environment's keywords.

    ``rules`` is a :class:`~nimmt.rules.Rules` (then no other keyword may be
    given) or a name such as ``"category5+tactics"`` (default ``"classic"``);
    ``variants`` adds variants; ``end``, ``limit`` and ``rounds`` change the
    end (``end="rounds", rounds=1`` plays single rounds).
    """
    if isinstance(rules, Rules):
        if tuple(variants) or end is not None or limit is not None or rounds is not None:
            raise ValueError("give either a Rules value or rule keywords, not both")
        if rules.players != players and players != 4:
            raise ValueError("give the player count inside the Rules value")
        return rules
    spec = "+".join([rules or "classic", *variants])
    changes: dict[str, Any] = {}
    if end is not None:
        changes["end"] = end
    if limit is not None:
        changes["limit"] = limit
    if rounds is not None:
        changes["rounds"] = rounds
        changes.setdefault("end", "rounds")
    return Rules.parse(spec, players=players, **changes)


def worst_total(rules: Rules) -> int:
    """More bullheads than any seat can collect in a game of ``rules``.

    A round hands out at most the deck's 171 bullheads and ten jokers; a game
    to a limit ends after the round in which a total passes it.
    """
    per_round = 181
    if rules.end is EndMode.ROUNDS:
        assert rules.rounds is not None
        return per_round * rules.rounds + 1
    return rules.limit + per_round


def default_illegal_reward(rules: Rules, reward: str) -> float:
    """Worse than anything play can earn: -2 for ranks, else minus :func:`worst_total`."""
    return -2.0 if reward == "rank" else -float(worst_total(rules))


@dataclass(frozen=True, slots=True)
class MatchSettings:
    """An environment's validated keywords (see :func:`settings`)."""

    rules: Rules
    reward: str
    observation: str
    render_mode: str | None
    illegal: str
    illegal_reward: float


def settings(
    rules: Rules | str | None,
    *,
    players: int,
    variants: Iterable[str],
    end: str | None,
    limit: int | None,
    rounds: int | None,
    reward: str,
    observation: str,
    render_mode: str | None,
    illegal: str = "terminate",
    illegal_reward: float | None = None,
) -> MatchSettings:
    """Check an environment's keywords once, for every kind of environment alike."""
    if render_mode not in (None, "ansi"):
        raise ValueError(f"render_mode must be None or 'ansi', not {render_mode!r}")
    if illegal not in ("terminate", "raise"):
        raise ValueError(f"illegal must be 'terminate' or 'raise', not {illegal!r}")
    if reward not in REWARDS:
        raise ValueError(f"reward must be one of {', '.join(REWARDS)}, not {reward!r}")
    if observation not in ("flat", "dict"):
        raise ValueError(f"observation must be 'flat' or 'dict', not {observation!r}")
    made = make_rules(
        rules, players=players, variants=variants, end=end, limit=limit, rounds=rounds
    )
    if illegal_reward is None:
        illegal_reward = default_illegal_reward(made, reward)
    return MatchSettings(made, reward, observation, render_mode, illegal, float(illegal_reward))


class Match:
    """One seeded game and what each step of it is worth.

    Every decision goes through :meth:`apply`. A match pickles as it is, its
    game with it (the engine's ``Game`` pickles in both builds);
    ``copy.deepcopy`` copies the game with :meth:`~nimmt.engine.Game.clone`.
    """

    def __init__(self, rules: Rules, reward: str = "bullheads") -> None:
        self.rules = rules
        self.reward = reward
        self.game = Game(rules, seed=0)
        self.played = [0] * rules.players
        self.out: set[int] = set()  # seats whose game has ended
        self._count_rounds(self.game.events)

    def new_game(self, seed: int) -> None:
        """Start a new game dealt from ``seed``."""
        self.game = Game(self.rules, seed=seed)
        self.played = [0] * self.rules.players
        self.out = set()
        self._count_rounds(self.game.events)

    def _count_rounds(self, events: Sequence[Event]) -> None:
        for e in events:
            if isinstance(e, RoundStarted):
                for p in e.players:
                    self.played[p] += 1

    def apply(self, decision: Decision) -> tuple[list[Event], list[float], list[int]]:
        """Apply one decision: ``(events, reward per seat, seats whose game just ended)``.

        Raises the engine's :class:`~nimmt.errors.IllegalMove` for an illegal
        decision, and then nothing has changed.
        """
        events = self.game.decide(decision)
        n = self.rules.players
        rewards = [0.0] * n
        ended: list[int] = []
        if len(events) == 1:  # a card chosen, nothing revealed: the common case
            return events, rewards, ended
        over = False
        bullheads = self.reward == "bullheads"
        for e in events:
            if type(e) is RowTaken:
                if bullheads:
                    rewards[e.player] -= e.bullheads
            elif type(e) is RoundStarted:
                for p in e.players:
                    self.played[p] += 1
            elif type(e) is PlayerEliminated:
                ended.append(e.player)
            elif type(e) is GameOver:
                over = True
        if over:
            ended = [p for p in range(n) if p not in self.out]
        if ended:
            self.out.update(ended)
            if self.reward != "bullheads":
                final = self.final_rewards(game_over=over)
                for p in ended:
                    rewards[p] += final[p]
        return events, rewards, ended

    def final_rewards(self, game_over: bool) -> list[float]:
        """The end-of-game reward of every seat whose game has ended (``game``/``rank``)."""
        game = self.game
        n = self.rules.players
        totals = [s - s0 for s, s0 in zip(game.scores, game.start_scores, strict=True)]
        if self.reward == "game":
            return [-float(t) for t in totals]
        winners = game.winners
        still = set() if game_over else set(range(n)) - self.out
        # Seats still playing will outlast every seat out now: they rank first.
        keys = [
            (0, 0, 0) if p in still else (1 + (p not in winners), -self.played[p], totals[p])
            for p in range(n)
        ]
        ranks = ranks_of(keys)
        return [(n + 1 - 2 * r) / (n - 1) for r in ranks]

    def __deepcopy__(self, memo: dict[int, Any]) -> Match:
        # The engine's own clone shares the game's immutable values instead of copying each.
        m = Match.__new__(Match)
        m.rules = self.rules
        m.reward = self.reward
        m.game = self.game.clone()
        m.played = list(self.played)
        m.out = set(self.out)
        return m


class MatchEnv:
    """What the engine-based environments share: their match, their seeds, rendering."""

    settings: MatchSettings
    render_mode: str | None
    _match: Match
    _seeds: random.Random
    _rendered: int

    def _start(self, s: MatchSettings) -> None:
        self.settings = s
        self.rules = s.rules
        self.render_mode = s.render_mode
        self._match = Match(s.rules, s.reward)
        self._seeds = random.Random()
        self._rendered = 0

    def _new_game(self, seed: int | None) -> None:
        """A new game: dealt from ``seed``, or from where the last seed left off."""
        if seed is not None:
            self._seeds = random.Random(seed)
        self._match.new_game(self._seeds.getrandbits(63))
        self._rendered = 0

    @property
    def game(self) -> Game:
        """The engine game being played (read it; deciding through it breaks the env)."""
        return self._match.game

    def _names(self) -> list[str]:
        return [f"player_{p}" for p in range(self.rules.players)]

    def render(self) -> str | None:
        """``render_mode="ansi"``: what happened since the last render, the rows, who is asked.

        Spoken as to a spectator, so a rendering never shows a hidden card.
        """
        if self.render_mode is None:
            gymnasium.logger.warn("render() called without a render_mode; nothing to show")
            return None
        from ..narrate import narrator  # the gettext catalogs load only when rendering

        game = self.game
        names = self._names()
        n = narrator("en")
        lines = n.narrate(game.events[self._rendered :], names, None)
        lines.append(n.rows_sentence(game.view(None)))
        waiting = n.pending_sentence(game.pending, names)
        if waiting:
            lines.append(waiting)
        self._rendered = len(game.events)
        return "\n".join(lines) + "\n"
