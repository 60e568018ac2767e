"""The people part of one server, built together: each piece is handed the others it needs
and nothing more."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Generic

from ..base.settings import Settings
from ..store import Store
from .accounts import Accounts
from .leaderboards import Leaderboards
from .members import M, Rooms
from .presence import Whereabouts
from .roster import Roster
from .sanctions import Sanctions
from .signals import Signals
from .social import Social

__all__ = ["People", "build_people"]


@dataclass(eq=False)
class People(Generic[M]):
    """Who each connection is, and the room around the tables."""

    roster: Roster[M]
    sanctions: Sanctions
    accounts: Accounts[M]
    presence: Whereabouts[M]
    social: Social[M]
    signals: Signals[M]
    boards: Leaderboards

    async def open(self) -> None:
        await self.accounts.open()
        await self.signals.open()

    async def close(self) -> None:
        await self.signals.close()
        self.accounts.close()

    def left(self, conn: M) -> None:
        """``conn`` closed: it is forgotten, and its player's followers learn it."""
        self.roster.left(conn)
        self.social.left(conn)
        self.presence.moved(conn.player_id)
        self.presence.online.left(conn)


def build_people(settings: Settings, store: Store, rooms: Rooms[M],
                 refused: Callable[[str], None]) -> People[M]:
    """The people of one server, reaching the tables through ``rooms`` and counting their
    refusals with ``refused``."""
    roster: Roster[M] = Roster()
    sanctions = Sanctions()
    presence = Whereabouts(settings, store, roster, rooms)
    social = Social(settings, store, roster, sanctions, rooms, presence, refused)
    return People(
        roster=roster,
        sanctions=sanctions,
        accounts=Accounts(settings, store, roster, sanctions, refused),
        presence=presence,
        social=social,
        signals=Signals(settings, store, roster, sanctions, social, rooms),
        boards=Leaderboards(store, settings),
    )
