"""What the cluster needs of the process it runs in, said as interfaces.

The composition root hands the cluster objects that answer these; the cluster imports
none of the parts behind them but the tables (which it moves between processes).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol

from ..base.settings import Settings
from ..store import LogEntry, Store

if TYPE_CHECKING:
    from ..tables.table import TableActor, TablePeer

__all__ = ["Checks", "ClusterHost", "Counts"]


class Counts(Protocol):
    """Where the cluster counts what happens between processes (the server's metrics)."""

    def relayed(self, age: float) -> None:
        """A message from another process read here, ``age`` seconds after it was sent."""

    def took_over(self) -> None:
        """A table taken over from the store."""

    def lease_lost(self) -> None:
        """A table's lease lost to another process."""

    def publish_failed(self) -> None:
        """A batch of messages Redis did not take."""


class Checks(Protocol):
    """The people's checks a remote connection passes here, as a local one does at its
    own process: whose chat it hears not, and whether someone at a table blocked it."""

    async def silenced_of(self, player_id: int) -> frozenset[str]: ...

    async def check_sit(self, player_id: int, table: TableActor) -> None: ...


class ClusterHost(Protocol):
    """What the cluster needs of the process it runs in: its settings, store and social
    checks, the tables it holds, and how to bring a table back, let one go and drop a
    connection. The cluster reaches nothing else of the process."""

    @property
    def settings(self) -> Settings: ...

    @property
    def store(self) -> Store: ...

    @property
    def social(self) -> Checks: ...

    @property
    def tables(self) -> dict[str, TableActor]:
        """The tables this process holds, by code."""

    @property
    def draining(self) -> bool:
        """Whether this process is stopping (it takes no table over)."""

    async def resume_table(self, row: Any, entries: list[LogEntry],
                           token: int | None = None) -> TableActor | None:
        """Table ``row`` running here again from its log, owned with fencing ``token``."""

    def forget_table(self, actor: TableActor) -> None:
        """``actor`` ended here (closed, or lost to another process)."""

    def drop(self, peer: TablePeer) -> None:
        """Close ``peer`` (a connection of this process) so that it reconnects."""

    def refusal(self, bot: str) -> str | None:
        """Why this server does not offer bot ``bot`` (None: it does)."""
