"""The server restarts under a player in the middle of a game (SIGTERM, then the same
server again): the page says so, reconnects by itself and the game goes on."""

from __future__ import annotations

import os
import re
import signal
import socket
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from .conftest import QUOTAS, _nimmt, _pages
from .helpers import assertive_count, create_table, fresh_name, set_name, wait_turn


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class Restartable:
    """``nimmt serve`` on one port and one data directory, stopped and started again."""

    def __init__(self, data: Path) -> None:
        self.data = data
        self.port = _free_port()
        self.env = dict(os.environ, **QUOTAS, NIMMT_BOT_SECONDS="0.05", NIMMT_REVEAL_PACE="0",
                        NIMMT_ROUND_PAUSE="0",
                        NIMMT_LISTEN_CPS="0")
        self.proc: subprocess.Popen[str] | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> None:
        self.proc = subprocess.Popen(
            [*_nimmt(), "serve", "--port", str(self.port), "--db",
             f"sqlite+aiosqlite:///{self.data / 'nimmt.db'}", "--data-dir", str(self.data)],
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=self.env)
        assert self.proc.stdout is not None
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            line = self.proc.stdout.readline()
            if not line:
                break
            if re.search(r"open http://127\.0\.0\.1:\d+/", line):
                return
        self.proc.kill()
        pytest.fail("nimmt serve did not start")

    def stop(self) -> None:
        """SIGTERM, as a host's service manager stops it; wait until it has ended."""
        assert self.proc is not None
        self.proc.send_signal(signal.SIGTERM)
        self.proc.wait(timeout=60)


@pytest.fixture
def restartable(tmp_path: Path) -> Iterator[Restartable]:
    srv = Restartable(tmp_path)
    srv.start()
    try:
        yield srv
    finally:
        if srv.proc is not None and srv.proc.poll() is None:
            srv.proc.kill()
            srv.proc.wait(timeout=30)


@pytest.mark.timeout(300)
def test_a_restart_mid_game_is_said_and_the_page_plays_on(browser: Any,
                                                          restartable: Restartable) -> None:
    pages = _pages(browser, restartable.url)
    make = next(pages)
    try:
        page = make()
        set_name(page, fresh_name("Host"))
        create_table(page, players=2, rounds=1, bots=1)
        seen = 0
        assert wait_turn(page, seen) == "card"
        seen = assertive_count(page)
        page.keyboard.press("Enter")
        assert wait_turn(page, seen) != "over"
        seen = assertive_count(page)

        restartable.stop()
        # The page heard why its connection ends (said in its language)...
        page.wait_for_function(
            "() => window.__ann.some(a => a[1].includes('The server is restarting'))")
        restartable.start()
        # ...and is back at the table by itself: the decision asked again, then played.
        page.wait_for_function(
            "() => document.activeElement && document.activeElement.closest('#hand') !== null"
            " || document.querySelector('#row-dialog').open", timeout=60_000)
        page.wait_for_function("() => document.getElementById('hand').children.length > 0")
        before = page.evaluate("document.getElementById('hand').children.length")
        if page.evaluate("document.querySelector('#row-dialog').open"):
            page.keyboard.press("Enter")
            assert wait_turn(page, assertive_count(page)) != "over"
        page.keyboard.press("Enter")
        page.wait_for_function(
            f"() => document.getElementById('hand').children.length < {before}"
            " || document.querySelector('#hand .chosen') !== null")
    finally:
        pages.close()
