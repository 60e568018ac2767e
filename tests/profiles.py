"""Hypothesis profiles: every run searches new examples; ``--thorough`` searches longer.

Registered by tests/conftest.py before any test is collected.

``ci`` (the default) draws a few hundred examples per property test, from a new
random seed each run, so that the suite explores over time instead of
replaying the same handful; a failure prints the seed and the
``@reproduce_failure`` blob that replays it. ``thorough`` (``scripts/test
--thorough``, which passes ``--hypothesis-profile=thorough``) draws ten times
as many. Tests that are costly per example ask for a share of the profile's
budget with :func:`examples`, so both profiles scale every test alike.
Tests that are not property tests but run more cases when thorough (the
screen-reader games: Firefox in every language) ask :func:`thorough`.
"""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, settings

settings.register_profile(
    "ci",
    max_examples=300,
    deadline=None,
    database=None,
    print_blob=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
settings.register_profile("thorough", settings.get_profile("ci"), max_examples=3000)
settings.load_profile("ci")


def examples(share: float) -> int:
    """A share of the loaded profile's examples (at least 1), for a test costly per example."""
    return max(1, round(settings.default.max_examples * share))


def thorough(config: pytest.Config) -> bool:
    """Whether this run is thorough (``scripts/test --thorough``: ``--hypothesis-profile=
    thorough``), for choosing a test's parameters at collection."""
    return bool(config.getoption("--hypothesis-profile", default=None) == "thorough")
