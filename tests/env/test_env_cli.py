"""``nimmt env check`` runs the libraries' checks and says, one line each, how they went."""

from __future__ import annotations

from typer.testing import CliRunner

from nimmt.cli import app


def test_env_check_passes_and_names_what_the_kernel_cannot_play() -> None:
    runner = CliRunner()
    done = runner.invoke(app, ["env", "check", "--players", "3", "--rounds", "1", "--cycles", "20"])
    assert done.exit_code == 0, done.output
    assert "Parallel, kernel backend): passed." in done.output
    assert "All 8 checks passed." in done.output
    done = runner.invoke(app, ["env", "check", "--preset", "logic", "--cycles", "10"])
    assert done.exit_code == 0, done.output
    assert "The vectorised environment cannot play logic" in done.output


def test_env_check_refuses_undefined_rules() -> None:
    done = CliRunner().invoke(app, ["env", "check", "--preset", "open+tactics"])
    assert done.exit_code == 2
    assert "tactics cannot be combined with open" in done.output
