"""What the table and the server tell a person: changes of the table, invitations, chat,
refusals by their code, errors, and a turn's time running out."""

from __future__ import annotations

from collections.abc import Sequence

from ..error_codes import ErrorCode as E
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
        try:
            return self._(REFUSALS[E(code)])
        except ValueError:
            return self._("Something went wrong; please try again.")
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

    def invitation_sentence(self, name: str, table: str, title: str | None = None,
                            host: str | None = None) -> str:
        """An invitation of ``name``'s to table ``table`` (its code), as its guest hears it
        wherever they are: the table by the name its host gave it (``title``; empty when
        the host gave none) and by its host; by its code only when neither is known."""
        _ = self._
        if title is None or (not title and host is None):
            return _("{name} invites you to table {table}.").format(name=name, table=table)
        mine = host is None or host == name
        if title and mine:
            return _("{name} invites you to their table \"{title}\".").format(
                name=name, title=title)
        if title:
            return _("{name} invites you to the table \"{title}\", hosted by {host}."
                     ).format(name=name, title=title, host=host)
        if mine:
            return _("{name} invites you to their table.").format(name=name)
        return _("{name} invites you to a table hosted by {host}.").format(name=name, host=host)

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
