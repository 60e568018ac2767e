"""Looking ahead for the heuristic bots: a turn resolved on a copy of the rows.

The heuristics reason about a turn without running the engine: where a card
would go and what it costs come from the engine's own row arithmetic
(:mod:`nimmt.rows`); :func:`resolve` plays the rest of a turn when the other
cards are known (``open`` play, or the cards still to resolve during a row
choice), taking the default row for every row choice unless told otherwise.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from ..cards import Card
from ..defaults import default_row
from ..rows import Row, play, row_bullheads
from ..views import View

__all__ = ["opponents", "resolve", "unseen_cards"]


def resolve(
    rows: Sequence[Row],
    plays: Iterable[tuple[int, Card]],
    professional: bool,
    choices: dict[int, int] | None = None,
) -> tuple[list[Row], dict[int, int]]:
    """Resolve known plays ``(player, card)`` in ascending order on a copy of ``rows``.

    Row choices (1..4) come from ``choices`` (player → row) or the default row.
    Returns the rows after the turn and the bullheads each player takes.
    """
    out: tuple[Row, ...] = tuple(rows)
    taken: dict[int, int] = {}
    choices = choices or {}
    for player, card in sorted(plays, key=lambda pc: pc[1]):
        out, cards = play(out, card, professional, choices.get(player) or default_row(out))
        taken[player] = taken.get(player, 0) + row_bullheads(cards)
    return list(out), taken


def unseen_cards(view: View) -> list[Card]:
    """Number cards of this round's deck that the viewer has not seen (may be in other hands)."""
    seen = view.seen_cards()
    return [c for c in view.rules.deck(len(view.active)) if c not in seen]


def opponents(view: View) -> list[int]:
    """Active seats other than the viewer's."""
    return [p for p in view.active if p != view.player]
