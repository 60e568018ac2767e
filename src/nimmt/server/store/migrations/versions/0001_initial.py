"""The first schema: players, tables, table logs, games and their players.

Revision ID: 0001
Revises:
Create Date: 2026-11-30
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "players",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("name", sa.String(64), nullable=False, unique=True),
        sa.Column("token_hash", sa.String(64), nullable=False, unique=True),
        sa.Column("mu", sa.Float, nullable=False),
        sa.Column("sigma", sa.Float, nullable=False),
        sa.Column("rated_games", sa.Integer, nullable=False),
        sa.Column("created", sa.Float, nullable=False),
    )
    op.create_table(
        "tables",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("code", sa.String(16), nullable=False, unique=True),
        sa.Column("name", sa.String(64), nullable=False),
        sa.Column("host_id", sa.Integer, nullable=False),
        sa.Column("rules", sa.Text, nullable=False),
        sa.Column("settings", sa.Text, nullable=False),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("created", sa.Float, nullable=False),
    )
    op.create_index("ix_tables_status", "tables", ["status"])
    op.create_table(
        "table_log",
        sa.Column("table_id", sa.Integer, primary_key=True),
        sa.Column("n", sa.Integer, primary_key=True),
        sa.Column("kind", sa.String(16), nullable=False),
        sa.Column("data", sa.Text, nullable=False),
    )
    op.create_table(
        "games",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("table_id", sa.Integer, nullable=False),
        sa.Column("game_no", sa.Integer, nullable=False),
        sa.Column("rated", sa.Boolean, nullable=False),
        sa.Column("finished", sa.Boolean, nullable=False),
        sa.Column("record", sa.Text, nullable=False),
        sa.Column("ended", sa.Float, nullable=False),
    )
    op.create_index("ix_games_table_id", "games", ["table_id"])
    op.create_table(
        "game_players",
        sa.Column("game_id", sa.Integer, primary_key=True),
        sa.Column("seat", sa.Integer, primary_key=True),
        sa.Column("player_id", sa.Integer, nullable=True),
        sa.Column("name", sa.String(64), nullable=False),
        sa.Column("total", sa.Integer, nullable=False),
        sa.Column("winner", sa.Boolean, nullable=False),
        sa.Column("mu_after", sa.Float, nullable=True),
    )
    op.create_index("ix_game_players_player_id", "game_players", ["player_id"])


def downgrade() -> None:
    op.drop_table("game_players")
    op.drop_table("games")
    op.drop_table("table_log")
    op.drop_table("tables")
    op.drop_table("players")
