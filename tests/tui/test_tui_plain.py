"""The plain mode, played whole through a real pseudo-terminal, in each language.

Each test plays ``nimmt play --plain`` against bots to the end of the game,
typing a card at every prompt and a row at every row choice, with a few
shortcuts and bad inputs on the way. The game's record (``--record``) is then
replayed through the engine, and the transcript must be, line by line, exactly
the narration of the replayed events for the player's seat, one line per resolution
step of each stretch between the player's decisions (``told_locally``) — every reveal,
every placement, every row taken and chosen, every round's scores and the end
— framed by the opening lines and the results.
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pexpect
import pytest

from nimmt.narrate import Narrator
from nimmt.record import load_record, replay
from nimmt.tui.labels import Labels

from .tui_helpers import PlainDriver, Spawn, lines_of, nimmt_command, told_locally


def expected_transcript(record_path: Path, lang: str) -> list[str]:
    """What the plain mode must have written, from the record alone."""
    labels = Labels(lang)
    speak = Narrator(lang)
    rec = load_record(record_path)
    game = replay(rec)
    names = list(rec.players)
    lines = [labels("mode.plain"), speak.rules_sentence(game.rules),
             speak.players_sentence(names)]
    lines += told_locally(rec, speak)
    lines.append(labels("results.title"))
    order = sorted(range(len(names)), key=lambda p: (game.scores[p], p))
    place, last = 0, None
    for i, p in enumerate(order, 1):
        if game.scores[p] != last:
            place, last = i, game.scores[p]
        who = labels("seat.you", name=names[p]) if p == 0 else names[p]
        lines.append(f"{place}. {who}: {speak.count_bullheads(game.scores[p])}")
    winners = [labels("seat.you", name=names[p]) if p == 0 else names[p] for p in game.winners]
    key = "results.winner" if len(winners) == 1 else "results.winners"
    lines.append(labels(key, names=speak.join(winners)))
    lines.append(labels("record.saved", path=record_path))
    lines.append(labels("results.again"))
    return lines


@pytest.mark.parametrize(("lang", "seed"), [("en", 3), ("sr", 2), ("cs", 8)])
def test_whole_game_in_plain_mode(spawn: Spawn, tmp_path: Path, lang: str, seed: int) -> None:
    record = tmp_path / "game.json"
    child = spawn("play", "--plain", "--lang", lang, "--seed", str(seed), "--players", "3",
                  "--bots", "medium", "--limit", "25", "--record", str(record))
    driver = PlainDriver(child, lang)
    labels, speak = driver.labels, driver.narrator
    probed: dict[str, list[str]] = {}

    def probes(kind: int) -> None:
        if probed or kind != 0:
            return
        # At the first card prompt: the shortcuts and bad input, each answered in one line.
        probed["unknown"] = driver.probe("x")
        probed["not_held"] = driver.probe("105")
        probed["scores"] = driver.probe("s")
        probed["chosen"] = driver.probe("t")
        probed["who"] = driver.probe("w")
        probed["rows"] = driver.probe("v")
        probed["row2"] = driver.probe("v2")
        probed["card"] = driver.probe("c 55")
        probed["help"] = driver.probe("?")
        probed["hint"] = driver.probe("h")
        probed["again"] = driver.probe("")

    end = re.escape(labels("results.again"))
    driver.play(min, row=2, end=end, on_prompt=probes)
    child.sendline("/quit")
    child.expect_exact(labels("bye"))
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0

    assert driver.row_choices >= 1, "the game should have asked for a row at least once"
    assert driver.game_lines() == expected_transcript(record, lang)

    assert probed["unknown"] == [labels("unknown_key", key="x")]
    assert probed["not_held"] == [speak._("You do not hold that card.")]
    assert probed["scores"][0].startswith(speak._("Scores: {scores}.").split("{")[0])
    assert probed["chosen"] == [speak._("Chosen: {chosen}. Not yet: {waiting}.").format(
        chosen=speak.join(["Ana", "Bob"]), waiting=speak._("you"))]
    me, *bots = load_record(record).players
    nobody = speak.count_bullheads(0)
    assert probed["who"] == [speak._("At the table: {players}.").format(players="; ".join([
        speak._("{name}: {bullheads}").format(name=speak._("{name} (you)").format(name=me),
                                              bullheads=nobody),
        *(speak._("{name} (bot): {bullheads}").format(name=bot, bullheads=nobody)
          for bot in bots)]))]
    assert probed["rows"][0].startswith(speak._("Row {number}: {cards} — {count}, {bullheads}.")
                                        .split("{")[0] + "1")
    assert probed["row2"][0].startswith(speak._("Row {number}: {cards} — {count}, {bullheads}.")
                                        .split("{")[0] + "2")
    assert probed["card"] == [speak.bullheads_sentence(55)]
    assert probed["help"][0] == labels("help.title") and len(probed["help"]) >= 11
    # One line, in the player's language: the advice on the card asked for.
    (hint,) = probed["hint"]
    play = speak._("Play {card}: it is the only card you can play.").split("{")[0]
    assert hint.startswith(play), hint
    assert driver.is_decision(probed["again"][0])


def test_row_choice_refuses_a_row_that_is_not_there(spawn: Spawn) -> None:
    child = spawn("play", "--plain", "--seed", "3", "--players", "3", "--bots", "medium")
    driver = PlainDriver(child, "en")
    while True:
        i = driver.wait()
        assert i >= 0
        if i == 1:
            break
        child.sendline(str(min(driver.options())))
    assert driver.probe("7") == ["Rows are numbered 1 to 4."]
    assert driver.probe("0") == ["Rows are numbered 1 to 4."]
    child.sendline("3")
    driver.wait()
    assert any(re.match(r"You take row 3, \d+ bullheads?, and start it with \d+\.", line)
               for line in driver.transcript)
    child.sendline("/quit")
    child.expect(r"Goodbye\.")


def test_plain_is_chosen_for_a_pipe_and_a_dumb_terminal(spawn: Spawn, tmp_path: Path) -> None:
    done = subprocess.run([*nimmt_command(), "play", "--seed", "1"], input="?\n/quit\n",
                          capture_output=True, text=True, timeout=60,
                          env={"PATH": "/usr/bin:/bin", "NIMMT_DATA_DIR": str(tmp_path),
                               "LANG": "C.UTF-8"})
    assert done.returncode == 0, done.stderr
    out = lines_of(done.stdout)
    assert out[0] == Labels("en")("mode.plain")
    assert "Keys and commands (type one and press Enter):" in out
    assert out[-1] == "Goodbye."
    assert "\x1b" not in done.stdout, "plain mode writes no escape sequence"

    for env in ({"TERM": "dumb"}, {"NIMMT_PLAIN": "1", "TERM": "xterm-256color"}):
        child = spawn("play", "--seed", "1", env=env)
        child.expect_exact(Labels("en")("mode.plain"))
        child.expect_exact("Your card: ")
        child.sendeof()
        child.expect_exact("Goodbye.")


def test_language_from_the_environment(spawn: Spawn) -> None:
    child = spawn("play", "--plain", "--seed", "2", env={"LANG": "cs_CZ.UTF-8"})
    child.expect_exact(Labels("cs")("mode.plain"))
    child.expect_exact(Labels("cs")("prompt.card"))
    child.sendline("/quit")
    child.expect_exact(Labels("cs")("bye"))


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--preset", "open+tactics"], "Cannot play: tactics cannot be combined with open"),
        (["--bots", "nosuchbot"], "Cannot play: unknown bot 'nosuchbot'"),
        (["--bots", "easy,hard", "--players", "5"], "Bad bots: 5 players need 4 bots"),
        (["--lang", "xx"], "no catalog for language 'xx'"),
        (["--keys", "rows=s"], "Bad keys: the key 's' is given to both"),
    ],
)
def test_bad_options_are_one_sentence(args: list[str], message: str) -> None:
    done = subprocess.run([*nimmt_command(), "play", "--plain", *args], capture_output=True,
                          text=True, timeout=60, stdin=subprocess.DEVNULL)
    assert done.returncode == 2
    assert message in done.stderr
    assert "Traceback" not in done.stderr + done.stdout
