"""Advice and reviews (:mod:`nimmt.advice`) in words: a hint with its reason, a finished
game's review, expected costs and chances, and why an analysis is not given."""

from __future__ import annotations

import math
from collections.abc import Sequence

from ..advice import Advice, DecisionReview, GameReview, Reason
from ..decisions import DecisionKind
from .base import Vocabulary


class AdviceSentences(Vocabulary):
    """What the expert says to the player who asked, and after a game."""

    def about_bullheads(self, amount: float) -> str:
        """An expected number of bullheads, said in whole bullheads: ``"about 4 bullheads"``,
        or ``"almost nothing"`` below half a bullhead."""
        if not math.isfinite(amount) or amount < 0.5:
            # TRANSLATORS: an expected cost below half a bullhead.
            return self._("almost nothing")
        return self._n("about {count} bullhead", "about {count} bullheads", int(amount + 0.5))

    def percent(self, chance: float) -> str:
        """A chance as a whole percentage: ``"38 percent"``."""
        return self._n("{count} percent", "{count} percent", int(chance * 100 + 0.5))

    def advice_sentence(self, advice: Advice) -> str:
        """A hint: the advised option and the reason, for the player who asked.

        Costs are the expected bullheads of the rest of the round, in whole
        bullheads; the reason names the next best option and what it risks.
        """
        _ = self._
        kind = advice.kind
        best = advice.best
        cost = self.about_bullheads(advice.cost)
        alt = advice.alternative
        risk = self.about_bullheads(advice.risk)
        reason = advice.reason
        if kind is DecisionKind.DRAFT:
            # TRANSLATORS: the logic draft; the advice is a rule of thumb, not a search.
            return _("Draft {card}: a high card with few bullheads is never too low.").format(
                card=self.card(best)
            )
        if kind is DecisionKind.ROW:
            joker = advice.card is not None and advice.card < 0
            if reason is Reason.DECIDED:
                if joker:
                    text = _(
                        "Put your {card} on row {row}, the safest choice: "
                        "this round cannot change the result of the game."
                    )
                    return text.format(card=self.card(advice.card or 0), row=best)
                text = _(
                    "Take row {row}, the cheapest choice: "
                    "this round cannot change the result of the game."
                )
                return text.format(row=best)
            if reason is Reason.GAME:
                chance = self.percent(advice.option(best).win or 0.0)
                if joker:
                    text = _(
                        "Put your {card} on row {row}: it gives you the best chance to win the "
                        "game, {chance}. Expected cost: {cost}."
                    )
                    return text.format(
                        card=self.card(advice.card or 0), row=best, chance=chance, cost=cost
                    )
                text = _(
                    "Take row {row}: it gives you the best chance to win the game, {chance}. "
                    "Expected cost: {cost}."
                )
                return text.format(row=best, chance=chance, cost=cost)
            if joker:
                text = _("Put your {card} on row {row}, expected cost: {cost}. Row {alt}: {risk}.")
                return text.format(
                    card=self.card(advice.card or 0), row=best, cost=cost, alt=alt, risk=risk
                )
            text = _("Take row {row}, expected cost: {cost}. Row {alt}: {risk}.")
            return text.format(row=best, cost=cost, alt=alt, risk=risk)
        card = self.card(best)
        if reason is Reason.ONLY:
            return _("Play {card}: it is the only card you can play.").format(card=card)
        if reason is Reason.DECIDED:
            text = _(
                "Play {card}, your safest card: this round cannot change the result of the game."
            )
            return text.format(card=card)
        if reason is Reason.GAME:
            chance = self.percent(advice.option(best).win or 0.0)
            text = _(
                "Play {card}: it gives you the best chance to win the game, {chance}. "
                "Expected cost: {cost}."
            )
            return text.format(card=card, chance=chance, cost=cost)
        other = self.card(alt) if alt is not None else "?"
        if reason is Reason.SIXTH:
            # TRANSLATORS: {alt} is the next best card; {risk} e.g. "about 4 bullheads".
            text = _(
                "Play {card}, expected cost: {cost}. "
                "{alt} may be the sixth card of its row: {risk}."
            )
        elif reason is Reason.TOO_LOW:
            text = _(
                "Play {card}, expected cost: {cost}. "
                "{alt} may be lower than every row, and then you take one: {risk}."
            )
        elif reason is Reason.LATER:
            text = _(
                "Play {card}, expected cost: {cost}. "
                "{alt} is safe now but costs more later in the round: {risk}."
            )
        else:
            text = _("Play {card}, expected cost: {cost}; {alt} is almost as good.")
        return text.format(card=card, cost=cost, alt=other, risk=risk)

    def review_sentences(
        self, review: GameReview, viewer: int | None = None, names: Sequence[str] | None = None
    ) -> list[str]:
        """A finished game in a few sentences: each player's summary, then the costliest
        decisions with what the expert would have played (short enough to listen to).
        A partial review (its time ran out) says so first.

        ``names`` default to the review's; ``viewer`` is spoken to as "you".
        """
        _ = self._
        seat_names = list(names if names is not None else review.names)
        out: list[str] = []
        if review.partial:
            out.append(self._n(
                "The time for the analysis ran out: it covers the first {count} decision.",
                "The time for the analysis ran out: it covers the first {count} decisions.",
                len(review.decisions)))
        for p in review.players:
            who = self.player(p.seat, seat_names, viewer)
            text = _(
                "{name}: {agreed} of {count} decisions as the expert would choose. "
                "Given away: {extra}."
            )
            out.append(
                text.format(
                    name=who, agreed=p.agreed, count=p.decisions,
                    extra=self.about_bullheads(p.extra),
                )
            )
        if not review.costliest:
            out.append(_("Every decision matched the expert's choice."))
            return out
        out.append(_("The costliest decisions:"))
        for d in review.costliest:
            out.append(self.decision_review_sentence(d, seat_names, viewer))
        return out

    def decision_review_sentence(
        self, review: DecisionReview, names: Sequence[str], viewer: int | None = None
    ) -> str:
        """One reviewed decision: what was played, what the expert would play, and the
        expected bullheads (and win chances, where the game was rated) of both."""
        _ = self._
        advice = review.advice
        fields: dict[str, object] = {
            "round": advice.round,
            "turn": advice.turn,
            "name": self.player(review.seat, names),
            "cost": self.about_bullheads(advice.option(review.played).bullheads),
            "best_cost": self.about_bullheads(advice.option(advice.best).bullheads),
        }
        you = viewer is not None and review.seat == viewer
        if advice.kind is DecisionKind.ROW:
            fields.update(played=review.played, best=advice.best)
            if you:
                text = _(
                    "Round {round}, turn {turn}: you take row {played}, the expert would take "
                    "row {best}. Expected cost: {cost}; with the expert's choice: {best_cost}."
                )
            else:
                text = _(
                    "Round {round}, turn {turn}: {name} takes row {played}, the expert would "
                    "take row {best}. Expected cost: {cost}; with the expert's choice: {best_cost}."
                )
        else:
            fields.update(played=self.card(review.played), best=self.card(advice.best))
            if you:
                text = _(
                    "Round {round}, turn {turn}: you play {played}, the expert would play "
                    "{best}. Expected cost: {cost}; with the expert's choice: {best_cost}."
                )
            else:
                text = _(
                    "Round {round}, turn {turn}: {name} plays {played}, the expert would play "
                    "{best}. Expected cost: {cost}; with the expert's choice: {best_cost}."
                )
        sentence = text.format(**fields)
        played_win = advice.option(review.played).win
        best_win = advice.option(advice.best).win
        if played_win is not None and best_win is not None and (review.win_lost or 0) >= 0.005:
            text = _("Chance to win: {chance}; with the expert's choice: {best_chance}.")
            sentence += " " + text.format(
                chance=self.percent(played_win), best_chance=self.percent(best_win)
            )
        return sentence
    def analysis_refusal(self, status: int, wait: float | None = None) -> str:
        """Why a game's analysis is not given (the HTTP status of ``/api/games/{id}/analysis``),
        with the seconds to wait before asking again when the server said them."""
        if status == 404:
            return self._("This game cannot be found.")
        if status == 409:
            return self._("The game was not finished, so there is nothing to analyse.")
        if status in (429, 503):
            if wait is None:
                return self._("The expert is busy. Please try again in a minute.")
            return self._n("The expert is busy. Please try again in about {count} second.",
                           "The expert is busy. Please try again in about {count} seconds.",
                           max(1, math.ceil(wait)))
        return self._("Something went wrong; please try again.")
