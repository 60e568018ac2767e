"""Under ``CI=true`` a skip for want of something fails: a plugin (tests/conftest.py loads
its hooks; ``-p skips`` loads it alone, as tests/test_skips.py does).

A run that must prove everything cannot let a test pass by not running: a screen
reader, a browser, a service (PostgreSQL, Redis) or a tool missing there is a failure
that names what is missing. Every run prints each skip with its reason (``-rs`` in
pyproject.toml).
"""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest

#: Skips that are about the platform, not about something missing from the machine: they
#: stay skips under ``CI=true``.
PLATFORM_SKIPS = ("manylinux wheels are for Linux",)


def _strict() -> bool:
    """A run that must prove everything (``CI=true``): a test skipped for want of a screen
    reader, a browser, a service or a tool fails instead, since a skip there would hide
    the very thing the run is for."""
    return os.environ.get("CI", "").lower() == "true"


def _why(report: pytest.CollectReport | pytest.TestReport) -> str:
    longrepr = report.longrepr
    return str(longrepr[2]) if isinstance(longrepr, tuple) else str(longrepr)


def _failed_skip(report: pytest.CollectReport | pytest.TestReport) -> None:
    why = _why(report)
    if report.skipped and _strict() and not hasattr(report, "wasxfail") \
            and not any(p in why for p in PLATFORM_SKIPS):
        report.outcome = "failed"
        report.longrepr = f"CI=true: a skip is a failure here: {why}"


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Iterator[None]:
    outcome = yield
    _failed_skip(outcome.get_result())  # type: ignore[attr-defined]


@pytest.hookimpl(hookwrapper=True)
def pytest_make_collect_report(collector: pytest.Collector) -> Iterator[None]:
    outcome = yield
    _failed_skip(outcome.get_result())  # type: ignore[attr-defined]
