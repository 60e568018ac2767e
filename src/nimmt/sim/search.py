"""The search bots: ``mcs`` (flat Monte-Carlo) and ``expert`` (flat determinized search).

Both search with the exact rules of their table: the world is sampled by the
engine's own determinizer (:meth:`~nimmt.engine.Game.sample_world`) and encoded for
the fast kernel (:mod:`nimmt.sim.kernel`), which plays every variant's
placement rules (base, tactics, professional, jokers; open, open-hands and
logic change only who knows and chooses what). Inside one decision the kernel
deals the hidden cards again for every rollout, from the cards the bot cannot
have seen, exactly as ``Game.sample_world`` would, so no rollout pays for Python.

The objective is the bot's own bullheads for the rest of the round: it is what
the arena measures per round and, summed over rounds, what decides a game.

Budgets: ``Budget(seconds=1.0)`` per decision by default. A ``rollouts``
budget makes a bot deterministic for its seed (a time budget cannot, as the
machine's speed decides how far the search gets). Both limits may be given;
the search stops at the first.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable

import numpy as np

from ..bots.base import Budget
from ..cards import BULLHEADS, Card
from ..engine import Game
from ..views import View
from . import kernel as K
from .world import Hidden, KernelWorld, encode_game, hidden_cards

__all__ = ["DEFAULT_BUDGET", "ExpertBot", "MCSBot"]

#: One second per decision.
DEFAULT_BUDGET = Budget(seconds=1.0)

# Time kept back from a seconds budget for sampling, encoding and answering.
_MARGIN = 0.03

_warm = False


def warm_up() -> None:
    """Compile (or load from numba's cache) every kernel entry point once per process,
    so that no decision's time budget pays for it."""
    global _warm
    if _warm:
        return
    _warm = True
    from ..rules import Rules

    game = Game(Rules.parse("professional+jokers", players=3), seed=0)
    view = game.view(0)
    for bot in (MCSBot(0, Budget(rollouts=8)), ExpertBot(0, Budget(rollouts=8))):
        bot.choose_card(view)
        world = encode_game(Game.sample_world(view, random.Random(0)))
        hidden = hidden_cards(view, world.seats)
        # A row search from a made-up queue: my joker waits for its row.
        joker = next(c for c in view.hand if c < 0)
        K.remove_from_hand(world.state, 0, joker)
        st = world.state
        qp = np.zeros(1, dtype=np.int64)
        qc = np.array([joker], dtype=np.int64)
        totals = np.zeros(4)
        counts = np.zeros(4)
        pol, noise = K.seat_policies(3, K.POLICY_SMART)
        K.flat_row_search(
            st, 0, qp, qc, hidden.pool, hidden.jpool, hidden.need, hidden.needj,
            2, pol, noise, totals, counts, K.rng_state(0),
        )


class _SearchBot:
    """What both search bots share: the budget, the seeded randomness, the encoding."""

    name = "search"
    description = "a search bot"

    def __init__(self, seed: int = 0, budget: Budget | None = None) -> None:
        budget = DEFAULT_BUDGET if budget is None else budget
        if budget.rollouts is None and budget.seconds is None:
            raise ValueError(f"{self.name}: a budget needs rollouts or seconds (or both)")
        rollouts = budget.rollouts
        if rollouts is not None and (type(rollouts) is not int or rollouts < 1):
            raise ValueError(f"{self.name}: rollouts must be a whole number >= 1")
        if budget.seconds is not None and not budget.seconds > 0:
            raise ValueError(f"{self.name}: seconds must be > 0")
        self.seed = seed
        self.budget = budget
        self._rng = random.Random(seed)
        warm_up()
        #: Rollouts played by the last decision (for benchmarks and tuning).
        self.last_rollouts = 0

    def __repr__(self) -> str:
        return f"{type(self).__name__}(seed={self.seed}, budget={self.budget})"

    # -- shared machinery ---------------------------------------------------------

    def _world(self, view: View) -> tuple[KernelWorld, int, K.IntArray, Hidden]:
        """The kernel world of one sampled determinization, the bot's kernel seat, a fresh
        kernel random state, and what is hidden from the bot."""
        if view.player is None:
            raise ValueError(f"{self.name} needs a player's view, not a spectator's")
        world = encode_game(Game.sample_world(view, self._rng))
        me = world.index(view.player)
        st = world.state
        mine = st[K.FIXED + me]
        if mine != K.NO_CARD:
            # A card chosen earlier this turn may be changed: it goes back to the hand.
            st[K.HANDS + 10 * me + st[K.HLEN + me]] = mine
            st[K.HLEN + me] += 1
            st[K.FIXED + me] = K.NO_CARD
        rs = K.rng_state(self._rng.getrandbits(63))
        return world, me, rs, hidden_cards(view, world.seats)

    def _spend(self, step: Callable[[int], None], per_step: int) -> int:
        """Call ``step(n)`` (``n`` iterations of ``per_step`` rollouts each) in chunks
        until the budget is spent; returns the rollouts played."""
        warm_up()
        start = time.perf_counter()
        limit = self.budget.rollouts
        seconds = self.budget.seconds
        deadline = None if seconds is None else start + max(seconds - _MARGIN, seconds * 0.5)
        done = 0
        chunk = 4
        while True:
            n = chunk
            if limit is not None:
                n = min(n, (limit - done * per_step + per_step - 1) // per_step)
                if n <= 0:
                    break
            t0 = time.perf_counter()
            step(n)
            done += n
            if deadline is not None:
                now = time.perf_counter()
                left = deadline - now
                if left <= 0:
                    break
                rate = n / max(now - t0, 1e-6)
                chunk = max(1, min(int(rate * left * 0.5), 1 << 16))
            else:
                chunk = min(chunk * 2, 1 << 16)
        self.last_rollouts = done * per_step
        return self.last_rollouts

    def _policies(self, players: int, me: int) -> tuple[K.IntArray, K.FloatArray]:
        """The rollout policy of every kernel seat: random play for all by default."""
        return K.seat_policies(players, K.POLICY_RANDOM, 0.0)

    def choose_card(self, view: View) -> Card:
        """Every legal card played in the same sampled worlds; the least average loss wins."""
        options = tuple(view.options)
        if not options:
            raise ValueError(f"{self.name}: no card decision is pending for this player")
        if len(options) == 1:
            return options[0]
        world, me, rs, h = self._world(view)
        opts = np.array(options, dtype=np.int64)
        pol, noi = self._policies(len(world.seats), me)
        totals = np.zeros(len(opts))
        counts = np.zeros(len(opts))

        def step(n: int) -> None:
            K.flat_card_search(
                world.state, me, opts, h.pool, h.jpool, h.need, h.needj,
                n, pol, noi, totals, counts, rs,
            )

        self._spend(step, len(opts))
        return options[int(np.argmin(totals / np.maximum(counts, 1.0)))]

    def choose_row(self, view: View) -> int:
        """Each row tried in the same sampled worlds (the rest of the turn and the round
        played out by the rollout policies); the row losing least on average."""
        world, me, rs, hidden = self._world(view)
        if len(world.queue_cards) == 0 or world.queue_players[0] != me:
            raise ValueError(f"{self.name}: no row choice is pending for this player")
        pol, noi = self._policies(len(world.seats), me)
        totals = np.zeros(4)
        counts = np.zeros(4)
        h = hidden

        def step(n: int) -> None:
            K.flat_row_search(
                world.state, me, world.queue_players, world.queue_cards,
                h.pool, h.jpool, h.need, h.needj, n, pol, noi, totals, counts, rs,
            )

        self._spend(step, 4)
        means = totals / np.maximum(counts, 1.0)
        return int(np.argmin(means)) + 1

    def draft_card(self, view: View) -> Card:
        """Logic draft, a fast rule rather than a search: the highest card of the pool with
        the fewest bullheads. High cards follow some row at any time and are never too
        low, and cheap cards cost little when a row we start is taken."""
        pool = view.options or view.draft_pool
        if not pool:
            raise ValueError(f"{self.name}: no draft is pending")
        return max(pool, key=lambda c: (-BULLHEADS[c], c))


class MCSBot(_SearchBot):
    """Flat Monte-Carlo with random rollouts, the strongest kind of public bot: for each
    legal card, sampled worlds played out to the end of the round by random cards and
    the default row choice; the card losing least on average wins."""

    name = "mcs"
    description = "flat Monte-Carlo: every card tried in sampled worlds with random rollouts"


class ExpertBot(_SearchBot):
    """Determinized search with common random numbers and smart rollouts.

    Every iteration deals one world consistent with the view and plays each legal
    card in it with the same random numbers, so the cards are compared on the same
    luck; the rest of the round is played by the cheap heuristic for the bot itself
    (a closed-loop plan of its later cards) and by random cards for the others
    (their hands are unknown, and a model that assumes skill mispredicts weak
    players more than it gains against strong ones: see docs/bots.md, where an
    information-set MCTS measured weaker and was dropped).
    """

    name = "expert"
    description = "determinized search, common random numbers, smart rollouts for itself"

    #: The tuning of docs/bots.md, "Search bots and their tuning".
    noise_self = 1.0
    noise_others = 0.0
    policy_self = K.POLICY_SMART
    policy_others = K.POLICY_RANDOM

    def _policies(self, players: int, me: int) -> tuple[K.IntArray, K.FloatArray]:
        pol, noi = K.seat_policies(players, self.policy_others, self.noise_others)
        pol[me] = self.policy_self
        noi[me] = self.noise_self
        return pol, noi
