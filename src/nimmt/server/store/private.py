"""Files only the server's user may read: its data directory and its database.

The database holds password hashes, session and recovery-code hashes and every
player's address: under the usual umask (022) a directory and a file made by
default would be readable by every local user. What the server creates itself is
made private (0700, 0600) whatever the umask; what exists already is left as the
operator made it (docs/deploy.md sets the directory's owner and mode). SQLite makes
its ``-wal`` and ``-shm`` files with the database's own mode.
"""

from __future__ import annotations

import os
from pathlib import Path

__all__ = ["private_dir", "private_file"]


def private_dir(path: Path) -> None:
    """Make ``path`` and any missing parent, each one made here 0700."""
    missing: list[Path] = []
    here = path
    while not here.exists() and here != here.parent:
        missing.append(here)
        here = here.parent
    for folder in reversed(missing):
        try:
            folder.mkdir(mode=0o700)
        except FileExistsError:  # made meanwhile by another process: theirs
            continue
        os.chmod(folder, 0o700)  # the umask may have taken bits off


def private_file(path: Path) -> None:
    """Make ``path`` empty and 0600 if it does not exist (its folder made by
    :func:`private_dir`)."""
    private_dir(path.parent)
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        return
    try:
        os.fchmod(fd, 0o600)
    finally:
        os.close(fd)
