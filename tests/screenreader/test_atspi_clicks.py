"""A screen reader's click through the accessibility bus (atspi.py), in the real Chromium.

What the models of readers.py say of Chromium is checked here against Chromium itself:
its click for an assistive technology focuses the element and has ``detail`` 1. And the
page does with it what docs/web.md's rule says: a card is selected by the first click
(nothing played) and played by the second, always the card clicked, though the page's
own cursor was on another; a row of the row dialog is taken by one click.
"""

from __future__ import annotations

import json
import urllib.request
from pathlib import Path
from typing import Any

import pytest

from .atspi import click
from .orca import SLOW, Desktop, missing_packages, until
from .test_orca_game import CPS, desktop, server  # noqa: F401  (fixtures)

pytestmark = pytest.mark.timeout(600)

#: Every click the page gets: what it landed on, its detail, whether the browser made it,
#: and what had focus as it came.
CLICKS = """() => {
  window.__clicks = [];
  document.addEventListener("click", (e) => {
    const el = e.target.closest("[role=option], input[type=radio]") || e.target;
    const now = document.activeElement;
    window.__clicks.push({on: el.dataset.card || el.value || el.id, detail: e.detail,
                          trusted: e.isTrusted, focus: now === el});
  }, true);
}"""


def _oracle(page: Any, url: str) -> dict[str, Any]:
    token, code = page.evaluate("() => [localStorage.getItem('nimmt.token'),"
                                " localStorage.getItem('nimmt.table')]")
    req = urllib.request.Request(f"{url}/api/speech/{code}?lang=en",
                                 headers={"X-Nimmt-Token": token})
    with urllib.request.urlopen(req, timeout=30) as res:
        data: dict[str, Any] = json.load(res)
    return data


def _chosen(page: Any, url: str) -> int | None:
    view = _oracle(page, url)["view"]
    return None if view is None else view["my_choice"]


def test_a_readers_click_in_chromium(server: str, pw: Any, desktop: Path) -> None:  # noqa: F811
    gone = missing_packages(("chromium",))
    if gone:
        pytest.skip("the clicks in chromium need the Debian packages " + ", ".join(gone))
    with Desktop(desktop, "en", CPS, pw=pw) as d:
        page = d.open(f"{server}/play/")
        # The table is set up by the page's own buttons (this test is about clicks, not
        # about reaching them): three players, one round, jokers, two bots.
        page.evaluate("""() => {
          document.getElementById('me-name').value = 'Klik';
          document.querySelector('input[name=variant][value=jokers]').checked = true;
          document.getElementById('c-players').value = '3';
          document.querySelector('input[name=end][value=rounds]').checked = true;
          document.getElementById('c-rounds').value = '1';
          document.querySelector('#create-form button[type=submit]').click();
        }""")
        page.wait_for_selector("#host-tools:not([hidden])")
        for k in (1, 2):
            page.evaluate("() => document.getElementById('add-bot').click()")
            page.wait_for_function(
                f"() => document.querySelectorAll('#seat-list li').length >= 3"
                f" && [...document.querySelectorAll('#seat-list li')]"
                f".filter(li => /bot/i.test(li.textContent)).length >= {k}")
        page.evaluate("() => document.getElementById('start-game').click()")
        page.wait_for_function("() => document.activeElement.closest('#hand') !== null")

        page.evaluate(CLICKS)
        # The joker (the hand's first card, which has focus): the reader's click on it.
        joker = page.locator("#hand [role=option]").first
        name = str(joker.get_attribute("aria-label"))
        number = int(joker.get_attribute("data-card") or "0")
        assert number < 0, "the joker sorts first"
        click(d, "list item", name)
        page.wait_for_function("() => window.__clicks.length >= 1")
        first = page.evaluate("window.__clicks[0]")
        # Chromium's click for a reader: made by the browser, detail 1, after focus.
        assert first == {"on": str(number), "detail": 1, "trusted": True, "focus": True}, first
        assert _chosen(page, server) is None, "the first click only selects"
        click(d, "list item", name)
        assert until(lambda: page.evaluate("document.querySelector('#row-dialog').open"),
                     SLOW), "the joker was not played (no row asked)"

        # The row dialog: one click on a row's radio button takes it.
        row = page.locator("#row-choices input").last
        label = str(page.evaluate("el => el.labels[0].querySelector('span').textContent",
                                  row.element_handle()))
        click(d, "radio button", label)
        assert until(lambda: not page.evaluate("document.querySelector('#row-dialog').open"),
                     SLOW), "one click did not take the row"
        taken = page.evaluate("window.__clicks").pop()
        assert taken["detail"] == 1 and taken["on"] == row.get_attribute("value"), taken

        # The next turn: the page's cursor is on one card, the reader clicks another.
        assert until(lambda: page.evaluate(
            "document.querySelectorAll('#hand:not(.waiting) [role=option]').length === 9"),
            SLOW)
        cards = page.locator("#hand [role=option]:not(.leaving)")
        target = cards.nth(cards.count() - 1)
        assert target.get_attribute("tabindex") == "-1", "the page's cursor is elsewhere"
        name = str(target.get_attribute("aria-label"))
        number = int(target.get_attribute("data-card") or "0")
        click(d, "list item", name)
        click(d, "list item", name)
        assert until(lambda: _chosen(page, server) == number or page.evaluate(
            f"() => [...document.querySelectorAll('#reveal li')]"
            f".some(li => li.dataset.card === '{number}')"), SLOW), (
            f"the reader clicked {name!r}; the page played something else")
