"""Hints: the expert's advice on the decision a player faces, from that player's view.

:func:`advise` is the one entry point a client needs (the hint key of the web
and terminal clients, through the server): it takes a :class:`~nimmt.View` and
nothing else, so it cannot use what the player could not know (a test plays
pairs of games that differ only in what the seat cannot see and checks that the
advice is the same). It runs the expert's own search
(:meth:`ExpertBot.evaluate <nimmt.sim.search.ExpertBot.evaluate>`) and returns
an :class:`~nimmt.advice.Advice`: the advised option, every option's expected
bullheads and win chance, and the reason a hint speaks of, which
:meth:`nimmt.narrate.Narrator.advice_sentence` says in the player's language:

>>> from nimmt import Game, Rules
>>> from nimmt.narrate import narrator
>>> game = Game(Rules.preset("classic", 4), seed=3)
>>> advice = advise(game.view(0), seed=1, budget=Budget(rollouts=400))
>>> advice.best in game.view(0).options
True
>>> narrator("en").advice_sentence(advice).startswith("Play ")
True

The budget defaults to :data:`HINT_BUDGET`: a fixed number of rollouts (so the
same view and seed give the same advice on any machine) capped at one second.
"""

from __future__ import annotations

import math

from ..advice import Advice, OptionValue, Reason
from ..bots.base import Budget
from ..decisions import DecisionKind
from ..views import View
from .search import Evaluation, ExpertBot

__all__ = ["HINT_BUDGET", "advice_from", "advise"]

#: Enough rollouts for a steady answer in about a tenth of a second at 4 players,
#: never more than a second.
HINT_BUDGET = Budget(rollouts=6000, seconds=1.0)

#: How many of the next best options a hint looks at for the risk it names.
_TEMPTING = 3


def advise(view: View, *, seed: int = 0, budget: Budget | None = None) -> Advice:
    """The expert's advice on the decision pending for ``view.player``.

    Card and row choices are searched; a ``logic`` draft is answered by the
    expert's draft rule. Raises :class:`ValueError` when nothing is pending for
    the viewer (or the view is a spectator's).
    """
    pending = view.pending
    if view.player is None or pending is None or view.player not in pending.players:
        raise ValueError("advice needs the view of a player whose decision is pending")
    bot = ExpertBot(seed, budget or HINT_BUDGET)
    if pending.kind is DecisionKind.DRAFT:
        best = bot.draft_card(view)
        nothing = OptionValue(best, math.nan, math.nan, math.nan, None, math.nan, 0)
        others = tuple(
            OptionValue(c, math.nan, math.nan, math.nan, None, math.nan, 0)
            for c in view.options
            if c != best
        )
        return Advice(
            DecisionKind.DRAFT, view.player, view.round, view.turn, best, (nothing, *others),
            Reason.RULE, None, math.nan, math.nan, False,
        )
    if pending.kind is DecisionKind.CARD and len(view.options) == 1:
        only = view.options[0]
        value = OptionValue(only, math.nan, math.nan, math.nan, None, math.nan, 0)
        return Advice(
            DecisionKind.CARD, view.player, view.round, view.turn, only, (value,),
            Reason.ONLY, None, math.nan, math.nan, False,
        )
    return advice_from(view, bot.evaluate(view))


def _shown(bullheads: float) -> int:
    """Bullheads as a hint says them: whole, rounded half up (as the narration rounds)."""
    return int(bullheads + 0.5)


def advice_from(view: View, evaluation: Evaluation) -> Advice:
    """An :class:`~nimmt.advice.Advice` from a search's :class:`~nimmt.sim.search.Evaluation`
    of ``view``'s pending decision: the reason a hint gives, and its numbers.

    The reason is the one fact a hint tells. When the round cannot change the
    game's result: that. When an option with fewer expected bullheads was passed
    over because the advised one serves the game better: the win chance. For a
    row: the next best row's expected cost. For a card: among the next best few
    cards, the one risking most at once, as a sixth card or as a too-low card
    (with that expected loss); if none risks half a bullhead, the next best card,
    either as costing more later in the round or as almost as good.
    """
    assert view.player is not None
    pending = view.pending
    ranked = evaluation.ranked()
    best = ranked[0]
    others = ranked[1:]
    reason: Reason
    alternative: int | None = None
    risk = math.nan
    cheapest = min(ranked, key=lambda o: o.bullheads)
    if evaluation.decided:
        reason = Reason.DECIDED
    elif not others:
        reason = Reason.ONLY
    elif evaluation.game and _shown(cheapest.bullheads) < _shown(best.bullheads):
        # Fewer bullheads were on offer: the advice serves the game, and says so.
        reason, alternative, risk = Reason.GAME, cheapest.option, cheapest.bullheads
    elif evaluation.kind is DecisionKind.ROW:
        reason, alternative, risk = Reason.ROW, others[0].option, others[0].bullheads
    else:
        # The most tempting alternatives (the next best few): the one that risks most
        # at once, as a sixth card or a too-low card; else the next best, for later.
        tempting = max(others[:_TEMPTING], key=lambda o: o.sixth + o.too_low)
        runner = others[0]
        if _shown(tempting.sixth + tempting.too_low) > 0:
            alternative = tempting.option
            if tempting.sixth >= tempting.too_low:
                reason, risk = Reason.SIXTH, tempting.sixth
            else:
                reason, risk = Reason.TOO_LOW, tempting.too_low
        elif _shown(runner.bullheads) > _shown(best.bullheads):
            reason, alternative, risk = Reason.LATER, runner.option, runner.bullheads
        else:
            reason, alternative, risk = Reason.CLOSE, runner.option, runner.bullheads
    card = pending.card if pending is not None and evaluation.kind is DecisionKind.ROW else None
    return Advice(
        evaluation.kind,
        view.player,
        view.round,
        view.turn,
        best.option,
        ranked,
        reason,
        alternative,
        risk,
        best.bullheads,
        evaluation.decided,
        card,
    )
