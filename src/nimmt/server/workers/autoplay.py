"""Who decides for a seat that is not played by a person at the moment.

Two kinds: the bot a host seated (a name the server offers, see
:mod:`nimmt.server.botpool`), and the *default player*
(:class:`~nimmt.bots.simple.DefaultPlayer`, the same one the arena uses) that
the table uses for a person who ran out of time, left, or stayed disconnected
(docs/rules.md §5). It is also what a seat plays when its bot faults (raises,
answers illegally, runs past the deadline the server enforces): the one
bot-fault policy of :func:`nimmt.bots.play.decide_safely`, shared with the
arena.
"""

from __future__ import annotations

from ...bots.play import decide_safely
from ...bots.simple import DefaultPlayer
from ...decisions import Decision, make_decision
from ...views import View

__all__ = ["DefaultPlayer", "default_decision"]


def default_decision(view: View) -> Decision:
    """The default player's decision for the one pending in ``view``: what a seat plays
    when its bot's worker gave no answer (it ran late, died, or sent nothing readable).

    Cheap (a rule of thumb over the rows), so the server makes it itself, with no
    worker: it is what is left when a worker died. Should the default player itself
    fail (a bug), the first legal option is played rather than leaving the table stuck.
    """
    try:
        return decide_safely(_DEFAULT, view, _DEFAULT).decision
    except Exception:
        pending = view.pending
        assert pending is not None and view.player is not None
        return make_decision(pending.kind, view.player, view.options[0])


_DEFAULT = DefaultPlayer(seed=0)
