"""A table's log: the typed inputs a table is rebuilt from, and their stored form.

A table is event-sourced (docs/server.md): every input that changed it is one
:data:`Entry`, applied by the reducer (:func:`nimmt.server.tables.apply.apply`) and
stored in ``table_log`` as a ``kind`` and a JSON ``data`` object
(:func:`entry_to_row`). Replaying the stored entries from the first rebuilds
the table exactly, stream numbers included.

Decisions are stored as :func:`nimmt.decisions.decision_to_dict` writes them.
Tables stored by earlier versions wrote a decision as ``{"seat", "kind":
"card"|"row"|"draft", "value", "by"}``; :func:`entry_from_row` reads both, so a
server upgraded mid-game resumes its tables. A seated bot was stored by its
English name alone (``"Medium Bot 2"``); it is read as the typed
:class:`BotSeat` it names, in that one place. A round dealt after the pause at a round's
end is a ``deal`` entry, which versions before it cannot read (docs/operations.md).

>>> from nimmt.decisions import PlayCard
>>> kind, data = entry_to_row(Decided(PlayCard(0, 55), "player"))
>>> kind, data
('decision', {'decision': {'type': 'play_card', 'player': 0, 'card': 55}, 'by': 'player'})
>>> entry_from_row("decision", {"seat": 0, "kind": "card", "value": 55, "by": "player"})
Decided(decision=PlayCard(player=0, card=55), by='player', deals=())
>>> entry_to_row(BotSeated(2, BotSeat("medium", 1)))
('bot', {'seat': 2, 'bot': 'medium', 'number': 1, 'name': 'Medium Bot 1'})
>>> entry_from_row("bot", {"seat": 2, "bot": "medium", "name": "Medium Bot 1"})
BotSeated(seat=2, bot=BotSeat(kind='medium', number=1))
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal, TypeAlias

from ...deals import Deal
from ...decisions import Decision, DecisionKind, decision_from_dict, decision_to_dict, make_decision
from ...narrate import SOURCE_LANGUAGE, Narrator, narrator

__all__ = [
    "AutoPlay",
    "AutoReason",
    "BotSeat",
    "BotSeated",
    "By",
    "Chatted",
    "Closed",
    "Dealt",
    "Decided",
    "Entry",
    "HintsSet",
    "HostPassed",
    "Sat",
    "Started",
    "Unseated",
    "deal_from_dict",
    "deal_to_dict",
    "entry_from_row",
    "entry_to_row",
]

#: Who made a decision: the seated person, the seat's bot, or the default player for an
#: absent person.
By: TypeAlias = Literal["player", "bot", "default"]
#: Why the default player took a seat over (``took_over``, ``returned``: why it gave it
#: back: the person played, or it played the one decision whose time ran out).
AutoReason: TypeAlias = Literal["timeout", "left", "kicked", "disconnected", "took_over",
                                "returned"]
UnseatReason: TypeAlias = Literal["left", "kicked", "removed"]


@dataclass(frozen=True, slots=True)
class Sat:
    """A person took a seat."""

    seat: int
    player_id: int
    name: str


@dataclass(frozen=True, slots=True)
class BotSeat:
    """A bot at a table: ``kind``, the name the server offers it under (``"medium"``, an
    operator's ``"polite"``), and its ``number`` there, so two bots are told apart. What
    it is called is said from these, in each reader's language (:meth:`said`), and never
    read back from a name."""

    kind: str
    number: int

    def said(self, speak: Narrator) -> str:
        """The bot's name as ``speak``'s readers hear it (``"Bot Srednji 2"``)."""
        return speak.bot_name(self.kind, self.number)

    @property
    def name(self) -> str:
        """The name records and the store keep: the English one (``"Medium Bot 2"``)."""
        return self.said(narrator(SOURCE_LANGUAGE))


@dataclass(frozen=True, slots=True)
class BotSeated:
    """The host seated a bot."""

    seat: int
    bot: BotSeat


@dataclass(frozen=True, slots=True)
class Unseated:
    """A seat was emptied before the game: its person left or was kicked, or its bot removed."""

    seat: int
    reason: UnseatReason


@dataclass(frozen=True, slots=True)
class HostPassed:
    """The host left; the person in ``player_id``'s seat hosts now."""

    player_id: int
    name: str


@dataclass(frozen=True, slots=True)
class Started:
    """Game ``game_no`` started, with the deal of its first round (``deals``)."""

    game_no: int
    deals: tuple[Deal, ...] = ()


@dataclass(frozen=True, slots=True)
class Decided:
    """A decision, and the deal of any round it started (the store keeps every deal, so a
    replay never shuffles). Since rounds wait for their deal (:class:`Dealt`), only logs
    of earlier versions hold a deal here."""

    decision: Decision
    by: By
    deals: tuple[Deal, ...] = ()


@dataclass(frozen=True, slots=True)
class Dealt:
    """The next round dealt, once the pause after a round's end was over (``deals``: its
    deal; empty only while being applied live, which shuffles it)."""

    deals: tuple[Deal, ...] = ()


@dataclass(frozen=True, slots=True)
class AutoPlay:
    """The default player took a seat over (``on``) or gave it back."""

    seat: int
    on: bool
    reason: AutoReason


@dataclass(frozen=True, slots=True)
class Chatted:
    """A chat line (``seat`` null: a spectator's)."""

    seat: int | None
    name: str
    text: str


@dataclass(frozen=True, slots=True)
class HintsSet:
    """The host allowed (``on``) or forbade hints at the table (or opened it without)."""

    on: bool


@dataclass(frozen=True, slots=True)
class Closed:
    """The table closed."""


Entry: TypeAlias = (
    Sat | BotSeated | Unseated | HostPassed | Started | Decided | Dealt | AutoPlay | Chatted
    | HintsSet | Closed
)


def deal_to_dict(deal: Deal) -> dict[str, Any]:
    """A deal as JSON-ready data."""
    return {
        "rows": [list(r) for r in deal.rows],
        "hands": [list(h) for h in deal.hands],
        "pool": list(deal.pool),
    }


def deal_from_dict(data: dict[str, Any]) -> Deal:
    """Inverse of :func:`deal_to_dict`."""
    return Deal(rows=data["rows"], hands=data["hands"], pool=data["pool"])


def _with_deals(data: dict[str, Any], deals: tuple[Deal, ...]) -> dict[str, Any]:
    if deals:
        data["deals"] = [deal_to_dict(d) for d in deals]
    return data


def entry_to_row(entry: Entry) -> tuple[str, dict[str, Any]]:
    """The ``kind`` and JSON ``data`` an entry is stored as."""
    match entry:  # decisions first: the cases are tried in order
        case Decided(decision, by, deals):
            return "decision", _with_deals(
                {"decision": decision_to_dict(decision), "by": by}, deals)
        case Sat(seat, player_id, name):
            return "sit", {"seat": seat, "player_id": player_id, "name": name}
        case BotSeated(seat, bot):
            # The name is for servers of earlier versions (a rolling upgrade) and people
            # reading the log; this version reads the number.
            return "bot", {"seat": seat, "bot": bot.kind, "number": bot.number,
                           "name": bot.name}
        case Unseated(seat, reason):
            return "unseat", {"seat": seat, "reason": reason}
        case HostPassed(player_id, name):
            return "host", {"player_id": player_id, "name": name}
        case Started(game_no, deals):
            return "start", _with_deals({"game_no": game_no}, deals)
        case Dealt(deals):
            return "deal", _with_deals({}, deals)
        case AutoPlay(seat, on, reason):
            return "auto", {"seat": seat, "on": on, "reason": reason}
        case Chatted(seat, name, text):
            return "chat", {"seat": seat, "name": name, "text": text}
        case HintsSet(on):
            return "hints", {"on": on}
        case Closed():
            return "close", {}


def _deals(data: dict[str, Any]) -> tuple[Deal, ...]:
    return tuple(deal_from_dict(d) for d in data.get("deals", ()))


def _decision(data: dict[str, Any]) -> Decision:
    if "decision" in data:
        return decision_from_dict(data["decision"])
    # Written before decisions were typed: {"seat", "kind": "card"|"row"|"draft", "value"}.
    return make_decision(DecisionKind(data["kind"]), data["seat"], data["value"])


def _bot(data: dict[str, Any]) -> BotSeat:
    if "number" in data:
        return BotSeat(data["bot"], data["number"])
    # Written before a bot was a typed value: its name alone, which ended in its number
    # ("Medium Bot 2"; earlier "medium bot 2").
    number = str(data["name"]).rsplit(" ", 1)[-1]
    if not number.isdigit():
        raise ValueError(f"a bot seated as {data['name']!r} has no number")
    return BotSeat(data["bot"], int(number))


def entry_from_row(kind: str, data: dict[str, Any]) -> Entry:
    """The entry stored as ``kind`` and ``data`` (this version's form or an earlier one's);
    a :class:`ValueError` names an entry it cannot read."""
    match kind:
        case "sit":
            return Sat(data["seat"], data["player_id"], data["name"])
        case "bot":
            return BotSeated(data["seat"], _bot(data))
        case "unseat":
            return Unseated(data["seat"], data["reason"])
        case "host":
            return HostPassed(data["player_id"], data["name"])
        case "start":
            return Started(data["game_no"], _deals(data))
        case "decision":
            return Decided(_decision(data), data["by"], _deals(data))
        case "deal":
            return Dealt(_deals(data))
        case "auto":
            return AutoPlay(data["seat"], data["on"], data["reason"])
        case "chat":
            return Chatted(data.get("seat"), data["name"], data["text"])
        case "hints":
            return HintsSet(bool(data["on"]))
        case "close":
            return Closed()
    raise ValueError(f"unknown log entry {kind!r}")
