"""The full-screen face in a real pseudo-terminal (not the test pilot): it draws, it takes
single keys, Ctrl+Q leaves it, and a failure to start is one sentence once the screen is
closed."""

from __future__ import annotations

import pexpect

from .tui_helpers import Spawn

TTY = {"TERM": "xterm-256color"}


def test_full_screen_starts_speaks_and_quits(spawn: Spawn) -> None:
    child = spawn("play", "--seed", "1", env=TTY)
    child.expect_exact("Choose a card to play")
    child.send("s")
    child.expect_exact("Scores:")
    child.sendcontrol("q")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0


def test_no_server_is_one_sentence_after_the_screen(spawn: Spawn) -> None:
    child = spawn("play", "http://127.0.0.1:9", "--name", "Eve", env=TTY)
    child.expect_exact("No nimmt server answers at http://127.0.0.1:9.")
    child.expect(pexpect.EOF)
    assert "Traceback" not in child.before
    child.close()
    assert child.exitstatus == 1
