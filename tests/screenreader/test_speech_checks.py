"""The transcript checks themselves, on made-up transcripts: each finds what it should.

The Orca games (:mod:`.test_orca_game`) pass only when every check finds nothing, so
each check is shown here to find a fault it is made for, and to let pass what only a
loaded machine caused.
"""

from __future__ import annotations

from nimmt.narrate import narrator

from . import speech as S
from .game import GameRun, Shortcut, Turn
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


def _said(*lines: tuple[float, str]) -> list[Utterance]:
    return [Utterance(t, "speech", text, True) for t, text in lines]


CARD = "Your turn: choose a card."
ROW = "Choose the row for your joker: row 1 costs 2 bullheads, row 2 costs 5."


def _turn(kind: str, turn: int, pressed: float, *, keys: int = 1,
          shortcuts: bool = False) -> Turn:
    return Turn(kind, 1, turn, pressed - 2, pressed, pressed + 0.1,
                {"decision": ROW if kind == "row" else CARD}, keys, shortcuts)


def test_a_sentence_said_again_inside_another_utterance_is_found() -> None:
    # V: focus says row 1 while a live message says every row, row 1 first.
    rows = "Row 1: 5, 12 — 2 cards, 2 bullheads. Row 2: 33 — 1 card, 5 bullheads."
    said = _said((10.0, "Row 1: 5, 12 — 2 cards, 2 bullheads."), (10.4, rows))
    assert [f.t for f in S.duplicates(said, [9.9])] == [10.4]
    # Focus alone (the page said nothing with it): heard once.
    assert S.duplicates(said[:1], [9.9]) == []
    assert S.sentences(rows) == ["Row 1: 5, 12 — 2 cards, 2 bullheads.",
                                 "Row 2: 33 — 1 card, 5 bullheads."]


def test_a_prompt_never_said_is_found_for_every_kind_of_decision() -> None:
    run = GameRun("en", turns=[_turn("row", 1, 20.0), _turn("card", 2, 40.0),
                               _turn("card", 3, 60.0)], started=0.0)
    said = _said((18.0, ROW), (35.0, f"Cards revealed: you: 3. {CARD}"))
    assert [f.t for f in S.unheard_prompts(run, said)] == [60.0]
    # Said before the previous answer does not count for this one.
    early = _said((18.0, ROW), (19.0, CARD))
    assert [f.t for f in S.unheard_prompts(run, early)] == [40.0, 60.0]
    assert S.unheard_prompts(run, [*said, *_said((50.0, CARD))]) == []


def test_a_row_prompt_not_said_and_a_game_without_a_row_are_found() -> None:
    run = GameRun("en", turns=[_turn("card", 1, 10.0), _turn("row", 1, 20.0)], started=0.0)
    assert [f.t for f in S.row_prompts(run, _said((5.0, CARD)))] == [20.0]
    assert S.row_prompts(run, _said((5.0, CARD), (15.0, ROW))) == []
    cards = GameRun("en", turns=[_turn("card", 1, 10.0)], started=0.0, ended=11.0)
    assert [f.text for f in S.row_prompts(cards, _said((5.0, CARD)))] == [
        "no row was asked: the game must ask one"]


def test_an_old_message_read_again_is_found_unless_focus_just_moved_to_it() -> None:
    live = [{"t": 100.0, "text": "Row 2: 33 — 1 card, 5 bullheads.", "live": "polite",
             "id": "live-polite"}]
    again = _said((100.2, live[0]["text"]), (130.0, live[0]["text"]))
    assert [f.t for f in S.old_rereads(again, live)] == [130.0]
    # The row's radio button, named by the same sentence, took focus just before.
    focused = [{"t": 129.5, "text": "Row 2: 33 — 1 card, 5 bullheads."}]
    assert S.old_rereads(again, live, focused) == []
    # Added again since: news, not an old message.
    assert S.old_rereads(again, [*live, {**live[0], "t": 129.0}]) == []


def test_a_live_message_never_said_is_found() -> None:
    live = [{"t": 10.0, "text": "Cards revealed: you: 3.", "live": "polite",
             "id": "live-polite"},
            {"t": 20.0, "text": "Scores: you 3.", "live": "polite", "id": "live-polite"}]
    said = _said((10.1, "Cards revealed: you: 3."))
    assert [f.t for f in S.unspoken(said, live)] == [20.0]
    # Said before it was added (an answer read early) does not count.
    assert [f.t for f in S.unspoken(_said((5.0, "Scores: you 3."), (10.1, live[0]["text"])),
                                    live)] == [20.0]
    assert S.unspoken([*said, *_said((20.2, "Scores: you 3."))], live) == []


def test_a_shortcut_not_answered_or_pressed_elsewhere_is_found() -> None:
    good = Shortcut(10.0, "s", "Scores: you 3.", ["Scores: you 3."], True)
    wrong = Shortcut(11.0, "t", "Everybody has chosen.", ["Scores: you 3."], True)
    away = Shortcut(12.0, "1", "Row 1: 5.", ["Row 1: 5."], False)
    run = GameRun("en", shortcuts=[good, wrong, away])
    assert [(f.t, f.text.split(":")[0]) for f in S.shortcut_failures(run)] == [
        (11.0, "t"), (12.0, "1")]
    assert [f.text for f in S.shortcut_failures(GameRun("en", ended=5.0))] == [
        "the shortcut turn never came"]


def test_a_refusal_said_in_other_words_is_found() -> None:
    want = narrator("sr").refusal_sentence("seats_empty")
    assert S.refusal_failures(GameRun("sr", refusal=[want], refused_at=3.0)) == []
    english = narrator("en").refusal_sentence("seats_empty")
    found = S.refusal_failures(GameRun("sr", refusal=[english], refused_at=3.0))
    assert [f.t for f in found] == [3.0]


def test_a_busy_or_long_ordinary_turn_is_found() -> None:
    turns = [_turn("card", 1, 10.0), _turn("card", 2, 20.0),
             _turn("card", 3, 30.0, keys=5), _turn("card", 4, 40.0, shortcuts=True)]
    run = GameRun("en", turns=turns)
    chatter = _said(*[(20.0 + k, f"Line {k}.") for k in range(1, 7)])
    assert [f.t for f in S.busy_turns(run, chatter)] == [30.0]
    assert [f.t for f in S.keyed_turns(run)] == [30.0]
    # A turn with the shortcuts pressed (or after one) is not an ordinary turn.
    assert [b.turn for b, _ in S.ordinary_turns(run)] == [1, 2]
