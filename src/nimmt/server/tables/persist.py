"""What a table's :class:`~.commands.Persist` effect writes: its log entries in their
stored form, its status, and the games it ends (:meth:`.store.Store.write_step` writes
them, with the ratings they change, in one transaction).

The table's actor awaits :func:`persist` before it answers or broadcasts
anything of the change, so nobody hears of what the store does not have.
"""

from __future__ import annotations

from ..store import LogEntry, Store
from .commands import Persist
from .tablelog import entry_to_row

__all__ = ["persist"]


async def persist(store: Store, table_id: int, effect: Persist,
                  token: int | None = None) -> None:
    """Write ``effect`` for table ``table_id``; returns once it is committed. With a
    fencing ``token`` (many processes) it is refused, as a whole, when the table has seen
    a newer owner (:class:`~.store.StaleOwner`)."""
    rows = [LogEntry(table_id, effect.first_n + i, *entry_to_row(entry))
            for i, entry in enumerate(effect.entries)]
    await store.write_step(table_id, rows, effect.status, effect.results, token)
