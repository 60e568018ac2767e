"""Reports found by the player they name.

A player's reports are kept one open report per reporter and reported player, at
most ``reports_per_target`` open ones per reported player, and an operator reads
the most reported players first: each of these looks reports up by the player
reported, so ``reports`` gains an index on ``player_id``.

Revision ID: 0007
Revises: 0006
Create Date: 2026-12-06
"""

from __future__ import annotations

from alembic import op

revision = "0007"
down_revision = "0006"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_index("ix_reports_player_id", "reports", ["player_id"])


def downgrade() -> None:
    op.drop_index("ix_reports_player_id", table_name="reports")
