"""The search bots: ``mcs`` (flat Monte-Carlo) and ``expert`` (flat determinized search).

Both search with the exact rules of their table: the world is sampled by the
engine's own determinizer (:meth:`~nimmt.engine.Game.sample_world`) and encoded for
the fast kernel (:mod:`nimmt.sim.kernel`), which plays every variant's
placement rules (base, tactics, professional, jokers; open, open-hands and
logic change only who knows and chooses what). Inside one decision the kernel
deals the hidden cards again for every rollout, from the cards the bot cannot
have seen, exactly as ``Game.sample_world`` would, so no rollout pays for Python.

The objective is the game (:func:`game_context`): every rollout ends the round,
and the kernel's :func:`~nimmt.sim.kernel.game_value` says what that round
means for the game: the chance to win it given everyone's totals, the limit and
the end mode (exact when the round ends the game, a model of the rounds to come
when it does not), plus a little for finishing ahead of each other player and a
little less for every bullhead. So the bots play safe when they lead, take
chances when only chances can win, and see when the round cannot change the
game's result (then they play the safest card). ``objective = "round"`` makes a
bot count its own bullheads for the round alone, as before.

Budgets: ``Budget(seconds=1.0)`` per decision by default. A ``rollouts``
budget makes a bot deterministic for its seed (a time budget cannot, as the
machine's speed decides how far the search gets). Both limits may be given;
the search stops at the first.
"""

from __future__ import annotations

import functools
import random
import time
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from ..advice import OptionValue
from ..bots.base import Budget
from ..cards import BULLHEADS, MAX_CARD, Card
from ..decisions import DecisionKind
from ..engine import Game
from ..rules import MAX_PLAYERS, MIN_PLAYERS, EndMode, Rules
from ..views import View
from . import kernel as K
from .world import Hidden, KernelWorld, encode_game, hidden_cards

__all__ = ["DEFAULT_BUDGET", "Evaluation", "ExpertBot", "MCSBot", "game_context"]

#: One second per decision.
DEFAULT_BUDGET = Budget(seconds=1.0)

# Time kept back from a seconds budget for sampling, encoding and answering.
_MARGIN = 0.03
#: The share of a seconds budget the search plans to use: the rest absorbs the last
#: chunk's overrun on a busy machine (bench/decision_time.py: a one-second budget at ten
#: players stays under a second with two cores shared by several busy processes).
_SHARE = 0.85
#: The longest a chunk of rollouts is planned to take (seconds), so a decision runs past
#: its deadline by little even when other processes take the CPU mid-chunk.
_SLICE = 0.025

_warm = False


def warm_up() -> None:
    """Compile (or load from numba's cache) every kernel entry point once per process,
    and with the compiled kernel measure the round prior of every table (:func:`round_prior`,
    about 0.6 s for all 68), so that no decision's time budget pays for either.

    Without numba a prior costs about a second of pure Python (a minute for all): it is
    left to the first decision at each kind of table, which then runs past a server's
    deadline (docs/bots.md, "Bots on a server").
    """
    global _warm
    if _warm:
        return
    _warm = True

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
        pol, noise = K.seat_policies(3, K.POLICY_SMART)
        for mode in (K.MODE_ROUND, K.MODE_CLASSIC, K.MODE_ELIMINATION, K.MODE_ROUNDS):
            ctx = game_context(view, world.seats)
            ctx[K.GAME_MODE] = mode
            K.flat_row_search(
                st, 0, qp, qc, np.arange(4, dtype=np.int64), hidden.pool, hidden.jpool,
                hidden.need, hidden.needj, 2, pol, noise, ctx, K.new_stats(4), K.rng_state(0),
            )
    if K.NUMBA:
        for players, deck, jokers, professional in table_shapes():
            round_prior(players, deck, jokers, professional)


def table_shape(rules: Rules, players: int) -> tuple[int, int, bool, bool]:
    """What :func:`round_prior` is asked for a round of ``players`` active players."""
    return players, max(rules.deck(players)), rules.jokers, rules.professional


def table_shapes() -> list[tuple[int, int, bool, bool]]:
    """Every ``(players, deck, jokers, professional)`` a search asks :func:`round_prior`
    for: 2 to 10 active players, the full deck or the tactics deck of that many (10n+4),
    with and without jokers and the professional rule.

    >>> len(table_shapes()), table_shapes()[0]
    (68, (2, 24, False, False))
    """
    return [(n, deck, jokers, pro)
            for n in range(MIN_PLAYERS, MAX_PLAYERS + 1)
            for deck in sorted({10 * n + 4, MAX_CARD})
            for jokers in (False, True) for pro in (False, True)]


# -- the game a round is part of ----------------------------------------------------------

_PRIORS: dict[tuple[int, int, bool, bool], tuple[float, float]] = {}


def round_prior(players: int, deck: int, jokers: bool, professional: bool) -> tuple[float, float]:
    """Mean and spread of one player's bullheads over one round at such a table.

    Measured once per process in the kernel (500 rounds in which every seat plays
    each card by the heuristic or at random, even odds): a player of unknown
    skill. A player's own rounds so far then move their mean (see
    :func:`game_context`).
    """
    key = (players, deck, jokers, professional)
    if key not in _PRIORS:
        pol, noise = K.seat_policies(players, K.POLICY_MIXED, 1.0)
        pen = K.simulate_rounds(500, players, deck, jokers, professional, pol, noise,
                                K.rng_state(players * 1000 + deck))
        _PRIORS[key] = (float(pen.mean()), float(pen.std()))
    return _PRIORS[key]


def game_context(
    view: View,
    seats: tuple[int, ...],
    *,
    objective: str = "game",
    pair: float = 0.25,
    share: float = 0.5,
    prior_rounds: float = 2.0,
) -> K.FloatArray:
    """The kernel's picture of the game around this round (``ctx`` of the searches).

    ``seats`` are the kernel's seats (the active players). Each player's expected
    bullheads per later round is the table's prior (:func:`round_prior`) moved
    towards their own rounds so far, as if the prior were ``prior_rounds`` rounds
    already played. ``pair`` weighs finishing ahead of each other player against
    winning; ``share`` how much of the others' bullheads in a rollout counts (they
    come from a crude model of their play). ``objective="round"`` rates the round's
    own bullheads alone.
    """
    rules: Rules = view.rules
    ctx = np.zeros(K.GAME_SIZE, dtype=np.float64)
    n = len(seats)
    if objective == "round":
        ctx[K.GAME_MODE] = K.MODE_ROUND
    elif rules.end is EndMode.CLASSIC:
        ctx[K.GAME_MODE] = K.MODE_CLASSIC
    elif rules.end is EndMode.ELIMINATION:
        ctx[K.GAME_MODE] = K.MODE_ELIMINATION
    else:
        ctx[K.GAME_MODE] = K.MODE_ROUNDS
        ctx[K.GAME_LEFT] = max((rules.rounds or 1) - view.round, 0)
    ctx[K.GAME_LIMIT] = rules.limit
    mean, sigma = round_prior(*table_shape(rules, n))
    ctx[K.GAME_SIGMA] = sigma
    ctx[K.GAME_PAIR] = pair
    ctx[K.GAME_SHARE] = share
    played = max(view.round - 1, 0)
    for k, seat in enumerate(seats):
        total = view.scores[seat]
        ctx[K.GAME_TOTAL + k] = total
        # Starting scores (a game resumed with totals) would count as rounds played:
        # only a seat's rounds in this game move its mean.
        ctx[K.GAME_MEAN + k] = (prior_rounds * mean + total) / (prior_rounds + played)
    return ctx


@dataclass(frozen=True, slots=True)
class Evaluation:
    """What one search found: every option's :class:`~nimmt.advice.OptionValue` (in the
    order of the view's options), the option chosen, and whether the round can still
    change the game's result (``decided``: it cannot, so the safest option was taken)."""

    kind: DecisionKind
    options: tuple[OptionValue, ...]
    best: int
    decided: bool
    game: bool  #: rated by the game (True) or by the round's bullheads alone

    def ranked(self) -> tuple[OptionValue, ...]:
        """The options, the chosen one first, then by the search's score."""
        return tuple(sorted(self.options, key=lambda o: (o.option != self.best, -o.value)))


class _SearchBot:
    """What both search bots share: the budget, the seeded randomness, the encoding."""

    name = "search"
    description = "a search bot"

    #: What the search rates: ``"game"`` (its end mode, totals and limit) or ``"round"``.
    objective = "game"
    #: Weight of finishing ahead of each other player, against winning the game.
    pair_weight = 0.25
    #: How much of the others' bullheads in a rollout the game model believes.
    share_others = 0.5
    #: The prior of a player's bullheads per round counts as this many rounds.
    prior_rounds = 2.0
    #: Score lost per expected bullhead: among options equal for the game, the safest.
    bullhead_weight = 0.002
    #: Win chances this close over every rollout and option: the round cannot matter.
    decided_within = 1e-3

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

    def _spend(
        self, step: Callable[[int], None], per_step: int, limit: int | None,
        deadline: float | None,
    ) -> int:
        """Call ``step(n)`` (``n`` iterations of ``per_step`` rollouts each) in chunks until
        ``limit`` rollouts are played or ``deadline`` passes (at least one iteration);
        returns the rollouts played."""
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
                # Half the time left, but never more than a short slice: on a busy machine
                # the rate can drop several times over within a chunk, and the deadline is
                # only looked at between chunks.
                chunk = max(1, min(int(rate * min(left * 0.5, _SLICE)), 1 << 16))
            else:
                chunk = min(chunk * 2, 1 << 16)
        return done * per_step

    #: Successive halving: the options are searched in rounds, each with an equal part
    #: of the budget, and after each the worse half is dropped, so that the budget goes
    #: where the choice is close. ``False``: every option gets the same share.
    halving = False

    def _search(
        self, run: Callable[[K.IntArray, int, K.FloatArray], None], k: int,
        stats: K.FloatArray,
    ) -> K.IntArray:
        """Spend the budget on ``k`` options: ``run(alive, n, sub)`` plays ``n`` iterations
        of the options ``alive`` (indices) into the statistics table ``sub`` (one row per
        alive option), which is then added to ``stats``. Returns the options still in the
        race at the end (all of them without :attr:`halving`)."""
        warm_up()
        start = time.perf_counter()
        limit = self.budget.rollouts
        seconds = self.budget.seconds
        deadline = None if seconds is None else start + max(
            min(seconds - _MARGIN, seconds * _SHARE), seconds * 0.5)
        alive = np.arange(k, dtype=np.int64)
        phases = max(1, (k - 1).bit_length()) if self.halving else 1
        done = 0
        for phase in range(phases):
            part_limit = None
            if limit is not None:
                part_limit = max(len(alive), (limit - done) // (phases - phase))
            part_deadline = None
            if deadline is not None:
                part_deadline = start + (deadline - start) * (phase + 1) / phases
            sub = K.new_stats(len(alive))
            step = functools.partial(_run_part, run, alive, sub)
            done += self._spend(step, len(alive), part_limit, part_deadline)
            _merge(stats, alive, sub)
            if phase < phases - 1:
                score = self._scores(stats)[0][alive]
                keep = (len(alive) + 1) // 2
                order = np.argsort(-score, kind="stable")
                alive = np.sort(alive[order[:keep]])
        self.last_rollouts = done
        return alive

    def _policies(self, players: int, me: int) -> tuple[K.IntArray, K.FloatArray]:
        """The rollout policy of every kernel seat: random play for all by default."""
        return K.seat_policies(players, K.POLICY_RANDOM, 0.0)

    def _context(self, view: View, seats: tuple[int, ...]) -> K.FloatArray:
        return game_context(
            view,
            seats,
            objective=self.objective,
            pair=self.pair_weight,
            share=self.share_others,
            prior_rounds=self.prior_rounds,
        )

    def _scores(self, stats: K.FloatArray) -> tuple[K.FloatArray, K.FloatArray]:
        """Each option's score (higher is better) and expected bullheads."""
        count = np.maximum(stats[:, K.S_COUNT], 1.0)
        bull = stats[:, K.S_BULL] / count
        if self.objective == "game":
            return stats[:, K.S_VALUE] / count - self.bullhead_weight * bull, bull
        return -bull, bull

    def _conclude(
        self, kind: DecisionKind, options: tuple[int, ...], stats: K.FloatArray, game: bool,
        alive: K.IntArray | None = None,
    ) -> Evaluation:
        """The options' values from the search's statistics, and the choice.

        The score is the mean game value (win chance plus the pair weight times
        the share of players finished ahead of) less ``bullhead_weight`` per
        expected bullhead; rating the round alone, minus the expected bullheads.
        When no rollout of any option moved the win chance (it is all but 0 or 1
        whatever happens), the round cannot change the result: the option with
        the fewest expected bullheads is chosen and ``decided`` is set. Otherwise
        the best score among the options still ``alive`` after halving wins.
        """
        count = np.maximum(stats[:, K.S_COUNT], 1.0)
        score, bull = self._scores(stats)
        decided = False
        if game:
            lo = float(stats[:, K.S_WIN_MIN].min())
            hi = float(stats[:, K.S_WIN_MAX].max())
            decided = bool(hi - lo <= self.decided_within and stats[:, K.S_COUNT].min() > 0)
        if alive is None:
            alive = np.arange(len(options), dtype=np.int64)
        best_i = int(np.argmin(bull) if decided else alive[int(np.argmax(score[alive]))])
        win = stats[:, K.S_WIN] / count
        values = tuple(
            OptionValue(
                option=int(o),
                bullheads=float(bull[i]),
                sixth=float(stats[i, K.S_SIXTH] / count[i]),
                too_low=float(stats[i, K.S_LOW] / count[i]),
                win=float(win[i]) if game else None,
                value=float(score[i]),
                rollouts=int(stats[i, K.S_COUNT]),
            )
            for i, o in enumerate(options)
        )
        return Evaluation(kind, values, int(options[best_i]), decided, game)

    def evaluate(self, view: View) -> Evaluation:
        """Search the decision pending for ``view.player`` (a card or a row) and rate every
        option; :meth:`choose_card` and :meth:`choose_row` answer its ``best``.

        Hints and post-game analysis call this directly (``nimmt.sim.advice``).
        """
        pending = view.pending
        if pending is not None and pending.kind is DecisionKind.ROW:
            return self._evaluate_row(view)
        return self._evaluate_card(view)

    def _evaluate_card(self, view: View) -> Evaluation:
        options = tuple(view.options)
        if not options:
            raise ValueError(f"{self.name}: no card decision is pending for this player")
        world, me, rs, h = self._world(view)
        opts = np.array(options, dtype=np.int64)
        pol, noi = self._policies(len(world.seats), me)
        ctx = self._context(view, world.seats)
        stats = K.new_stats(len(opts))

        def run(alive: K.IntArray, n: int, sub: K.FloatArray) -> None:
            K.flat_card_search(
                world.state, me, opts[alive], h.pool, h.jpool, h.need, h.needj,
                n, pol, noi, ctx, sub, rs,
            )

        alive = self._search(run, len(opts), stats)
        game = self.objective == "game"
        return self._conclude(DecisionKind.CARD, options, stats, game, alive)

    def _evaluate_row(self, view: View) -> Evaluation:
        world, me, rs, hidden = self._world(view)
        if len(world.queue_cards) == 0 or world.queue_players[0] != me:
            raise ValueError(f"{self.name}: no row choice is pending for this player")
        pol, noi = self._policies(len(world.seats), me)
        ctx = self._context(view, world.seats)
        stats = K.new_stats(4)
        h = hidden
        queue_p = world.queue_players
        queue_c = world.queue_cards

        def run(alive: K.IntArray, n: int, sub: K.FloatArray) -> None:
            K.flat_row_search(
                world.state, me, queue_p, queue_c, alive, h.pool, h.jpool, h.need, h.needj,
                n, pol, noi, ctx, sub, rs,
            )

        alive = self._search(run, 4, stats)
        game = self.objective == "game"
        return self._conclude(DecisionKind.ROW, (1, 2, 3, 4), stats, game, alive)

    def choose_card(self, view: View) -> Card:
        """Every legal card played in the same sampled worlds; the best for the game wins."""
        options = tuple(view.options)
        if len(options) == 1:
            return options[0]
        return self._evaluate_card(view).best

    def choose_row(self, view: View) -> int:
        """Each row tried in the same sampled worlds (the rest of the turn and the round
        played out by the rollout policies); the best for the game wins."""
        return self._evaluate_row(view).best

    def draft_card(self, view: View) -> Card:
        """Logic draft, a fast rule rather than a search: the highest card of the pool with
        the fewest bullheads. High cards follow some row at any time and are never too
        low, and cheap cards cost little when a row we start is taken."""
        pool = view.options or view.draft_pool
        if not pool:
            raise ValueError(f"{self.name}: no draft is pending")
        return max(pool, key=lambda c: (-BULLHEADS[c], c))


def _run_part(
    run: Callable[[K.IntArray, int, K.FloatArray], None], alive: K.IntArray,
    sub: K.FloatArray, n: int,
) -> None:
    run(alive, n, sub)


def _merge(stats: K.FloatArray, rows: K.IntArray, sub: K.FloatArray) -> None:
    """Add the statistics ``sub`` of the options ``rows`` to ``stats``."""
    mins = (K.S_WIN_MIN,)
    maxs = (K.S_WIN_MAX,)
    for j, i in enumerate(rows):
        for c in range(K.NSTATS):
            if c in mins:
                stats[i, c] = min(stats[i, c], sub[j, c])
            elif c in maxs:
                stats[i, c] = max(stats[i, c], sub[j, c])
            else:
                stats[i, c] += sub[j, c]


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

    halving = True

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
