"""The two clients behave as one: a recorded game, watched by both from the same seat.

A real ``nimmt serve`` (its shuffle seeded with the golden record's seed, so it deals
that record's cards) hosts the professional golden game; five connections play the
record's decisions. The web client (Chromium) and the terminal client (a
:class:`~nimmt.tui.remote.RemoteSession` read as the plain mode reads it) both sit as
seat 1's player. At every step of the game the test waits until both have taken the
same frames, then compares every sentence each one received (the narration and the
table's notices, in order) and each shared key's answer (V, 1–4, C, T, S, A, W, R and the
key list, K or ?), and at the end the places of the results. Any difference fails.

The decision itself is said from the same sheet by both (the terminal the sentence
that lists the hand, for a reader who types the card's number), and H (a hint) is
the server's answer to a request: neither is a client's wording, so neither is
compared here.
"""

from __future__ import annotations

import json
import os
import re
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from nimmt.client_sync import SyncClient
from nimmt.keymap import actions_of
from nimmt.record import record_from_dict
from nimmt.tui.commands import Interpreter
from nimmt.tui.remote import RemoteSession, RemoteTarget, TokenStore
from nimmt.tui.session import Said, Update

from .conftest import QUOTAS, NewPage, _pages, _serve

RECORD = Path(__file__).resolve().parents[1] / "golden" / "professional.json"
#: The record's seed (tests/golden/README.md): the server's shuffle deals its cards.
SEED = 5
#: The keys both clients have, pressed in this order (V last: it moves the web's focus).
KEYS = ["1", "2", "3", "4", "c", "t", "s", "a", "w", "r", "k", "?", "v"]
#: Seconds both clients get to take the same frames before a difference fails.
SETTLE = 15.0


@pytest.fixture(scope="module")
def seeded_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """``nimmt serve`` at the tests' pace whose every game is shuffled with :data:`SEED`."""
    env = dict(os.environ, **QUOTAS, NIMMT_BOT_SECONDS="0.05", NIMMT_REVEAL_PACE="0",
               NIMMT_ROUND_PAUSE="0",
               NIMMT_LISTEN_CPS="0", NIMMT_DISCONNECT_GRACE="30")
    command = [sys.executable, "-c",
               f"import nimmt.server.tables.commands as c; c.new_seed = lambda: {SEED}; "
               "from nimmt.cli import main; main()"]
    yield from _serve(tmp_path_factory.mktemp("parity"), env, command)


@pytest.fixture
def seeded_page(browser: Any, seeded_server: str) -> Iterator[NewPage]:
    yield from _pages(browser, seeded_server)


class Watched(RemoteSession):
    """The terminal's session, noting the ``seq`` of the last frame it took."""

    seq = 0

    def _take(self, msg: object) -> None:
        super()._take(msg)
        self.seq = max(self.seq, getattr(msg, "seq", 0) or 0)


class Terminal:
    """The terminal client at seat 1: its session pumped in a thread, every line kept."""

    def __init__(self, url: str, code: str, name: str, token: str, data: Path) -> None:
        tokens = TokenStore(data / "client.json")
        tokens.put(url, name, token)
        self.lines: list[tuple[str, str]] = []
        self.session = Watched(RemoteTarget(url, code), name=name, tokens=tokens,
                               listener=self._heard)
        self.interpreter = Interpreter(self.session)
        self.session.open()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._pump, daemon=True)
        self._thread.start()

    def _heard(self, update: Update) -> None:
        if isinstance(update, Said):
            self.lines.append((update.kind, update.text))

    def _pump(self) -> None:
        while not self._stop.is_set() and not self.session.ended:
            self.session.pump(0.05)

    def said(self) -> list[str]:
        """The narration and the notices, in order (what the web client logs as events)."""
        with self.session.lock:
            return [text for kind, text in self.lines if kind in ("event", "notice")]

    @property
    def seq(self) -> int:
        return self.session.seq

    def key(self, key: str, focus: dict[str, Any]) -> str:
        """The answer to ``key``, with the web page's focus (for C: a row or a card)."""
        action = self.interpreter.keymap.action(key)
        assert action is not None, key
        with self.session.lock:
            if action == "bullheads":
                self.interpreter.row = focus.get("row")
                self.interpreter.card = None if focus.get("row") else focus.get("card")
            return self.interpreter.speak(action)

    def close(self) -> None:
        self._stop.set()
        self.session.close()


def web_said(page: Any) -> list[str]:
    """The web client's game log: the narration and the notices, in order."""
    return list(page.evaluate(
        "[...document.querySelectorAll('#log p.log-event')].map(p => p.textContent)"))


def web_seq(page: Any) -> int:
    return int(page.evaluate("Number(localStorage.getItem('nimmt.seq') || 0)"))


def web_focus(page: Any) -> dict[str, Any]:
    """What C speaks about in the web client: a focused row, else the hand's current card."""
    return dict(page.evaluate("""() => {
      const el = document.activeElement;
      const row = el && (el.dataset.row || (el.closest('#row-choices') ? el.value : null));
      if (row) return {row: Number(row)};
      const li = el && el.dataset.card ? el
        : document.querySelector('#hand [role=option][tabindex="0"]');
      return {card: li ? Number(li.dataset.card) : null};
    }"""))


#: Press keys in the page, one after another, each as the keyboard gives it (its ``key``
#: and its physical ``code``), and read each answer from the live region it was written
#: to, or the name of what focus moved to ("@Row 1: …"; null when nothing happened). One
#: evaluation for all: the game does not move between two keys.
PRESS = """(keys) => keys.map((key) => {
  const regions = ['live-polite', 'dlg-live-polite'].map((id) => document.getElementById(id));
  const before = regions.map((r) => r.lastElementChild);
  const code = /^[a-z]$/.test(key) ? `Key${key.toUpperCase()}` : /^[0-9]$/.test(key)
    ? `Digit${key}` : key;
  const target = document.activeElement || document.body;
  target.dispatchEvent(new KeyboardEvent('keydown', {key, code, bubbles: true, cancelable: true}));
  const said = regions.find((r, i) => r.lastElementChild && r.lastElementChild !== before[i]);
  if (said) return said.lastElementChild.textContent;
  // A key that moves focus (V) says nothing itself: the reader says what it moved to.
  const now = document.activeElement;
  return now && now !== target ? `@${now.getAttribute('aria-label')}` : null;
})"""


def until(check: Callable[[], bool], what: Callable[[], str]) -> None:
    deadline = time.monotonic() + SETTLE
    while not check():
        if time.monotonic() > deadline:
            pytest.fail(what())
        time.sleep(0.02)


def compare_step(page: Any, term: Terminal, step: str) -> None:
    """Wait until both clients took the same frames, then compare what they said and what
    each shared key answers."""
    until(lambda: web_seq(page) == term.seq and web_said(page) == term.said(),
          lambda: f"{step}: the clients differ:\nweb      {web_said(page)[-6:]}\n"
                  f"terminal {term.said()[-6:]}\nseq {web_seq(page)} / {term.seq}")
    if not page.evaluate("!document.querySelector('#game').hidden"):
        return
    # A card just played leaves the hand a moment later (focus moves to its neighbour).
    page.wait_for_function("() => !document.querySelector('#hand .leaving')")
    # Keys act in the game area (never in a field): the hand's card, or the status line.
    page.evaluate("""() => {
      const el = document.activeElement;
      if (!el || !el.closest('#game, #row-dialog') || el.closest('#rows'))
        (document.querySelector('#hand [role=option][tabindex="0"]')
         || document.querySelector('#table-keys')).focus();
    }""")
    focus = web_focus(page)
    keys = [k for k in KEYS if k != "c" or focus.get("row") or focus.get("card") is not None]
    answers = page.evaluate(PRESS, keys)
    for key, web in zip(keys, answers, strict=True):
        terminal = term.key(key, focus)
        if key in ("k", "?"):
            # Each client lists its own keys; the keys they share are listed in the same words.
            lines = term.interpreter.key_lines()
            shared = {a.action for a in actions_of("web") if "terminal" in a.clients}
            wanted = [line for a, line in zip(term.interpreter.keymap.keys, lines, strict=True)
                      if a in shared]
            missing = [line for line in wanted if line not in (web or "")]
            assert not missing, f"{step}, K: the web client's list lacks {missing}"
            continue
        if key == "v":
            # The web client's V moves focus to the rows (said by the reader as the first
            # row's sentence) and says nothing itself; the terminal says every row.
            assert web is not None and web.startswith("@") and terminal.startswith(web[1:]), (
                f"{step}, key V:\nweb      {web}\nterminal {terminal}")
            continue
        assert web == terminal, f"{step}, key {key.upper()}:\nweb      {web}\nterminal {terminal}"
    page.keyboard.press("Escape")  # V took focus to the rows: back to the hand


def test_both_clients_say_the_same(seeded_page: NewPage, seeded_server: str,
                                   tmp_path: Path) -> None:
    url = seeded_server
    data = json.loads(RECORD.read_text())
    record = record_from_dict(data)
    names = [f"Par{i}{os.getpid() % 1000}" for i in range(record.rules.players)]
    players = [SyncClient.connect(url, name=n, retries=None) for n in names]
    term: Terminal | None = None
    try:
        host = players[0]
        code = host.create_table(rules=data["rules"]).table.code
        for seat, client in enumerate(players[1:], 1):
            client.join(code)
            client.sit(seat)
        token = host.token
        assert token is not None
        term = Terminal(url, code, names[0], token, tmp_path)
        page = seeded_page(script=(
            f"localStorage.setItem('nimmt.token', {token!r});"
            f"localStorage.setItem('nimmt.name', {names[0]!r});"))
        page.goto(f"{url}/play/#/table/{code}")
        page.wait_for_function("() => document.querySelector('#seat-list li') !== null")
        host.start()
        compare_step(page, term, "the deal")
        active = record.rules.players  # the classic end: every seat plays every round
        for r, rnd in enumerate(record.rounds, 1):
            cards = 0
            for kind, seat, value in rnd.decisions:
                players[seat].answer(value, kind)
                cards += kind == "card"
                # A step ends when the turn's last card is chosen (the reveal, up to a row
                # choice) and with each row choice (the rest of the turn).
                if kind == "row" or cards % active == 0:
                    compare_step(page, term, f"round {r}, after {kind} {value} of seat {seat + 1}")
        # The results: the same places, in the same order, on both results pages.
        page.goto(f"{url}/play/#/results")
        page.wait_for_function("() => document.querySelectorAll('#results-body tr').length > 0")
        web = page.evaluate("[...document.querySelectorAll('#results-body tr')]"
                            ".map(tr => [...tr.cells].map(td => td.textContent))")
        lines = term.session.results()[1:1 + len(names)]
        terminal = [re.match(r"(\d+)\. (.+?)(?: \(you\))?: (\d+)", line).groups()  # type: ignore[union-attr]
                    for line in lines]
        assert [(p, n.replace(" (you)", ""), t) for p, n, t in web] == [
            (p, n, t) for p, n, t in terminal], (web, lines)
        assert sorted(int(p) for p, _, _ in web) == sorted(term.session.snapshot.view.places)
    finally:
        if term is not None:
            term.close()
        for client in players:
            client.close()
