"""The ladder's simple bots: random, cheapest, and two heuristics.

Each bot is seeded (``random.Random(seed)``) and deterministic for a given
seed; each sees only the :class:`~nimmt.engine.View` it is handed, and every
answer is one of ``view.options``, so they play legally in every preset,
variant and end mode. None of them searches, so the think-time ``budget`` is
accepted (for a common constructor) and ignored.

- ``random``: the floor of the ladder.
- ``cheapest``: random card, cheapest row; the published research baseline.
- ``beginner``: plays like someone in their first games: plausible, not random.
- ``lowrisk``: rule of thumb without memory: land safely with room to spare.
- ``dodger``: counts cards and estimates, for each card, the chance of being
  the sixth or of taking a row, and plays the cheapest expectation.

:class:`DefaultPlayer` is not on the ladder: it is who plays for a seat whose
bot failed or whose person is absent (docs/rules.md §5).
"""

from __future__ import annotations

import random

from ..cards import Card
from ..defaults import default_row
from ..rows import Row, end_value, play, row_bullheads, start_value, target
from ..rules import ROW_CAPACITY
from ..views import View
from .base import Budget
from .table import opponents, resolve, unseen_cards

__all__ = [
    "BeginnerBot",
    "CheapestBot",
    "DefaultPlayer",
    "DodgerBot",
    "LowRiskBot",
    "RandomBot",
]


class _Seeded:
    """Common constructor of the ladder: a seed and an (unused) budget."""

    name = "bot"
    description = ""

    def __init__(self, seed: int = 0, budget: Budget | None = None) -> None:
        self.seed = seed
        self.budget = budget
        self.rng = random.Random(seed)

    def __repr__(self) -> str:
        return f"{type(self).__name__}(seed={self.seed})"


class RandomBot(_Seeded):
    """Uniformly random legal choices: the floor of the ladder."""

    name = "random"
    description = "plays a random card, takes a random row, drafts a random card"

    def choose_card(self, view: View) -> Card:
        return self.rng.choice(view.options)

    def choose_row(self, view: View) -> int:
        return self.rng.choice(view.options)

    def draft_card(self, view: View) -> Card:
        return self.rng.choice(view.options)


class CheapestBot(RandomBot):
    """Random card, default row: the baseline of the published 6 nimmt! bot studies."""

    name = "cheapest"
    description = (
        "plays a random card and takes the cheapest row (fewest bullheads, the default choice)"
    )

    def choose_row(self, view: View) -> int:
        return default_row(view.rows)


class BeginnerBot(_Seeded):
    """Plays like a person in their first games: plausible moves, the usual mistakes.

    What new players do, as seen at real tables: they look at the rows, not at
    the cards already played; they like to get rid of their low cards early;
    they put a card right after a row end when they see one; they notice a card
    that would be a row's sixth only some of the time (:attr:`notice`); they do
    not count cards or think about the others' hands; and they take the row
    with the fewest bullheads, or now and then the one with the fewest cards
    (:attr:`short_row`). Every choice carries some noise, so it never plays the
    same game twice. A joker is played when nothing looks safe, or at random
    now and then. Drafts (``logic``): one of the higher cards of the pool.
    """

    name = "beginner"
    description = (
        "plays like a new player: low cards early, a card right after a row end, "
        "sees a sixth card only sometimes, does not count cards"
    )

    #: How often the bot sees that a card would be a row's sixth.
    notice = 0.6
    #: How often it takes the row with the fewest cards instead of the fewest bullheads.
    short_row = 0.2

    def choose_card(self, view: View) -> Card:
        rng = self.rng
        rows = view.rows
        early = view.turn <= 3
        cheapest = min(row_bullheads(r) for r in rows)
        best_card = view.options[0]
        best_cost = None
        for card in view.options:
            if card < 0:
                cost = 3.0 if rng.random() < 0.8 else 0.0
            else:
                land = view.target(card)
                if land.row is None:
                    # Too low: a beginner sees it takes a row, and likes to dump low
                    # cards early on anyway.
                    cost = cheapest * (0.4 if early else 0.8) + 1.0
                elif land.sixth and rng.random() < self.notice:
                    cost = 5.0 + row_bullheads(rows[land.row - 1])
                else:
                    # A card close to a row end looks safe; a far one less so.
                    cost = min(land.gap, 20) / 8.0
                if early:
                    cost += card / 60.0 - 1.0  # low cards first
            cost += rng.random() * 2.0
            if best_cost is None or cost < best_cost:
                best_card, best_cost = card, cost
        return best_card

    def choose_row(self, view: View) -> int:
        rows = view.rows
        if self.rng.random() < self.short_row:
            return min(range(len(rows)), key=lambda i: (len(rows[i]), i)) + 1
        return default_row(rows)

    def draft_card(self, view: View) -> Card:
        pool = sorted(view.options)
        return self.rng.choice(pool[len(pool) // 2 :])


def _joker_row(view: View) -> int:
    """Row (1..4) for one's own joker: free and out of the way of one's own hand.

    A joker on a row with room costs nothing now. Prefer a row none of our
    number cards would land on (so it does not shorten our own safe rows),
    then the longest such row (it fills up and threatens the others), then
    the cheapest. With every row full the joker takes one: the cheapest.
    """
    rows = view.rows
    open_rows = [i for i, r in enumerate(rows) if len(r) < ROW_CAPACITY]
    if not open_rows:
        return default_row(rows)
    mine = {view.target(c).row for c in view.hand if c >= 0}
    best = min(
        open_rows,
        key=lambda i: (i + 1 in mine, -len(rows[i]), row_bullheads(rows[i]), i),
    )
    return best + 1


class LowRiskBot(_Seeded):
    """Rules of thumb, no memory of the cards played.

    Card: among cards that land safely, the one with the most room (the most
    other cards needed before it would be the sixth), then the smallest gap to
    the row end. With no roomy card it dumps its lowest too-low card when a
    row of at most two bullheads waits, plays a joker when it holds one, and
    otherwise the cheapest sure outcome. Row: the cheapest row; a joker goes to
    a row with room that its own cards do not need. Draft: the highest card.
    """

    name = "lowrisk"
    description = (
        "plays the card that lands safely with the most room, avoids sixth cards, "
        "dumps a low card on a cheap row"
    )

    #: A row this cheap is worth taking on purpose with a low card.
    cheap_row = 2

    def choose_card(self, view: View) -> Card:
        rows = view.rows
        options = view.options
        cheapest = min(row_bullheads(r) for r in rows)
        best: tuple[float, ...] | None = None
        best_card = options[0]
        for card in options:
            if card < 0:
                # Free while a row has room; kept for a hand with nothing safe.
                key: tuple[float, ...] = (2, 0, 0, 0)
            else:
                land = view.target(card)
                if land.row is None:
                    key = (1 if cheapest <= self.cheap_row else 3, cheapest, card, 0)
                elif land.sixth:
                    key = (3, row_bullheads(rows[land.row - 1]), card, 0)
                else:
                    room = ROW_CAPACITY - land.length
                    # room 1 means the card is the fifth: one other card before it hurts.
                    tier = 0 if room >= 2 else 2
                    key = (tier, -room, land.gap, card)
            if best is None or key < best:
                best, best_card = key, card
        return best_card

    def choose_row(self, view: View) -> int:
        if view.pending is not None and view.pending.reason == "joker":
            return _joker_row(view)
        return default_row(view.rows)

    def draft_card(self, view: View) -> Card:
        return max(view.options)


class DefaultPlayer(LowRiskBot):
    """The table's stand-in: plays a seat whose bot failed or whose person is absent.

    docs/rules.md §5: when a player does not answer in time, leaves, or (a bot)
    answers wrongly, the table plays for them with the default player, and
    says so. It must be fair to whoever it stands in for, so it does not play
    a random card: it plays the ``lowrisk`` rule of thumb (the card that lands
    safely with the most room, no sixth card when avoidable), drafts like
    ``lowrisk`` (the highest card), and takes the default row of
    :func:`nimmt.default_row` for every row choice, jokers included.
    """

    name = "default"
    description = "plays for an absent person or a failed bot: a safe card, the default row"

    def choose_row(self, view: View) -> int:
        return default_row(view.rows)


def _at_least(probs: list[float], k: int) -> float:
    """P(at least ``k`` of independent events with probabilities ``probs`` happen)."""
    if k <= 0:
        return 1.0
    if k > len(probs):
        return 0.0
    dist = [1.0]
    for p in probs:
        nxt = [0.0] * (len(dist) + 1)
        for j, q in enumerate(dist):
            nxt[j] += q * (1 - p)
            nxt[j + 1] += q * p
        dist = nxt
    return sum(dist[k:])


class DodgerBot(_Seeded):
    """Card counting and a one-turn risk estimate for every card.

    It knows which cards are still unseen (or, with public hands, exactly who
    holds what) and resolves the cards already shown this turn (``open``)
    exactly. For a safe card it estimates how many unknown opponent cards
    could slip in before it: if enough do, it would be the sixth and take the
    row. For a too-low card it pays the cheapest row. Among equally safe
    cards a small gap to the row end wins: such a card is safe now, while a
    card far from every row end only grows riskier (measured in the arena: no
    gap term costs about 0.6 bullhead per round against ``cheapest``, a heavy
    one more). A joker costs a little, so it is kept until nothing is safe.
    Row choice: the
    fewest bullheads now plus the danger the new rows pose to its hand, with
    the rest of the turn (already revealed) resolved exactly. Draft: spread
    the hand, preferring high cards.
    """

    name = "dodger"
    description = (
        "counts cards and estimates for each card the risk of being the sixth or too low; "
        "plays the smallest expected penalty"
    )

    def _candidates(self, view: View) -> dict[int, list[Card] | int]:
        """For each opponent still to choose: their possible cards, or a count of unseen ones."""
        out: dict[int, list[Card] | int] = {}
        for p in opponents(view):
            if view.face_up[p] is not None:
                continue
            if view.hands is not None:
                out[p] = [c for c in view.hands[p] if c >= 0]
            else:
                out[p] = view.hand_sizes[p]
        return out

    def _expected(self, view: View, card: Card, unseen: list[Card]) -> float:
        rows = view.rows
        prof = view.rules.professional
        me = view.player
        assert me is not None
        known = [(p, c) for p, c in enumerate(view.face_up) if c is not None and p != me]
        if card < 0:
            # A joker goes first, on a row we choose: free while a row has room.
            # The small constant keeps it for a hand with nothing safe.
            full = all(len(r) >= ROW_CAPACITY for r in rows)
            return (min(row_bullheads(r) for r in rows) if full else 0.0) + 0.5
        lower = [(p, c) for p, c in known if c < card]
        before, _ = resolve(rows, lower, prof)
        land = target(before, card, prof)
        if land.row is None:
            return float(min(row_bullheads(r) for r in before))
        row = before[land.row - 1]
        if land.sixth:
            return float(row_bullheads(row))
        # Unknown opponents: chance that each plays a card landing before ours on that row.
        if land.end == "left":
            lo, hi = card, start_value(row) // 10
        else:
            lo, hi = end_value(row) // 10, card
        probs: list[float] = []
        for _p, cand in self._candidates(view).items():
            if isinstance(cand, list):
                if not cand:
                    continue
                inside = sum(1 for c in cand if lo < c < hi)
                probs.append(inside / len(cand))
            else:
                # Their hand is a random part of the unseen cards, so the card
                # they play is, for us, a random unseen card.
                if cand == 0 or not unseen:
                    continue
                inside = sum(1 for c in unseen if lo < c < hi)
                probs.append(inside / len(unseen))
        need = ROW_CAPACITY - land.length
        risk = _at_least(probs, need)
        # If it happens we take the row plus roughly one bullhead per card slipped in.
        penalty = row_bullheads(row) + need
        # Among safe cards a small gap wins (see the class docstring).
        return risk * penalty + 0.01 * land.gap

    def choose_card(self, view: View) -> Card:
        unseen = unseen_cards(view)
        best = min(view.options, key=lambda c: (self._expected(view, c, unseen), -c))
        return best

    def choose_row(self, view: View) -> int:
        pending = view.pending
        assert pending is not None and pending.card is not None
        prof = view.rules.professional
        card = pending.card
        # The cards revealed after this one are public: resolve them exactly.
        rest = [pc for pc in view.to_resolve if pc != (view.player, card)]
        best_row = 1
        best_cost: float | None = None
        for i in range(len(view.rows)):
            rows, taken = play(view.rows, card, prof, i + 1)
            cost = float(row_bullheads(taken))
            after, _ = resolve(rows, rest, prof)
            cost += 0.2 * self._danger(view, after)
            if best_cost is None or cost < best_cost - 1e-9:
                best_row, best_cost = i + 1, cost
        return best_row

    def _danger(self, view: View, rows: list[Row]) -> float:
        """How much of the own hand would be sixth or too low on ``rows``."""
        prof = view.rules.professional
        cheapest = min(row_bullheads(r) for r in rows)
        total = 0.0
        for c in view.hand:
            if c < 0:
                continue
            land = target(rows, c, prof)
            if land.row is None:
                total += cheapest
            elif land.sixth:
                total += row_bullheads(rows[land.row - 1])
        return total

    def draft_card(self, view: View) -> Card:
        hand = [c for c in view.hand if c >= 0]

        def spread(c: Card) -> tuple[int, int]:
            dist = min((abs(c - h) for h in hand), default=200)
            return (dist, c)

        return max(view.options, key=spread)
