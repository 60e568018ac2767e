"""How the command line writes: plain or drawn, files or standard output, errors.

Every command that can draw (the arena's tables and progress bar, the full-screen
terminal client) asks :func:`wants_plain` first, so one rule decides for all of
them: plain lines when ``--plain`` is given (to the command or to ``nimmt``
itself), when ``NIMMT_PLAIN`` or ``NO_COLOR`` is set, when ``TERM`` is ``dumb``,
or when standard output is not a terminal. A screen reader then reads the output
line by line, and a pipe never receives escape codes or box drawing.

A command that lacks an optional part names the command that adds it to this very
install (:func:`extra_command`), one rule for all of them.
"""

from __future__ import annotations

import os
import re
import shlex
import sys
from importlib import metadata
from pathlib import Path

import typer

__all__ = ["extra_command", "fail", "is_stdio", "wants_plain", "write_output"]


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


def _extra_requirements(extra: str, seen: frozenset[str] = frozenset()) -> list[str]:
    """The requirements the installed nimmt declares for ``extra`` (an extra that names
    others, ``all``, is opened up), markers other than the extra's own evaluated here."""
    found: list[str] = []
    for line in metadata.requires("nimmt") or []:
        requirement, _, marker = line.partition(";")
        if not re.search(rf"""extra\s*==\s*["']{re.escape(extra)}["']""", marker):
            continue
        rest = re.sub(rf"""(and\s+)?extra\s*==\s*["']{re.escape(extra)}["'](\s+and)?""", "",
                      marker).strip()
        if rest:
            try:
                from packaging.markers import Marker
            except ImportError:  # pip's own copy is not importable; keep the requirement
                pass
            else:
                if not Marker(rest).evaluate():
                    continue
        requirement = requirement.strip()
        inner = re.fullmatch(r"nimmt\s*\[([^\]]*)\]", requirement)
        if inner is None:
            found.append(requirement)
            continue
        for name in (n.strip() for n in inner.group(1).split(",")):
            if name and name not in seen:
                found += _extra_requirements(name, seen | {extra})
    return list(dict.fromkeys(found))


def extra_command(extra: str) -> str:
    """The command that adds the optional part ``extra`` to *this* install of nimmt.

    ``pip install 'nimmt[server]'`` works only where nimmt came from a package index: a
    host who installed a wheel file or a checkout (as ``scripts/start`` does) would be
    answered "No matching distribution". So the command names this interpreter's pip and
    the extra's own requirements as the installed package declares them (its metadata,
    made from ``pyproject.toml``), those not installed yet: it works however nimmt was
    installed. Without the metadata (sources run in place) it is the index's form.
    """
    try:
        wanted = _extra_requirements(extra)
    except metadata.PackageNotFoundError:
        wanted = []
    if not wanted:
        return f"pip install 'nimmt[{extra}]'"

    def missing(requirement: str) -> bool:
        name = re.match(r"[A-Za-z0-9._-]+", requirement)
        try:
            metadata.version(name.group(0) if name else requirement)
        except metadata.PackageNotFoundError:
            return True
        return False

    chosen = [r for r in wanted if missing(r)] or wanted
    return shlex.join([sys.executable, "-m", "pip", "install", *chosen])
