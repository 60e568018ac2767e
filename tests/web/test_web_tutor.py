"""The expert as a teacher in the browser: a hint on the decision asked (key H), the host's
switch that turns hints off, and the analysis of a finished game on the results page and
in the replay viewer, each said in the page's language."""

from __future__ import annotations

import re

from .conftest import NewPage
from .helpers import (
    announcements,
    create_table,
    fresh_name,
    open_options,
    open_results,
    play_by_keyboard,
    set_name,
)


def _said_after(page: object, n: int) -> list[tuple[str, str]]:
    return announcements(page)[n:]


def test_a_hint_is_said_in_the_players_language_and_the_host_can_turn_hints_off(
        new_page: NewPage) -> None:
    page = new_page(lang="sr")
    set_name(page, fresh_name("Savet"))
    create_table(page, players=3, rounds=1, bots=2)
    page.wait_for_function("() => document.activeElement.closest('#hand') !== null")
    options = page.evaluate("[...document.querySelectorAll('#hand [data-card]:not(.leaving)')]"
                            ".map(li => Number(li.dataset.card))")
    n = len(announcements(page))
    page.keyboard.press("h")  # from the hand, as every shortcut
    # The first hint of the server starts its tutor's worker: on a busy machine that takes a
    # while.
    page.wait_for_function("() => !document.querySelector('#hint-box').hidden",
                           timeout=240_000)
    text = page.locator("#hint-text").text_content() or ""
    # Serbian, one or two short sentences, advising a card of the hand.
    m = re.match(r"Igrajte (\d+)", text)
    assert m and int(m.group(1)) in options, text
    assert ("polite", text) in _said_after(page, n)
    assert page.evaluate("document.activeElement.closest('#hand') !== null")  # focus stays
    # The button does the same for a mouse or a touch.
    assert page.locator("#ask-hint").is_visible()

    # The host turns hints off: the button goes, and H is refused in Serbian.
    page.locator("#hints-allowed").uncheck()
    page.wait_for_function("() => document.querySelector('#ask-hint').hidden")
    page.locator("#hand [data-card]:not(.leaving)").first.focus()
    n = len(announcements(page))
    page.keyboard.press("h")
    page.wait_for_function(f"() => window.__ann.slice({n}).some(a => a[0] === 'assertive')")
    refused = [t for lvl, t in _said_after(page, n) if lvl == "assertive"]
    assert refused == ["Saveti su isključeni za ovim stolom."]
    page.locator("#hints-allowed").check()
    page.wait_for_function("() => !document.querySelector('#ask-hint').hidden")


def test_rated_tables_offer_no_hints(new_page: NewPage) -> None:
    page = new_page()
    set_name(page, fresh_name("Rated"))
    open_options(page)
    page.locator("#c-rated").check()
    create_table(page, players=3, rounds=1, bots=2)
    page.wait_for_function("() => document.activeElement.closest('#hand') !== null")
    assert page.locator("#ask-hint").is_hidden() and page.locator("#hints-tool").is_hidden()
    n = len(announcements(page))
    page.keyboard.press("h")
    page.wait_for_function(f"() => window.__ann.slice({n}).some(a => a[0] === 'assertive')")
    assert [t for lvl, t in _said_after(page, n) if lvl == "assertive"] == [
        "Hints are off at this table."]


def test_the_analysis_on_the_results_page_and_in_the_replay_viewer(new_page: NewPage) -> None:
    page = new_page(lang="cs")
    name = fresh_name("Rozbor")
    set_name(page, name)
    create_table(page, players=3, rounds=1, bots=2)
    play_by_keyboard(page)
    open_results(page)
    assert page.locator("#analysis-box").is_hidden()
    page.locator("#analyse").click()
    page.wait_for_function("() => !document.querySelector('#analysis-box').hidden",
                           timeout=240_000)
    lines = page.locator("#analysis-list li").all_text_contents()
    # One line per player (in Czech), then the costliest decisions.
    assert any(line.startswith(f"{name}: ") for line in lines), lines
    assert "Nejdražší rozhodnutí:" in lines, lines
    assert page.evaluate("document.activeElement.id") == "analysis-h"
    assert any(t == "Expert hru rozebírá. Potrvá to několik sekund." for _, t in
               announcements(page))

    # The same game in the replay viewer: its analysis comes from the server's cache.
    page.goto(page.url.split("#")[0] + "#/history")
    page.wait_for_selector("#history-list a")
    page.locator("#history-list a").first.click()
    page.wait_for_selector("#replay:not([hidden])")
    page.locator("#replay-analyse").click()
    page.wait_for_function("() => !document.querySelector('#replay-analysis-box').hidden")
    assert page.locator("#replay-analysis-list li").all_text_contents() == lines
