"""Alembic migrations of the server's database, applied by ``Store.open`` at start."""
