"""Players get the confusable skeleton of their name, under a unique index.

Two names that look alike ("Ana" and "Аna" with a Cyrillic А, "José" composed and
decomposed) were both accepted before; from now on the skeleton
(:func:`nimmt.server.base.text.name_key`) is unique. Existing players get theirs here,
oldest first: when two existing names share a skeleton, the older player keeps it
and the younger one's stays null (they keep their name and token; nobody new can
take a name like either).

Revision ID: 0002
Revises: 0001
Create Date: 2026-12-01
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from nimmt.server.base.text import name_key

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None

_players = sa.table("players", sa.column("id", sa.Integer), sa.column("name", sa.String),
                    sa.column("skeleton", sa.Text))


def upgrade() -> None:
    op.add_column("players", sa.Column("skeleton", sa.Text, nullable=True))
    conn = op.get_bind()
    taken: set[str] = set()
    fill = []
    for pid, name in conn.execute(sa.select(_players.c.id, _players.c.name)
                                  .order_by(_players.c.id)):
        key = name_key(name)
        if key not in taken:
            taken.add(key)
            fill.append({"pid": pid, "key": key})
    if fill:
        conn.execute(_players.update().where(_players.c.id == sa.bindparam("pid"))
                     .values(skeleton=sa.bindparam("key")), fill)
    op.create_index("ix_players_skeleton", "players", ["skeleton"], unique=True)


def downgrade() -> None:
    op.drop_index("ix_players_skeleton", table_name="players")
    with op.batch_alter_table("players") as batch:
        batch.drop_column("skeleton")
