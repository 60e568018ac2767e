"""nimmt: 6 nimmt! (Take 6!, Category 5, 6 bere, 6 uzimanja), exact and fast.

A game between bots, in three lines:

>>> import nimmt
>>> game = nimmt.play_game(nimmt.Rules(), ["dodger", "lowrisk", "cheapest", "random"], seed=1)
>>> game.is_over, game.winners
(True, (0,))

Bots are named as in the ladder (``nimmt.bots.BOTS``) or built with
:func:`make_bot`; ``game`` is the finished :class:`Game`, with every event and
decision.

The engine is pure: no I/O, no clock, no global randomness. A game driven by
hand, one decision at a time:

>>> import random
>>> from nimmt import Game, Rules, DecisionKind, default_row
>>> game = Game(Rules.preset("classic", players=4), seed=1)
>>> rng = random.Random(2)
>>> while not game.is_over:
...     pending = game.pending
...     for p in pending.players:
...         if pending.kind is DecisionKind.CARD:
...             _ = game.play_card(p, rng.choice(game.legal(p)))
...         else:
...             _ = game.take_row(p, default_row(game.view(p).rows))
>>> game.winners
(0,)
>>> bullheads(55)
7
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .cards import (
    JOKERS,
    NUMBER_CARDS,
    Card,
    bullheads,
    card_label,
    is_joker,
    joker,
    parse_card,
)
from .deals import Deal
from .decisions import Decision, DecisionKind, DraftCard, Pending, PlayCard, TakeRow
from .defaults import default_row
from .engine import Game
from .errors import (
    CardNotInHand,
    GameOverError,
    IllegalMove,
    NimmtError,
    NoSuchRow,
    NotYourDecision,
    RecordError,
    RulesError,
)
from .events import Event, for_viewer
from .rows import Target, end_value, row_bullheads, target
from .rules import PRESETS, VARIANTS, EndMode, Rules
from .views import Phase, View

if TYPE_CHECKING:
    from .bots.play import play_game
    from .bots.registry import make_bot

__version__ = "0.1.0"

__all__ = [
    "JOKERS",
    "NUMBER_CARDS",
    "PRESETS",
    "VARIANTS",
    "Card",
    "CardNotInHand",
    "Deal",
    "Decision",
    "DecisionKind",
    "DraftCard",
    "EndMode",
    "Event",
    "Game",
    "GameOverError",
    "IllegalMove",
    "NimmtError",
    "NoSuchRow",
    "NotYourDecision",
    "Pending",
    "Phase",
    "PlayCard",
    "RecordError",
    "Rules",
    "RulesError",
    "TakeRow",
    "Target",
    "View",
    "bullheads",
    "card_label",
    "default_row",
    "end_value",
    "for_viewer",
    "is_joker",
    "joker",
    "make_bot",
    "parse_card",
    "play_game",
    "row_bullheads",
    "target",
]

# The bots (floor 2) load on first use: ``import nimmt`` stays the engine alone,
# light to import, and nothing of floor 1 depends on them.
_LAZY = {"play_game": "nimmt.bots.play", "make_bot": "nimmt.bots.registry"}


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        import importlib

        value = getattr(importlib.import_module(_LAZY[name]), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'nimmt' has no attribute {name!r}")
