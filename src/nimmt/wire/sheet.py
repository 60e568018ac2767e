"""The sheet: what a client's shortcuts say about the table as it is now, sent with the view
so a key is answered at once, and the change of it a frame carries.

The sentences are the narration's (:mod:`nimmt.narrate`); this module says which go on a
sheet, keeps those a table has already made (:class:`SheetMemo`), and makes and merges
the changes between two sheets, on both ends of the wire.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from pydantic import MISSING

from ..cards import Card
from ..decisions import DecisionKind
from ..narrate import Narrator, SeatMark, narrator
from ..rules import Rules
from ..views import Phase, View
from .base import Payload, build, changes, merged

__all__ = ["SHEET_FIELDS", "Sheet", "SheetChange", "SheetMemo", "merge_sheet", "sheet_change",
           "sheet_payload", "table_sheet"]


class Sheet(Payload):
    """What a client's shortcuts say about the table as it is now (docs/rules.md §9), in the
    language of the connection's ``hello``: sent with the view, so a key is answered at
    once, without asking the server. Before a table's first game (no view) only ``who``
    (the seats) and ``rules`` say something; the other fields are empty (``""``, ``[]``,
    null)."""

    rows: str
    """Key V: every row."""
    row: tuple[str, ...]
    """Keys 1–4: each row, row 1 first."""
    row_bullheads: tuple[str, ...]
    """Key C on a row: its bullheads, row 1 first."""
    cards: tuple[tuple[Card, str], ...]
    """Key C on a card of the hand (or of the draft pool): ``[card, sentence]`` pairs."""
    chosen: str
    """Key T: who has chosen this turn's card and who has not."""
    scores: str
    """Key S: the scores."""
    who: str
    """Key W: who is at the table, in seat order, with their bullheads this game (before a
    game, each seat and who sits there), and who is a bot, away or played by the default
    bot."""
    hand: str | None
    """Key A: the hand, and the card chosen this turn (a spectator's says they have none;
    null from servers before it did)."""
    decision: str | None
    """The decision asked of this seat, with what each answer costs; null if none. A card
    choice does not list the hand (``hand`` says it, on demand)."""
    decision_with_hand: str | None
    """``decision`` with the hand listed for a card choice, for a reader who types the
    card's number from the sentence (a line-mode terminal)."""
    timer: tuple[str, ...]
    """The warning when 1..10 seconds are left: the first for 1 second, the last for 10."""
    idle: str
    """The answer to a move made when nothing is asked of this seat: that nothing is, and
    whom the table waits for."""
    rules: str
    """The rules in a sentence."""

    @classmethod
    def empty(cls, who: str = "", rules: str = "") -> Sheet:
        """A sheet with nothing to say about a game: a client's before its first frame, or
        (given key W's ``who`` and the ``rules``) a table's before its first game."""
        return build(cls, {"rows": "", "row": (), "row_bullheads": (), "cards": (),
                           "chosen": "", "scores": "", "who": who, "hand": None, "decision": None,
                           "decision_with_hand": None, "timer": (), "idle": "", "rules": rules})

    def card(self, card: Card) -> str | None:
        """Key C's answer on ``card`` of the hand or the pool; None for another card."""
        return next((text for c, text in self.cards if c == card), None)

    @property
    def typed_decision(self) -> str | None:
        """The decision as a reader who types the card's number hears it (the hand listed)."""
        return self.decision_with_hand or self.decision


class SheetChange(Payload):
    """The fields of the :class:`Sheet` that changed since the last sheet this connection was
    sent (``table_state``'s, or the last ``events``'): a field left out says what it said.
    The first sheet after a ``table_state``-less start (a catch-up) holds every field.
    A client keeps the sheet of the last ``table_state`` and merges each change into it
    (docs/protocol.md); the fields mean what :class:`Sheet`'s do."""

    rows: str | MISSING = MISSING
    row: tuple[str, ...] | MISSING = MISSING
    row_bullheads: tuple[str, ...] | MISSING = MISSING
    cards: tuple[tuple[Card, str], ...] | MISSING = MISSING
    chosen: str | MISSING = MISSING
    scores: str | MISSING = MISSING
    who: str | MISSING = MISSING
    hand: str | MISSING | None = MISSING
    decision: str | MISSING | None = MISSING
    decision_with_hand: str | MISSING | None = MISSING
    timer: tuple[str, ...] | MISSING = MISSING
    idle: str | MISSING = MISSING
    rules: str | MISSING = MISSING


# Each field of a change is described as the sheet's (one text for both, in the schema).
for _name, _field in SheetChange.model_fields.items():
    _field.description = Sheet.model_fields[_name].description
SheetChange.model_rebuild(force=True)
#: The sheet's fields, in order.
SHEET_FIELDS: tuple[str, ...] = tuple(Sheet.model_fields)


def sheet_change(sheet: Sheet, before: Sheet | None) -> SheetChange:
    """The fields of ``sheet`` that differ from ``before`` (the sheet the reader has; None:
    none, so every field), unvalidated. Sentences a table keeps are shared objects
    (:class:`SheetMemo`), so an unchanged field is nearly always the same object."""
    return changes(sheet, before, SheetChange)


def merge_sheet(sheet: Sheet | None, change: SheetChange) -> Sheet:
    """``sheet`` (the last one a client holds; None: none yet) with ``change`` merged in:
    the sheet the server holds for that client (:func:`~.base.merged`)."""
    return merged(sheet, change, Sheet)


class SheetMemo:
    """The sentences of one table's sheets, kept by exactly what each one reads.

    A table sends a sheet to every seat and language after every event, and most of it
    has not changed since the last one (a card chosen changes who has chosen, not the
    rows or the scores) or is the same for every seat (the rows, the timer, the rules):
    each sentence is made once and shared. A key holds every field of the view the
    sentence reads, so a kept sentence is the one that would be made afresh
    (tests/server/test_server_sheets.py checks this over played games).

    Each sentence has a place (its field, the language, and the seat it is said to
    where it names "you"), and a place keeps its last sentence only: what a table
    keeps is bounded by its seats and languages, however long its games.
    """

    __slots__ = ("_kept",)

    def __init__(self) -> None:
        self._kept: dict[object, tuple[object, Any]] = {}

    def get(self, place: object, key: object, make: Callable[[], Any]) -> Any:
        """The sentence at ``place`` for ``key``: the one kept there, or ``make()``."""
        kept = self._kept.get(place)
        if kept is not None and kept[0] == key:
            return kept[1]
        value = make()
        self._kept[place] = (key, value)
        return value

    def __len__(self) -> int:
        return len(self._kept)



def table_sheet(rules: Rules, view: View | None, names: Sequence[str], viewer: int | None,
                lang: str | Narrator, memo: SheetMemo | None = None,
                presence: Sequence[SeatMark] | None = None) -> Sheet:
    """The sheet of ``viewer``'s seat (None: a spectator) at a table of ``rules``: of
    ``view`` (:func:`sheet_payload`), or before the table's first game (no view) of its
    seats alone: key W names each seat and who sits there and the rules are said, while
    the fields that tell a game are empty, as a client's sheet before its first frame is.
    ``memo`` and ``presence``: as :func:`sheet_payload` takes them."""
    if view is not None:
        return sheet_payload(view, names, lang, memo, presence)
    speak = lang if isinstance(lang, Narrator) else narrator(lang)
    if memo is None:
        memo = SheetMemo()
    code = speak.language
    names = tuple(names)
    presence = None if presence is None else tuple(presence)
    return Sheet.empty(
        who=memo.get(("who", (code, viewer)), (names, presence),
                     lambda: speak.who_sentence(names, viewer, None, presence)),
        rules=memo.get(("rules", code), rules, lambda: speak.rules_sentence(rules)))


def sheet_payload(view: View, names: Sequence[str], lang: str | Narrator,
                  memo: SheetMemo | None = None,
                  presence: Sequence[SeatMark] | None = None) -> Sheet:
    """The sentences of the shortcuts for ``view`` (already the seat's share of the game),
    said by the narration in ``lang`` (a language code, or its narrator); ``memo``: the
    table's sentences so far, to share what did not change (its keys name the language);
    ``presence``: who sits in each seat (:attr:`SeatInfo.presence`), for key W (None: only
    the names are known)."""
    speak = lang if isinstance(lang, Narrator) else narrator(lang)
    if memo is None:
        memo = SheetMemo()
    code = speak.language
    rows = view.rows
    player = view.player
    pending = view.pending
    waits = None if pending is None else (pending.kind, pending.players, pending.card,
                                          pending.reason)
    phase = view.phase
    names = tuple(names)
    presence = None if presence is None else tuple(presence)
    seat = (code, player)
    table_rows, row, row_bullheads = memo.get(("rows", code), rows, lambda: (
        speak.rows_sentence(view),
        tuple(speak.row_sentence(view, n) for n in range(1, len(rows) + 1)),
        tuple(speak.bullheads_sentence(r, n) for n, r in enumerate(rows, 1))))
    # Asked of this seat or not: the sentence reads the decision and its options alone
    # (the rows too, for a row).
    asked = pending is not None and player is not None and player in pending.players
    decision, decision_with_hand = None, None
    if asked:
        assert pending is not None
        decision, decision_with_hand = memo.get(
            ("decision", seat), (pending.kind, pending.card, pending.reason, view.options,
                                 rows if pending.kind is DecisionKind.ROW else None), lambda: (
                speak.your_decision_sentence(view),
                speak.your_decision_sentence(view, hand=True)))
    return build(Sheet, {
        "rows": table_rows,
        "row": row,
        "row_bullheads": row_bullheads,
        "cards": memo.get(("cards", seat), (view.hand, view.draft_pool), lambda: tuple(
            (c, speak.bullheads_sentence(c)) for c in (*view.hand, *view.draft_pool))),
        "chosen": memo.get(
            ("chosen", seat), (names, phase, waits, view.active, view.chosen, view.face_up,
                               view.my_choice), lambda: speak.chosen_sentence(view, names)),
        "scores": memo.get(
            ("scores", seat), (names, phase is Phase.OVER, view.scores, view.eliminated,
                               view.penalties, view.active),
            lambda: speak.scores_sentence(view, names)),
        "who": memo.get(
            ("who", seat), (names, presence, phase is Phase.OVER, view.scores, view.penalties),
            lambda: speak.who_sentence(names, player, view, presence)),
        "hand": memo.get(
            ("hand", seat), (view.hand, view.my_choice), lambda: speak.hand_sentence(view)),
        "decision": decision,
        "decision_with_hand": decision_with_hand,
        "timer": memo.get(("timer", code), None, lambda: tuple(
            speak.timer_sentence(s) for s in range(1, 11))),
        # "You" is named only to a seat the table waits for: every other seat (and a
        # spectator) hears the same idle sentence, made once.
        "idle": memo.get(("idle", (code, player if asked else None)),
                         (names, phase is Phase.OVER, waits),
                         lambda: speak.idle_sentence(view, names)),
        "rules": memo.get(("rules", code), view.rules, lambda: speak.rules_sentence(view.rules)),
    })
