"""What the people part needs of the rest of the server, said as interfaces.

A connection is a :class:`Member` here: who it is and how a line reaches it or it is
closed. The tables are :class:`Rooms`: entering one (an invitation accepted), acting at
one (the seat an invitation link gives), where a connection is (presence), closing one
(the operator's signal) and the connections of other processes at the tables here
(whose mutes must follow them). A table one asks to sit at is :class:`Seating` (who
hosts it and who sits there, for the blocks). The composition root hands the people
part the objects that answer these; it imports none of them.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol, TypeVar

from ... import wire as P

__all__ = ["M", "M_in", "Member", "Occupant", "Place", "Rooms", "Seating"]


class Member(Protocol):
    """A connection of this process, as the people part knows it."""

    player_id: int
    name: str
    #: The session its ``hello`` used or made.
    session_id: int
    #: The client address, as the limits count it.
    address: str
    #: The narration language of its readers.
    lang: str
    #: The newest stream position it was sent (its frames carry it).
    seq: int
    @property
    def gone(self) -> bool: ...

    @property
    def closing(self) -> bool:
        """Whether the server is closing it (a last frame is on its way)."""
    #: The names whose chat this player muted or blocked: their lines are not sent here.
    silenced: frozenset[str]

    def send(self, text: str) -> None:
        """Queue a frame (never waits)."""

    def cut_off(self, code: P.CodeLike, message: str) -> None:
        """Send a last error and close."""

    def drop(self, reason: str = ...) -> None:
        """Close so that the client reconnects (a rename: it comes back under the new
        name)."""


#: The connections of one server, as its people part holds them.
M = TypeVar("M", bound=Member)
#: The same, where they are only handed in.
M_in = TypeVar("M_in", bound=Member, contravariant=True)

#: Where a connection is: its table's code, and whether a seat is free there (None: not
#: known here, the table is another process's).
Place = tuple[str, bool | None]


class Rooms(Protocol[M_in]):
    """The tables, as the people part uses them."""

    async def enter(self, conn: M_in, code: str, mode: str, last_seq: int | None,
                    ref: P.Ref) -> None:
        """``conn`` joins (``mode`` ``join``) or watches the table ``code``."""

    def act(self, conn: M_in, msg: P.TableMessage) -> None:
        """A table message of ``conn``'s (its checks passed), to its table."""

    def place(self, conn: M_in) -> Place | None:
        """The table ``conn`` is at, if any."""

    def seating(self, conn: M_in) -> Seating | None:
        """The table ``conn`` is at, when it is held here."""

    def close_table(self, code: str) -> bool:
        """Close the table ``code`` if it is held here (the operator's signal)."""

    def silence(self, player_id: int, names: frozenset[str]) -> None:
        """``player_id`` muted or blocked ``names`` now: their connections of other
        processes at the tables held here learn it."""


class Occupant(Protocol):
    """A seat, as a block is checked against it."""

    @property
    def player_id(self) -> int | None:
        """The person seated (None: a bot)."""


class Seating(Protocol):
    """A table one asks to sit at: its host and its seats."""

    @property
    def host_id(self) -> int: ...

    @property
    def seats(self) -> Sequence[Occupant | None]: ...
