"""The Python examples of ``docs/rules.md`` run against the engine, so the rules
page cannot drift from what the engine does."""

from __future__ import annotations

import doctest
from pathlib import Path

DOC = Path(__file__).resolve().parent.parent / "docs" / "rules.md"


def test_rules_page_examples() -> None:
    result = doctest.testfile(
        str(DOC), module_relative=False, optionflags=doctest.ELLIPSIS, verbose=False
    )
    assert result.attempted >= 30
    assert result.failed == 0


def test_rules_page_names_every_variant_and_refusal() -> None:
    from nimmt import PRESETS, VARIANTS

    text = DOC.read_text()
    for name in (*PRESETS, *VARIANTS):
        assert f"`{name}`" in text
    for pair in ("`open` + `tactics`", "`open` + `logic`", "`jokers` + `tactics`",
                 "`jokers` + `logic`"):  # fmt: skip
        assert pair in text
