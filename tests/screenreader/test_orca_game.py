"""A whole game in Serbian, Czech and English, by keyboard, heard through Orca.

Each test plays one short game against two bots (three players, a limit of 1:
one round of ten turns, :mod:`.game`) and checks what Orca *said* (:mod:`.speech`):
no sentence twice, no reveal cut short, the row choice's prompt said when it
opens, no old message read again, every live message said, the seed's shortcuts
answered from the hand, nothing English in Serbian and Czech, and a short
ordinary turn. The transcript, the speech log, the live regions' additions and
the figures stay in ``build/screenreader/<lang>/`` (Firefox's in
``build/screenreader/firefox/<lang>/``; never a tracked file).

The game runs in two browsers, each with its own script in Orca (Chromium's and
Gecko's), and the test's id names the browser: Chromium in Serbian and Czech,
Debian's Firefox ESR in English, so that each language and each browser is heard in
every run (a game takes minutes: the suite keeps to its time); both browsers in the
three languages when the run is thorough (``scripts/test --thorough``, or
``--hypothesis-profile=thorough``): ``-k firefox --hypothesis-profile=thorough``
plays Firefox's three alone. The checks are the same in both.

These tests need a desktop's worth of Debian packages (:data:`.orca.PACKAGES`,
installed by ``scripts/setup``): without them they skip and name what is missing
(a browser's game skips alone when only its browser is missing).
Run alone: ``.venv/bin/python -m pytest tests/screenreader -p no:randomly -n 0 -s``.
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from collections.abc import Iterator
from dataclasses import asdict
from pathlib import Path
from typing import Any

import pytest

from profiles import thorough
from tui.tui_helpers import Server

from . import speech as S
from .game import play_game, quick_start
from .orca import Desktop, missing_packages

BUILD = Path(__file__).resolve().parents[2] / "build" / "screenreader"
#: The two voices a game is heard with. "fast": 34 characters a second (about 340 words
#: a minute, a rate practised screen-reader users choose), the page told the same pace in
#: its Settings, so the game is heard twice as fast. "default": 14 characters a second (a
#: screen reader's default voice; Orca's and NVDA's eSpeak say 14 to 17), the page at its
#: own default pace, as a player who never opened Settings has it. ``NIMMT_TEST_CPS`` sets
#: the fast voice's rate; ``NIMMT_TEST_VOICE=default`` hears every game with the default.
VOICES = {"fast": float(os.environ.get("NIMMT_TEST_CPS", "34")), "default": 14.0}
VOICE = os.environ.get("NIMMT_TEST_VOICE", "")
#: The fast voice's rate (the other screen-reader tests hear their pages with it).
CPS = VOICES["fast"]
#: The player's name in each browser and language: the games share one server, where a
#: name is one player's (a second "Anna" would be refused as taken).
NAMES = {("chromium", "sr"): "Marko", ("chromium", "cs"): "Jana", ("chromium", "en"): "Anna",
         ("firefox", "sr"): "Jovana", ("firefox", "cs"): "Petr", ("firefox", "en"): "Emma"}
LANGS = ("sr", "cs", "en")

# A game takes two to four minutes; a busy machine may double that.
pytestmark = pytest.mark.timeout(900)


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    gone = missing_packages(())
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


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    """The whole game in each language and each browser: Chromium in Serbian (at the
    default voice and the page's default pace) and Czech, Firefox ESR in English; both
    browsers in all three languages when the run is thorough (``scripts/test
    --thorough``), Chromium's Serbian at the default voice there too."""
    if metafunc.definition.name != "test_whole_game_heard_through_orca":
        return
    every = thorough(metafunc.config)
    cases = [("chromium", lang) for lang in (LANGS if every else ("sr", "cs"))]
    cases += [("firefox", lang) for lang in (LANGS if every else ("en",))]
    params = []
    for b, lang in cases:
        voice = VOICE or ("default" if (b, lang) == ("chromium", "sr") else "fast")
        params.append(pytest.param(b, lang, voice, id=f"{b}-{lang}-{voice}"))
    metafunc.parametrize(("browser", "lang", "voice"), params)


@pytest.fixture
def desktop() -> Iterator[Path]:
    """A new folder for one desktop, removed after the test (:func:`keep` keeps its logs):
    a second run of these tests in the same checkout, beside this one, would otherwise
    start its desktop in the same folder and write to this one's speech log. Short, under
    /tmp: the desktop's sockets live in it (at most 108 characters a socket's path)."""
    folder = Path(tempfile.mkdtemp(prefix="nimmt-orca-"))
    try:
        yield folder / "desktop"
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def keep(d: Desktop, out: Path) -> None:
    """Keep the desktop's speech log and its programs' logs in ``out/desktop``."""
    kept = out / "desktop"
    if kept.exists():
        shutil.rmtree(kept)
    kept.mkdir(parents=True)
    for path in [d.speech_log, *d.work.glob("*.log")]:
        if path.exists():
            shutil.copy(path, kept / path.name)


def test_whole_game_heard_through_orca(server: str, pw: Any, browser: str, lang: str,
                                       voice: str, desktop: Path) -> None:
    gone = missing_packages((browser,))
    if gone:
        pytest.skip(f"the game in {browser} needs the Debian packages " + ", ".join(gone))
    out = BUILD / lang if browser == "chromium" else BUILD / browser / lang
    cps = VOICES[voice]
    with Desktop(desktop, lang, cps, browser, paced=voice == "fast", pw=pw) as d:
        try:
            run = play_game(d, server, lang, NAMES[browser, lang])
            live = [item for item in d.live() if item["t"] >= run.in_language]
            focused = d.focus_log()
        finally:
            timeline = d.timeline()
            keep(d, out)
            (out / "transcript.txt").write_text("\n".join(d.transcript()) + "\n")
        # The game from the moment the page speaks its language (choosing the language
        # in a list box is the harness's way in, not part of the game).
        said = [u for u in d.utterances() if u.t >= run.in_language]
        key_times = [k.t for k in d.keys]
    (out / "live.json").write_text(json.dumps(live, ensure_ascii=False, indent=1))
    figures = {"browser": browser, "voice": voice, "cps": cps,
               **S.figures(run, said, live, key_times, cps, focused)}
    (out / "figures.json").write_text(json.dumps(figures, indent=1))
    (out / "turns.json").write_text(json.dumps([asdict(t) for t in run.turns],
                                               ensure_ascii=False, indent=1))
    print(f"\n{browser} {lang} {voice}: {json.dumps(figures)}")
    assert sum(1 for t in run.turns if t.kind == "card") == 10, "one round of ten turns"
    failures = {
        "spoken twice": S.duplicates(said, key_times),
        "reveals cut short": S.cut_reveals(said, lang, cps, live, focused),
        "prompts not said": S.unheard_prompts(run, said),
        "row prompts not said": S.row_prompts(run, said),
        "old messages read again": S.old_rereads(said, live, focused),
        "live messages never said": S.unspoken(said, live),
        "shortcuts": S.shortcut_failures(run),
        "refusal": S.refusal_failures(run),
        "English words": S.english(said, lang, run.in_language) if lang != "en" else [],
        "utterances in an ordinary turn": S.busy_turns(run, said),
        "keys in an ordinary turn": S.keyed_turns(run),
        "keys taken by browse mode": S.browse_mode_keys(run),
    }
    failed = {k: v for k, v in failures.items() if v}
    assert not failed, (f"{browser} {lang}: what Orca said failed these checks (whole transcript: "
                        f"{out / 'transcript.txt'}):\n" + S.report(failed, timeline))


def test_quick_game_to_the_first_card(server: str, pw: Any, desktop: Path) -> None:
    """From the lobby to the first card played by the quick game: at most
    :data:`.speech.MAX_KEYS_TO_FIRST_CARD` key presses (the name typed apart)."""
    gone = missing_packages(("chromium",))
    if gone:
        pytest.skip("the quick game in chromium needs the Debian packages " + ", ".join(gone))
    out = BUILD / "quick"
    with Desktop(desktop, "sr", CPS, pw=pw) as d:
        try:
            keys, typed = quick_start(d, server, "sr")
        finally:
            keep(d, out)
            (out / "transcript.txt").write_text("\n".join(d.transcript()) + "\n")
    (out / "figures.json").write_text(json.dumps({"keys_to_first_card": keys,
                                                  "typed": typed}))
    print(f"\nquick game: {keys} keys to the first card, {typed} characters typed")
    assert keys <= S.MAX_KEYS_TO_FIRST_CARD, f"{keys} keys to the first card"
