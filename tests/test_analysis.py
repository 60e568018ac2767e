"""Post-game analysis: stable for a seed on a golden game, from the deciding seat's view only.

The golden analysis (``tests/golden/analysis/classic.json``) pins the review of
``tests/golden/classic.json`` for one seed and budget: the sentences in every
language, the summaries, the costliest decisions and a digest of every decision's
figures. When the search changes on purpose, write it again with
``.venv/bin/python tests/test_analysis.py`` and review the diff.
"""

from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from nimmt import Rules, View
from nimmt.bots.play import play_game
from nimmt.cli import app
from nimmt.narrate import Narrator
from nimmt.record import load_record, record_from_game
from nimmt.sim import analysis
from nimmt.sim.search import ExpertBot

GOLDEN = Path(__file__).resolve().parent / "golden"
RECORD = GOLDEN / "classic.json"
PINNED = GOLDEN / "analysis" / "classic.json"
SEED = 1
ROLLOUTS = 150


def golden_analysis() -> dict[str, Any]:
    """The analysis of the golden classic game, as pinned."""
    review = analysis.analyse(load_record(RECORD), seed=SEED, rollouts=ROLLOUTS)
    data = review.to_dict()
    digest = hashlib.sha256(
        json.dumps(data["decisions"], sort_keys=True).encode()
    ).hexdigest()
    return {
        "command": f"nimmt analyse {RECORD.relative_to(GOLDEN.parents[1])} "
        f"--seed {SEED} --rollouts {ROLLOUTS}",
        "text": {lang: Narrator(lang).review_sentences(review) for lang in ("en", "sr", "cs")},
        "players": data["players"],
        "costliest": [d for d in data["decisions"] if d["index"] in data["costliest"]],
        "decisions": len(data["decisions"]),
        "decisions_sha256": digest,
    }


def test_the_golden_analysis_is_stable() -> None:
    assert golden_analysis() == json.loads(PINNED.read_text())


def test_analysis_sees_only_the_deciding_seat(monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list[tuple[int | None, bool]] = []
    evaluate = ExpertBot.evaluate

    def spy(self: ExpertBot, view: View) -> Any:
        assert type(view) is View
        assert view.pending is not None and view.player in view.pending.players
        seen.append((view.player, view.hands is None))
        return evaluate(self, view)

    monkeypatch.setattr(ExpertBot, "evaluate", spy)
    game = play_game(Rules.preset("classic", 3, limit=15), ["cheapest"] * 3, seed=4)
    review = analysis.analyse_game(game, rollouts=20)
    assert [p for p, _ in seen] == [d.seat for d in review.decisions]
    assert all(hidden for _, hidden in seen)  # no hand but its own in any view
    for d in review.decisions:
        assert d.advice.player == d.seat
        assert {o.option for o in d.advice.options} >= {d.played, d.advice.best}
        assert d.loss >= 0 and (d.played != d.advice.best or d.loss == 0)


def test_reviews_add_up() -> None:
    game = play_game(Rules.preset("classic", 4, limit=20), ["cheapest"] * 4, seed=2)
    review = analysis.analyse_game(game, ["Ana", "Bob", "Cleo", "Dan"], rollouts=40, top=2)
    assert len(review.costliest) == 2
    assert review.costliest[0].loss >= review.costliest[1].loss > 0
    assert sum(p.decisions for p in review.players) == len(review.decisions)
    for p in review.players:
        assert 0 <= p.agreed <= p.decisions and p.extra >= 0
        assert p.total == game.scores[p.seat]
    sentences = Narrator("en").review_sentences(review, viewer=1)
    assert sentences[0].startswith("Ana: ") and sentences[1].startswith("you: ")
    assert len(sentences) == 4 + 1 + 2
    # The same seed and budget, the same review.
    record = record_from_game(game, ["Ana", "Bob", "Cleo", "Dan"])
    assert analysis.analyse(record, rollouts=40, top=2) == review


def test_an_analysis_stops_at_its_time_and_says_it_is_partial(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A clock that moves one second per reading: a review with eight seconds reads it once
    to start and once before each decision, so it reviews seven decisions and counts the
    rest; each search gets the seconds that are left, at most a decision's."""
    budgets: list[float | None] = []
    evaluate = ExpertBot.evaluate

    def spy(self: ExpertBot, view: View) -> Any:
        budgets.append(self.budget.seconds)
        return evaluate(self, view)

    monkeypatch.setattr(ExpertBot, "evaluate", spy)
    game = play_game(Rules.preset("classic", 3, limit=15), ["cheapest"] * 3, seed=4)
    record = record_from_game(game)
    whole = analysis.analyse(record, rollouts=20)
    ticks = iter(range(10_000))
    part = analysis.analyse(record, rollouts=20, seconds=8.0, decision_seconds=2.5,
                            clock=lambda: float(next(ticks)))
    assert not whole.partial and whole.unreviewed == 0
    assert part.partial and len(part.decisions) == 7
    assert part.unreviewed == len(whole.decisions) - 7
    # The first decisions, exactly as without a time limit (their rollouts fit).
    assert part.decisions == whole.decisions[:7]
    assert budgets[len(whole.decisions):] == [2.5] * 5 + [2.0, 1.0]
    assert sum(p.decisions for p in part.players) == 7
    assert part.to_dict()["partial"] is True and part.to_dict()["unreviewed"] == part.unreviewed
    sentences = Narrator("en").review_sentences(part)
    assert sentences[0] == ("The time for the analysis ran out: it covers the first 7 "
                            "decisions.")
    assert Narrator("sr").review_sentences(part)[0] == (
        "Vreme za analizu je isteklo: obuhvata prvih 7 odluka.")
    assert not Narrator("en").review_sentences(whole)[0].startswith("The time")


def test_analyse_command(tmp_path: Path) -> None:
    runner = CliRunner()
    res = runner.invoke(app, ["analyse", str(RECORD), "--rollouts", "30", "--top", "2"])
    assert res.exit_code == 0, res.output
    lines = res.output.strip().splitlines()
    assert lines[0].startswith("Ana: ") and lines[4] == "The costliest decisions:"
    assert len(lines) == 7 and all("\x1b" not in line for line in lines)
    res = runner.invoke(app, ["analyse", str(RECORD), "--rollouts", "30", "--json", "--lang", "sr"])
    assert res.exit_code == 0, res.output
    data = json.loads(res.output)
    assert data["language"] == "sr" and data["text"][4] == "Najskuplje odluke:"
    assert len(data["costliest"]) == 3 and data["rollouts"] == 30
    bad = tmp_path / "bad.json"
    data = json.loads(RECORD.read_text())
    data["events_sha256"] = "0" * 64
    bad.write_text(json.dumps(data))
    assert runner.invoke(app, ["analyse", str(bad)]).exit_code == 1
    assert runner.invoke(app, ["analyse", str(RECORD), "--lang", "xx"]).exit_code == 2


if __name__ == "__main__":
    PINNED.parent.mkdir(parents=True, exist_ok=True)
    PINNED.write_text(json.dumps(golden_analysis(), indent=1, ensure_ascii=False) + "\n")
    sys.stdout.write(f"wrote {PINNED}\n")
