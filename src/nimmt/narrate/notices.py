"""What the table and the server tell a person: changes of the table, invitations, chat,
refusals by their code, errors, and a turn's time running out."""

from __future__ import annotations

from collections.abc import Sequence

from ..errors import (
    CardNotInHand,
    GameOverError,
    IllegalMove,
    NoSuchRow,
    NotYourDecision,
    RecordError,
    RulesError,
)
from .base import N_, Vocabulary

#: What a person hears when the server refuses a message, by the error's ``code``
#: (``nimmt.server.protocol.ERROR_CODES`` lists the codes; a test pins the two together).
REFUSALS: dict[str, str] = {
    "bad_json": N_("The server could not read that message."),
    "bad_message": N_("The server could not read that message."),
    "frame_too_large": N_("That message is too long for the server."),
    "rate_limited": N_("Too many messages; please wait a moment."),
    "version": N_("This program and the server speak different versions; please update it."),
    "not_authenticated": N_("The server does not know you yet; please connect again."),
    "bad_token": N_("The server does not know you; please give your name again."),
    "bad_name": N_(
        "That name cannot be used: choose a short name that shows letters, digits or signs."
    ),
    "bad_language": N_("The server does not speak that language."),
    "name_taken": N_("That name is taken. Choose another one."),
    "no_table": N_("No open table has that code."),
    "not_at_table": N_("Join or watch a table first."),
    "table_full": N_("Every seat at that table is taken."),
    "seat_taken": N_("That seat is taken."),
    "no_seat": N_("There is no such seat, or it is empty."),
    "not_seated": N_("Only a seated player may do that."),
    "spectator": N_("You are watching; take a seat to play."),
    "not_host": N_("Only the host may do that."),
    "bad_rules": N_("Those rules cannot be played together."),
    "bad_bot": N_("This server has no bot of that kind."),
    "not_started": N_("The game has not started yet."),
    "already_started": N_("The game has already started."),
    "not_over": N_("The game is not over yet."),
    "seats_empty": N_("A seat is still empty: add a bot or wait for a player."),
    "not_your_turn": N_("That decision is not yours to make now."),
    "card_not_in_hand": N_("You do not hold that card."),
    "no_such_row": N_("Rows are numbered 1 to 4."),
    "game_over": N_("The game is over."),
    "chat_too_long": N_("That chat message is too long."),
    "chat_empty": N_("That chat message is empty."),
    "closed": N_("The table is closed."),
    "kicked": N_("The host removed you from this table."),
    "internal": N_("Something went wrong on the server; the game is unchanged. Please try again."),
    "flooding": N_("Too many refused messages: the server closed the connection."),
    "too_many_connections": N_("Too many connections come from your address."),
    "server_full": N_("The server is full. Please try again later."),
    "quota": N_("You have reached a limit of this server. Please try again later."),
    "too_many_changes": N_("You have changed your card too often this turn."),
    "hints_off": N_("Hints are off at this table."),
    "hint_pending": N_("The expert is still thinking about your last question."),
    "busy": N_("The expert is busy. Please try again in a moment."),
    "sign_in_failed": N_("The name and password do not match."),
    "sign_in_limited": N_("Too many failed sign-ins. Please wait a little and try again."),
    "sign_in_busy": N_("The server is busy signing people in. Please try again in a moment."),
    "weak_password": N_("That password is too short or too long."),
    "no_password": N_("Add a password to your name first."),
    "signed_out": N_("You were signed out: this session has ended."),
    "no_session": N_("You have no such session."),
    "banned": N_("The operator of this server has banned you."),
    "muted": N_("The operator of this server has muted you: your messages are not sent."),
    "server_busy": N_("The server is busy. Please try again in a moment."),
    "no_player": N_("No player has that name."),
    "no_invitation": N_("That invitation was already answered or has expired."),
    "not_friends": N_("Private messages go only between friends who follow each other."),
    "blocked": N_("Someone at this table has blocked you, so you cannot sit here."),
    "restarting": N_("The server is restarting. You will be reconnected in a moment."),
}


class NoticeSentences(Vocabulary):
    """The table's and the server's messages to one reader."""

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
        template = REFUSALS.get(code)
        if template is None:
            return self._("Something went wrong; please try again.")
        return self._(template)
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
