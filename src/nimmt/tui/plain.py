"""The plain line mode: for console screen readers, Braille displays and pipes.

Nothing moves the cursor and nothing is redrawn: every event (online, every step of
the game, as the server's frames tell it) is one line of the narration, written
once, in order, so a screen reader (Speakup, Orca or NVDA
reading a terminal, a Braille display) reads it as it comes and its review
keys find it again. When a decision is asked, its sentence says every option,
and a short prompt ("Your card: ") waits for a number, a shortcut letter or a
command, then Enter (see :mod:`nimmt.tui.commands`).

Lines that arrive while a prompt waits (other players, online) start on a new
line, and the prompt is written again after them, so what is read is never a
sentence glued to a prompt.
"""

from __future__ import annotations

import queue
import threading
from typing import TextIO

from .commands import Interpreter, Keymap
from .session import Ended, InputRefused, Said, Session, Update

__all__ = ["PlainFace"]


class PlainFace:
    """Runs a session as lines on ``out``, reading lines from ``inp``."""

    def __init__(self, session: Session, out: TextIO, inp: TextIO,
                 keymap: Keymap | None = None) -> None:
        self.session = session
        self.out = out
        self.inp = inp
        self.interpreter = Interpreter(session, keymap)
        self._inputs: queue.Queue[str | None] = queue.Queue()
        self._prompt_open = False
        self._write_lock = threading.Lock()
        self.ended_text = ""
        isatty = getattr(inp, "isatty", None)
        self._terminal_in = bool(callable(isatty) and isatty())

    # -- output ---------------------------------------------------------------------

    def write(self, text: str) -> None:
        """Write ``text`` (one or more lines), never on the line of an open prompt."""
        with self._write_lock:
            if self._prompt_open:
                self.out.write("\n")
                self._prompt_open = False
            for line in text.split("\n"):
                self.out.write(line + "\n")
            self.out.flush()

    def _on_update(self, update: Update) -> None:
        if isinstance(update, Said):
            self.write(update.text)
        elif isinstance(update, Ended):
            self.ended_text = update.text

    def _prompt(self) -> None:
        ask = self.session.snapshot.ask
        if ask is None or self._prompt_open:
            return
        with self._write_lock:
            self.out.write(self.session.labels(f"prompt.{ask.kind}"))
            self.out.flush()
            self._prompt_open = True

    # -- input ----------------------------------------------------------------------

    def _read(self) -> None:
        while True:
            try:
                line = self.inp.readline()
            except (OSError, ValueError):
                line = ""
            if not line:
                self._inputs.put(None)
                return
            self._inputs.put(line.rstrip("\r\n"))

    # -- the loop -------------------------------------------------------------------

    def run(self) -> int:
        """Play until the game is left (``/quit``, end of input) or the session ends.

        Returns the exit status: 0, or 1 when the session could not start or ended
        in trouble (a server gone for good).
        """
        session = self.session
        session.listen(self._on_update)
        self.write(session.labels("mode.plain"))
        try:
            session.open()
        except InputRefused as exc:
            self.write(str(exc))
            session.close()
            return 1
        threading.Thread(target=self._read, name="nimmt-stdin", daemon=True).start()
        status = 0
        try:
            while not session.ended:
                session.pump(0.02)
                if session.ended:
                    status = 1 if self.ended_text else 0
                    break
                self._prompt()
                try:
                    line = self._inputs.get(timeout=0.05)
                except queue.Empty:
                    continue
                with self._write_lock:
                    if self._prompt_open and not self._terminal_in:
                        # Nothing echoed the answer (a pipe): finish the prompt's line with it.
                        self.out.write((line or "") + "\n")
                    self._prompt_open = False
                if line is None:
                    break
                outcome = self.interpreter.line(line)
                if outcome.say:
                    if outcome.urgent:
                        session.last_said = outcome.say
                    self.write(outcome.say)
                if outcome.quit:
                    break
        except KeyboardInterrupt:
            pass
        session.close()
        if self.ended_text:
            self.write(self.ended_text)
        self.write(session.labels("bye"))
        return status
