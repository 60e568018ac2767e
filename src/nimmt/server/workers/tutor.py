"""Hints and game analyses: fair, bounded and cancellable work in worker processes.

Both are the expert's search (:func:`nimmt.sim.advice.advise` for a hint, a
second or less; :func:`nimmt.sim.analysis.analyse` for a finished game, seconds
to a minute), so neither may run in the server's interpreter: a search in a
thread holds the interpreter lock the event loop needs (docs/server.md, "Where
they think"). They run apart from the bots' lanes, so a person asking for hints,
or a stranger asking for analyses, never delays a bot's move at any table.

Two lanes, each with worker processes of its own (at the bots' search priority,
started when the lane gets its first job, see :mod:`.tutorworker` for the inside):

- the **hint lane**: short, interactive jobs. A hint never waits behind an
  analysis, however many analyses are asked for.
- the **analysis lane**: long jobs, each bounded by its time budget.

Fairness: each lane queues its jobs per *key* (a hint's player, an analysis's
client address) and a free worker takes the next job round-robin across keys, so
one player with many connections and tables, or one address with many requests,
waits its turn instead of holding everyone else's behind it. A key may have
``per_key`` jobs waiting or running at once, and a lane ``queue`` jobs in all;
past either, a request is refused with :class:`TutorBusy`, which carries the
expected wait (the lane measures how long its jobs take) so a client is told when
to ask again, not merely "no".

Budgets: every job carries its budget into its worker, which keeps it (a hint's
search stops at its seconds; an analysis at its seconds per decision, and at its
seconds in all it answers what it has, marked partial). A worker that runs past
its job's budget by ``grace`` anyway is stopped and the job fails.

Cancellation: a job nobody waits for any more is cancelled (its future is
cancelled): a waiting job leaves the queue, a running one has its worker stopped
(a search cannot be interrupted) and a fresh worker starts for the next job.
:meth:`Tutor.stop` (the server stops) fails every job at once with
:class:`TutorStopped`, and :meth:`Tutor.close` ends every worker.

Only this project's code runs in these workers (no operator's bot), so their
answers come back as Python values. What a job is given is what its answer may
depend on: a hint gets one seat's :class:`~nimmt.View` (the one that seat's
frames are made from), an analysis the stored record of a finished game, whose
every decision it reviews from the deciding seat's view.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import math
import pickle
from collections.abc import Hashable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

from . import tutorworker
from .workerproc import START_TIMEOUT, JobQueues, WorkerProcess

if TYPE_CHECKING:
    from ...advice import GameReview
    from ...views import View
    from ..base.settings import Settings

__all__ = [
    "TUTOR_NICE", "AdviceCounts", "Tutor", "TutorBusy", "TutorFailed", "TutorJob", "TutorLane",
    "TutorStopped",
]

log = logging.getLogger("nimmt.server.tutor")

#: The workers' OS priority: the search lane's, below the server's.
TUTOR_NICE = 10

#: Largest answer read from a worker (an analysis of the longest game the server plays
#: is a few megabytes).
MAX_ANSWER = 64 << 20

#: How much a finished job's time moves a lane's expected time per job (a moving average).
_WEIGHT = 0.3


class AdviceCounts(Protocol):
    """Where hints and analyses are counted (the server's metrics)."""

    def refused(self, reason: str) -> None:
        """A job refused by the limit named ``reason``."""

    def advice(self, kind: str, seconds: float) -> None:
        """A job of ``kind`` answered ``seconds`` after it was asked."""


class TutorBusy(Exception):
    """The lane has no room for this job: ask again in ``wait`` seconds (an estimate).

    ``own``: the asker's own share is in use (their earlier job has not finished);
    otherwise the lane as a whole is full."""

    def __init__(self, message: str, wait: float, *, own: bool) -> None:
        super().__init__(message)
        self.message = message
        self.wait = wait
        self.own = own


class TutorStopped(Exception):
    """The server stops: the job was dropped."""


class TutorFailed(Exception):
    """The job failed in its worker: it raised, its process died, or it ran past its time."""


@dataclass(eq=False)
class TutorJob:
    """One hint or analysis: what to run, for whom, and the future its asker awaits."""

    lane: TutorLane
    kind: str
    args: tuple[Any, ...]
    key: Hashable
    future: asyncio.Future[Any]
    #: When a worker took it (the loop's clock), 0 while it waits.
    started: float = 0.0
    #: When it was asked for (the loop's clock): its wait and its work are measured.
    asked: float = 0.0


class TutorLane(JobQueues[Hashable, TutorJob]):
    """The workers of one kind of job, and per key a queue of the jobs waiting for them.

    ``limit``: seconds a worker may take on a job before it is stopped (the job's
    budget and the grace); ``expected``: the first guess of a job's time, until
    jobs have been measured.
    """

    def __init__(self, tutor: Tutor, name: str, *, workers: int, queue: int, per_key: int,
                 limit: float, expected: float) -> None:
        super().__init__()
        self.tutor = tutor
        self.name = name
        self.queue = max(1, queue)
        self.per_key = max(1, per_key)
        self.limit = limit
        #: Seconds a job takes, as measured (a moving average).
        self.expected = expected
        self.workers = [TutorWorker(self, i) for i in range(max(1, workers))]
        self._started = False
        #: Jobs answered, jobs failed, and jobs whose worker was stopped because nobody
        #: waited for them any more.
        self.done = 0
        self.failed = 0
        self.abandoned = 0

    # -- what is pending ------------------------------------------------------------------

    def running(self) -> list[TutorJob]:
        """Jobs a worker is computing now."""
        return [w.job for w in self.workers if w.job is not None and not w.job.future.done()]

    def waiting(self) -> list[TutorJob]:
        """Jobs waiting for a worker, in no particular order."""
        return [j for q in self.queues.values() for j in q if not j.future.done()]

    def pending(self, key: Hashable | None = None) -> int:
        """Jobs waiting or running (of ``key``, or in all)."""
        jobs = self.running() + self.waiting()
        return len(jobs) if key is None else sum(1 for j in jobs if j.key == key)

    def _left(self, job: TutorJob, now: float) -> float:
        """Seconds a running job is expected to take still: what is left of a typical job's
        time, or, for a job that already took longer, as long again (never past the time
        its worker is given)."""
        took = now - job.started
        if took < self.expected:
            return self.expected - took
        return max(min(self.expected, self.limit - took), 0.0)

    def _room_in(self, now: float) -> float:
        """Seconds until the lane is expected to have room for one more job: until the
        first running job ends."""
        running = self.running()
        if not running:
            return self.expected
        return min(self._left(j, now) for j in running)

    def _order(self) -> list[TutorJob]:
        """The waiting jobs in the order the workers will take them (round-robin)."""
        queues = [[j for j in q if not j.future.done()] for q in self.queues.values()]
        return [q[depth] for depth in range(max(map(len, queues), default=0))
                for q in queues if depth < len(q)]

    def _finish_of(self, job: TutorJob, now: float) -> float:
        """Seconds until ``job`` is expected to be answered: the work ahead of it shared
        by the workers, then its own."""
        if job.started:
            return self._left(job, now)
        order = self._order()
        ahead = order.index(job) if job in order else len(order)
        work = sum(self._left(j, now) for j in self.running()) + ahead * self.expected
        return work / len(self.workers) + self.expected

    @staticmethod
    def _seconds(wait: float) -> float:
        """A wait as said to a client: whole seconds, at least one."""
        return float(max(1, math.ceil(wait)))

    def wait_of(self, key: Hashable) -> float:
        """Seconds until ``key``'s first job waiting or running is expected to be answered
        (a job's typical time when it has none queued yet)."""
        now = asyncio.get_running_loop().time()
        mine = [j for j in self.running() + self.waiting() if j.key == key]
        return self._seconds(min((self._finish_of(j, now) for j in mine),
                                 default=self.expected))

    # -- asking -------------------------------------------------------------------------

    def submit(self, kind: str, args: tuple[Any, ...], key: Hashable) -> TutorJob:
        """Queue a job for ``key``. Raises :class:`TutorStopped` when the server stops,
        :class:`TutorBusy` when ``key``'s share or the lane is full."""
        if self.tutor.closing:
            raise TutorStopped("the server is stopping")
        loop = asyncio.get_running_loop()
        now = loop.time()
        metrics = self.tutor.metrics
        if self.pending(key) >= self.per_key:
            if metrics is not None:
                metrics.refused(f"{self.name}_share")
            raise TutorBusy(f"your last {self.name} is still being computed",
                            self.wait_of(key), own=True)
        pending = self.pending()
        if pending >= self.queue:
            if metrics is not None:
                metrics.refused(f"{self.name}_queue")
            raise TutorBusy(f"{pending} {self.name}s are being computed or waiting",
                            self._seconds(self._room_in(now)), own=False)
        job = TutorJob(self, kind, args, key, loop.create_future(), asked=now)
        self._start()
        self.put(key, job)
        return job

    def _start(self) -> None:
        """Start the workers with the lane's first job (a server nobody asks for hints
        keeps no process for them)."""
        if self._started:
            return
        self._started = True
        for w in self.workers:
            w.task = asyncio.create_task(w.run(), name=w.label)

    # -- answers --------------------------------------------------------------------------

    def answered(self, job: TutorJob, value: Any, took: float) -> None:
        self.done += 1
        self.expected += _WEIGHT * (took - self.expected)
        metrics = self.tutor.metrics
        if metrics is not None:
            metrics.advice(self.name, asyncio.get_running_loop().time() - job.asked)
        if not job.future.done():
            job.future.set_result(value)

    def fail(self, job: TutorJob, exc: Exception) -> None:
        self.failed += 1
        if not job.future.done():
            job.future.set_exception(exc)
            job.future.exception()  # the asker may have gone: nobody need retrieve it

    def fail_all(self, make: type[Exception], message: str, *, running: bool = True) -> None:
        """Fail every job waiting, and with ``running`` every job being computed too (the
        server stops; the workers do not start)."""
        for job in (self.running() if running else []) + self.waiting():
            self.fail(job, make(message))
        self.queues.clear()
        self.wake()


class TutorWorker(WorkerProcess):
    """One worker process of a lane and the task that feeds it jobs (restarted after a
    cancelled or overrunning job)."""

    def __init__(self, lane: TutorLane, index: int) -> None:
        super().__init__(index, MAX_ANSWER)
        self.lane = lane
        self.job: TutorJob | None = None

    @property
    def label(self) -> str:
        return f"{self.lane.name} worker {self.index}"

    async def start(self) -> None:
        """Start a process and wait until it has loaded the search kernel."""
        await self.launch(tutorworker.main, f"nimmt-{self.lane.name}-{self.index}",
                          (TUTOR_NICE,), limit=1 << 20)
        status, pid = pickle.loads(await asyncio.wait_for(self.read(), START_TIMEOUT))
        if status != "ready":
            raise ValueError(f"the worker said {status!r} first")
        log.debug("%s ready (pid %s)", self.label, pid)

    async def run(self) -> None:
        """Take jobs from the lane, one at a time, for as long as the tutor runs."""
        lane = self.lane
        backoff = 0.5
        while not lane.tutor.closing:
            if self.process is None:
                try:
                    await self.start()
                    backoff = 0.5
                except (OSError, EOFError, ValueError, TimeoutError, pickle.UnpicklingError,
                        asyncio.IncompleteReadError) as exc:
                    log.error("%s did not start: %s; trying again in %.1f s", self.label,
                              exc, backoff)
                    await self.stop()
                    # Nobody should wait for a worker that may never come.
                    lane.fail_all(TutorFailed, f"the {lane.name} workers do not start",
                                  running=False)
                    await asyncio.sleep(backoff)
                    backoff = min(30.0, backoff * 2)
                    continue
            job = await lane.take()
            if job.future.done():
                continue
            self.job = job
            try:
                await self._work(job)
            except Exception:
                log.exception("%s failed on a job", self.label)
                lane.fail(job, TutorFailed("a server error"))
                await self.stop()
            finally:
                self.job = None

    async def _work(self, job: TutorJob) -> None:
        lane = self.lane
        assert self.writer is not None
        loop = asyncio.get_running_loop()
        job.started = loop.time()
        data = pickle.dumps((job.kind, job.args), protocol=pickle.HIGHEST_PROTOCOL)
        try:
            await self.send(data)
        except OSError:  # the process died while it waited for work (out of memory)
            code = await self.stop(wait=1.0)
            lane.fail(job, TutorFailed(f"its worker ended (exit code {code})"))
            return
        reading = asyncio.ensure_future(self.read())
        try:
            await asyncio.wait({reading, job.future}, timeout=lane.limit,
                               return_when=asyncio.FIRST_COMPLETED)
        finally:
            if not reading.done():
                reading.cancel()
                with contextlib.suppress(asyncio.CancelledError, Exception):
                    await reading
        took = loop.time() - job.started
        if reading.done() and not reading.cancelled():
            try:
                status, value = pickle.loads(reading.result())
            except (OSError, EOFError, ValueError, asyncio.IncompleteReadError,
                    pickle.UnpicklingError) as exc:
                code = await self.stop(wait=1.0)
                log.error("%s ended on a job (exit code %s): %s", self.label, code, exc)
                lane.fail(job, TutorFailed(f"its worker ended (exit code {code})"))
                return
            if status == "ok":
                lane.answered(job, value, took)
            else:
                log.error("%s: a %s failed: %s", self.label, job.kind, value)
                lane.fail(job, TutorFailed(str(value)))
            return
        # Nobody waits for the job any more (or the server stops), or it ran past its
        # time: its search cannot be interrupted, so its process is ended; the next job
        # gets a fresh one.
        await self.stop()
        if job.future.cancelled():
            lane.abandoned += 1
        elif not job.future.done():
            log.warning("%s: a %s ran past %g s; its worker was stopped", self.label,
                        job.kind, lane.limit)
            lane.fail(job, TutorFailed(f"ran past {lane.limit:g} s; its worker was stopped"))


class Tutor:
    """The hint lane and the analysis lane of one server, with their budgets."""

    def __init__(
        self,
        *,
        hint_workers: int = 1,
        hint_queue: int = 8,
        hints_per_player: int = 1,
        hint_seconds: float = 1.0,
        analysis_workers: int = 1,
        analysis_queue: int = 4,
        analyses_per_address: int = 1,
        analysis_seconds: float = 30.0,
        decision_seconds: float = 1.0,
        grace: float = 5.0,
    ) -> None:
        self.closing = False
        self.hint_seconds = hint_seconds
        self.analysis_seconds = analysis_seconds
        self.decision_seconds = decision_seconds
        self.hints = TutorLane(self, "hint", workers=hint_workers, queue=hint_queue,
                          per_key=hints_per_player, limit=hint_seconds + grace,
                          expected=hint_seconds)
        # An analysis checks its time between decisions: its last decision may run a
        # decision's seconds past the whole budget.
        self.analyses = TutorLane(self, "analysis", workers=analysis_workers, queue=analysis_queue,
                             per_key=analyses_per_address,
                             limit=analysis_seconds + decision_seconds + grace,
                             expected=analysis_seconds)
        self.lanes = (self.hints, self.analyses)
        #: Where the jobs' times and refusals are counted (the server's metrics), if anywhere.
        self.metrics: AdviceCounts | None = None

    @classmethod
    def of(cls, settings: Settings) -> Tutor:
        """The tutor a server's settings ask for."""
        return cls(
            hint_workers=settings.tutor_workers, hint_queue=settings.tutor_queue,
            hints_per_player=settings.hints_per_player, hint_seconds=settings.hint_seconds,
            analysis_workers=settings.analysis_workers, analysis_queue=settings.analysis_queue,
            analyses_per_address=settings.analyses_per_address,
            analysis_seconds=settings.analysis_seconds,
            decision_seconds=settings.analysis_decision_seconds, grace=settings.advice_grace,
        )

    async def hint(self, player: int, view: View, seed: int, lang: str,
                   rollouts: int) -> tuple[dict[str, Any], str]:
        """The hint on ``view``'s pending decision for ``player``, as data and as a sentence
        in ``lang``. Raises :class:`TutorBusy`, :class:`TutorStopped`, :class:`TutorFailed`;
        cancelling the call cancels the job."""
        job = self.hints.submit("hint", (view, seed, lang, rollouts, self.hint_seconds), player)
        result: tuple[dict[str, Any], str] = await job.future
        return result

    def analysis(self, address: str, record_json: str, seed: int, rollouts: int) -> TutorJob:
        """Queue the analysis of the game stored as ``record_json``, asked from ``address``;
        its ``future`` gives the :class:`~nimmt.advice.GameReview`. Raises
        :class:`TutorBusy` or :class:`TutorStopped` at once; :meth:`cancel` it when nobody
        waits for it any more."""
        return self.analyses.submit(
            "analysis",
            (record_json, seed, rollouts, self.analysis_seconds, self.decision_seconds),
            address)

    @staticmethod
    def cancel(job: TutorJob) -> None:
        """Nobody waits for ``job`` any more: it leaves its queue, or its worker is stopped."""
        if not job.future.done():
            job.future.cancel()
            job.lane.wake()

    @staticmethod
    async def review(job: TutorJob) -> GameReview:
        """The analysis ``job`` gives (shielded: one asker leaving does not cancel it for the
        others)."""
        result: GameReview = await asyncio.shield(job.future)
        return result

    def stop(self) -> None:
        """The server stops: every job fails now with :class:`TutorStopped` (their askers
        are answered at once) and no new job is taken; running workers are stopped."""
        self.closing = True
        for lane in self.lanes:
            lane.fail_all(TutorStopped, "the server is stopping")

    async def close(self) -> None:
        """Stop, then end every worker process and wait until each has ended."""
        self.stop()
        workers = [w for lane in self.lanes for w in lane.workers]
        for w in workers:
            if w.task is not None:
                w.task.cancel()
        for w in workers:
            if w.task is not None:
                with contextlib.suppress(asyncio.CancelledError, Exception):
                    await w.task
            await w.stop()

    def pids(self) -> list[int]:
        """The process ids of the live workers."""
        return [w.process.pid for lane in self.lanes for w in lane.workers
                if w.process is not None and w.process.pid is not None]
