"""Hints and game analyses, computed in a worker process of their own, never on the loop.

Both are the expert's search (:func:`nimmt.sim.advice.advise` for a hint, a
second or less; :func:`nimmt.sim.analysis.analyse` for a finished game, seconds
to a minute), so neither may run in the server's interpreter: a search in a
thread holds the interpreter lock the event loop needs (docs/server.md, "Where
they think"). They get their own lane rather than the bots' search lane, so a
person asking for hints, or a stranger asking for analyses, never delays a
bot's move at any table: the lane has ``workers`` processes at the search
lane's low OS priority and at most ``queue`` jobs waiting; past that a request
is refused as busy (:class:`TutorBusy`) instead of piling up.

Only this project's code runs in these workers (no operator's bot), so their
results come back as Python values through :mod:`concurrent.futures`. What a
job is given is what its answer may depend on: a hint gets one seat's
:class:`~nimmt.View` (the one that seat's frames are made from), an analysis
the stored record of a finished game, whose every decision it reviews from the
deciding seat's view.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import multiprocessing
import os
import time
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import TYPE_CHECKING, Any, TypeVar

if TYPE_CHECKING:
    from collections.abc import Callable

    from ..advice import GameReview
    from ..views import View
    from .metrics import Metrics

__all__ = ["TUTOR_NICE", "Tutor", "TutorBusy", "analysis_job", "hint_job"]

log = logging.getLogger("nimmt.server.tutor")

#: The workers' OS priority: the search lane's, below the server's.
TUTOR_NICE = 10

T = TypeVar("T")


class TutorBusy(Exception):
    """As many hints and analyses wait as the lane may hold: ask again later."""


# -- inside the worker -------------------------------------------------------------------


def _start_worker(nice: int) -> None:
    """Lower the priority, then load the search kernel before the first job (as the bot
    workers do), so the first hint does not spend its second compiling."""
    with contextlib.suppress(OSError):
        os.nice(nice)
    from ..sim.search import warm_up

    warm_up()


def hint_job(view: View, seed: int, lang: str, rollouts: int) -> tuple[dict[str, Any], str]:
    """The expert's advice on ``view``'s pending decision (at most ``rollouts``, and at most
    :data:`~nimmt.sim.advice.HINT_BUDGET`'s second), as data and as the sentence a hint
    speaks in ``lang``."""
    from ..bots.base import Budget
    from ..narrate import narrator
    from ..sim.advice import HINT_BUDGET, advise

    advice = advise(view, seed=seed, budget=Budget(rollouts=rollouts, seconds=HINT_BUDGET.seconds))
    return advice.to_dict(), narrator(lang).advice_sentence(advice)


def analysis_job(record_json: str, seed: int, rollouts: int) -> GameReview:
    """The review of the game stored as ``record_json``."""
    from ..record import record_from_json
    from ..sim.analysis import analyse

    return analyse(record_from_json(record_json), seed=seed, rollouts=rollouts)


# -- the server's side -----------------------------------------------------------------------


class Tutor:
    """The lane of hint and analysis jobs: ``workers`` processes, ``queue`` jobs at most
    waiting or running."""

    def __init__(self, *, workers: int = 1, queue: int = 8) -> None:
        self.workers = max(1, workers)
        self.queue = max(1, queue)
        #: Jobs submitted and not answered yet.
        self.pending = 0
        self._pool: ProcessPoolExecutor | None = None
        #: Where the jobs' times and refusals are counted (the hub's metrics), if anywhere.
        self.metrics: Metrics | None = None

    def _executor(self) -> ProcessPoolExecutor:
        if self._pool is None:
            self._pool = ProcessPoolExecutor(
                max_workers=self.workers,
                mp_context=multiprocessing.get_context("spawn"),
                initializer=_start_worker,
                initargs=(TUTOR_NICE,),
            )
        return self._pool

    async def run(self, fn: Callable[..., T], *args: Any) -> T:
        """``fn(*args)`` in a worker. Raises :class:`TutorBusy` when the lane is full; a
        worker that died (killed, out of memory) is replaced for the next job."""
        if self.pending >= self.queue:
            if self.metrics is not None:
                self.metrics.refused("tutor_queue")
            raise TutorBusy(f"{self.pending} hints and analyses are being computed")
        self.pending += 1
        asked = time.perf_counter()
        try:
            loop = asyncio.get_running_loop()
            try:
                result = await loop.run_in_executor(self._executor(), fn, *args)
                if self.metrics is not None:
                    self.metrics.advice_seconds.labels(_KINDS.get(fn, "other")).observe(
                        time.perf_counter() - asked)
                return result
            except BrokenProcessPool:
                log.error("a hint and analysis worker died; starting a new one")
                self._discard()
                raise
        finally:
            self.pending -= 1

    async def hint(self, view: View, seed: int, lang: str,
                   rollouts: int) -> tuple[dict[str, Any], str]:
        """:func:`hint_job` in a worker."""
        return await self.run(hint_job, view, seed, lang, rollouts)

    async def analysis(self, record_json: str, seed: int, rollouts: int) -> GameReview:
        """:func:`analysis_job` in a worker."""
        return await self.run(analysis_job, record_json, seed, rollouts)

    def _discard(self) -> None:
        pool, self._pool = self._pool, None
        if pool is None:
            return
        # A search cannot be interrupted: its processes are ended, not waited for.
        processes = list(getattr(pool, "_processes", {}).values())
        pool.shutdown(wait=False, cancel_futures=True)
        for p in processes:
            with contextlib.suppress(OSError, ValueError):
                p.kill()
        for p in processes:
            with contextlib.suppress(OSError, ValueError):
                p.join(5.0)

    async def close(self) -> None:
        """Stop the workers (the server stops); jobs still running are abandoned."""
        await asyncio.get_running_loop().run_in_executor(None, self._discard)


#: The kinds of job the metrics tell apart.
_KINDS: dict[Callable[..., Any], str] = {hint_job: "hint", analysis_job: "analysis"}
