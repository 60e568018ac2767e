"""The rules of a table: a frozen, validated value.

``Rules`` holds everything that decides how a game plays: the number of seats,
the end mode and its limit, and the variants. Presets are named constructors;
variants combine where docs/rules.md defines the combination and are refused with
an error naming the pair where it does not. Every refusal is a
:class:`~nimmt.errors.RulesError` that lists the valid values.

>>> Rules.parse("category5+tactics", players=5).limit
75
>>> Rules.parse("classic+professional+open-hands").name
'classic+professional+open-hands'
>>> Rules.parse("open+tactics")  # doctest: +ELLIPSIS
Traceback (most recent call last):
...
nimmt.errors.RulesError: tactics cannot be combined with open: ...open takes card 1 out...
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from .cards import JOKERS, MAX_CARD, Card
from .errors import RulesError


class EndMode(StrEnum):
    """How a game ends (docs/rules.md §3)."""

    CLASSIC = "classic"
    """After the round in which any total reaches the limit; fewest points win, ties share."""
    ELIMINATION = "elimination"
    """Players reaching the limit drop out; the last one standing wins."""
    ROUNDS = "rounds"
    """A fixed number of rounds; fewest points win."""


#: The variants of docs/rules.md §4, in canonical order.
VARIANTS: tuple[str, ...] = ("tactics", "logic", "professional", "open", "open-hands", "jokers")

#: Presets: name → the limit they set. Every preset uses the classic end unless told otherwise.
PRESETS: dict[str, int] = {"classic": 66, "category5": 75}

VARIANT_HELP: dict[str, str] = {
    "tactics": "deck of cards 1..10n+4 for n active players, so every card in play is known",
    "logic": "the tactics deck laid face up and drafted one card at a time; the 4 left start rows",
    "professional": "cards may go at either end of a row; smallest difference wins, ties go right",
    "open": "card 1 is the first-player marker; players choose in turn order, face up",
    "open-hands": "every hand is visible to everyone",
    "jokers": "each player gets one joker 0.0-0.9 and 9 number cards; jokers go first, anywhere",
}

# Pairs that docs/rules.md leaves undefined, with the reason given to the user.
_REFUSED: dict[frozenset[str], str] = {
    frozenset({"open", "tactics"}): (
        "open takes card 1 out as the first-player marker, so a tactics deck of 10n+4 cards "
        "cannot be dealt"
    ),
    frozenset({"open", "logic"}): (
        "logic drafts the whole tactics deck including card 1, which open takes out as the "
        "first-player marker"
    ),
    frozenset({"jokers", "tactics"}): (
        "jokers replace one number card in every hand, so n cards of the tactics deck would stay "
        "unseen and the deck would no longer be known"
    ),
    frozenset({"jokers", "logic"}): "the logic draft has no jokers to pick",
}

MIN_PLAYERS = 2
MAX_PLAYERS = 10
HAND_SIZE = 10
ROWS = 4
ROW_CAPACITY = 5


@dataclass(frozen=True)
class Rules:
    """A validated rule set. Build it with :meth:`preset` or :meth:`parse`.

    ``players`` is the number of seats; ``limit`` the score that ends the game
    (classic) or eliminates (elimination); ``rounds`` the number of rounds for
    the fixed-rounds end; ``variants`` any of :data:`VARIANTS`.
    """

    players: int = 4
    limit: int = 66
    end: EndMode = EndMode.CLASSIC
    rounds: int | None = None
    variants: frozenset[str] = frozenset()
    preset_name: str = "classic"
    # Flags derived once, read on the hot path.
    tactics_deck: bool = field(init=False, repr=False, compare=False)
    logic: bool = field(init=False, repr=False, compare=False)
    professional: bool = field(init=False, repr=False, compare=False)
    open_play: bool = field(init=False, repr=False, compare=False)
    open_hands: bool = field(init=False, repr=False, compare=False)
    jokers: bool = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        if isinstance(self.variants, str):
            raise RulesError(
                f"variants must be a collection of names ({', '.join(VARIANTS)}), "
                f"not the string {self.variants!r}"
            )
        object.__setattr__(self, "variants", frozenset(self.variants))
        try:
            object.__setattr__(self, "end", EndMode(self.end))
        except ValueError:
            raise RulesError(
                f"unknown end {self.end!r}; known ends: {', '.join(m.value for m in EndMode)}"
            ) from None
        unknown = sorted(self.variants - set(VARIANTS))
        if unknown:
            raise RulesError(
                f"unknown variant {unknown[0]!r}; known variants: {', '.join(VARIANTS)}"
            )
        if self.preset_name not in PRESETS:
            raise RulesError(
                f"unknown preset {self.preset_name!r}; known presets: {', '.join(PRESETS)}"
            )
        for pair, why in _REFUSED.items():
            if pair <= self.variants:
                a, b = sorted(pair, key=VARIANTS.index)
                raise RulesError(f"{a} cannot be combined with {b}: {why}")
        top = MAX_PLAYERS - 1 if "open" in self.variants else MAX_PLAYERS
        if type(self.players) is not int:
            raise RulesError(f"players must be a whole number from {MIN_PLAYERS} to {top}")
        if not MIN_PLAYERS <= self.players <= top:
            extra = " with open (card 1 is the marker)" if "open" in self.variants else ""
            raise RulesError(f"{self.players} players: {MIN_PLAYERS} to {top} may play{extra}")
        if type(self.limit) is not int or self.limit <= 0:
            raise RulesError(f"the limit must be a positive whole number, not {self.limit!r}")
        if self.end is EndMode.ROUNDS:
            if type(self.rounds) is not int or self.rounds <= 0:
                raise RulesError(
                    f"the fixed-rounds end needs a positive whole number of rounds, "
                    f"not {self.rounds!r}"
                )
        elif self.rounds is not None:
            raise RulesError(
                f"a number of rounds only applies to the rounds end, not {self.end}; "
                "give end='rounds' or no rounds"
            )
        v = self.variants
        object.__setattr__(self, "tactics_deck", "tactics" in v or "logic" in v)
        object.__setattr__(self, "logic", "logic" in v)
        object.__setattr__(self, "professional", "professional" in v)
        object.__setattr__(self, "open_play", "open" in v)
        object.__setattr__(self, "open_hands", "open-hands" in v)
        object.__setattr__(self, "jokers", "jokers" in v)

    # -- construction -------------------------------------------------------

    @classmethod
    def preset(cls, name: str = "classic", players: int = 4, **changes: Any) -> Rules:
        """A preset by name, optionally changed.

        ``Rules.preset("category5", 5, end="elimination")``
        """
        if name not in PRESETS:
            raise RulesError(f"unknown preset {name!r}; known presets: {', '.join(PRESETS)}")
        fields: dict[str, Any] = {"limit": PRESETS[name], "preset_name": name, "players": players}
        fields.update(changes)
        return cls(**fields)

    @classmethod
    def parse(cls, spec: str, players: int = 4, **changes: Any) -> Rules:
        """Rules from a name such as ``"category5+tactics+professional"``.

        The first part may be a preset; the other parts are variants. A spec
        made only of variants starts from ``classic``.
        """
        parts = [p.strip().lower() for p in spec.split("+") if p.strip()]
        if not parts:
            raise RulesError(
                f"empty rules name; give a preset ({', '.join(PRESETS)}) and/or variants "
                f"({', '.join(VARIANTS)}) joined by +"
            )
        preset = "classic"
        if parts[0] in PRESETS:
            preset = parts.pop(0)
        elif parts[0] not in VARIANTS:
            # The first part names a preset or a variant: say both lists, as it is neither.
            raise RulesError(
                f"unknown rules {parts[0]!r}: the first part is a preset "
                f"({', '.join(PRESETS)}) or a variant ({', '.join(VARIANTS)})"
            )
        for p in parts:
            if p in PRESETS:
                raise RulesError(
                    f"{p!r} is a preset and must come first, once; after it come variants "
                    f"({', '.join(VARIANTS)})"
                )
        if len(set(parts)) != len(parts):
            raise RulesError(f"a variant is named twice in {spec!r}")
        changes.setdefault("variants", frozenset(parts))
        return cls.preset(preset, players, **changes)

    # -- derived ------------------------------------------------------------

    @property
    def name(self) -> str:
        """The canonical name: preset then variants in :data:`VARIANTS` order."""
        return "+".join([self.preset_name, *(v for v in VARIANTS if v in self.variants)])

    def deck(self, active: int) -> tuple[Card, ...]:
        """The number cards of a round with ``active`` players (jokers come apart)."""
        top = 10 * active + 4 if self.tactics_deck else MAX_CARD
        low = 2 if self.open_play else 1
        return tuple(range(low, top + 1))

    def number_cards_per_hand(self) -> int:
        """Number cards dealt to each player: 9 with jokers (plus the joker), else 10."""
        return HAND_SIZE - 1 if self.jokers else HAND_SIZE

    def joker_cards(self) -> tuple[Card, ...]:
        """The jokers available for dealing (none without the jokers variant)."""
        return JOKERS if self.jokers else ()

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready form; :meth:`from_dict` reads it back."""
        return {
            "preset": self.preset_name,
            "players": self.players,
            "limit": self.limit,
            "end": self.end.value,
            "rounds": self.rounds,
            "variants": [v for v in VARIANTS if v in self.variants],
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Rules:
        """Inverse of :meth:`to_dict`; unknown keys are refused."""
        known = {"preset", "players", "limit", "end", "rounds", "variants"}
        extra = set(data) - known
        if extra:
            raise RulesError(
                f"unknown rules field {sorted(extra)[0]!r}; "
                f"known fields: {', '.join(sorted(known))}"
            )
        variants = data.get("variants", ())
        if not isinstance(variants, list | tuple | set | frozenset) or not all(
            isinstance(v, str) for v in variants
        ):
            raise RulesError(
                f"variants must be a list of names ({', '.join(VARIANTS)}), not {variants!r}"
            )
        try:
            return cls(
                players=data.get("players", 4),
                limit=data.get("limit", PRESETS.get(data.get("preset", "classic"), 66)),
                end=data.get("end", "classic"),
                rounds=data.get("rounds"),
                variants=frozenset(variants),
                preset_name=data.get("preset", "classic"),
            )
        except ValueError as exc:
            if isinstance(exc, RulesError):
                raise
            raise RulesError(str(exc)) from exc
