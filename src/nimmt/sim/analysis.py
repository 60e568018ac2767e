"""Post-game analysis: every decision of a game record, as the expert sees it.

:func:`analyse` replays a record (verifying it first) and, at every card and row
decision, asks the expert's search for the expected cost of each option from
the deciding seat's view at that moment (what that player could know, nothing
more). The result is a :class:`~nimmt.advice.GameReview`: each decision's
options, what the player gave away against the expert's choice, the few
costliest decisions, and a summary per player. It is a plain value with
``to_dict()``; :meth:`nimmt.narrate.Narrator.review_sentences` says it in a
few sentences in the reader's language. ``nimmt analyse game.json`` prints it;
the results page and the replay viewer call :func:`analyse` (or
:func:`analyse_game` for a finished :class:`~nimmt.engine.Game` in memory).

The search uses a rollouts budget and a seed per decision derived from
``seed``, so the same record, seed and budget give the same review on any
machine. The ``logic`` draft is played by a rule, not searched, so drafts are
not reviewed; neither is a card decision with one legal card.

Time can be bounded too (a server does, since a stranger may ask): at most
``decision_seconds`` of search per decision, and at most ``seconds`` for the
whole review. A decision's search stops at its seconds; when the review's
seconds run out, the decisions not yet reviewed are left out and counted
(:attr:`~nimmt.advice.GameReview.unreviewed`), and the review is *partial*: the
game's first decisions, summarised as usual. A review whose rollouts all fit in
its time is the same as without the limits.

>>> from nimmt import Rules
>>> from nimmt.bots.play import play_game
>>> game = play_game(Rules.preset("classic", 3, limit=20), ["cheapest"] * 3, seed=1)
>>> review = analyse_game(game, ["Ana", "Bob", "Cleo"], rollouts=60)
>>> review.players[0].name, len(review.costliest) <= 3
('Ana', True)
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence

from ..advice import DecisionReview, GameReview, PlayerReview
from ..bots.base import Budget
from ..deals import Deal
from ..decisions import Decision, DecisionKind
from ..engine import Game
from ..record import Record, decision_from_record, record_from_game, replay
from ..rules import Rules
from ..views import View
from .advice import advice_from
from .search import ExpertBot

__all__ = ["ANALYSIS_ROLLOUTS", "analyse", "analyse_game"]

#: Rollouts per decision: steady enough to rank the costliest decisions of a game,
#: about ten seconds for a whole game of four players.
ANALYSIS_ROLLOUTS = 2000


def _seed(seed: int, index: int) -> int:
    """A seed of its own for the search of decision ``index``."""
    return (seed * 1_000_003 + index * 7919 + 17) & 0xFFFFFFFFFFFF


def analyse(
    record: Record,
    *,
    seed: int = 0,
    rollouts: int = ANALYSIS_ROLLOUTS,
    top: int = 3,
    seconds: float | None = None,
    decision_seconds: float | None = None,
    clock: Callable[[], float] = time.perf_counter,
) -> GameReview:
    """Review every card and row decision of ``record`` with the expert's search.

    ``top`` is how many of the costliest decisions to single out; ``rollouts``
    the search budget per decision, ``decision_seconds`` its time limit (none:
    the rollouts alone); ``seconds`` the time limit of the whole review, read on
    ``clock`` (none: every decision is reviewed). Raises
    :class:`~nimmt.errors.RecordError` when the record does not replay.
    """
    final = replay(record)
    rules = Rules.from_dict(record.rules.model_dump())
    game = Game(rules, scores=record.start_scores)
    deadline = None if seconds is None else clock() + seconds
    reviews: list[DecisionReview] = []
    unreviewed = 0
    index = 0
    for rnd in record.rounds:
        game.deal(Deal(rnd.deal.rows, rnd.deal.hands, rnd.deal.pool))
        for entry in rnd.decisions:
            decision = decision_from_record(entry)
            view = _reviewable(game, decision)
            if view is not None:
                left = None if deadline is None else deadline - clock()
                if left is not None and left <= 0:
                    unreviewed += 1  # the time is up: the rest is only counted
                else:
                    limit = _least(decision_seconds, left)
                    budget = Budget(rollouts=rollouts, seconds=limit)
                    reviews.append(_review(view, decision, index, seed, budget))
            game.decide(decision)
            index += 1
    return _summarise(reviews, record.players, final, seed, rollouts, top, unreviewed)


def analyse_game(
    game: Game,
    names: Sequence[str] | None = None,
    *,
    seed: int = 0,
    rollouts: int = ANALYSIS_ROLLOUTS,
    top: int = 3,
) -> GameReview:
    """:func:`analyse` for a game in memory (it must hold its history from the first deal)."""
    return analyse(record_from_game(game, names), seed=seed, rollouts=rollouts, top=top)


def _least(a: float | None, b: float | None) -> float | None:
    """The smaller of two limits, where ``None`` is no limit."""
    if a is None:
        return b
    return a if b is None else min(a, b)


def _reviewable(game: Game, decision: Decision) -> View | None:
    """The deciding seat's view when ``decision`` is reviewed: not a draft (a rule plays
    it), and not a card decision with one legal card."""
    if decision.kind is DecisionKind.DRAFT:
        return None
    view = game.view(decision.player)
    if decision.kind is DecisionKind.CARD and len(view.options) < 2:
        return None
    return view


def _review(
    view: View, decision: Decision, index: int, seed: int, budget: Budget
) -> DecisionReview:
    """The expert's view of one decision, made from the deciding seat's view."""
    bot = ExpertBot(_seed(seed, index), budget)
    advice = advice_from(view, bot.evaluate(view))
    played = advice.option(decision.value)
    best = advice.option(advice.best)
    loss = max(best.value - played.value, 0.0) if decision.value != advice.best else 0.0
    win_lost = None
    if best.win is not None and played.win is not None:
        win_lost = best.win - played.win
    return DecisionReview(
        index=index,
        played=decision.value,
        advice=advice,
        loss=loss,
        extra=played.bullheads - best.bullheads,
        win_lost=win_lost,
    )


def _summarise(
    reviews: list[DecisionReview],
    names: Sequence[str],
    final: Game,
    seed: int,
    rollouts: int,
    top: int,
    unreviewed: int,
) -> GameReview:
    players = []
    for seat, name in enumerate(names):
        mine = [r for r in reviews if r.seat == seat]
        players.append(
            PlayerReview(
                seat=seat,
                name=name,
                decisions=len(mine),
                agreed=sum(1 for r in mine if r.played == r.advice.best),
                extra=sum(max(r.extra, 0.0) for r in mine if r.played != r.advice.best),
                total=final.scores[seat],
            )
        )
    costly = sorted((r for r in reviews if r.loss > 0.0), key=lambda r: (-r.loss, r.index))
    return GameReview(
        players=tuple(players),
        names=tuple(names),
        decisions=tuple(reviews),
        costliest=tuple(costly[:top]),
        winners=final.winners,
        seed=seed,
        rollouts=rollouts,
        unreviewed=unreviewed,
    )
