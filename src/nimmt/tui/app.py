"""The full-screen face: a Textual app over a :class:`~nimmt.tui.session.Session`.

The screen holds the rows (a list to move through: V), the players with their
scores and who has chosen, the hand (arrow keys, type a number to jump, Enter
plays; the card can be changed until the reveal), the game log (every line the
session says), a status line with the decision asked and the last shortcut's
sentence, and a command line that takes everything the plain mode takes. A row
choice opens a dialog; the end of the game opens the results with a rematch.

Keyboard first: the Playroom's single keys (V, 1–4, C, T, S) plus A (hand), R (the last
reveal), H (hint) and K or ? (the keys) act while the focus is in the game area and
never while typing in the command line; a :class:`~nimmt.tui.commands.Keymap` may
move them or turn them off. They and the screen's own keys (Ctrl+Q, Escape, F6) are
declared in :mod:`nimmt.keymap` with the web client's.
The mouse works too. Nothing relies on colour alone: the focus and the
highlighted option are reversed and bold, and states are written in words, so
the screen reads the same on a monochrome terminal.

The session's work (a bot thinking, the network) runs in worker threads; what
it says comes back to the app's thread through ``call_from_thread``.
"""

from __future__ import annotations

import contextlib
import threading
import time
from typing import ClassVar

from textual import on
from textual.app import App, ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.events import Key
from textual.screen import ModalScreen
from textual.widgets import Button, DataTable, Footer, Input, Label, OptionList, RichLog, Static
from textual.widgets.option_list import Option
from textual.worker import get_current_worker

from ..keymap import actions_of, help_texts
from .commands import Interpreter, Keymap
from .session import Changed, Ended, InputRefused, Said, Session, Update

__all__ = ["NimmtApp"]

CSS = """
Screen { layout: vertical; }
#status { height: auto; padding: 0 1; text-style: bold; }
#say { height: auto; min-height: 1; padding: 0 1; }
#say.urgent { text-style: bold reverse; }
#main { height: 1fr; }
#left { width: 1fr; }
#right { width: 1fr; }
.title { text-style: bold underline; padding: 0 1; }
#rows { height: 8; }
#players { height: 1fr; }
#hand { height: 12; }
#log { height: 1fr; border: solid $foreground 30%; }
OptionList { border: solid $foreground 30%; }
OptionList:focus { border: double $foreground; }
OptionList > .option-list--option-highlighted { text-style: bold reverse; }
Input { dock: bottom; }
RowDialog, ResultsDialog { align: center middle; }
#dialog { width: 90%; height: auto; max-height: 90%; border: double $foreground;
          padding: 1 2; background: $surface; }
#dialog OptionList { height: auto; max-height: 10; }
#dialog DataTable { height: auto; max-height: 14; }
#dialog Button { margin: 1 1 0 0; }
#dialog Horizontal { height: auto; }
Button:focus { text-style: bold reverse; }
"""


class RowDialog(ModalScreen[int]):
    """The row choice: every row with its cards and bullheads; Enter (or 1–4) takes it."""

    def __init__(self, title: str, rows: list[str], options: list[int]) -> None:
        super().__init__()
        self.title_text = title
        self.rows = rows
        self.options = options

    def compose(self) -> ComposeResult:
        with Vertical(id="dialog"):
            yield Label(self.title_text, classes="title")
            yield OptionList(
                *[Option(self.rows[r - 1] if r <= len(self.rows) else str(r), id=f"row{r}")
                  for r in self.options],
                id="row-options",
            )

    def on_mount(self) -> None:
        options = self.query_one("#row-options", OptionList)
        options.focus()
        options.highlighted = 0

    @on(OptionList.OptionSelected, "#row-options")
    def _picked(self, event: OptionList.OptionSelected) -> None:
        assert event.option.id is not None
        self.dismiss(int(event.option.id[3:]))

    def on_key(self, event: Key) -> None:
        if event.character and event.character in "1234" and int(event.character) in self.options:
            event.stop()
            self.dismiss(int(event.character))


class ResultsDialog(ModalScreen[str]):
    """The final scores, fewest bullheads first, with a rematch and a way out."""

    def __init__(self, title: str, lines: list[str], rematch: str | None, quit_: str) -> None:
        super().__init__()
        self.title_text = title
        self.lines = lines
        self.rematch = rematch
        self.quit_label = quit_

    def compose(self) -> ComposeResult:
        with Vertical(id="dialog"):
            yield Label(self.title_text, classes="title")
            table: DataTable[str] = DataTable(id="results", cursor_type="row", show_header=False)
            table.add_column("")
            for line in self.lines:
                table.add_row(line)
            yield table
            with Horizontal():
                if self.rematch is not None:
                    yield Button(self.rematch, id="rematch")
                yield Button(self.quit_label, id="quit")

    def on_mount(self) -> None:
        first = "#rematch" if self.rematch is not None else "#quit"
        self.query_one(first, Button).focus()

    @on(Button.Pressed)
    def _pressed(self, event: Button.Pressed) -> None:
        self.dismiss(event.button.id or "quit")


class NimmtApp(App[int]):
    """The full-screen table for one session."""

    CSS = CSS
    TITLE = "6 nimmt!"
    # The screen's own keys (nimmt.keymap): described in the catalogs' English, as Textual's
    # footer is read before a session (and its language) exists.
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding(a.key, a.action, help_texts("en")[a.action], show=a.key != "escape",
                priority=a.key == "ctrl+q")
        for a in actions_of("terminal") if a.fixed
    ]

    def __init__(self, session: Session, keymap: Keymap | None = None) -> None:
        super().__init__()
        self.session = session
        self.labels = session.labels
        self.interpreter = Interpreter(session, keymap)
        self.keymap = self.interpreter.keymap
        self._ui_thread = threading.get_ident()
        #: Set when the screen has gone: the session's updates have nowhere to go.
        self._unmounted = False
        self._typed = ""
        self._typed_at = 0.0
        self._shown_ask: str | None = None
        self._shown_over: int | None = None
        self._exit_status = 0
        #: Why the session could not start (no server, a wrong code), for the caller to say.
        self.failure = ""

    # -- layout ------------------------------------------------------------------------

    def compose(self) -> ComposeResult:
        labels = self.labels
        yield Static("", id="status")
        yield Static("", id="say")
        with Horizontal(id="main"):
            with Vertical(id="left"):
                yield Label(labels("rows"), classes="title")
                yield OptionList(id="rows")
                yield Label(labels("players"), classes="title")
                yield OptionList(id="players")
            with Vertical(id="right"):
                yield Label(labels("hand"), classes="title", id="hand-title")
                yield OptionList(id="hand")
                yield Label(labels("log"), classes="title")
                yield RichLog(id="log", wrap=True, markup=False, highlight=False, min_width=20)
        yield Input(placeholder=labels("command"), id="command")
        yield Footer()

    def on_mount(self) -> None:
        self._ui_thread = threading.get_ident()
        self.session.listen(self._from_session)
        self.query_one("#hand", OptionList).focus()
        self.run_worker(self._run_session, thread=True, exclusive=False, group="session")

    def _run_session(self) -> None:
        """The session's loop, in a worker thread: open, then take what arrives, until the
        session ends or the app stops (the app cancels its workers as it exits, however
        it exits: this thread must not outlive it, or the process waits for it for ever)."""
        worker = get_current_worker()
        try:
            self.session.open()
        except InputRefused as exc:
            # The screen closes at once: the reason is printed after it (see failure).
            self.failure = str(exc)
            self.call_from_thread(self._finish, 1)
            return
        try:
            while not self.session.ended and not worker.is_cancelled:
                self.session.pump(0.2)
        finally:
            # Also when telling the screen failed because it has gone.
            if not self.session.ended:
                self.session.close()

    def on_unmount(self) -> None:
        """However the app ends, its session ends with it: the connection is closed and the
        session's thread, seeing the session ended, stops."""
        self._unmounted = True
        if not self.session.ended:
            threading.Thread(target=self.session.close, daemon=True).start()

    # -- from the session ------------------------------------------------------------------

    def _from_session(self, update: Update) -> None:
        if threading.get_ident() == self._ui_thread:
            self._apply(update)
        elif not self._unmounted:
            # A screen gone meanwhile has nothing to show: the update is dropped.
            with contextlib.suppress(RuntimeError):
                self.call_from_thread(self._apply, update)

    def _apply(self, update: Update) -> None:
        if isinstance(update, Said):
            self.query_one("#log", RichLog).write(update.text)
            if update.kind in ("decision", "error", "status"):
                self._say(update.text, update.kind != "status")
        elif isinstance(update, Changed):
            self._render()
        elif isinstance(update, Ended) and update.text:
            self._say(update.text, True)
            self.query_one("#log", RichLog).write(update.text)

    def _say(self, text: str, urgent: bool = False) -> None:
        say = self.query_one("#say", Static)
        say.update(text)
        say.set_class(urgent, "urgent")

    def _render(self) -> None:
        s = self.session
        snap = s.snapshot
        view = snap.view
        labels = self.labels
        sheet = snap.sheet
        status = []
        if snap.code:
            status.append(f"{snap.code}")
        if snap.rules_name:
            status.append(snap.rules_name)
        if snap.status == "over":
            status.append(labels("status.over"))
        elif view is not None:
            status.append(labels("status.round", round=view.round, turn=view.turn))
        elif not snap.playing:
            status.append(labels("status.open"))
        if snap.you is None and snap.seats:
            status.append(labels("status.spectating"))
        self.query_one("#status", Static).update(" — ".join(status))

        rows = self.query_one("#rows", OptionList)
        keep = rows.highlighted
        rows.clear_options()
        rows.add_options([Option(text, id=f"row{i}") for i, text in enumerate(sheet.row, 1)])
        if keep is not None and keep < len(sheet.row):
            rows.highlighted = keep

        players = self.query_one("#players", OptionList)
        players.clear_options()
        for p in range(len(snap.seats)):
            players.add_option(Option(self._player_line(p), id=f"seat{p}"))

        hand = self.query_one("#hand", OptionList)
        keep_card = self._highlighted_card()
        pool = snap.ask is not None and snap.ask.kind == "draft"
        cards = [] if view is None else list(view.draft_pool if pool else view.hand)
        self.query_one("#hand-title", Label).update(labels("pool" if pool else "hand"))
        hand.clear_options()
        for card in cards:
            text = sheet.card(card) or s.narrator.bullheads_sentence(card)
            if view is not None and card == view.my_choice:
                text = f"▶ {text} ({labels('player.chosen')})"
            hand.add_option(Option(text, id=f"card{card}"))
        if keep_card in cards:
            hand.highlighted = cards.index(keep_card)
        elif cards:
            hand.highlighted = 0

        ask = snap.ask
        if ask is not None and ask.key != self._shown_ask:
            self._shown_ask = ask.key
            if ask.kind == "row":
                self._open_row_dialog()
            else:
                hand.focus()
        if snap.status == "over" and self._shown_over != snap.game_no and view is not None:
            self._shown_over = snap.game_no
            self._say(labels("status.over"))
            self._open_results()

    def _player_line(self, p: int) -> str:
        snap = self.session.snapshot
        labels = self.labels
        seat = snap.seats[p]
        if seat.name is None:
            return labels("seat.empty", seat=p + 1)
        name = seat.name
        if p == snap.you:
            name = labels("seat.you", name=name)
        elif seat.kind == "bot":
            name = labels("seat.bot", name=name)
        parts = [name]
        view = snap.view
        if view is not None:
            parts.append(self.session.narrator.count_bullheads(view.totals[p]))
            if view.eliminated[p]:
                parts.append(labels("player.out"))
            elif snap.status == "playing" and view.phase == "choose":
                parts.append(labels("player.chosen" if view.chosen[p] else "player.choosing"))
        if seat.auto:
            parts.append(labels("player.auto"))
        elif not seat.connected:
            parts.append(labels("player.away"))
        return " — ".join(parts)

    def _highlighted_card(self) -> int | None:
        hand = self.query_one("#hand", OptionList)
        if hand.highlighted is None or hand.option_count == 0:
            return None
        option_id = hand.get_option_at_index(hand.highlighted).id
        return int(option_id[4:]) if option_id else None

    # -- dialogs ---------------------------------------------------------------------------

    def _open_row_dialog(self) -> None:
        snap = self.session.snapshot
        ask = snap.ask
        assert ask is not None
        card = self.session.narrator.card(ask.card) if ask.card is not None else "?"
        # Why a row is asked (a card too low, one that fits at neither end, a joker) is the
        # server's decision sentence, said as the dialog opens; the title only names the card.
        dialog = RowDialog(self.labels("rowdlg.choose", card=card), list(snap.sheet.row),
                           list(ask.options))

        def chosen(row: int | None) -> None:
            if row is not None:
                self._answer(row)

        self.push_screen(dialog, chosen)

    def _open_results(self) -> None:
        lines = self.session.results()
        rematch = self.labels("results.rematch") if self.session.snapshot.host else None
        dialog = ResultsDialog(lines[0], lines[1:], rematch, self.labels("results.quit"))

        def done(choice: str | None) -> None:
            if choice == "rematch":
                self._command("rematch")
            else:
                self.action_quit_game()

        self.push_screen(dialog, done)

    # -- the player's intentions -------------------------------------------------------------

    def _answer(self, value: int) -> None:
        def work() -> None:
            try:
                self.session.answer(value)
            except InputRefused as exc:
                self.call_from_thread(self._refused, str(exc))

        self.run_worker(work, thread=True, group="answer")

    def _command(self, name: str, arg: str = "") -> None:
        def work() -> None:
            try:
                self.session.command(name, arg)
            except InputRefused as exc:
                self.call_from_thread(self._refused, str(exc))

        self.run_worker(work, thread=True, group="answer")

    def _refused(self, text: str) -> None:
        self.session.last_said = text
        self._say(text, True)
        self.query_one("#log", RichLog).write(text)

    @on(OptionList.OptionSelected, "#hand")
    def _card_selected(self, event: OptionList.OptionSelected) -> None:
        if event.option.id:
            self._answer(int(event.option.id[4:]))

    @on(OptionList.OptionSelected, "#rows")
    def _row_selected(self, event: OptionList.OptionSelected) -> None:
        ask = self.session.snapshot.ask
        if event.option.id and ask is not None and ask.kind == "row":
            self._answer(int(event.option.id[3:]))
        elif event.option.id:
            self._say(self.interpreter.speak(f"row{event.option.id[3:]}"))

    @on(OptionList.OptionHighlighted, "#rows")
    def _row_focused(self, event: OptionList.OptionHighlighted) -> None:
        if event.option.id:
            self.interpreter.row, self.interpreter.card = int(event.option.id[3:]), None

    @on(OptionList.OptionHighlighted, "#hand")
    def _card_focused(self, event: OptionList.OptionHighlighted) -> None:
        if event.option.id:
            self.interpreter.card, self.interpreter.row = int(event.option.id[4:]), None

    @on(Input.Submitted, "#command")
    def _typed_line(self, event: Input.Submitted) -> None:
        text = event.value
        event.input.value = ""
        if text.strip().startswith("/") or text.strip().startswith("'") or _is_number(text):
            # Answers and table commands may wait on the network or a bot: a worker does them.
            def work() -> None:
                outcome = self.interpreter.line(text)
                self.call_from_thread(self._outcome, outcome.say, outcome.urgent, outcome.quit)

            self.run_worker(work, thread=True, group="answer")
            return
        outcome = self.interpreter.line(text)
        self._outcome(outcome.say, outcome.urgent, outcome.quit)

    def _outcome(self, text: str, urgent: bool, quit_: bool) -> None:
        if quit_:
            self.action_quit_game()
            return
        if text:
            if urgent:
                self._refused(text)
            else:
                self._say(text)

    # -- single keys ------------------------------------------------------------------------

    def on_key(self, event: Key) -> None:
        """The Playroom's shortcuts, only while the focus is in the game area (not the command
        line); in the hand, digits type a card number to jump to."""
        if isinstance(self.focused, Input) or not event.character:
            return
        char = event.character
        focused = self.focused
        hand = self.query_one("#hand", OptionList)
        if char.isdigit() and focused is hand:
            event.stop()
            self._jump(char)
            return
        action = self.keymap.action(char)
        if action is None:
            return
        event.stop()
        if action == "rows":
            rows = self.query_one("#rows", OptionList)
            rows.focus()
            if rows.highlighted is None and rows.option_count:
                rows.highlighted = 0
        if action == "keys":
            log = self.query_one("#log", RichLog)
            log.write(self.interpreter.help())
            texts = help_texts(self.session.lang)
            for a in actions_of("terminal"):
                if a.fixed:
                    log.write(f"{a.key.upper()}: {texts[a.action]}")
            log.write(self.labels("help.textual"))
        if action == "hint":
            # A search (or the server) takes up to a second: a worker waits for it.
            def work() -> None:
                try:
                    text, urgent = self.interpreter.speak("hint"), False
                except InputRefused as exc:
                    text, urgent = str(exc), True
                self.call_from_thread(self._outcome, text, urgent, False)

            self.run_worker(work, thread=True, group="hint", exclusive=True)
            return
        self._say(self.interpreter.speak(action))

    def _jump(self, digit: str) -> None:
        now = time.monotonic()
        self._typed = (self._typed if now - self._typed_at < 1.0 else "") + digit
        self._typed_at = now
        hand = self.query_one("#hand", OptionList)
        for i in range(hand.option_count):
            option_id = hand.get_option_at_index(i).id
            if option_id and option_id[4:] == self._typed:
                hand.highlighted = i
                return

    # -- actions -------------------------------------------------------------------------------

    def action_focus_hand(self) -> None:
        self.query_one("#hand", OptionList).focus()

    def action_focus_command(self) -> None:
        self.query_one("#command", Input).focus()

    def action_quit_game(self) -> None:
        self._finish(self._exit_status)

    def _finish(self, status: int) -> None:
        self._exit_status = status
        threading.Thread(target=self.session.close, daemon=True).start()
        self.exit(status)


def _is_number(text: str) -> bool:
    text = text.strip().replace(",", ".")
    return bool(text) and text.replace(".", "", 1).isdigit()
