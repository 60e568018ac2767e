"""Fixtures of the terminal client's tests: the ``nimmt`` command in a pseudo-terminal.

``spawn`` runs the installed console script under pexpect, in a real
pseudo-terminal with echo off (so the transcript holds only what the program
writes), with its data directory (where online tokens are kept) in a
temporary folder.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pexpect
import pytest

from .tui_helpers import Server, Spawn, nimmt_command


@pytest.fixture
def spawn(tmp_path: Path) -> Iterator[Spawn]:
    children: list[Any] = []

    def make(*args: str, env: dict[str, str] | None = None, data: Path | None = None,
             timeout: float = 120, echo: bool = False) -> Any:
        cmd = nimmt_command()
        full = dict(os.environ, LANG="C.UTF-8", NIMMT_DATA_DIR=str(data or tmp_path / "data"),
                    COLUMNS="200", LINES="50")
        full.pop("NIMMT_PLAIN", None)
        full.update(env or {})
        child = pexpect.spawn(cmd[0], [*cmd[1:], *args], encoding="utf-8", timeout=timeout,
                              env=full, echo=echo, dimensions=(50, 200))
        children.append(child)
        return child

    yield make
    for child in children:
        if child.isalive():
            child.terminate(force=True)


@pytest.fixture
def server(tmp_path: Path) -> Iterator[Server]:
    """A running server (stopped at the end); ``server.url`` is its address."""
    data = tmp_path / "server"
    data.mkdir()
    srv = Server(data)
    srv.start()
    yield srv
    srv.stop()
