"""The full-screen face, driven by Textual's test pilot, with snapshots of its screens.

A whole local game is played by keyboard alone: Enter on the highlighted card
of the hand, the row dialog at a row choice, the results dialog at the end and
a rematch. On the way the Playroom's shortcuts are pressed and what they say is
compared with the session's sheet (the narration's sentences). Every line the
session said must be the narration of the game's record. Snapshots of the
screens (SVG, and the screen's text) are written to ``build/tui-snapshots/``,
which is not tracked.
"""

from __future__ import annotations

import asyncio
import io
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from rich.console import Console
from textual.widgets import DataTable, Input, OptionList, Static

from nimmt.narrate import Narrator
from nimmt.record import load_record
from nimmt.rules import Rules
from nimmt.tui.app import NimmtApp, ResultsDialog, RowDialog
from nimmt.tui.local import LocalSession
from nimmt.tui.remote import RemoteSession, RemoteTarget, TokenStore
from nimmt.tui.session import Said, Update

from .tui_helpers import Server, told_locally

pytestmark = [pytest.mark.asyncio, pytest.mark.timeout(300)]

SNAPSHOTS = Path(__file__).resolve().parents[2] / "build" / "tui-snapshots"


def screen_text(app: NimmtApp) -> str:
    """What the screen shows, as text (empty until a new screen's first paint)."""
    width, height = app.size
    console = Console(width=width, height=height, file=io.StringIO(), record=True,
                      force_terminal=True, color_system=None, legacy_windows=False)
    console.print(app.screen._compositor.render_update(full=True))
    return console.export_text()


def snapshot(app: NimmtApp, name: str) -> str:
    """Save the screen as SVG and as text; return the text."""
    SNAPSHOTS.mkdir(parents=True, exist_ok=True)
    app.save_screenshot(f"{name}.svg", str(SNAPSHOTS))
    text = screen_text(app)
    (SNAPSHOTS / f"{name}.txt").write_text(text, encoding="utf-8")
    return text


def said(app: NimmtApp) -> str:
    return str(app.query_one("#say", Static).render())


async def until(pilot: object, check: Callable[[], bool], what: str,
                timeout: float = 60) -> None:
    """Let the app run until ``check()`` holds (a generous bound, for a busy machine)."""
    end = time.monotonic() + timeout
    while not check():
        assert time.monotonic() < end, f"{what}: not within {timeout:g} s"
        await pilot.pause(0.02)  # type: ignore[attr-defined]


async def settle(pilot: object, app: NimmtApp, before: str | None) -> None:
    """Wait until the session asks something new (or the game is over)."""

    def moved_on() -> bool:
        snap = app.session.snapshot
        return snap.status == "over" or (snap.ask is not None and snap.ask.key != before)

    await pilot.pause(0.02)  # type: ignore[attr-defined]
    await until(pilot, moved_on, "the game moving on")


async def play_to_the_end(pilot: object, app: NimmtApp) -> None:
    """Answer every decision by keyboard (the hand's first card, the row dialog's first
    row) until the game is over."""
    session = app.session
    while session.snapshot.status != "over":
        snap = session.snapshot
        assert snap.ask is not None
        if isinstance(app.screen, RowDialog):
            await pilot.press("enter")  # type: ignore[attr-defined]
        else:
            await pilot.press("home", "enter")  # type: ignore[attr-defined]
        await settle(pilot, app, snap.ask.key)


async def test_whole_game_by_keyboard(tmp_path: Path) -> None:
    record = tmp_path / "game.json"
    session = LocalSession(Rules.parse("classic", players=3, limit=25), ["medium", "medium"],
                           name="Ana", seed=2, record=record)
    lines: list[str] = []

    def keep(update: Update) -> None:
        if isinstance(update, Said) and update.kind == "event":
            lines.append(update.text)

    session.listen(keep)
    app = NimmtApp(session)
    speak = Narrator("en")
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot, app, None)
        text = snapshot(app, "table-start")
        assert "Rows" in text and "Your hand" in text and "Players" in text
        sheet = session.snapshot.sheet
        assert sheet.row[0] in text
        # The prompt is said once the screen has taken the session's update.
        await until(pilot, lambda: said(app) == sheet.typed_decision, "the prompt said")

        # The Playroom's shortcuts, from the hand.
        await pilot.press("s")
        assert said(app) == sheet.scores
        await pilot.press("t")
        assert said(app) == sheet.chosen
        await pilot.press("w")
        assert said(app) == sheet.who
        await pilot.press("v")
        assert said(app) == sheet.rows
        assert app.focused is app.query_one("#rows", OptionList)
        snapshot(app, "rows-menu")
        await pilot.press("down", "c")
        assert said(app) == sheet.row_bullheads[1]
        await pilot.press("3")
        assert said(app) == sheet.row[2]
        await pilot.press("question_mark")
        assert said(app).startswith("Keys and commands")
        await pilot.press("escape")
        hand = app.query_one("#hand", OptionList)
        assert app.focused is hand
        # Digits in the hand type a card number and jump to it; C says its bullheads.
        target = session.snapshot.view.hand[-1]
        await pilot.press(*str(target))
        assert app._highlighted_card() == target
        await pilot.press("c")
        assert said(app) == sheet.card(target)
        await pilot.press("home")

        # The command line takes what the plain mode takes; single keys do not act there.
        await pilot.press("f6")
        assert isinstance(app.focused, Input)
        await pilot.press(*"/bullheads 55", "enter")
        assert said(app) == speak.bullheads_sentence(55)
        await pilot.press("x", "enter")
        assert said(app) == session.labels("unknown_key", key="x")
        await pilot.press(*"105", "enter")
        await until(pilot, lambda: said(app) == "You do not hold that card.",
                    "the refusal of a card not held")
        await pilot.press("escape")

        rows_chosen = 0
        shot_row = False
        while session.snapshot.status != "over":
            snap = session.snapshot
            assert snap.ask is not None
            if isinstance(app.screen, RowDialog):
                rows_chosen += 1
                if not shot_row:
                    shot_row = True
                    text = snapshot(app, "row-choice")
                    assert "lower than every row" in text
                await pilot.press("down", "enter")
            else:
                assert app.focused is hand
                await pilot.press("home", "enter")
            await settle(pilot, app, snap.ask.key)
        await until(pilot, lambda: isinstance(app.screen, ResultsDialog)
                    and "Play again" in screen_text(app), "the results shown")
        assert rows_chosen >= 1
        text = snapshot(app, "results")
        table = app.screen.query_one(DataTable)
        assert [table.get_row_at(i)[0] for i in range(table.row_count)] == \
            session.results()[1:]
        assert "Play again" in text

        told = told_locally(load_record(record), speak)
        assert lines == told
        # R: the last step that revealed cards, as it was told.
        revealed = speak._("Cards revealed: {plays}.").split("{")[0]
        assert session.last_reveal == [line for line in told if revealed in line][-1]

        # Play again: a second game starts with the same seats.
        await pilot.press("enter")
        await settle(pilot, app, None)
        assert session.snapshot.game_no == 2 and session.snapshot.status == "playing"
        await pilot.press("ctrl+q")
    assert app.return_value == 0


async def test_serbian_and_czech_screens() -> None:
    for lang, title in (("sr", "Skupovi"), ("cs", "Řady")):
        session = LocalSession(Rules.parse("classic", players=4), ["easy"] * 3, seed=1,
                               lang=lang)
        app = NimmtApp(session)
        async with app.run_test(size=(120, 40)) as pilot:
            await settle(pilot, app, None)
            text = snapshot(app, f"table-{lang}")
            assert title in text
            assert session.snapshot.sheet.row[0] in text
            await pilot.press("s")
            assert said(app) == session.snapshot.sheet.scores
            await pilot.press("ctrl+q")


async def test_shortcuts_can_be_moved_or_turned_off() -> None:
    from nimmt.tui.commands import Keymap

    session = LocalSession(Rules.parse("classic", players=3), ["easy"] * 2, seed=4)
    app = NimmtApp(session, Keymap.parse("scores=p"))
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot, app, None)
        await pilot.press("p")
        assert said(app) == session.snapshot.sheet.scores
        await pilot.press("ctrl+q")

    session = LocalSession(Rules.parse("classic", players=3), ["easy"] * 2, seed=4)
    app = NimmtApp(session, Keymap.parse("off"))
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot, app, None)
        before = said(app)
        await pilot.press("s", "t")
        assert said(app) == before
        await pilot.press("f6", *"/scores", "enter")
        assert said(app) == session.snapshot.sheet.scores
        await pilot.press("ctrl+q")


async def test_the_session_stops_with_the_app_however_it_exits(server: Server,
                                                                tmp_path: Path) -> None:
    """An app that exits other than by its quit key (an error, a harness) still stops its
    session's thread and closes the connection: a thread left pumping would keep the
    process waiting for it at exit, for ever."""
    session = RemoteSession(
        RemoteTarget(server.url), name="Quin", lang="en", bots=["easy"],
        rules={"preset": "classic", "players": 2, "end": "rounds", "rounds": 1},
        tokens=TokenStore(tmp_path / "client.json"),
    )
    app = NimmtApp(session)
    try:
        async with app.run_test(size=(120, 40)) as pilot:
            await settle(pilot, app, None)
            app.exit()
        end = time.monotonic() + 30
        while not session.ended and time.monotonic() < end:
            await asyncio.sleep(0.05)
        assert session.ended, "the session's thread outlived the app"
    finally:
        session.close()  # so that a failure here does not leave the thread pumping


async def test_whole_game_online(server: Server, tmp_path: Path) -> None:
    """The same face at a server's table: the session pumps the server's messages in a
    worker thread and the screen follows to the results."""
    session = RemoteSession(
        RemoteTarget(server.url), name="Tex", lang="en", bots=["easy"],
        rules={"preset": "classic", "players": 2, "end": "rounds", "rounds": 1},
        tokens=TokenStore(tmp_path / "client.json"),
    )
    app = NimmtApp(session)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot, app, None)
        assert session.snapshot.code is not None
        snapshot(app, "table-online")
        await play_to_the_end(pilot, app)
        await until(pilot, lambda: isinstance(app.screen, ResultsDialog)
                    and "Tex (you)" in screen_text(app), "the results shown")
        snapshot(app, "results-online")
        await pilot.press("ctrl+q")
