"""The web client's server side: the speech and replay endpoints, the pages, the catalogs."""

from __future__ import annotations

import json
from pathlib import Path

import httpx
import pytest

from nimmt.errors import RecordError
from nimmt.narrate import narrator
from nimmt.record import record_from_dict, replay
from nimmt.web import STATIC_DIR
from nimmt.web.replay import replay_steps, said_names

GOLDEN = Path(__file__).resolve().parents[1] / "golden"
#: The CLDR plural categories of whole numbers, per language (what Intl.PluralRules picks).
CATEGORIES = {"en": {"one", "other"}, "sr": {"one", "few", "other"},
              "cs": {"one", "few", "many", "other"}}


@pytest.mark.parametrize("name", ["classic", "jokers", "professional", "logic"])
@pytest.mark.parametrize("lang", ["en", "sr", "cs"])
def test_replay_steps_follow_the_record(name: str, lang: str) -> None:
    data = json.loads((GOLDEN / f"{name}.json").read_text())
    out = replay_steps(data, lang)
    game = replay(record_from_dict(data))
    assert out["totals"] == list(game.scores)
    assert out["winners"] == list(game.winners)
    # The rows folded from the events are the engine's rows at the end.
    assert out["steps"][-1]["rows"] == [list(r) for r in game.view(None).rows]
    assert out["steps"][-1]["scores"] == list(game.scores)
    assert all(step["sentences"] for step in out["steps"])
    last = out["steps"][-1]["sentences"][-1]
    assert last.startswith({"en": "Game over", "sr": "Kraj igre", "cs": "Konec hry"}[lang])


def test_a_replay_says_the_bots_names_in_the_readers_language() -> None:
    """A record keeps a bot's English name; the replay says it as the table did."""
    names = ["Ana", "Easy Bot 1", "Medium Bot 2", "Bot"]
    assert said_names(names, narrator("en")) == names
    sr = said_names(names, narrator("sr"))
    assert sr[0] == "Ana" and sr[3] == "Bot"
    assert sr[1] == narrator("sr").bot_name("easy", 1) != "Easy Bot 1"
    data = json.loads((GOLDEN / "classic.json").read_text())
    data["players"][1] = "Hard Bot 3"
    out = replay_steps(data, "cs")
    hard = narrator("cs").bot_name("hard", 3)
    assert out["players"][1] == hard
    assert any(hard in s for step in out["steps"] for s in step["sentences"])


def test_replay_refuses_a_broken_record() -> None:
    data = json.loads((GOLDEN / "classic.json").read_text())
    data["rounds"][0]["decisions"] = data["rounds"][0]["decisions"][::-1]
    with pytest.raises(RecordError):
        replay_steps(data, "en")


def test_speech_endpoint_errors(server: str) -> None:
    with httpx.Client(base_url=server, timeout=10) as http:
        assert http.get("/api/speech/NOPE42").status_code == 404
        assert http.get("/api/games/999999/replay").status_code == 404
        page = http.get("/play/")
        assert page.status_code == 200 and 'aria-live="assertive"' in page.text
        # One application, where focus rests with no hand: the game's keys (docs/web.md).
        # Nothing a player reads is inside one (NVDA's browse mode renders none of it).
        assert page.text.count('role="application"') == 1
        assert '<div id="game" class="game" hidden>' in page.text
        assert http.get("/play", follow_redirects=False).status_code == 307


def test_catalogs_are_complete() -> None:
    cats = {lang: json.loads((STATIC_DIR / "i18n" / f"{lang}.json").read_text())
            for lang in CATEGORIES}
    keys = set(cats["en"])
    for lang, cat in cats.items():
        assert set(cat) == keys, (lang, keys ^ set(cat))
        for key, value in cat.items():
            if isinstance(value, dict):
                assert set(value) == CATEGORIES[lang], (lang, key)
            assert _fields(value if isinstance(value, str) else value["other"]) <= _fields(
                cats["en"][key] if isinstance(cats["en"][key], str) else cats["en"][key]["other"]
            ) | {"count"}, (lang, key)


def _fields(text: str) -> set[str]:
    import re

    return set(re.findall(r"\{(\w+)\}", text))


def test_every_ui_key_is_in_the_catalog() -> None:
    """Keys used by the pages (data-i18n, and t("...") or tn("...") in every module) exist
    in English."""
    import re

    en = json.loads((STATIC_DIR / "i18n" / "en.json").read_text())
    html = (STATIC_DIR / "index.html").read_text()
    # i18n.js defines t() and tn(): its comments name a "key" of no catalog.
    js = "\n".join(p.read_text() for p in sorted(STATIC_DIR.glob("*.js")) if p.name != "i18n.js")
    used = set(re.findall(r'data-i18n(?:-aria)?="([^"]+)"', html))
    used |= set(re.findall(r'\btn?\("([a-z0-9_.-]+)"', js))
    missing = sorted(k for k in used if k not in en)
    assert not missing, missing
