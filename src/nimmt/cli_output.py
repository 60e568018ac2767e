"""How the command line writes: plain or drawn, files or standard output, errors.

Every command that can draw (the arena's tables and progress bar, the full-screen
terminal client) asks :func:`wants_plain` first, so one rule decides for all of
them: plain lines when ``--plain`` is given (to the command or to ``nimmt``
itself), when ``NIMMT_PLAIN`` or ``NO_COLOR`` is set, when ``TERM`` is ``dumb``,
or when standard output is not a terminal. A screen reader then reads the output
line by line, and a pipe never receives escape codes or box drawing.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import typer

__all__ = ["fail", "is_stdio", "wants_plain", "write_output"]


def wants_plain(plain: bool = False, stdout: object = None) -> bool:
    """Plain output when asked for, or when drawing could not be seen or read."""
    if plain or os.environ.get("NIMMT_PLAIN", "") not in ("", "0"):
        return True
    if os.environ.get("NO_COLOR", "") != "":  # https://no-color.org: set and not empty
        return True
    if os.environ.get("TERM", "") == "dumb":
        return True
    out = sys.stdout if stdout is None else stdout
    isatty = getattr(out, "isatty", None)
    return not (callable(isatty) and isatty())


def fail(message: str, code: int = 1) -> typer.Exit:
    """A user's mistake: one sentence on standard error and the exit code to raise."""
    typer.echo(message, err=True)
    return typer.Exit(code)


def is_stdio(path: Path) -> bool:
    """``-`` names standard output for a file to write, standard input for one to read."""
    return str(path) == "-"


def write_output(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` (``-``: standard output), making its folder; a path that
    cannot be written is one sentence and exit code 1, never a traceback."""
    if is_stdio(path):
        sys.stdout.write(text)
        sys.stdout.flush()
        return
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    except OSError as exc:
        raise fail(f"Cannot write {path}: {exc.strerror or exc}") from None
