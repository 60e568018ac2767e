"""Where the command line's clients take a password from, never from an argument.

A password given as a command-line argument is seen by every user of the
machine (``ps``) and kept in the shell's history, so ``nimmt play``, ``nimmt
bot`` and ``nimmt account`` take one, in this order, from:

1. a file (``--password-file PATH``: its first line), for a bot run by a
   service manager that keeps the file readable by the bot's user alone;
2. the environment variable ``NIMMT_PASSWORD``, for a bot started by a script
   (the environment of a process is readable by its own user and root only);
3. the terminal, without echo (``getpass``), when there is one.

With none of them the command stops with one sentence
(:class:`PasswordUnavailable`). docs/accounts.md says the same to players.
"""

from __future__ import annotations

import getpass
import os
import sys
from collections.abc import Mapping
from pathlib import Path

__all__ = ["PASSWORD_ENV", "PasswordUnavailable", "read_password"]

#: The environment variable a password is read from.
PASSWORD_ENV = "NIMMT_PASSWORD"


class PasswordUnavailable(Exception):
    """No password could be read; the message says where one may come from."""


def read_password(prompt: str, *, file: Path | None = None,
                  env: Mapping[str, str] | None = None, repeat: str | None = None,
                  environment_variable: str = PASSWORD_ENV) -> str:
    """A password from ``file``, else ``$NIMMT_PASSWORD`` (``environment_variable``), else
    typed at the terminal after ``prompt`` (twice, the second time after ``repeat``, when
    ``repeat`` is given: for a new password)."""
    if file is not None:
        try:
            text = file.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            raise PasswordUnavailable(f"cannot read the password file {file}: "
                                      f"{getattr(exc, 'strerror', None) or exc}") from None
        line = text.splitlines()[0] if text else ""
        if not line:
            raise PasswordUnavailable(f"the password file {file} is empty")
        return line
    value = (os.environ if env is None else env).get(environment_variable)
    if value:
        return value
    if not sys.stdin.isatty():
        raise PasswordUnavailable(
            f"no password: set {environment_variable}, give --password-file, or run in a "
            "terminal to type it")
    typed = getpass.getpass(prompt)
    if repeat is not None and getpass.getpass(repeat) != typed:
        raise PasswordUnavailable("the two passwords typed differ")
    if not typed:
        raise PasswordUnavailable("no password was typed")
    return typed
