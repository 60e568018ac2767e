"""Accounts in the browser: a guest plays a rated game, keeps the name with a password and
sees the recovery codes once; signs in on a phone-sized second browser and finds the
name, rating and history there; a wrong password is said by the fields; the sessions
are listed and "sign out everywhere else" ends the first browser's, which says so and
signs in again; the leaderboard lists the rated player; a forgotten password is set
again with a recovery code; guessing is held back with the seconds to wait.

Keyboard (Tab, Enter) for the screen reader's paths, taps for the phone's.
"""

from __future__ import annotations

import os
import re
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from .conftest import QUOTAS, NewPage, _nimmt, _pages, _serve
from .helpers import (
    announcements,
    assertive_count,
    create_table,
    fresh_name,
    join_by_code,
    open_menu,
    open_options,
    over,
    set_name,
    wait_turn,
)

try:
    from axe_playwright_python.sync_playwright import Axe
except ImportError:  # pragma: no cover - the accessibility checks need axe
    Axe = None

PASSWORD = "blue kettles sing at dawn"
CODE = re.compile(r"^[0-9A-Z]{4}(-[0-9A-Z]{4}){3}$")


@pytest.fixture(scope="module")
def account_data(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The data folder of :func:`account_server` (its SQLite file, for ``nimmt admin``)."""
    return tmp_path_factory.mktemp("web-accounts")


@pytest.fixture(scope="module")
def account_server(account_data: Path) -> Iterator[str]:
    """A server at a test's pace whose sign-in limits are the defaults but one: an account
    without a session from the address may fail once before its first wait (so a test
    sees the wait at once); password checks a minute are not what is tested here."""
    env = dict(os.environ, **QUOTAS, NIMMT_BOT_SECONDS="0.05", NIMMT_REVEAL_PACE="0",
               NIMMT_ROUND_PAUSE="0",
               NIMMT_LISTEN_CPS="0", NIMMT_SIGNIN_FREE="1",
               NIMMT_PASSWORD_CHECKS_PER_MINUTE="1000")
    yield from _serve(account_data, env)


@pytest.fixture
def new_page(browser: Any, account_server: str) -> Iterator[NewPage]:
    yield from _pages(browser, account_server)


def axe(page: Any, state: str) -> None:
    if Axe is None:
        return
    result = Axe().run(page)
    assert result.violations_count == 0, f"{state}:\n{result.generate_report()}"


def focused(page: Any) -> str:
    return str(page.evaluate("document.activeElement.id"))


def wait_focus(page: Any, element: str) -> None:
    page.wait_for_function(f"() => document.activeElement.id === {element!r}")


def keyboard_to(page: Any, element: str, limit: int = 60) -> None:
    """Tab from where focus is until ``element`` has it (as a keyboard user gets there)."""
    for _ in range(limit):
        if focused(page) == element:
            return
        page.keyboard.press("Tab")
    raise AssertionError(f"Tab never reached #{element}")


def nav(page: Any, view: str, tap: bool = False) -> None:
    """Open ``view`` by its link in the main navigation: by keyboard, or by a tap."""
    link = page.locator(f"nav a[href='#/{view}']")
    if tap:
        open_menu(page)
        link.tap()
    else:
        link.focus()
        page.keyboard.press("Enter")
    page.wait_for_selector(f"#view-{view}:not([hidden])")


def type_into(page: Any, element: str, text: str) -> None:
    keyboard_to(page, element)
    page.keyboard.type(text)


def said(page: Any, text: str) -> None:
    page.wait_for_function(
        f"() => window.__ann.some(a => a[1].includes({text!r}))")


def play_rated_game(new_page: NewPage) -> tuple[Any, str]:
    """Two guests play a rated game of one round to its end (each by Enter on each
    decision); the first one's page and name."""
    name = fresh_name("Rated")
    desk = new_page()
    set_name(desk, name)
    open_options(desk)
    desk.locator("#c-rated").check()
    desk.locator("#c-hints").uncheck()
    code = create_table(desk, players=2, rounds=1, bots=0, start=False)
    rival = new_page()
    set_name(rival, fresh_name("Rival"))
    join_by_code(desk, rival, code)
    rival.locator("#table-h").focus()
    desk.locator("#start-game").focus()
    desk.keyboard.press("Enter")
    seen = {id(desk): 0, id(rival): 0}
    for _ in range(3000):
        if over(desk) and over(rival):
            break
        acted = False
        for page in (desk, rival):
            count = assertive_count(page)
            if count > seen[id(page)] and not over(page):
                seen[id(page)] = count
                page.keyboard.press("Enter")
                acted = True
        if not acted:
            desk.wait_for_timeout(50)
    assert over(desk) and over(rival)
    return desk, name


def sessions(page: Any) -> list[str]:
    return [str(s) for s in page.locator("#sessions-list li").all_inner_texts()]


@pytest.mark.timeout(400)
def test_sign_up_play_and_sign_in_on_a_phone(new_page: NewPage) -> None:
    desk, name = play_rated_game(new_page)

    # The guest keeps the name, by keyboard: the account page offers it.
    nav(desk, "account")
    wait_focus(desk, "account-h")
    assert name in desk.locator("#account-who").inner_text()
    assert desk.locator("#claim-form").is_visible()
    assert desk.locator("#account-own").is_hidden()
    # Signing in elsewhere would leave this guest: the sign-in form says so.
    assert name in desk.locator("#signin-guest").inner_text()
    axe(desk, "the account page of a guest")
    # Two different passwords: the error is tied to the fields and takes focus.
    type_into(desk, "claim-pw", PASSWORD)
    type_into(desk, "claim-pw2", PASSWORD + "!")
    desk.keyboard.press("Enter")
    # The field it is about takes focus, described by the error.
    wait_focus(desk, "claim-pw2")
    assert "not the same" in desk.locator("#claim-error").inner_text()
    assert desk.locator("#claim-pw2").get_attribute("aria-invalid") == "true"
    assert desk.locator("#claim-pw").get_attribute("aria-invalid") is None
    assert "claim-error" in (desk.locator("#claim-pw2").get_attribute("aria-describedby") or "")
    desk.keyboard.press("Control+A")
    desk.keyboard.type(PASSWORD)
    desk.keyboard.press("Enter")
    # The codes, once: their heading takes focus, eight of them in a list.
    wait_focus(desk, "codes-h")
    codes = desk.locator("#codes-list li").all_inner_texts()
    assert len(codes) == 8 and all(CODE.match(c) for c in codes), codes
    assert desk.locator("#claim-error").is_hidden()
    axe(desk, "the recovery codes")
    keyboard_to(desk, "codes-copy")
    desk.keyboard.press("Enter")
    desk.wait_for_function(
        "() => window.__ann.some(a => /copied|selected/.test(a[1]))")
    keyboard_to(desk, "codes-done")
    desk.keyboard.press("Enter")
    wait_focus(desk, "account-h")
    assert desk.locator("#codes-box").is_hidden()
    assert desk.locator("#codes-list li").count() == 0
    assert "signed in as" in desk.locator("#account-who").inner_text()
    desk.wait_for_function("() => document.querySelectorAll('#sessions-list li').length === 1")
    assert "This device" in sessions(desk)[0]

    # A phone: a wrong password first, said by the fields.
    phone = new_page(width=390, height=844, touch=True)
    nav(phone, "account", tap=True)
    assert phone.locator("#signin-form").is_visible()
    # No player yet on this phone: a name may be kept here too, before any game.
    assert phone.locator("#claim-name").is_visible()
    assert phone.locator("#signin-guest").is_hidden()
    phone.locator("#signin-name").tap()
    phone.keyboard.type(name.lower())  # the name's look signs in
    phone.locator("#signin-pw").tap()
    phone.keyboard.type("not the password")
    phone.locator("#signin-form button[type=submit]").tap()
    wait_focus(phone, "signin-pw")
    assert "do not match" in phone.locator("#signin-error").inner_text()
    assert "signin-error" in (phone.locator("#signin-pw").get_attribute("aria-describedby") or "")
    assert phone.locator("#signin-pw").get_attribute("aria-invalid") == "true"
    assert phone.locator("#signin-pw").input_value() == ""
    phone.locator("#signin-pw").tap()
    phone.keyboard.type(PASSWORD)
    phone.locator("#signin-form button[type=submit]").tap()
    phone.wait_for_function(
        f"() => document.querySelector('#account-who').textContent.includes({name!r})")
    assert phone.locator("#signin-error").is_hidden()
    assert phone.evaluate("localStorage.getItem('nimmt.name')") == name
    # Both sessions are listed, this one said to be this device.
    phone.wait_for_function("() => document.querySelectorAll('#sessions-list li').length === 2")
    listed = sessions(phone)
    assert sum("This device" in s for s in listed) == 1
    assert all("127.0.0.1" in s for s in listed)
    axe(phone, "the account page of an account, on a phone")

    # The leaderboard lists the rated player; the name leads to their page and games.
    nav(phone, "leaderboard", tap=True)
    row = phone.locator("#board-body tr", has_text=name)
    row.wait_for()
    cells = row.locator("td").all_inner_texts()
    assert cells[0] == "1" or cells[0] == "2"
    # The cautious estimate, a number; how sure it is, in words; the rated games.
    assert re.fullmatch(r"-?\d+\.\d", cells[1]) and cells[2] == "not yet (few games)", cells
    assert cells[3] == "1", cells
    assert "1 to 2 of 2" in phone.locator("#board-caption").inner_text()
    axe(phone, "the leaderboard")
    row.locator("a").tap()
    phone.wait_for_selector("#view-player:not([hidden])")
    phone.wait_for_function("() => document.querySelectorAll('#player-games a').length === 1")
    assert phone.locator("#player-h").inner_text() == name
    facts = phone.locator("#player-facts").inner_text()
    assert "±" in facts and "Rated games" in facts and "How sure" in facts
    game = phone.locator("#player-games a")
    assert "rated" in phone.locator("#player-games li").inner_text()
    href = game.get_attribute("href") or ""
    assert re.fullmatch(r"#/history/\d+", href), href
    axe(phone, "a player's page")
    game.tap()
    phone.wait_for_selector("#replay:not([hidden])")
    # The history too is this player's, on this phone.
    assert phone.locator(f"#history-list a[href='{href}']").count() == 1

    # "Sign out everywhere else" from the phone: the desk's session ends, and it says so.
    nav(phone, "account", tap=True)
    phone.wait_for_function("() => document.querySelectorAll('#sessions-list li').length === 2")
    phone.locator("#out-others").tap()
    phone.wait_for_function("() => document.querySelectorAll('#sessions-list li').length === 1")
    desk.wait_for_selector("#account-note:not([hidden])")
    wait_focus(desk, "account-h")
    said(desk, "You were signed out")
    assert "signed out" in desk.locator("#account-note").inner_text()
    assert desk.evaluate("localStorage.getItem('nimmt.token')") is None
    assert desk.locator("#signin-form").is_visible()
    assert desk.locator("#account-own").is_hidden()
    assert desk.locator("#signin-name").input_value() == name
    # ... and signs in again, by keyboard.
    type_into(desk, "signin-pw", PASSWORD)
    desk.keyboard.press("Enter")
    desk.wait_for_function(
        f"() => document.querySelector('#account-who').textContent.includes({name!r})")
    wait_focus(desk, "account-h")
    said(desk, f"You are signed in as {name}.")
    assert desk.locator("#account-note").is_hidden()
    desk.wait_for_function("() => document.querySelectorAll('#sessions-list li').length === 2")

    # Sign out everywhere, after a confirmation: the phone, in its history, is sent to
    # the lobby, which asks for a name (or a sign-in).
    nav(phone, "history", tap=True)
    keyboard_to(desk, "out-all")
    desk.keyboard.press("Enter")
    wait_focus(desk, "out-all-yes")
    assert desk.locator("#out-all-confirm").is_visible()
    desk.keyboard.press("Enter")
    desk.wait_for_selector("#account-note:not([hidden])")
    phone.wait_for_selector("#view-lobby:not([hidden])")
    phone.wait_for_selector("#me-note:not([hidden])")
    assert "signed out" in phone.locator("#me-note").inner_text()
    # The name field takes focus, described by the sentence (a screen reader says both).
    wait_focus(phone, "me-name")
    assert "me-note" in (phone.locator("#me-name").get_attribute("aria-describedby") or "")
    assert phone.evaluate("localStorage.getItem('nimmt.token')") is None
    assert phone.locator("#me-account").is_visible()
    # Not stuck: a new name, and the phone plays on as a new guest.
    phone.keyboard.type(fresh_name("Anew"))
    phone.locator("#quick-play").tap()
    phone.wait_for_selector("#view-table:not([hidden])")
    phone.wait_for_function("() => !!localStorage.getItem('nimmt.token')")
    assert phone.locator("#me-note").is_hidden()


def test_a_ban_is_said_and_the_token_dropped(new_page: NewPage, account_data: Path) -> None:
    name = fresh_name("Banned")
    page = new_page()
    set_name(page, name)
    page.locator("#quick-play").focus()
    page.keyboard.press("Enter")
    page.wait_for_selector("#view-table:not([hidden])")
    done = subprocess.run(
        [*_nimmt(), "admin", "--data-dir", str(account_data), "--by", "test", "ban", name,
         "--reason", "a test"], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr
    # The server closes the connection within its signal poll: the page says why, drops
    # the token and the table, and the lobby asks for a name.
    page.wait_for_selector("#view-lobby:not([hidden])")
    page.wait_for_selector("#me-note:not([hidden])")
    assert "banned" in page.locator("#me-note").inner_text()
    wait_focus(page, "me-name")
    assert page.evaluate("localStorage.getItem('nimmt.token')") is None
    assert page.evaluate("localStorage.getItem('nimmt.table')") is None
    assert page.locator("#conn").inner_text() == "Signed out"


@pytest.mark.timeout(300)
def test_a_recovery_code_and_the_wait_after_guesses(new_page: NewPage) -> None:
    name = fresh_name("Lost")
    first = new_page()
    set_name(first, name)
    first.locator("#quick-play").focus()
    first.keyboard.press("Enter")
    # The game under way (while it is set up, each seat taken brings the table back).
    wait_turn(first, 0)
    nav(first, "account")
    first.locator("#claim-pw").fill(PASSWORD)
    first.locator("#claim-pw2").fill(PASSWORD)
    first.locator("#claim-form button[type=submit]").click()
    wait_focus(first, "codes-h")
    code = first.locator("#codes-list li").first.inner_text()

    # Another browser, the password forgotten: a wrong code, then the right one.
    other = new_page(lang="sr")
    nav(other, "account")
    type_into(other, "recover-name", name)
    type_into(other, "recover-code", "AAAA-BBBB-CCCC-DDDD")
    type_into(other, "recover-pw", "a new passphrase")
    type_into(other, "recover-pw2", "a new passphrase")
    other.keyboard.press("Enter")
    wait_focus(other, "recover-code")
    assert "lozink" in other.locator("#recover-error").inner_text()  # said in Serbian
    assert other.locator("#recover-code").get_attribute("aria-invalid") == "true"
    other.locator("#recover-code").fill(code.lower())  # case and dashes do not matter
    other.locator("#recover-code").focus()
    other.keyboard.press("Enter")
    other.wait_for_function(
        f"() => document.querySelector('#account-who').textContent.includes({name!r})")
    # Every earlier session ended: the first browser is told, and offered the sign-in.
    first.wait_for_selector("#account-note:not([hidden])")
    said(first, "signed out")
    assert "signed out" in first.locator("#account-note").inner_text()
    assert first.locator("#signin-form").is_visible()

    # Guesses at a name with no session here: the second is held back, with the wait.
    ghost = new_page()
    nav(ghost, "account")
    type_into(ghost, "signin-name", fresh_name("Ghost"))
    type_into(ghost, "signin-pw", "guess one")
    ghost.keyboard.press("Enter")
    ghost.wait_for_selector("#signin-error:not([hidden])")
    assert "do not match" in ghost.locator("#signin-error").inner_text()
    assert focused(ghost) == "signin-pw"
    # The second guess comes within the first wait on a busy machine too, or a later one
    # (each failure doubles the wait).
    for guess in range(2, 8):
        type_into(ghost, "signin-pw", f"guess {guess}")
        ghost.keyboard.press("Enter")
        # Answered: the password field is emptied (and keeps focus).
        ghost.wait_for_function("() => document.querySelector('#signin-pw').value === ''")
        if "Try again in" in ghost.locator("#signin-error").inner_text():
            break
    assert re.search(r"Too many failed sign-ins.*Try again in \d+ seconds?\.",
                     ghost.locator("#signin-error").inner_text())
    assert focused(ghost) == "signin-pw"
    assert not any("Too many" in text for _, text in announcements(ghost)), (
        "shown by its field, focused: not said twice")
