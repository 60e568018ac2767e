"""The terminal client's small parts: its labels, keymaps, addresses and face choice."""

from __future__ import annotations

import io
import string

import pytest

from nimmt.cli_output import wants_plain
from nimmt.tui.commands import DEFAULT_KEYS, Keymap, KeymapError
from nimmt.tui.labels import LABELS
from nimmt.tui.remote import RemoteTarget


def fields(text: str) -> set[str]:
    return {name for _, name, _, _ in string.Formatter().parse(text) if name}


@pytest.mark.parametrize("lang", ["sr", "cs"])
def test_every_label_is_translated_with_the_same_fields(lang: str) -> None:
    en, other = LABELS["en"], LABELS[lang]
    assert set(other) == set(en)
    for key, text in en.items():
        assert fields(other[key]) == fields(text), key
        assert other[key].strip(), key


def test_keymaps() -> None:
    assert Keymap.parse(None).keys == DEFAULT_KEYS
    moved = Keymap.parse("rows=x, scores=P")
    assert moved.action("x") == "rows" and moved.action("p") == "scores"
    assert moved.action("v") is None and moved.action("s") is None
    off = Keymap.parse("off")
    assert not off.on and off.action("v") is None
    # K lists the keys, ? too (an alias, as in the web client), R repeats the last reveal.
    default = Keymap.parse(None)
    assert default.action("k") == "keys" and default.action("?") == "keys"
    assert default.action("h") == "hint" and default.action("r") == "reveal"
    assert default.action("a") == "hand"
    # A key moved onto the alias takes it.
    assert Keymap.parse("hint=?").action("?") == "hint"
    for bad in ("rows", "nothing=x", "rows=ab", "rows=!", "rows=s", "rows=k"):
        with pytest.raises(KeymapError):
            Keymap.parse(bad)


def test_addresses_and_links() -> None:
    assert RemoteTarget.parse("http://h:8000/") == RemoteTarget("http://h:8000")
    assert RemoteTarget.parse("ws://h:8000/ws") == RemoteTarget("http://h:8000")
    assert RemoteTarget.parse("h:8000", join="k7qx2m") == RemoteTarget("http://h:8000", "K7QX2M")
    assert (RemoteTarget.parse("https://h/play/#/table/AB12CD")
            == RemoteTarget("https://h", "AB12CD"))
    assert RemoteTarget.parse("http://h:1", spectate="ab") == RemoteTarget("http://h:1", "AB", True)


def test_plain_mode_is_chosen(monkeypatch: pytest.MonkeyPatch) -> None:
    class Tty(io.StringIO):
        def isatty(self) -> bool:
            return True

    monkeypatch.delenv("NIMMT_PLAIN", raising=False)
    monkeypatch.delenv("NO_COLOR", raising=False)
    monkeypatch.setenv("TERM", "xterm-256color")
    assert not wants_plain(False, Tty())
    assert wants_plain(True, Tty())
    assert wants_plain(False, io.StringIO())
    monkeypatch.setenv("TERM", "dumb")
    assert wants_plain(False, Tty())
    monkeypatch.setenv("TERM", "xterm")
    monkeypatch.setenv("NO_COLOR", "")  # set but empty: no-color.org says it does not count
    assert not wants_plain(False, Tty())
    monkeypatch.setenv("NO_COLOR", "1")
    assert wants_plain(False, Tty())
    monkeypatch.delenv("NO_COLOR")
    monkeypatch.setenv("NIMMT_PLAIN", "1")
    assert wants_plain(False, Tty())
