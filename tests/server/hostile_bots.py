"""Bots an operator might enable by mistake: they hang, spin, end their process, raise,
or answer nonsense. The server tests register them through the operator's setting
(``Settings.bots``, ``nimmt serve --bot``) and check that each is cut off and the game
goes on; ``Polite`` is the well-behaved one (an operator's bot that works).

Importable as ``hostile_bots`` (pytest puts this directory on ``sys.path``, and
the server's spawned workers inherit it).
"""

from __future__ import annotations

import os
import time

from nimmt.bots.simple import CheapestBot
from nimmt.engine import View


class Polite(CheapestBot):
    """An operator's own bot that plays like ``cheapest``."""

    name = "polite"


class _Hostile(CheapestBot):
    """Does :meth:`misbehave` for every decision."""

    def misbehave(self, view: View) -> int:
        raise NotImplementedError

    def choose_card(self, view: View) -> int:
        return self.misbehave(view)

    def choose_row(self, view: View) -> int:
        return self.misbehave(view)

    def draft_card(self, view: View) -> int:
        return self.misbehave(view)


class Sleeper(_Hostile):
    """Never answers: sleeps (the process is idle, so only a deadline notices)."""

    name = "sleeper"

    def misbehave(self, view: View) -> int:
        time.sleep(1e6)
        return 0


class Spinner(_Hostile):
    """Never answers: spins on the CPU, with the interpreter lock held all along."""

    name = "spinner"

    def misbehave(self, view: View) -> int:
        n = 0
        while True:
            n += 1


class Quitter(_Hostile):
    """Ends its process mid-decision."""

    name = "quitter"

    def misbehave(self, view: View) -> int:
        os._exit(3)


class Raiser(_Hostile):
    """Raises."""

    name = "raiser"

    def misbehave(self, view: View) -> int:
        raise RuntimeError("this bot always fails")


class Liar(_Hostile):
    """Answers a value that is never legal."""

    name = "liar"

    def misbehave(self, view: View) -> int:
        return 999


#: The operator setting that enables all of them (``Settings.bots``).
HOSTILE = {
    "polite": "hostile_bots:Polite",
    "sleeper": "hostile_bots:Sleeper",
    "spinner": "hostile_bots:Spinner",
    "quitter": "hostile_bots:Quitter",
    "raiser": "hostile_bots:Raiser",
    "liar": "hostile_bots:Liar",
}
