"""Whole games by mouse alone and by touch alone, at the settings a newcomer gets.

The server runs at its default pace (the bots' time, the pause after a reveal, the
timers' listening time), the table has a 30 s turn timer, the page keeps its own voice
pace and animates (no reduced motion): nothing here is sped up. The player only clicks
(a desktop, 1280×800) or only taps (a phone, 390×844); text fields are filled as a
keyboard on the screen would. What the server asked is read from the WebSocket frames
the page received (with their arrival times), what the player sees from the page.

At every decision: the row choice is clickable within a second of the frame that asked
for it (the voice may still be speaking: the screen never waits for it), every card of
the turn's reveal is shown with its player, each player's bullheads are the view's
totals, the turn timer shows, and the status, the rows and the hand fit the screen
without scrolling. At the end, the final standings show within two seconds of the frame
that ended the game. Screenshots of each state go to ``build/screenshots/``.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from .conftest import NewPage
from .helpers import MERGE_VIEW, MY_CHOICES, RECORDER, decisions, fresh_name

BUILD = Path(__file__).resolve().parents[2] / "build"

#: The newest view (a table state's whole view, merged with the changes events
#: carry since), and the plays of the newest reveal, from the frames.
LATEST = """() => {
  """ + MERGE_VIEW + """
  let view = null, plays = null;
  for (const [, m] of window.__frames) {
    if (m.type === "table_state") view = m.view ? {...m.view} : null;
    else if (m.view && view) view = mergeView(view, m.view);
    if (m.type === "events") {
      for (const it of m.items || []) {
        if (it.kind === "event" && it.event.type === "cards_revealed") plays = it.event.plays;
      }
    }
  }
  return {view, plays};
}"""

#: The screen at this moment: the visible parts and where they are.
SCREEN = """() => {
  const box = (sel) => {
    const el = document.querySelector(sel);
    if (!el || el.closest("[hidden]") || !el.getClientRects().length) return null;
    const r = el.getBoundingClientRect();
    return {top: r.top, bottom: r.bottom, left: r.left, right: r.right};
  };
  return {
    status: box("#status"), rows: box("#rows"), hand: box("#hand"),
    height: innerHeight, width: innerWidth, scrolled: scrollY,
    handCards: document.querySelectorAll("#hand li:not(.leaving)").length,
    timer: document.getElementById("timer").hidden ? null
      : document.getElementById("timer-s").textContent,
    players: [...document.querySelectorAll("#players li")].map((li) => li.textContent),
    // Each card of the turn where the eye finds it: in its player's seat (a wide screen)
    // or in the list of the turn's cards (a narrow one, where the list is not for the ear
    // alone), with its player's name.
    reveal: [...document.querySelectorAll("#reveal li")].map((li) => {
      const card = Number(li.dataset.card);
      const inSeat = document.querySelector(`.seat-play[data-card="${card}"]`);
      const el = [inSeat, li].find((e) => e && e.getBoundingClientRect().width > 4);
      const r = el ? el.getBoundingClientRect() : null;
      const who = !el ? "" : el === li ? li.querySelector(".who").textContent
        : el.closest(".seat").querySelector(".seat-name").textContent;
      return {card, who, seen: !!r && r.bottom > 0 && r.top < innerHeight};
    }),
  };
}"""


class Player:
    """A mouse or touch player: ``press`` is a click or a tap."""

    def __init__(self, page: Any, touch: bool, label: str) -> None:
        self.page = page
        self.touch = touch
        self.label = label
        self.faults: list[str] = []
        self.shots: set[str] = set()
        #: Once the game has started: everything it needs is on the screen.
        self.playing = False

    def press(self, selector: str) -> None:
        """Click or tap the middle of what ``selector`` shows, where the player sees it: a
        target off the screen is a fault (the page is scrolled to it then, as a player
        would, to go on)."""
        loc = self.page.locator(selector).first
        loc.wait_for(state="visible")
        box = loc.bounding_box()
        view = self.page.viewport_size
        if (box is None or box["y"] < 0 or box["y"] + box["height"] > view["height"]
                or box["x"] + box["width"] > view["width"]):
            if self.playing:
                self.faults.append(f"{selector} is off the screen ({box}) after "
                                   f"{self.page.evaluate('window.__scrolls.slice(-3)')}")
            # The lobby's form is longer than a screen: the player scrolls to it.
            loc.scroll_into_view_if_needed()
            box = loc.bounding_box()
        assert box is not None
        x, y = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
        if self.touch:
            self.page.touchscreen.tap(x, y)
        else:
            self.page.mouse.click(x, y)

    def play(self, selector: str) -> None:
        """Click or tap the card ``selector`` once: it is played (the server hears this
        seat's choice)."""
        chosen = len(self.page.evaluate(MY_CHOICES))
        self.press(selector)
        self.page.wait_for_function(f"() => ({MY_CHOICES})().length > {chosen}")

    def shot(self, state: str) -> None:
        if state in self.shots:
            return
        self.shots.add(state)
        out = BUILD / "screenshots"
        out.mkdir(parents=True, exist_ok=True)
        self.page.screenshot(path=str(out / f"pointer-{self.label}-{state}.png"))

    def check_screen(self, when: str) -> None:
        """The screen as a player sees it at a decision (see the module's docstring)."""
        s = self.page.evaluate(SCREEN)
        latest = self.page.evaluate(LATEST)
        view, plays = latest["view"], latest["plays"]
        if s["scrolled"]:
            self.shot(f"fault-{when.replace(' ', '-')}")
            scrolls = self.page.evaluate("window.__scrolls.slice(-4)")
            self.faults.append(f"{when}: the page is scrolled by {s['scrolled']} px "
                               f"(the last scrolls: [ms, px, focus] {scrolls})")
        for part in ("status", "rows", "hand"):
            if part == "hand" and not s["handCards"]:
                continue
            b = s[part]
            if b is None or b["top"] < 0 or b["bottom"] > s["height"] or b["right"] > s["width"]:
                self.faults.append(f"{when}: {part} not on the screen ({b}, "
                                   f"{s['width']}×{s['height']})")
        if plays:
            shown = {r["card"]: r for r in s["reveal"]}
            for _, card in plays:
                if card not in shown or not shown[card]["seen"] or not shown[card]["who"]:
                    self.faults.append(f"{when}: revealed card {card} not shown ({s['reveal']})")
        if view:
            for i, text in enumerate(s["players"]):
                # Once the game is over, the scores hold the last round too.
                over = view["phase"] == "over"
                total = view["scores"][i] + (0 if over else view["penalties"][i])
                if f": {total} " not in text:
                    self.faults.append(f"{when}: player {i} shows {text!r}, total {total}")
        if when != "over" and not s["timer"]:
            self.faults.append(f"{when}: no turn timer shown")


def start(p: Player, players: int) -> None:
    """Create a table of ``players`` (easy bots beside the player, one round, a 30 s
    timer) by pointer alone, and start the game."""
    page = p.page
    page.locator("#me-name").fill(fresh_name("Pointer"))
    p.shot("lobby")
    p.press("#more-options > summary")
    p.shot("options")
    p.press("input[name=end][value=rounds]")
    page.locator("#c-rounds").fill("1")
    page.locator("#c-players").fill(str(players))
    page.locator("#c-timer").select_option("30")
    p.press("#create-form button[type=submit]")
    page.wait_for_selector("#view-table:not([hidden])")
    page.locator("#bot-strength").select_option("easy")
    for k in range(players - 1):
        p.press("#add-bot")
        page.wait_for_function(
            f"() => document.querySelectorAll('#seat-list li').length === {players} && "
            f"[...document.querySelectorAll('#seat-list li')].filter("
            f"li => !/empty|prazno|volné/.test(li.textContent)).length >= {k + 2}")
    p.shot("seating")
    p.press("#start-game")
    p.playing = True


def play(page: Any, touch: bool, label: str) -> dict[str, Any]:
    """Set up a table of four (three easy bots, one round, a 30 s timer) and play it to
    the end by pointer alone; the figures and faults."""
    p = Player(page, touch, label)
    start(p, 4)
    rows = cards = 0
    for asked in decisions(page):
        key, kind = asked.split(" ")
        if kind == "row":
            rows += 1
            page.wait_for_selector("#rows.choosing li.choosable")
            p.check_screen(f"row {key}")
            p.shot("row")
            p.press("#rows li.choosable")
        else:
            cards += 1
            page.wait_for_selector("#hand:not(.waiting) li:not(.leaving)")
            p.check_screen(f"card {key}")
            p.shot("card" if cards == 1 else "reveal")
            # The lowest card, so that row choices come: a tap or a click plays it (one-click
            # play, a newcomer's default).
            p.play("#hand:not(.waiting) li:not(.leaving)")
    page.wait_for_selector("#standings-panel:not([hidden])")
    p.check_screen("over")
    p.shot("over")
    figures = page.evaluate("""() => {
      const frames = window.__frames, marks = window.__marks;
      const after = (name, t) => (marks.find(([n, at]) => n === name && at >= t) || [0, null])[1];
      const waits = [];
      let asked = null;
      for (const [t, m] of frames) {
        const key = m.prompt && m.prompt.kind === "row" ? m.prompt.key : null;
        if (key && key !== asked) {
          const at = after("rows", t);
          waits.push(at === null ? null : at - t);
        }
        asked = key || asked;
      }
      const end = frames.find(([, m]) => m.view && m.view.phase === "over");
      const shown = end ? after("standings", end[0]) : null;
      return {row_waits_ms: waits, results_ms: end && shown !== null ? shown - end[0] : null};
    }""")
    # The results page, with the analysis, is a click or a tap away.
    p.press("#standings-panel a")
    page.wait_for_selector("#view-results:not([hidden])")
    p.shot("results")
    figures.update(rows=rows, cards=cards, faults=p.faults)
    return figures


def _check(label: str, figures: dict[str, Any]) -> None:
    out = BUILD / "web"
    out.mkdir(parents=True, exist_ok=True)
    (out / f"pointer-{label}.json").write_text(json.dumps(figures, indent=1))
    print(f"\n{label}: {json.dumps(figures)}")
    assert figures["cards"] == 10, figures
    assert not figures["faults"], "\n".join(figures["faults"])
    waits = figures["row_waits_ms"]
    assert all(w is not None and w <= 1000 for w in waits), waits
    assert figures["results_ms"] is not None and figures["results_ms"] <= 2000, figures


@pytest.mark.timeout(600)
def test_a_whole_game_by_mouse_alone(default_page: NewPage) -> None:
    page = default_page(width=1280, height=800, pace=None, motion=True, script=RECORDER)
    _check("desktop", play(page, touch=False, label="desktop"))


@pytest.mark.timeout(600)
def test_a_whole_game_by_touch_alone(default_page: NewPage) -> None:
    page = default_page(width=390, height=844, pace=None, motion=True, touch=True,
                        script=RECORDER)
    _check("phone", play(page, touch=True, label="phone"))


@pytest.mark.timeout(600)
@pytest.mark.parametrize(("width", "height", "touch"), [(1280, 800, False), (390, 844, True)],
                         ids=["desktop", "phone"])
def test_ten_players_fit_the_screen(new_page: NewPage, width: int, height: int,
                                    touch: bool) -> None:
    """The most players a table has: status, rows and hand still on one screen (and, on a
    desktop, every player too) through the first turns, every revealed card shown."""
    page = new_page(width=width, height=height, touch=touch, script=RECORDER)
    label = f"ten-{'phone' if touch else 'desktop'}"
    p = Player(page, touch, label)
    start(p, 10)
    played: set[str] = set()
    for asked in decisions(page):
        if len(played) == 3:
            break
        if asked.endswith(" row"):
            page.wait_for_selector("#rows.choosing li.choosable")
            p.check_screen(f"row {asked}")
            p.press("#rows li.choosable")
            continue
        page.wait_for_selector("#hand:not(.waiting) li:not(.leaving)")
        p.check_screen(f"card {asked}")
        p.shot("card" if not played else "reveal")
        if not touch:
            players = page.evaluate(SCREEN)["players"]
            assert len(players) == 10, players
            for k in range(10):
                box = page.locator("#players .seat").nth(k).bounding_box()
                assert box is not None and box["y"] + box["height"] <= height, (
                    f"seat {k} ends at {box} on a {width}×{height} screen")
        p.play("#hand:not(.waiting) li:not(.leaving)")
        played.add(asked)
    assert not p.faults, "\n".join(p.faults)
