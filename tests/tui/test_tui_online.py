"""The terminal client at a real server: two people and a bot, a dropped network, bad input.

``nimmt serve`` runs as a subprocess on loopback; each person is a ``nimmt play``
process in its own pseudo-terminal, in plain mode. One of them reaches the
server through a relay whose connections the test cuts mid-game: the client
must say so, reconnect by itself, be told everything it missed, and finish the
game. What each terminal wrote is checked against the narration of the stored
game record for that seat: every sentence, in order.
"""

from __future__ import annotations

import json
import re
import threading
import urllib.request
from pathlib import Path
from typing import Any

import pexpect

from nimmt.events import (
    CardChosen,
    HandDealt,
    RowTaken,
    TurnStarted,
)
from nimmt.narrate import Narrator, narrator
from nimmt.record import record_from_dict, replay
from nimmt.tui.labels import Labels

from .tui_helpers import PlainDriver, Proxy, Server, Spawn, nimmt_command

EN = Labels("en")


def get_json(url: str) -> Any:
    with urllib.request.urlopen(url, timeout=30) as resp:
        return json.loads(resp.read())


def last_record(url: str, player: str) -> Any:
    games = get_json(f"{url}/api/players/{player}")["games"]
    return record_from_dict(get_json(f"{url}/api/games/{games[0]['id']}")["record"])


def in_order(expected: list[str], lines: list[str]) -> list[str]:
    """The expected sentences missing from ``lines`` (each looked for after the previous
    one). A line is a step of the game as the frames tell it: one or more sentences."""
    text = "\n".join(lines)
    missing = []
    at = 0
    for sentence in expected:
        found = text.find(sentence, at)
        if found < 0:
            missing.append(sentence)
        else:
            at = found + len(sentence)
    return missing


def test_two_terminals_and_a_bot_with_a_dropped_connection(
        spawn: Spawn, server: Server, tmp_path: Path) -> None:
    proxy = Proxy(server.url)
    ana = spawn("play", server.url, "--plain", "--name", "Ana", "--players", "3", "--bots",
                "easy", "--end", "rounds", "--rounds", "2", data=tmp_path / "ana")
    ana.expect(r"Table ([A-Z0-9]{6})\.")
    code = ana.match.group(1)
    ana.expect_exact(EN("online.wait_host"))
    bob = spawn("play", proxy.url, "--plain", "--name", "Bob", "--join", code,
                data=tmp_path / "bob")
    bob.expect_exact(EN("online.wait_guest"))
    ana.expect_exact("Bob sits in seat 3.")
    # W before the game: the seats, as the server's sheet names them.
    ana.sendline("w")
    ana.expect(r"Seat 1: Ana \(you\)\. Seat 2: Easy Bot 1 \(bot\)\. Seat 3: Bob\.")
    ana.sendline("/start")

    drivers = {"ana": PlainDriver(ana, "en"), "bob": PlainDriver(bob, "en")}
    errors: list[BaseException] = []

    def cut_once(kind: int) -> None:
        if drivers["bob"].asked == 4 and proxy.cuts == 0:
            proxy.cut()

    def run(who: str, choose: Any, end: str, hook: Any = None) -> None:
        try:
            drivers[who].play(choose, row=2, end=re.escape(end), on_prompt=hook)
        except BaseException as exc:
            errors.append(exc)

    threads = [
        threading.Thread(target=run, args=("ana", min, EN("results.again"))),
        threading.Thread(target=run, args=("bob", max, EN("results.again_guest"), cut_once)),
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join(240)
    assert not errors, errors
    assert proxy.cuts == 1

    bob_lines = drivers["bob"].transcript
    assert EN("online.lost") in bob_lines
    assert EN("online.back") in bob_lines
    assert bob_lines.index(EN("online.lost")) < bob_lines.index(EN("online.back"))

    record = last_record(server.url, "Ana")
    assert record.players[0] == "Ana" and record.players[2] == "Bob"
    game = replay(record)
    assert game.is_over and len(record.rounds) == 2
    speak = Narrator("en")
    for seat, who in ((0, "ana"), (2, "bob")):
        # The frames tell the others' hidden choices as "Everyone else has chosen." (when
        # the reader is the last to choose), not one by one: every other sentence is there.
        told = speak.narrate(game.events, record.players, viewer=seat, others_chosen=False)
        assert not in_order(told, drivers[who].game_lines()), who
    # Bob played his highest card each turn, Ana her lowest: the game says so.
    assert picks(game.events, {0: min, 2: max})

    for child in (ana, bob):
        child.sendline("/quit")
        child.expect_exact(EN("bye"))
        child.expect(pexpect.EOF)
    proxy.close()


def test_a_users_bot_plays_through_nimmt_bot(server: Server, tmp_path: Path) -> None:
    import subprocess

    (tmp_path / "lowest.py").write_text(
        "class LowestBot:\n"
        "    name = 'lowest'\n"
        "    def choose_card(self, view):\n        return min(view.options)\n"
        "    def choose_row(self, view):\n        return 4\n"
        "    def draft_card(self, view):\n        return min(view.options)\n"
    )
    done = subprocess.run(
        [*nimmt_command(), "bot", server.url, "--bot", "lowest:LowestBot", "--name", "Low",
         "--players", "3", "--bots", "easy", "--end", "rounds", "--rounds", "1"],
        capture_output=True, text=True, timeout=120, cwd=tmp_path,
        env={"PATH": "/usr/bin:/bin", "PYTHONPATH": str(tmp_path), "LANG": "C.UTF-8"},
    )
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert re.fullmatch(r"Low plays at table [A-Z0-9]{6}\.", lines[0])
    assert lines[-1].startswith("Game over:")
    record = last_record(server.url, "Low")
    game = replay(record)
    assert picks(game.events, {0: min})
    assert all(ev.row == 4 for ev in game.events if type(ev) is RowTaken and ev.player == 0
               and ev.reason == "too_low")
    assert game.is_over
    speak = Narrator("en")
    # The server's narration, printed as it came (one line per step of each message): the
    # other players' choices are not told one by one, but once, when only this seat is
    # left to choose.
    told = [line for line in lines[1:] if line != "Everyone else has chosen."]
    hidden = [e for e in game.events
              if not (type(e) is CardChosen and e.player != 0 and not e.face_up)]
    assert " ".join(told) == speak.announce(hidden, record.players, 0)


def picks(events: list[Any], rules: dict[int, Any]) -> bool:
    """Each seat of ``rules`` chose by its rule (min or max of its hand) at every turn; a
    choice said again (an answer repeated after a reconnection) counts once."""
    hands: dict[int, set[int]] = {}
    last: dict[int, int | None] = {}
    for ev in events:
        if type(ev) is HandDealt and ev.player in rules:
            hands[ev.player], last[ev.player] = set(ev.hand), None
        elif type(ev) is CardChosen and ev.player in rules and ev.card != last[ev.player]:
            assert ev.card == rules[ev.player](hands[ev.player]), ev
            hands[ev.player].discard(ev.card)
            last[ev.player] = ev.card
        elif type(ev) is TurnStarted:
            last = dict.fromkeys(last)
    return bool(hands)


def test_wrong_code_and_no_server_are_one_sentence(spawn: Spawn, server: Server) -> None:
    child = spawn("play", server.url, "--plain", "--name", "Cleo", "--join", "ZZZZZZ")
    child.expect_exact(narrator("en").refusal_sentence("no_table"))
    child.expect(pexpect.EOF)
    assert "Traceback" not in child.before
    child.close()
    assert child.exitstatus == 1

    child = spawn("play", "http://127.0.0.1:9", "--plain", "--name", "Cleo")
    child.expect_exact(EN("online.unreachable", url="http://127.0.0.1:9"))
    child.expect(pexpect.EOF)
    assert "Traceback" not in child.before
    child.close()
    assert child.exitstatus == 1


def test_a_server_that_goes_away_mid_game(spawn: Spawn, server: Server) -> None:
    child = spawn("play", server.url, "--plain", "--name", "Dora", "--players", "2", "--bots",
                  "easy", "--retries", "2")
    driver = PlainDriver(child, "en")
    assert driver.wait() == 0
    child.sendline("x")
    child.expect_exact(EN("unknown_key", key="x"))
    server.stop()
    child.expect_exact(EN("online.lost"), timeout=60)
    child.expect_exact(EN("online.retrying", attempt=2), timeout=60)
    child.expect(r"The server cannot be reached\. The game goes on there: rejoin with "
                 r"nimmt play http://127\.0\.0\.1:\d+ --join [A-Z0-9]{6}\.", timeout=60)
    child.expect(pexpect.EOF)
    assert "Traceback" not in child.before
    child.close()
    assert child.exitstatus == 1
