"""The Playroom's shortcuts (V, 1–4, C, T, S), the row-choice dialog, and the key settings."""

from __future__ import annotations

import re
from typing import Any

from .conftest import NewPage
from .helpers import (
    HAND,
    announcements,
    create_table,
    fresh_name,
    join_by_code,
    open_options,
    play_by_keyboard,
    set_name,
    start_game,
    two_at_a_table,
)


def _last_polite(page: Any) -> str:
    return [t for lvl, t in announcements(page) if lvl == "polite"][-1]


def _press(page: Any, key: str) -> str:
    before = len(announcements(page))
    page.keyboard.press(key)
    page.wait_for_function(f"() => window.__ann.length > {before}")
    return _last_polite(page)


def _nothing_said_since(page: Any, before: int) -> None:
    """Nothing was said since ``before``: asked for the scores by the touch layer's button,
    the one thing said is their answer (keys are answered at once, so an answer to a key
    pressed before it would have been said first)."""
    if page.locator("#ask[open]").count() == 0:
        page.locator("#ask summary").click()
    page.locator("#ask-buttons [data-ask=scores]").click()
    page.wait_for_function("n => window.__ann.slice(n).some(a => a[1].startsWith('Scores: '))",
                           arg=before)
    said = [t for _, t in announcements(page)[before:]]
    assert len(said) == 1 and said[0].startswith("Scores: "), said


#: A history line's place, after its text: "(3 of 12)".
PLACE = re.compile(r" \((\d+) of (\d+)\)$")


def _line(said: str) -> tuple[str, int, int]:
    """A history key's answer: the line, its place and how many lines there are."""
    m = PLACE.search(said)
    assert m, said
    return said[:m.start()], int(m.group(1)), int(m.group(2))


def test_shortcuts_speak_the_table(new_page: NewPage) -> None:
    page = new_page()
    set_name(page, fresh_name("Keys"))
    create_table(page, players=3, rounds=1, bots=2)
    assert page.evaluate("document.activeElement.getAttribute('role')") == "option"
    # Let the bots' choices be told first.
    page.wait_for_function("() => document.querySelectorAll('#players li.done').length >= 2")
    page.wait_for_function("() => window.__ann.some(a => a[1].endsWith('choose a card.'))")
    sheet_rows = page.evaluate("[...document.querySelectorAll('#rows [role=option]')]"
                               ".map(li => li.getAttribute('aria-label'))")
    assert len(sheet_rows) == 4
    # C on a focused card: its bullheads.
    card = page.evaluate("document.activeElement.dataset.card")
    assert _press(page, "c").startswith(f"{card}: ")
    # T: who has chosen; the bots have, you have not.
    said = _press(page, "t")
    assert "Not yet: you" in said, said
    # S: the scores.
    assert _press(page, "s").startswith("Scores: ")
    # V: the rows, a list to move through; focus moves to row 1, whose name is its
    # sentence, and nothing else is said (the reader says the row focused: said twice
    # otherwise). The next thing said is the answer to the key after it.
    before = len(announcements(page))
    page.keyboard.press("v")
    page.wait_for_function("() => document.activeElement.closest('#rows') !== null")
    assert page.evaluate("document.activeElement.getAttribute('aria-label')") == sheet_rows[0]
    assert page.evaluate("document.activeElement.getAttribute('role')") == "option"
    assert _press(page, "s").startswith("Scores: ")
    assert len(announcements(page)) == before + 1
    page.keyboard.press("ArrowDown")
    assert page.evaluate("document.activeElement.dataset.row") == "2"
    # C on a focused row: the row's bullheads.
    assert re.match(r"Row 2: \d+ bullheads?\.", _press(page, "c"))
    # 1–4 from the rows menu: each row's sentence.
    for n in range(1, 5):
        assert _press(page, str(n)) == sheet_rows[n - 1]
    # Escape goes back to the hand, where 1–4 speak the rows too (focus stays on the card).
    page.keyboard.press("Escape")
    assert page.evaluate("document.activeElement.getAttribute('role')") == "option"
    focused = page.evaluate("document.activeElement.dataset.card")
    for n in range(1, 5):
        assert _press(page, str(n)) == sheet_rows[n - 1]
    assert page.evaluate("document.activeElement.dataset.card") == focused
    # Shift and a card's number jump to it.
    cards = page.evaluate("[...document.querySelectorAll('#hand [role=option]:not(.leaving)')]"
                          ".map(li => li.dataset.card)")
    target = next(c for c in reversed(cards) if c != focused and not c.startswith("-"))
    for digit in target:
        page.keyboard.press(f"Shift+Digit{digit}")
    assert page.evaluate("document.activeElement.dataset.card") == target
    # Before any reveal R says so; K lists every shortcut with its key (H asks for a hint).
    assert _press(page, "r") == "No cards have been revealed yet."
    said = _press(page, "k")
    for key in ("V:", "1:", "2:", "3:", "4:", "C:", "T:", "S:", "R:", "[:", "]:", "H:"):
        assert key in said, said
    # After a turn, R repeats its reveal, from the hand.
    seen = len([a for a in announcements(page) if a[0] == "assertive"])
    page.keyboard.press("Enter")
    # The next card is asked (a bot's row choice may be told before it): nothing more is
    # said until it is answered.
    page.wait_for_function(
        f"""() => {{
          const said = window.__ann.filter(a => a[0] === 'assertive');
          return said.length > {seen} && said[said.length - 1][1].includes('choose a card');
        }}""")
    reveal = _press(page, "r")
    assert "Cards revealed" in reveal and "Choose a card" not in reveal, reveal
    # [ steps back through what was announced (the newest first), ] forward again, each
    # line with its place; Shift+[ goes to the first line, Shift+] to the newest.
    since = [t for lvl, t in announcements(page) if lvl == "assertive"][seen:]
    assert any(reveal in t for t in since), (reveal, since)
    decision = since[-1]
    line, n, total = _line(_press(page, "["))
    assert line == decision and n == total, (line, n, total)
    older, m, _ = _line(_press(page, "["))
    assert older != decision and older in [t for _, t in announcements(page)] and m == n - 1
    assert _line(_press(page, "]"))[:2] == (decision, total)
    first, one, _ = _line(_press(page, "Shift+BracketLeft"))
    assert one == 1 and first in [t for _, t in announcements(page)], first
    assert _line(_press(page, "Shift+BracketRight"))[:2] == (decision, total)
    assert page.evaluate("document.activeElement.getAttribute('role')") == "option"
    # Shortcuts never act in chat.
    page.locator("#chat-text").focus()
    before = len(announcements(page))
    page.keyboard.type("vts")
    assert page.locator("#chat-text").input_value() == "vts"
    _nothing_said_since(page, before)


def test_remap_and_turn_off(new_page: NewPage) -> None:
    page = new_page()
    set_name(page, fresh_name("Remap"))
    page.goto(page.url.split("#")[0] + "#/settings")
    # The keys wait in their own section of Settings, folded.
    assert page.locator("#key-scores").is_hidden()
    page.locator("#set-keys-more > summary").click()
    page.locator("#key-scores").fill("shift+p")
    page.locator("#settings-form button[type=submit]").click()
    saved = page.evaluate("JSON.parse(localStorage.getItem('nimmt.keys'))")
    assert saved["map"]["scores"] == "shift+p" and saved["on"] is True
    # How long a message is let be spoken: a setting too.
    page.locator("#set-pace").select_option("35")
    page.locator("#settings-form button[type=submit]").click()
    assert page.evaluate("localStorage.getItem('nimmt.pace')") == "35"
    page.goto(page.url.split("#")[0] + "#/")
    create_table(page, players=2, rounds=1, bots=1)
    page.wait_for_function("() => document.querySelectorAll('#players li.done').length >= 1")
    page.wait_for_function("() => window.__ann.some(a => a[1].endsWith('choose a card.'))")
    # s no longer speaks the scores: the next thing said is the answer to Shift+P (keys are
    # answered in the order they are pressed).
    before = len(announcements(page))
    page.keyboard.press("s")
    assert _press(page, "Shift+P").startswith("Scores: ")
    assert len(announcements(page)) == before + 1
    # Turned off: no single key acts.
    page.evaluate("localStorage.setItem('nimmt.keys', JSON.stringify({on: false, map: {}}))")
    page.reload()
    page.wait_for_selector("body[data-ready='1']")
    page.wait_for_function("() => window.__ann.some(a => a[0] === 'assertive')")
    page.locator("#hand [role=option]:not(.leaving)").first.focus()
    before = len(announcements(page))
    for key in ("v", "t", "Shift+P", "c"):
        page.keyboard.press(key)
    assert page.evaluate("document.activeElement.getAttribute('role')") == "option"
    _nothing_said_since(page, before)


def test_row_choice_dialog_by_keyboard(new_page: NewPage) -> None:
    """With jokers every hand holds one (the lowest card): playing it asks for a row."""
    page = new_page()
    set_name(page, fresh_name("Row"))
    open_options(page)
    page.locator("input[name=variant][value=jokers]").check()
    create_table(page, players=3, rounds=1, bots=2)
    page.keyboard.press("Home")
    card = page.evaluate("document.activeElement.dataset.card")
    assert int(card) < 0, "the joker sorts first"
    page.keyboard.press("Enter")
    page.wait_for_function("() => document.querySelector('#row-dialog').open")
    focus = page.evaluate("({type: document.activeElement.type, name: document.activeElement.name,"
                          " dlg: !!document.activeElement.closest('dialog')})")
    assert focus == {"type": "radio", "name": "row", "dlg": True}
    assert page.locator("#row-choices").get_attribute("role") == "radiogroup"
    # The prompt (what each row costs) is said once the dialog is open, not before.
    page.wait_for_function("() => window.__ann.some(a => a[0] === 'assertive'"
                           " && a[1].startsWith('Choose the row for your joker'))")
    # In the dialog too, 1–4 speak the rows and C the bullheads of the row focused.
    assert _press(page, "1").startswith("Row 1: ")
    focused_row = page.evaluate("document.activeElement.value")
    assert _press(page, "c").startswith(f"Row {focused_row}: ")
    assert page.evaluate("document.activeElement.type") == "radio"
    page.keyboard.press("ArrowDown")
    chosen = page.evaluate("document.activeElement.value")
    page.keyboard.press("Enter")
    page.wait_for_function("() => !document.querySelector('#row-dialog').open")
    # The narration tells where the joker went.
    page.wait_for_function(f"() => window.__ann.some(a => a[1].includes('row {chosen}'))")
    # Focus came back out of the dialog, to the hand.
    page.wait_for_function("() => document.activeElement.getAttribute('role') === 'option'"
                           " || !document.querySelector('#standings-panel').hidden")
    play_by_keyboard(page)


def test_w_names_the_seats_then_marks_a_bot_and_an_away_player(new_page: NewPage) -> None:
    """W before the game (in the seating) names each seat and who sits there; in the game
    it marks the bot, and a player whose page went away is away at once: the sheet the
    presence frame brings says so."""
    host, guest = new_page(), new_page()
    me, other = fresh_name("Host"), fresh_name("Guest")
    set_name(host, me)
    code = create_table(host, players=3, bots=1, start=False)
    set_name(guest, other)
    join_by_code(host, guest, code)
    host.locator("#start-game").focus()
    said = _press(host, "w")
    assert said.startswith(f"Seat 1: {me} (you). Seat 2: "), said
    assert " (bot). " in said and said.endswith(f"Seat 3: {other}."), said
    start_game(host)
    said = _press(host, "w")
    assert said.startswith(f"At the table: {me} (you): 0 bullheads; "), said
    assert " (bot): 0 bullheads; " in said and f"{other}: 0 bullheads." in said, said
    guest.close()
    host.wait_for_function(
        "() => document.getElementById('players').textContent.includes('disconnected')")
    said = _press(host, "w")
    assert f"{other}: 0 bullheads, away." in said, said


def test_keys_for_hand_time_table_and_chat(new_page: NewPage) -> None:
    """A (the hand), L (time left), W (who is here), chat in its own channel (said alone,
    Shift+M mutes it, . reads its last lines, \\ moves the history keys to it, / writes
    and comes back), − and = the sounds' volume, V twice to the rows and back."""
    host, guest, _ = two_at_a_table(new_page, timer="60")
    start_game(host)
    page = host
    cards = page.evaluate(HAND)
    said = _press(page, "a")
    assert all(c in said for c in cards), (said, cards)
    assert re.search(r"\d+ s", _press(page, "l"))
    names = [page.evaluate("localStorage.getItem('nimmt.name')"),
             guest.evaluate("localStorage.getItem('nimmt.name')")]
    said = _press(page, "w")
    assert all(n in said for n in names), said
    # A chat line is said on its own, not inside a game message.
    guest.locator("#chat-text").fill("hello there")
    guest.locator("#chat-text").press("Enter")
    page.wait_for_function("() => window.__ann.some(a => a[1].includes('hello there'))")
    line = next(t for _, t in announcements(page) if "hello there" in t)
    assert "hello there" in _press(page, "Period")
    # Muted: kept (the log, the . key), not said.
    assert _press(page, "Shift+M").startswith("Chat muted")
    guest.locator("#chat-text").fill("second line")
    guest.locator("#chat-text").press("Enter")
    page.wait_for_function(
        "() => document.getElementById('log').textContent.includes('second line')")
    assert not any("second line" in t for _, t in announcements(page))
    said = _press(page, "Period")
    assert "hello there" in said and "second line" in said
    # The history keys on the chat channel: its newest line first, then the one before.
    assert _press(page, "Backslash") == "History: chat."
    assert "second line" in _press(page, "[")
    assert _line(_press(page, "["))[0] == line
    assert _press(page, "Shift+M") == "Chat spoken."
    # / writes in the chat; Enter sends and focus comes back to the card it left.
    card = page.evaluate("document.activeElement.dataset.card")
    page.keyboard.press("Slash")
    assert page.evaluate("document.activeElement.id") == "chat-text"
    page.keyboard.type("gl")
    page.keyboard.press("Enter")
    page.wait_for_function(f"() => document.activeElement.dataset.card === '{card}'")
    # The sounds' volume, in steps of ten.
    assert _press(page, "Minus") == "Volume 60 percent."
    assert _press(page, "Equal") == "Volume 70 percent."
    # V to the rows, V again back to the hand (no Escape needed).
    page.keyboard.press("v")
    page.wait_for_function("() => document.activeElement.closest('#rows') !== null")
    page.keyboard.press("v")
    page.wait_for_function(f"() => document.activeElement.dataset.card === '{card}'")
