"""Where nimmt keeps its files on this machine: the server its database, the clients their
sessions. One rule for both, so ``nimmt serve`` and ``nimmt play`` agree without a flag."""

from __future__ import annotations

import os
from pathlib import Path

__all__ = ["default_data_dir"]


def default_data_dir() -> Path:
    """``$NIMMT_DATA_DIR``, else ``$XDG_DATA_HOME/nimmt``, else ``~/.local/share/nimmt``."""
    env = os.environ.get("NIMMT_DATA_DIR")
    if env:
        return Path(env)
    xdg = os.environ.get("XDG_DATA_HOME")
    base = Path(xdg) if xdg else Path.home() / ".local" / "share"
    return base / "nimmt"
