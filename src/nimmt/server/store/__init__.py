"""The store: every SQL statement of the server, its migrations, backups and restores.

It owns the database. The rest of the server holds one :class:`Store` and asks it by
name (its methods, and the operations of :mod:`.accounts`, :mod:`.social` and
:mod:`.operator` run through :meth:`~.db.Database.run` and :meth:`~.db.Database.read`);
nothing outside this package imports SQLAlchemy or Alembic (tests/test_imports.py), and
what fails comes out as the store's own errors (:mod:`.errors`), never the database's.

- :mod:`.db`: the engine, the one writer and its group commit, fencing and locks;
- :mod:`.queries`: :class:`Store`, the named reads and writes of tables, their logs,
  games and players (a table's changes with the ratings they change, :mod:`.ratings`);
- :mod:`.schema`: the tables and columns; :mod:`.migrate` and ``migrations/``: the
  Alembic migrations that make them, run at every start;
- :mod:`.accounts`, :mod:`.social`, :mod:`.operator`: the operations of players'
  accounts, of the room around the tables and of ``nimmt admin``;
- :mod:`.tokens`: the secrets kept as their hashes; :mod:`.backup`: copies of a SQLite
  file and their restores; :mod:`.private`: files only their owner reads.

It may import the server's shared basics (its settings, logs, limits and names) and
floors 1–2, nothing else of the server.
"""

from .db import LOBBY_LOCK, LogEntry, Op, exclusive
from .errors import OPENING, BadURL, Conflict, Refused, StaleOwner, Unreachable, opening, said
from .queries import FinishedGame, Store
from .tokens import hash_token

__all__ = ["LOBBY_LOCK", "OPENING", "BadURL", "Conflict", "FinishedGame", "LogEntry", "Op",
           "Refused", "StaleOwner", "Store", "Unreachable", "exclusive", "hash_token",
           "opening", "said"]
