"""Who decides for a seat that is not played by a person at the moment.

Two kinds: the bot a host seated (any strength of :mod:`nimmt.bots.registry`),
and the *default player* that the table uses for a person who ran out of time,
left, or stayed disconnected (RULES.md §5):
:class:`~nimmt.bots.simple.DefaultPlayer`, the same one the arena uses.
"""

from __future__ import annotations

from ..bots.base import Bot, Budget
from ..bots.registry import BotError, make_bot
from ..bots.simple import DefaultPlayer
from ..cards import Card
from ..decisions import DecisionKind
from ..views import View

__all__ = ["BotError", "DefaultPlayer", "decide", "seat_bot"]


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
