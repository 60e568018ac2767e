"""Server configuration: command-line flags and ``NIMMT_*`` environment variables.

Every setting has a safe default, so ``nimmt serve`` alone starts a private
server on loopback with a SQLite file in the data directory. docs/server.md
lists them all.
"""

from __future__ import annotations

import os
from pathlib import Path

from pydantic import Field
from pydantic_settings import BaseSettings, SettingsConfigDict

__all__ = ["Settings", "default_data_dir"]


def default_data_dir() -> Path:
    """``$NIMMT_DATA_DIR``, else ``$XDG_DATA_HOME/nimmt``, else ``~/.local/share/nimmt``."""
    env = os.environ.get("NIMMT_DATA_DIR")
    if env:
        return Path(env)
    xdg = os.environ.get("XDG_DATA_HOME")
    base = Path(xdg) if xdg else Path.home() / ".local" / "share"
    return base / "nimmt"


class Settings(BaseSettings):
    """What a host may change. Environment: ``NIMMT_HOST``, ``NIMMT_PORT``, ``NIMMT_DB``, …"""

    model_config = SettingsConfigDict(env_prefix="NIMMT_", extra="ignore")

    host: str = "127.0.0.1"
    port: int = Field(default=8000, ge=0, le=65535)
    #: SQLAlchemy URL; empty means a SQLite file ``nimmt.db`` in ``data_dir``.
    db: str = ""
    data_dir: Path = Field(default_factory=default_data_dir)
    #: Largest text frame the protocol reads (bytes); larger ones get ``frame_too_large``.
    max_frame: int = Field(default=8192, ge=256, le=1 << 20)
    #: Messages per second a connection may send on average, and the burst it may send at once.
    rate: float = Field(default=20.0, gt=0)
    burst: int = Field(default=60, ge=1)
    #: Longest chat message, in characters.
    chat_max: int = Field(default=300, ge=1, le=4000)
    #: Seconds a seated player may be disconnected during a game before the default bot plays.
    disconnect_grace: float = Field(default=60.0, ge=0)
    #: Seconds a table with no seated person connected stays open (after any game ends).
    idle_close: float = Field(default=3600.0, gt=0)
    #: Seconds a bot may think per decision (search bots stop early).
    bot_seconds: float = Field(default=1.0, gt=0)
    #: Most tables open at once (a guard against abuse).
    max_tables: int = Field(default=5000, ge=1)

    def database_url(self) -> str:
        """The database URL, with the default SQLite file in the data directory."""
        if self.db:
            return self.db
        return f"sqlite+aiosqlite:///{self.data_dir / 'nimmt.db'}"
