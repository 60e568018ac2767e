"""Fixtures of the terminal client's tests: the ``nimmt`` command in a pseudo-terminal.

``spawn`` runs the installed console script under pexpect, in a real
pseudo-terminal with echo off (so the transcript holds only what the program
writes), with its data directory (where online tokens are kept) in a
temporary folder.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pexpect
import pytest

#: ``spawn(*args, env=None, data=None)``: a ``nimmt`` process under pexpect.
Spawn = Callable[..., Any]


def nimmt_command() -> list[str]:
    exe = Path(sys.executable).parent / "nimmt"
    if exe.exists():
        return [str(exe)]
    return [sys.executable, "-c", "from nimmt.cli import main; main()"]


@pytest.fixture
def spawn(tmp_path: Path) -> Iterator[Spawn]:
    children: list[Any] = []

    def make(*args: str, env: dict[str, str] | None = None, data: Path | None = None,
             timeout: float = 60, echo: bool = False) -> Any:
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


class Server:
    """A ``nimmt serve`` subprocess on a free loopback port with a SQLite file."""

    def __init__(self, data: Path) -> None:
        self.data = data
        self.url = ""
        self.proc: subprocess.Popen[str] | None = None

    def start(self, port: int = 0) -> str:
        env = dict(os.environ, NIMMT_BOT_SECONDS="0.05", NIMMT_DISCONNECT_GRACE="30",
                   NIMMT_RATE="1000", NIMMT_BURST="1000")
        self.proc = subprocess.Popen(
            [*nimmt_command(), "serve", "--port", str(port), "--db",
             f"sqlite+aiosqlite:///{self.data / 'nimmt.db'}", "--data-dir", str(self.data)],
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env,
        )
        assert self.proc.stdout is not None
        deadline = time.monotonic() + 60
        lines = []
        while time.monotonic() < deadline:
            line = self.proc.stdout.readline()
            if not line:
                break
            lines.append(line)
            m = re.search(r"open (http://127\.0\.0\.1:\d+)/", line)
            if m:
                self.url = m.group(1)
                return self.url
        self.stop()
        pytest.fail("nimmt serve did not start:\n" + "".join(lines))

    def stop(self) -> None:
        if self.proc is not None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
            self.proc = None


@pytest.fixture
def server(tmp_path: Path) -> Iterator[Server]:
    """A running server (stopped at the end); ``server.url`` is its address."""
    data = tmp_path / "server"
    data.mkdir()
    srv = Server(data)
    srv.start()
    yield srv
    srv.stop()
