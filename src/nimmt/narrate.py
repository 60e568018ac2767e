"""Plain English sentences for events, rows, scores and rules.

Every sentence the project says about a game is written here, once, so the
terminal replay, the web client's live regions and the screen-reader
announcements never disagree. Each sentence is a template with named fields
passed through :func:`_` (and counts through :func:`_n`); these are the hooks
where translation catalogs will plug in, so keep sentences whole (never glue
fragments of a sentence together) and free of markup.

>>> from nimmt.events import CardsRevealed, CardPlaced, RowTaken
>>> names = ["Ana", "Bob", "Cleo"]
>>> describe(CardsRevealed(((0, 12), (1, 40), (2, 77))), names)
'Cards revealed: Ana 12, Bob 40, Cleo 77.'
>>> describe(CardPlaced(0, 12, 1), names)
"Ana's 12 goes to row 1."
>>> narrate([RowTaken(1, 3, (33, 42, 50, 57, 64), 8, "full"),
...          CardPlaced(1, 77, 3, started=True)], names)
['Bob takes row 3 (5 cards, 8 bullheads) and starts it with 77.']
>>> describe_row(2, (87, -1))
'Row 2: 87, joker 0.9 (2 cards, 2 bullheads).'
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from .cards import Card, card_label
from .defaults import row_bullheads
from .engine import DecisionKind, Pending
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
)
from .rules import EndMode, Rules

__all__ = [
    "card_name",
    "describe",
    "describe_pending",
    "describe_row",
    "describe_rules",
    "describe_scores",
    "describe_table",
    "narrate",
    "player_name",
]


def _(text: str) -> str:
    """Marks a sentence for translation (English for now)."""
    return text


def _n(singular: str, plural: str, count: int) -> str:
    """Chooses the form for ``count`` (English: one or many; other languages need more)."""
    return singular if count == 1 else plural


# -- words ----------------------------------------------------------------------


def card_name(card: Card) -> str:
    """A card as said aloud: ``"12"``, or ``"joker 0.3"`` for a joker."""
    if card < 0:
        return _("joker {label}").format(label=card_label(card))
    return card_label(card)


def player_name(player: int, names: Sequence[str]) -> str:
    """The display name of seat ``player`` (``Player 3`` when no name is known)."""
    if 0 <= player < len(names):
        return names[player]
    return _("Player {number}").format(number=player + 1)


def _and(items: Sequence[str]) -> str:
    if len(items) <= 1:
        return "".join(items)
    return _("{first} and {last}").format(first=", ".join(items[:-1]), last=items[-1])


def _cards(cards: Iterable[Card]) -> str:
    return ", ".join(card_name(c) for c in cards)


def _count_cards(count: int) -> str:
    return _n("{count} card", "{count} cards", count).format(count=count)


def _count_bullheads(count: int) -> str:
    return _n("{count} bullhead", "{count} bullheads", count).format(count=count)


def _per_player(values: Sequence[int], names: Sequence[str]) -> str:
    return ", ".join(
        _("{name} {value}").format(name=player_name(p, names), value=v)
        for p, v in enumerate(values)
    )


# -- the table ------------------------------------------------------------------


def describe_row(number: int, row: Sequence[Card]) -> str:
    """One row: its number, its cards, how many, and their bullheads."""
    return _("Row {number}: {cards} ({count}, {bullheads}).").format(
        number=number,
        cards=_cards(row),
        count=_count_cards(len(row)),
        bullheads=_count_bullheads(row_bullheads(row)),
    )


def describe_table(rows: Sequence[Sequence[Card]]) -> str:
    """All rows, row 1 first, one sentence each."""
    return " ".join(describe_row(i, row) for i, row in enumerate(rows, 1))


def describe_scores(scores: Sequence[int], names: Sequence[str]) -> str:
    """Everyone's total."""
    return _("Scores: {scores}.").format(scores=_per_player(scores, names))


def describe_rules(rules: Rules) -> str:
    """The rules of a table in one sentence."""
    if rules.end is EndMode.CLASSIC:
        end = _("the game ends when someone reaches {limit}").format(limit=rules.limit)
    elif rules.end is EndMode.ELIMINATION:
        end = _("players reaching {limit} are out").format(limit=rules.limit)
    else:
        end = _n("{rounds} round", "{rounds} rounds", rules.rounds or 0).format(rounds=rules.rounds)
    return _("Rules: {name}, {players} players, {end}.").format(
        name=rules.name, players=rules.players, end=end
    )


def describe_pending(pending: Pending | None, names: Sequence[str]) -> str | None:
    """Who the game waits for, and for what; ``None`` when it waits for nobody."""
    if pending is None:
        return None
    who = _and([player_name(p, names) for p in pending.players])
    if pending.kind is DecisionKind.CARD:
        return _("Waiting for {who} to choose a card.").format(who=who)
    if pending.kind is DecisionKind.DRAFT:
        return _("Waiting for {who} to draft a card.").format(who=who)
    card = card_name(pending.card) if pending.card is not None else "?"
    return _("Waiting for {who} to choose a row for {card}.").format(who=who, card=card)


# -- events ---------------------------------------------------------------------


def describe(event: Event, names: Sequence[str]) -> str | None:
    """One event as one sentence; ``None`` when the event has nothing to tell a reader.

    ``names`` are the display names by seat. Hidden information is the
    caller's business: pass events through :func:`nimmt.events.for_viewer`
    first, and a card chosen face down is then told without its card.
    """

    def name(p: int) -> str:
        return player_name(p, names)

    match event:
        case RoundStarted(round=rnd, players=players, deck_size=deck):
            return _("Round {round} begins for {players}, with {deck} cards.").format(
                round=rnd, players=_and([name(p) for p in players]), deck=deck
            )
        case HandDealt(player=p, hand=hand):
            if not hand:
                return None
            return _("{name}'s hand: {cards}.").format(name=name(p), cards=_cards(hand))
        case DraftStarted(pool=pool, first=first):
            return _("Draft from {count} face-up cards: {cards}. {name} picks first.").format(
                count=len(pool), cards=_cards(pool), name=name(first)
            )
        case CardDrafted(player=p, card=card):
            return _("{name} drafts {card}.").format(name=name(p), card=card_name(card))
        case RowsDealt(rows=rows):
            return _("The rows: {table}").format(table=describe_table(rows))
        case TurnStarted(turn=turn, marker=marker):
            if marker is None:
                return _("Turn {turn}.").format(turn=turn)
            return _("Turn {turn}. {name} has the first-player marker and chooses first.").format(
                turn=turn, name=name(marker)
            )
        case CardChosen(player=p, card=card, face_up=face_up):
            if card is None:
                return _("{name} has chosen a card.").format(name=name(p))
            if face_up:
                return _("{name} plays {card} face up.").format(name=name(p), card=card_name(card))
            return _("{name} chooses {card}.").format(name=name(p), card=card_name(card))
        case CardsRevealed(plays=plays):
            return _("Cards revealed: {plays}.").format(
                plays=", ".join(
                    _("{name} {card}").format(name=name(p), card=card_name(c)) for p, c in plays
                )
            )
        case RowChoiceNeeded(player=p, card=card, reason=reason):
            if reason == "too_low":
                return _("Row choice: {name}'s {card} is lower than every row.").format(
                    name=name(p), card=card_name(card)
                )
            return _("Row choice: {name} chooses the row for {card}.").format(
                name=name(p), card=card_name(card)
            )
        case RowTaken(player=p, row=row, cards=cards, bullheads=points):
            return _("{name} takes row {row} ({count}, {bullheads}).").format(
                name=name(p),
                row=row,
                count=_count_cards(len(cards)),
                bullheads=_count_bullheads(points),
            )
        case CardPlaced(player=p, card=card, row=row, end=end, started=started):
            if started:
                return _("{name}'s {card} starts row {row}.").format(
                    name=name(p), card=card_name(card), row=row
                )
            if end == "left":
                return _("{name}'s {card} goes to the left end of row {row}.").format(
                    name=name(p), card=card_name(card), row=row
                )
            return _("{name}'s {card} goes to row {row}.").format(
                name=name(p), card=card_name(card), row=row
            )
        case RoundScored(round=rnd, penalties=penalties, totals=totals):
            return _("Round {round} is over. Penalties: {penalties}. Totals: {totals}.").format(
                round=rnd,
                penalties=_per_player(penalties, names),
                totals=_per_player(totals, names),
            )
        case PlayerEliminated(player=p, total=total):
            return _("{name} is out with {bullheads}.").format(
                name=name(p), bullheads=_count_bullheads(total)
            )
        case GameOver(winners=winners, totals=totals):
            best = _count_bullheads(totals[winners[0]]) if winners else ""
            if len(winners) == 1:
                return _("Game over: {name} wins with {bullheads}.").format(
                    name=name(winners[0]), bullheads=best
                )
            return _("Game over: {names} share the win with {bullheads} each.").format(
                names=_and([name(p) for p in winners]), bullheads=best
            )
    raise TypeError(f"not an event: {event!r}")


def _take_and_start(taken: RowTaken, placed: CardPlaced, names: Sequence[str]) -> str:
    return _("{name} takes row {row} ({count}, {bullheads}) and starts it with {card}.").format(
        name=player_name(taken.player, names),
        row=taken.row,
        count=_count_cards(len(taken.cards)),
        bullheads=_count_bullheads(taken.bullheads),
        card=card_name(placed.card),
    )


def narrate(events: Iterable[Event], names: Sequence[str]) -> list[str]:
    """Sentences for a run of events, in order.

    A row taken and the card that starts it anew are told as one sentence,
    because that is one thing happening at the table.
    """
    out: list[str] = []
    pending: RowTaken | None = None
    for event in events:
        if pending is not None:
            if (
                type(event) is CardPlaced
                and event.started
                and event.player == pending.player
                and event.row == pending.row
            ):
                out.append(_take_and_start(pending, event, names))
                pending = None
                continue
            text = describe(pending, names)
            if text is not None:
                out.append(text)
            pending = None
        if type(event) is RowTaken:
            pending = event
            continue
        text = describe(event, names)
        if text is not None:
            out.append(text)
    if pending is not None:
        text = describe(pending, names)
        if text is not None:
            out.append(text)
    return out
