"""Whole games through the models of NVDA's and JAWS's browse and focus modes (readers.py).

Every decision and every shortcut must reach the game by the reader's own rules for
which keys it keeps, and each shortcut must say what the server's sheet says for it (not
"something"): the page puts focus only where the reader passes keys on (the hand's and
the rows' list boxes, the row dialog, the game's keys when there is no hand), no key
depends on Escape (which the reader takes), and the card played is the card focused,
however focus came there (the reader's cursor moves it too). In browse mode the table is
readable as text: the rows, the hand, the scores and the time left.
"""

from __future__ import annotations

import re
from typing import Any

import pytest

from .answers import catalog, expected, history_line
from .conftest import NewPage
from .helpers import (
    MY_CHOICES,
    RECORDER,
    announcements,
    assertive_count,
    create_table,
    fresh_name,
    open_options,
    oracle,
    set_name,
    taken,
    wait_turn,
)
from .readers import Reader, browse_text

#: Every shortcut of the game by its key, pressed on the first turn from the hand.
SHORTCUTS = ["1", "2", "3", "4", "c", "t", "s", "a", "l", "n", "w", "r", "[", "]",
             "Shift+BracketLeft", "Shift+BracketRight", "Backslash", "Period", "Minus",
             "Equal", "m", "m", "k"]


def _said(page: Any, reader: Reader, key: str) -> str:
    """Press ``key`` through the reader; it must reach the page and be answered."""
    before = len(announcements(page))
    assert reader.press(key), f"{reader.kind} kept {key} for itself ({reader.taken[-1]})"
    page.wait_for_function(f"() => window.__ann.length > {before}")
    return announcements(page)[-1][1]


def _check(said: str, want: str | re.Pattern[str] | None, key: str) -> None:
    if isinstance(want, re.Pattern):
        assert want.fullmatch(said), (key, said, want.pattern)
    elif want is not None:
        assert said == want, (key, said, want)


def _shortcuts(page: Any, reader: Reader) -> None:
    """Every shortcut from the hand, each answer compared with what it must say."""
    ui = catalog("en")
    volume = int(page.evaluate("Number(localStorage.getItem('nimmt.volume') || 70)"))
    sound = page.evaluate("localStorage.getItem('nimmt.sound') !== '0'")
    newest = [t for lvl, t in announcements(page) if lvl == "assertive"][-1]
    for key in SHORTCUTS:
        data = oracle(page)
        card = page.evaluate("Number(document.activeElement.dataset.card)")
        said = _said(page, reader, key)
        if key in ("[", "]", "Shift+BracketRight"):
            line, n, total = history_line(said)
            assert (line, n) == (newest, total), (key, said, newest)
        elif key == "Shift+BracketLeft":
            line, n, _ = history_line(said)
            assert n == 1 and line, (key, said)
        elif key == "r":
            assert said == ui["reveal.none"], said
        elif key in ("Minus", "Equal"):
            volume = max(0, min(100, volume + (10 if key == "Equal" else -10)))
            assert said == ui["sound.volume"].replace("{n}", str(volume)), (key, said)
        elif key == "m":
            sound = not sound
            assert said == ui["sound.on" if sound else "sound.off"], said
        else:
            _check(said, expected(key, data, card=card), key)
        # Every answer leaves focus where it was.
        assert page.evaluate("document.activeElement.closest('#hand') !== null"), key


def _browse_mode_reads_the_table(page: Any) -> None:
    """NVDA's browse mode shows the rows, the hand, the scores and the time left as text
    (none of it inside an application, nor only as a list box's hidden options)."""
    data = oracle(page)
    lines = browse_text(page, "#game")
    text = " ".join(" ".join(lines).split())
    ui = catalog("en")
    for line in [*data["sheet"]["row"], data["sheet"]["hand"], data["sheet"]["scores"],
                 ui["time.none"]]:
        assert line in lines, (line, lines)
    # In the reading order: the status, the rows, the hand, the scores.
    status = " ".join(page.evaluate("document.getElementById('status').textContent").split())
    order = [text.index(status), text.index(data["sheet"]["row"][0]),
             text.index(data["sheet"]["hand"]), text.index(data["sheet"]["scores"])]
    assert order == sorted(order), (order, lines)


def _play_focused(page: Any, reader: Reader, *, escaped: bool) -> None:
    """The reader's cursor moves to a card the page did not focus (the hand's last) and
    the player presses Enter: the card played must be that card, the one the reader
    said. In browse mode the first Enter turns focus mode on (NVDA, JAWS), the second
    reaches the page."""
    chose = len(page.evaluate(MY_CHOICES))
    cards = page.locator("#hand [role=option]:not(.leaving)")
    target = cards.nth(cards.count() - 1)
    said = target.get_attribute("aria-label")
    card = int(target.get_attribute("data-card") or "0")
    reader.cursor_to(target)
    if escaped:
        # The reader took Escape: browse mode, where Enter on a list box's option only
        # turns focus mode on.
        reader.mode = "browse"
        assert not reader.press("Enter") and reader.mode == "focus"
    assert reader.press("Enter"), f"{reader.kind} kept Enter"
    page.wait_for_function(f"() => ({MY_CHOICES})().length > {chose}")
    played = page.evaluate(MY_CHOICES)[-1]
    assert played == card, f"{reader.kind}: the reader said {said!r}, the page played {played}"


@pytest.mark.timeout(600)
@pytest.mark.parametrize("kind", ["nvda", "jaws"])
def test_a_whole_game_through_browse_and_focus_modes(new_page: NewPage, kind: str) -> None:
    """With jokers every hand holds one (the lowest card): playing it first asks a row."""
    page = new_page(script=RECORDER)
    set_name(page, fresh_name(kind.upper()))
    open_options(page)
    page.locator("input[name=variant][value=jokers]").check()
    create_table(page, players=3, rounds=1, bots=2)
    reader = Reader(page, kind)
    seen = 0
    turns = rows = 0
    while True:
        what = wait_turn(page, seen)
        if what == "over":
            break
        seen = assertive_count(page)
        turns += 1
        if what == "row":
            rows += 1
            # The row dialog's radio button (NVDA: focus mode; JAWS: its virtual cursor,
            # whose Enter clicks): one action takes the row.
            asked = oracle(page)["view"]["pending"]
            assert reader.press("Enter"), f"{kind} kept Enter at a row"
            page.wait_for_function("() => !document.querySelector('#row-dialog').open")
            taken(page, asked)
            continue
        if turns == 1:
            page.wait_for_function(
                "() => document.querySelectorAll('#players li.done').length >= 2")
            _shortcuts(page, reader)
            if kind == "nvda":
                _browse_mode_reads_the_table(page)
            # V moves focus to the rows and says nothing itself: the reader says row 1.
            heard = len(announcements(page))
            assert reader.press("v")
            page.wait_for_function("() => document.activeElement.closest('#rows') !== null")
            assert reader.role() == "option" and reader.mode == "focus"
            first = oracle(page)["sheet"]["row"][0]
            assert page.evaluate("document.activeElement.getAttribute('aria-label')") == first
            assert reader.press("v")
            page.wait_for_function("() => document.activeElement.closest('#hand') !== null")
            assert len(announcements(page)) == heard, announcements(page)[heard:]
            # The first card: the joker, Home then Enter (a row choice follows).
            assert reader.press("Home")
            assert reader.press("Enter")
            continue
        # From the third turn on, the reader's cursor picks the card; once the player
        # pressed Escape from habit (browse mode), later in focus mode.
        escape = turns == 3
        if escape:
            assert not reader.press("Escape") and reader.mode == "browse"
            assert not reader.press("v")
        _play_focused(page, reader, escaped=escape)
    assert turns >= 10 and rows >= 1, (turns, rows)
    # Only the keys pressed to show the reader's own modes were kept.
    assert [k for k, _ in reader.taken] == ["Escape", "v", "Enter"], reader.taken


@pytest.mark.timeout(300)
@pytest.mark.parametrize("kind", ["nvda", "jaws"])
def test_a_spectator_has_the_keys(new_page: NewPage, kind: str) -> None:
    """No hand: focus rests on the game's keys, where the reader passes keys on; their
    name never changes with the status."""
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
    name = watcher.evaluate("document.activeElement.getAttribute('aria-label')")
    assert name == catalog("en")["table.keysname"]
    for key in ("s", "t", "1", "w"):
        data = oracle(watcher)
        _check(_said(watcher, reader, key), expected(key, data), key)
    assert watcher.evaluate("document.activeElement.getAttribute('aria-label')") == name
    assert not reader.taken


@pytest.mark.parametrize("kind", ["nvda", "jaws"])
def test_the_quick_game_from_browse_mode(new_page: NewPage, kind: str) -> None:
    """The page opens on the quick game's button (browse mode): Enter clicks it (the
    reader's click: focus and detail 1), and the first card is played with Enter in the
    hand (focus mode)."""
    page = new_page(script=RECORDER)
    reader = Reader(page, kind)
    page.wait_for_function("() => document.activeElement.id === 'quick-play'")
    assert reader.role() == "button" and reader.mode == "browse"
    assert reader.press("Enter")
    wait_turn(page, 0)
    assert reader.role() == "option" and reader.mode == "focus"
    card = int(page.evaluate("document.activeElement.dataset.card"))
    assert reader.press("Enter")
    page.wait_for_function(f"() => ({MY_CHOICES})().length > 0")
    assert page.evaluate(MY_CHOICES)[0] == card
    assert not reader.taken
