"""Every message of a whole game reaches the accessibility tree (axtree.py), not only the DOM.

The game is played by keyboard at the page's own pace (a message waits for the one before
to be said), with jokers (a row choice), pressing shortcuts while messages wait: a key
ends the wait, so the waiting message is written in the same task as the key's answer,
which is where a region that kept one paragraph used to drop it before the browser ever
told a screen reader. Each turn the page's own voice also queues two lines, the second
waiting behind the first, and a key is pressed: both must be in the tree.

The watcher is shown to see what it must: a paragraph removed in the task that added it
never reaches the tree (the watcher must not see it), one that stays is seen.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from .axtree import TreeWatcher, chromium_with_port
from .conftest import NewPage, _pages
from .helpers import (
    announcements,
    assertive_count,
    create_table,
    fresh_name,
    open_options,
    set_name,
    wait_turn,
)


@pytest.fixture
def ax_page(pw: Any, server: str) -> Iterator[tuple[NewPage, int]]:
    """Pages of the test server in a Chromium with a DevTools port, and the port."""
    with chromium_with_port(pw) as (browser, port):
        for make in _pages(browser, server):
            yield make, port


def until(ready: Callable[[], bool], timeout: float = 30.0) -> bool:
    """Wait until ``ready()`` (looked at every 0.05 s) or ``timeout`` seconds pass."""
    deadline = time.monotonic() + timeout
    while not ready():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.05)
    return True


#: Queue two lines in the page's own voice (the second waits behind the first).
QUEUE = """(n) => import('./voice.js').then((v) => {
  v.say(`Probe ${n}: the first line of two.`);
  v.say(`Probe ${n}: the second line, which waits.`);
})"""

#: A paragraph added and removed in one task, and one that stays a while.
LOSS = """() => {
  const r = document.getElementById('live-polite');
  const lost = document.createElement('p');
  lost.textContent = 'A probe the tree never holds.';
  r.append(lost);
  lost.remove();
  const kept = document.createElement('p');
  kept.textContent = 'A probe the tree holds.';
  r.append(kept);
  setTimeout(() => kept.remove(), 1600);
}"""


@pytest.mark.timeout(900)
def test_every_message_of_a_game_reaches_the_accessibility_tree(
        ax_page: tuple[NewPage, int]) -> None:
    new_page, port = ax_page
    page = new_page(pace=None)  # the page's own pace: messages wait for each other
    set_name(page, fresh_name("Tree"))
    open_options(page)
    page.locator("input[name=variant][value=jokers]").check()
    with TreeWatcher(page, port) as tree:
        page.evaluate(LOSS)
        assert until(lambda: "A probe the tree holds." in tree.seen)
        create_table(page, players=3, rounds=1, bots=2)
        seen = turns = rows = 0
        while True:
            what = wait_turn(page, seen)
            if what == "over":
                break
            seen = assertive_count(page)
            # The player answers once the prompt was heard: once the tree had it (a prompt
            # lost never comes, and the final check names it).
            prompt = [t for lvl, t in announcements(page) if lvl == "assertive"][-1]
            until(lambda p=prompt: not tree.missing([p]), 10.0)
            turns += 1
            rows += what == "row"
            if what == "card":
                page.evaluate(QUEUE, turns)
                page.keyboard.press("s")  # the waiting line and the answer, in one task
                page.wait_for_function(
                    f"() => window.__ann.some(a => a[1].startsWith('Probe {turns}: the second'))")
            page.keyboard.press("Enter")
            page.keyboard.press("t")  # while the next step may wait for the voice
        # The last messages, once the tree has them (a lost one never comes: the bound).
        said = [text for _, text in announcements(page)]
        until(lambda: not tree.missing(said[-5:]))
    assert turns >= 10 and rows >= 1, (turns, rows)
    assert tree.looks > 100, tree.looks
    assert "A probe the tree holds." in tree.seen
    assert "A probe the tree never holds." not in tree.seen
    assert "A probe the tree holds." in said and "A probe the tree never holds." in said
    lost = tree.missing([t for t in said if "tree never holds" not in t])
    assert not lost, f"in the DOM, never in the accessibility tree: {lost}"
