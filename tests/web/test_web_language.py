"""No English under Serbian or Czech, on any screen, as a screen reader reads it.

Every screen of the client is opened in the page's language (the lobby with its forms,
the seating, a card and a row decision in a game with the touch layer open, the final
standings, the results, the history and a replay, help, settings, friends, the account,
the leaderboard and a player's page), and everything a screen reader can read there is
taken from Chromium's accessibility tree (CDP ``Accessibility.getFullAXTree``: every
name, description, value and text, hidden parts aside) with the tab's title. None of it
may hold a word of the project's English strings that the language's own strings never
use (:func:`screenreader.speech.foreign_words`): a label, a group's name, a heading or a
sentence left in English.
"""

from __future__ import annotations

from typing import Any

import pytest

from screenreader.speech import english_in

from .conftest import NewPage
from .helpers import create_table, open_options, open_results, play_by_keyboard, set_name, wait_turn

#: The player's name: no word of the catalogs in it.
NAME = {"sr": "Zorana", "cs": "Zdenka"}


def readable(page: Any) -> list[str]:
    """Everything a screen reader may read on the page now, line by line."""
    cdp = page.context.new_cdp_session(page)
    try:
        nodes = cdp.send("Accessibility.getFullAXTree")["nodes"]
    finally:
        cdp.detach()
    out = [str(page.title())]
    for node in nodes:
        if node.get("ignored"):
            continue
        for key in ("name", "description", "value"):
            value = node.get(key, {}).get("value")
            if isinstance(value, str) and value.strip():
                out.append(value)
    return out


def check(page: Any, lang: str, screen: str, found: dict[str, list[str]]) -> None:
    """Note the English ``page`` shows on ``screen``. What other players typed in the
    lobby's lists (their names, their tables' names, their chat: each isolated in a
    ``<bdi>``) is theirs, not the page's language: the other tests' players there are
    named in English."""
    typed = sorted(set(page.evaluate(
        "() => [...document.querySelectorAll('#tables-list bdi, #online-list bdi,"
        " #lobby-log bdi')].map((b) => b.textContent)")), key=len, reverse=True)
    for line in readable(page):
        for text in typed:
            if text:
                line = line.replace(text, " ")
        words = english_in(line, lang)
        if words:
            found.setdefault(screen, []).append(f"{line!r} ({', '.join(sorted(words))})")


def go(page: Any, view: str, hash_: str | None = None) -> None:
    page.evaluate(f"location.hash = {hash_ or '#/' + view!r}")
    page.wait_for_selector(f"#view-{view}:not([hidden])")


@pytest.mark.timeout(600)
@pytest.mark.parametrize("lang", ["sr", "cs"])
def test_no_english_on_any_screen(new_page: NewPage, lang: str) -> None:
    page = new_page(lang=lang)
    found: dict[str, list[str]] = {}
    page.wait_for_function(f"() => document.documentElement.lang === {lang!r}")
    check(page, lang, "lobby", found)
    set_name(page, NAME[lang])
    open_options(page)
    page.locator("input[name=variant][value=jokers]").check()
    create_table(page, players=3, rounds=1, bots=2, start=False)
    check(page, lang, "seating", found)
    page.locator("#start-game").focus()
    page.keyboard.press("Enter")
    wait_turn(page, 0)
    page.locator("#ask summary").click()
    check(page, lang, "a card to choose", found)
    # The joker, the lowest card: a row is asked.
    page.locator("#hand [role=option]").first.focus()
    page.keyboard.press("Enter")
    page.wait_for_function("() => document.querySelector('#row-dialog').open")
    check(page, lang, "a row to choose", found)
    page.keyboard.press("Enter")
    play_by_keyboard(page)
    check(page, lang, "the final standings", found)
    open_results(page)
    check(page, lang, "results", found)
    for view in ("help", "settings", "friends", "account", "leaderboard"):
        go(page, view)
        check(page, lang, view, found)
    go(page, "history")
    page.wait_for_selector("#history-list li a")
    check(page, lang, "history", found)
    page.locator("#history-list li a").first.click()
    page.wait_for_selector("#replay:not([hidden])")
    check(page, lang, "replay", found)
    go(page, "player", f"#/players/{NAME[lang]}")
    page.wait_for_function("() => document.getElementById('player-h').textContent !== ''")
    check(page, lang, "a player's page", found)
    assert not found, "English under " + lang + ":\n" + "\n".join(
        f"{screen}: {line}" for screen, lines in found.items() for line in lines)


@pytest.mark.timeout(300)
def test_a_table_its_host_did_not_name_is_named_in_each_readers_language(
        new_page: NewPage) -> None:
    """An English host's unnamed table is "Ana's table" to the host and "Sto — Ana" in
    a Serbian lobby: the server keeps the name empty and each client says it."""
    host = new_page(lang="en")
    set_name(host, "Hostessa")
    code = create_table(host, players=3, rounds=1, bots=0, start=False)
    assert host.locator("#table-h").inner_text().startswith("Hostessa's table (code ")
    reader = new_page(lang="sr")
    reader.wait_for_function("() => document.documentElement.lang === 'sr'")
    item = reader.locator(f"#tables-list li[data-code='{code}']")
    item.wait_for()
    assert item.locator("span.table").inner_text().startswith("Sto — Hostessa: ")
    assert "'s table" not in item.inner_text()
