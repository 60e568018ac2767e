"""Tables get the newest fencing token any owner wrote with.

With many server processes (``nimmt serve --redis``) each table has one owner
at a time, by a lease in Redis that comes with a token, higher for every new
owner. Each write of a table's log sets ``fence`` to its owner's token in the
same transaction, and is refused when the column already holds a newer one:
an owner that lost its lease (paused, cut off) can never write over the table's
next owner. One process on its own writes no token and the column stays 0.

Revision ID: 0003
Revises: 0002
Create Date: 2026-12-01
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("tables", sa.Column("fence", sa.BigInteger, nullable=False,
                                      server_default="0"))


def downgrade() -> None:
    with op.batch_alter_table("tables") as batch:
        batch.drop_column("fence")
