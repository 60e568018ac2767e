"""What the page says and where focus goes: one message per step, the hand kept in place,
the card changeable until the reveal, and the quick path from the lobby to a card."""

from __future__ import annotations

import json
import re
from typing import Any

from .conftest import NewPage
from .helpers import (
    HAND,
    announcements,
    assertive_count,
    create_table,
    fresh_name,
    open_options,
    relayed,
    set_name,
    two_at_a_table,
    wait_turn,
)


class Keys:
    """A keyboard that counts the keys it presses."""

    def __init__(self, page: Any) -> None:
        self.page = page
        self.count = 0

    def press(self, key: str) -> None:
        self.count += 1
        self.page.keyboard.press(key)


def test_quick_game_in_two_keys_and_a_turn_in_two(new_page: NewPage) -> None:
    """From opening the page to the first card played: Enter on the quick game (focused
    when the lobby opens), Enter on the focused card."""
    page = new_page()
    keys = Keys(page)
    assert page.evaluate("document.activeElement.id") == "quick-play"
    keys.press("Enter")
    assert wait_turn(page, 0) == "card"
    assert page.evaluate("document.activeElement.getAttribute('role')") == "option"
    card = page.evaluate("document.activeElement.dataset.card")
    seen = assertive_count(page)
    keys.press("Enter")
    page.wait_for_function("c => window.__ann.some(a => a[1].includes(`You choose ${c}.`))",
                           arg=card)
    first = keys.count
    assert first <= 8
    # An ordinary turn (after a row choice, if the first card asked for one): one arrow
    # to another card, Enter.
    while wait_turn(page, seen) == "row":
        seen = assertive_count(page)
        page.keyboard.press("Enter")
    before = keys.count
    keys.press("ArrowRight")
    card = page.evaluate("document.activeElement.dataset.card")
    keys.press("Enter")
    page.wait_for_function("c => window.__ann.some(a => a[1].includes(`You choose ${c}.`))",
                           arg=card)
    assert keys.count - before <= 3
    # A table of four: three bots with names, the player seated.
    assert page.locator("#players li").count() == 4
    assert "(you)" in page.locator("#players").inner_text()


def test_the_game_area_is_hidden_before_the_start(new_page: NewPage) -> None:
    page = new_page()
    set_name(page, fresh_name("Empty"))
    create_table(page, players=2, rounds=1, bots=1, start=False)
    assert page.locator("#game").is_hidden()
    assert page.evaluate("getComputedStyle(document.querySelector('#game')).display") == "none"
    page.locator("#start-game").click()
    wait_turn(page, 0)
    assert page.locator("#game").is_visible()


def test_the_hand_stays_in_place_and_focus_moves_once_a_turn(new_page: NewPage) -> None:
    page = new_page()
    set_name(page, fresh_name("Still"))
    create_table(page, players=3, rounds=1, bots=2)
    # Mark every card element and count focus moves to a card from here on.
    page.evaluate("""() => {
        window.__marked = new Set(document.querySelectorAll('#hand [role=option]:not(.leaving)'));
        window.__focus = 0;
        document.addEventListener('focusin', (e) => {
            if (e.target.closest('#hand')) window.__focus++;
        });
    }""")
    played = rows = 0
    kind = "card"
    while played < 3:
        seen = assertive_count(page)
        page.keyboard.press("Enter")
        if kind == "card":
            played += 1
        kind = wait_turn(page, seen)
        if kind == "row":
            rows += 1
            continue
        page.wait_for_timeout(200)
        # The played cards left; every other card is the element it was; focus came to a
        # card once a turn (from the played card to its neighbour), and once more back
        # from a row dialog.
        state = page.evaluate("""() => {
            const now = [...document.querySelectorAll('#hand [role=option]:not(.leaving)')];
            return {same: now.every(li => window.__marked.has(li)), size: now.length,
                    focus: window.__focus};
        }""")
        assert state["same"] and state["size"] == 10 - played, state
        assert state["focus"] <= played + rows, state
        assert page.evaluate("document.activeElement.getAttribute('role')") == "option", (
            page.evaluate("document.activeElement.outerHTML.slice(0, 200)"), rows,
            announcements(page)[-3:])


def test_the_card_can_be_changed_until_the_reveal(new_page: NewPage) -> None:
    ana, bob, _ = two_at_a_table(new_page)
    ana.locator("#start-game").click()
    wait_turn(ana, 0)
    wait_turn(bob, 0)
    first = ana.evaluate("document.activeElement.dataset.card")
    ana.keyboard.press("Enter")
    ana.wait_for_selector(f"#card-{first}.chosen")
    # Chosen and marked for the eye; its name and state never change while it is in the
    # hand (a screen reader would say the change of the focused card), and every card can
    # still be chosen.
    label = ana.locator(f"#card-{first}").get_attribute("aria-label")
    assert label is not None and not label.endswith(", chosen"), label
    assert ana.locator("#hand [aria-disabled]").count() == 0
    assert ana.locator("#hand.waiting").count() == 0
    ana.keyboard.press("ArrowRight")
    second = ana.evaluate("document.activeElement.dataset.card")
    assert second != first
    ana.keyboard.press("Enter")
    ana.wait_for_selector(f"#card-{second}.chosen")
    assert ana.locator("#hand .chosen").count() == 1
    bob.keyboard.press("Enter")
    ana.wait_for_function("() => window.__ann.some(a => a[1].includes('Cards revealed'))")
    reveal = next(t for _, t in announcements(ana) if "Cards revealed" in t)
    assert re.search(rf"\byou: {second}\b", reveal), reveal


def test_the_row_choice_waits_for_the_reveal_to_be_said(new_page: NewPage) -> None:
    """At the page's own pace: the reveal that leads to a row choice is said, and the
    dialog opens (moving focus) only after the time it takes to say it; its prompt after."""
    page = new_page(pace=None)
    set_name(page, fresh_name("Pace"))
    open_options(page)
    page.locator("input[name=variant][value=jokers]").check()
    # Medium bots keep their jokers while a card lands safely (on the first turn, all but
    # always): an easy bot's lower joker, placed first, could be said in between.
    create_table(page, players=3, rounds=1, bots=2, strength="medium")
    page.evaluate("""() => {
        window.__opened = null;
        new MutationObserver(() => {
            if (document.querySelector('#row-dialog').open && window.__opened === null)
                window.__opened = performance.now();
        }).observe(document.querySelector('#row-dialog'), {attributes: true});
    }""")
    page.keyboard.press("Home")
    page.keyboard.press("Enter")
    page.wait_for_function("() => window.__ann.some(a => a[0] === 'assertive'"
                           " && a[1].startsWith('Choose the row'))")
    ann = announcements(page)
    at = page.evaluate("window.__annAt")
    opened = page.evaluate("window.__opened")
    k = next(i for i, (_, t) in enumerate(ann) if "Cards revealed" in t)
    reveal = ann[k][1]
    # Nothing else was said between the reveal and the prompt.
    assert ann[k + 1][0] == "assertive" and ann[k + 1][1].startswith("Choose the row"), ann[k:]
    assert opened - at[k] >= 0.9 * min(12000, 60 * len(reveal)), (opened - at[k], reveal)
    assert at[k + 1] >= opened


def test_a_tap_selects_a_card_and_a_second_tap_plays_it(new_page: NewPage) -> None:
    """With one-click play off (Settings), a tap selects and a second tap, or Play, plays
    (one-click play itself: test_web_lobby.py)."""
    page = new_page(width=390, height=844, script="localStorage.setItem('nimmt.oneclick', '0');")
    set_name(page, fresh_name("Tap"))
    create_table(page, players=3, rounds=1, bots=2)
    cards = page.locator("#hand [role=option]:not(.leaving)")
    second = cards.nth(1)
    card = second.get_attribute("data-card")
    second.click()
    assert second.get_attribute("aria-selected") == "true"
    assert page.locator("#play-card").inner_text() == f"Play {card}"
    page.wait_for_timeout(300)
    assert not any("You choose" in t for _, t in announcements(page))
    seen = assertive_count(page)
    second.click()
    page.wait_for_function("c => window.__ann.some(a => a[1].includes(`You choose ${c}.`))",
                           arg=card)
    # Next turn (after a row choice, if one was asked): the Play button confirms the card
    # selected.
    kind = wait_turn(page, seen)
    while kind == "row":
        seen = assertive_count(page)
        page.keyboard.press("Enter")
        kind = wait_turn(page, seen)
    first = page.locator("#hand [role=option]:not(.leaving)").first
    card = first.get_attribute("data-card")
    first.click()
    page.locator("#play-card").click()
    page.wait_for_function("c => window.__ann.some(a => a[1].includes(`You choose ${c}.`))",
                           arg=card)


def test_refusals_and_answers_are_the_servers_sentences(new_page: NewPage) -> None:
    """One voice: a refusal is said in the page's language as the server words it, and
    a key pressed when nothing is asked is answered by the server's sentence."""
    page = new_page(lang="sr")
    set_name(page, fresh_name("Mila"))
    page.locator("#join-code").fill("ZZZZZZ")
    page.locator("#join-form button[type=submit]").click()
    page.wait_for_function(
        "() => window.__ann.some(a => a[0] === 'assertive'"
        " && a[1] === 'Nijedan otvoren sto nema taj kod.')")
    # A table of two: the guest (Serbian) chooses first, then asks for a hint while the
    # table waits for the host.
    host, guest, _ = two_at_a_table(new_page, rounds=1, guest_lang="sr")
    host.locator("#start-game").click()
    wait_turn(guest, 0)
    guest.keyboard.press("Enter")
    guest.wait_for_function("() => window.__ann.some(a => a[1].includes('Birate '))")
    host_name = host.evaluate("localStorage.getItem('nimmt.name')")
    guest.keyboard.press("h")
    guest.wait_for_function(
        "n => window.__ann.some(a => a[1] === "
        "`Sada se od vas ništa ne traži. Čeka se izbor karte: ${n}.`)", arg=host_name)
    said = " ".join(text for _, text in announcements(guest))
    assert "Nothing is asked" not in said


def test_focus_lost_as_the_game_starts_comes_back_before_the_message(
        new_page: NewPage) -> None:
    """Start hides with the seating as the game begins, so focus is lost; when the start's
    message comes before the decision (its prompt in a later frame, as on a slow link),
    focus comes back to the hand before the message is said: with focus lost a screen
    reader reads from the page's top and drops the message."""
    held: list[dict[str, Any]] = []
    armed = [False]

    def through(message: str | bytes) -> str | bytes:
        msg = json.loads(message) if isinstance(message, str) else None
        if armed[0] and msg and msg.get("prompt"):
            # The step without its decision: a prompt-only frame brings it later.
            held[:] = [{"seq": msg["seq"], "type": "events", "items": [],
                        "prompt": msg["prompt"], "text": [], "view": None, "sheet": None}]
            msg["prompt"] = None
            return json.dumps(msg)
        return message

    routes, route = relayed(through)
    page = new_page(ws=route)
    set_name(page, fresh_name("Lost"))
    create_table(page, players=2, rounds=1, bots=1, start=False)
    armed[0] = True
    page.locator("#start-game").focus()
    page.keyboard.press("Enter")
    # The bot's seat may be said in the same step (its notice can come late).
    page.wait_for_function("() => window.__ann.some(a => a[1].includes('The game starts.'))")
    assert held, "the start came without a decision to hold back"
    said = page.evaluate("() => window.__ann.map((a, i) => [a[1], window.__annFocus[i]])")
    start = next(focus for text, focus in said if "The game starts." in text)
    assert start is not None and start.startswith("card-"), said
    armed[0] = False
    routes[0].send(json.dumps(held[0]))
    assert wait_turn(page, 0) == "card"
    assert page.evaluate("document.activeElement.getAttribute('role')") == "option"


def test_the_opening_is_said_before_the_first_decision_on_a_slow_link(
        new_page: NewPage) -> None:
    """The start comes as a table_state (with the first decision) and the items that led
    to it (the game starts, the hand, the rows) in the frame after. On a slow link, or a
    busy server or page, that frame comes later than the page's wait for a step's frames:
    the decision must still not be said before the opening, or a player who answers it
    at once never hears their hand."""
    held: list[str | bytes] = []
    # "armed": the next events frame and all after it are held; "holding": they are.
    mode = [""]

    def through(message: str | bytes) -> str | bytes | None:
        msg = json.loads(message) if isinstance(message, str) else None
        if mode[0] == "armed" and msg and msg.get("type") == "events":
            mode[0] = "holding"
        if mode[0] == "holding":
            # The opening's items and what follows, held back as a slow link would (in
            # order: a link delays frames, it does not reorder them).
            held.append(message)
            return None
        return message

    routes, route = relayed(through)
    page = new_page(ws=route)
    set_name(page, fresh_name("Slow"))
    create_table(page, players=2, rounds=1, bots=1, start=False)
    mode[0] = "armed"
    page.locator("#start-game").focus()
    page.keyboard.press("Enter")
    # The state is in (the hand drawn, the decision known to the page), its items held;
    # then a third of a second on the page's clock, more than five times its wait for a
    # step's frames.
    page.wait_for_function(f"() => {HAND}.length > 0")
    page.wait_for_function("() => (window.__t0 ??= performance.now()) < performance.now() - 350")
    assert held, "the opening's items did not come after the state"
    opening = json.loads(held[0])["items"]
    assert opening[0]["notice"] == "started", opening
    assert assertive_count(page) == 0, announcements(page)
    # Let the frames go in order (a frame arriving while they go joins the end).
    while held:
        routes[0].send(held.pop(0))
    mode[0] = ""
    assert wait_turn(page, 0) == "card"
    said = [text for _, text in announcements(page)]
    start = next(i for i, text in enumerate(said) if "The game starts." in text)
    asked = next(i for i, (level, _) in enumerate(announcements(page)) if level == "assertive")
    assert start <= asked, said
    assert "Your hand" in " ".join(said[start:asked + 1]), said
