"""A spectator whose connection dropped for a while gets the newest moves it missed only;
the history key ([) pages the older ones in from the server when it runs off the oldest
line the page has (the catch-up and ``history`` of docs/protocol.md)."""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from typing import Any

import pytest

from .conftest import QUOTAS, _pages, _serve
from .helpers import (
    RECORDER,
    announcements,
    assertive_count,
    create_table,
    fresh_name,
    set_name,
    wait_turn,
)

#: Items a catch-up carries here: a few turns of a game are already more.
CATCHUP = 6

#: The page's sockets, kept where the test can close one.
SOCKETS = """
window.__sockets = [];
const Plain = window.WebSocket;
window.WebSocket = class extends Plain {
  constructor(...args) { super(...args); window.__sockets.push(this); }
};
"""


@pytest.fixture(scope="module")
def short_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A server whose catch-up carries :data:`CATCHUP` items and pages ten at a time."""
    env = dict(os.environ, **QUOTAS, NIMMT_BOT_SECONDS="0.05", NIMMT_REVEAL_PACE="0",
               NIMMT_ROUND_PAUSE="0",
               NIMMT_LISTEN_CPS="0", NIMMT_CATCHUP_ITEMS=str(CATCHUP),
               NIMMT_HISTORY_ITEMS="10")
    yield from _serve(tmp_path_factory.mktemp("web-catchup"), env)


@pytest.mark.timeout(300)
def test_a_spectator_back_online_pages_the_older_moves_in(browser: Any, short_server: str) -> None:
    pages = _pages(browser, short_server)
    make = next(pages)
    try:
        host = make()
        set_name(host, fresh_name("Host"))
        code = create_table(host, players=2, rounds=1, bots=1)
        watcher = make(script=RECORDER + SOCKETS)
        set_name(watcher, fresh_name("Watch"))
        watcher.locator("#join-code").fill(code)
        watcher.locator("#join-form button[type=submit]").click()
        watcher.wait_for_function("() => document.activeElement.id === 'table-keys'")
        # The watcher's connection drops and stays down while the host plays three turns.
        watcher.context.set_offline(True)
        watcher.evaluate("window.__sockets.forEach(s => s.close())")
        seen = 0
        for _ in range(3):
            assert wait_turn(host, seen) != "over"
            seen = assertive_count(host)
            host.keyboard.press("Enter")
        wait_turn(host, seen)
        watcher.context.set_offline(False)
        # Back online, the page says that older moves stayed on the server...
        watcher.wait_for_function(
            "() => document.getElementById('log').textContent.includes('Earlier moves')")
        frames = watcher.evaluate("window.__frames.map(f => f[1])")
        caught = [m for m in frames if m.get("type") == "events" and m.get("older")]
        assert caught and len(caught[0]["items"]) <= CATCHUP
        # ...and the history key walks back into them, asking the server for pages: it
        # says lines the page never had.
        had = watcher.evaluate("document.getElementById('log').textContent")

        def paged() -> set[str]:
            """The lines the server's history pages brought."""
            return {line["text"] for m in watcher.evaluate("window.__frames.map(f => f[1])")
                    if m.get("type") == "history" for line in m.get("lines") or []}

        for _ in range(60):
            heard = len(announcements(watcher))
            watcher.keyboard.press("[")
            watcher.wait_for_function(f"() => window.__ann.length > {heard}")
            # The answer, once a page asked for has come ("Asking the server…" first).
            watcher.wait_for_function(
                "() => !window.__ann[window.__ann.length - 1][1].startsWith('Asking')")
            # Each line is said with its place in the history ("… (3 of 40)").
            said = {re.sub(r" \(\d+ of \d+\)$", "", text)
                    for _, text in announcements(watcher)[heard:]}
            if any(text not in had for text in said & paged()):
                break
        else:
            raise AssertionError("the history key never said a line paged in from the server")
        # Forward again with ]: the newer lines follow, in order.
        heard = len(announcements(watcher))
        watcher.keyboard.press("]")
        watcher.wait_for_function(f"() => window.__ann.length > {heard}")
        assert announcements(watcher)[-1][1] not in said
    finally:
        pages.close()
