"""The one key map of both clients (src/nimmt/web/static/keymap.json)."""

from __future__ import annotations

import json
import re

import pytest

from nimmt.keymap import KEY_ACTIONS, KEYMAP_FILE, actions_of, client_text, help_texts
from nimmt.tui.commands import ACTIONS, ALIASES, DEFAULT_KEYS

STATIC = KEYMAP_FILE.parent
#: The Playroom's keys (docs/rules.md §9): the seed's, the same in every client.
SEED_KEYS = {"rows": "v", "row1": "1", "row2": "2", "row3": "3", "row4": "4",
             "bullheads": "c", "chosen": "t", "scores": "s"}


def test_one_meaning_per_key() -> None:
    names = [a.action for a in KEY_ACTIONS]
    assert len(names) == len(set(names))
    for client in ("web", "terminal"):
        keys = [a.key for a in actions_of(client)]
        assert len(keys) == len(set(keys)), client
        aliases = [k for a in actions_of(client) for k in a.aliases]
        assert not set(aliases) & set(keys), client
    for client in ("web", "terminal"):
        have = {a.action: a.key for a in actions_of(client)}
        assert all(have[a] == k for a, k in SEED_KEYS.items()), client
    both = {a.action: a.key for a in KEY_ACTIONS if {"web", "terminal"} <= set(a.clients)}
    assert both["reveal"] == "r" and both["keys"] == "k" and both["hand"] == "a"


@pytest.mark.parametrize("lang", ["en", "sr", "cs"])
def test_every_action_is_described_in_every_language(lang: str) -> None:
    catalog = json.loads((STATIC / "i18n" / f"{lang}.json").read_text())
    assert all(a.help in catalog for a in KEY_ACTIONS)
    assert help_texts(lang)["keys"] == catalog["action.keys"]
    assert client_text(lang, "reveal.none") == catalog["reveal.none"]


def test_both_clients_read_the_map() -> None:
    """The terminal's keys are the map's; the web client's keys.js imports it and writes
    no key of its own."""
    movable = [a for a in actions_of("terminal") if not a.fixed]
    assert tuple(a.action for a in movable) == ACTIONS
    assert dict(DEFAULT_KEYS) == {a.action: a.key for a in movable}
    assert ALIASES == {"?": "keys"}
    js = (STATIC / "keys.js").read_text()
    assert 'from "./keymap.json" with { type: "json" }' in js
    assert not re.search(r'\b(rows|scores|reveal):\s*"', js)
