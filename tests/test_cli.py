"""The ``nimmt`` command, run for real as a subprocess."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import nimmt
from nimmt.record import load_record, replay

ROOT = Path(__file__).resolve().parents[1]


def _nimmt() -> str:
    beside = Path(sys.executable).parent / "nimmt"
    if beside.exists():
        return str(beside)
    found = shutil.which("nimmt")
    if found is None:
        pytest.fail("the nimmt console script is not installed (run scripts/setup)")
    return found


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [_nimmt(), *args], capture_output=True, text=True, timeout=120, cwd=ROOT, check=False
    )


def test_simulate_then_replay(tmp_path: Path) -> None:
    out = tmp_path / "sub" / "game.json"
    done = run(
        "simulate",
        "--preset",
        "category5+tactics+professional",
        "--players",
        "5",
        "--seed",
        "3",
        "--names",
        "Ana,Bob,Cleo,Dan,Eve",
        "--out",
        str(out),
    )
    assert done.returncode == 0, done.stderr
    assert f"Wrote {out}" in done.stdout
    record = load_record(out)
    game = replay(record)
    assert game.is_over
    assert record.rules.variants == ["tactics", "professional"]
    assert record.rules.limit == 75

    told = run("replay", str(out))
    assert told.returncode == 0, told.stderr
    lines = told.stdout.splitlines()
    assert lines[0] == (
        "Rules: Category 5 + Tactics + Professional, 5 players, "
        "the game ends when someone reaches 75."
    )
    assert lines[1] == "Players: Ana, Bob, Cleo, Dan, Eve."
    assert any(line.startswith("Cards revealed: ") for line in lines)
    assert sum(line.startswith("Turn ") for line in lines) == 10 * len(record.rounds)
    winner = record.players[record.result.winners[0]] if record.result else "?"
    assert any(line.startswith(f"Game over: {winner} ") for line in lines)
    assert lines[-1].startswith(f"Record verified: {len(record.rounds)} rounds")


def test_same_command_same_record(tmp_path: Path) -> None:
    a, b = tmp_path / "a.json", tmp_path / "b.json"
    for out in (a, b):
        args = ["--preset", "jokers", "--players", "3", "--seed", "12", "--out", str(out)]
        assert run("simulate", *args).returncode == 0
    assert a.read_bytes() == b.read_bytes()
    c = tmp_path / "c.json"
    assert (
        run(
            "simulate", "--preset", "jokers", "--players", "3", "--seed", "13", "--out", str(c)
        ).returncode
        == 0
    )
    assert c.read_bytes() != a.read_bytes()


def test_end_modes(tmp_path: Path) -> None:
    out = tmp_path / "r.json"
    done = run("simulate", "--end", "rounds", "--rounds", "2", "--players", "3", "--out", str(out))
    assert done.returncode == 0, done.stderr
    assert len(load_record(out).rounds) == 2
    done = run(
        "simulate",
        "--end",
        "elimination",
        "--limit",
        "30",
        "--players",
        "4",
        "--seed",
        "5",
        "--out",
        str(out),
    )
    assert done.returncode == 0, done.stderr
    record = load_record(out)
    assert (record.rules.end, record.rules.limit) == ("elimination", 30)
    told = run("replay", str(out))
    assert " is out with " in told.stdout


def test_bad_record_exits_1_with_the_reason(tmp_path: Path) -> None:
    out = tmp_path / "game.json"
    assert run("simulate", "--seed", "2", "--out", str(out)).returncode == 0
    data = json.loads(out.read_text())
    data["rounds"][0]["decisions"][2][2] = 0 - 3  # joker 0.7 in a game without jokers
    out.write_text(json.dumps(data))
    told = run("replay", str(out))
    assert told.returncode == 1
    assert told.stdout == ""
    seat = data["rounds"][0]["decisions"][2][1]
    assert told.stderr.strip() == (
        f"Record refused: round 1, decision 3: card 0.7 is not in the hand of player {seat} "
        f"(seat {seat + 1})"
    )

    data["version"] = 7
    out.write_text(json.dumps(data))
    told = run("replay", "--quiet", str(out))
    assert told.returncode == 1
    assert "Record refused: version: version 7 is not supported" in told.stderr

    told = run("replay", str(tmp_path / "none.json"))
    assert told.returncode == 1
    assert told.stderr.startswith("Record refused: file: cannot read")


def test_quiet_replay(tmp_path: Path) -> None:
    out = tmp_path / "game.json"
    assert run("simulate", "--preset", "logic", "--players", "3", "--out", str(out)).returncode == 0
    told = run("replay", "-q", str(out))
    assert told.returncode == 0
    assert told.stdout.count("\n") == 1 and told.stdout.startswith("Record verified:")


def test_bad_rules_and_names() -> None:
    done = run("simulate", "--preset", "open+tactics", "--out", "-")
    assert done.returncode == 2
    assert "tactics cannot be combined with open" in done.stderr
    done = run("simulate", "--end", "rounds", "--out", "-")
    assert done.returncode == 2
    assert "number of rounds" in done.stderr
    done = run("simulate", "--names", "Ana,Bob", "--out", "-")
    assert done.returncode == 2
    assert "4 non-empty names" in done.stderr


def test_simulate_to_stdout_and_schema() -> None:
    done = run("simulate", "--preset", "open", "--players", "3", "--seed", "4", "--out", "-")
    assert done.returncode == 0
    assert json.loads(done.stdout)["rules"]["variants"] == ["open"]
    # '-' reads standard input too: a pipe from simulate into replay.
    told = subprocess.run([_nimmt(), "replay", "--quiet", "-"], input=done.stdout,
                          capture_output=True, text=True, timeout=120, cwd=ROOT)
    assert told.returncode == 0 and told.stdout.startswith("Record verified: "), told.stderr
    bad = subprocess.run([_nimmt(), "replay", "-"], input="{", capture_output=True,
                         text=True, timeout=120, cwd=ROOT)
    assert bad.returncode == 1 and bad.stderr.startswith("Record refused: file: not valid JSON")
    schema = run("schema")
    assert schema.stdout == (ROOT / "schemas" / "record.schema.json").read_text()


def test_help_lists_commands() -> None:
    done = run("--help")
    assert done.returncode == 0
    for command in ("replay", "simulate", "schema"):
        assert command in done.stdout


def test_replay_speaks_the_language_asked_for() -> None:
    golden = str(ROOT / "tests" / "golden" / "jokers.json")
    english = run("replay", golden).stdout.splitlines()
    for lang, rules, turn in (("sr", "Pravila: ", "Potez 1."), ("cs", "Pravidla: ", "Tah 1.")):
        told = run("replay", "--lang", lang, golden)
        assert told.returncode == 0, told.stderr
        lines = told.stdout.splitlines()
        assert len(lines) == len(english)
        assert lines[0].startswith(rules) and turn in lines
        assert not any(line.startswith(("Turn ", "Cards revealed")) for line in lines)
        assert any("0," in line for line in lines)  # jokers with a decimal comma
        # The verdict too, in the listener's language, with the same digest.
        verdict = {"sr": "Zapis je proveren: ", "cs": "Záznam ověřen: "}[lang]
        assert lines[-1].startswith(verdict) and lines[-1][-17:] == english[-1][-17:]
        assert "rounds" not in lines[-1] and "decisions" not in lines[-1]
    told = run("replay", "--lang", "xx", golden)
    assert told.returncode == 2
    assert told.stderr.startswith("no catalog for language 'xx'; known: cs, en, ")


# -- conventions ---------------------------------------------------------------------------


def test_help_version_and_python_m() -> None:
    short, long = run("-h"), run("--help")
    assert short.returncode == 0 and short.stdout == long.stdout
    assert "--install-completion" in short.stdout
    version = run("--version")
    assert version.returncode == 0
    assert version.stdout.strip() == f"nimmt {nimmt.__version__}"
    assert run("-V").stdout == version.stdout
    module = subprocess.run([sys.executable, "-m", "nimmt", "simulate", "-h"],
                            capture_output=True, text=True, timeout=120, cwd=ROOT)
    assert module.returncode == 0 and "--out" in module.stdout


@pytest.mark.parametrize(
    ("args", "code", "sentence"),
    [
        (("simulate", "--preset", "bogus", "--out", "-"), 2, "Bad rules: unknown rules 'bogus'"),
        (("simulate", "--out", "/proc/nimmt/game.json"), 1, "Cannot write /proc/nimmt/game.json"),
        (("simulate", "--out", "/"), 1, "Cannot write /: "),
        (("serve", "--data-dir", "/proc/nimmt-nope"), 1,
         "Cannot use the data directory /proc/nimmt-nope"),
    ],
)
def test_a_users_mistake_is_one_sentence_and_an_exit_code(
    args: tuple[str, ...], code: int, sentence: str
) -> None:
    done = run(*args)
    assert done.returncode == code, done.stderr
    assert done.stderr.startswith(sentence), done.stderr
    assert len(done.stderr.strip().splitlines()) == 1
    assert "Traceback" not in done.stderr


def on_a_terminal(args: list[str], env: dict[str, str]) -> str:
    """What ``nimmt ARGS`` writes when its standard output is a terminal (a pseudo-terminal
    here), as a person at a terminal or a screen reader reading one would get it."""
    import os
    import pty

    leader, follower = pty.openpty()
    full_env = {**os.environ, "COLUMNS": "100", "TERM": "xterm-256color", **env}
    for name in ("NO_COLOR", "NIMMT_PLAIN"):
        if name not in env:
            full_env.pop(name, None)
    proc = subprocess.Popen([_nimmt(), *args], stdout=follower, stderr=subprocess.DEVNULL,
                            stdin=subprocess.DEVNULL, cwd=ROOT, env=full_env)
    os.close(follower)
    chunks = []
    while True:
        try:
            chunk = os.read(leader, 65536)
        except OSError:  # the terminal closed: the program ended
            break
        if not chunk:
            break
        chunks.append(chunk)
    os.close(leader)
    assert proc.wait(timeout=120) == 0
    return b"".join(chunks).decode()


BOXES = "─│┃━┏┓┗┛╭╮╰╯┡┩╇"


def test_plain_output_on_a_terminal_has_no_escapes_and_no_boxes() -> None:
    arena = ["arena", "--bots", "dodger,cheapest", "--players", "3", "--games", "2",
             "--single-round", "--workers", "1", "--quiet"]
    drawn = on_a_terminal(arena, {})
    assert any(ch in drawn for ch in BOXES) and "\x1b[" in drawn  # a terminal gets tables
    for args, env in (([*arena, "--plain"], {}), (["--plain", *arena], {}),
                      (arena, {"NO_COLOR": "1"}), (arena, {"TERM": "dumb"}),
                      (arena, {"NIMMT_PLAIN": "1"})):
        told = on_a_terminal(args, env)
        assert "\x1b" not in told, (args, env)
        assert not any(ch in told for ch in BOXES), (args, env)
        assert "1. dodger: " in told and "dodger against cheapest" in told, (args, env)
