"""A whole game in the browser by keyboard alone, against bots."""

from __future__ import annotations

import re
from typing import Any

from .conftest import NewPage
from .helpers import (
    announcements,
    assertive_count,
    create_table,
    fresh_name,
    open_results,
    play_by_keyboard,
    set_name,
    two_at_a_table,
    wait_turn,
)


def test_whole_game_by_keyboard(new_page: NewPage) -> None:
    page = new_page()
    speech_urls: list[str] = []
    page.on("request", lambda r: speech_urls.append(r.url) if "/api/speech/" in r.url else None)
    set_name(page, fresh_name("Kbd"))
    create_table(page, players=3, rounds=2, bots=2)

    def after_the_bots(page: Any, kind: str) -> None:
        # The player chooses last, so each turn's messages are the same whatever the bots'
        # speed: on a busy machine a bot may choose after the keyboard, and the player's
        # choice would then be said on its own.
        if kind == "card":
            page.wait_for_function(
                "() => document.querySelectorAll('#players li.done').length >= 2")

    steps = play_by_keyboard(page, on_turn=after_the_bots)
    # Focus was where the player had to act: a card of the hand, or a row in the dialog.
    assert steps, "no decision was asked"
    for step in steps:
        if step["kind"] == "card":
            assert step["focus"]["role"] == "option", step
        else:
            assert step["focus"]["type"] == "radio" and step["focus"]["inDialog"], step
    cards = [s for s in steps if s["kind"] == "card"]
    assert len(cards) == 20  # 2 rounds of 10 turns
    # The final standings, on the table, take focus at the end.
    assert page.evaluate("document.activeElement.id") == "standings-h"
    ann = announcements(page)
    assertive = [t for lvl, t in ann if lvl == "assertive"]
    assert len(assertive) == len(steps)
    # Each decision is said once, at the end of the step that led to it (a reveal and the
    # next decision are one message).
    for text, step in zip(assertive, steps, strict=True):
        if step["kind"] == "card":
            assert text.count("Your turn: choose a card.") == 1, text
            assert text.endswith("Your turn: choose a card."), text
        else:
            assert "Choose a row to take" in text, text
    # About one message a turn: the reveal and the next decision together (the other
    # seats' choices are not said one by one); a row choice takes two (what led to it,
    # then the dialog's prompt).
    rows = sum(1 for s in steps if s["kind"] == "row")
    assert len(ann) <= len(steps) + rows + 6, ann
    # No message is said twice.
    texts = [t for _, t in ann]
    assert len(set(texts)) == len(texts), [t for t in texts if texts.count(t) > 1]
    # Each card decision: asked (assertive), answered ("You choose N."), then the reveal
    # with N as yours, in that order.
    i = 0
    for _ in cards:
        while not (ann[i][0] == "assertive" and "Your turn: choose a card." in ann[i][1]):
            i += 1
        i += 1
        while not re.search(r"You choose (\d+)\.", ann[i][1]):
            i += 1
        found = re.search(r"You choose (\d+)\.", ann[i][1])
        assert found is not None
        card = found.group(1)
        while "Cards revealed" not in ann[i][1]:
            i += 1
        assert re.search(rf"\byou: {card}\b", ann[i][1]), (card, ann[i][1])
    polite = [t for lvl, t in ann if lvl == "polite"]
    assert any("Game over" in t for t in polite[-3:]), polite[-3:]
    # The final standings are on the table; the results page is a link away.
    assert page.locator("#standings li").count() == 3
    open_results(page)
    assert page.locator("#results-body tr").count() == 3
    # The narration and the shortcuts' sentences came over the WebSocket, with the state:
    # the page never asked the speech endpoint.
    assert speech_urls == []


def test_turn_timer_warns_assertively(new_page: NewPage) -> None:
    page = new_page()
    set_name(page, fresh_name("Clock"))
    create_table(page, players=2, rounds=1, bots=1, timer="15")
    page.wait_for_selector("#timer:not([hidden])")
    left = int(page.locator("#timer-s").inner_text())
    assert 0 < left <= 15
    page.wait_for_function(
        "() => window.__ann.some(a => a[0] === 'assertive' && /seconds? left/.test(a[1]))")
    assertive = [t for lvl, t in announcements(page) if lvl == "assertive"]
    assert "Your turn: choose a card." in assertive[0]
    assert re.fullmatch(r"(10|[1-9]) seconds? left\.", assertive[1]), assertive
    # Only the decision and the warning were assertive.
    assert len(assertive) == 2


def test_timeout_hands_over_one_decision(new_page: NewPage) -> None:
    """When time runs out the default bot makes that decision only; the next is the
    person's again, and both players are told, each in their language."""
    ana, bob, _ = two_at_a_table(new_page, rounds=None, timer="15", guest_lang="sr")
    ana.locator("#start-game").click()
    wait_turn(bob, 0)
    bob.keyboard.press("Enter")  # Bob plays; Ana lets her time run out.
    seen = assertive_count(bob)
    ana.wait_for_function(
        "() => window.__ann.some(a => a[1].includes("
        "'You ran out of time; the default bot makes this decision for you.'))")
    ana.wait_for_function(
        "() => window.__ann.some(a => a[1].includes("
        "'The default bot made that decision for you; the next one is yours.'))")
    # Bob reads Serbian: the notices are said from their reason and seat, in his language.
    ana_name = ana.evaluate("localStorage.getItem('nimmt.name')")
    bob.wait_for_function(
        "n => window.__ann.some(a => a[1].includes(n + ': vreme je isteklo'))", arg=ana_name)
    bob.wait_for_function(
        "n => window.__ann.some(a => a[1].includes(n + ' ponovo igra posle odluke'))",
        arg=ana_name)
    assert "ran out of time" not in " ".join(t for _, t in announcements(bob))
    # Bob plays on whenever asked; Ana is asked the next decision herself, with no key
    # pressed to take her seat back.
    asked_again = ("window.__ann.filter(a => a[0] === 'assertive'"
                   " && a[1].includes('Your turn: choose a card.')).length >= 2")
    for _ in range(400):
        if ana.evaluate(asked_again):
            break
        count = assertive_count(bob)
        if count > seen:
            seen = count
            bob.keyboard.press("Enter")
        bob.wait_for_timeout(50)
    assert ana.evaluate(asked_again)
    assert ana.evaluate("document.activeElement.getAttribute('role')") == "option"
