"""What a web page says about its table, in the reader's language.

The pages never build game sentences themselves: every sentence comes from
:class:`nimmt.narrate.Narrator`, so the web client, the terminal client and the
live regions say the same thing. A page asks for a *speech sheet* after each
batch of table items: the sentences of the new events, and the sentences its
shortcuts speak (docs/rules.md §9: rows, one row, the bullheads of a row or a card,
who has chosen, the scores) and the decision asked of the player.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..narrate import Narrator, SeatMark, available_languages, narrator
from ..rules import Rules
from ..views import View
from ..wire import table_sheet

__all__ = ["languages", "sheet", "speaker"]


def languages() -> tuple[str, ...]:
    """The languages the narration speaks (a gettext catalog each in ``nimmt/locales``)."""
    return available_languages()


def speaker(lang: str) -> Narrator:
    """The narrator of ``lang``; English when there is no catalog for it."""
    return narrator(lang if lang in languages() else "en")


def sheet(speak: Narrator, view: View | None, names: Sequence[str], viewer: int | None,
          rules: Rules, presence: Sequence[SeatMark] | None = None) -> dict[str, Any]:
    """The sentences the page's shortcuts speak, for the table as it is now (the same
    :class:`~nimmt.wire.Sheet` the WebSocket frames carry: before the first
    game, of the seats; ``presence``: who sits in each seat, for key W)."""
    return table_sheet(rules, view, list(names), viewer, speak, presence=presence).model_dump()
