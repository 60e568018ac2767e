"""The narration's shared vocabulary: catalogs, language, numbers, cards, names, rows.

Every audience of the narration (:mod:`.events`, :mod:`.shortcuts`, :mod:`.advice`,
:mod:`.notices`) builds its sentences from these words, so a card, a player, a count
or a row is said one way everywhere. :class:`Vocabulary` loads one language's catalog;
:class:`nimmt.narrate.Narrator` adds the sentences of every audience to it.
"""

from __future__ import annotations

import gettext
import os
from collections.abc import Iterable, Sequence
from pathlib import Path

from babel import Locale, UnknownLocaleError
from babel.numbers import get_decimal_symbol

from ..cards import Card, is_card
from ..errors import NimmtError
from ..rows import end_value, row_bullheads

#: Where the catalogs live: ``LOCALE_DIR/<language>/LC_MESSAGES/nimmt.mo``.
LOCALE_DIR = Path(__file__).resolve().parent.parent / "locales"
#: The gettext domain, the catalogs' file name.
DOMAIN = "nimmt"
#: The language the templates are written in; it needs no catalog to be spoken.
SOURCE_LANGUAGE = "en"

Rows = Sequence[Sequence[Card]]


def N_(message: str) -> str:
    """Marks a template for the catalogs where it is written; it is translated when said."""
    return message


class UnknownLanguage(NimmtError):
    """No catalog for the language asked for; the message lists the known ones."""


def available_languages(locale_dir: str | os.PathLike[str] | None = None) -> tuple[str, ...]:
    """The languages with a compiled catalog in ``locale_dir`` (and English), sorted."""
    directory = Path(locale_dir) if locale_dir is not None else LOCALE_DIR
    found = {SOURCE_LANGUAGE}
    if directory.is_dir():
        found.update(
            d.name for d in directory.iterdir() if (d / "LC_MESSAGES" / f"{DOMAIN}.mo").is_file()
        )
    return tuple(sorted(found))


def _resolve(language: str, known: Sequence[str]) -> str:
    """``language`` as a catalog name: ``"sr-Latn-RS"`` finds ``sr``, ``"cs_CZ"`` finds ``cs``."""
    parts = language.strip().replace("-", "_").split("_")
    while parts and parts[0]:
        for candidate in ("_".join(parts), "_".join(parts).lower()):
            if candidate in known:
                return candidate
        parts = parts[:-1]
    raise UnknownLanguage(f"no catalog for language {language!r}; known: {', '.join(known)}")


def _decimal_symbol(language: str) -> str:
    """The decimal sign of ``language`` from Babel's CLDR data; ``.`` for a locale it lacks."""
    try:
        return str(get_decimal_symbol(Locale.parse(language)))
    except (UnknownLocaleError, ValueError):
        return "."


class Vocabulary:
    """One language's catalog and the words every sentence is made of.

    ``language`` is a catalog name or a language tag (``"sr"``, ``"sr-Latn"``,
    ``"cs_CZ"``); :class:`UnknownLanguage` is raised when no catalog fits.
    ``locale_dir`` points at another catalog directory (tests, a site's own
    translations).
    """

    language: str

    def __init__(
        self, language: str = SOURCE_LANGUAGE, locale_dir: str | os.PathLike[str] | None = None
    ) -> None:
        directory = Path(locale_dir) if locale_dir is not None else LOCALE_DIR
        self.language = _resolve(language, available_languages(directory))
        mo = directory / self.language / "LC_MESSAGES" / f"{DOMAIN}.mo"
        self._catalog: gettext.NullTranslations
        if mo.is_file():
            with mo.open("rb") as f:
                self._catalog = gettext.GNUTranslations(f)
        else:  # the source language without a catalog of its own
            self._catalog = gettext.NullTranslations()
        self._decimal = _decimal_symbol(self.language)
        #: Sentences that depend on their arguments alone (a row, a card, the clock, the
        #: rules), kept: a server says each row to every seat of its table after every
        #: turn, in every frame's shortcut sheet. At most :data:`MEMO_SIZE`.
        self._memo: dict[object, str] = {}

    def _kept(self, key: object) -> str | None:
        return self._memo.get(key)

    def _keep(self, key: object, sentence: str) -> str:
        if len(self._memo) >= MEMO_SIZE:
            self._memo.clear()
        self._memo[key] = sentence
        return sentence

    def __repr__(self) -> str:
        return f"Narrator({self.language!r})"

    # -- catalog lookups (the names ``_`` and ``_n`` are what extraction looks for)

    def _(self, message: str) -> str:
        return self._catalog.gettext(message)

    def _n(self, singular: str, plural: str, count: int) -> str:
        """The plural form for ``count``, with ``{count}`` filled in and other fields left."""
        return self._catalog.ngettext(singular, plural, count).replace("{count}", str(count))

    # -- words ------------------------------------------------------------------

    def number(self, tenths: int, always_decimal: bool = False) -> str:
        """A value given in tenths, as written here: 870 → ``87``, 879 → ``87.9`` (``87,9``).

        ``always_decimal`` keeps a zero tenth (joker 0.0, a row ending at 87.0).
        """
        whole, tenth = divmod(tenths, 10)
        if tenth == 0 and not always_decimal:
            return str(whole)
        return f"{whole}{self._decimal}{tenth}"

    def card(self, card: Card) -> str:
        """A card as said aloud: ``"12"``, or ``"joker 0.3"`` (Serbian ``"džoker 0,3"``)."""
        if not is_card(card):
            raise ValueError(f"{card!r} is not a card")
        if card < 0:
            # TRANSLATORS: one of the anniversary jokers 0.0 to 0.9; {label} is e.g. "0.3".
            return self._("joker {label}").format(label=self.number(card + 10, True))
        return str(card)

    def cards(self, cards: Iterable[Card]) -> str:
        """Cards in a list: ``"3, 55, joker 0.6"``."""
        return ", ".join(self.card(c) for c in cards)

    def player(self, seat: int, names: Sequence[str], viewer: int | None = None) -> str:
        """A seat as named in a list: its name, "you" for the viewer, or "Player 3"."""
        if viewer is not None and seat == viewer:
            # TRANSLATORS: the reader, inside a list ("Cards revealed: Ana 12, you 40").
            return self._("you")
        if 0 <= seat < len(names):
            return names[seat]
        return self._("Player {number}").format(number=seat + 1)

    def bot_name(self, bot: str, number: int) -> str:
        """A bot's name at a table: its strength and its number there (``"Medium Bot 2"``,
        Serbian ``"Bot Srednji 2"``), so two bots are told apart and each says how strong
        it is. Bots of other names (the ladder's, an operator's) keep their own."""
        _ = self._
        match bot:
            case "beginner":
                return _("Beginner Bot {number}").format(number=number)
            case "easy":
                return _("Easy Bot {number}").format(number=number)
            case "medium":
                return _("Medium Bot {number}").format(number=number)
            case "hard":
                return _("Hard Bot {number}").format(number=number)
            case "expert":
                return _("Expert Bot {number}").format(number=number)
        # TRANSLATORS: a bot the server's operator added, by its own name: "dodger bot 1".
        return _("{name} bot {number}").format(name=bot, number=number)

    def join(self, items: Sequence[str]) -> str:
        """``"Ana, Bob and Cleo"``."""
        if len(items) <= 1:
            return "".join(items)
        return self._("{first} and {last}").format(first=", ".join(items[:-1]), last=items[-1])

    def count_cards(self, count: int) -> str:
        """``"1 card"``, ``"5 cards"`` (Serbian ``"5 karata"``)."""
        return self._n("{count} card", "{count} cards", count)

    def count_bullheads(self, count: int) -> str:
        """``"1 bullhead"``, ``"8 bullheads"`` (Serbian ``"8 bodova"``, Czech ``"8 bodů"``)."""
        return self._n("{count} bullhead", "{count} bullheads", count)

    def _names(self, seats: Iterable[int], names: Sequence[str], viewer: int | None) -> str:
        return self.join([self.player(p, names, viewer) for p in seats])

    def _per_player(
        self,
        values: Sequence[int],
        names: Sequence[str],
        viewer: int | None,
        seats: Iterable[int] | None = None,
    ) -> str:
        chosen = range(len(values)) if seats is None else seats
        return "; ".join(
            # TRANSLATORS: one entry of a list of scores: "Ana: 12" (entries are joined by
            # semicolons, so a name ending in a number is never read with the score).
            self._("{name}: {value}").format(name=self.player(p, names, viewer), value=values[p])
            for p in chosen
        )

    # -- the table --------------------------------------------------------------

    def row(self, number: int, row: Sequence[Card]) -> str:
        """One row: ``"Row 2: 14, 17, 33 — 3 cards, 5 bullheads."``.

        When a joker ends the row, the value a card must beat is said too
        (``87.9``), since it can be read from no single card.
        """
        key = ("row", number, tuple(row))
        kept = self._kept(key)
        if kept is not None:
            return kept
        return self._keep(key, self._row(number, row))

    def _row(self, number: int, row: Sequence[Card]) -> str:
        if not row:
            return self._("Row {number} is empty.").format(number=number)
        fields = {
            "number": number,
            "cards": self.cards(row),
            "count": self.count_cards(len(row)),
            "bullheads": self.count_bullheads(row_bullheads(row)),
        }
        if row[-1] < 0:
            text = self._("Row {number}: {cards} (end value {value}) — {count}, {bullheads}.")
            return text.format(value=self.number(end_value(row), True), **fields)
        return self._("Row {number}: {cards} — {count}, {bullheads}.").format(**fields)

    def table(self, rows: Rows) -> str:
        """All rows, row 1 first, one sentence each."""
        if not rows:
            return self._("There are no rows on the table yet.")
        return " ".join(self.row(i, row) for i, row in enumerate(rows, 1))


#: Sentences a narrator keeps (see :attr:`Narrator._memo`): rows of up to six cards met at
#: the tables of a busy server, well under a few megabytes.
MEMO_SIZE = 50_000

