"""Helpers of the terminal client's tests: drive the plain mode through pexpect.

:class:`PlainDriver` answers the prompts of ``nimmt play --plain`` and keeps
what the program wrote, line by line, apart from what it wrote in answer to
the test's own probes (shortcuts, bad input), so the game's transcript can be
compared with the narration of the game's record.
"""

from __future__ import annotations

import contextlib
import os
import re
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pexpect
import pytest

from nimmt import Deal, Game, Rules, for_viewer
from nimmt.narrate import Narrator
from nimmt.narrate.events import others_have_chosen
from nimmt.record import Record, decision_from_record
from nimmt.tui.labels import Labels


def lines_of(text: str) -> list[str]:
    """Output lines, without the terminal's carriage returns and empty lines."""
    return [line.strip("\r") for line in text.replace("\r\n", "\n").split("\n")
            if line.strip("\r").strip()]


def told_locally(record: Record, speak: Narrator) -> list[str]:
    """What a game on this machine says of ``record``'s game to seat 0: the events of each
    stretch between two of the player's decisions (the bots answer in between), one
    announcement per resolution step, as the server tells a frame (:meth:`Narrator.steps`)."""
    game = Game(Rules.from_dict(record.rules.model_dump()), scores=record.start_scores)
    names = list(record.players)
    lines: list[str] = []
    start = 0

    def tell() -> None:
        nonlocal start
        seen = [e for e in (for_viewer(ev, 0) for ev in game.events[start:]) if e is not None]
        lines.extend(speak.steps(seen, names, 0, others_have_chosen(game.view(0))))
        start = len(game.events)

    for rnd in record.rounds:
        game.deal(Deal(rnd.deal.rows, rnd.deal.hands, rnd.deal.pool))
        for entry in rnd.decisions:
            decision = decision_from_record(entry)
            if decision.player == 0:
                tell()
            game.decide(decision)
    tell()
    return lines


def decision_patterns(narrator: Narrator) -> list[re.Pattern[str]]:
    """Regexes of the sentences that ask a decision (they come before each prompt)."""
    templates = [
        "Choose a card to play: {cards}.",
        "Draft a card: {cards}.",
        "Your {card} is lower than every row. Choose a row to take: {options}.",
        "Choose the row for your {card}: {options}.",
    ]
    out = []
    for template in templates:
        text = re.escape(narrator._(template))
        out.append(re.compile("^" + re.sub(r"\\\{\w+\\\}", ".*", text) + "$"))
    return out


class PlainDriver:
    """Answers one plain-mode client's prompts; ``transcript`` is every line it wrote."""

    def __init__(self, child: Any, lang: str) -> None:
        self.child = child
        self.labels = Labels(lang)
        self.narrator = Narrator(lang)
        self.transcript: list[str] = []
        self.asked = 0
        self.row_choices = 0
        self._answered = 0
        self._decisions = decision_patterns(self.narrator)
        self.prompt_patterns = [re.escape(self.labels("prompt.card")),
                                re.escape(self.labels("prompt.row")),
                                re.escape(self.labels("prompt.draft"))]

    def is_decision(self, line: str) -> bool:
        return any(p.match(line) for p in self._decisions)

    def wait(self, more: list[str] | None = None, timeout: float = 120) -> int:
        """Read up to the next prompt (0 card, 1 row, 2 draft) or one of ``more`` (3, 4…);
        what came before goes to the transcript. pexpect.EOF is index -1."""
        patterns: list[Any] = [*self.prompt_patterns, *(more or []), pexpect.EOF]
        i: int = self.child.expect(patterns, timeout=timeout)
        self.transcript += lines_of(self.child.before)
        if i == len(patterns) - 1:
            return -1
        if i >= 3:
            self.transcript += lines_of(self.child.after)
        return i

    def probe(self, text: str) -> list[str]:
        """Type ``text`` at a prompt; the lines it brought (not added to the transcript)."""
        self.child.sendline(text)
        self.child.expect(self.prompt_patterns)
        return lines_of(self.child.before)

    def options(self) -> list[int]:
        """The numbers offered by the last decision sentence."""
        for line in reversed(self.transcript):
            if self.is_decision(line):
                return [int(x) for x in re.findall(r"\d+", line.split(":", 1)[1])]
        raise AssertionError("no decision was asked")

    def play(self, choose_card: Callable[[list[int]], int], row: int = 2,
             end: str | None = None, on_prompt: Callable[[int], None] | None = None) -> None:
        """Answer every prompt until ``end`` (a regex) is written or the program ends."""
        more = [end] if end else []
        while True:
            i = self.wait(more)
            if i < 0 or i == 3:
                return
            # Online a prompt is written again after lines that came while it waited:
            # each decision is answered once.
            said = sum(1 for line in self.transcript if self.is_decision(line))
            if said == self._answered:
                continue
            self._answered = said
            self.asked += 1
            if on_prompt is not None:
                on_prompt(i)
            if i == 1:
                self.row_choices += 1
                self.child.sendline(str(row))
            else:
                self.child.sendline(str(choose_card(self.options())))

    def game_lines(self) -> list[str]:
        """The transcript without the sentences that ask for a decision."""
        return [line for line in self.transcript if not self.is_decision(line)]


class Proxy:
    """A TCP relay on loopback in front of a server, whose connections can be cut: a
    dropped network, for real, without touching the client or the server."""

    def __init__(self, upstream: str) -> None:
        host, port = upstream.rsplit("//", 1)[1].split(":")
        self.upstream = (host, int(port))
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.url = f"http://127.0.0.1:{self.listener.getsockname()[1]}"
        self.sockets: list[socket.socket] = []
        self.lock = threading.Lock()
        self.cuts = 0
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while True:
            try:
                down, _ = self.listener.accept()
            except OSError:
                return
            try:
                up = socket.create_connection(self.upstream)
            except OSError:
                down.close()
                continue
            with self.lock:
                self.sockets += [down, up]
            for a, b in ((down, up), (up, down)):
                threading.Thread(target=self._pipe, args=(a, b), daemon=True).start()

    @staticmethod
    def _pipe(src: socket.socket, dst: socket.socket) -> None:
        try:
            while data := src.recv(65536):
                dst.sendall(data)
        except OSError:
            pass
        for s in (src, dst):
            with contextlib.suppress(OSError):
                s.shutdown(socket.SHUT_RDWR)

    def cut(self) -> None:
        """Drop every open connection (new ones are still relayed)."""
        with self.lock:
            sockets, self.sockets = self.sockets, []
            self.cuts += 1
        for s in sockets:
            with contextlib.suppress(OSError):
                s.shutdown(socket.SHUT_RDWR)
            s.close()

    def close(self) -> None:
        self.listener.close()
        self.cut()


#: ``spawn(*args, env=None, data=None)``: a ``nimmt`` process under pexpect.
Spawn = Callable[..., Any]


def nimmt_command() -> list[str]:
    exe = Path(sys.executable).parent / "nimmt"
    if exe.exists():
        return [str(exe)]
    return [sys.executable, "-c", "from nimmt.cli import main; main()"]


class Server:
    """A ``nimmt serve`` subprocess on a free loopback port with a SQLite file."""

    def __init__(self, data: Path, env: dict[str, str] | None = None) -> None:
        self.data = data
        #: Settings (``NIMMT_*``) over the tests' own.
        self.env = env or {}
        self.url = ""
        self.proc: subprocess.Popen[str] | None = None

    def start(self, port: int = 0) -> str:
        env = dict(os.environ, NIMMT_BOT_SECONDS="0.05", NIMMT_DISCONNECT_GRACE="30",
                   NIMMT_RATE="1000", NIMMT_BURST="1000",
                   NIMMT_PLAYER_RATE="1000", NIMMT_PLAYER_BURST="1000",
                   NIMMT_ADDRESS_RATE="10000", NIMMT_ADDRESS_BURST="10000",
                   NIMMT_NAMES_PER_MINUTE="1000", NIMMT_REVEAL_PACE="0", NIMMT_ROUND_PAUSE="0",
                   NIMMT_RUNNING_PER_ADDRESS="1000",
                   NIMMT_SEARCH_BOTS_PER_HOST="1000", NIMMT_SEARCH_BOTS_PER_ADDRESS="10000",
                   NIMMT_LISTEN_CPS="0")
        env.update(self.env)
        self.proc = subprocess.Popen(
            [*nimmt_command(), "serve", "--port", str(port), "--db",
             f"sqlite+aiosqlite:///{self.data / 'nimmt.db'}", "--data-dir", str(self.data)],
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env,
        )
        assert self.proc.stdout is not None
        deadline = time.monotonic() + 60
        lines = []
        while time.monotonic() < deadline:
            line = self.proc.stdout.readline()
            if not line:
                break
            lines.append(line)
            m = re.search(r"open (http://127\.0\.0\.1:\d+)/", line)
            if m:
                self.url = m.group(1)
                return self.url
        self.stop()
        pytest.fail("nimmt serve did not start:\n" + "".join(lines))

    def stop(self) -> None:
        if self.proc is not None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
            self.proc = None
