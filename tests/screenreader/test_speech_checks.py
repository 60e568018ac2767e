"""The transcript checks themselves, on made-up transcripts: each finds what it should.

The Orca games (:mod:`.test_orca_game`) pass only when every check finds nothing, so
each check is shown here to find a fault it is made for, and to let pass what only a
loaded machine caused.
"""

from __future__ import annotations

from . import speech as S
from .game import GameRun
from .orca import Utterance

CPS = 20.0
REVEAL = "Cards revealed: you: 15; Medium Bot 1: 98. Your 15 goes to row 2."  # 3.3 s


def _reveal_then(posted_next: float, said_reveal: float, said_next: float
                 ) -> list[S.Finding]:
    """The page posts the reveal at 100.0 and its next message at ``posted_next``; Orca
    says them at ``said_reveal`` and ``said_next`` (the next one interrupting)."""
    said = [Utterance(said_reveal, "speech", REVEAL, True),
            Utterance(said_next, "speech", "Turn 2. Your turn: choose a card.", True)]
    live = [{"t": 100.0, "live": "polite", "text": REVEAL, "id": "live-polite"},
            {"t": posted_next, "live": "polite", "text": "Turn 2. Your turn: choose a card.",
             "id": "live-polite"}]
    return S.cut_reveals(said, "en", CPS, live)


def test_a_reveal_cut_by_the_page_is_found() -> None:
    # The page posted its next message 1 s after the reveal, which takes 3.3 s to say.
    found = _reveal_then(101.0, 100.1, 101.1)
    assert len(found) == 1 and "cut after 1.00 s" in found[0].text
    assert found[0].t == 101.1


def test_a_reveal_cut_because_orca_began_it_late_is_not_the_page() -> None:
    # The page waited the reveal's time (3.5 s), but Orca began the reveal 1 s late.
    assert _reveal_then(103.5, 101.0, 103.6) == []
    # Said whole, nothing to find.
    assert _reveal_then(103.5, 100.1, 103.6) == []


def test_a_reveal_cut_by_a_focus_move_is_found() -> None:
    said = [Utterance(100.1, "speech", REVEAL, True),
            Utterance(100.6, "speech", "Row 1 radio button.", True)]
    live = [{"t": 100.0, "live": "polite", "text": REVEAL, "id": "live-polite"}]
    focused = [{"t": 100.5, "text": "Row 1"}]
    assert len(S.cut_reveals(said, "en", CPS, live, focused)) == 1


def test_the_same_words_restarted_at_once_are_heard_once_but_said_again_are_twice() -> None:
    restarted = [Utterance(10.0, "speech", "Your name entry.", True),
                 Utterance(10.6, "speech", "Your name entry.", True)]
    assert S.duplicates(restarted, []) == []
    again = [Utterance(10.0, "speech", "Your name entry.", True),
             Utterance(14.0, "speech", "Your name entry.", True)]
    assert [f.text for f in S.duplicates(again, [])] == ["Your name entry."]
    # A key pressed between asks again.
    assert S.duplicates(again, [12.0]) == []


def test_a_report_names_the_check_and_quotes_the_transcript_around_it() -> None:
    timeline = [(100.0, "speech: A."), (103.0, ">>> key Return"), (104.0, "speech: B."),
                (110.0, "speech: C.")]
    text = S.report({"spoken twice": [S.Finding(104.0, "'B.'")]}, timeline)
    assert text.splitlines() == [
        "spoken twice (1):",
        "  at 4.000: 'B.'",
        "       0.000 speech: A.",
        "       3.000 >>> key Return",
        "       4.000 speech: B.",
    ]


def test_a_busy_turn_is_quoted_from_its_start() -> None:
    timeline = [(100.0, ">>> key Return"), (100.5, "speech: leaving list."),
                (101.0, "speech: Cards revealed: ..."), (108.0, ">>> key Return")]
    text = S.report({"utterances in an ordinary turn": [
        S.Finding(108.0, "round 1 turn 4: 6 utterances", 100.0)]}, timeline)
    assert "       0.000 >>> key Return" in text.splitlines()
    assert "       0.500 speech: leaving list." in text.splitlines()


def test_english_in_the_tab_strip_is_found_but_orcas_role_words_and_addresses_not() -> None:
    # Firefox's tab strip and address bar, which Tab reaches past the page's end: the
    # page's title is the page's words; "page tab" is Orca's, the address no language's.
    said = [Utterance(1.0, "speech", "Lobby — 6 uzimanja! page tab.", True),
            Utterance(2.0, "speech", "http://127.0.0.1:8000/play/#/table/ABC123.", True),
            Utterance(3.0, "speech", "Sto — 6 uzimanja! page tab.", True),
            Utterance(4.0, "speech", "Sto — 6 nimmt! page tab.", True)]
    assert [f.text for f in S.english(said, "sr", 0.0)] == [
        "'Lobby — 6 uzimanja! page tab.' (lobby)", "'Sto — 6 nimmt! page tab.' (nimmt)"]


def test_keys_lost_to_browse_mode_are_found_past_the_one_allowed() -> None:
    run = GameRun("en", recoveries=[10.0])
    assert S.browse_mode_keys(run) == []
    run.recoveries.append(20.0)
    assert [f.t for f in S.browse_mode_keys(run)] == [10.0, 20.0]
