"""Who decides for a seat that is not played by a person at the moment.

Two kinds: the bot a host seated (any strength of :mod:`nimmt.bots.registry`),
and the *default player* that the table uses for a person who ran out of time,
left, or stayed disconnected (RULES.md §5). The default player must be fair to
the person it stands in for, so it does not play a random card: it plays the
``lowrisk`` rule of thumb (the card that lands safely with the most room, no
sixth cards when avoidable), drafts like ``lowrisk`` (the highest card), and
takes the default row of :func:`nimmt.default_row` for every row choice,
jokers included, exactly as RULES.md §5 names it.
"""

from __future__ import annotations

from ..bots.base import Bot, Budget
from ..bots.registry import BotError, make_bot
from ..bots.simple import LowRiskBot
from ..cards import Card
from ..defaults import default_row
from ..engine import DecisionKind, View

__all__ = ["BotError", "DefaultPlayer", "decide", "seat_bot"]


class DefaultPlayer(LowRiskBot):
    """The table's stand-in for an absent person: ``lowrisk`` cards, the default row."""

    name = "default"
    description = "plays for an absent person: a safe card, the default row"

    def choose_row(self, view: View) -> int:
        return default_row(view.rows)


def seat_bot(strength: str, seed: int, seconds: float) -> Bot:
    """A bot for a seat; raises :class:`BotError` for an unknown strength."""
    return make_bot(strength, seed=seed, budget=Budget(seconds=seconds))


def decide(bot: Bot, view: View) -> tuple[str, int]:
    """Ask ``bot`` for the decision pending in ``view``: ``(kind, value)``.

    Runs in a worker thread so a thinking bot never blocks the event loop.
    An answer outside the legal options is replaced by the default player's,
    so a faulty bot cannot stall a table.
    """
    pending = view.pending
    assert pending is not None
    value: Card | int
    if pending.kind is DecisionKind.CARD:
        kind = "card"
        value = _safe(bot.choose_card, view)
    elif pending.kind is DecisionKind.ROW:
        kind = "row"
        value = _safe(bot.choose_row, view)
    else:
        kind = "draft"
        value = _safe(bot.draft_card, view)
    if value not in view.options:
        fallback = _DEFAULT
        if kind == "card":
            value = fallback.choose_card(view)
        elif kind == "row":
            value = fallback.choose_row(view)
        else:
            value = fallback.draft_card(view)
    return kind, value


def _safe(fn: object, view: View) -> int:
    try:
        value = fn(view)  # type: ignore[operator]
    except Exception:
        return -1000
    return value if type(value) is int else -1000


_DEFAULT = DefaultPlayer(seed=0)
