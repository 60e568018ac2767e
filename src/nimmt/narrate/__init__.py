"""Sentences about a game, in the reader's language.

Every sentence the project says about a game is written in this package, once, so the
terminal replay, the web client's live regions and the screen-reader
announcements never disagree. The sentences are English templates marked with
``_()`` (and ``_n()`` for counts); their translations live in gettext catalogs
under ``nimmt/locales/<language>/LC_MESSAGES/nimmt.po`` (compiled to ``.mo``),
so a translator edits a catalog and never this code, and adding a language is
adding a catalog (see ``docs/translating.md``). Sentences stay whole (never
glued from fragments whose grammar depends on each other) and free of markup.

A :class:`Narrator` speaks one language; :func:`narrator` shares one per
language. ``names`` are the display names by seat; ``viewer`` is the seat the
sentences are for: that player is "you" (second person), everyone else is
named, and what the viewer may not see is not told. The calls:

- events (:mod:`.events`): ``describe(event, names, viewer)`` (one event), ``narrate(events,
  names, viewer)`` (a list of sentences; a row taken and the card starting it
  are one), ``announce(events, names, viewer)`` (one string: a resolution step
  as one announcement);
- the table, for the seat's shortcuts (:mod:`.shortcuts`, docs/rules.md §9): ``rows_sentence(view)``
  (V), ``row_sentence(view, n)`` (1–4), ``bullheads_sentence(card_or_row,
  row)`` (C), ``chosen_sentence(view, names)`` (T), ``scores_sentence(view,
  names)`` (S), ``who_sentence(names, viewer, view, presence)`` (W),
  ``hand_sentence(view)``, ``your_decision_sentence(view)`` (what
  the viewer must do now, with the options), ``pending_sentence(pending,
  names, viewer)``;
- advice and reviews of :mod:`nimmt.advice` (:mod:`.advice`): ``advice_sentence(advice)`` (a
  hint: the advised option and why, in one or two short sentences),
  ``review_sentences(review, viewer)`` (a finished game: each player's
  summary and the costliest decisions), ``about_bullheads(amount)``,
  ``percent(chance)``;
- the table and the server (:mod:`.notices`): ``notice_sentence(notice, reason, name, seat)``
  (a seat taken, the default bot stepping in …), ``chat_sentence(name, text)``,
  ``refusal_sentence(code)`` (a server's ``error``), ``analysis_refusal(status)``,
  ``idle_sentence(view, names)`` (a move made when nothing is asked);
- the rest: ``timer_sentence(seconds)``, ``timeout_sentence(seat, names,
  viewer)``, ``error_sentence(error)``, ``rules_sentence(rules)``,
  ``players_sentence(names)``, and the words ``card``, ``cards``, ``player``,
  ``count_cards``, ``count_bullheads``, ``number``.

Jokers and row values raised by a joker are written with the language's
decimal sign, from Babel's CLDR data ("0.3" in English, "0,3" in Serbian and
Czech).

>>> from nimmt.events import CardsRevealed, CardPlaced, RowTaken
>>> names = ["Ana", "Bob", "Cleo"]
>>> step = [CardsRevealed(((0, 12), (1, 40), (2, 77))), CardPlaced(0, 12, 1),
...         CardPlaced(1, 40, 2), RowTaken(2, 3, (33, 42, 50, 57, 64), 8, "full"),
...         CardPlaced(2, 77, 3, started=True)]
>>> print(Narrator("en").announce(step, names, viewer=1))
Cards revealed: Ana: 12; you: 40; Cleo: 77. Ana's 12 goes to row 1. Your 40 goes to row 2. \
Cleo's 77 is the sixth card in row 3: Cleo takes 33, 42, 50, 57 and 64, worth 8 bullheads, \
and 77 starts the row.
>>> for sentence in Narrator("sr").narrate(step, names):
...     print(sentence)
Otkrivene karte: Ana: 12; Bob: 40; Cleo: 77.
Ana stavlja 12 u skup 1.
Bob stavlja 40 u skup 2.
Karta 77 je šesta u skupu 3: Cleo uzima 33, 42, 50, 57 i 64, ukupno 8 bodova, a 77 započinje \
skup iznova.
>>> Narrator("cs").row_sentence(((9, 12, 21), (87, -1)), 2)
'Řada 2: 87, žolík 0,9 (hodnota na konci 87,9) — 2 karty, 2 body.'
"""

from __future__ import annotations

from functools import lru_cache

from .advice import AdviceSentences
from .base import (
    DOMAIN,
    LOCALE_DIR,
    SOURCE_LANGUAGE,
    UnknownLanguage,
    available_languages,
)
from .events import EventSentences
from .notices import REFUSALS, NoticeSentences
from .shortcuts import SeatMark, ShortcutSentences

__all__ = [
    "DOMAIN",
    "LOCALE_DIR",
    "REFUSALS",
    "SOURCE_LANGUAGE",
    "Narrator",
    "SeatMark",
    "UnknownLanguage",
    "available_languages",
    "narrator",
]


class Narrator(EventSentences, ShortcutSentences, AdviceSentences, NoticeSentences):
    """Turns events and views into sentences in one language.

    ``language`` is a catalog name or a language tag (``"sr"``, ``"sr-Latn"``,
    ``"cs_CZ"``); :class:`UnknownLanguage` is raised when no catalog fits.
    ``locale_dir`` points at another catalog directory (tests, a site's own
    translations). A narrator holds no game state: one per language can
    serve every table. Names are the display names by seat; ``viewer`` is the
    seat spoken to as "you" (``None``: nobody, e.g. a spectator or a record).

    The sentences are written by audience, one module each, on one shared
    vocabulary (:mod:`.base`): :mod:`.events`, :mod:`.shortcuts`, :mod:`.advice`
    and :mod:`.notices`; a narrator speaks them all.
    """


@lru_cache(maxsize=32)
def narrator(language: str = SOURCE_LANGUAGE) -> Narrator:
    """The shared narrator of ``language`` from the installed catalogs (made once)."""
    return Narrator(language)
