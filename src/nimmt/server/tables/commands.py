"""What goes into a table's reducer (commands) and what comes out of it (effects).

A *command* is one thing that happens to a table: a person's message, a
connection coming or going, a bot's answer, a timer running out. Each is a
frozen dataclass, so the reducer (:mod:`.reducer`) dispatches with ``match``
and its tests build them by hand. A person's table message is one command,
:class:`Message`, which holds the protocol's message as the wire parsed it (its
shape checked once, at the edge): the reducer reads its fields there. What the
reducer may not have (a random seed, the server's list of bots) the command carries
beside it, chosen where the message became the command (:func:`from_message`: at
the edge for a table of its own process, at the owner for a table of another).

An *effect* is one thing the actor must do for the reducer, in order: store
log entries (:class:`Persist`, always first, so nobody hears of a change the
store does not have), answer one connection, send the table's new items to
everyone, ask a bot, start or cancel a timer.

:func:`from_message` is the one place where the protocol's table messages
become commands.
"""

from __future__ import annotations

import secrets
from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol, TypeAlias

from ... import wire as P
from ...decisions import Decision
from ...views import View
from ...wire import TableStatus
from .tablelog import Entry

__all__ = [
    "Advise",
    "AskBot",
    "Attach",
    "Audience",
    "BotAnswered",
    "Broadcast",
    "CancelTimer",
    "CloseTable",
    "Command",
    "Create",
    "DealTimer",
    "Detach",
    "Effect",
    "GameResult",
    "GraceTimer",
    "Halt",
    "IdleTimer",
    "Message",
    "PaceTimer",
    "Persist",
    "Refuse",
    "Resume",
    "SendAck",
    "SendHistory",
    "SendMissed",
    "SendPresence",
    "SendState",
    "Shut",
    "StartTimer",
    "Timer",
    "TimerFired",
    "TurnTimer",
    "WakeBots",
    "Who",
    "from_message",
    "new_seed",
    "who_of",
]

#: Where a table stands: ``open`` (before its first game), ``playing``, ``over``, ``closed``.


@dataclass(frozen=True, slots=True)
class Who:
    """A connection as a table knows it: its number (``conn``) and its player."""

    conn: int
    player_id: int
    name: str


# -- timers -----------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class TurnTimer:
    """The time a seated person has for the decision ``key``."""

    seat: int
    key: str


@dataclass(frozen=True, slots=True)
class GraceTimer:
    """How long a seated person may stay disconnected mid-game before the default player
    takes the seat."""

    seat: int


@dataclass(frozen=True, slots=True)
class IdleTimer:
    """How long the table stays open with no seated person connected."""


@dataclass(frozen=True, slots=True)
class PaceTimer:
    """Until when the table's bots wait after a reveal while a person is at the table, so
    the reveal can be heard before the next plays are told."""


@dataclass(frozen=True, slots=True)
class DealTimer:
    """Until when the next round's deal waits after a round's end while a person is at the
    table, so the round's score sheet can be seen before the next hand."""


Timer: TypeAlias = TurnTimer | GraceTimer | IdleTimer | PaceTimer | DealTimer

# -- commands: a person's messages -------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Message:
    """A person's table message (``msg``, as the protocol parsed it), with who sent it and
    what the server chose for it, as the reducer may not: ``seed`` shuffles the deals of
    the game a ``start`` or a ``rematch`` begins; ``refusal`` is why the server does not
    offer the bot an ``add_bot`` names (None: it does), asked of the bot registry: the
    reducer knows none (both chosen by :func:`from_message`); ``quota`` is why the host
    may not seat another such bot now (the search bots at their live tables; for a
    ``rematch``, the table's own playing again), counted by the actor across tables just
    before the command is reduced."""

    who: Who
    msg: P.TableMessage
    seed: int | None = None
    refusal: str | None = None
    quota: str | None = None

    @property
    def ref(self) -> P.Ref:
        """The message's ``ref``: its answer carries it back."""
        return self.msg.ref


# -- commands: connections, bots, timers, the actor ------------------------------------------------


@dataclass(frozen=True, slots=True)
class Create:
    """The host's connection, right after the hub made the table: seat 0 is theirs.
    ``hints``: whether the table allows hints (its ``create_table`` says)."""

    who: Who
    ref: P.Ref
    hints: bool = True


@dataclass(frozen=True, slots=True)
class Attach:
    """A connection enters the table (``spectate``: without taking its seat), wanting the
    items after ``last_seq`` if given."""

    who: Who
    ref: P.Ref
    spectate: bool
    last_seq: int | None


@dataclass(frozen=True, slots=True)
class Detach:
    """A connection went away (closed, or entered another table)."""

    conn: int


@dataclass(frozen=True, slots=True)
class BotAnswered:
    """The answer the bot pool gave for ``seat``'s decision ``key`` (the bot's, or the
    default player's after a fault). ``timed_out``: the bot did not answer by its deadline,
    and the decision is the default player's (the table's log says so)."""

    seat: int
    key: str
    decision: Decision
    timed_out: bool = False


@dataclass(frozen=True, slots=True)
class TimerFired:
    """``timer`` ran out; ``deadline`` tells it from a later timer of the same name."""

    timer: Timer
    deadline: float


@dataclass(frozen=True, slots=True)
class Resume:
    """The table was rebuilt from its log after a restart: nobody is connected; bots and
    timers start again."""


@dataclass(frozen=True, slots=True)
class Halt:
    """The store failed to keep a change: the table must not go on from a state the store
    does not have. It closes (a restart resumes it from its log); ``who`` sent the command
    that failed."""

    who: Who | None
    ref: P.Ref


@dataclass(frozen=True, slots=True)
class Shut:
    """The operator closes the table (``nimmt admin close-table``): a game under way is
    kept as it stands, unfinished, and everyone at the table is told."""


Command: TypeAlias = (
    Message | Create | Attach | Detach | BotAnswered | TimerFired | Resume | Halt | Shut
)

# -- effects -------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class GameResult:
    """A game to keep in ``games`` (finished, or cut short by the table closing): its record
    and, by seat, the player (None for a bot), the name, the total and the win."""

    game_no: int
    finished: bool
    rated: bool
    record: str
    players: tuple[int | None, ...]
    names: tuple[str, ...]
    totals: tuple[int, ...]
    winners: frozenset[int]


@dataclass(frozen=True, slots=True)
class Persist:
    """Store ``entries`` (numbered from ``first_n``), the table's new ``status`` if it
    changed and any game ``results`` (with the ratings they change), in one transaction."""

    first_n: int
    entries: tuple[Entry, ...]
    status: TableStatus | None = None
    results: tuple[GameResult, ...] = ()


@dataclass(frozen=True, slots=True)
class SendAck:
    """Tell connection ``conn`` that its message ``ref`` was accepted and stored."""

    conn: int
    ref: P.Ref


@dataclass(frozen=True, slots=True)
class Refuse:
    """Send connection ``conn`` an error: nothing changed (unless the table was halted)."""

    conn: int
    code: P.CodeLike
    message: str
    ref: P.Ref = None


#: The connections a message goes to, each with the seat it sees as (None: a spectator).
Audience: TypeAlias = tuple[tuple[int, int | None], ...]


@dataclass(frozen=True, slots=True)
class SendState:
    """Send connection ``conn`` the table as ``viewer`` sees it (``table_state``)."""

    conn: int
    viewer: int | None
    ref: P.Ref


@dataclass(frozen=True, slots=True)
class SendMissed:
    """Send connection ``conn`` the newest stream items after ``after`` as ``viewer`` may
    see them: a catch-up, bounded in items and bytes, from what the table holds in memory;
    the frame says what it left out, which :class:`SendHistory` pages back."""

    conn: int
    viewer: int | None
    after: int


@dataclass(frozen=True, slots=True)
class SendHistory:
    """Answer connection ``conn`` (its message ``ref``) with a page of the items with
    ``after < seq < before`` as ``viewer`` may see them (items no longer in memory are
    rebuilt from the store's log, off the event loop)."""

    conn: int
    viewer: int | None
    ref: P.Ref
    before: int
    after: int
    limit: int | None


@dataclass(frozen=True, slots=True)
class Broadcast:
    """Send ``audience`` the stream items after ``after``, each filtered for its seat; with
    ``state``, a fresh ``table_state`` first (the seats or the game changed)."""

    after: int
    state: bool
    audience: Audience


@dataclass(frozen=True, slots=True)
class SendPresence:
    """Someone came or went: a fresh ``table_state`` to ``audience`` (no new item)."""

    audience: Audience


@dataclass(frozen=True, slots=True)
class AskBot:
    """Ask bot ``bot`` (the server's name for it; ``default``: the default player) for
    ``seat``'s decision ``key`` from ``view``."""

    seat: int
    key: str
    bot: str
    view: View


@dataclass(frozen=True, slots=True)
class Advise:
    """Answer connection ``conn`` (its message ``ref``) with the expert's advice on seat
    ``seat``'s decision ``key``, from ``view``: that seat's view and nothing more."""

    conn: int
    ref: P.Ref
    seat: int
    key: str
    view: View


@dataclass(frozen=True, slots=True)
class StartTimer:
    """Start ``timer``: ``seconds`` from now, at ``deadline`` on the command's clock."""

    timer: Timer
    seconds: float
    deadline: float


@dataclass(frozen=True, slots=True)
class CancelTimer:
    """Stop ``timer``."""

    timer: Timer


@dataclass(frozen=True, slots=True)
class WakeBots:
    """A person came back: this table's bot jobs go first again."""


@dataclass(frozen=True, slots=True)
class CloseTable:
    """The table closed: its timers and bots stop, and once the commands already queued
    are answered (each with ``closed``) the server forgets it."""


Effect: TypeAlias = (
    Persist | SendAck | Refuse | SendState | SendMissed | SendHistory | Broadcast | SendPresence
    | AskBot | Advise | StartTimer | CancelTimer | WakeBots | CloseTable
)


class Sender(Protocol):
    """A connection as a command names it."""

    @property
    def id(self) -> int: ...

    @property
    def player_id(self) -> int: ...

    @property
    def name(self) -> str: ...


def who_of(peer: Sender) -> Who:
    """``peer`` as a table's commands name it."""
    return Who(peer.id, peer.player_id, peer.name)


def new_seed() -> int:
    """A new game's seed: from the operating system, so nobody can predict a shuffle."""
    return secrets.randbits(64)


def from_message(
    who: Who,
    msg: P.ClientMessage,
    *,
    refusal: Callable[[str], str | None],
    seed: Callable[[], int] | None = None,
) -> Message:
    """The command a table message stands for. ``refusal`` says why the server does not
    offer a bot (None: it does); ``seed`` gives a new game its random seed
    (:func:`new_seed` unless given)."""
    if not P.is_table_message(msg):
        raise P.ProtocolError("bad_message", f"{msg.type} is not a table message")
    match msg:
        case P.Start() | P.Rematch():
            return Message(who, msg, seed=(seed or new_seed)())
        case P.AddBot(strength=bot):
            return Message(who, msg, refusal=refusal(bot))
    return Message(who, msg)
