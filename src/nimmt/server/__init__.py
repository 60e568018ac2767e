"""The game server (``nimmt serve``): tables for friends and bots, real-time and durable.

- :mod:`nimmt.wire` (outside the server, so clients import it alone): the WebSocket
  messages and everything they carry (pydantic models, JSON Schema).
- :mod:`.reducer`: a table's rules, a pure reducer of typed commands into effects
  (:mod:`.commands`), event-sourced from typed log entries (:mod:`.tablelog`).
- :mod:`.table`: one thin actor per table, which runs the reducer's effects in order:
  :mod:`.persist` (the store first), :mod:`.fanout` (frames filtered per seat),
  :mod:`.schedule` (timers and bots), with :mod:`.ratings`.
- :mod:`.botpool`, :mod:`.botworker`, :mod:`.autoplay`: bots in worker processes, and the
  default player; :mod:`.tutor`: hints and game analyses in worker processes of their own.
- :mod:`.store`: the database (SQLAlchemy 2, Alembic migrations in ``migrations/``).
- :mod:`.app`: the Starlette app and the hub of tables and connections.
- :mod:`.run`, :mod:`.cli`, :mod:`.settings`: running it.

See docs/server.md and docs/protocol.md.
"""
