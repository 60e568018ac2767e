"""The room around the tables in the browser: friends, invitations, the lobby chat, private
messages, mutes and blocks, each between two players in their own browser contexts.

One path goes by mouse (the friends view's follow), the others by keyboard; what the
screen reader hears is read from the live regions (``window.__ann``)."""

from __future__ import annotations

from typing import Any

import pytest

from .conftest import NewPage
from .helpers import announcements, create_table, fresh_name, open_menu, set_name
from .readers import Reader

axe_sync = pytest.importorskip("axe_playwright_python.sync_playwright")

#: A friend's item in the friends view, by name.
ITEM = "#friends-list li[data-name='{}']"


def _go(page: Any, hash_: str, heading: str) -> None:
    """Open a view by its address, as a link would; wait until it is shown."""
    page.evaluate(f"location.hash = {hash_!r}")
    page.wait_for_selector(f"#{heading}:not([hidden])")


def _axe(page: Any, state: str) -> None:
    result = axe_sync.Axe().run(page)
    assert result.violations_count == 0, f"{state}:\n{result.generate_report()}"


def _said(page: Any, text: str, level: str | None = None) -> bool:
    return any(text in said and (level is None or lvl == level)
               for lvl, said in announcements(page))


def _wait_said(page: Any, text: str, level: str | None = None) -> None:
    page.wait_for_function(
        "([text, level]) => window.__ann.some(([l, s]) => s.includes(text)"
        " && (level === null || l === level))", arg=[text, level])


def _follow_by_keyboard(page: Any, name: str) -> None:
    _go(page, "#/friends", "view-friends")
    page.locator("#follow-name").focus()
    page.keyboard.type(name)
    page.keyboard.press("Enter")
    page.wait_for_selector(ITEM.format(name))


def _round_trip(page: Any) -> None:
    """The friends list asked for and answered: whatever the server sent this page before
    it has arrived (one connection's frames come in order)."""
    loaded = page.evaluate("Number(document.querySelector('#friends-list').dataset.loaded || 0)")
    _go(page, "#/", "view-lobby")
    _go(page, "#/friends", "view-friends")
    page.wait_for_function(
        f"() => Number(document.querySelector('#friends-list').dataset.loaded || 0) > {loaded}")


def _friends(new_page: NewPage) -> tuple[Any, Any, str, str]:
    """Two guests who follow each other; A sits at a table of two of theirs (not started).
    B, on a phone, follows by touch; A by keyboard."""
    a, b = new_page(), new_page(width=390, height=844, touch=True)
    name_a, name_b = fresh_name("Ana"), fresh_name("Bo")
    set_name(a, name_a)
    create_table(a, players=2, rounds=1, bots=0, start=False)
    set_name(b, name_b)
    open_menu(b)
    b.locator("nav a[href='#/friends']").tap()
    b.wait_for_selector("#view-friends:not([hidden])")
    b.locator("#follow-name").tap()
    b.locator("#follow-name").fill(name_a)
    b.locator("#follow-form button[type=submit]").tap()
    b.wait_for_selector(ITEM.format(name_a))
    _wait_said(b, f"You follow {name_a}.")
    # Not a friend yet: online, but where they play is not told.
    state = b.locator(ITEM.format(name_a) + " .friend-state").inner_text()
    assert "you follow them" in state and "online" in state and "table" not in state, state
    _follow_by_keyboard(a, name_b)
    _wait_said(a, f"You and {name_b} are friends now.")
    state = a.locator(ITEM.format(name_b) + " .friend-state").inner_text()
    assert "friend" in state and "online" in state, state
    _axe(a, "the friends view with a friend")
    return a, b, name_a, name_b


def test_invited_anywhere_accepts_by_key_then_muted_and_blocked(new_page: NewPage) -> None:
    a, b, name_a, name_b = _friends(new_page)
    code = a.evaluate("localStorage.getItem('nimmt.table')")
    # B sees where their friend plays, with a free seat (and a button to join).
    _round_trip(b)
    b.wait_for_function(
        "([sel, code]) => document.querySelector(sel + ' .friend-state').textContent"
        ".includes(code)", arg=[ITEM.format(name_a), code])
    assert b.locator(ITEM.format(name_a) + " button.join").is_visible()
    # B is elsewhere: in Settings, focus on its heading.
    _go(b, "#/settings", "view-settings")
    assert b.evaluate("document.activeElement.id") == "settings-h"
    # A invites B from the table, by keyboard.
    _go(a, f"#/table/{code}", "view-table")
    a.locator("#invite-name").focus()
    a.keyboard.type(name_b)
    a.keyboard.press("Enter")
    _wait_said(a, f"Invitation sent to {name_b}.")
    # B's page shows it and says it at once, with the keys that answer it.
    b.wait_for_selector("#invite-banner:not([hidden])")
    said = f"{name_a} invites you to their table."
    _wait_said(b, said, "assertive")
    assert _said(b, "J accepts, SHIFT+J declines.", "assertive")
    assert said in b.locator("#invite-text").inner_text()
    _axe(b, "an invitation's banner, on a phone")
    # J accepts: B is at A's table, seated.
    b.keyboard.press("j")
    b.wait_for_function("(code) => location.hash === '#/table/' + code", arg=code)
    a.wait_for_function(
        "(name) => [...document.querySelectorAll('#seat-list li')]"
        ".some(li => li.textContent.includes(name))", arg=name_b)
    assert b.locator("#invite-banner").is_hidden()
    # A follows B: B's entry moves with them as the server's presence tells, unasked.
    a.wait_for_function(
        "([sel, code]) => document.querySelector(sel + ' .friend-state').textContent"
        ".includes(code)", arg=[ITEM.format(name_b), code])

    # Table chat reaches A until A mutes B (from B's entry in the seats, by keyboard).
    b.locator("#chat-text").focus()
    b.keyboard.type("hello from B")
    b.keyboard.press("Enter")
    a.wait_for_function("() => document.querySelector('#log').textContent.includes('hello from B')")
    a.locator(f"#seat-list [data-person='{name_b}']").focus()
    a.keyboard.press("Enter")
    a.wait_for_selector("#person-box:not([hidden])")
    assert a.evaluate("document.activeElement.id") == "person-h"
    _axe(a, "a player's box")
    a.locator("#person-mute").focus()
    a.keyboard.press("Enter")
    _wait_said(a, f"{name_b} is muted")
    b.locator("#chat-text").focus()
    b.keyboard.type("muted line")
    b.keyboard.press("Enter")
    b.wait_for_function("() => document.querySelector('#log').textContent.includes('muted line')")
    _round_trip(a)
    assert "muted line" not in a.locator("#log").inner_text()
    assert "hello from B" in a.locator("#log").inner_text()

    # A blocks B (confirmed); B leaves and can no longer sit at A's table.
    _go(a, f"#/table/{code}", "view-table")
    a.locator(f"#seat-list [data-person='{name_b}']").focus()
    a.keyboard.press("Enter")
    a.once("dialog", lambda d: d.accept())
    a.locator("#person-block").focus()
    a.keyboard.press("Enter")
    _wait_said(a, f"{name_b} is blocked")
    a.locator("#person-close").focus()
    a.keyboard.press("Enter")
    b.locator("#leave").focus()
    b.keyboard.press("Enter")
    b.wait_for_selector("#view-lobby:not([hidden])")
    a.wait_for_function(
        "(name) => ![...document.querySelectorAll('#seat-list li')]"
        ".some(li => li.textContent.includes(name))", arg=name_b)
    b.locator("#join-code").focus()
    b.keyboard.type(code)
    b.keyboard.press("Enter")
    _wait_said(b, "Someone at this table has blocked you, so you cannot sit here.", "assertive")
    assert not a.evaluate(
        "(name) => [...document.querySelectorAll('#seat-list li')]"
        ".some(li => li.textContent.includes(name))", name_b)

    # The friends view lists whom A muted and blocked; A lifts the block from there (the
    # mute stays), and B may sit again.
    _go(a, "#/friends", "view-friends")
    a.wait_for_function(
        "() => document.querySelectorAll('#silenced-list li').length === 2")
    listed = a.locator("#silenced-list").inner_text()
    assert "muted" in listed and "blocked" in listed and name_b in listed, listed
    a.locator("#silenced-list button", has_text=f"Lift the block of {name_b}").focus()
    a.keyboard.press("Enter")
    _wait_said(a, f"{name_b} is no longer blocked.")
    a.wait_for_function(
        "() => document.querySelectorAll('#silenced-list li').length === 1")
    assert a.evaluate("document.activeElement.textContent") == f"Lift the mute of {name_b}"
    b.locator("#sit-down").focus()
    b.keyboard.press("Enter")
    a.wait_for_function(
        "(name) => [...document.querySelectorAll('#seat-list li')]"
        ".some(li => li.textContent.includes(name))", arg=name_b)


def test_lobby_chat_private_messages_and_a_block(new_page: NewPage) -> None:
    a, b, name_a, name_b = _friends(new_page)
    # A opens another table, with seats free: B, who follows A, hears where, unasked.
    _go(a, "#/", "view-lobby")
    code = create_table(a, players=3, rounds=1, bots=0, start=False)
    _wait_said(b, f"{name_a} is at table {code}, with a seat free.", "polite")
    _go(a, "#/", "view-lobby")
    _go(b, "#/", "view-lobby")
    # A lobby line reaches B, said as the table's chat is, and shown in the lobby beside
    # who is online, with the time the server wrote it.
    a.locator("#lobby-text").focus()
    a.keyboard.type("anyone for category5?")
    a.keyboard.press("Enter")
    b.wait_for_function(
        "() => document.querySelector('#lobby-log').textContent.includes('anyone for category5?')")
    _wait_said(b, f"{name_a} says: anyone for category5?", "polite")
    # B mutes the lobby channel (a tap on the checkbox): lines are kept, no longer said.
    b.locator("#lobby-mute").click()
    _wait_said(b, "Lobby chat muted")
    assert b.evaluate("localStorage.getItem('nimmt.lobbymute')") == "1"
    a.locator("#lobby-text").focus()
    a.keyboard.type("second line")
    a.keyboard.press("Enter")
    b.wait_for_function(
        "() => document.querySelector('#lobby-log').textContent.includes('second line')")
    assert not _said(b, "second line")
    stamp = b.locator("#lobby-log p", has_text="second line").locator("time")
    assert stamp.get_attribute("datetime") and stamp.inner_text()
    _go(a, "#/friends", "view-friends")
    _go(b, "#/friends", "view-friends")
    # A private message, said with its sender.
    a.locator(ITEM.format(name_b) + " button.message").focus()
    a.keyboard.press("Enter")
    assert a.evaluate("document.activeElement.id") == "pm-text"
    assert a.evaluate("document.querySelector('#pm-to').value") == name_b
    a.keyboard.type("just between us")
    a.keyboard.press("Enter")
    _wait_said(a, "Message sent.")
    _wait_said(b, f"Private message. {name_a} says: just between us", "polite")
    assert "just between us" in b.locator("#pm-log").inner_text()
    # A blocks B from the friends list: B's private message no longer arrives.
    a.locator(ITEM.format(name_b) + " button.more").focus()
    a.keyboard.press("Enter")
    a.once("dialog", lambda d: d.accept())
    a.locator("#person-block").focus()
    a.keyboard.press("Enter")
    _wait_said(a, f"{name_b} is blocked")
    a.keyboard.press("Escape")
    assert a.locator("#person-box").is_hidden()
    sent = len([s for _, s in announcements(b) if s == "Message sent."])
    b.locator("#pm-to").select_option(name_a)
    b.locator("#pm-text").focus()
    b.keyboard.type("do you hear me?")
    b.keyboard.press("Enter")
    b.wait_for_function(
        f"() => window.__ann.filter(([, s]) => s === 'Message sent.').length > {sent}")
    _round_trip(a)
    assert "do you hear me?" not in a.locator("#pm-log").inner_text()
    assert not _said(a, "do you hear me?")


def test_invitation_link_seats_a_newcomer(new_page: NewPage) -> None:
    a = new_page()
    set_name(a, fresh_name("Host"))
    code = create_table(a, players=2, rounds=1, bots=0, start=False)
    a.locator("#invite-link").focus()
    a.keyboard.press("Enter")
    a.wait_for_selector("#invite-link-box:not([hidden])")
    url = a.locator("#invite-url").input_value()
    assert "/play/?invite=" in url
    assert a.evaluate("document.activeElement.id") == "invite-url"
    # Someone without an account opens it: asked for a name, then seated at the table.
    c = new_page()
    c.goto(url)
    c.wait_for_selector("body[data-ready='1']")
    c.wait_for_selector("#invite-newcomer:not([hidden])")
    assert c.evaluate("document.activeElement.id") == "invite-newname"
    assert "invite=" not in c.evaluate("location.href")
    name_c = fresh_name("Newcomer")
    c.keyboard.type(name_c)
    c.keyboard.press("Enter")
    c.wait_for_function("(code) => location.hash === '#/table/' + code", arg=code)
    a.wait_for_function(
        "(name) => [...document.querySelectorAll('#seat-list li')]"
        ".some(li => li.textContent.includes(name))", arg=name_c)
    assert c.locator("#invite-newcomer").is_hidden()
    # An invitation while typing: J types (it answers nothing), and the sentence says where
    # the banner's buttons are.
    c.locator("#chat-text").focus()
    c.keyboard.type("hi ")
    a.locator("#invite-name").focus()
    a.keyboard.type(name_c)
    a.keyboard.press("Enter")
    _wait_said(c, "Accept and Decline are at the top of the page.", "assertive")
    c.keyboard.press("j")
    assert c.locator("#chat-text").input_value() == "hi j"
    assert c.locator("#invite-banner").is_visible()
    c.locator("#invite-accept").click()
    c.wait_for_selector("#invite-banner", state="hidden")


@pytest.mark.parametrize("kind", ["nvda", "jaws"])
def test_invitations_through_a_readers_modes(new_page: NewPage, kind: str) -> None:
    """Through a model of NVDA's and JAWS's modes (readers.py): in a game, the hand in
    focus, J reaches the page and accepts; in browse mode outside the game the reader
    keeps J, and the banner's Decline button (reached as the reader's button navigation
    would) answers with Enter."""
    a = new_page()
    name_a = fresh_name("Host")
    set_name(a, name_a)
    code = create_table(a, players=2, rounds=1, bots=0, start=False)
    b = new_page()
    name_b = fresh_name("Player")
    set_name(b, name_b)
    create_table(b, players=3, rounds=1, bots=2)
    assert b.evaluate("document.activeElement.getAttribute('role')") == "option"
    reader = Reader(b, kind)

    def invite(times: int) -> None:
        a.locator("#invite-name").focus()
        a.keyboard.type(name_b)
        a.keyboard.press("Enter")
        b.wait_for_function(
            "([text, n]) => window.__ann.filter(([l, s]) => l === 'assertive'"
            " && s.includes(text)).length >= n",
            arg=[f"{name_a} invites you to their table.", times])

    # Outside the game, in browse mode: the reader keeps J; the banner's button answers.
    b.evaluate("location.hash = '#/help'")
    b.wait_for_selector("#view-help:not([hidden])")
    invite(1)
    assert not reader.press("j")
    assert b.locator("#invite-banner").is_visible()
    b.locator("#invite-decline").focus()
    assert reader.press("Enter")
    _wait_said(b, f"You declined {name_a}'s invitation.")
    assert b.locator("#invite-banner").is_hidden()
    # In the game, the hand in focus (focus mode): J reaches the page and accepts.
    b.evaluate("location.hash = '#/table/' + localStorage.getItem('nimmt.table')")
    b.wait_for_function("() => document.activeElement.getAttribute('role') === 'option'")
    invite(2)
    assert reader.press("j"), reader.taken
    b.wait_for_function("(code) => location.hash === '#/table/' + code", arg=code)
    a.wait_for_function(
        "(name) => [...document.querySelectorAll('#seat-list li')]"
        ".some(li => li.textContent.includes(name))", arg=name_b)


def test_invitations_that_come_together_ring_once(new_page: NewPage, server: str) -> None:
    """Three players invite one at once: the first invitation rings and is said; the two
    that follow while it waits are said together, once, with how many wait; the banner
    shows the newest and the count all along."""
    from nimmt.client_sync import SyncClient

    b = new_page()
    name_b = fresh_name("Popular")
    set_name(b, name_b)
    create_table(b, players=2, rounds=1, bots=0, start=False)
    b.evaluate("window.__cues = []; document.addEventListener('nimmt-cue', "
               "(e) => window.__cues.push(e.detail.name))")
    hosts = [SyncClient.connect(server, name=fresh_name("Inviter")) for _ in range(3)]
    try:
        for host in hosts:
            host.create_table(rules={"players": 2})
        for host in hosts:
            host.act("invite", name=name_b)
        _wait_said(b, "2 more invitations are waiting.", "assertive")
        said = [s for lvl, s in announcements(b) if "invites you to their table" in s]
        assert len(said) == 2, said
        assert hosts[0].name in said[0] and hosts[2].name in said[1], said
        assert b.evaluate("window.__cues.filter((c) => c === 'invite').length") == 2
        assert hosts[2].name in b.locator("#invite-text").inner_text()
        assert "2 more" in b.locator("#invite-more").inner_text()
    finally:
        for host in hosts:
            host.close()
