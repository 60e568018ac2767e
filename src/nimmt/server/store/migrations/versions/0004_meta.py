"""A table of the server's own facts, by name: the cluster's signing key among them.

With many server processes (``nimmt serve --redis``) every message between them
through Redis is signed with a key they all share (docs/scaling.md). Unless the
operator sets one (``NIMMT_CLUSTER_SECRET``), the first process makes it and
keeps it here, where every process of the cluster reads it: in the database the
processes trust, not in the Redis whose messages it authenticates.

Revision ID: 0004
Revises: 0003
Create Date: 2026-12-02
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "meta",
        sa.Column("key", sa.String(64), primary_key=True),
        sa.Column("value", sa.Text, nullable=False),
    )


def downgrade() -> None:
    op.drop_table("meta")
