"""Friends, mutes and blocks, reports; the rules preset of each table.

New tables:

- ``follows``: who follows whom (a friend is a mutual follow).
- ``relations``: a player's mutes and blocks of another player (``kind``), kept per
  player: a mute stops the other's chat reaching you, a block stops their chat,
  invitations and private messages and keeps them from your tables.
- ``invitations``: a player's invitation of another to their table, until answered
  or expired; or a one-time invitation link (only its code's SHA-256), which seats
  whoever opens it as a guest.
- ``messages``: the lobby chat (``to_id`` null) and private messages between
  friends, each kept bounded (the newest lines of the lobby, the newest of each
  player's received messages).
- ``reports``: a player's report of a message or of a player, with a reason, until
  an operator resolves it (``nimmt admin reports``, ``nimmt admin resolve``).

``tables`` gains ``preset`` (the rules preset's name, read from each stored
table's rules here), so the leaderboard counts games per preset with an index
instead of reading every table's rules.

Revision ID: 0006
Revises: 0005
Create Date: 2026-12-04
"""

from __future__ import annotations

import json

import sqlalchemy as sa
from alembic import op

revision = "0006"
down_revision = "0005"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "follows",
        sa.Column("follower_id", sa.Integer, primary_key=True),
        sa.Column("followed_id", sa.Integer, primary_key=True),
        sa.Column("created", sa.Float, nullable=False),
    )
    op.create_index("ix_follows_followed_id", "follows", ["followed_id"])
    op.create_table(
        "relations",
        sa.Column("player_id", sa.Integer, primary_key=True),
        sa.Column("other_id", sa.Integer, primary_key=True),
        sa.Column("kind", sa.String(8), primary_key=True),
        sa.Column("created", sa.Float, nullable=False),
    )
    op.create_index("ix_relations_other_id", "relations", ["other_id"])
    op.create_table(
        "invitations",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("at", sa.Float, nullable=False),
        sa.Column("from_id", sa.Integer, nullable=False),
        sa.Column("to_id", sa.Integer, nullable=True),
        sa.Column("code_hash", sa.String(64), nullable=True, unique=True),
        sa.Column("table_code", sa.String(16), nullable=False),
        sa.Column("answered", sa.Float, nullable=True),
        sa.Column("accepted", sa.Boolean, nullable=True),
        # Ids are never used again (SQLite would reuse the largest after a delete): each
        # process remembers the newest invitation it sent a player.
        sqlite_autoincrement=True,
    )
    op.create_index("ix_invitations_to_id", "invitations", ["to_id"])
    op.create_index("ix_invitations_from_id", "invitations", ["from_id"])
    op.create_table(
        "messages",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("at", sa.Float, nullable=False),
        sa.Column("from_id", sa.Integer, nullable=False),
        sa.Column("to_id", sa.Integer, nullable=True),
        sa.Column("text", sa.Text, nullable=False),
        sqlite_autoincrement=True,
    )
    op.create_index("ix_messages_to_id", "messages", ["to_id"])
    op.create_table(
        "reports",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("at", sa.Float, nullable=False),
        sa.Column("reporter_id", sa.Integer, nullable=False),
        sa.Column("player_id", sa.Integer, nullable=False),
        sa.Column("message", sa.Text, nullable=True),
        sa.Column("place", sa.String(32), nullable=True),
        sa.Column("reason", sa.Text, nullable=False),
        sa.Column("resolved", sa.Float, nullable=True),
        sa.Column("resolved_by", sa.String(64), nullable=True),
        sa.Column("resolution", sa.Text, nullable=True),
    )
    op.create_index("ix_reports_resolved", "reports", ["resolved"])
    op.create_index("ix_reports_reporter_id", "reports", ["reporter_id"])
    with op.batch_alter_table("tables") as batch:
        batch.add_column(sa.Column("preset", sa.String(32), nullable=True))
    conn = op.get_bind()
    rows = conn.execute(sa.text("SELECT id, rules FROM tables")).all()
    for table_id, rules in rows:
        try:
            preset = str(json.loads(rules).get("preset") or "classic")[:32]
        except (ValueError, AttributeError):
            preset = "classic"
        conn.execute(sa.text("UPDATE tables SET preset = :p WHERE id = :i"),
                     {"p": preset, "i": table_id})
    op.create_index("ix_tables_preset", "tables", ["preset"])


def downgrade() -> None:
    op.drop_index("ix_tables_preset", table_name="tables")
    with op.batch_alter_table("tables") as batch:
        batch.drop_column("preset")
    op.drop_table("reports")
    op.drop_table("invitations")
    op.drop_table("messages")
    op.drop_table("relations")
    op.drop_table("follows")
