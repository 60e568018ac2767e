"""A game's events in words: one event (``describe``), a run of them (``narrate``, where a
row taken and the card starting it are one sentence), a resolution step as one
announcement (``announce``) and a stretch of the game as one announcement per step
(``steps``, over :func:`nimmt.walk.walk`), told to one viewer, who hears nothing hidden
from them. Every face (the server's frames and pages, the terminal's local games) tells a
stretch through ``steps``, so they group and word it alike."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from ..decisions import DecisionKind
from ..events import (
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
from ..views import View
from ..walk import StepVisitor, walk
from .base import Vocabulary


def others_have_chosen(view: View) -> bool:
    """Whether the game waits for the viewer's card alone: everyone else has chosen. The
    narration then says the others' hidden choices as that one fact (``others_chosen``);
    a spectator is never in that case (the reveal tells them)."""
    pending, me = view.pending, view.player
    if pending is None or me is None or pending.kind is not DecisionKind.CARD:
        return False
    chosen = view.chosen
    return not chosen[me] and all(chosen[p] for p in view.active if p != me)


class Told(StepVisitor[list[tuple[int, str]]]):
    """Each resolution step said as one announcement, with the position of its first
    event; a step with nothing to tell this reader is left out."""

    def __init__(self, speak: EventSentences, names: Sequence[str], viewer: int | None,
                 others_chosen: bool | None = None) -> None:
        self._speak = speak
        self._names = names
        self._viewer = viewer
        self._others_chosen = others_chosen
        self._told: list[tuple[int, str]] = []

    def step(self, events: Sequence[Event], first: int) -> None:
        text = self._speak.announce(events, self._names, self._viewer, self._others_chosen)
        if text:
            self._told.append((first, text))

    def result(self) -> list[tuple[int, str]]:
        return self._told


class EventSentences(Vocabulary):
    """What happened at the table, event by event."""

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

    def steps(
        self,
        events: Sequence[Event],
        names: Sequence[str],
        viewer: int | None = None,
        others_chosen: bool | None = None,
    ) -> list[str]:
        """A stretch of the game (``events`` already as ``viewer`` may know them), one
        announcement per resolution step; ``others_chosen`` as :meth:`narrate`."""
        if not events:
            return []
        return [text for _, text in walk(events, Told(self, names, viewer, others_chosen))]

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
