"""Steps the browser tests share: the lobby, seating bots, playing by keyboard.

Predicates of ``wait_for_function`` are written as functions (``"() => ..."``): the
server's Content-Security-Policy forbids ``eval``, and Playwright polls a bare
expression by evaluating its text in the page, while it calls a function as is.
"""

from __future__ import annotations

import itertools
import json
import time
import urllib.parse
import urllib.request
from collections.abc import Callable, Iterator
from typing import Any

_names = itertools.count(1)


#: The cards of the hand as a player sees them (a played card on its way out is not one).
HAND = ("[...document.querySelectorAll('#hand [role=option]:not(.leaving)')]"
        ".map(li => li.dataset.card)")


def fresh_name(prefix: str = "Ana") -> str:
    """A player name no other test uses (the server keeps names for good)."""
    return f"{prefix}{next(_names)}x{id(_names) % 997}"


def announcements(page: Any) -> list[tuple[str, str]]:
    return [tuple(a) for a in page.evaluate("window.__ann")]


def set_name(page: Any, name: str) -> None:
    page.locator("#me-name").focus()
    page.keyboard.type(name)


def relayed(through: Callable[[str | bytes], str | bytes | None] | None = None,
            ) -> tuple[list[Any], Callable[[Any], None]]:
    """A route for ``new_page(ws=...)`` that passes a page's WebSocket on to the server,
    and the list of the connections it passed (close one: the page's connection is lost).
    ``through`` sees each frame from the server first: it returns the frame to pass on
    (changed or not), or None to keep it back (the test sends it later, or never)."""
    routes: list[Any] = []

    def route(ws: Any) -> None:
        server = ws.connect_to_server()

        def from_server(message: str | bytes) -> None:
            passed = message if through is None else through(message)
            if passed is not None:
                ws.send(passed)

        server.on_message(from_server)
        ws.on_message(server.send)
        routes.append(ws)

    return routes, route


def open_menu(page: Any) -> None:
    """On a phone, tap the menu's button to show the main navigation (shown elsewhere)."""
    toggle = page.locator("#nav-toggle")
    if toggle.is_visible() and toggle.get_attribute("aria-expanded") != "true":
        toggle.tap()
        page.wait_for_selector("nav a[href='#/']", state="visible")


def open_options(page: Any) -> None:
    """Open the lobby's "More options" (the whole rule set) by keyboard, unless it is open."""
    if page.evaluate("() => document.getElementById('more-options').open"):
        return
    page.locator("#more-options > summary").focus()
    page.keyboard.press("Enter")
    page.wait_for_function("() => document.getElementById('more-options').open")


def create_table(page: Any, *, players: int = 3, rounds: int | None = 1, bots: int = 2,
                 timer: str = "", start: bool = True, strength: str = "easy") -> str:
    """Create a table by keyboard from the lobby (its rules under "More options"); seat
    ``bots`` bots (easy ones unless told); start it."""
    open_options(page)
    page.locator("#c-players").fill(str(players))
    if rounds is not None:
        page.locator("input[name=end][value=rounds]").check()
        page.locator("#c-rounds").fill(str(rounds))
    if timer:
        page.locator("#c-timer").select_option(timer)
    page.locator("#create-form button[type=submit]").focus()
    page.keyboard.press("Enter")
    page.wait_for_selector("#view-table:not([hidden])")
    page.wait_for_function("() => document.querySelector('#table-h').textContent.includes('(')")
    code = page.evaluate("localStorage.getItem('nimmt.table')")
    page.locator("#bot-strength").select_option(strength)
    for k in range(bots):
        page.locator("#add-bot").focus()
        page.keyboard.press("Enter")
        page.wait_for_function(
            "() => [...document.querySelectorAll('#seat-list li')]"
            f".filter(li => li.textContent.includes('bot')).length >= {k + 1}"
        )
    if start:
        start_game(page)
    return str(code)


def join_by_code(host: Any, guest: Any, code: str) -> None:
    """``guest`` joins ``host``'s table by its code; waits until the host sees every seat taken."""
    guest.locator("#join-code").fill(code)
    guest.locator("#join-form button[type=submit]").click()
    host.wait_for_function("() => [...document.querySelectorAll('#seat-list li')]"
                           ".every(li => !li.textContent.includes('empty'))")


def two_at_a_table(new_page: Any, *, rounds: int | None = 1, timer: str = "",
                   guest_lang: str | None = None) -> tuple[Any, Any, str]:
    """Two browsers seated at a table of two (not started): the host's page, the
    guest's page, the table's code."""
    host = new_page()
    set_name(host, fresh_name("Host"))
    code = create_table(host, players=2, rounds=rounds, bots=0, timer=timer, start=False)
    guest = new_page(lang=guest_lang)
    set_name(guest, fresh_name("Guest"))
    join_by_code(host, guest, code)
    return host, guest, code


def start_game(page: Any) -> None:
    page.locator("#start-game").focus()
    page.keyboard.press("Enter")
    wait_turn(page, 0)


def assertive_count(page: Any) -> int:
    return int(page.evaluate("window.__ann.filter(a => a[0] === 'assertive').length"))


def wait_turn(page: Any, seen: int) -> str:
    """Wait for a new decision (a new assertive announcement) or the results; say which."""
    page.wait_for_function(
        f"""() => window.__ann.filter(a => a[0] === 'assertive').length > {seen}
            || document.activeElement === document.querySelector('#standings-h')""",
        timeout=60_000,
    )
    if over(page):
        return "over"
    if page.evaluate("document.querySelector('#row-dialog').open"):
        return "row"
    return "card"


def play_by_keyboard(page: Any, *, on_turn: Any = None,
                     max_turns: int = 400) -> list[dict[str, Any]]:
    """Play until the results by keyboard alone: Enter on the focused card, Enter in the
    row dialog. Returns what each decision looked like (focus, kind)."""
    seen = 0
    steps: list[dict[str, Any]] = []
    for _ in range(max_turns):
        kind = wait_turn(page, seen)
        if kind == "over":
            return steps
        seen = assertive_count(page)
        focus = page.evaluate(
            "(() => { const el = document.activeElement; return {role: el.getAttribute('role'),"
            " type: el.type, card: el.dataset.card, inDialog: !!el.closest('dialog')}; })()"
        )
        steps.append({"kind": kind, "focus": focus})
        if on_turn is not None:
            on_turn(page, kind)
        page.keyboard.press("Enter")
    raise AssertionError("the game did not end")


def over(page: Any) -> bool:
    """Whether the game is over and its final standings have taken focus (once the last
    step was said)."""
    return bool(page.evaluate(
        "() => document.activeElement === document.querySelector('#standings-h')"))


def open_results(page: Any) -> None:
    """From the final standings on the table to the results page, by its link."""
    page.locator("#standings-panel a").click()
    page.wait_for_selector("#view-results:not([hidden])")


#: The page's own record of what it received and when its screen changed (performance.now()).
RECORDER = """
window.__frames = [];
window.__marks = [];
const Native = window.WebSocket;
window.WebSocket = class extends Native {
  constructor(...args) {
    super(...args);
    this.addEventListener("message", (e) => {
      try { window.__frames.push([performance.now(), JSON.parse(e.data)]); } catch (_) {}
    });
  }
};
// Each time the page scrolls: how far, and what had focus (a scroll is a fault to explain).
window.__scrolls = [];
addEventListener("scroll", () => {
  const el = document.activeElement;
  window.__scrolls.push([Math.round(performance.now()), scrollY,
                         el ? el.id || el.tagName : null]);
}, true);
document.addEventListener("DOMContentLoaded", () => {
  let rows = false;
  let over = false;
  new MutationObserver(() => {
    const choosing = !!document.querySelector("#rows.choosing li.choosable");
    if (choosing && !rows) window.__marks.push(["rows", performance.now()]);
    rows = choosing;
    const shown = !document.getElementById("standings-panel").hidden;
    if (shown && !over) window.__marks.push(["standings", performance.now()]);
    over = shown;
  }).observe(document.body, {subtree: true, childList: true, attributes: true,
                             attributeFilter: ["class", "hidden"]});
});
"""

#: The decision the server asks of this page now (the newest frame that says), if any;
#: "over" once a frame ended the game.
ASKED = """() => {
  for (let i = window.__frames.length - 1; i >= 0; i--) {
    const m = window.__frames[i][1];
    if (m.type !== "events" && m.type !== "table_state") continue;
    const over = (m.view && m.view.phase === "over") || (m.table && m.table.status === "over");
    if (over) return "over";
    return m.prompt ? m.prompt.key + " " + m.prompt.kind : "";
  }
  return "";
}"""


def decisions(page: Any) -> Iterator[str]:
    """Each new decision the server asks of ``page`` (``"<key> card"``, ``"<key> row"``),
    read from the frames :data:`RECORDER` keeps, until a frame ends the game."""
    answered: set[str] = set()
    while True:
        page.wait_for_function(
            f"() => {{ const a = ({ASKED})(); return a === 'over' || "
            f"(a !== '' && !{json.dumps(sorted(answered))}.includes(a)); }}", timeout=120_000)
        asked = str(page.evaluate(ASKED))
        if asked == "over":
            return
        answered.add(asked)
        yield asked


def oracle(page: Any) -> dict[str, Any]:
    """What the server says of ``page``'s seat now (``/api/speech``): its view and the
    sheet of its shortcuts' sentences, in the page's language (the answers a key must
    give, from the server rather than from the page)."""
    token, code, lang = page.evaluate(
        "() => [localStorage.getItem('nimmt.token'), localStorage.getItem('nimmt.table'),"
        " document.documentElement.lang]")
    base = urllib.parse.urlsplit(page.url)
    probe = f"{base.scheme}://{base.netloc}/api/speech/{code}?lang={lang}"
    with urllib.request.urlopen(urllib.request.Request(
            probe, headers={"X-Nimmt-Token": token}), timeout=30) as res:
        seq = json.load(res)["seq"]
    with urllib.request.urlopen(urllib.request.Request(
            f"{probe}&after={seq}&upto={seq}", headers={"X-Nimmt-Token": token}),
            timeout=30) as res:
        data: dict[str, Any] = json.load(res)
    return data



def taken(page: Any, asked: Any, timeout: float = 60.0) -> None:
    """Wait until the server no longer asks ``page``'s seat the decision ``asked`` (the
    ``pending`` of :func:`oracle`): the page closes a dialog as it sends the answer, and
    the server takes it a moment later (longer on a busy machine)."""
    deadline = time.monotonic() + timeout
    while (now := oracle(page)["view"]["pending"]) == asked:
        assert time.monotonic() < deadline, f"the server still asks {now} after {timeout} s"
        page.wait_for_timeout(100)

#: The cards this page chose, in order, from the frames :data:`RECORDER` keeps: the
#: ``card_chosen`` events of its own seat (which carry the card for it alone).
MY_CHOICES = """() => {
  const out = [];
  let you = null;
  for (const [, m] of window.__frames) {
    if (m.type === "table_state") you = m.you;
    if (m.type !== "events") continue;
    for (const it of m.items || []) {
      if (it.kind === "event" && it.event.type === "card_chosen" && it.event.player === you
          && it.event.card !== null && it.event.card !== undefined) out.push(it.event.card);
    }
  }
  return out;
}"""


#: What key R says: the narration of the last frame that revealed cards ("" before one).
LAST_REVEAL = """() => {
  for (let i = window.__frames.length - 1; i >= 0; i--) {
    const m = window.__frames[i][1];
    if (m.type === "events" && (m.items || []).some(
        (it) => it.kind === "event" && it.event.type === "cards_revealed")) {
      return (m.text || []).join(" ");
    }
  }
  return "";
}"""


#: A script's function that merges an events frame's view change into the view a page
#: holds, as the client does (docs/protocol.md): field by field, a reveal's turn appended.
MERGE_VIEW = """const mergeView = (view, change) => {
  const {revealed_added: added, ...changed} = change;
  const out = {...view, ...changed};
  if (added) out.revealed = [...out.revealed, ...added];
  return out;
};"""
