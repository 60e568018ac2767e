"""Every failure visible: a refused name by its field, the connection's state from the
first load, the lobby in the language chosen."""

from __future__ import annotations

from .conftest import NewPage
from .helpers import announcements, create_table, fresh_name, relayed, set_name


def test_a_taken_name_is_shown_and_said_by_the_name_field(new_page: NewPage) -> None:
    name = fresh_name("Taken")
    first = new_page()
    set_name(first, name)
    create_table(first, players=2, rounds=1, bots=1, start=False)
    page = new_page()
    page.locator("#me-name").fill(name)
    page.locator("#quick-play").click()
    page.wait_for_selector("#me-error:not([hidden])")
    error = page.locator("#me-error").inner_text()
    assert error == "That name is taken. Choose another one."
    # Said, shown, and the player is back in the field to choose another.
    assert ("assertive", error) in announcements(page)
    assert page.evaluate("document.activeElement.id") == "me-name"
    assert page.locator("#me-name").get_attribute("aria-invalid") == "true"
    assert page.locator("#conn").inner_text() == "Refused by the server"
    assert page.locator("#view-lobby").is_visible()
    page.locator("#me-name").fill(fresh_name("Other"))
    page.locator("#quick-play").click()
    page.wait_for_selector("#view-table:not([hidden])")
    assert page.locator("#me-error").is_hidden()
    assert page.locator("#conn").inner_text() == "Connected"


def test_the_connection_line_starts_empty_and_says_when_it_drops(new_page: NewPage) -> None:
    routes, route = relayed()

    page = new_page(ws=route)
    # Nothing to say before the first connection ("Not connected" was wrong on a first load).
    assert page.locator("#conn").inner_text() == ""
    set_name(page, fresh_name("Line"))
    create_table(page, players=2, rounds=1, bots=1, start=False)
    assert page.locator("#conn").inner_text() == "Connected"
    routes[0].close()
    page.wait_for_function("() => window.__ann.some(a => a[0] === 'assertive'"
                           " && a[1] === 'Connection lost; reconnecting…')")
    # It comes back by itself, and says so.
    page.wait_for_function("() => window.__ann.some(a => a[1] === 'Connected')")
    assert len(routes) == 2
    assert page.locator("#conn").inner_text() == "Connected"


def test_switching_the_language_translates_the_lobby_list_and_the_title(new_page: NewPage) -> None:
    page = new_page()
    assert page.title() == "Lobby — 6 nimmt!"
    page.locator("#me-lang").select_option("sr")
    page.wait_for_function("() => document.documentElement.lang === 'sr'")
    # The tab's title too, with the game's name in the language (a screen reader reads it
    # from the browser's tab strip).
    assert page.title() == "Predvorje — 6 uzimanja!"
    page.wait_for_function(
        "() => { const t = document.getElementById('tables-list').textContent;"
        " return t.length > 0 && !/No open tables|seats taken|Join |Watch /.test(t); }")
    text = page.locator("#tables-list").inner_text()
    assert "Još nema otvorenih stolova" in text or "mesta" in text, text
