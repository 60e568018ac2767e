"""The game server (``nimmt serve``): tables for friends and bots, real-time and durable.

- :mod:`.protocol`: the WebSocket messages (pydantic models, JSON Schema).
- :mod:`.store`: the database (SQLAlchemy 2, Alembic migrations in ``migrations/``).
- :mod:`.table`: one serial actor per table; event-sourced, filtered per seat.
- :mod:`.app`: the Starlette app and the hub of tables and connections.
- :mod:`.run`, :mod:`.cli`, :mod:`.settings`: running it.

See docs/server.md and docs/protocol.md.
"""
