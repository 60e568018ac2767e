"""The terminal's clients and accounts: keep a name, sign in from another machine with
``nimmt play`` and ``nimmt bot``, end the sessions.

``nimmt serve`` runs as a subprocess on loopback; every client is a ``nimmt`` process
in a pseudo-terminal (a password is typed at its prompt, never given as an argument),
each "machine" with its own data directory (where sessions are kept).
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import urllib.request
from pathlib import Path
from typing import Any

import pexpect

from nimmt.narrate import narrator
from nimmt.tui.labels import Labels

from .tui_helpers import PlainDriver, Server, Spawn, nimmt_command

EN = Labels("en")
PASSWORD = "a long passphrase"


def get_json(url: str) -> Any:
    with urllib.request.urlopen(url, timeout=30) as resp:
        return json.loads(resp.read())


def quit_(child: Any) -> None:
    child.sendline("/quit")
    child.expect_exact(EN("bye"))
    child.expect(pexpect.EOF)


def test_keep_a_name_then_sign_in_with_play_and_bot(
        spawn: Spawn, server: Server, tmp_path: Path) -> None:
    home, laptop = tmp_path / "home", tmp_path / "laptop"
    # A guest plays at home; the name is then claimed there.
    guest = spawn("play", server.url, "--plain", "--name", "Ana", data=home)
    guest.expect(r"Table ([A-Z0-9]{6})\.")
    code = guest.match.group(1)
    guest.expect_exact(EN("online.wait_host"))
    quit_(guest)
    claim = spawn("account", "claim", server.url, "--name", "Ana", data=home)
    claim.expect_exact("New password for Ana: ")
    claim.sendline(PASSWORD)
    claim.expect_exact("The same again: ")
    claim.sendline(PASSWORD)
    claim.expect_exact("Ana is yours now")
    claim.expect(pexpect.EOF)
    codes = re.findall(r"^[A-Z2-9]{4}-[A-Z2-9]{4}-[A-Z2-9]{4}-[A-Z2-9]{4}\r?$", claim.before,
                       flags=re.M)
    assert len(codes) == 8, claim.before
    assert PASSWORD not in claim.before  # typed without echo

    # On another machine, a wrong password is one sentence and a way on.
    wrong = spawn("play", server.url, "--plain", "--name", "Ana", "--sign-in", data=laptop)
    wrong.expect_exact("Password for Ana: ")
    wrong.sendline("not the password")
    wrong.expect_exact(narrator("en").refusal_sentence("sign_in_failed") + " "
                       + EN("how.sign_in_failed"))
    wrong.expect(pexpect.EOF)
    assert "Traceback" not in wrong.before
    # Without --sign-in the name is refused, with a hint.
    taken = spawn("play", server.url, "--plain", "--name", "Ana", data=laptop)
    taken.expect_exact(EN("how.name_taken"))
    taken.expect(pexpect.EOF)

    # Signed in, the laptop is Ana: her seat at her table is hers there too; the session
    # is kept for the next time.
    play = spawn("play", server.url, "--plain", "--name", "Ana", "--sign-in", "--join", code,
                 data=laptop)
    play.expect_exact("Password for Ana: ")
    play.sendline(PASSWORD)
    play.expect_exact(EN("online.hello", name="Ana"))
    play.expect_exact(EN("online.table", url=server.url, code=code))
    play.expect_exact(EN("online.wait_guest"))
    quit_(play)
    again = spawn("play", server.url, "--plain", "--name", "Ana", "--join", code, data=laptop)
    again.expect_exact(EN("online.hello", name="Ana"))  # no password asked
    again.expect_exact(EN("online.wait_guest"))
    quit_(again)
    assert get_json(f"{server.url}/api/tables/{code}")["seats"][0]["name"] == "Ana"
    stored = json.loads((laptop / "client.json").read_text())
    assert list(stored[server.url]["players"]) == ["Ana"]
    assert oct((laptop / "client.json").stat().st_mode & 0o777) == "0o600"

    # A bot signs in with the password from its environment and plays a game as Ana.
    (tmp_path / "lowest.py").write_text(
        "class LowestBot:\n"
        "    def choose_card(self, view):\n        return min(view.options)\n"
        "    def choose_row(self, view):\n        return 1\n"
        "    def draft_card(self, view):\n        return min(view.options)\n"
    )
    env = dict(os.environ, NIMMT_PASSWORD=PASSWORD, NIMMT_DATA_DIR=str(tmp_path / "bot"),
               PYTHONPATH=os.pathsep.join([str(tmp_path), os.environ.get("PYTHONPATH", "")]))
    done = subprocess.run(
        [*nimmt_command(), "bot", server.url, "--bot", "lowest:LowestBot", "--name", "Ana",
         "--sign-in", "--players", "2", "--bots", "easy", "--end", "rounds", "--rounds", "1"],
        capture_output=True, text=True, timeout=120, env=env)
    assert done.returncode == 0, done.stderr
    assert re.fullmatch(r"Ana plays at table [A-Z0-9]{6}\.", done.stdout.splitlines()[0])
    games = get_json(f"{server.url}/api/players/Ana")["games"]
    assert len(games) == 1 and games[0]["seat"] == 0
    # A bot with no password and no terminal stops at once, saying where one comes from.
    env.pop("NIMMT_PASSWORD")
    done = subprocess.run(
        [*nimmt_command(), "bot", server.url, "--bot", "lowest:LowestBot", "--name", "Ana",
         "--sign-in"], capture_output=True, text=True, timeout=120, env=env,
        stdin=subprocess.DEVNULL)
    assert done.returncode == 2 and "NIMMT_PASSWORD" in done.stderr, done.stderr


def test_sign_out_everywhere_ends_a_play_session(
        spawn: Spawn, server: Server, tmp_path: Path) -> None:
    home, laptop = tmp_path / "home", tmp_path / "laptop"
    guest = spawn("play", server.url, "--plain", "--name", "Bea", data=home)
    guest.expect_exact(EN("online.wait_host"))
    quit_(guest)
    claim = spawn("account", "claim", server.url, "--name", "Bea", data=home,
                  env={"NIMMT_NEW_PASSWORD": PASSWORD})
    claim.expect_exact("Bea is yours now")
    claim.expect(pexpect.EOF)
    play = spawn("play", server.url, "--plain", "--name", "Bea", "--players", "2", "--bots",
                 "easy", "--sign-in", data=laptop, env={"NIMMT_PASSWORD": PASSWORD})
    driver = PlainDriver(play, "en")
    assert driver.wait() == 0  # the game is on, a card is asked
    listing = spawn("account", "sessions", server.url, "--name", "Bea", data=home)
    listing.expect(pexpect.EOF)
    lines = [ln for ln in listing.before.splitlines() if ln.startswith("Session ")]
    assert len(lines) == 2 and sum("(this one)" in ln for ln in lines) == 1, lines
    out = spawn("account", "sign-out", server.url, "--name", "Bea", "--everywhere", data=home)
    out.expect_exact("Bea is signed out everywhere.")
    out.expect(pexpect.EOF)
    play.expect_exact(narrator("en").refusal_sentence("signed_out") + " "
                      + EN("how.signed_out"), timeout=60)
    play.expect(pexpect.EOF, timeout=60)
    assert "Traceback" not in play.before
    assert "cannot be reached" not in play.before
