"""The store: every SQL statement of the server, its migrations, backups and restores."""

from .db import (
    LOBBY_LOCK,
    Conflict,
    LogEntry,
    StaleOwner,
    Store,
    exclusive,
    fence,
    hash_token,
    metadata,
)

__all__ = ["LOBBY_LOCK", "Conflict", "LogEntry", "StaleOwner", "Store", "exclusive", "fence",
           "hash_token", "metadata"]
