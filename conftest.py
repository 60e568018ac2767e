"""pytest's doctest collection imports each module by its path, which fails for the
modules compiled with mypyc (``COMPILED`` in setup.py): they are left out here, and
tests/test_doctests.py runs their examples against the installed build instead."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent


def compiled_sources() -> list[str]:
    """The paths in setup.py's ``COMPILED`` list, relative to the project root."""
    for node in ast.parse((ROOT / "setup.py").read_text()).body:
        if isinstance(node, ast.Assign) and getattr(node.targets[0], "id", "") == "COMPILED":
            return list(ast.literal_eval(node.value))
    raise LookupError("setup.py has no COMPILED list")


collect_ignore = [*compiled_sources(), "src/nimmt/server/migrations"]
