"""Golden records: every one replays, and the commands of their README write them again."""

from __future__ import annotations

import copy
import json
import shlex
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from typer.testing import CliRunner

from nimmt import RecordError, Rules
from nimmt.cli import app
from nimmt.events import GameOver, RoundScored
from nimmt.record import events_sha256, load_record, record_from_dict, replay

GOLDEN = Path(__file__).resolve().parent / "golden"
ROOT = GOLDEN.parents[1]
FILES = sorted(GOLDEN.glob("*.json"))


def _commands() -> dict[str, list[str]]:
    """The ``nimmt simulate`` commands of the README, by the file each writes."""
    out: dict[str, list[str]] = {}
    for line in (GOLDEN / "README.md").read_text().splitlines():
        if line.startswith(".venv/bin/nimmt simulate"):
            args = shlex.split(line)[1:]
            target = args[args.index("--out") + 1]
            out[Path(target).name] = args
    return out


def test_every_preset_variant_and_end_has_a_golden_record() -> None:
    names = {f.name for f in FILES}
    assert names == set(_commands())
    covered: set[str] = set()
    ends: set[str] = set()
    for f in FILES:
        rules = json.loads(f.read_text())["rules"]
        covered.add(rules["preset"])
        covered.update(rules["variants"])
        ends.add(rules["end"])
    assert covered >= {
        "classic",
        "category5",
        "tactics",
        "logic",
        "professional",
        "open",
        "open-hands",
        "jokers",
    }
    assert ends == {"classic", "elimination", "rounds"}
    assert any(
        {"tactics", "professional"} <= set(json.loads(f.read_text())["rules"]["variants"])
        for f in FILES
    )


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.stem)
def test_golden_record_replays(path: Path) -> None:
    record = load_record(path)
    game = replay(record)
    assert game.is_over and record.result is not None
    over = game.events[-1]
    assert type(over) is GameOver
    assert list(over.totals) == record.result.totals == list(game.scores)
    assert list(over.winners) == record.result.winners == list(game.winners)
    assert events_sha256(game.events) == record.events_sha256
    scored = [list(e.penalties) for e in game.events if type(e) is RoundScored]
    assert scored == [r.penalties for r in record.rounds]
    start = record.start_scores
    assert [s + sum(p[i] for p in scored) for i, s in enumerate(start)] == record.result.totals
    schema = json.loads((ROOT / "schemas" / "record.schema.json").read_text())
    jsonschema.validate(json.loads(path.read_text()), schema)


@pytest.mark.parametrize("name", sorted(_commands()))
def test_readme_command_writes_the_golden_record(name: str, tmp_path: Path) -> None:
    args = _commands()[name]
    out = tmp_path / name
    args[args.index("--out") + 1] = str(out)
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 0, result.output
    assert out.read_text() == (GOLDEN / name).read_text()


def _golden(name: str) -> dict[str, Any]:
    return copy.deepcopy(json.loads((GOLDEN / name).read_text()))


def _refusal(data: dict[str, Any]) -> RecordError:
    with pytest.raises(RecordError) as info:
        replay(record_from_dict(data))
    return info.value


def test_edited_golden_records_are_refused_at_the_right_step() -> None:
    # A changed card: the 3rd decision of round 2 names a card its player never held.
    data = _golden("classic.json")
    decision = data["rounds"][1]["decisions"][2]
    held = data["rounds"][1]["deal"]["hands"][decision[1]]
    decision[2] = next(c for c in range(1, 105) if c not in held)
    error = _refusal(data)
    assert error.step == "round 2, decision 3"
    assert f"is not in the hand of player {decision[1]}" in error.reason

    # A changed card in a deal: two hands swap a card, so a later decision is impossible.
    data = _golden("tactics.json")
    hands = data["rounds"][0]["deal"]["hands"]
    a, b = hands[0][0], hands[1][0]
    hands[0][0], hands[1][0] = b, a
    hands[0].sort()
    hands[1].sort()
    first_a = next(
        j
        for j, d in enumerate(data["rounds"][0]["decisions"], 1)
        if d[0] == "card" and d[2] in (a, b)
    )
    assert _refusal(data).step == f"round 1, decision {first_a}"

    # A changed total.
    data = _golden("jokers.json")
    data["result"]["totals"][1] -= 1
    assert _refusal(data).step == "result"

    # A changed version.
    data = _golden("logic.json")
    data["version"] = 2
    error = _refusal(data)
    assert error.step == "version"
    assert "version 2 is not supported" in error.reason

    # Changed penalties of one round.
    data = _golden("elimination.json")
    data["rounds"][0]["penalties"][0] += 5
    assert _refusal(data).step == "round 1, penalties"


def test_golden_rules_parse() -> None:
    for f in FILES:
        record = load_record(f)
        assert Rules.from_dict(record.rules.model_dump()).players == len(record.players)
