"""Who decides for a seat that is not played by a person at the moment.

Two kinds: the bot a host seated (a name the server offers, see
:mod:`nimmt.server.botpool`), and the *default player*
(:class:`~nimmt.bots.simple.DefaultPlayer`, the same one the arena uses) that
the table uses for a person who ran out of time, left, or stayed disconnected
(RULES.md §5). It is also what a seat plays when its bot fails or runs past the
deadline the server enforces.
"""

from __future__ import annotations

from collections.abc import Callable

from ..bots.base import Bot
from ..bots.simple import DefaultPlayer
from ..cards import Card
from ..decisions import DecisionKind
from ..views import View

__all__ = ["DefaultPlayer", "ask", "decision_kind", "default_answer"]


def decision_kind(view: View) -> str:
    """``card``, ``row`` or ``draft``: what ``view`` asks its player for."""
    pending = view.pending
    assert pending is not None
    return pending.kind.value


def ask(bot: Bot, view: View) -> int:
    """``bot``'s raw answer to the decision pending in ``view``.

    Nothing is checked here: the bot may raise or answer anything. The server's
    bot workers call this; the server checks the answer against the options it
    holds itself, and plays :func:`default_answer` in place of a bad one.
    """
    pending = view.pending
    assert pending is not None
    method: Callable[[View], Card | int]
    if pending.kind is DecisionKind.CARD:
        method = bot.choose_card
    elif pending.kind is DecisionKind.ROW:
        method = bot.choose_row
    else:
        method = bot.draft_card
    return method(view)


def default_answer(view: View) -> int:
    """The default player's answer: what a seat plays when its bot failed or ran late.

    Cheap (a rule of thumb over the rows), so the server computes it itself, with no
    worker: it is what is left when a worker died.
    """
    return ask(_DEFAULT, view)


_DEFAULT = DefaultPlayer(seed=0)
