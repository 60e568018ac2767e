"""The lobby, accounts from the lobby, settings, themes, one-click play and the phone's menu.

- The lobby starts a game in one step: focus on the quick game, the rule set folded behind
  "More options" (kept as the player left it), the open tables as cards with their seats,
  who is online (each a link to their page and a button to their box) and the lobby chat
  beside them, each line with its time.
- A newcomer keeps a name with a password from the account page, before any table (a
  taken name said by its field first).
- Settings in groups, the shortcut keys folded; a theme switch (system, light, dark, high
  contrast) that changes the colours at once and passes axe.
- One-click play: a mouse's click plays a card; a screen reader's click selects it first
  (NVDA's model, Chromium's click for a reader); with the setting off, a mouse's click
  selects too.
- The phone's menu: every link on the screen, in English, Serbian and Czech.
"""

from __future__ import annotations

from typing import Any

import pytest

from .conftest import NewPage
from .helpers import (
    MY_CHOICES,
    RECORDER,
    announcements,
    create_table,
    decisions,
    fresh_name,
    open_options,
    set_name,
)
from .readers import click

axe_sync = pytest.importorskip("axe_playwright_python.sync_playwright")


def _axe(page: Any, state: str) -> None:
    result = axe_sync.Axe().run(page)
    assert result.violations_count == 0, f"{state}:\n{result.generate_report()}"


def _go(page: Any, hash_: str, view: str) -> None:
    page.evaluate(f"location.hash = {hash_!r}")
    page.wait_for_selector(f"#view-{view}:not([hidden])")


def _wait_said(page: Any, text: str) -> None:
    page.wait_for_function("(text) => window.__ann.some(([, s]) => s.includes(text))", arg=text)


@pytest.mark.timeout(300)
def test_the_lobby_starts_a_game_in_one_step_beside_the_room(new_page: NewPage) -> None:
    host = new_page()
    host_name = fresh_name("Host")
    set_name(host, host_name)
    code = create_table(host, players=3, rounds=1, bots=1, start=False)

    page = new_page()
    # The quick game first, with focus on its button; the rule set folded.
    assert page.evaluate("document.activeElement.id") == "quick-play"
    assert page.locator("#c-players").is_hidden()
    first = page.evaluate("""() => {
      const order = ['quick-form', 'more-options', 'tables-panel', 'online-panel', 'lobby-chat'];
      return order.map((id) => document.getElementById(id).getBoundingClientRect().top);
    }""")
    assert first[0] < first[1] < first[2], first
    # The open table as a card: its seats (the host, a bot by its strength, a free seat)
    # and Join.
    card = page.locator(f"#tables-list li[data-code='{code}']")
    card.wait_for()
    seats = card.locator("ul.card-seats > li").all_inner_texts()
    assert seats == [host_name, "Easy bot", "Free seat"], seats
    assert card.locator("button").inner_text() == f"Join {host_name}'s table"
    # Who is online shows once the page speaks for a player.
    assert "give your name" in page.locator("#online-count").inner_text()
    name = fresh_name("Looker")
    set_name(page, name)
    page.locator("#lobby-text").focus()
    page.keyboard.type("hello, lobby")
    page.keyboard.press("Enter")
    page.wait_for_function(
        "(name) => [...document.querySelectorAll('#online-list li')]"
        ".some((li) => li.dataset.name === name)", arg=host_name)
    you = page.locator(f"#online-list li[data-name='{name}']")
    assert you.inner_text() == f"{name} (you)"
    assert you.locator("a").get_attribute("href") == f"#/players/{name}"
    # The line, with the time the server wrote it, in the lobby's own chat.
    line = page.locator("#lobby-log p", has_text="hello, lobby")
    line.wait_for()
    assert line.locator("time").get_attribute("datetime")
    # The host, back in the lobby, sees the newcomer online and the line; their box opens
    # from the list.
    _go(host, "#/", "lobby")
    other = host.locator(f"#online-list li[data-name='{name}']")
    other.wait_for()
    host.locator("#lobby-log p", has_text="hello, lobby").wait_for()
    other.locator("button").click()
    host.wait_for_selector("#person-box:not([hidden])")
    assert name in host.locator("#person-h").inner_text()
    host.keyboard.press("Escape")
    _axe(host, "the lobby with a table, who is online and the chat")
    # More options stays as the player left it.
    open_options(page)
    assert page.locator("#c-players").is_visible()
    page.reload()
    page.wait_for_selector("body[data-ready='1']")
    assert page.evaluate("document.getElementById('more-options').open")
    # The friends view no longer holds the lobby chat.
    _go(page, "#/friends", "friends")
    assert page.locator("#view-friends #lobby-log").count() == 0


@pytest.mark.timeout(300)
def test_a_name_kept_with_a_password_before_any_table(new_page: NewPage) -> None:
    taken = fresh_name("Taken")
    holder = new_page()
    set_name(holder, taken)
    holder.locator("#lobby-text").focus()
    holder.keyboard.type("mine")
    holder.keyboard.press("Enter")
    holder.wait_for_function("() => localStorage.getItem('nimmt.token') !== null")

    page = new_page()
    page.locator("#me-name").fill(taken)
    # The lobby's link to the account page, which asks for the name to keep.
    page.locator("#me-account").click()
    page.wait_for_selector("#view-account:not([hidden])")
    assert page.locator("#claim-name").input_value() == taken
    assert page.locator("#signin-form").is_visible()
    page.locator("#claim-pw").fill("a long passphrase")
    page.locator("#claim-pw2").fill("a long passphrase")
    page.locator("#claim-form button[type=submit]").click()
    # Taken: said by the name's field, which takes focus; the page stays.
    page.wait_for_selector("#claim-error:not([hidden])")
    assert "taken" in page.locator("#claim-error").inner_text()
    assert page.evaluate("document.activeElement.id") == "claim-name"
    assert page.locator("#claim-name").get_attribute("aria-invalid") == "true"
    assert page.locator("#view-account").is_visible()
    name = fresh_name("Keeper")
    page.locator("#claim-name").fill(name)
    page.locator("#claim-form button[type=submit]").click()
    page.wait_for_selector("#codes-box:not([hidden])")
    assert page.locator("#codes-list li").count() == 8
    kept = page.evaluate("['account', 'name'].map((k) => localStorage.getItem('nimmt.' + k))")
    assert kept == ["1", name]
    assert page.evaluate("localStorage.getItem('nimmt.table')") is None
    page.locator("#codes-done").click()
    page.wait_for_function("() => document.querySelectorAll('#sessions-list li').length === 1")
    assert f"signed in as {name}" in page.locator("#account-who").inner_text()
    assert page.locator("#claim-form").is_hidden()


@pytest.mark.timeout(300)
def test_settings_in_groups_and_the_themes(new_page: NewPage) -> None:
    page = new_page()
    _go(page, "#/settings", "settings")
    headings = page.locator("#settings-form h2").all_inner_texts()
    assert headings == ["Game", "Sound and voice", "Display", "Keyboard shortcuts"], headings
    # The 26 keys wait in their own fold.
    assert page.locator("#set-keys input").count() > 20
    assert page.locator("#key-scores").is_hidden()
    page.locator("#set-keys-more > summary").click()
    assert page.locator("#key-scores").is_visible()
    _axe(page, "settings, the keys open")
    background = "() => getComputedStyle(document.body).backgroundColor"
    assert page.evaluate(background) == "rgb(255, 255, 255)"
    for theme, colour in (("dark", "rgb(13, 13, 13)"), ("contrast", "rgb(0, 0, 0)"),
                          ("light", "rgb(255, 255, 255)")):
        page.locator("#set-theme").select_option(theme)
        page.wait_for_function("(t) => document.documentElement.dataset.theme === t", arg=theme)
        assert page.evaluate(background) == colour, theme
        _axe(page, f"settings in the {theme} theme")
        _go(page, "#/", "lobby")
        _axe(page, f"the lobby in the {theme} theme")
        _go(page, "#/settings", "settings")
    _wait_said(page, "Colours: Light.")
    # Kept on this device; following the system again drops the choice.
    page.reload()
    page.wait_for_selector("body[data-ready='1']")
    assert page.evaluate("document.documentElement.dataset.theme") == "light"
    page.locator("#set-theme").select_option("")
    assert page.evaluate("document.documentElement.dataset.theme") is None
    assert page.evaluate("localStorage.getItem('nimmt.theme')") is None


def _played(page: Any) -> int:
    return len(page.evaluate(MY_CHOICES))


@pytest.mark.timeout(300)
def test_one_click_plays_for_a_pointer_and_not_for_a_reader(new_page: NewPage) -> None:
    page = new_page(script=RECORDER)
    set_name(page, fresh_name("Clicker"))
    create_table(page, players=2, rounds=1, bots=1)
    turns = decisions(page)
    hand = "#hand:not(.waiting) li:not(.leaving)"

    # A mouse: one click plays the card it lands on.
    next(turns)
    card = page.locator(hand).last
    number = int(card.get_attribute("data-card") or "0")
    card.click()
    page.wait_for_function(f"() => ({MY_CHOICES})().includes({number})")

    # A screen reader's click (NVDA's, through Chromium): the first selects and says how to
    # play; the second plays.
    asked = next(turns)
    assert asked.endswith(" card")
    chosen = _played(page)
    card = page.locator(hand).last
    number = int(card.get_attribute("data-card") or "0")
    click(page, card, "nvda")
    _wait_said(page, "activate it again to play it")
    assert _played(page) == chosen
    click(page, card, "nvda")
    page.wait_for_function(f"() => ({MY_CHOICES})().length > {chosen}")

    # One-click play off (Settings): a mouse's click selects, Play plays.
    _go(page, "#/settings", "settings")
    page.locator("#set-oneclick").uncheck()
    page.locator("#settings-form button[type=submit]").click()
    assert page.evaluate("localStorage.getItem('nimmt.oneclick')") == "0"
    code = page.evaluate("localStorage.getItem('nimmt.table')")
    _go(page, f"#/table/{code}", "table")
    next(turns)
    chosen = _played(page)
    before = len(announcements(page))
    card = page.locator(hand).first
    card.click()
    page.wait_for_function(
        f"() => window.__ann.slice({before}).some(([, s]) => s.includes('activate it again'))")
    assert _played(page) == chosen
    page.locator("#play-card").click()
    page.wait_for_function(f"() => ({MY_CHOICES})().length > {chosen}")


@pytest.mark.timeout(300)
@pytest.mark.parametrize("lang", ["en", "sr", "cs"])
@pytest.mark.parametrize(("width", "height"), [(390, 844), (360, 640)])
def test_the_phone_menu_fits(new_page: NewPage, lang: str, width: int, height: int) -> None:
    page = new_page(width=width, height=height, touch=True, lang=lang)
    page.wait_for_function("(l) => document.documentElement.lang === l", arg=lang)
    # One line: the brand, the connection and the menu's button; the links folded.
    header = page.locator("header.top").bounding_box()
    assert header is not None and header["height"] < 64, header
    toggle = page.locator("#nav-toggle")
    assert toggle.is_visible() and toggle.get_attribute("aria-expanded") == "false"
    assert page.locator("nav a[href='#/leaderboard']").is_hidden()
    toggle.tap()
    assert toggle.get_attribute("aria-expanded") == "true"
    boxes = page.evaluate("""() => [...document.querySelectorAll('#nav-list a')].map((a) => {
      const r = a.getBoundingClientRect();
      return {text: a.textContent, left: r.left, right: r.right, top: r.top, bottom: r.bottom,
              clipped: a.scrollWidth > a.clientWidth + 1};
    })""")
    assert len(boxes) == 7
    for box in boxes:
        assert box["left"] >= 0 and box["right"] <= width, box
        assert box["top"] >= 0 and box["bottom"] <= height, box
        assert not box["clipped"], box
    page.locator("nav a[href='#/leaderboard']").tap()
    page.wait_for_selector("#view-leaderboard:not([hidden])")
    assert toggle.get_attribute("aria-expanded") == "false"
    _axe(page, f"the leaderboard on a {width}×{height} phone in {lang}")


def test_the_menu_is_one_row_on_a_desktop(new_page: NewPage) -> None:
    page = new_page(width=1280, height=800)
    assert page.locator("#nav-toggle").is_hidden()
    tops = page.evaluate("() => [...document.querySelectorAll('#nav-list a')]"
                         ".map((a) => Math.round(a.getBoundingClientRect().top))")
    assert len(tops) == 7 and len(set(tops)) == 1, tops
