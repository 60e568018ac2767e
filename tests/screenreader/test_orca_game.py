"""A whole game in Serbian, Czech and English, by keyboard, heard through Orca.

Each test plays one short game against two bots (three players, a limit of 1:
one round of ten turns, :mod:`.game`) and checks what Orca *said* (:mod:`.speech`):
no sentence twice, no reveal cut short, the row choice's prompt said when it
opens, no old message read again, every live message said, the seed's shortcuts
answered from the hand, nothing English in Serbian and Czech, and a short
ordinary turn. The transcript, the speech log, the live regions' additions and
the figures stay in ``build/screenreader/<lang>/`` (never a tracked file).

These tests need a desktop's worth of Debian packages (:data:`.orca.PACKAGES`,
installed by ``scripts/setup``): without them they skip and name what is missing.
Run alone: ``.venv/bin/python -m pytest tests/screenreader -p no:randomly -n 0 -s``.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from dataclasses import asdict
from pathlib import Path
from typing import Any

import pytest

from tui.tui_helpers import Server

from . import speech as S
from .game import play_game, quick_start
from .orca import Desktop, missing_packages

BUILD = Path(__file__).resolve().parents[2] / "build" / "screenreader"
#: The voice's speed in characters a second: about 340 words a minute, a rate practised
#: screen-reader users choose (the default voice says 17); the page paces its messages
#: by the same rate, so the test hears the game as such a player does, twice as fast.
CPS = float(os.environ.get("NIMMT_TEST_CPS", "34"))
NAMES = {"sr": "Marko", "cs": "Jana", "en": "Anna"}

# A game takes two to four minutes; a busy machine may double that.
pytestmark = pytest.mark.timeout(900)


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    gone = missing_packages()
    if gone:
        pytest.skip("the screen-reader tests need the Debian packages " + ", ".join(gone)
                    + ": scripts/setup installs them where apt-get can")
    # Bots answer at once; after a reveal they wait a moment while a person is at the
    # table (the reveal pace), as on a real server but shorter.
    srv = Server(tmp_path_factory.mktemp("orca-server"),
                 env={"NIMMT_REVEAL_PACE": os.environ.get("NIMMT_TEST_REVEAL_PACE", "1.0")})
    url = srv.start()
    try:
        yield url
    finally:
        srv.stop()


@pytest.mark.parametrize("lang", ["sr", "cs", "en"])
def test_whole_game_heard_through_orca(server: str, pw: Any, lang: str) -> None:
    out = BUILD / lang
    with Desktop(out / "desktop", lang, CPS, pw=pw) as d:
        try:
            run = play_game(d, server, lang, NAMES[lang])
            live = [item for item in d.live() if item["t"] >= run.in_language]
            focused = d.focus_log()
        finally:
            timeline = d.timeline()
            (out / "transcript.txt").write_text("\n".join(d.transcript()) + "\n")
        # The game from the moment the page speaks its language (choosing the language
        # in a list box is the harness's way in, not part of the game).
        said = [u for u in d.utterances() if u.t >= run.in_language]
        key_times = [k.t for k in d.keys]
    (out / "live.json").write_text(json.dumps(live, ensure_ascii=False, indent=1))
    figures = S.figures(run, said, live, key_times, CPS, focused)
    (out / "figures.json").write_text(json.dumps(figures, indent=1))
    (out / "turns.json").write_text(json.dumps([asdict(t) for t in run.turns],
                                               ensure_ascii=False, indent=1))
    print(f"\n{lang}: {json.dumps(figures)}")
    assert sum(1 for t in run.turns if t.kind == "card") == 10, "one round of ten turns"
    failures = {
        "spoken twice": S.duplicates(said, key_times),
        "reveals cut short": S.cut_reveals(said, lang, CPS, live, focused),
        "row prompts not said": S.row_prompts(run, said),
        "old messages read again": S.old_rereads(said, live, focused),
        "live messages never said": S.unspoken(said, live),
        "shortcuts": S.shortcut_failures(run),
        "refusal": S.refusal_failures(run),
        "English words": S.english(said, lang, run.in_language) if lang != "en" else [],
        "utterances in an ordinary turn": S.busy_turns(run, said),
        "keys in an ordinary turn": S.keyed_turns(run),
    }
    failed = {k: v for k, v in failures.items() if v}
    assert not failed, (f"{lang}: what Orca said failed these checks (whole transcript: "
                        f"{out / 'transcript.txt'}):\n" + S.report(failed, timeline))


def test_quick_game_to_the_first_card(server: str, pw: Any) -> None:
    """From the lobby to the first card played by the quick game: at most
    :data:`.speech.MAX_KEYS_TO_FIRST_CARD` key presses (the name typed apart)."""
    out = BUILD / "quick"
    with Desktop(out / "desktop", "sr", CPS, pw=pw) as d:
        try:
            keys, typed = quick_start(d, server, "sr")
        finally:
            (out / "transcript.txt").write_text("\n".join(d.transcript()) + "\n")
    (out / "figures.json").write_text(json.dumps({"keys_to_first_card": keys,
                                                  "typed": typed}))
    print(f"\nquick game: {keys} keys to the first card, {typed} characters typed")
    assert keys <= S.MAX_KEYS_TO_FIRST_CARD, f"{keys} keys to the first card"
