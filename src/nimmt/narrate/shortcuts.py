"""The answers of a seat's shortcut keys (docs/rules.md §9): the rows, one row, bullheads,
who has chosen, the scores, the hand, the decision asked, whom the table waits for, the
clock and the rules, each as one sentence in the reader's language."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

from ..cards import BULLHEADS, Card
from ..decisions import DecisionKind, Pending
from ..rows import row_bullheads
from ..rules import EndMode, Rules
from ..views import Phase, View
from .base import Rows, Vocabulary

#: Who sits in a seat, as key W tells it: nobody, a person who is connected, a person who
#: is not, a person the default bot plays for (connected, or away), or a bot.
SeatMark = Literal["empty", "here", "away", "auto", "auto_away", "bot"]


class ShortcutSentences(Vocabulary):
    """What the keys answer about the table as the viewer sees it."""

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

    def who_sentence(self, names: Sequence[str], viewer: int | None, view: View | None = None,
                     presence: Sequence[SeatMark] | None = None) -> str:
        """Key W: who is at the table, in seat order.

        The viewer is named as the others hear them, with "(you)". In a game (``view``)
        each player with their bullheads this game (the round's so far counted in); before
        one, each seat and who sits there, a sentence each.
        ``presence`` says who is a bot, away or played by the default bot; without it (a
        reader who knows only the names) every seat is a player who is here.
        """
        _ = self._
        here = presence or ("here",) * len(names)
        # TRANSLATORS: the reader in key W's list, by the name the others see.
        who = [_("{name} (you)").format(name=n) if p == viewer else n
               for p, n in enumerate(names)]
        if view is None:
            seat = {"empty": _("Seat {number}: empty."), "here": _("Seat {number}: {name}."),
                    "bot": _("Seat {number}: {name} (bot)."),
                    "away": _("Seat {number}: {name}, away.")}
            # A person the default bot plays for is away from the seat, game or none.
            return " ".join(seat.get(state, seat["away"]).format(
                number=p + 1, name=self.player(p, who)) for p, state in enumerate(here))
        player = {
            "here": _("{name}: {bullheads}"),
            # TRANSLATORS: one player of key W's list: "Medium Bot 2 (bot): 5 bullheads".
            "bot": _("{name} (bot): {bullheads}"),
            "away": _("{name}: {bullheads}, away"),
            "auto": _("{name}: {bullheads}, played by the default bot"),
            "auto_away": _("{name}: {bullheads}, away, played by the default bot"),
        }
        return _("At the table: {players}.").format(players="; ".join(
            player.get(state, player["here"]).format(
                name=self.player(p, who), bullheads=self.count_bullheads(view.totals[p]))
            for p, state in enumerate(here)))

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

    def timer_sentence(self, seconds: int) -> str:
        """A turn-timer warning: ``"10 seconds left."``."""
        kept = self._kept(("timer", seconds))
        if kept is not None:
            return kept
        return self._keep(("timer", seconds),
                          self._n("{count} second left.", "{count} seconds left.", seconds))
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
