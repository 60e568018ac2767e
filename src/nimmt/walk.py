"""One walk over a game's events: where its rounds and its resolution steps begin.

A game is told, shown and checked in pieces: the server's frames say each
resolution step as one entry, the replay page shows the table after each step,
``nimmt replay`` prints a block per turn and a record hashes every event. Each
of them walks the same events; :func:`walk` is that walk, written once, and a
:class:`GameVisitor` is what a consumer does on the way, as a PGN visitor is for
a chess game: the walk calls ``begin_game``, then for each event ``visit_event``,
opening and closing rounds and steps around it (a visitor may take each step
whole instead: ``visit_step``), then ``end_game``, and returns the visitor's
``result()``.

A **step** begins at the first event walked and at every event of
:data:`STEP_STARTS` (a turn, a round, a round's scores, the game's end), so the
steps partition the events: a turn's choices, reveal and placements are one step,
a round's opening (its hands, draft and rows) another. A **round** begins at
:class:`~nimmt.events.RoundStarted` and lasts until the next one or
:class:`~nimmt.events.GameOver`; events walked before any ``RoundStarted`` (a span
that starts inside a round) are in steps but in no round.

>>> from nimmt.events import CardPlaced, CardsRevealed, RoundScored, TurnStarted
>>> events = [TurnStarted(3), CardsRevealed(((0, 12), (1, 40))), CardPlaced(0, 12, 1),
...           CardPlaced(1, 40, 2), RoundScored(1, (0, 0), (0, 0))]
>>> [[type(e).__name__ for e in step] for step in walk(events, Steps())]
[['TurnStarted', 'CardsRevealed', 'CardPlaced', 'CardPlaced'], ['RoundScored']]
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Sequence
from typing import Generic, TypeVar

from .events import Event, GameOver, RoundScored, RoundStarted, TurnStarted, event_to_dict

__all__ = ["STEP_STARTS", "Checksum", "GameVisitor", "StepVisitor", "Steps", "starts_step",
           "walk"]

#: Events that open a new resolution step: the narration says each step as one entry.
STEP_STARTS = (TurnStarted, RoundStarted, RoundScored, GameOver)

#: Events that end the round walked (a tuple, not a union built on every call).
ROUND_ENDS = (RoundStarted, GameOver)

ResultT = TypeVar("ResultT")


def starts_step(event: Event) -> bool:
    """Whether ``event`` opens a resolution step (after the first event walked)."""
    return isinstance(event, STEP_STARTS)


class GameVisitor(Generic[ResultT]):
    """What a consumer does while :func:`walk` goes over a game's events.

    Every method but :meth:`result` does nothing here, so a visitor writes only
    the ones it needs. ``index`` is an event's position in the events walked.
    """

    def begin_game(self) -> None:
        """Before the first event."""

    def begin_round(self, event: RoundStarted, index: int) -> None:
        """A round begins at ``event`` (before the step it opens begins)."""

    def begin_step(self, event: Event, index: int) -> None:
        """A step begins at ``event`` (before it is visited)."""

    def visit_event(self, event: Event, index: int) -> None:
        """One event, in order."""

    def end_step(self) -> None:
        """The step begun last has no more events."""

    def visit_step(self, events: Sequence[Event], first: int) -> None:
        """One whole step, its events in order from position ``first``: here
        ``begin_step``, ``visit_event`` for each and ``end_step``. A visitor that takes
        a step at once (:class:`StepVisitor`) answers this alone and saves a call per
        event, which the server's narration, on its hot path, needs."""
        self.begin_step(events[0], first)
        for index, event in enumerate(events, first):
            self.visit_event(event, index)
        self.end_step()

    def end_round(self) -> None:
        """The round begun last has no more events (after its last step ended)."""

    def end_game(self) -> None:
        """After the last event."""

    def result(self) -> ResultT:
        """What the walk returns."""
        raise NotImplementedError


def walk(events: Iterable[Event], visitor: GameVisitor[ResultT]) -> ResultT:
    """Walk ``events`` in order with ``visitor``; its ``result()``.

    The one place that decides where rounds and steps begin (see the module's
    description); nothing is filtered here, so a consumer walks the events as
    its reader may know them (:func:`nimmt.events.for_viewer`).
    """
    seq = events if isinstance(events, (list, tuple)) else list(events)
    visitor.begin_game()
    starts = [i for i, event in enumerate(seq) if isinstance(event, STEP_STARTS)]
    if seq and (not starts or starts[0] != 0):
        starts.insert(0, 0)
    starts.append(len(seq))
    in_round = False
    for k in range(len(starts) - 1):
        first = starts[k]
        event = seq[first]
        if in_round and isinstance(event, ROUND_ENDS):
            visitor.end_round()
            in_round = False
        if isinstance(event, RoundStarted):
            visitor.begin_round(event, first)
            in_round = True
        visitor.visit_step(seq[first:starts[k + 1]], first)
    if in_round:
        visitor.end_round()
    visitor.end_game()
    return visitor.result()


class StepVisitor(GameVisitor[ResultT]):
    """A visitor that takes each step whole: :meth:`step` gets its events."""

    def visit_step(self, events: Sequence[Event], first: int) -> None:
        self.step(events, first)

    def step(self, events: Sequence[Event], first: int) -> None:
        """One step's events, in order; ``first`` is the position of the first of them
        in the events walked."""


class Steps(StepVisitor[list[list[Event]]]):
    """The steps themselves, each a list of its events."""

    def __init__(self) -> None:
        self._steps: list[list[Event]] = []

    def step(self, events: Sequence[Event], first: int) -> None:
        self._steps.append(list(events))

    def result(self) -> list[list[Event]]:
        return self._steps


class Checksum(GameVisitor[str]):
    """SHA-256 (hex) of the events, each as canonical JSON (keys sorted, no spaces)
    followed by a newline: a game record's ``events_sha256``.

    One line per event lets a live table keep a running digest instead of rehashing
    the whole game; canonical JSON keeps the digest apart from how a file was formatted.
    """

    def __init__(self) -> None:
        self._digest = hashlib.sha256()

    def visit_event(self, event: Event, index: int) -> None:
        line = json.dumps(event_to_dict(event), sort_keys=True, separators=(",", ":"))
        self._digest.update(line.encode())
        self._digest.update(b"\n")

    def result(self) -> str:
        return self._digest.hexdigest()
