"""The web client under its Content-Security-Policy, in real Chromium; names in <bdi>.

The server sends a policy with no inline script or style (server/headers.py). The
page records every ``securitypolicyviolation`` from its first moment (an init
script) and the console is watched, while a person opens the lobby, creates a
table, plays a whole game, chats, and opens the history and a replay: nothing is
blocked. An inline script injected afterwards is blocked and reported, which shows
the policy is in force and the recorder works.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from nimmt.server.edge.headers import SECURITY_HEADERS

from .conftest import RECORDER
from .helpers import (
    create_table,
    fresh_name,
    open_options,
    open_results,
    play_by_keyboard,
    set_name,
    start_game,
)

CSP_RECORDER = """
window.__csp = [];
document.addEventListener("securitypolicyviolation", (e) => {
  window.__csp.push(`${e.effectiveDirective} ${e.blockedURI} ${e.sourceFile}:${e.lineNumber}`);
}, true);
"""


@pytest.fixture
def csp_page(browser: Any, server: str) -> Iterator[tuple[Any, list[str]]]:
    """A page of the client that records CSP violations and console complaints."""
    ctx = browser.new_context(viewport={"width": 1280, "height": 900}, reduced_motion="reduce")
    ctx.set_default_timeout(60_000)
    ctx.add_init_script(RECORDER)
    ctx.add_init_script(CSP_RECORDER)
    page = ctx.new_page()
    complaints: list[str] = []
    page.on("console", lambda m: complaints.append(m.text) if m.type in ("error", "warning")
            else None)
    page.on("pageerror", lambda e: complaints.append(str(e)))
    resp = page.goto(f"{server}/play/")
    assert resp is not None
    for name, value in SECURITY_HEADERS.items():
        assert resp.headers[name.lower()] == value
    page.wait_for_selector("body[data-ready='1']")
    try:
        yield page, complaints
    finally:
        ctx.close()


def test_no_csp_violation_in_a_whole_game(csp_page: tuple[Any, list[str]]) -> None:
    page, complaints = csp_page
    set_name(page, fresh_name("Csp"))
    create_table(page, players=2, rounds=1, bots=1, start=False)
    page.locator("#chat-text").fill("hello \u05e9\u05dc\u05d5\u05dd!")
    page.locator("#chat-text").press("Enter")
    page.wait_for_function("() => document.querySelector('#log').textContent.includes('hello')")
    start_game(page)
    steps = play_by_keyboard(page)
    open_results(page)
    assert steps and page.locator("#results-body tr").count() == 2
    page.evaluate("location.hash = '#/history'")
    page.wait_for_selector("#history-list a")
    page.locator("#history-list a").first.click()
    page.wait_for_selector("#replay:not([hidden])")
    page.locator("#replay-next").click()
    page.evaluate("location.hash = '#/help'")
    page.evaluate("location.hash = '#/settings'")
    page.wait_for_selector("#view-settings:not([hidden])")
    page.wait_for_timeout(200)  # a violation would be reported by now
    assert page.evaluate("window.__csp") == []
    assert [c for c in complaints if "Content Security Policy" in c or "Refused" in c] == []
    # The policy is in force: an inline script added now is blocked, and reported.
    page.evaluate("""() => {
        const s = document.createElement("script");
        s.textContent = "window.__ran = true";
        document.body.append(s);
        const d = document.createElement("div");
        d.setAttribute("style", "color: red");
        document.body.append(d);
    }""")
    page.wait_for_function("() => window.__csp.length >= 2")
    assert page.evaluate("window.__ran") is None
    kinds = {v.split()[0] for v in page.evaluate("window.__csp")}
    assert kinds == {"script-src-elem", "style-src-attr"}, kinds


def test_names_chat_and_table_names_are_isolated(csp_page: tuple[Any, list[str]]) -> None:
    """Text people typed is shown inside <bdi>; bidi controls never reach the page."""
    page, _ = csp_page
    name = fresh_name("\u05e9\u05e8\u05d4")  # Hebrew "Sara" then Latin digits
    set_name(page, name)
    open_options(page)
    page.locator("#c-name").fill("\u202e\u05e9\u05d5\u05dc\u05d7\u05df table")
    create_table(page, players=2, rounds=1, bots=1, start=False)
    heading = page.locator("#table-h bdi")
    assert heading.count() == 1
    assert heading.inner_text() == "\u05e9\u05d5\u05dc\u05d7\u05df table"  # no U+202E
    assert "(code " in page.locator("#table-h").inner_text()
    seat = page.locator("#seat-list li bdi").first
    assert seat.inner_text() == name
    page.locator("#chat-text").fill("\u2067evil\u2069 \u202eknight")
    page.locator("#chat-text").press("Enter")
    page.wait_for_selector("#log .log-chat bdi")
    chat = page.locator("#log .log-chat bdi").all_inner_texts()
    assert chat == [name, "evil knight"]
    # Neither the page nor the live regions hold a bidi control from the server.
    text = page.evaluate("document.body.textContent")
    assert not any(ch in text for ch in "\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")
    # The lobby's "You play as" line isolates the name too.
    page.evaluate("location.hash = '#/'")
    page.wait_for_selector("#me-known bdi")
    assert page.locator("#me-known bdi").inner_text() == name
