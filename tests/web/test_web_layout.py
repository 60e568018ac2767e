"""The table's layout: nothing overlaps, nothing is cut off, in every state, at every size.

Whole games are played in three languages and at two sizes of table (two and ten
players, jokers so that a row is asked): at each state (the seating, a card to choose,
a row to choose, the reveal while its cards move, a round's end with its score sheet,
the final standings, the results, a replay) the page is drawn at 1280×800, 1920×1080,
390×844 and 360×640 (the reveal's moves at the size the game is played at: they are
timed) and shot to ``build/screenshots/layout-*.png``. In each shot the visible parts
that mean something (headings, buttons, the status and the timer, the seats, the rows,
every card, the score sheet and its chart, the standings and the replay's rows) are
measured: no two may overlap (a part inside another, a card in its row or a seat, is
not an overlap), none may reach past the screen's sides or be wider than its box, and
the page may not scroll sideways. The copies of cards that fly during the reveal are
decorations and pass over the rest. An open row dialog is a layer of its own; on a wide
screen it may not cover the rows it asks about (on a narrow one it shows their cards).

``test_a_broken_layout_is_found`` shows the check failing: seats drawn over the rows, and
rows wider than the screen, are both found.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from .conftest import QUOTAS, NewPage, _pages, _serve
from .helpers import MERGE_VIEW, RECORDER, decisions, fresh_name, open_options

BUILD = Path(__file__).resolve().parents[2] / "build" / "screenshots"

SIZES = [(1280, 800), (1920, 1080), (390, 844), (360, 640)]

#: The parts that mean something on the table, the results and the replay.
PARTS = ", ".join([
    "#view-table h1", "#table-rules", "#hints-tool", "#status", "#timer", "#table-keys",
    ".seat", "#rows > li", ".card", "#view-table h2", "#view-table h3",
    "#view-table button", "#view-table summary", "#seat-list > li", "#sheet",
    "#sheet-moment", "#standings > li", "#standings-winner", "#rows-help",
    "#view-results h1", "#view-results h2", "#results-summary", "#view-results table",
    "#view-results button", "#view-results a", ".chart-svg", "#view-history h1",
    "#replay h2", "#replay h3", "#replay button", "#replay-rows > li", "#replay-scores > li",
    "#replay-pos", "#replay-text > p", "#row-dialog h2", "#row-dialog label",
    "#row-dialog button",
])

#: Every fault of the layout now: overlapping parts, parts cut off at the sides or wider
#: than their box, a page that scrolls sideways.
CHECK = """(parts) => {
  const width = document.documentElement.clientWidth;
  const dialog = document.querySelector("dialog[open]");
  // Inside a box of a pixel that hides what overflows it: for the ear only (sr-only).
  const unseen = (el) => {
    for (let up = el; up; up = up.parentElement) {
      const r = up.getBoundingClientRect();
      const tiny = r.width <= 2 || r.height <= 2;
      if (tiny && getComputedStyle(up).overflow !== "visible") return true;
    }
    return false;
  };
  const shown = [...document.querySelectorAll(parts)].filter((el) => {
    if (el.closest("[hidden], .ghost") || !el.getClientRects().length) return false;
    if (!el.checkVisibility({opacityProperty: true, visibilityProperty: true})) return false;
    const r = el.getBoundingClientRect();
    return r.width > 2 && r.height > 2 && !unseen(el);
  });
  const name = (el) => {
    const id = el.id ? "#" + el.id : "";
    const cls = el.classList.length ? "." + [...el.classList].join(".") : "";
    const text = (el.getAttribute("aria-label") || el.textContent || "").trim().slice(0, 30);
    return `${el.tagName.toLowerCase()}${id}${cls} "${text}"`;
  };
  const faults = [];
  const boxes = shown.map((el) => [el, el.getBoundingClientRect()]);
  for (const [el, r] of boxes) {
    if (r.left < -1 || r.right > width + 1) {
      const span = `${Math.round(r.left)}..${Math.round(r.right)}`;
      faults.push(`cut off: ${name(el)} spans ${span} of ${width}`);
    }
    // Clipped by a box that scrolls or hides what overflows it.
    for (let up = el.parentElement; up && up !== document.body; up = up.parentElement) {
      const o = getComputedStyle(up).overflowX;
      if (o === "visible") continue;
      const b = up.getBoundingClientRect();
      if (r.left < b.left - 1 || r.right > b.right + 1) {
        faults.push(`cut off: ${name(el)} by ${name(up)}`);
      }
      break;
    }
    if (["BUTTON", "H1", "H2", "H3", "LI", "P", "SUMMARY"].includes(el.tagName)
        && getComputedStyle(el).overflowX === "visible" && el.scrollWidth > el.clientWidth + 1) {
      faults.push(`wider than its box: ${name(el)} (${el.scrollWidth} > ${el.clientWidth})`);
    }
  }
  for (let i = 0; i < boxes.length; i++) {
    for (let j = i + 1; j < boxes.length; j++) {
      const [a, ra] = boxes[i];
      const [b, rb] = boxes[j];
      if (a.contains(b) || b.contains(a)) continue;
      // An open modal dialog is a layer of its own.
      if (dialog && dialog.contains(a) !== dialog.contains(b)) continue;
      const w = Math.min(ra.right, rb.right) - Math.max(ra.left, rb.left);
      const h = Math.min(ra.bottom, rb.bottom) - Math.max(ra.top, rb.top);
      const area = `${Math.round(w)}×${Math.round(h)} px`;
      if (w > 1 && h > 1) faults.push(`overlap: ${name(a)} and ${name(b)} (${area})`);
    }
  }
  // On a wide screen the row dialog stands beside the rows; on a narrow one it shows
  // each row's cards itself.
  if (dialog && width >= 960) {
    const d = dialog.getBoundingClientRect();
    for (const row of document.querySelectorAll("#rows > li")) {
      const r = row.getBoundingClientRect();
      const w = Math.min(r.right, d.right) - Math.max(r.left, d.left);
      const h = Math.min(r.bottom, d.bottom) - Math.max(r.top, d.top);
      if (w > 1 && h > 1) {
        faults.push(`the row dialog covers ${name(row)}`);
      }
    }
  }
  if (document.scrollingElement.scrollWidth > width + 1) {
    faults.push(`the page scrolls sideways: ${document.scrollingElement.scrollWidth} > ${width}`);
  }
  return faults;
}"""


#: The totals of the sheet's last line on the table, seat by seat.
SHEET_TOTALS = """() => [...document.querySelectorAll('#sheet tbody tr:last-child .sheet-total')]
  .map((td) => Number(td.textContent))"""

#: The newest view the page received (the last table_state's, with the changes since).
VIEW = """() => {
  """ + MERGE_VIEW + """
  let view = null;
  for (const [, m] of window.__frames) {
    if (m.type === "table_state") view = m.view ? {...m.view} : null;
    else if (m.view && view) view = mergeView(view, m.view);
  }
  return view;
}"""


@pytest.fixture(scope="module")
def layout_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A server at a test's pace, but with the pause after a round's end (long enough to
    shoot it at every size) and the timers' listening time (so the timer shows it)."""
    env = dict(os.environ, **QUOTAS, NIMMT_BOT_SECONDS="0.05", NIMMT_DISCONNECT_GRACE="60",
               NIMMT_REVEAL_PACE="0", NIMMT_ROUND_PAUSE="8", NIMMT_LISTEN_CPS="17")
    yield from _serve(tmp_path_factory.mktemp("web-layout"), env)


@pytest.fixture
def layout_page(browser: Any, layout_server: str) -> Iterator[NewPage]:
    yield from _pages(browser, layout_server)


class Shots:
    """Shoots a page's states at every size and keeps the faults found."""

    def __init__(self, page: Any, label: str, size: tuple[int, int]) -> None:
        self.page = page
        self.label = label
        #: The size the game is played at, and the page's size now.
        self.size = size
        self.now = size
        self.faults: list[str] = []
        self.taken: list[str] = []
        BUILD.mkdir(parents=True, exist_ok=True)

    def check(self, state: str, sizes: list[tuple[int, int]] | None = None) -> None:
        """Shoot ``state`` at ``sizes`` (all four by default; the reveal's moves end first
        unless only the game's size is shot), then go back to the game's."""
        if sizes is None:
            self.page.wait_for_function(
                "() => !document.querySelector('.ghost, .card.arriving')")
            self.page.evaluate("() => window.scrollTo(0, 0)")  # the page from its top
        for width, height in sizes if sizes is not None else SIZES:
            self.resize((width, height))
            name = f"layout-{self.label}-{state}-{width}x{height}.png"
            # The table as it fits the screen; the results and the replay whole.
            self.page.screenshot(path=str(BUILD / name), full_page=state in ("results", "replay"))
            self.taken.append(name)
            self.faults += [f"{name}: {f}" for f in self.page.evaluate(CHECK, PARTS)]
        self.resize(self.size)

    def resize(self, size: tuple[int, int]) -> None:
        if size == self.now:
            return
        self.page.set_viewport_size({"width": size[0], "height": size[1]})
        self.now = size
        # Two frames: the layout of the new size is done.
        self.page.evaluate("() => new Promise((go) => requestAnimationFrame(() => "
                           "requestAnimationFrame(go)))")


def open_table(page: Any, players: int, rounds: int) -> None:
    """A table of ``players`` (easy bots beside the player, jokers, ``rounds`` rounds, a
    60 s timer), its seats filled, not started."""
    page.locator("#me-name").fill(fresh_name("Ana"))
    open_options(page)
    page.locator("#c-players").fill(str(players))
    page.locator("input[name=end][value=rounds]").check()
    page.locator("#c-rounds").fill(str(rounds))
    page.locator("input[name=variant][value=jokers]").check()
    page.locator("#c-timer").select_option("60")
    page.locator("#create-form button[type=submit]").click()
    page.wait_for_selector("#view-table:not([hidden])")
    page.locator("#bot-strength").select_option("easy")
    for k in range(players - 1):
        page.locator("#add-bot").click()
        page.wait_for_function(
            "(n) => document.querySelectorAll('#seat-list li').length === n[0] && "
            "[...document.querySelectorAll('#seat-list li')].filter("
            "(li) => li.querySelector('bdi')).length >= n[1]", arg=[players, k + 2])


def play_card(page: Any, joker: bool) -> None:
    """Play the joker (the lowest card: a row is asked) or the hand's highest card (so
    that rows fill and are taken), by keyboard: focus on it, Enter."""
    page.wait_for_selector("#hand:not(.waiting) li:not(.leaving)")
    cards = page.locator("#hand li:not(.leaving)")
    (cards.first if joker else cards.last).focus()
    page.keyboard.press("Enter")


def take_row(page: Any) -> None:
    """Take a row: in the row dialog if it is open (Enter on its choice), else a click on
    the table's first row that may be taken."""
    page.wait_for_selector("#rows.choosing li.choosable")
    if page.evaluate("() => document.getElementById('row-dialog').open"):
        page.keyboard.press("Enter")
    else:
        page.locator("#rows li.choosable").first.click()


def play_game(page: Any, shots: Shots, players: int) -> None:
    """Play two rounds, shooting each state as it comes."""
    open_table(page, players, rounds=2)
    shots.check("seating")
    page.locator("#start-game").click()
    state = {"card": False, "row": False, "reveal": False, "end": False}

    def round_end() -> None:
        """Shoot the first round's end (once its last card, or the row it asked, is played)."""
        page.wait_for_function("() => document.querySelector('#game.moment') || "
                               "document.querySelector('#rows.choosing li.choosable')")
        if not state["end"] and page.evaluate("() => !!document.querySelector('#game.moment')"):
            page.wait_for_selector("#sheet-panel:not([hidden]) #sheet tbody tr")
            # The sheet's line is the round's totals, as the view has them.
            totals = page.evaluate(SHEET_TOTALS)
            assert totals == page.evaluate(VIEW)["scores"], totals
            shots.check("round-end")
            state["end"] = True

    for asked in decisions(page):
        key, kind = asked.split(" ")
        round_no, turn = key.split(".")[1:3]  # game.round.turn.card, game.round.turn.row.seat
        if kind == "row":
            page.wait_for_selector("#rows.choosing li.choosable")
            if not state["row"]:
                # The dialog opens once the reveal that led to it has been said.
                page.wait_for_selector("#row-dialog[open]")
                shots.check("row")
                state["row"] = True
            take_row(page)
            if (round_no, turn) == ("1", "10"):
                round_end()
            continue
        page.wait_for_selector("#hand:not(.waiting) li:not(.leaving)")
        if not state["card"]:
            shots.check("choose")
            state["card"] = True
        play_card(page, joker=not state["row"])
        if not state["reveal"] and state["row"]:
            # The next reveal, while its cards fly from the seats to the rows.
            page.wait_for_function("() => document.querySelector('.ghost')")
            shots.check("reveal", [shots.size])
            state["reveal"] = True
        if (round_no, turn) == ("1", "10"):
            round_end()
    page.wait_for_selector("#standings-panel:not([hidden])")
    shots.check("over")
    # Come back to the table: its table_state brings the whole sheet.
    page.reload()
    page.wait_for_function("() => document.querySelectorAll('#sheet tbody tr').length === 2")
    assert page.evaluate(SHEET_TOTALS) == page.evaluate(VIEW)["scores"]
    page.locator("#standings-panel a").click()
    page.wait_for_selector("#view-results:not([hidden])")
    page.wait_for_selector("#results-sheet-panel:not([hidden]) svg")
    shots.check("results")
    game = page.evaluate("""async () => {
      const code = localStorage.getItem("nimmt.table");
      const data = await (await fetch(`/api/tables/${code}/games`)).json();
      return data.games[data.games.length - 1].id;
    }""")
    page.evaluate(f"() => {{ location.hash = '#/history/{game}'; }}")
    page.wait_for_selector("#replay:not([hidden])")
    for _ in range(5):
        page.locator("#replay-next").click()
    shots.check("replay")
    assert state["row"] and state["reveal"] and state["end"], state


GAMES = [
    # label, language, players, the size the game is played at, card size
    ("en-10", "en", 10, (1280, 800), None),
    ("sr-2", "sr", 2, (390, 844), None),
    ("cs-10", "cs", 10, (360, 640), "large"),
    ("cs-2", "cs", 2, (1920, 1080), "small"),
]


@pytest.mark.timeout(300)
@pytest.mark.parametrize(("label", "lang", "players", "size", "cards"), GAMES,
                         ids=[g[0] for g in GAMES])
def test_nothing_overlaps_in_any_state(layout_page: NewPage, label: str, lang: str,
                                       players: int, size: tuple[int, int],
                                       cards: str | None) -> None:
    script = RECORDER + (f"localStorage.setItem('nimmt.cards', '{cards}');" if cards else "")
    page = layout_page(width=size[0], height=size[1], lang=lang, motion=True, script=script)
    shots = Shots(page, label, size)
    play_game(page, shots, players)
    (BUILD / f"layout-{label}.json").write_text(json.dumps(
        {"shots": shots.taken, "faults": shots.faults}, indent=1))
    assert not shots.faults, "\n".join(shots.faults[:40])


@pytest.mark.timeout(300)
def test_the_timer_shows_the_tables_own_seconds(layout_page: NewPage) -> None:
    """At a 60 s table with the listening time, the timer never shows more than 60 s: the
    listening time shows beside it, L says both, and the rules line names it."""
    page = layout_page(width=1280, height=800, script=RECORDER)
    open_table(page, 2, rounds=1)
    page.locator("#start-game").click()
    page.wait_for_selector("#timer:not([hidden])")
    frames = page.evaluate("() => window.__frames.map(([, m]) => m.prompt && m.prompt.seconds)")
    assert max(s for s in frames if s) > 60, "the deal's narration gives a listening time"
    assert int(page.locator("#timer-s").inner_text()) == 60
    listen = page.locator("#timer-listen")
    assert listen.is_visible() and listen.inner_text().startswith("+"), listen.inner_text()
    assert "after up to 60 s to hear what happened" in page.locator("#table-rules").inner_text()
    page.locator("#hand li").first.focus()
    page.keyboard.press("l")
    page.wait_for_function("() => window.__ann.some((a) => / s to hear what happened/.test(a[1]))")
    # Once the listening time is over the table's seconds run.
    page.wait_for_function("() => document.getElementById('timer-listen').hidden", timeout=90_000)
    page.wait_for_function("() => Number(document.getElementById('timer-s').textContent) < 60")


@pytest.mark.timeout(300)
def test_the_card_size_setting_scales_the_cards(layout_page: NewPage) -> None:
    """Settings → Card size, saved, makes every card larger or smaller at once; a phone's
    rows keep their six places on the screen whatever the size."""
    page = layout_page(width=1280, height=800, script=RECORDER)
    open_table(page, 3, rounds=1)
    page.locator("#start-game").click()
    page.wait_for_selector("#hand:not(.waiting) li:not(.leaving)")
    width = "() => document.querySelector('#rows .card').getBoundingClientRect().width"
    sizes = {}
    for size in ("small", "large", "medium"):
        page.evaluate("() => { location.hash = '#/settings'; }")
        page.wait_for_selector("#view-settings:not([hidden])")
        page.locator("#set-cards").select_option(size)
        page.locator("#settings-form button[type=submit]").click()
        page.evaluate("() => history.back()")
        page.wait_for_selector("#view-table:not([hidden]) #rows .card")
        sizes[size] = page.evaluate(width)
    assert sizes["small"] < sizes["medium"] < sizes["large"], sizes
    assert page.evaluate("() => localStorage.getItem('nimmt.cards')") == "medium"
    page.set_viewport_size({"width": 360, "height": 640})
    # Large cards on a small phone: the rows still fit the screen.
    page.evaluate("() => localStorage.setItem('nimmt.cards', 'large')")
    page.reload()
    page.wait_for_selector("#rows .slot.sixth")
    assert page.evaluate("() => Math.max(...[...document.querySelectorAll('#rows .slot.sixth')]"
                         ".map((s) => s.getBoundingClientRect().right))") <= 360
    assert page.evaluate(CHECK, PARTS) == []


@pytest.mark.timeout(300)
def test_a_broken_layout_is_found(layout_page: NewPage) -> None:
    """The check finds what it is for: seats drawn over the rows overlap them, and rows
    wider than the screen are cut off (and scroll the page sideways)."""
    page = layout_page(width=1280, height=800, script=RECORDER)
    open_table(page, 4, rounds=1)
    page.locator("#start-game").click()
    page.wait_for_selector("#hand:not(.waiting) li:not(.leaving)")
    assert page.evaluate(CHECK, PARTS) == []
    # A played card on its way out of a waiting hand (the cards after it close up over
    # its place) is unseen: never found overlapping them.
    opacity = page.evaluate("""() => {
      const hand = document.getElementById('hand');
      hand.classList.add('waiting');
      const card = hand.querySelector('li');
      card.classList.add('leaving');
      return getComputedStyle(card).opacity;
    }""")
    assert opacity == "0" and page.evaluate(CHECK, PARTS) == []
    page.evaluate("() => { const hand = document.getElementById('hand'); "
                  "hand.classList.remove('waiting'); "
                  "hand.querySelector('li').classList.remove('leaving'); }")
    # The page's policy takes no style sheet from outside: the broken styles are set on the
    # elements themselves.
    page.evaluate("() => document.querySelectorAll('.seat').forEach("
                  "(s) => { s.style.transform = 'translateY(6rem)'; })")
    found = page.evaluate(CHECK, PARTS)
    assert any(f.startswith("overlap") and "li.seat" in f for f in found), found
    page.evaluate("() => { document.querySelectorAll('.seat').forEach("
                  "(s) => { s.style.transform = ''; }); "
                  "document.getElementById('rows').style.width = '160vw'; }")
    found = page.evaluate(CHECK, PARTS)
    assert any(f.startswith("cut off") for f in found), found
    assert any(f.startswith("the page scrolls sideways") for f in found), found
    BUILD.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(BUILD / "layout-broken.png"))
