"""nimmt: 6 nimmt! (Take 6!, Category 5, 6 bere, 6 uzimanja), exact and fast.

The engine is pure: no I/O, no clock, no global randomness. A quick game:

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
    "parse_card",
    "row_bullheads",
    "target",
]
