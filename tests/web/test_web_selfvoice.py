"""Self-voicing: the page speaks by itself through the browser's speech synthesis.

Headless Chromium has no voices, so the page's ``speechSynthesis`` is replaced by a
recorder that speaks each utterance for a time its length gives (10 ms a character),
fires ``start`` and ``end`` as a browser does, and stops on ``cancel()`` with an
``interrupted`` error. Everything the page asks of the speech API is logged with its
time. A whole game by keyboard, the player acting once the voice is quiet, as a
listener does: the utterances never overlap, none is cut, each starts only after the
last one ended, all in the page's language at the player's rate, and the live regions
stay empty (a screen reader may sleep). Control stops the voice.
"""

from __future__ import annotations

from typing import Any

import pytest

from .conftest import NewPage
from .helpers import RECORDER, create_table, decisions, fresh_name, set_name

#: A speech synthesis that logs every call: [what, performance.now(), text].
SPEECH = """
(() => {
  const log = window.__speech = [];
  let current = null, timer = null;
  const finish = (u, type) => {
    clearTimeout(timer);
    current = null;
    log.push([type, performance.now(), u.text]);
    const e = new Event(type === "end" ? "end" : "error");
    if (type !== "end") e.error = "interrupted";
    u.dispatchEvent(e);
  };
  const fake = {
    get speaking() { return current !== null; },
    get pending() { return false; },
    get paused() { return false; },
    speak(u) {
      log.push(["speak", performance.now(), u.text, u.lang, u.rate, current ? current.text : null]);
      if (current) return;  // a real browser would queue it: logged as an overlap
      current = u;
      u.dispatchEvent(new Event("start"));
      timer = setTimeout(() => finish(u, "end"), 10 * u.text.length);
    },
    cancel() {
      log.push(["cancel", performance.now(), current ? current.text : null]);
      if (current) finish(current, "cut");
    },
    pause() {}, resume() {},
    getVoices() { return []; },
    addEventListener() {}, removeEventListener() {},
  };
  Object.defineProperty(window, "speechSynthesis", {value: fake, configurable: true});
  localStorage.setItem("nimmt.selfvoice", "1");
  localStorage.setItem("nimmt.rate", "1.5");
})();
"""


def _quiet(page: Any) -> None:
    """Wait until the page's voice has nothing more to say (a listener's pause)."""
    page.wait_for_function("() => !window.speechSynthesis.speaking")
    page.wait_for_timeout(150)
    page.wait_for_function("() => !window.speechSynthesis.speaking")


@pytest.mark.timeout(600)
def test_a_self_voicing_game(new_page: NewPage) -> None:
    page = new_page(lang="sr", script=RECORDER + SPEECH)
    set_name(page, fresh_name("Glas"))
    create_table(page, players=3, rounds=1, bots=2, start=False)
    page.locator("#start-game").focus()
    page.keyboard.press("Enter")
    for _ in decisions(page):
        # A listener acts once the decision has been said (its focus move came with it).
        _quiet(page)
        page.keyboard.press("Enter")
    page.wait_for_function("() => document.activeElement.id === 'standings-h'")
    _quiet(page)
    log = page.evaluate("window.__speech")
    spoken = [e for e in log if e[0] == "speak"]
    assert len(spoken) >= 10, log
    overlaps = [e for e in spoken if e[5] is not None]
    assert not overlaps, f"spoken over another utterance: {overlaps}"
    cuts = [e for e in log if e[0] == "cut"]
    assert not cuts, f"utterances cut: {cuts}"
    # Each starts after the last one ended.
    ended = None
    for e in log:
        if e[0] == "speak":
            assert ended is None or e[1] >= ended[1], (ended, e)
            ended = None
        elif e[0] == "end":
            ended = e
    assert {(e[3], e[4]) for e in spoken} == {("sr", 1.5)}
    # The live regions stayed quiet: the screen reader may sleep.
    assert page.evaluate("window.__ann") == []


def test_control_stops_the_voice(new_page: NewPage) -> None:
    page = new_page(script=RECORDER + SPEECH)
    set_name(page, fresh_name("Hush"))
    create_table(page, players=3, rounds=1, bots=2, start=False)
    page.locator("#start-game").focus()
    page.keyboard.press("Enter")
    page.wait_for_function("() => document.activeElement.closest('#hand') !== null")
    _quiet(page)
    page.keyboard.press("k")  # K lists every key: a long answer
    page.wait_for_function("() => window.speechSynthesis.speaking")
    page.keyboard.press("Control")
    page.wait_for_function("() => !window.speechSynthesis.speaking")
    log = page.evaluate("window.__speech")
    assert log[-1][0] == "cut" and log[-1][2].startswith("V:"), log[-3:]
