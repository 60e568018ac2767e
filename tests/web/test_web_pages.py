"""axe-core on every page and state; two browsers at one table; a reload mid-game;
Serbian and Czech; screenshots for the README.

The screenshots go to build/screenshots/ (ignored by git): a test run never
changes a tracked file. ``scripts/screenshots`` takes them and copies them to
docs/screenshots/, the README's pictures."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import pytest

from .conftest import NewPage
from .helpers import (
    HAND,
    announcements,
    assertive_count,
    create_table,
    fresh_name,
    open_options,
    open_results,
    over,
    play_by_keyboard,
    set_name,
    start_game,
    two_at_a_table,
    wait_turn,
)

axe_sync = pytest.importorskip("axe_playwright_python.sync_playwright")

SHOTS = Path(__file__).resolve().parents[2] / "build" / "screenshots"


def _axe(page: Any, state: str) -> None:
    result = axe_sync.Axe().run(page)
    assert result.violations_count == 0, f"{state}:\n{result.generate_report()}"


def _go(page: Any, view: str) -> None:
    """Open ``view`` by its address and wait until it shows."""
    hash_ = "#/" if view == "lobby" else f"#/{view}"
    page.evaluate(f"location.hash = {hash_!r}")
    page.wait_for_selector(f"#view-{view}:not([hidden])")


def test_axe_every_page_and_state(new_page: NewPage) -> None:
    page = new_page()
    _axe(page, "lobby")
    _go(page, "help")
    _axe(page, "help")
    _go(page, "settings")
    _axe(page, "settings")
    _go(page, "lobby")
    set_name(page, fresh_name("Axe"))
    open_options(page)
    page.locator("input[name=variant][value=jokers]").check()
    create_table(page, players=3, rounds=1, bots=2, start=False)
    _axe(page, "table before the start")
    start_game(page)
    _axe(page, "table, choosing a card")
    page.keyboard.press("Home")
    page.keyboard.press("Enter")  # the joker: a row choice
    page.wait_for_function("() => document.querySelector('#row-dialog').open")
    _axe(page, "row choice")
    page.keyboard.press("Enter")
    play_by_keyboard(page)
    _axe(page, "results")
    _go(page, "history")
    page.wait_for_selector("#history-list a")
    _axe(page, "history")
    page.locator("#history-list a").first.click()
    page.wait_for_selector("#replay:not([hidden])")
    page.locator("#replay-next").click()
    _axe(page, "replay")
    # The replay steps through the record, told by the narration.
    assert "Step 2 of" in page.locator("#replay-pos").inner_text()
    assert announcements(page)[-1][1].startswith("Step 2 of")
    page.locator("#replay-last").click()
    assert "Game over" in page.locator("#replay-text").inner_text()


def test_axe_dark_scheme_and_phone(new_page: NewPage) -> None:
    """The dark colour scheme and the phone layout keep their contrast and names."""
    page = new_page(width=390, height=844, dark=True)
    _axe(page, "lobby, dark, phone")
    set_name(page, fresh_name("Dark"))
    create_table(page, players=3, rounds=1, bots=2)
    _axe(page, "table, dark, phone")


def test_two_browsers_one_table(new_page: NewPage) -> None:
    ana, bob, _ = two_at_a_table(new_page)
    bob.wait_for_selector("#view-table:not([hidden])")
    # Chat: typed letters stay in the field, and the other browser hears the line.
    bob.locator("#chat-text").fill("good luck, svima srećno")
    bob.locator("#chat-text").press("Enter")
    ana.wait_for_function("() => window.__ann.some(a => a[1].includes('good luck, svima srećno'))")
    assert "good luck" in ana.locator("#log").inner_text()
    # Focus stays in chat while one types; Bob leaves the field before the game.
    bob.locator("#table-h").focus()
    ana.locator("#start-game").click()
    seen = {id(ana): 0, id(bob): 0}
    decisions = 0
    for _ in range(3000):
        if over(ana) and over(bob):
            break
        acted = False
        for page in (ana, bob):
            count = assertive_count(page)
            if count > seen[id(page)] and not over(page):
                seen[id(page)] = count
                page.keyboard.press("Enter")
                decisions += 1
                acted = True
        if not acted:
            ana.wait_for_timeout(50)
    assert decisions >= 20
    for page in (ana, bob):
        open_results(page)
        assert page.locator("#results-body tr").count() == 2
    # Both heard the same reveals, each as "you" for their own card.
    a_text = " ".join(t for _, t in announcements(ana))
    b_text = " ".join(t for _, t in announcements(bob))
    assert a_text.count("Cards revealed") == b_text.count("Cards revealed") == 10


def test_reload_mid_game_restores_the_seat(new_page: NewPage) -> None:
    page = new_page()
    set_name(page, fresh_name("Reload"))
    create_table(page, players=3, rounds=1, bots=2)
    for _ in range(3):
        seen = assertive_count(page)
        page.keyboard.press("Enter")
        wait_turn(page, seen)
    hand_before = page.evaluate(HAND)
    assert 0 < len(hand_before) < 10
    page.reload()
    page.wait_for_selector("body[data-ready='1']")
    page.wait_for_function("() => window.__ann.some(a => a[0] === 'assertive')")
    hand_after = page.evaluate(HAND)
    assert hand_after == hand_before
    assert "(you)" in page.locator("#players").inner_text()
    # Focus is where the player must act: the hand, or the row dialog if a row is asked.
    active = page.evaluate("document.activeElement.outerHTML.slice(0, 120)")
    assert page.evaluate("document.activeElement.getAttribute('role') === 'option'"
                         " || (document.activeElement.type === 'radio'"
                         "     && !!document.activeElement.closest('dialog[open]'))"), active
    # A dropped connection comes back by itself too.
    page.context.set_offline(True)
    page.wait_for_timeout(300)
    page.context.set_offline(False)
    play_by_keyboard(page)
    open_results(page)
    assert page.locator("#results-body tr").count() == 3


@pytest.mark.parametrize(("lang", "plurals"), [
    ("sr", ("Skup 1:", "bod", "Izaberite kartu")),
    ("cs", ("Řada 1:", "bod", "Vyberte kartu")),
])
def test_table_in_serbian_and_czech(new_page: NewPage, lang: str, plurals: tuple[str, ...]) -> None:
    page = new_page(lang=lang)
    assert page.evaluate("document.documentElement.lang") == lang
    sent: list[str] = []
    page.on("websocket", lambda ws: ws.on("framesent", lambda f: sent.append(str(f))))
    set_name(page, fresh_name("Jezik"))
    create_table(page, players=3, rounds=1, bots=2)
    # The page asked the server to narrate in its language.
    hellos = [json.loads(f) for f in sent if '"hello"' in f]
    assert hellos and all(h["lang"] == lang for h in hellos), sent
    text = " ".join(t for _, t in announcements(page))
    for word in plurals[:1]:
        assert word in text, text
    # Plural forms, from both catalogs: the narration's rows and the UI's cards.
    rows = page.evaluate("[...document.querySelectorAll('#rows [role=option]')]"
                         ".map(li => li.getAttribute('aria-label'))")
    cards = page.evaluate("[...document.querySelectorAll('#hand [role=option]:not(.leaving)')]"
                          ".map(li => [Number(li.dataset.card), li.getAttribute('aria-label')])")
    forms = {"sr": {1: "1 bod", 2: "2 boda", 3: "3 boda", 5: "5 bodova", 7: "7 bodova"},
             "cs": {1: "1 bod", 2: "2 body", 3: "3 body", 5: "5 bodů", 7: "7 bodů"}}[lang]
    for card, label in cards:
        bh = 7 if card == 55 else 5 if card % 11 == 0 else 3 if card % 10 == 0 else (
            2 if card % 5 == 0 else 1)
        assert label.endswith(forms[bh]), (card, label)
    assert all(r.startswith(plurals[0][:-2]) for r in rows), rows
    # Every plural form of the UI catalog, whatever the hand holds (1, 2, 5, 21, 22, 25).
    said_counts = page.evaluate(
        "import('./i18n.js').then(m => [1, 2, 5, 21, 22, 25].map("
        "n => m.t('card.name', {card: 'x', count: n})))")
    want = {"sr": ["1 bod", "2 boda", "5 bodova", "21 bod", "22 boda", "25 bodova"],
            "cs": ["1 bod", "2 body", "5 bodů", "21 bodů", "22 bodů", "25 bodů"]}[lang]
    assert said_counts == [f"x, {w}" for w in want], said_counts
    page.keyboard.press("s")
    page.wait_for_function("() => window.__ann.length > 0")
    page.keyboard.press("Enter")
    wait_turn(page, 1)
    said = " ".join(t for _, t in announcements(page))
    assert ("Otkrivene karte" if lang == "sr" else "Odkryt") in said, said


@pytest.mark.parametrize(("label", "width", "height"), [("phone", 390, 844),
                                                        ("desktop", 1280, 900)])
def test_screenshots(new_page: NewPage, label: str, width: int, height: int) -> None:
    """Mid-game, the rows and the hand fit one screen (a phone's too); the pictures are
    saved to look at."""
    SHOTS.mkdir(parents=True, exist_ok=True)
    page = new_page(width=width, height=height)
    page.screenshot(path=str(SHOTS / f"lobby-{label}.png"), full_page=True)
    set_name(page, fresh_name("Shot"))
    create_table(page, players=4, rounds=1, bots=3)
    seen = 0
    for _ in range(4):  # a few turns, so the rows hold cards
        seen = assertive_count(page)
        page.keyboard.press("Enter")
        wait_turn(page, seen)
    if page.evaluate("document.querySelector('#row-dialog').open"):
        page.keyboard.press("Enter")
        wait_turn(page, assertive_count(page))
    page.wait_for_timeout(500)
    # The page as it opens: the status, the rows and the hand on one screen from its top.
    page.evaluate("window.scrollTo(0, 0)")
    box = page.evaluate("""() => {
        const r = (id) => document.getElementById(id).getBoundingClientRect();
        return {statusTop: r('status').top, handBottom: r('hand').bottom, width: innerWidth,
                height: innerHeight, scrollWidth: document.documentElement.scrollWidth};
    }""")
    assert box["statusTop"] >= 0 and box["handBottom"] <= box["height"], box
    assert box["scrollWidth"] <= box["width"], box  # nothing sticks out sideways
    # Every card of a row shows its bullheads; each row marks its sixth place.
    heads = page.evaluate("[...document.querySelectorAll('#rows .card')].every("
                          "c => c.querySelectorAll('svg.bh').length === Number(c.dataset.bh))")
    assert heads
    assert page.locator("#rows .slot.sixth").count() == 4
    page.screenshot(path=str(SHOTS / f"table-{label}.png"), full_page=False)
    assert (SHOTS / f"table-{label}.png").stat().st_size > 10_000


def test_the_printed_address_opens_the_client(new_page: NewPage, server: str) -> None:
    """``nimmt serve`` prints ``open http://127.0.0.1:PORT/``: that address shows the lobby."""
    page = new_page()
    page.goto(f"{server}/")
    page.wait_for_selector("body[data-ready='1']")
    assert page.url == f"{server}/play/"
    assert page.locator("#view-lobby").is_visible()
    assert page.locator("#quick-play").is_visible()
    # The whole rule set waits behind "More options".
    assert page.locator("#more-options > summary").is_visible()


def test_changing_the_language_changes_the_narration(new_page: NewPage) -> None:
    """The server narrates in the language of the hello: a new language says hello again,
    at the same table, and the next narration is in that language."""
    page = new_page()
    sent: list[str] = []
    page.on("websocket", lambda ws: ws.on("framesent", lambda f: sent.append(str(f))))
    set_name(page, fresh_name("Lang"))
    create_table(page, players=2, rounds=1, bots=1, start=False)
    code = page.evaluate("localStorage.getItem('nimmt.table')")
    page.evaluate("location.hash = '#/'")
    page.locator("#me-lang").select_option("cs")
    page.wait_for_function("() => document.documentElement.lang === 'cs'")
    # The page says hello again in Czech: wait for that frame (the waits pass events on).
    deadline = time.monotonic() + 60
    while sum('"hello"' in f for f in sent) < 2:
        assert time.monotonic() < deadline, sent
        page.wait_for_timeout(50)
    hellos = [json.loads(f) for f in sent if '"hello"' in f]
    assert [h["lang"] for h in hellos] == ["en", "cs"], hellos
    assert hellos[1]["table"] == code
    page.evaluate(f"location.hash = '#/table/{code}'")
    page.wait_for_selector("#view-table:not([hidden])")
    start_game(page)
    page.keyboard.press("Enter")
    page.wait_for_function("() => window.__ann.some(a => a[1].includes('Odkryté karty'))")


def test_the_lobby_names_the_rules_in_the_readers_language(new_page: Any) -> None:
    host = new_page(lang="sr")
    name = fresh_name("Lobi")
    set_name(host, name)
    create_table(host, players=3, rounds=1, bots=0, start=False)
    guest = new_page(lang="cs")
    guest.wait_for_function(
        "(name) => [...document.querySelectorAll('#tables-list li')]"
        ".some(li => li.textContent.includes(name) && li.textContent.includes('Klasická'))",
        arg=name)
    line = guest.locator("#tables-list li", has_text=name).first.text_content() or ""
    assert "classic" not in line, line


def test_the_lobby_list_changes_only_what_changed(new_page: Any) -> None:
    """A refresh while a player is on a table's Join button: the button keeps focus when
    that table's seats change and when another table comes into the list."""
    host = new_page()
    set_name(host, fresh_name("Lobby"))
    code = create_table(host, players=3, rounds=1, bots=0, start=False)
    guest = new_page()
    item = f"#tables-list li[data-code='{code}']"
    guest.wait_for_selector(item)
    guest.locator(f"{item} button").focus()
    guest.evaluate("() => { window.__button = document.activeElement; }")
    before = guest.locator(item).inner_text()
    host.locator("#add-bot").click()
    guest.wait_for_function(
        "([sel, before]) => { document.getElementById('tables-refresh').click();"
        " return document.querySelector(sel).innerText !== before; }",
        arg=[item, before], polling=500)
    assert guest.evaluate("() => document.activeElement === window.__button")
    other = new_page()
    set_name(other, fresh_name("Other"))
    code2 = create_table(other, players=2, rounds=1, bots=0, start=False)
    guest.wait_for_function(
        "(sel) => { document.getElementById('tables-refresh').click();"
        " return document.querySelector(sel) !== null; }",
        arg=f"#tables-list li[data-code='{code2}']", polling=500)
    assert guest.evaluate("() => document.activeElement === window.__button")
