"""Accounts: passwords, sessions, recovery codes, sanctions, the operator's audit log.

A player stays the identity (their id holds the rating and the history); an
account is a player with a password. Until now a player was one token, kept
hashed in ``players.token_hash``. From here every token is a *session* of its
player (``sessions``), so a player can have several (one per sign-in) and end
them: each player's token is moved into ``sessions`` here, unchanged (its hash),
so every client that holds a token keeps its player and can add a password.

New tables:

- ``sessions``: a token's hash, its player, when and from which address it was
  made and last used.
- ``recovery_codes``: the hashes of an account's one-time recovery codes.
- ``sanctions``: the operator's mutes and bans, by player or by address.
- ``audit``: every operator action, with who, when and what.
- ``signals``: what the running server processes must act on at once (sessions
  ended, bans, renames, tables to close), polled by each of them.

``players`` gains ``password_hash`` (argon2id; null for a guest),
``password_changed``, ``last_seen`` (set to the time of this upgrade for every
existing player, so no guest name is released before it has gone unused for the
whole release time after the upgrade), and ``released`` / ``released_name``
(an unclaimed guest name freed after a time without use, docs/accounts.md).

Revision ID: 0005
Revises: 0004
Create Date: 2026-12-03
"""

from __future__ import annotations

import time

import sqlalchemy as sa
from alembic import op

revision = "0005"
down_revision = "0004"
branch_labels = None
depends_on = None


def upgrade() -> None:
    now = time.time()
    op.create_table(
        "sessions",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("player_id", sa.Integer, nullable=False),
        sa.Column("token_hash", sa.String(64), nullable=False),
        sa.Column("created", sa.Float, nullable=False),
        sa.Column("last_seen", sa.Float, nullable=False),
        sa.Column("address", sa.String(64), nullable=True),
        sa.Column("last_address", sa.String(64), nullable=True),
    )
    op.create_index("ix_sessions_token_hash", "sessions", ["token_hash"], unique=True)
    op.create_index("ix_sessions_player_id", "sessions", ["player_id"])
    conn = op.get_bind()
    conn.execute(sa.text(
        "INSERT INTO sessions (player_id, token_hash, created, last_seen) "
        "SELECT id, token_hash, created, :now FROM players"), {"now": now})
    with op.batch_alter_table("players") as batch:
        batch.drop_column("token_hash")
        batch.add_column(sa.Column("password_hash", sa.Text, nullable=True))
        batch.add_column(sa.Column("password_changed", sa.Float, nullable=True))
        batch.add_column(sa.Column("last_seen", sa.Float, nullable=True))
        batch.add_column(sa.Column("released", sa.Float, nullable=True))
        batch.add_column(sa.Column("released_name", sa.String(64), nullable=True))
    conn.execute(sa.text("UPDATE players SET last_seen = :now"), {"now": now})
    op.create_index("ix_players_last_seen", "players", ["last_seen"])
    op.create_table(
        "recovery_codes",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("player_id", sa.Integer, nullable=False),
        sa.Column("code_hash", sa.String(64), nullable=False),
        sa.Column("created", sa.Float, nullable=False),
        sa.Column("used", sa.Float, nullable=True),
    )
    op.create_index("ix_recovery_codes_player_id", "recovery_codes", ["player_id"])
    op.create_table(
        "sanctions",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("kind", sa.String(16), nullable=False),
        sa.Column("player_id", sa.Integer, nullable=True),
        sa.Column("address", sa.String(64), nullable=True),
        sa.Column("created", sa.Float, nullable=False),
        sa.Column("until", sa.Float, nullable=True),
        sa.Column("lifted", sa.Float, nullable=True),
        sa.Column("reason", sa.Text, nullable=False),
        sa.Column("by", sa.String(64), nullable=False),
    )
    op.create_index("ix_sanctions_lifted", "sanctions", ["lifted"])
    op.create_table(
        "audit",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("at", sa.Float, nullable=False),
        sa.Column("actor", sa.String(64), nullable=False),
        sa.Column("action", sa.String(32), nullable=False),
        sa.Column("player_id", sa.Integer, nullable=True),
        sa.Column("target", sa.Text, nullable=False),
        sa.Column("detail", sa.Text, nullable=False),
    )
    op.create_table(
        "signals",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("at", sa.Float, nullable=False),
        sa.Column("kind", sa.String(16), nullable=False),
        sa.Column("player_id", sa.Integer, nullable=True),
        sa.Column("session_id", sa.Integer, nullable=True),
        sa.Column("address", sa.String(64), nullable=True),
        sa.Column("code", sa.String(16), nullable=True),
    )


def downgrade() -> None:
    op.drop_table("signals")
    op.drop_table("audit")
    op.drop_table("sanctions")
    op.drop_table("recovery_codes")
    op.drop_index("ix_players_last_seen", table_name="players")
    with op.batch_alter_table("players") as batch:
        batch.drop_column("released_name")
        batch.drop_column("released")
        batch.drop_column("last_seen")
        batch.drop_column("password_changed")
        batch.drop_column("password_hash")
        batch.add_column(sa.Column("token_hash", sa.String(64), nullable=True))
    # Each player gets back the token of their oldest session (a player with none gets a
    # hash no token has: the empty string's, made unique by the player's id).
    conn = op.get_bind()
    conn.execute(sa.text(
        "UPDATE players SET token_hash = (SELECT s.token_hash FROM sessions s "
        "WHERE s.player_id = players.id ORDER BY s.id LIMIT 1)"))
    conn.execute(sa.text(
        "UPDATE players SET token_hash = 'none-' || CAST(id AS VARCHAR(20)) "
        "WHERE token_hash IS NULL"))
    with op.batch_alter_table("players") as batch:
        batch.alter_column("token_hash", existing_type=sa.String(64), nullable=False)
        batch.create_unique_constraint("uq_players_token_hash", ["token_hash"])
    op.drop_table("sessions")
