"""Loads the hypothesis profiles (tests/profiles.py) before any test module is collected."""

from __future__ import annotations

import profiles  # noqa: F401  (registers and loads the profiles)
