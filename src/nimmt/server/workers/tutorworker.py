"""The inside of a hint and analysis worker process (see :mod:`.tutor` for the outside).

Kept apart from the tutor so that a worker imports only what the expert's search
needs, not asyncio or the server. A worker loads the search kernel, says it is
ready, then answers jobs until the server closes its socket. Every frame, both
ways, is a length-prefixed pickle: a job is ``(kind, args)`` (``kind`` one of
:data:`JOBS`), an answer ``("ok", value)`` or ``("error", message)``; the first
frame a worker sends is ``("ready", pid)``. Only this project's code runs here (no
operator's bot), so answers are Python values.

Each job carries its time budget and keeps it itself: a hint's search stops at
its seconds, an analysis at its seconds per decision and its seconds in all
(:func:`nimmt.sim.analysis.analyse`). The server stops a worker that runs past
its job's budget by more than a grace, or whose job nobody waits for any more.
"""

from __future__ import annotations

import contextlib
import os
import pickle
import signal
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from .lifeline import exit_with_parent, serve_frames

if TYPE_CHECKING:
    import socket

    from ...advice import GameReview
    from ...views import View

__all__ = ["JOBS", "analysis_job", "hint_job", "main"]


def hint_job(view: View, seed: int, lang: str, rollouts: int,
             seconds: float) -> tuple[dict[str, Any], str]:
    """The expert's advice on ``view``'s pending decision (at most ``rollouts``, and at most
    ``seconds``), as data and as the sentence a hint speaks in ``lang``."""
    from ...bots.base import Budget
    from ...narrate import narrator
    from ...sim.advice import advise

    advice = advise(view, seed=seed, budget=Budget(rollouts=rollouts, seconds=seconds))
    return advice.to_dict(), narrator(lang).advice_sentence(advice)


def analysis_job(record_json: str, seed: int, rollouts: int, seconds: float,
                 decision_seconds: float) -> GameReview:
    """The review of the game stored as ``record_json``: ``rollouts`` and at most
    ``decision_seconds`` per decision, at most ``seconds`` in all (then partial)."""
    from ...record import record_from_json
    from ...sim.analysis import analyse

    return analyse(record_from_json(record_json), seed=seed, rollouts=rollouts,
                   seconds=seconds, decision_seconds=decision_seconds)


#: What a worker may be asked to do, by the name a job gives.
JOBS: dict[str, Callable[..., Any]] = {"hint": hint_job, "analysis": analysis_job}


def main(sock: socket.socket, nice: int) -> None:
    """Warm up, say ready, then answer jobs until the server closes the socket."""
    exit_with_parent()  # a killed server leaves no worker computing for nobody
    # Ctrl-C in a terminal reaches the whole process group: the server stops its workers.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    with contextlib.suppress(OSError):
        os.nice(nice)
    # Load the search kernel before the first job, so a hint does not spend its budget
    # compiling.
    from ...sim.search import warm_up

    warm_up()

    def reply_to(body: bytes) -> bytes:
        kind, args = pickle.loads(body)
        try:
            reply: tuple[str, Any] = ("ok", JOBS[kind](*args))
        except Exception as exc:
            reply = ("error", f"{type(exc).__name__}: {exc}"[:300])
        return pickle.dumps(reply, protocol=pickle.HIGHEST_PROTOCOL)

    serve_frames(sock, pickle.dumps(("ready", os.getpid()), protocol=pickle.HIGHEST_PROTOCOL),
                 reply_to)
