"""A whole game of the web client played by keyboard through Orca, as a blind player plays.

The player only presses keys (:meth:`Desktop.key`): Tab to the lobby's fields,
a language from its list, a name and a few rules typed (jokers ticked, so a row is
asked), Enter on buttons, Enter on the card the hand offers, Enter in the row
dialog. What the player would know by ear, the harness learns from the server
instead, so that a silent prompt is noticed rather than waited for: the seat's
own view and the sentences of its shortcuts come from ``/api/speech`` with the
player's token (the oracle of what should be said), and where focus is comes
from the page.

On the second turn of the first round (an ordinary turn, before the card is
played) the seed's shortcuts are pressed from the hand: V (then V again back to
the hand: no key depends on Escape, which NVDA and JAWS keep), 1 to 4, C, T and
S, and what Orca said after each is kept with what the server says the answer is.
"""

from __future__ import annotations

import json
import time
import urllib.request
from dataclasses import dataclass, field
from typing import Any

from nimmt.narrate import narrator

from .orca import SLOW, Desktop, norm, until

__all__ = ["GameRun", "Shortcut", "Turn", "play_game", "quick_start"]

#: The rules typed into the lobby: a short game (one round of ten turns, three players).
PLAYERS = 3
LIMIT = 1
#: Keys of the seed's Playroom pressed on the shortcut turn, with the sheet entry each
#: should speak (``row`` N: the sentence of row N; ``card``: the focused card's).
SHORTCUTS = [("v", "row 1"), ("v", None), ("1", "row 1"), ("2", "row 2"),
             ("3", "row 3"), ("4", "row 4"), ("c", "card"), ("t", "chosen"), ("s", "scores")]


@dataclass
class Turn:
    """One decision asked of the player: ``kind`` card or row; when the server had it
    pending (``asked``), when the Enter that answered it was pressed (``pressed``) and
    when the server had the answer (``acted``); the sheet the server had for it; the keys
    pressed since the previous decision was answered."""

    kind: str
    round: int
    turn: int
    asked: float
    pressed: float
    acted: float
    sheet: dict[str, Any]
    keys: int
    shortcuts: bool = False


@dataclass
class Shortcut:
    """A shortcut key pressed from the hand (last at ``t``): the answer expected and what
    Orca said."""

    t: float
    key: str
    expected: str | None
    heard: list[str]
    focus_in_hand: bool


@dataclass
class GameRun:
    """Everything one game left: its turns, shortcut answers, and how it started."""

    lang: str
    names: list[str] = field(default_factory=list)
    turns: list[Turn] = field(default_factory=list)
    shortcuts: list[Shortcut] = field(default_factory=list)
    #: What was said after Start was pressed with a seat still empty (a refusal).
    refusal: list[str] = field(default_factory=list)
    refused_at: float = 0.0
    #: Keys from opening the page to the first card played (typed characters apart).
    keys_to_first_card: int = 0
    typed_to_first_card: int = 0
    started: float = 0.0
    #: From when the page speaks the game's language (after it was chosen).
    in_language: float = 0.0
    ended: float = 0.0
    #: When a key of the game went to one of Orca's browse-mode commands and the player
    #: switched back to focus mode (Orca+A once): the page should never need it.
    recoveries: list[float] = field(default_factory=list)


class Player:
    """The keyboard and the ears of one player (``d``: the desktop; ``url``: the server)."""

    def __init__(self, d: Desktop, url: str, lang: str) -> None:
        self.d = d
        self.url = url
        self.lang = lang
        #: See :attr:`GameRun.recoveries`.
        self.recoveries: list[float] = []

    @property
    def page(self) -> Any:
        return self.d.page

    def focused(self, selector: str) -> bool:
        """Whether ``selector`` has focus (the page's element is not focused while focus is
        in the browser's own window, Firefox's toolbar)."""
        return bool(self.page.evaluate(
            "s => { const el = document.activeElement;"
            " return document.hasFocus() && !!el && el.matches(s); }", selector))

    def tab_to(self, selector: str, limit: int = 80, back: bool = False) -> None:
        """Press Tab (Shift+Tab: ``back``) until ``selector`` has focus, as a player tabs
        through a form."""
        pressed: float | None = None
        for _ in range(limit):
            if self.focused(selector):
                # Hear where focus landed first: typing into a field before Orca has
                # said it (and switched to its focus mode) would be read as browse-mode
                # commands. A loaded machine may take seconds to say it.
                if pressed is not None:
                    self.d.hear(bool, pressed)
                self.d.quiet(0.4, timeout=4.0)
                return
            self.page.evaluate("() => { window.__tabFrom = document.activeElement;"
                               " window.__tabHad = document.hasFocus(); }")
            pressed = time.time()
            self.d.key("shift+Tab" if back else "Tab", pause=0.2)
            # A busy machine may deliver the key late: look again only once focus has
            # moved, or a second Tab would pass the field the first one reached. Past
            # the page's end Tab goes through the browser's toolbar (Firefox's; Chromium's
            # app window has none), where the page sees no move: there, what Orca says
            # of the control Tab reached tells it.
            def moved(t: float = pressed) -> bool:
                page = self.page.evaluate(
                    "() => document.hasFocus() ? (document.activeElement !== window.__tabFrom"
                    " || !window.__tabHad) : (window.__tabHad ? 'left' : 'outside')")
                return page is True or page == "left" or (
                    page == "outside" and bool(self.d.said(t)))

            until(moved, SLOW / 3, 0.05)
        raise AssertionError(f"{selector} never took focus by Tab")

    def fill(self, selector: str, text: str) -> None:
        """Type ``text`` into the focused field ``selector`` (in Orca's focus mode, with what
        was there selected first), and check that the field holds it."""
        value = None
        # A busy machine may deliver xdotool's keys late, or Orca may still be switching
        # modes: wait for the field to show them, and type again (as a person would) when
        # it does not. When Orca took the keys as browse-mode commands (the field kept its
        # value, or Orca said "No more …"), whatever mode it said last, switch, as a
        # person hearing it would.
        browsed = False
        for _ in range(4):
            if not self.focused(selector):
                # Browse-mode keys (a digit jumps to a heading) may have moved focus
                # away: come back to the field, as a player hearing it would.
                self.tab_to(selector)
            self.d.focus_mode(force=browsed)
            began = time.time()
            before = self.page.evaluate("s => document.querySelector(s).value", selector)
            self.d.key("ctrl+a")
            self.d.type(text)
            def holds() -> bool:
                nonlocal value
                value = self.page.evaluate("s => document.querySelector(s).value", selector)
                return bool(value == text)

            if until(holds, SLOW / 3):
                return
            # Not one key reached the field, or Orca said it found no more of something.
            browsed = value == before or self.d.browsing(began)
        assert value == text, f"{selector} holds {value!r}, not {text!r}"

    def check(self, selector: str) -> None:
        """Tick the check box ``selector`` with Space (again after Orca+A if a browse-mode
        command took the key), as a player does."""
        self.tab_to(selector)
        for attempt in range(3):
            if attempt:
                self.recover()
                if not self.focused(selector):
                    self.tab_to(selector)
            began = time.time()
            self.d.key("space")
            if until(lambda: bool(self.page.evaluate(
                    "s => document.querySelector(s).checked", selector)), SLOW / 3):
                self.d.hear(bool, began)
                self.d.quiet(0.4, timeout=4.0)
                return
        raise AssertionError(f"{selector} was never checked")

    def open_options(self) -> None:
        """Open the lobby's "More options" (the whole rule set, folded), as a player does:
        Tab to it, Enter; heard as expanded."""
        if self.page.evaluate("() => document.getElementById('more-options').open"):
            return
        self.tab_to("#more-options > summary")
        for attempt in range(3):
            if attempt:
                self.recover()
                if not self.focused("#more-options > summary"):
                    self.tab_to("#more-options > summary")
            began = time.time()
            self.d.key("Return")
            if until(lambda: bool(self.page.evaluate(
                    "() => document.getElementById('more-options').open")), SLOW / 3):
                self.d.hear(bool, began)
                self.d.quiet(0.4, timeout=4.0)
                return
        raise AssertionError("More options never opened")

    def choose_language(self) -> None:
        """Pick the page's language in the lobby's list, unless it speaks it already."""
        d, page, lang = self.d, self.page, self.lang
        if page.evaluate("() => document.documentElement.lang") == lang:
            return
        # A list box opens with Alt+Down; arrows then pick, Enter chooses (in browse mode
        # Orca keeps the arrows for reading).
        self.tab_to("#me-lang")
        d.key("alt+Down")
        options = page.evaluate(
            "() => [...document.getElementById('me-lang').options].map(o => o.value)")
        current = page.evaluate("() => document.getElementById('me-lang').value")
        steps = options.index(lang) - options.index(current)
        d.key(*(["Down"] * steps if steps > 0 else ["Up"] * -steps), "Return")
        page.wait_for_function("l => document.documentElement.lang === l", arg=lang)
        # Orca may say the list again, under its new name, a second after the choice on a
        # loaded machine: that belongs to choosing, not to the game.
        d.quiet(1.5, timeout=8.0)

    def oracle(self) -> dict[str, Any]:
        """The seat's view and the sentences of its shortcuts, as the server has them now."""
        token = self.page.evaluate("() => localStorage.getItem('nimmt.token')")
        code = self.page.evaluate("() => localStorage.getItem('nimmt.table')")
        probe = f"{self.url}/api/speech/{code}?lang={self.lang}"
        with urllib.request.urlopen(urllib.request.Request(
                probe, headers={"X-Nimmt-Token": token}), timeout=10) as res:
            seq = json.load(res)["seq"]
        with urllib.request.urlopen(urllib.request.Request(
                f"{probe}&after={seq}&upto={seq}", headers={"X-Nimmt-Token": token}),
                timeout=10) as res:
            data: dict[str, Any] = json.load(res)
        return data

    def wait_seated(self, n: int, timeout: float = SLOW) -> None:
        """Wait until ``n`` seats of the player's table are taken (the server's word)."""
        code = self.page.evaluate("() => localStorage.getItem('nimmt.table')")
        def seated() -> bool:
            with urllib.request.urlopen(f"{self.url}/api/tables/{code}", timeout=10) as res:
                seats = json.load(res)["seats"]
            return sum(1 for s in seats if s["kind"] != "empty") >= n

        if not until(seated, timeout):
            raise AssertionError(f"{n} seats were never taken")

    def hear(self, prompt: str | None, since: float, timeout: float = 2 * SLOW) -> bool:
        """Wait until Orca says ``prompt`` (after ``since``), then until it is quiet; False
        when it was not said within ``timeout`` seconds (the page waits for what it said
        before to be said first: a reveal and a round's end take half a minute)."""
        want = norm(prompt or "")
        heard = bool(prompt) and self.d.hear(lambda t: want in norm(t), since, timeout)
        # The longest sentences (a reveal with two full rows and the round's end) take
        # some twenty seconds to say.
        self.d.quiet(0.6, timeout=40.0)
        return heard

    def ready(self, kind: str, timeout: float = 15.0) -> None:
        """Wait until focus is where the answer is given: a card of the hand, or a row of
        the row dialog."""
        where = "dialog [role=radio], dialog input" if kind == "row" else "#hand *"
        until(lambda: self.focused(where), timeout)

    def recover(self) -> None:
        """Orca took a key of the game as a browse-mode command: Orca+A, once, back to focus
        mode, as a player who heard it does (never the sticky focus mode of two quick
        presses, which would hide the page's fault; counted in :attr:`recoveries`)."""
        self.recoveries.append(time.time())
        self.d.focus_mode(force=True)

    def back_to_hand(self) -> None:
        """Come back to the hand's current card, as a player who heard focus is elsewhere
        (a browse-mode key may have moved it to a heading): V from the rows, else Tab
        (the hand's current card is in the tab order)."""
        if self.focused("#hand *"):
            return
        if self.focused("#rows *"):
            self.d.key("v")
            if until(lambda: self.focused("#hand *"), SLOW / 3, 0.05):
                return
        self.tab_to("#hand [role=option][tabindex='0']")

    def answer(self, key: str, tries: int = 3) -> float:
        """Press Enter, and again (as a player would) while the decision ``key`` stays
        unanswered a few seconds later; the time of the Enter that answered it."""
        def answered() -> bool:
            return self.pending_key() != key or self.over()

        pressed = 0.0
        for attempt in range(tries):
            if attempt:
                # Orca may have left focus mode: Enter then is a browse-mode command. Switch
                # back, as a player would, and come back to the hand; a late Enter may have
                # answered meanwhile.
                self.recover()
                if answered():
                    return pressed
                if not self.focused("dialog input, dialog [role=radio]"):
                    self.back_to_hand()
                if answered():
                    return pressed
            pressed = time.time()
            self.d.key("Return")
            if until(answered, SLOW / 3):
                return pressed
        raise AssertionError(f"Enter did not answer the decision {key}")

    def pending_key(self) -> str | None:
        """The decision the server waits for from this player now, if any."""
        data = self.oracle()
        view = data["view"]
        pend = view and view["pending"]
        me = data["you"]
        if not pend or me not in pend["players"]:
            return None
        if pend["kind"] == "card" and view["chosen"][me]:
            return None
        return f"{view['round']}.{view['turn']}.{pend['kind']}"

    def over(self) -> bool:
        """Whether the game's final standings are on the table."""
        return bool(self.page.evaluate(
            "() => { const r = document.getElementById('standings-panel');"
            " return !!r && !r.hidden; }"))

    def wait_decision(self, answered: str | None, timeout: float = 90.0
                      ) -> tuple[str, dict[str, Any]] | None:
        """Wait until a decision other than ``answered`` is asked of the player (its kind and
        the oracle then), or the game is over (None)."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.over():
                return None
            data = self.oracle()
            view = data["view"]
            pend = view and view["pending"]
            me = data["you"]
            if pend and me in pend["players"]:
                key = f"{view['round']}.{view['turn']}.{pend['kind']}"
                mine = pend["kind"] != "card" or not view["chosen"][me]
                if mine and key != answered:
                    return key, data
            time.sleep(0.1)
        raise AssertionError("no decision was asked and the game did not end")


def play_game(d: Desktop, url: str, lang: str, name: str) -> GameRun:
    """Open the lobby, set up a short game against two bots, and play it to the results."""
    run = GameRun(lang)
    p = Player(d, url, lang)
    page = d.open(f"{url}/play/")
    run.started = time.time()
    d.quiet(1.0)
    p.choose_language()
    run.in_language = time.time()
    if page.evaluate("() => !document.getElementById('me-name-field').hidden"):
        # The name's field is the quick game's, just before its button and the language.
        p.tab_to("#me-name", back=True)
        p.fill("#me-name", name)
    p.open_options()
    # Jokers: every hand holds one, the lowest card, which the hand offers first: its
    # row choice comes on the first turn, so every game asks a row.
    p.check("input[name=variant][value=jokers]")
    p.tab_to("#c-players")
    p.fill("#c-players", str(PLAYERS))
    # A limit of 1 ends the game after its first round: someone always takes a row in
    # a round (thirty cards do not fit in four rows of five).
    p.tab_to("#c-limit")
    p.fill("#c-limit", str(LIMIT))
    p.tab_to("#create-form button[type=submit]")
    d.key("Return")
    page.wait_for_selector("#view-table:not([hidden])")
    d.quiet(0.6)
    refusal = norm(narrator(lang).refusal_sentence("seats_empty"))
    for k in range(PLAYERS - 1):
        p.tab_to("#add-bot")
        d.key("Return")
        p.wait_seated(k + 2)
        d.quiet(0.6)  # the player hears the bot sit down before moving on
        if k == 0:
            # A slip a player makes: Start with a seat still empty. The server refuses,
            # and its sentence is what the player hears, in the page's language.
            p.tab_to("#start-game")
            run.refused_at = time.time()
            d.key("Return")
            d.hear(lambda t: refusal in norm(t), run.refused_at)
            d.quiet(0.6, timeout=6.0)
            run.refusal = [u.text for u in d.said(run.refused_at)]
    p.tab_to("#start-game")
    d.key("Return")
    answered: str | None = None
    mark = len(d.keys)
    since = time.time()
    shortcut_turn = (1, 2)
    while True:
        found = p.wait_decision(answered)
        if found is None:
            break
        answered, data = found
        view = data["view"]
        asked = time.time()
        kind = view["pending"]["kind"]
        # A player acts once the prompt was heard (a silent prompt is waited for a while)
        # and the page is ready for the answer: focus in the hand or in the row dialog.
        p.hear(data["sheet"]["decision"], since)
        p.ready(kind)
        shortcuts = kind == "card" and (view["round"], view["turn"]) == shortcut_turn
        if shortcuts:
            run.shortcuts = press_shortcuts(p)
            d.quiet(0.6, timeout=4.0)
        pressed = p.answer(answered)
        since = time.time()
        run.turns.append(Turn(kind, view["round"], view["turn"], asked, pressed, since,
                              data["sheet"], len(d.keys) - mark, shortcuts))
        if len(run.turns) == 1:
            run.keys_to_first_card = sum(1 for k in d.keys if not k.typed)
            run.typed_to_first_card = sum(1 for k in d.keys if k.typed)
        mark = len(d.keys)
    # The last step is said, then the final standings take focus.
    until(lambda: p.focused("#standings-h"), 3 * SLOW)
    names = data["view"] and page.evaluate(
        "() => [...document.querySelectorAll('#standings li')].map(r => r.textContent)")
    run.names = list(names or [])
    run.recoveries = p.recoveries
    d.quiet(1.0, timeout=8.0)
    run.ended = time.time()
    return run


def quick_start(d: Desktop, url: str, lang: str) -> tuple[int, int]:
    """From the lobby (its language already chosen, as a returning player has it) to the
    first card played by the quick game's path: the command keys pressed and the
    characters typed (none: the quick game seats a guest)."""
    p = Player(d, url, lang)
    d.open(f"{url}/play/")
    d.quiet(1.0)
    p.choose_language()
    mark = len(d.keys)
    since = time.time()
    # No name typed: the quick game seats a guest.
    p.tab_to("#quick-play", back=True)
    d.key("Return")
    found = p.wait_decision(None)
    assert found is not None and found[1]["view"]["pending"]["kind"] == "card"
    p.hear(found[1]["sheet"]["decision"], since)
    p.ready("card")
    p.answer(found[0])
    keys = d.keys[mark:]
    return sum(1 for k in keys if not k.typed), sum(1 for k in keys if k.typed)


def press_shortcuts(p: Player) -> list[Shortcut]:
    """Press the seed's shortcuts from the hand; what each should say (the server's sheet
    just before the key: the bots may have chosen meanwhile) and what was said."""
    out = []
    for key, want in SHORTCUTS:
        sheet = p.oracle()["sheet"]
        in_hand = bool(p.page.evaluate(
            "() => !!document.activeElement.closest('#hand')"))
        card = p.page.evaluate("() => document.activeElement.dataset.card || null")
        expected: str | None
        if want is None:
            expected = None
        elif want.startswith("row "):
            n = int(want.split()[1])
            expected = sheet["row"][n - 1] if n <= len(sheet["row"]) else None
        elif want == "card":
            cards = sheet["cards"]  # {card: sentence}, or [card, sentence] pairs
            said = dict(cards) if isinstance(cards, list) else {int(k): v for k, v in
                                                                   cards.items()}
            expected = said.get(int(card)) if card is not None else None
        else:
            expected = sheet[want]
        since = time.time()
        p.d.key(key)
        # The answer, or Orca's word that a browse-mode command took the key.
        hear_answer(p, expected, since)
        # A shortcut other than V leaves focus in the hand; one that moved it (to a
        # heading, "1") or that Orca answered "No more …" went to a browse-mode command.
        moved = key != "v" and not p.focused("#hand *")
        if p.d.browsing(since) or moved:
            # A player hearing it switches back to focus mode (Orca+A), comes back to the
            # hand and presses the key again.
            p.recover()
            p.back_to_hand()
            since = time.time()
            p.d.key(key)
            hear_answer(p, expected, since)
        heard = [u.text for u in p.d.said(since)]
        out.append(Shortcut(since, key, expected, heard, in_hand))
    return out


def hear_answer(p: Player, expected: str | None, since: float) -> None:
    """Wait for a shortcut's answer ``expected`` (or for Orca's word that a browse-mode
    command took the key), then for a listener's pause; a key with nothing to say (V back)
    waits for the pause alone."""
    if expected is not None:
        want = norm(expected)
        browsing = p.d.browse_words()
        p.d.hear(lambda t: want in norm(t) or t.startswith(browsing), since)
    p.d.quiet(0.6, timeout=5.0)
