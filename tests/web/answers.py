"""What each shortcut (and each button of the touch layer) must answer, worked out from
the server's sheet (``/api/speech``, :func:`.helpers.oracle`) and the page's own catalog,
never from the page's state: a key that said something else, or the right words for
another key, fails.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from nimmt.keymap import actions_of

CATALOGS = Path(__file__).resolve().parents[2] / "src" / "nimmt" / "web" / "static" / "i18n"
#: A history line's place after its text: "(3 of 12)" in English.
PLACE = {"en": r" \((\d+) of (\d+)\)$", "sr": r" \((\d+) od (\d+)\)$",
         "cs": r" \((\d+) z (\d+)\)$"}


def catalog(lang: str) -> dict[str, Any]:
    return dict(json.loads((CATALOGS / f"{lang}.json").read_text()))


def fill(text: str, **params: Any) -> str:
    return re.sub(r"\{(\w+)\}", lambda m: str(params.get(m.group(1), m.group(0))), text)


def history_line(said: str, lang: str = "en") -> tuple[str, int, int]:
    """A history key's answer: the line, its place and the channel's number of lines."""
    m = re.search(PLACE[lang], said)
    assert m, f"no place in the history's answer {said!r}"
    return said[:m.start()], int(m.group(1)), int(m.group(2))


def expected(key: str, data: dict[str, Any], *, card: int | None = None, lang: str = "en",
             timed: bool = False) -> str | re.Pattern[str] | None:
    """The answer to ``key`` (as Playwright names it) given the oracle's ``data`` and the
    focused ``card``: a sentence, a pattern, or None for a key whose answer depends on
    what was said before (the history keys: see :func:`history_line`)."""
    sheet = data["sheet"]
    ui = catalog(lang)
    time_left = (re.compile(re.escape(ui["time.left"]).replace(r"\{n\}", r"\d+"))
                 if timed else ui["time.none"])
    if key in "1234" and len(key) == 1:
        return str(sheet["row"][int(key) - 1])
    if key == "c":
        cards = dict((c, s) for c, s in sheet["cards"])
        return str(cards[card])
    simple = {"t": "chosen", "s": "scores", "a": "hand", "w": "who"}
    if key in simple:
        return str(sheet[simple[key]])
    if key == "l":
        return time_left
    if key == "n":
        turn = sheet["decision"] if sheet["decision"] else sheet["idle"]
        if isinstance(time_left, str):
            return f"{turn} {time_left}"
        return re.compile(re.escape(f"{turn} ") + time_left.pattern)
    if key == "k":
        keys = [a for a in actions_of("web")]
        return re.compile("^" + r"\. ".join(
            re.escape(f"{a.key.upper()}: {ui[a.help]}") for a in keys) + "$")
    if key == "Backslash":
        return str(ui["channel.chat"])
    if key == "Period":
        return str(ui["chat.none"])
    return None
