"""Touch screen readers (VoiceOver on iOS, TalkBack): the swipe order and the taps.

With no keyboard there are no shortcuts: a player swipes from element to element in the
accessibility tree's order and double-taps to activate. The tree is read from Chromium
itself (CDP ``Accessibility.getFullAXTree``) on a phone-sized page at each state of a
game, and its order must be the table's: status, rows, the hand, the players, the log
(the turn's reveal between the hand and the players, the final standings before the
players). One double-tap (a tap) on a card selects it; the Play button under the hand
says which card it plays; a tap on it plays.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from .conftest import NewPage
from .helpers import RECORDER, create_table, decisions, fresh_name, set_name

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
        card = page.locator("#hand li:not([aria-disabled]):not(.leaving)").last
        card.wait_for()
        check_order(page, "a card to choose" if not states else "after a reveal")
        states.add("card")
        # One tap (a screen reader's double-tap) selects; the Play button names the card.
        number = card.get_attribute("data-card")
        card.tap()
        page.wait_for_function(
            "(n) => document.querySelector(`#hand [data-card='${n}']`)"
            ".getAttribute('aria-selected') === 'true'", arg=number)
        play = page.locator("#play-card")
        play.wait_for()
        assert number and number in (play.text_content() or ""), play.text_content()
        play.tap()
    page.wait_for_selector("#standings-panel:not([hidden])")
    check_order(page, "the game over")
    assert swipe_order(page).index(("heading", "Final standings")) < swipe_order(page).index(
        ("heading", "Players"))
