"""The schema: every table and column of the store, as the Alembic migrations make them.

The migrations (``migrations/versions/``) are the history of the schema; this is where
it stands now. A test migrates an empty database and compares it with these tables
(tests/server/test_server_store.py), so the two cannot drift apart. Only the store's own
modules read them: the rest of the server asks the store by name.
"""

from __future__ import annotations

import sqlalchemy as sa

__all__ = ["audit", "follows", "game_players", "games", "invitations", "messages", "meta",
           "metadata", "players", "recovery_codes", "relations", "reports", "sanctions",
           "sessions", "signals", "table_log", "tables"]

metadata = sa.MetaData()

players = sa.Table(
    "players",
    metadata,
    sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
    sa.Column("name", sa.String(64), nullable=False, unique=True),
    # The name's confusable skeleton (server/text.py name_key): one player per look.
    # Null only for a player older than migration 0002 whose name looked like an older
    # player's; that older player holds the skeleton.
    sa.Column("skeleton", sa.Text, nullable=True, unique=True, index=True),
    sa.Column("mu", sa.Float, nullable=False),
    sa.Column("sigma", sa.Float, nullable=False),
    sa.Column("rated_games", sa.Integer, nullable=False),
    sa.Column("created", sa.Float, nullable=False),
    # An account is a player with a password (argon2id, server/passwords.py); null: a guest.
    sa.Column("password_hash", sa.Text, nullable=True),
    sa.Column("password_changed", sa.Float, nullable=True),
    # When the player was last connected: an unclaimed guest name unused for
    # ``guest_release_days`` is released (docs/accounts.md).
    sa.Column("last_seen", sa.Float, nullable=True, index=True),
    # When the guest's name was released, and the name it had: ``name`` then holds a
    # placeholder, the skeleton is null, and the name is free for anyone.
    sa.Column("released", sa.Float, nullable=True),
    sa.Column("released_name", sa.String(64), nullable=True),
)

#: Every token is a session of its player (migration 0005): one per sign-in, or the one a
#: guest got with their name. Only the token's SHA-256 is kept.
sessions = sa.Table(
    "sessions",
    metadata,
    sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
    sa.Column("player_id", sa.Integer, nullable=False, index=True),
    sa.Column("token_hash", sa.String(64), nullable=False, unique=True, index=True),
    sa.Column("created", sa.Float, nullable=False),
    sa.Column("last_seen", sa.Float, nullable=False),
    # The client address it was made from, and the latest one it was used from.
    sa.Column("address", sa.String(64), nullable=True),
    sa.Column("last_address", sa.String(64), nullable=True),
)

#: An account's one-time recovery codes (their SHA-256; each has 80 random bits).
recovery_codes = sa.Table(
    "recovery_codes",
    metadata,
    sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
    sa.Column("player_id", sa.Integer, nullable=False, index=True),
    sa.Column("code_hash", sa.String(64), nullable=False),
    sa.Column("created", sa.Float, nullable=False),
    sa.Column("used", sa.Float, nullable=True),
)

#: The operator's mutes and bans (``kind``), of a player or of an address (a network in
#: CIDR form), until a time or until lifted.
sanctions = sa.Table(
    "sanctions",
    metadata,
    sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
    sa.Column("kind", sa.String(16), nullable=False),
    sa.Column("player_id", sa.Integer, nullable=True),
    sa.Column("address", sa.String(64), nullable=True),
    sa.Column("created", sa.Float, nullable=False),
    sa.Column("until", sa.Float, nullable=True),
    sa.Column("lifted", sa.Float, nullable=True, index=True),
    sa.Column("reason", sa.Text, nullable=False),
    sa.Column("by", sa.String(64), nullable=False),
)

#: Every operator action (``nimmt admin``): who, when, what, on whom.
audit = sa.Table(
    "audit",
    metadata,
    sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
    sa.Column("at", sa.Float, nullable=False),
    sa.Column("actor", sa.String(64), nullable=False),
    sa.Column("action", sa.String(32), nullable=False),
    sa.Column("player_id", sa.Integer, nullable=True),
    sa.Column("target", sa.Text, nullable=False),
    sa.Column("detail", sa.Text, nullable=False),
)

#: What every running server process must act on at once (server/accounts.py polls it):
#: sessions ended, bans, renames, tables to close. Kept a day.
signals = sa.Table(
    "signals",
    metadata,
    sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
    sa.Column("at", sa.Float, nullable=False),
    sa.Column("kind", sa.String(16), nullable=False),
    sa.Column("player_id", sa.Integer, nullable=True),
    sa.Column("session_id", sa.Integer, nullable=True),
    sa.Column("address", sa.String(64), nullable=True),
    sa.Column("code", sa.String(16), nullable=True),
)

#: Who follows whom (migration 0006); a friend is a mutual follow.
follows = sa.Table(
    "follows",
    metadata,
    sa.Column("follower_id", sa.Integer, primary_key=True),
    sa.Column("followed_id", sa.Integer, primary_key=True, index=True),
    sa.Column("created", sa.Float, nullable=False),
)

#: A player's mutes and blocks (``kind``) of another player, kept per player.
relations = sa.Table(
    "relations",
    metadata,
    sa.Column("player_id", sa.Integer, primary_key=True),
    sa.Column("other_id", sa.Integer, primary_key=True, index=True),
    sa.Column("kind", sa.String(8), primary_key=True),
    sa.Column("created", sa.Float, nullable=False),
)

#: Invitations to a table: of a player (``to_id``), or a one-time link (``code_hash``, the
#: SHA-256 of its code) that seats whoever opens it as a guest.
invitations = sa.Table(
    "invitations",
    metadata,
    sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
    sa.Column("at", sa.Float, nullable=False),
    sa.Column("from_id", sa.Integer, nullable=False, index=True),
    sa.Column("to_id", sa.Integer, nullable=True, index=True),
    sa.Column("code_hash", sa.String(64), nullable=True, unique=True),
    sa.Column("table_code", sa.String(16), nullable=False),
    sa.Column("answered", sa.Float, nullable=True),
    sa.Column("accepted", sa.Boolean, nullable=True),
    sqlite_autoincrement=True,
)

#: The lobby chat (``to_id`` null) and private messages, each kept bounded.
messages = sa.Table(
    "messages",
    metadata,
    sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
    sa.Column("at", sa.Float, nullable=False),
    sa.Column("from_id", sa.Integer, nullable=False),
    sa.Column("to_id", sa.Integer, nullable=True, index=True),
    sa.Column("text", sa.Text, nullable=False),
    sqlite_autoincrement=True,
)

#: Players' reports of a message or a player, until an operator resolves them.
reports = sa.Table(
    "reports",
    metadata,
    sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
    sa.Column("at", sa.Float, nullable=False),
    sa.Column("reporter_id", sa.Integer, nullable=False, index=True),
    sa.Column("player_id", sa.Integer, nullable=False, index=True),
    # The message reported (as the reporter saw it), and where: a table's code or "lobby".
    sa.Column("message", sa.Text, nullable=True),
    sa.Column("place", sa.String(32), nullable=True),
    sa.Column("reason", sa.Text, nullable=False),
    sa.Column("resolved", sa.Float, nullable=True, index=True),
    sa.Column("resolved_by", sa.String(64), nullable=True),
    sa.Column("resolution", sa.Text, nullable=True),
)

tables = sa.Table(
    "tables",
    metadata,
    sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
    sa.Column("code", sa.String(16), nullable=False, unique=True),
    sa.Column("name", sa.String(64), nullable=False),
    sa.Column("host_id", sa.Integer, nullable=False),
    sa.Column("rules", sa.Text, nullable=False),
    sa.Column("settings", sa.Text, nullable=False),
    sa.Column("status", sa.String(16), nullable=False, index=True),
    sa.Column("created", sa.Float, nullable=False),
    # The newest owner's fencing token (many processes, docs/scaling.md; 0 for one process).
    sa.Column("fence", sa.BigInteger, nullable=False, server_default="0"),
    # The rules preset's name (migration 0006): the leaderboard counts games per preset.
    sa.Column("preset", sa.String(32), nullable=True, index=True),
)

table_log = sa.Table(
    "table_log",
    metadata,
    sa.Column("table_id", sa.Integer, primary_key=True),
    sa.Column("n", sa.Integer, primary_key=True),
    sa.Column("kind", sa.String(16), nullable=False),
    sa.Column("data", sa.Text, nullable=False),
)

games = sa.Table(
    "games",
    metadata,
    sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
    sa.Column("table_id", sa.Integer, nullable=False, index=True),
    sa.Column("game_no", sa.Integer, nullable=False),
    sa.Column("rated", sa.Boolean, nullable=False),
    sa.Column("finished", sa.Boolean, nullable=False),
    sa.Column("record", sa.Text, nullable=False),
    sa.Column("ended", sa.Float, nullable=False),
)

game_players = sa.Table(
    "game_players",
    metadata,
    sa.Column("game_id", sa.Integer, primary_key=True),
    sa.Column("seat", sa.Integer, primary_key=True),
    sa.Column("player_id", sa.Integer, nullable=True, index=True),
    sa.Column("name", sa.String(64), nullable=False),
    sa.Column("total", sa.Integer, nullable=False),
    sa.Column("winner", sa.Boolean, nullable=False),
    sa.Column("mu_after", sa.Float, nullable=True),
)

#: The server's own facts, by name (migration 0004): the cluster's signing key.
meta = sa.Table(
    "meta",
    metadata,
    sa.Column("key", sa.String(64), primary_key=True),
    sa.Column("value", sa.Text, nullable=False),
)
