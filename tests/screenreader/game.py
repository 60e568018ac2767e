"""A whole game of the web client played by keyboard through Orca, as a blind player plays.

The player only presses keys (:meth:`Desktop.key`): Tab to the lobby's fields,
a language from its list, a name and a few rules typed, Enter on buttons, Enter
on the card the hand offers, Enter in the row dialog. What the player would
know by ear, the harness learns from the server instead, so that a silent
prompt is noticed rather than waited for: the seat's own view and the
sentences of its shortcuts come from ``/api/speech`` with the player's token
(the oracle of what should be said), and where focus is comes from the page.

On the second turn of the first round (an ordinary turn, before the card is
played) the seed's shortcuts are pressed from the hand: V (then Escape back to
the hand), 1 to 4, C, T and S, and what Orca said after each is kept with what
the server says the answer is.
"""

from __future__ import annotations

import json
import time
import urllib.request
from dataclasses import dataclass, field
from typing import Any

from .orca import Desktop

__all__ = ["GameRun", "Shortcut", "Turn", "play_game", "quick_start"]

#: The rules typed into the lobby: a short game (one round of ten turns, three players).
PLAYERS = 3
LIMIT = 1
#: Keys of the seed's Playroom pressed on the shortcut turn, with the sheet entry each
#: should speak (``row`` N: the sentence of row N; ``card``: the focused card's).
SHORTCUTS = [("v", "row 1"), ("Escape", None), ("1", "row 1"), ("2", "row 2"),
             ("3", "row 3"), ("4", "row 4"), ("c", "card"), ("t", "chosen"), ("s", "scores")]


@dataclass
class Turn:
    """One decision asked of the player: ``kind`` card or row; when the server had it
    pending (``asked``) and when Enter answered it (``acted``); the sheet the server had
    for it; the keys pressed since the previous decision was answered."""

    kind: str
    round: int
    turn: int
    asked: float
    acted: float
    sheet: dict[str, Any]
    keys: int
    shortcuts: bool = False


@dataclass
class Shortcut:
    """A shortcut key pressed from the hand: the answer expected and what Orca said."""

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
    #: Keys from opening the page to the first card played (typed characters apart).
    keys_to_first_card: int = 0
    typed_to_first_card: int = 0
    started: float = 0.0
    #: From when the page speaks the game's language (after it was chosen).
    in_language: float = 0.0
    ended: float = 0.0


class Player:
    """The keyboard and the ears of one player (``d``: the desktop; ``url``: the server)."""

    def __init__(self, d: Desktop, url: str, lang: str) -> None:
        self.d = d
        self.url = url
        self.lang = lang

    @property
    def page(self) -> Any:
        return self.d.page

    def focused(self, selector: str) -> bool:
        return bool(self.page.evaluate(
            "s => { const el = document.activeElement; return !!el && el.matches(s); }",
            selector))

    def tab_to(self, selector: str, limit: int = 80, back: bool = False) -> None:
        """Press Tab (Shift+Tab: ``back``) until ``selector`` has focus, as a player tabs
        through a form."""
        pressed: float | None = None
        for _ in range(limit):
            if self.focused(selector):
                # Hear where focus landed first: typing into a field before Orca has
                # said it (and switched to its focus mode) would be read as browse-mode
                # commands. A loaded machine may take seconds to say it.
                deadline = time.monotonic() + 8.0
                while pressed is not None and time.monotonic() < deadline \
                        and not self.d.said(pressed):
                    time.sleep(0.1)
                self.d.quiet(0.4, timeout=4.0)
                return
            self.page.evaluate("() => { window.__tabFrom = document.activeElement; }")
            pressed = time.time()
            self.d.key("shift+Tab" if back else "Tab", pause=0.2)
            # A busy machine may deliver the key late: look again only once focus has
            # moved, or a second Tab would pass the field the first one reached.
            deadline = time.monotonic() + 2.0
            while time.monotonic() < deadline and self.page.evaluate(
                    "() => document.activeElement === window.__tabFrom"):
                time.sleep(0.05)
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
            deadline = time.monotonic() + 3.0
            while time.monotonic() < deadline:
                value = self.page.evaluate("s => document.querySelector(s).value", selector)
                if value == text:
                    return
                time.sleep(0.1)
            # Not one key reached the field, or Orca said it found no more of something.
            browsed = value == before or self.d.browsing(began)
        assert value == text, f"{selector} holds {value!r}, not {text!r}"

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
        d.quiet(0.6)

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

    def wait_seated(self, n: int, timeout: float = 20.0) -> None:
        """Wait until ``n`` seats of the player's table are taken (the server's word)."""
        code = self.page.evaluate("() => localStorage.getItem('nimmt.table')")
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            with urllib.request.urlopen(f"{self.url}/api/tables/{code}", timeout=10) as res:
                seats = json.load(res)["seats"]
            if sum(1 for s in seats if s["kind"] != "empty") >= n:
                return
            time.sleep(0.1)
        raise AssertionError(f"{n} seats were never taken")

    def hear(self, prompt: str | None, since: float, timeout: float = 25.0) -> bool:
        """Wait until Orca says ``prompt`` (after ``since``), then until it is quiet; False
        when it was not said within ``timeout`` seconds."""
        heard = False
        deadline = time.monotonic() + timeout
        while prompt and time.monotonic() < deadline:
            if any(prompt in u.text for u in self.d.said(since)):
                heard = True
                break
            time.sleep(0.1)
        # The longest sentences (a reveal with two full rows and the round's end) take
        # some twenty seconds to say.
        self.d.quiet(0.6, timeout=40.0)
        return heard

    def ready(self, kind: str, timeout: float = 15.0) -> None:
        """Wait until focus is where the answer is given: a card of the hand, or a row of
        the row dialog."""
        where = "dialog [role=radio], dialog input" if kind == "row" else "#hand *"
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline and not self.focused(where):
            time.sleep(0.1)

    def back_to_hand(self) -> None:
        """Come back to the hand's current card, as a player who heard focus is elsewhere
        (a browse-mode key may have moved it to a heading): Escape from the rows, else Tab
        (the hand's current card is in the tab order)."""
        if self.focused("#hand *"):
            return
        if self.focused("#rows *"):
            self.d.key("Escape")
            deadline = time.monotonic() + 2.0
            while time.monotonic() < deadline and not self.focused("#hand *"):
                time.sleep(0.05)
            if self.focused("#hand *"):
                return
        self.tab_to("#hand [role=option][tabindex='0']")

    def answer(self, key: str, tries: int = 3) -> None:
        """Press Enter, and again (as a player would) while the decision ``key`` stays
        unanswered a few seconds later."""
        for attempt in range(tries):
            if attempt:
                # Orca may have left focus mode (seen after the row dialog closed): Enter
                # then is a browse-mode command. Make focus mode sticky, as a player would,
                # and come back to the hand.
                self.d.sticky_focus_mode()
                if not self.focused("dialog input, dialog [role=radio]"):
                    self.back_to_hand()
            self.d.key("Return")
            deadline = time.monotonic() + 4.0
            while time.monotonic() < deadline:
                if self.pending_key() != key or self.over():
                    return
                time.sleep(0.1)
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
        return bool(self.page.evaluate(
            "() => { const r = document.getElementById('view-results');"
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
        p.tab_to("#me-name")
        p.fill("#me-name", name)
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
    for k in range(PLAYERS - 1):
        p.tab_to("#add-bot")
        d.key("Return")
        p.wait_seated(k + 2)
        d.quiet(0.6)  # the player hears the bot sit down before moving on
        if k == 0:
            # A slip a player makes: Start with a seat still empty. The server refuses,
            # and its sentence is what the player hears, in the page's language.
            p.tab_to("#start-game")
            since = time.time()
            d.key("Return")
            d.quiet(0.6, timeout=6.0)
            run.refusal = [u.text for u in d.said(since)]
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
        p.answer(answered)
        since = time.time()
        run.turns.append(Turn(kind, view["round"], view["turn"], asked, time.time(),
                              data["sheet"], len(d.keys) - mark, shortcuts))
        if len(run.turns) == 1:
            run.keys_to_first_card = sum(1 for k in d.keys if not k.typed)
            run.typed_to_first_card = sum(1 for k in d.keys if k.typed)
        mark = len(d.keys)
    names = data["view"] and page.evaluate(
        "() => [...document.querySelectorAll('#results-body tr')].map(r => r.textContent)")
    run.names = list(names or [])
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
        p.d.quiet(0.6, timeout=5.0)
        # A shortcut other than V leaves focus in the hand; one that moved it (to a
        # heading, "1") or that Orca answered "No more …" went to a browse-mode command.
        moved = key not in ("v", "Escape") and not p.focused("#hand *")
        if p.d.browsing(since) or moved:
            # A player hearing it makes focus mode sticky (Orca goes back to browse mode
            # by itself as focus moves after a browse-mode command), comes back to the
            # hand and presses the key again.
            p.d.sticky_focus_mode()
            if key != "Escape":
                p.back_to_hand()
            since = time.time()
            p.d.key(key)
            p.d.quiet(0.6, timeout=5.0)
        heard = [u.text for u in p.d.said(since)]
        out.append(Shortcut(key, expected, heard, in_hand))
    return out
