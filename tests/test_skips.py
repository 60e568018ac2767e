"""Under ``CI=true`` a test skipped for want of something fails (tests/skips.py); a skip
about the platform stays a skip, and every run prints each skip's reason."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

TESTS = Path(__file__).resolve().parent

SAMPLE = '''
import pytest

pytest.importorskip("no_such_module_here")
'''

SAMPLES = '''
import pytest

def test_without_redis():
    pytest.skip("needs redis-server on PATH")

@pytest.mark.skipif(True, reason="needs systemd-analyze")
def test_without_systemd():
    pass

def test_on_another_platform():
    pytest.skip("manylinux wheels are for Linux")

def test_runs():
    pass
'''


def _run(folder: Path, ci: bool) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k != "CI"}
    if ci:
        env["CI"] = "true"
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(TESTS), env.get("PYTHONPATH")]))
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "skips", "-p", "no:cacheprovider", "-p",
         "no:randomly", "-n", "0", "-rs", "-q", "--rootdir", str(folder), str(folder)],
        cwd=folder, env=env, capture_output=True, text=True, timeout=300)


def test_a_skip_for_want_of_something_fails_under_ci(tmp_path: Path) -> None:
    (tmp_path / "test_samples.py").write_text(SAMPLES)
    plain = _run(tmp_path, ci=False)
    assert plain.returncode == 0, plain.stdout
    # Every skip is printed with its reason.
    for reason in ("needs redis-server on PATH", "needs systemd-analyze",
                   "manylinux wheels are for Linux"):
        assert reason in plain.stdout, plain.stdout
    strict = _run(tmp_path, ci=True)
    out = strict.stdout
    assert strict.returncode == 1, out
    assert "CI=true: a skip is a failure here: Skipped: needs redis-server on PATH" in out, out
    # A skipif mark skips in the test's setup: an error there, a failure all the same.
    assert "CI=true: a skip is a failure here: Skipped: needs systemd-analyze" in out, out
    assert "1 failed, 1 passed, 1 skipped, 1 error" in out, out


def test_a_module_skipped_for_a_missing_library_fails_under_ci(tmp_path: Path) -> None:
    (tmp_path / "test_module_skip.py").write_text(SAMPLE)
    assert _run(tmp_path, ci=False).returncode == 5  # nothing ran, nothing failed
    strict = _run(tmp_path, ci=True)
    assert strict.returncode != 0 and "no_such_module_here" in strict.stdout, strict.stdout
    assert "CI=true: a skip is a failure here" in strict.stdout, strict.stdout
