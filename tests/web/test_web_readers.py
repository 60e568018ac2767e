"""Whole games through a model of NVDA's and JAWS's browse and focus modes (readers.py).

Every decision and every shortcut must reach the game with the reader's own rules for
which keys it keeps: the page puts focus only where the reader passes keys on (the
hand's and the rows' list boxes, the row dialog, the status line as an application when
there is no hand), no key depends on Escape (which the reader takes), and Enter plays in
one press in either mode (in browse mode it is a click).
"""

from __future__ import annotations

from typing import Any

import pytest

from .conftest import NewPage
from .helpers import (
    announcements,
    assertive_count,
    create_table,
    fresh_name,
    set_name,
    wait_turn,
)
from .readers import Reader

#: Every shortcut by its key, with what its answer begins with (None: any answer).
SHORTCUTS = [("1", "Row 1"), ("2", "Row 2"), ("3", "Row 3"), ("4", "Row 4"), ("c", None),
             ("t", None), ("s", "Scores"), ("a", None), ("l", None), ("w", None),
             ("r", None), ("[", None), ("]", None), ("Backslash", "History"),
             ("Period", None), ("Minus", "Volume"), ("Equal", "Volume"), ("m", "Sound"),
             ("m", "Sound"), ("k", "V:")]


def _answered(page: Any, reader: Reader, key: str, begins: str | None) -> str:
    """Press ``key`` through the reader; it must reach the page and be answered."""
    before = len(announcements(page))
    assert reader.press(key), f"{reader.kind} kept {key} for itself ({reader.taken[-1]})"
    page.wait_for_function(f"() => window.__ann.length > {before}")
    said = announcements(page)[-1][1]
    assert begins is None or said.startswith(begins), (key, said)
    return said


@pytest.mark.timeout(600)
@pytest.mark.parametrize("kind", ["nvda", "jaws"])
def test_a_whole_game_through_browse_and_focus_modes(new_page: NewPage, kind: str) -> None:
    """With jokers every hand holds one (the lowest card): playing it first asks a row."""
    page = new_page()
    set_name(page, fresh_name(kind.upper()))
    page.locator("input[name=variant][value=jokers]").check()
    create_table(page, players=3, rounds=1, bots=2)
    reader = Reader(page, kind)
    seen = 0
    turns = rows = 0
    escaped = False
    while True:
        what = wait_turn(page, seen)
        if what == "over":
            break
        seen = assertive_count(page)
        if what == "row":
            rows += 1
        turns += 1
        if turns == 1:
            # Every shortcut from the hand, and the rows' list and back without Escape.
            for key, begins in SHORTCUTS:
                _answered(page, reader, key, begins)
            _answered(page, reader, "v", "Row 1")
            assert reader.role() == "application" and reader.mode == "focus"
            assert page.evaluate("document.activeElement.closest('#rows') !== null")
            assert reader.press("v")
            page.wait_for_function("() => document.activeElement.closest('#hand') !== null")
            assert reader.press("Home")
        if turns > 1 and what == "card" and not escaped:
            escaped = True
            # The player presses Escape from habit: the reader takes it and is in browse
            # mode, where its letters are its own; Enter still plays the card in one press.
            assert not reader.press("Escape") and reader.mode == "browse"
            assert not reader.press("v")
        assert reader.press("Enter"), f"{kind} kept Enter at a {what} decision"
    assert turns >= 10 and rows >= 1, (turns, rows)
    # Only the keys pressed to show the reader's own modes were kept.
    assert [k for k, _ in reader.taken] == ["Escape", "v"], reader.taken


@pytest.mark.timeout(300)
@pytest.mark.parametrize("kind", ["nvda", "jaws"])
def test_a_spectator_has_the_keys(new_page: NewPage, kind: str) -> None:
    """No hand: focus rests on the status line, where the reader passes keys on."""
    host = new_page()
    set_name(host, fresh_name("Host"))
    code = create_table(host, players=2, rounds=1, bots=1)
    watcher = new_page()
    set_name(watcher, fresh_name("Watch"))
    watcher.locator("#join-code").fill(code)
    watcher.locator("#join-form button[type=submit]").click()
    watcher.wait_for_function("() => !document.getElementById('game').hidden")
    watcher.wait_for_function("() => document.activeElement.id === 'table-keys'")
    reader = Reader(watcher, kind)
    assert reader.role() == "application" and reader.mode == "focus"
    for key, begins in (("s", "Scores"), ("t", None), ("1", "Row 1"), ("w", None)):
        _answered(watcher, reader, key, begins)
    assert not reader.taken


@pytest.mark.parametrize("kind", ["nvda", "jaws"])
def test_the_quick_game_from_browse_mode(new_page: NewPage, kind: str) -> None:
    """The page opens on the quick game's button (browse mode): Enter clicks it, and the
    first card is played with Enter in the hand (focus mode)."""
    page = new_page()
    reader = Reader(page, kind)
    page.wait_for_function("() => document.activeElement.id === 'quick-play'")
    assert reader.role() == "button" and reader.mode == "browse"
    assert reader.press("Enter")
    wait_turn(page, 0)
    assert reader.role() == "application" and reader.mode == "focus"
    assert page.evaluate("document.activeElement.closest('#hand') !== null")
    seen = assertive_count(page)
    assert reader.press("Enter")
    page.wait_for_function("() => document.querySelector('#hand .chosen') !== null"
                           f" || window.__ann.filter(a => a[0] === 'assertive').length > {seen}")
    assert not reader.taken
