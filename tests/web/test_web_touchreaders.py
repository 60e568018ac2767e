"""Touch screen readers (VoiceOver on iOS, TalkBack): the swipe order, the taps and the
touch layer.

With no keyboard there are no shortcuts: a player swipes from element to element in the
accessibility tree's order and double-taps to activate. The tree is read from Chromium
itself (CDP ``Accessibility.getFullAXTree``) on a phone-sized page at each state of a
game, and its order must be the table's: the game's keys and the status, rows, the hand,
the players, the log (the turn's reveal between the hand and the players, the final
standings before the players). A tap on a card selects it; the Play button under the
hand says which card it plays; a tap on it plays.

The readers themselves (readers.py's :class:`~.readers.TouchReader`): a swipe moves the
reader's cursor and never the page's focus, a double-tap is the browser's accessibility
click (TalkBack in Chrome: focus, then a click of detail 1; VoiceOver in Safari: a click
of detail 0, no focus). Whole games: the card played is always the card the reader
said, a row is taken in one double-tap, and every button of "Ask about the table" says
what the sheet says.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from .answers import expected, history_line
from .conftest import NewPage
from .helpers import (
    LAST_REVEAL,
    MY_CHOICES,
    RECORDER,
    create_table,
    decisions,
    fresh_name,
    open_options,
    oracle,
    set_name,
    taken,
)
from .readers import TouchReader, click

#: The landmarks of the swipe order, as (role, accessible name or None for any).
ORDER = [("application", None), ("listbox", "Rows"), ("listbox", "Your hand"),
         ("heading", "Revealed this turn"), ("heading", "Players"), ("heading", "Game log")]


def swipe_order(page: Any) -> list[tuple[str, str]]:
    """The accessibility tree, depth first, as (role, name) of every node a swipe
    reaches (not ignored, with a role that is not a mere container)."""
    cdp = page.context.new_cdp_session(page)
    try:
        nodes = cdp.send("Accessibility.getFullAXTree")["nodes"]
    finally:
        cdp.detach()
    by_id = {n["nodeId"]: n for n in nodes}
    root = next(n for n in nodes if "parentId" not in n)
    out: list[tuple[str, str]] = []

    def walk(node: dict[str, Any]) -> None:
        role = node.get("role", {}).get("value", "")
        name = node.get("name", {}).get("value", "")
        if not node.get("ignored") and role not in ("generic", "none", "InlineTextBox"):
            out.append((str(role), str(name)))
        for child in node.get("childIds", []):
            if child in by_id:
                walk(by_id[child])

    walk(root)
    return out


def check_order(page: Any, state: str) -> None:
    order = swipe_order(page)
    at = []
    for role, name in ORDER:
        found = [i for i, (r, n) in enumerate(order) if r == role and (name is None or n == name)]
        if not found:
            continue  # not shown in this state (no reveal yet, no hand at the end)
        at.append((found[0], role, name))
    assert at == sorted(at), f"{state}: swipe order {at}\n{json.dumps(order[:80])}"
    seen = {(r, n) for _, r, n in at}
    assert ("application", None) in seen and ("listbox", "Rows") in seen, (state, at)


@pytest.mark.timeout(600)
def test_a_touch_reader_plays_a_game_in_swipe_order(new_page: NewPage) -> None:
    page = new_page(width=390, height=844, touch=True, script=RECORDER)
    set_name(page, fresh_name("Swipe"))
    create_table(page, players=3, rounds=1, bots=2, start=False)
    page.locator("#start-game").tap()
    states: set[str] = set()
    for asked in decisions(page):
        if asked.endswith(" row"):
            page.wait_for_selector("#rows.choosing li.choosable")
            check_order(page, "a row to choose")
            page.locator("#rows li.choosable").first.tap()
            continue
        card = page.locator("#hand:not(.waiting) li:not(.leaving)").last
        card.wait_for()
        check_order(page, "a card to choose" if not states else "after a reveal")
        states.add("card")
        # A screen reader's double-tap (TalkBack's: Chromium's click for a reader) selects,
        # one-click play or not; the Play button names the card.
        number = card.get_attribute("data-card")
        click(page, card, "talkback")
        page.wait_for_function(
            "(n) => document.querySelector(`#hand [data-card='${n}']`)"
            ".getAttribute('aria-selected') === 'true'", arg=number)
        play = page.locator("#play-card")
        play.wait_for()
        assert number and number in (play.text_content() or ""), play.text_content()
        click(page, play, "talkback")
    page.wait_for_selector("#standings-panel:not([hidden])")
    check_order(page, "the game over")
    assert swipe_order(page).index(("heading", "Final standings")) < swipe_order(page).index(
        ("heading", "Players"))


#: The touch layer's buttons, each with the shortcut whose answer it gives.
ASKS = [("rows", None), ("hand", "a"), ("chosen", "t"), ("scores", "s"), ("who", "w"),
        ("turn", "n"), ("reveal", None), ("older", None), ("newer", None)]


def _ask_everything(page: Any, reader: TouchReader) -> None:
    """Open "Ask about the table" and double-tap each of its buttons: each says (and shows
    below the buttons) what the sheet says for its shortcut."""
    summary = page.locator("#ask summary")
    reader.swipe_to(summary)
    reader.double_tap()
    page.wait_for_selector("#ask[open]")
    for action, key in ASKS:
        data = oracle(page)
        button = page.locator(f"#ask-buttons [data-ask={action}]")
        heard = page.evaluate("window.__ann.length")
        assert reader.swipe_to(button)
        reader.double_tap()
        page.wait_for_function(f"() => window.__ann.length > {heard}")
        said = page.evaluate("window.__ann[window.__ann.length - 1][1]")
        assert page.locator("#ask-answer").text_content() == said
        if action == "rows":
            assert said == data["sheet"]["rows"], said
        elif action == "reveal":
            assert said == page.evaluate(LAST_REVEAL) and "Cards revealed" in said, said
        elif action in ("older", "newer"):
            line, n, total = history_line(said)
            assert line and 1 <= n <= total, said
        else:
            want = expected(str(key), data)
            assert said == want, (action, said, want)
    # Closed again, out of the way.
    reader.swipe_to(summary)
    reader.double_tap()
    page.wait_for_selector("#ask:not([open])")


@pytest.mark.timeout(600)
@pytest.mark.parametrize("kind", ["voiceover", "talkback"])
def test_a_touch_reader_plays_the_card_it_said(new_page: NewPage, kind: str) -> None:
    """A whole game (jokers: a row choice comes) by swipes and double-taps: on each turn
    the reader swipes to a card (the hand's last, not the page's current one) and hears
    it; the first double-tap selects it and says how to play it, the second plays that
    card. A row is taken by one double-tap on it. After the first reveal, every button of
    the touch layer."""
    page = new_page(width=390, height=844, touch=True, script=RECORDER)
    set_name(page, fresh_name(kind.capitalize()))
    open_options(page)
    page.locator("input[name=variant][value=jokers]").check()
    create_table(page, players=3, rounds=1, bots=2)
    reader = TouchReader(page, kind)
    rows = cards = 0
    for asked in decisions(page):
        if asked.endswith(" row"):
            rows += 1
            page.wait_for_selector("#rows.choosing li.choosable")
            row = page.locator("#rows li.choosable").first
            assert reader.swipe_to(row).startswith("Row ")
            before = oracle(page)["view"]["pending"]
            reader.double_tap()
            page.wait_for_function("() => !document.querySelector('#rows.choosing')")
            taken(page, before)
            continue
        cards += 1
        if cards == 2:
            _ask_everything(page, reader)
        hand = page.locator("#hand:not(.waiting) li:not(.leaving)")
        hand.first.wait_for()
        target = hand.nth(hand.count() - 1)
        number = int(target.get_attribute("data-card") or "0")
        said = reader.swipe_to(target)
        chose = len(page.evaluate(MY_CHOICES))
        heard = page.evaluate("window.__ann.length")
        reader.double_tap()
        # Selected, not played: the page says how to play it.
        page.wait_for_function(f"() => window.__ann.length > {heard}")
        assert page.evaluate("window.__ann[window.__ann.length - 1][1]").endswith(
            "activate it again to play it.")
        assert len(page.evaluate(MY_CHOICES)) == chose
        reader.double_tap()
        page.wait_for_function(f"() => ({MY_CHOICES})().length > {chose}")
        played = page.evaluate(MY_CHOICES)[-1]
        assert played == number, f"{kind} said {said!r}, the page played {played}"
    assert cards == 10 and rows >= 1, (cards, rows)
