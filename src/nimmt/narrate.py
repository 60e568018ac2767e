"""Sentences about a game, in the reader's language.

Every sentence the project says about a game is written here, once, so the
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

- events: ``describe(event, names, viewer)`` (one event), ``narrate(events,
  names, viewer)`` (a list of sentences; a row taken and the card starting it
  are one), ``announce(events, names, viewer)`` (one string: a resolution step
  as one announcement);
- the table, for the seat's shortcuts (docs/rules.md §9): ``rows_sentence(view)``
  (V), ``row_sentence(view, n)`` (1–4), ``bullheads_sentence(card_or_row,
  row)`` (C), ``chosen_sentence(view, names)`` (T), ``scores_sentence(view,
  names)`` (S), ``hand_sentence(view)``, ``your_decision_sentence(view)`` (what
  the viewer must do now, with the options), ``pending_sentence(pending,
  names, viewer)``;
- advice and reviews (:mod:`nimmt.advice`): ``advice_sentence(advice)`` (a
  hint: the advised option and why, in one or two short sentences),
  ``review_sentences(review, viewer)`` (a finished game: each player's
  summary and the costliest decisions), ``about_bullheads(amount)``,
  ``percent(chance)``;
- the table and the server: ``notice_sentence(notice, reason, name, seat)``
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

import gettext
import math
import os
from collections.abc import Iterable, Sequence
from functools import lru_cache
from pathlib import Path

from babel import Locale, UnknownLocaleError
from babel.numbers import get_decimal_symbol

from .advice import Advice, DecisionReview, GameReview, Reason
from .cards import BULLHEADS, Card, is_card
from .decisions import DecisionKind, Pending
from .error_codes import ErrorCode as E
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
from .events import (
    CardChosen,
    CardDrafted,
    CardPlaced,
    CardsRevealed,
    DraftStarted,
    Event,
    GameOver,
    HandDealt,
    PlayerEliminated,
    RoundScored,
    RoundStarted,
    RowChoiceNeeded,
    RowsDealt,
    RowTaken,
    TurnStarted,
    for_viewer,
)
from .rows import end_value, row_bullheads
from .rules import EndMode, Rules
from .views import Phase, View

__all__ = [
    "DOMAIN",
    "LOCALE_DIR",
    "REFUSALS",
    "SOURCE_LANGUAGE",
    "Narrator",
    "UnknownLanguage",
    "available_languages",
    "narrator",
]

#: Where the catalogs live: ``LOCALE_DIR/<language>/LC_MESSAGES/nimmt.mo``.
LOCALE_DIR = Path(__file__).resolve().parent / "locales"
#: The gettext domain, the catalogs' file name.
DOMAIN = "nimmt"
#: The language the templates are written in; it needs no catalog to be spoken.
SOURCE_LANGUAGE = "en"

Rows = Sequence[Sequence[Card]]


def N_(message: str) -> str:
    """Marks a template for the catalogs where it is written; it is translated when said."""
    return message


#: What a person hears when the server refuses a message, by the error's ``code``
#: (:class:`~nimmt.error_codes.ErrorCode` declares the codes; a test pins the two together).
REFUSALS: dict[E, str] = {
    E.BAD_JSON: N_("The server could not read that message."),
    E.BAD_MESSAGE: N_("The server could not read that message."),
    E.FRAME_TOO_LARGE: N_("That message is too long for the server."),
    E.RATE_LIMITED: N_("Too many messages; please wait a moment."),
    E.VERSION: N_("This program and the server speak different versions; please update it."),
    E.NOT_AUTHENTICATED: N_("The server does not know you yet; please connect again."),
    E.BAD_TOKEN: N_("The server does not know you; please give your name again."),
    E.BAD_NAME: N_(
        "That name cannot be used: choose a short name that shows letters, digits or signs."
    ),
    E.BAD_LANGUAGE: N_("The server does not speak that language."),
    E.NAME_TAKEN: N_("That name is taken. Choose another one."),
    E.NO_TABLE: N_("No open table has that code."),
    E.NOT_AT_TABLE: N_("Join or watch a table first."),
    E.TABLE_FULL: N_("Every seat at that table is taken."),
    E.SEAT_TAKEN: N_("That seat is taken."),
    E.NO_SEAT: N_("There is no such seat, or it is empty."),
    E.NOT_SEATED: N_("Only a seated player may do that."),
    E.SPECTATOR: N_("You are watching; take a seat to play."),
    E.NOT_HOST: N_("Only the host may do that."),
    E.BAD_RULES: N_("Those rules cannot be played together."),
    E.BAD_BOT: N_("This server has no bot of that kind."),
    E.NOT_STARTED: N_("The game has not started yet."),
    E.ALREADY_STARTED: N_("The game has already started."),
    E.NOT_OVER: N_("The game is not over yet."),
    E.SEATS_EMPTY: N_("A seat is still empty: add a bot or wait for a player."),
    E.NOT_YOUR_TURN: N_("That decision is not yours to make now."),
    E.CARD_NOT_IN_HAND: N_("You do not hold that card."),
    E.NO_SUCH_ROW: N_("Rows are numbered 1 to 4."),
    E.GAME_OVER: N_("The game is over."),
    E.CHAT_TOO_LONG: N_("That chat message is too long."),
    E.CHAT_EMPTY: N_("That chat message is empty."),
    E.CLOSED: N_("The table is closed."),
    E.KICKED: N_("The host removed you from this table."),
    E.INTERNAL: N_("Something went wrong on the server; the game is unchanged. Please try again."),
    E.FLOODING: N_("Too many refused messages: the server closed the connection."),
    E.TOO_MANY_CONNECTIONS: N_("Too many connections come from your address."),
    E.SERVER_FULL: N_("The server is full. Please try again later."),
    E.QUOTA: N_("You have reached a limit of this server. Please try again later."),
    E.TOO_MANY_CHANGES: N_("You have changed your card too often this turn."),
    E.HINTS_OFF: N_("Hints are off at this table."),
    E.HINT_PENDING: N_("The expert is still thinking about your last question."),
    E.BUSY: N_("The expert is busy. Please try again in a moment."),
    E.SIGN_IN_FAILED: N_("The name and password do not match."),
    E.SIGN_IN_LIMITED: N_("Too many failed sign-ins. Please wait a little and try again."),
    E.SIGN_IN_BUSY: N_("The server is busy signing people in. Please try again in a moment."),
    E.WEAK_PASSWORD: N_("That password is too short or too long."),
    E.NO_PASSWORD: N_("Add a password to your name first."),
    E.SIGNED_OUT: N_("You were signed out: this session has ended."),
    E.NO_SESSION: N_("You have no such session."),
    E.BANNED: N_("The operator of this server has banned you."),
    E.MUTED: N_("The operator of this server has muted you: your messages are not sent."),
    E.SERVER_BUSY: N_("The server is busy. Please try again in a moment."),
    E.NO_PLAYER: N_("No player has that name."),
    E.NO_INVITATION: N_("That invitation was already answered or has expired."),
    E.NOT_FRIENDS: N_("Private messages go only between friends who follow each other."),
    E.BLOCKED: N_("Someone at this table has blocked you, so you cannot sit here."),
    E.RESTARTING: N_("The server is restarting. You will be reconnected in a moment."),
}


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


class Narrator:
    """Turns events and views into sentences in one language.

    ``language`` is a catalog name or a language tag (``"sr"``, ``"sr-Latn"``,
    ``"cs_CZ"``); :class:`UnknownLanguage` is raised when no catalog fits.
    ``locale_dir`` points at another catalog directory (tests, a site's own
    translations). A narrator holds no game state: one per language can
    serve every table. Names are the display names by seat; ``viewer`` is the
    seat spoken to as "you" (``None``: nobody, e.g. a spectator or a record).
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

    def table_name(self, host: str) -> str:
        """The name of a table its host did not name: ``"Ana's table"``."""
        # TRANSLATORS: a table named after its host; avoid a possessive that must agree
        # with a name's gender or ending (Serbian "Sto — Ana").
        return self._("{name}'s table").format(name=host)

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

    def rows_sentence(self, view: View | Rows) -> str:
        """Key V: every row with its cards, count and bullheads."""
        return self.table(view.rows if isinstance(view, View) else view)

    def row_sentence(self, view: View | Rows, number: int) -> str:
        """Keys 1–4: row ``number`` alone."""
        rows = view.rows if isinstance(view, View) else view
        if not 1 <= number <= 4:
            raise ValueError(f"rows are numbered 1 to 4, not {number!r}")
        if number > len(rows):
            return self._("Row {number} is not on the table yet.").format(number=number)
        return self.row(number, rows[number - 1])

    def bullheads_sentence(self, item: Card | Sequence[Card], row: int | None = None) -> str:
        """Key C: the bullheads of one card, or of a row's cards (named when ``row`` is given)."""
        if isinstance(item, int):
            kept = self._kept(("bullheads", item))
            if kept is not None:
                return kept
            return self._keep(("bullheads", item), self._("{card}: {bullheads}.").format(
                card=self.card(item), bullheads=self.count_bullheads(BULLHEADS[item])
            ))
        key = ("bullheads", tuple(item), row)
        kept = self._kept(key)
        if kept is not None:
            return kept
        bullheads = self.count_bullheads(row_bullheads(item))
        if row is None:
            return self._keep(key, self._("{count}, {bullheads}.").format(
                count=self.count_cards(len(item)), bullheads=bullheads
            ))
        return self._keep(key, self._("Row {number}: {bullheads}.").format(
            number=row, bullheads=bullheads))

    def chosen_sentence(self, view: View, names: Sequence[str]) -> str:
        """Key T: who has chosen this turn's card and who has not (never what, unless face up)."""
        if view.phase is not Phase.CHOOSE:
            return self.pending_sentence(view.pending, names, view.player) or self._(
                "Nobody is choosing a card now."
            )
        chosen = view.chosen
        done: list[str] = []
        waiting: list[str] = []
        for p in view.active:
            who = self.player(p, names, view.player)
            if not chosen[p]:
                waiting.append(who)
                continue
            card = view.face_up[p] if p < len(view.face_up) else None
            if card is None and p == view.player:
                card = view.my_choice
            if card is not None:
                who = self._("{name}: {card}").format(name=who, card=self.card(card))
            done.append(who)
        if not waiting:
            return self._("Everyone has chosen.")
        if not done:
            return self._("Nobody has chosen yet.")
        return self._("Chosen: {chosen}. Not yet: {waiting}.").format(
            chosen=self.join(done), waiting=self.join(waiting)
        )

    def scores_sentence(self, view: View, names: Sequence[str]) -> str:
        """Key S: everyone's total, who is out, and this round's penalties so far."""
        viewer = view.player
        items = []
        for p, total in enumerate(view.scores):
            who = self.player(p, names, viewer)
            if view.eliminated[p]:
                items.append(self._("{name}: {value} (out)").format(name=who, value=total))
            else:
                items.append(self._("{name}: {value}").format(name=who, value=total))
        text = self._("Scores: {scores}.").format(scores="; ".join(items))
        if view.phase is not Phase.OVER and any(view.penalties):
            text += " " + self._("This round so far: {penalties}.").format(
                penalties=self._per_player(view.penalties, names, viewer, view.active)
            )
        return text

    def hand_sentence(self, view: View) -> str:
        """The viewer's hand, and the card chosen this turn if any."""
        if view.player is None:
            return self._("Spectators have no hand.")
        if not view.hand:
            return self._("Your hand is empty.")
        text = self._("Your hand: {cards} — {count}.").format(
            cards=self.cards(view.hand), count=self.count_cards(len(view.hand))
        )
        if view.my_choice is not None:
            text += " " + self._("You have chosen {card}.").format(card=self.card(view.my_choice))
        return text

    def your_decision_sentence(self, view: View, hand: bool = False) -> str | None:
        """What the viewer must do now, with the options; ``None`` when nothing is asked of them.

        This is the assertive announcement of a client: it says why (a card
        too low, a joker to place) and lists every choice, but for a card
        choice the hand only with ``hand`` (a line-mode terminal, whose reader
        types the card's number from what it just read); a player with
        shortcuts asks for the hand when they want it (``hand_sentence``).
        """
        pending = view.pending
        if pending is None or view.player is None or view.player not in pending.players:
            return None
        if pending.kind is DecisionKind.CARD:
            if hand:
                return self._("Choose a card to play: {cards}.").format(
                    cards=self.cards(view.options)
                )
            return self._("Your turn: choose a card.")
        if pending.kind is DecisionKind.DRAFT:
            return self._("Draft a card: {cards}.").format(cards=self.cards(view.options))
        rows = view.rows
        card = self.card(pending.card) if pending.card is not None else "?"
        if pending.reason == "joker":
            options = "; ".join(
                # TRANSLATORS: one option when placing a joker: "row 2, 3 cards, 5 bullheads".
                self._("row {row}, {count}, {bullheads}").format(
                    row=r,
                    count=self.count_cards(len(rows[r - 1])),
                    bullheads=self.count_bullheads(row_bullheads(rows[r - 1])),
                )
                for r in view.options
            )
            return self._("Choose the row for your {card}: {options}.").format(
                card=card, options=options
            )
        options = "; ".join(
            # TRANSLATORS: one row the player may take: "row 2, 5 bullheads".
            self._("row {row}, {bullheads}").format(
                row=r, bullheads=self.count_bullheads(row_bullheads(rows[r - 1]))
            )
            for r in view.options
        )
        if pending.reason == "fits_no_end":
            # TRANSLATORS: professional: the card goes after no row and before none.
            text = self._(
                "Your {card} fits at neither end of any row. Choose a row to take: {options}."
            )
        else:
            text = self._("Your {card} is lower than every row. Choose a row to take: {options}.")
        return text.format(card=card, options=options)

    def pending_sentence(
        self, pending: Pending | None, names: Sequence[str], viewer: int | None = None
    ) -> str | None:
        """Who the game waits for, and for what; ``None`` when it waits for nobody."""
        if pending is None:
            return None
        who = self._names(pending.players, names, viewer)
        if pending.kind is DecisionKind.CARD:
            return self._("Waiting for {who} to choose a card.").format(who=who)
        if pending.kind is DecisionKind.DRAFT:
            return self._("Waiting for {who} to draft a card.").format(who=who)
        card = self.card(pending.card) if pending.card is not None else "?"
        return self._("Waiting for {who} to choose a row for {card}.").format(who=who, card=card)

    def players_sentence(self, names: Sequence[str]) -> str:
        """The seats in order: ``"Players: Ana, Bob, Cleo."``."""
        return self._("Players: {names}.").format(names=", ".join(names))

    def rules_name(self, rules: Rules) -> str:
        """The preset and the variants of ``rules`` in words: ``"Classic + Tactics"``
        (Serbian ``"Klasična + Taktika"``; a plus, since the rules sentence lists with
        commas)."""
        return self.rules_label(rules.name)

    def rules_label(self, name: str) -> str:
        """:meth:`rules_name` from the rules' short name alone (``"classic+tactics"``), as
        the lobby lists tables; a part this narrator does not know is kept as it is."""
        _ = self._
        words = {
            "classic": _("Classic"),
            "category5": _("Category 5"),
            "tactics": _("Tactics"),
            "logic": _("Logic"),
            "professional": _("Professional"),
            "open": _("Open"),
            "open-hands": _("Open hands"),
            "jokers": _("Jokers"),
        }
        return " + ".join(words.get(part, part) for part in name.split("+"))

    def rules_sentence(self, rules: Rules) -> str:
        """The rules of a table in one sentence."""
        kept = self._kept(("rules", rules))
        if kept is not None:
            return kept
        return self._keep(("rules", rules), self._rules_sentence(rules))

    def _rules_sentence(self, rules: Rules) -> str:
        if rules.end is EndMode.CLASSIC:
            end = self._("the game ends when someone reaches {limit}").format(limit=rules.limit)
        elif rules.end is EndMode.ELIMINATION:
            end = self._("players reaching {limit} are out").format(limit=rules.limit)
        else:
            end = self._n("{count} round", "{count} rounds", rules.rounds or 0)
        return self._("Rules: {name}, {players}, {end}.").format(
            name=self.rules_name(rules),
            players=self._n("{count} player", "{count} players", rules.players),
            end=end,
        )

    def record_verified(self, rounds: int, decisions: int, finished: bool, digest: str) -> str:
        """The last line of ``nimmt replay``: what the replay checked, so that a listener
        hears the verdict in the language the game was told in."""
        # TRANSLATORS: the end of a replayed game record; {digest} is a hexadecimal hash.
        return self._("Record verified: {rounds}, {decisions}, {state}; events SHA-256 "
                      "{digest}.").format(
            rounds=self._n("{count} round", "{count} rounds", rounds),
            decisions=self._n("{count} decision", "{count} decisions", decisions),
            state=self._("the game is over") if finished else self._("the game goes on"),
            digest=digest,
        )

    # -- advice and reviews ------------------------------------------------------

    def about_bullheads(self, amount: float) -> str:
        """An expected number of bullheads, said in whole bullheads: ``"about 4 bullheads"``,
        or ``"almost nothing"`` below half a bullhead."""
        if not math.isfinite(amount) or amount < 0.5:
            # TRANSLATORS: an expected cost below half a bullhead.
            return self._("almost nothing")
        return self._n("about {count} bullhead", "about {count} bullheads", int(amount + 0.5))

    def percent(self, chance: float) -> str:
        """A chance as a whole percentage: ``"38 percent"``."""
        return self._n("{count} percent", "{count} percent", int(chance * 100 + 0.5))

    def advice_sentence(self, advice: Advice) -> str:
        """A hint: the advised option and the reason, for the player who asked.

        Costs are the expected bullheads of the rest of the round, in whole
        bullheads; the reason names the next best option and what it risks.
        """
        _ = self._
        kind = advice.kind
        best = advice.best
        cost = self.about_bullheads(advice.cost)
        alt = advice.alternative
        risk = self.about_bullheads(advice.risk)
        reason = advice.reason
        if kind is DecisionKind.DRAFT:
            # TRANSLATORS: the logic draft; the advice is a rule of thumb, not a search.
            return _("Draft {card}: a high card with few bullheads is never too low.").format(
                card=self.card(best)
            )
        if kind is DecisionKind.ROW:
            joker = advice.card is not None and advice.card < 0
            if reason is Reason.DECIDED:
                if joker:
                    text = _(
                        "Put your {card} on row {row}, the safest choice: "
                        "this round cannot change the result of the game."
                    )
                    return text.format(card=self.card(advice.card or 0), row=best)
                text = _(
                    "Take row {row}, the cheapest choice: "
                    "this round cannot change the result of the game."
                )
                return text.format(row=best)
            if reason is Reason.GAME:
                chance = self.percent(advice.option(best).win or 0.0)
                if joker:
                    text = _(
                        "Put your {card} on row {row}: it gives you the best chance to win the "
                        "game, {chance}. Expected cost: {cost}."
                    )
                    return text.format(
                        card=self.card(advice.card or 0), row=best, chance=chance, cost=cost
                    )
                text = _(
                    "Take row {row}: it gives you the best chance to win the game, {chance}. "
                    "Expected cost: {cost}."
                )
                return text.format(row=best, chance=chance, cost=cost)
            if joker:
                text = _("Put your {card} on row {row}, expected cost: {cost}. Row {alt}: {risk}.")
                return text.format(
                    card=self.card(advice.card or 0), row=best, cost=cost, alt=alt, risk=risk
                )
            text = _("Take row {row}, expected cost: {cost}. Row {alt}: {risk}.")
            return text.format(row=best, cost=cost, alt=alt, risk=risk)
        card = self.card(best)
        if reason is Reason.ONLY:
            return _("Play {card}: it is the only card you can play.").format(card=card)
        if reason is Reason.DECIDED:
            text = _(
                "Play {card}, your safest card: this round cannot change the result of the game."
            )
            return text.format(card=card)
        if reason is Reason.GAME:
            chance = self.percent(advice.option(best).win or 0.0)
            text = _(
                "Play {card}: it gives you the best chance to win the game, {chance}. "
                "Expected cost: {cost}."
            )
            return text.format(card=card, chance=chance, cost=cost)
        other = self.card(alt) if alt is not None else "?"
        if reason is Reason.SIXTH:
            # TRANSLATORS: {alt} is the next best card; {risk} e.g. "about 4 bullheads".
            text = _(
                "Play {card}, expected cost: {cost}. "
                "{alt} may be the sixth card of its row: {risk}."
            )
        elif reason is Reason.TOO_LOW:
            text = _(
                "Play {card}, expected cost: {cost}. "
                "{alt} may be lower than every row, and then you take one: {risk}."
            )
        elif reason is Reason.LATER:
            text = _(
                "Play {card}, expected cost: {cost}. "
                "{alt} is safe now but costs more later in the round: {risk}."
            )
        else:
            text = _("Play {card}, expected cost: {cost}; {alt} is almost as good.")
        return text.format(card=card, cost=cost, alt=other, risk=risk)

    def review_sentences(
        self, review: GameReview, viewer: int | None = None, names: Sequence[str] | None = None
    ) -> list[str]:
        """A finished game in a few sentences: each player's summary, then the costliest
        decisions with what the expert would have played (short enough to listen to).
        A partial review (its time ran out) says so first.

        ``names`` default to the review's; ``viewer`` is spoken to as "you".
        """
        _ = self._
        seat_names = list(names if names is not None else review.names)
        out: list[str] = []
        if review.partial:
            out.append(self._n(
                "The time for the analysis ran out: it covers the first {count} decision.",
                "The time for the analysis ran out: it covers the first {count} decisions.",
                len(review.decisions)))
        for p in review.players:
            who = self.player(p.seat, seat_names, viewer)
            text = _(
                "{name}: {agreed} of {count} decisions as the expert would choose. "
                "Given away: {extra}."
            )
            out.append(
                text.format(
                    name=who, agreed=p.agreed, count=p.decisions,
                    extra=self.about_bullheads(p.extra),
                )
            )
        if not review.costliest:
            out.append(_("Every decision matched the expert's choice."))
            return out
        out.append(_("The costliest decisions:"))
        for d in review.costliest:
            out.append(self.decision_review_sentence(d, seat_names, viewer))
        return out

    def decision_review_sentence(
        self, review: DecisionReview, names: Sequence[str], viewer: int | None = None
    ) -> str:
        """One reviewed decision: what was played, what the expert would play, and the
        expected bullheads (and win chances, where the game was rated) of both."""
        _ = self._
        advice = review.advice
        fields: dict[str, object] = {
            "round": advice.round,
            "turn": advice.turn,
            "name": self.player(review.seat, names),
            "cost": self.about_bullheads(advice.option(review.played).bullheads),
            "best_cost": self.about_bullheads(advice.option(advice.best).bullheads),
        }
        you = viewer is not None and review.seat == viewer
        if advice.kind is DecisionKind.ROW:
            fields.update(played=review.played, best=advice.best)
            if you:
                text = _(
                    "Round {round}, turn {turn}: you take row {played}, the expert would take "
                    "row {best}. Expected cost: {cost}; with the expert's choice: {best_cost}."
                )
            else:
                text = _(
                    "Round {round}, turn {turn}: {name} takes row {played}, the expert would "
                    "take row {best}. Expected cost: {cost}; with the expert's choice: {best_cost}."
                )
        else:
            fields.update(played=self.card(review.played), best=self.card(advice.best))
            if you:
                text = _(
                    "Round {round}, turn {turn}: you play {played}, the expert would play "
                    "{best}. Expected cost: {cost}; with the expert's choice: {best_cost}."
                )
            else:
                text = _(
                    "Round {round}, turn {turn}: {name} plays {played}, the expert would play "
                    "{best}. Expected cost: {cost}; with the expert's choice: {best_cost}."
                )
        sentence = text.format(**fields)
        played_win = advice.option(review.played).win
        best_win = advice.option(advice.best).win
        if played_win is not None and best_win is not None and (review.win_lost or 0) >= 0.005:
            text = _("Chance to win: {chance}; with the expert's choice: {best_chance}.")
            sentence += " " + text.format(
                chance=self.percent(played_win), best_chance=self.percent(best_win)
            )
        return sentence

    # -- the clock and refusals --------------------------------------------------

    def timer_sentence(self, seconds: int) -> str:
        """A turn-timer warning: ``"10 seconds left."``."""
        kept = self._kept(("timer", seconds))
        if kept is not None:
            return kept
        return self._keep(("timer", seconds),
                          self._n("{count} second left.", "{count} seconds left.", seconds))

    def timeout_sentence(
        self, seat: int, names: Sequence[str], viewer: int | None = None
    ) -> str:
        """Time ran out and the table decides for ``seat`` (docs/rules.md §5)."""
        if seat == viewer:
            return self._("Time is up: the table plays for you.")
        return self._("Time is up: the table plays for {name}.").format(
            name=self.player(seat, names)
        )

    def refusal_sentence(self, code: str) -> str:
        """A server's refusal (an ``error`` message's ``code``, docs/protocol.md), said to
        the person whose message it refuses.

        The code alone decides the sentence: the English ``message`` beside it is for
        logs and may name what the person cannot see. An unknown code gets the general
        sentence, so a newer server never leaves a client silent.
        """
        try:
            return self._(REFUSALS[E(code)])
        except ValueError:
            return self._("Something went wrong; please try again.")

    def analysis_refusal(self, status: int, wait: float | None = None) -> str:
        """Why a game's analysis is not given (the HTTP status of ``/api/games/{id}/analysis``),
        with the seconds to wait before asking again when the server said them."""
        if status == 404:
            return self._("This game cannot be found.")
        if status == 409:
            return self._("The game was not finished, so there is nothing to analyse.")
        if status in (429, 503):
            if wait is None:
                return self._("The expert is busy. Please try again in a minute.")
            return self._n("The expert is busy. Please try again in about {count} second.",
                           "The expert is busy. Please try again in about {count} seconds.",
                           max(1, math.ceil(wait)))
        return self._("Something went wrong; please try again.")

    def idle_sentence(self, view: View, names: Sequence[str]) -> str:
        """The answer to a move made when nothing is asked of the viewer: that nothing is,
        and whom the table waits for."""
        if view.phase is Phase.OVER:
            return self._("The game is over.")
        waiting = self.pending_sentence(view.pending, names, view.player)
        if waiting is None:
            return self._("Nothing is asked of you now.")
        # TRANSLATORS: {waiting} is a whole sentence: "Waiting for Ana to choose a card."
        return self._("Nothing is asked of you now. {waiting}").format(waiting=waiting)

    def notice_sentence(
        self,
        notice: str,
        reason: str | None = None,
        name: str | None = None,
        seat: int | None = None,
        *,
        you: bool = False,
        game_no: int = 1,
    ) -> str:
        """A change of the table (a server's ``notice`` item, docs/protocol.md), told to
        one reader: ``name`` and ``seat`` (counted from 0) are whom it concerns, ``you``
        that it is the reader; ``game_no`` numbers the game that starts.

        The sentences avoid forms that agree with a person's gender (the server does not
        know it), as every sentence about players does.
        """
        _ = self._
        who = name or ""
        place = (seat or 0) + 1
        match notice, reason:
            case "sat", _:
                if you:
                    return _("You sit in seat {seat}.").format(seat=place)
                return _("{name} sits in seat {seat}.").format(name=who, seat=place)
            case "bot_added", _:
                return _("{name} sits in seat {seat}.").format(name=who, seat=place)
            case ("left" | "removed"), _:
                if you:
                    return _("You leave seat {seat}.").format(seat=place)
                return _("{name} leaves seat {seat}.").format(name=who, seat=place)
            case "kicked", _:
                if you:
                    return _("The host removed you from seat {seat}.").format(seat=place)
                return _("The host removed {name} from seat {seat}.").format(
                    name=who, seat=place
                )
            case "host", _:
                if you:
                    return _("You are now the host.")
                return _("{name} is now the host.").format(name=who)
            case "started", _:
                if game_no <= 1:
                    return _("The game starts.")
                return _("Game {number} starts: a rematch.").format(number=game_no)
            case "closed", _:
                return _("The table is closed.")
            case "auto_on", "timeout":
                if you:
                    return _(
                        "You ran out of time; the default bot makes this decision for you. "
                        "The next one is yours again."
                    )
                return _(
                    "{name} ran out of time; the default bot makes this decision for them."
                ).format(name=who)
            case "auto_on", "disconnected":
                if you:
                    return _(
                        "You were disconnected; the default bot played for you. Play a card "
                        "to take your seat back."
                    )
                return _("{name} is disconnected; the default bot plays for them.").format(
                    name=who
                )
            case "auto_on", "kicked":
                return _("The host removed {name}; the default bot plays for them.").format(
                    name=who
                )
            case "auto_on", _:
                return _("{name} left; the default bot plays for them.").format(name=who)
            case "auto_off", "returned":
                if you:
                    return _("The default bot made that decision for you; the next one is yours.")
                return _("{name} plays again after the default bot's decision.").format(
                    name=who
                )
            case "auto_off", _:
                if you:
                    return _("You play again.")
                return _("{name} plays again.").format(name=who)
        return _("The table changed.")

    def invitation_sentence(self, name: str, table: str) -> str:
        """An invitation to a table, as its guest hears it wherever they are."""
        return self._("{name} invites you to table {table}.").format(name=name, table=table)

    def chat_sentence(self, name: str, text: str) -> str:
        """A chat line as said: ``"Ana says: good luck"``."""
        return self._("{name} says: {text}").format(name=name, text=text)

    def error_sentence(self, error: BaseException) -> str:
        """Why a decision or a request was refused, for the player who made it.

        Only the error's type is used: the details of an exception are for
        logs, in English, and may name things the player cannot see.
        """
        if isinstance(error, CardNotInHand):
            return self._("You do not hold that card.")
        if isinstance(error, NoSuchRow):
            return self._("Rows are numbered 1 to 4.")
        if isinstance(error, NotYourDecision):
            return self._("That decision is not yours to make now.")
        if isinstance(error, GameOverError):
            return self._("The game is over.")
        if isinstance(error, IllegalMove):
            return self._("That move is not allowed now.")
        if isinstance(error, RulesError):
            return self._("Those rules cannot be played together.")
        if isinstance(error, RecordError):
            return self._("That game record does not replay.")
        return self._("Something went wrong; please try again.")

    # -- events -----------------------------------------------------------------

    def describe(
        self, event: Event, names: Sequence[str], viewer: int | None = None
    ) -> str | None:
        """One event as one sentence group; ``None`` when it has nothing to tell this reader.

        With a ``viewer`` the event is first seen through
        :func:`nimmt.events.for_viewer`, so a hidden hand or card is never told.
        """
        if viewer is not None:
            seen = for_viewer(event, viewer)
            if seen is None:
                return None
            event = seen
        _ = self._

        def name(p: int) -> str:
            return self.player(p, names)

        def you(p: int) -> bool:
            return viewer is not None and p == viewer

        match event:
            case RoundStarted(round=rnd, players=players, deck_size=deck):
                return _("Round {round} begins for {players}, with {deck}.").format(
                    round=rnd,
                    players=self._names(players, names, viewer),
                    deck=self.count_cards(deck),
                )
            case HandDealt(player=p, hand=hand):
                if not hand:
                    return None
                if you(p):
                    return _("Your hand: {cards}.").format(cards=self.cards(hand))
                return _("{name}'s hand: {cards}.").format(name=name(p), cards=self.cards(hand))
            case DraftStarted(pool=pool, first=first):
                pool_text = self._n(
                    "Draft from {count} face-up card: {cards}.",
                    "Draft from {count} face-up cards: {cards}.",
                    len(pool),
                )
                pool_text = pool_text.format(cards=self.cards(pool))
                if you(first):
                    return pool_text + " " + _("You pick first.")
                return pool_text + " " + _("{name} picks first.").format(name=name(first))
            case CardDrafted(player=p, card=card):
                if you(p):
                    return _("You draft {card}.").format(card=self.card(card))
                return _("{name} drafts {card}.").format(name=name(p), card=self.card(card))
            case RowsDealt(rows=rows):
                return _("The rows: {table}").format(table=self.table(rows))
            case TurnStarted(turn=turn, marker=marker):
                if marker is None:
                    return _("Turn {turn}.").format(turn=turn)
                if you(marker):
                    text = _("Turn {turn}. You have the first-player marker and choose first.")
                    return text.format(turn=turn)
                text = _("Turn {turn}. {name} has the first-player marker and chooses first.")
                return text.format(turn=turn, name=name(marker))
            case CardChosen(player=p, card=card, face_up=face_up):
                if card is None:
                    if you(p):
                        return _("You have chosen a card.")
                    return _("{name} has chosen a card.").format(name=name(p))
                if face_up:
                    if you(p):
                        return _("You play {card} face up.").format(card=self.card(card))
                    return _("{name} plays {card} face up.").format(
                        name=name(p), card=self.card(card)
                    )
                if you(p):
                    return _("You choose {card}.").format(card=self.card(card))
                return _("{name} chooses {card}.").format(name=name(p), card=self.card(card))
            case CardsRevealed(plays=plays):
                return _("Cards revealed: {plays}.").format(
                    plays="; ".join(
                        # TRANSLATORS: one card of a list: "Ana: 12" (entries are joined by
                        # semicolons, so a name ending in a number is never read with a card).
                        _("{name}: {card}").format(
                            name=self.player(p, names, viewer), card=self.card(c)
                        )
                        for p, c in plays
                    )
                )
            case RowChoiceNeeded(player=p, card=card, reason=reason):
                if you(p):
                    # The decision asked (your_decision_sentence) says why, with each
                    # row's cost: told here too, the reader would hear it twice.
                    return None
                if reason == "too_low":
                    return _("Row choice: {name}'s {card} is lower than every row.").format(
                        name=name(p), card=self.card(card)
                    )
                if reason == "fits_no_end":
                    # TRANSLATORS: professional: the card goes after no row and before none.
                    text = _("Row choice: {name}'s {card} fits at neither end of any row.")
                    return text.format(name=name(p), card=self.card(card))
                return _("Row choice: {name} chooses the row for {card}.").format(
                    name=name(p), card=self.card(card)
                )
            case RowTaken(player=p, row=row, bullheads=points):
                bullheads = self.count_bullheads(points)
                if you(p):
                    return _("You take row {row}, {bullheads}.").format(
                        row=row, bullheads=bullheads
                    )
                return _("{name} takes row {row}, {bullheads}.").format(
                    name=name(p), row=row, bullheads=bullheads
                )
            case CardPlaced(player=p, card=card, row=row, end=end, started=started):
                fields = {"name": name(p), "card": self.card(card), "row": row}
                if started:
                    if you(p):
                        return _("Your {card} starts row {row}.").format(**fields)
                    return _("{name}'s {card} starts row {row}.").format(**fields)
                if end == "left":
                    if you(p):
                        return _("Your {card} goes to the left end of row {row}.").format(**fields)
                    return _("{name}'s {card} goes to the left end of row {row}.").format(**fields)
                if you(p):
                    return _("Your {card} goes to row {row}.").format(**fields)
                return _("{name}'s {card} goes to row {row}.").format(**fields)
            case RoundScored(round=rnd, penalties=penalties, totals=totals):
                if tuple(penalties) == tuple(totals):  # the first round: one list says both
                    return _("Round {round} is over. Bullheads: {totals}.").format(
                        round=rnd, totals=self._per_player(totals, names, viewer)
                    )
                return _("Round {round} is over. Penalties: {penalties}. Totals: {totals}.").format(
                    round=rnd,
                    penalties=self._per_player(penalties, names, viewer),
                    totals=self._per_player(totals, names, viewer),
                )
            case PlayerEliminated(player=p, total=total):
                if you(p):
                    return _("You are out with {bullheads}.").format(
                        bullheads=self.count_bullheads(total)
                    )
                return _("{name} is out with {bullheads}.").format(
                    name=name(p), bullheads=self.count_bullheads(total)
                )
            case GameOver(winners=winners, totals=totals):
                if not winners:
                    return _("Game over.")
                best = self.count_bullheads(totals[winners[0]])
                if len(winners) == 1:
                    if you(winners[0]):
                        return _("Game over: you win with {bullheads}.").format(bullheads=best)
                    return _("Game over: {name} wins with {bullheads}.").format(
                        name=name(winners[0]), bullheads=best
                    )
                return _("Game over: {names} share the win with {bullheads} each.").format(
                    names=self._names(winners, names, viewer), bullheads=best
                )
        raise TypeError(f"not an event: {event!r}")

    def _take_and_start(
        self, taken: RowTaken, placed: CardPlaced, names: Sequence[str], viewer: int | None
    ) -> str:
        fields = {
            "row": taken.row,
            "bullheads": self.count_bullheads(taken.bullheads),
            "card": self.card(placed.card),
        }
        if taken.reason == "full":
            # Why the row is taken (the sixth card) and what is taken, as the rules say it.
            fields["cards"] = self.join([self.card(c) for c in taken.cards])
            if viewer is not None and taken.player == viewer:
                text = self._(
                    "Your {card} is the sixth card in row {row}: you take {cards}, "
                    "worth {bullheads}, and {card} starts the row."
                )
                return text.format(**fields)
            text = self._(
                "{name}'s {card} is the sixth card in row {row}: {name} takes {cards}, "
                "worth {bullheads}, and {card} starts the row."
            )
            return text.format(name=self.player(taken.player, names), **fields)
        if viewer is not None and taken.player == viewer:
            return self._("You take row {row}, {bullheads}, and start it with {card}.").format(
                **fields
            )
        return self._("{name} takes row {row}, {bullheads}, and starts it with {card}.").format(
            name=self.player(taken.player, names), **fields
        )

    def narrate(
        self,
        events: Iterable[Event],
        names: Sequence[str],
        viewer: int | None = None,
        others_chosen: bool | None = None,
    ) -> list[str]:
        """Sentences for a run of events, in order.

        A row taken and the card that starts it anew are told as one sentence,
        because that is one thing happening at the table. ``others_chosen`` sums
        up the other players' hidden choices for a reader who plays along: not
        one sentence per player but, when it is true (the viewer is the only one
        still to choose), "Everyone else has chosen." once; ``None`` tells each
        choice (a record, a replay).
        """
        out: list[str] = []
        held: RowTaken | None = None
        summed = False
        for event in events:
            if (
                others_chosen is not None
                and type(event) is CardChosen
                and not event.face_up
                and event.player != viewer
            ):
                if others_chosen and not summed:
                    out.append(self._("Everyone else has chosen."))
                    summed = True
                continue
            if held is not None:
                if (
                    type(event) is CardPlaced
                    and event.started
                    and event.player == held.player
                    and event.row == held.row
                ):
                    out.append(self._take_and_start(held, event, names, viewer))
                    held = None
                    continue
                out.extend(self._told(held, names, viewer))
                held = None
            if type(event) is RowTaken:
                held = event
                continue
            out.extend(self._told(event, names, viewer))
        if held is not None:
            out.extend(self._told(held, names, viewer))
        return out

    def _told(self, event: Event, names: Sequence[str], viewer: int | None) -> list[str]:
        text = self.describe(event, names, viewer)
        return [] if text is None else [text]

    def announce(
        self,
        events: Iterable[Event],
        names: Sequence[str],
        viewer: int | None = None,
        others_chosen: bool | None = None,
    ) -> str:
        """A batch of events (say, one resolution step) as one announcement."""
        return " ".join(self.narrate(events, names, viewer, others_chosen))


#: Sentences a narrator keeps (see :attr:`Narrator._memo`): rows of up to six cards met at
#: the tables of a busy server, well under a few megabytes.
MEMO_SIZE = 50_000


@lru_cache(maxsize=32)
def narrator(language: str = SOURCE_LANGUAGE) -> Narrator:
    """The shared narrator of ``language`` from the installed catalogs (made once)."""
    return Narrator(language)
