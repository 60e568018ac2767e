"""Loads the hypothesis profiles (tests/profiles.py) before any test module is collected,
and has the search kernel compiled once before any test runs."""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys
from collections.abc import Iterator
from typing import Any

import pytest

import profiles  # noqa: F401  (registers and loads the profiles)
from skips import pytest_make_collect_report, pytest_runtest_makereport  # noqa: F401  (hooks)

WARM_UP = "from nimmt.sim.search import warm_up; warm_up()"


def pytest_configure(config: pytest.Config) -> None:
    """On a fresh clone numba compiles the search kernel into its cache the first time a
    process uses it: about 15 s alone, minutes on a busy machine with every test process,
    bot worker and tutor compiling at once. Done here once, before xdist starts its
    workers, no test's deadline pays for it (a warm cache loads in under a second)."""
    if hasattr(config, "workerinput") or os.environ.get("NIMMT_NO_NUMBA"):
        return
    # A failure here (no numba: the kernel is plain Python) is left for the tests to report.
    with contextlib.suppress(subprocess.TimeoutExpired):
        subprocess.run([sys.executable, "-c", WARM_UP], capture_output=True, check=False,
                       timeout=1800)


#: The modules of the longest tests (minutes each: wheels built and installed, whole games
#: heard through a screen reader), started first: begun last, one of them would hold its
#: worker alone while the others had finished.
FIRST = ("tests/test_packaging.py", "tests/screenreader/test_orca_game.py")


@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """The longest modules first, each kept whole and in its order; the rest as collected."""

    def rank(item: pytest.Item) -> int:
        path = item.nodeid.split("::", 1)[0]
        return FIRST.index(path) if path in FIRST else len(FIRST)

    items.sort(key=rank)


@pytest.fixture(scope="module")
def pw() -> Iterator[Any]:
    """One Playwright at a time in a process, for the browser and the screen-reader tests.

    Its sync API runs an event loop on this thread while it lives: a second one beside it
    refuses to start, and so does every asyncio test (``Runner.run() cannot be called from
    a running event loop``). So it lives for one module's tests: pytest stops it before a
    test of another module runs in this process."""
    sync_api = pytest.importorskip("playwright.sync_api")
    with sync_api.sync_playwright() as playwright:
        yield playwright
