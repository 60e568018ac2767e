"""Everything said is shown: every message a screen reader is told (each paragraph added to
a live region) is on the screen at that moment too, in the notice area when nothing else
shows it; the notice area lies over the page (it moves nothing) and fades.

A scripted session of two players covers what used to be only heard: a name asked for,
Start with a seat empty, an invitation to an unknown name, "Invitation sent", the
invitation received, the connection lost and back, Settings saved, a key's answer, the
turn timer's warning, and the game's own messages (shown in the game log).
"""

from __future__ import annotations

from typing import Any

import pytest

from .conftest import NewPage
from .helpers import create_table, fresh_name, relayed, set_name, wait_turn

#: For each paragraph added to a live region: its text, and whether that text was on the
#: screen as it was added (in an element drawn, not one for screen readers only). A
#: message of several sentences is shown when it is whole on the screen, or when each
#: sentence is (the game log keeps a step's sentences apart).
SHOWN = """
window.__shown = [];
const flat = (s) => s.replace(/\\s+/g, "");
function onScreen() {
  const parts = [];
  const walk = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let n = walk.nextNode(); n; n = walk.nextNode()) {
    const el = n.parentElement;
    if (!el || el.closest(".sr-only, [aria-live]")) continue;
    if (!el.checkVisibility({visibilityProperty: true})) continue;
    const r = el.getBoundingClientRect();
    if (r.width < 2 || r.height < 2) continue;
    parts.push(n.textContent);
  }
  return flat(parts.join(""));
}
document.addEventListener("DOMContentLoaded", () => {
  for (const id of ["live-polite", "live-assertive", "dlg-live-polite", "dlg-live-assertive"]) {
    new MutationObserver((muts) => {
      const screen = onScreen();
      for (const m of muts) for (const n of m.addedNodes) {
        const said = n.textContent;
        const pieces = said.split(/(?<=[.!?…])\\s+/);
        const shown = screen.includes(flat(said)) || pieces.every((p) => screen.includes(flat(p)));
        window.__shown.push([said, shown]);
      }
    }).observe(document.getElementById(id), {childList: true});
  }
});
"""


def said(page: Any) -> list[tuple[str, bool]]:
    return [(str(t), bool(s)) for t, s in page.evaluate("window.__shown")]


def wait_said(page: Any, text: str) -> None:
    page.wait_for_function("(text) => window.__shown.some(([s]) => s.includes(text))",
                           arg=text)


def unseen(page: Any) -> list[str]:
    return [text for text, shown in said(page) if text and not shown]


@pytest.mark.timeout(600)
def test_every_message_said_is_shown(new_page: NewPage) -> None:
    routes, route = relayed()

    host = new_page(script=SHOWN, ws=route)
    guest = new_page(script=SHOWN)
    # A name asked for before joining by code.
    host.locator("#join-code").fill("NOPE12")
    host.locator("#join-form button[type=submit]").click()
    wait_said(host, "Please enter your name first.")
    host.locator("#notices .notice", has_text="Please enter your name first.").wait_for()
    # The notice lies over the page: the page under it did not move.
    assert host.evaluate("getComputedStyle(document.getElementById('notices')).position") == "fixed"
    guest_name = fresh_name("Guest")
    set_name(guest, guest_name)
    guest.locator("#lobby-text").focus()
    guest.keyboard.type("here")
    guest.keyboard.press("Enter")
    guest.wait_for_function("() => localStorage.getItem('nimmt.token') !== null")

    set_name(host, fresh_name("Host"))
    create_table(host, players=3, rounds=1, bots=1, timer="15", start=False)
    layout = "() => [document.querySelector('header.top'), document.getElementById('seating')]" \
        ".map((el) => JSON.stringify(el.getBoundingClientRect()))"
    before = host.evaluate(layout)
    # Start with a seat empty: refused, said and shown, over the page (nothing moved).
    host.locator("#start-game").click()
    host.locator("#notices .notice").last.wait_for()
    assert host.evaluate(layout) == before
    # An unknown name invited, then a real one.
    for name in ("Nobody at all", guest_name):
        host.locator("#invite-name").fill(name)
        host.locator("#invite-form button[type=submit]").click()
    wait_said(host, f"Invitation sent to {guest_name}.")
    wait_said(guest, "invites you to their table.")
    guest.locator("#invite-decline").click()
    wait_said(guest, "You declined")
    # Settings saved, elsewhere than the table.
    host.evaluate("location.hash = '#/settings'")
    host.wait_for_selector("#view-settings:not([hidden])")
    host.locator("#settings-form button[type=submit]").click()
    wait_said(host, "Settings saved.")
    notice = host.locator("#notices .notice", has_text="Settings saved.")
    notice.wait_for()
    # It fades and goes by itself.
    notice.wait_for(state="detached", timeout=30_000)
    host.evaluate("location.hash = '#/table/' + localStorage.getItem('nimmt.table')")
    host.wait_for_selector("#view-table:not([hidden])")
    # The connection lost and back (the page comes back to its table).
    routes[0].close()
    wait_said(host, "Connection lost")
    host.wait_for_function("() => window.__shown.some(([s]) => s === 'Connected')")
    # The game, with a 15 s timer: a key's answer, and the timer's warning.
    host.locator("#add-bot").click()
    host.wait_for_function("() => !document.getElementById('start-game').closest('[hidden]')"
                           " && [...document.querySelectorAll('#seat-list li')]"
                           ".every((li) => !li.textContent.includes('empty'))")
    host.locator("#start-game").click()
    wait_turn(host, 0)
    host.locator("#hand [role=option]").first.focus()
    host.keyboard.press("s")
    wait_said(host, "Scores")
    host.wait_for_function("() => window.__shown.some(([s]) => /seconds? left\\./.test(s))",
                           timeout=60_000)
    for page in (host, guest):
        assert said(page), "nothing was said"
        assert not unseen(page), f"said but not shown: {unseen(page)}"
