"""A finished game's record as the replay viewer's steps: one per turn, round start and
round end (the steps of :func:`nimmt.walk.walk`), each with its sentences and the rows and
scores after it, public information only."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..events import CardPlaced, Event, RoundScored, RowsDealt, RowTaken, for_viewer
from ..narrate import SOURCE_LANGUAGE, Narrator, narrator
from ..record import record_from_dict, replay
from ..walk import StepVisitor, walk
from .speech import speaker

__all__ = ["replay_steps", "said_names"]

#: The strengths a host seats bots by, and the most seats a table has: the bots whose
#: names a record keeps in English (``"Easy Bot 2"``, tablelog.BotSeat.name).
_BOT_KINDS = ("beginner", "easy", "medium", "hard", "expert")
_MOST_SEATS = 10


def said_names(names: Sequence[str], speak: Narrator) -> list[str]:
    """The players of a record as ``speak``'s readers hear them: a bot's English name
    (the record keeps it so) said in their language, as the table said it."""
    source = narrator(SOURCE_LANGUAGE)
    bots = {source.bot_name(kind, n): speak.bot_name(kind, n)
            for kind in _BOT_KINDS for n in range(1, _MOST_SEATS + 1)}
    return [bots.get(name, name) for name in names]


def replay_steps(record: dict[str, Any], lang: str) -> dict[str, Any]:
    """A finished game's record as the replay viewer's steps (public information only)."""
    rec = record_from_dict(record)
    game = replay(rec)
    speak = speaker(lang)
    names = said_names(rec.players, speak)
    events = [e for e in (for_viewer(ev, None) for ev in game.events) if e is not None]
    steps = walk(events, _ReplaySteps(speak, names, list(rec.start_scores)))
    return {"players": names, "rules": rec.rules.model_dump(), "steps": steps,
            "winners": list(game.winners), "totals": list(game.scores)}


class _ReplaySteps(StepVisitor[list[dict[str, Any]]]):
    """Each resolution step of a game's public events: its sentences, and the rows and
    scores as they are after it."""

    def __init__(self, speak: Narrator, names: list[str], scores: list[int]) -> None:
        self._speak = speak
        self._names = names
        self._rows: list[list[int]] = []
        self._scores = scores
        self._steps: list[dict[str, Any]] = []

    def step(self, events: Sequence[Event], first: int) -> None:
        rows = self._rows
        for event in events:
            if isinstance(event, RowsDealt):
                rows = self._rows = [list(r) for r in event.rows]
            elif isinstance(event, RowTaken):
                rows[event.row - 1] = []
            elif isinstance(event, CardPlaced):
                if event.end == "left":
                    rows[event.row - 1].insert(0, event.card)
                else:
                    rows[event.row - 1].append(event.card)
            elif isinstance(event, RoundScored):
                self._scores = list(event.totals)
        self._steps.append({"sentences": self._speak.narrate(events, self._names, None),
                            "rows": [list(r) for r in rows],
                            "scores": list(self._scores)})

    def result(self) -> list[dict[str, Any]]:
        return self._steps
