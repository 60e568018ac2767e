"""Bots think in worker processes, fairly across tables, within a deadline the server keeps.

Why processes: a bot thinking in a thread of the server holds the interpreter
lock the event loop needs, so nine search bots in threads made every table
wait (a victim's ping went from 0.7 ms to a 625 ms median). Worker processes
have their own interpreters; they run at a lower OS priority (``os.nice``) so
the process that serves people wins the CPU whenever both want it.

Two lanes, each with its own workers (``multiprocessing``, *spawn* context: no
fork of a process with an event loop and threads):

- the **quick lane**, one worker, for the rules of thumb (``random``,
  ``cheapest``, ``lowrisk``, ``dodger``, their strengths ``easy`` and
  ``medium``) and the table's default player for absent people: answers in
  microseconds, so a table of people with such a bot never waits behind a
  search;
- the **search lane**, ``bot_workers`` workers, for ``mcs``/``expert`` and the
  bots the operator enabled (their cost is unknown). Its workers import the
  search bots, load the numba kernel and measure the search's round prior of
  every kind of table before taking any job, so no decision spends its budget
  compiling or measuring: not the first, and not the first of a worker started
  again after a kill (without numba a prior costs a second of pure Python, and
  a table of ten experts missed every deadline; docs/bots.md).

Fairness: each table has its own queue of pending jobs in each lane; a free
worker takes the next job round-robin across tables, so one table's nine
experts wait their turn instead of holding another table's bot behind all of
them. Tables where a seated person is connected come first; tables whose
people are all disconnected only when nothing else waits; a table with nobody
seated gets no jobs at all until someone is (:meth:`Owner.bot_priority`). After
a restart nobody is connected anywhere, so old tables think at the lowest
priority until their people come back.

The deadline: a job has ``bot_seconds`` (the bot's own :class:`Budget`) plus
``bot_grace``. A worker that has not answered by then is killed and replaced;
the seat plays the default player's answer, computed here (it needs no
worker: the worker just died), and the table's log says so (the answer carries
the fault; the reducer logs the default player taking that one decision). A bot
that raises or answers an illegal value
is handled in its worker by :func:`nimmt.bots.play.decide_safely`, the policy
the arena uses; one that kills its process gets the fallback here. Either way
the fault is a :class:`~nimmt.bots.play.Fault` naming the bot, logged with the
table, and the game goes on.

What crosses the process boundary: the server sends a job (bot name, seed,
seconds, view) pickled; workers answer in JSON: the server never unpickles
what a worker (which runs the operator's code) sends, and checks the decision
it reads against the options it holds itself.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import inspect
import json
import logging
import pickle
import time
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Protocol

from ...bots.base import Budget
from ...bots.play import Answer, Fault, FaultKind
from ...bots.registry import BotError, bot_class, build_bot, check_extra, offered
from ...decisions import Decision, decision_from_dict
from ...views import View
from ..base.logs import event
from . import botworker
from .autoplay import default_decision
from .botworker import DEFAULT, lane_of
from .workerproc import START_TIMEOUT, JobQueues, WorkerProcess

__all__ = [
    "AWAY",
    "DEFAULT",
    "PEOPLE",
    "BotCounts",
    "BotPool",
    "Owner",
    "check_bots",
    "decision_seed",
    "dump_job",
    "lane_of",
]

log = logging.getLogger("nimmt.server.bots")

#: :meth:`Owner.bot_priority`: a seated person is connected (served first).
PEOPLE = 0
#: :meth:`Owner.bot_priority`: the seated people are all disconnected (served last).
AWAY = 1

#: OS priority of the workers: the quick lane above the search lane, both below the server.
QUICK_NICE = 5
SEARCH_NICE = 10

#: Largest reply read from a worker (a number, or an error message, in JSON).
MAX_REPLY = 1 << 16


class BotCounts(Protocol):
    """Where the bots' decisions are counted (the server's metrics)."""

    def bot_decision(self, lane: str, answer: Answer, seconds: float) -> None:
        """A bot of ``lane`` answered (or the default player for it) ``seconds`` after it
        was asked."""


class Owner(Protocol):
    """A table as the pool sees it."""

    @property
    def code(self) -> str:
        """The table's short code (the log names it)."""
        ...

    def bot_priority(self) -> int | None:
        """:data:`PEOPLE`, :data:`AWAY`, or ``None`` when nobody is seated (no jobs)."""
        ...


def decision_seed(table_id: int, seat: int, key: str) -> int:
    """The seed of one decision: from the table, the seat and the decision's key only.

    So a decision does not depend on which worker made it, nor on what that
    worker did before; the same table replayed asks the same questions with the
    same seeds.

    >>> decision_seed(7, 2, "1.1.3.card") == decision_seed(7, 2, "1.1.3.card")
    True
    >>> decision_seed(7, 2, "1.1.3.card") != decision_seed(7, 3, "1.1.3.card")
    True
    """
    digest = hashlib.blake2b(f"{table_id}:{seat}:{key}".encode(), digest_size=8).digest()
    return int.from_bytes(digest, "big") >> 1


def check_bots(extra: Mapping[str, str]) -> None:
    """Check the operator's bots: plain names, no built-in shadowed, importable, and
    following the bot protocol. Raises :class:`BotError` naming the first bad one.

    Run at server start, in the server's process (the operator's code is trusted; a
    client's never gets here), so a typo stops the server with a clear message
    instead of seating bots that always fall back to the default player.
    """
    check_extra(extra)
    if DEFAULT in extra:
        raise BotError(f"bot name {DEFAULT!r} is the table's default player; choose another")
    for name, path in extra.items():
        cls = bot_class(name, allow_paths=False, extra=extra)
        # A class, looked at before anything of it runs: a path to a function (os:abort)
        # is refused, not called.
        if not inspect.isclass(cls):
            raise BotError(f"bot {name!r}: {path} is not a class")
        missing = [m for m in ("choose_card", "choose_row", "draft_card")
                   if not callable(getattr(cls, m, None))]
        if missing:
            raise BotError(f"bot {name!r}: {path} does not follow the bot protocol: missing "
                           f"{', '.join(missing)}")
        build_bot(cls, name, 0, Budget(seconds=1.0))


# -- the wire ---------------------------------------------------------------------------


def dump_job(spec: str, seed: int, seconds: float, view: View) -> bytes:
    """A job as bytes (views pickle by their fields in both builds)."""
    return pickle.dumps((spec, seed, seconds, view), protocol=pickle.HIGHEST_PROTOCOL)


# -- the pool ---------------------------------------------------------------------------


@dataclass(eq=False)
class BotJob:
    """One decision to make: who asks (table, seat), which bot, from which view."""

    owner: Owner
    seat: int
    spec: str
    seed: int
    view: View
    future: asyncio.Future[Answer]
    #: When a worker took it (for :attr:`~nimmt.bots.play.Answer.seconds`).
    started: float = 0.0


class BotLane(JobQueues[Owner, BotJob]):
    """The workers of one kind, and per table a queue of the jobs waiting for them."""

    def __init__(self, pool: BotPool, name: str, size: int, nice: int) -> None:
        super().__init__()
        self.pool = pool
        self.name = name
        self.nice = nice
        self.workers = [Worker(self, i) for i in range(size)]
        #: Jobs answered, and jobs that got the default player instead (failures).
        self.done = 0
        self.failed = 0

    def waiting(self, owner: Owner | None = None) -> int:
        """Jobs waiting for a worker (of ``owner``, or of every table)."""
        if owner is not None:
            return len(self.queues.get(owner, ()))
        return sum(len(q) for q in self.queues.values())

    def busy(self) -> int:
        """Workers thinking on a job now."""
        return sum(1 for w in self.workers if w.job is not None)

    def discard(self, job: BotJob) -> None:
        q = self.queues.get(job.owner)
        if q is not None and job in q:
            q.remove(job)
            if not q:
                del self.queues[job.owner]

    def pick(self) -> BotJob | None:
        """The next job: the first table in round-robin order among the most urgent."""
        best: Owner | None = None
        level = AWAY + 1
        for owner in self.live():
            p = owner.bot_priority()
            if p is None or p >= level:
                continue
            best, level = owner, p
            if p <= PEOPLE:
                break
        return None if best is None else self.serve(best)


class Worker(WorkerProcess):
    """One worker process of a lane and the task that feeds it jobs."""

    def __init__(self, lane: BotLane, index: int) -> None:
        super().__init__(index, MAX_REPLY)
        self.lane = lane
        self.job: BotJob | None = None
        #: Set when the process said it is ready (imports done, kernel loaded).
        self.ready = asyncio.Event()
        #: The seconds the last process took to be ready.
        self.start_seconds = 0.0

    @property
    def label(self) -> str:
        return f"{self.lane.name} worker {self.index}"

    async def start(self) -> None:
        """Start a process and wait until it has warmed up."""
        t0 = time.perf_counter()
        self.ready.clear()
        await self.launch(botworker.main, f"nimmt-bot-{self.lane.name}-{self.index}",
                          (self.lane.name, self.lane.nice, dict(self.lane.pool.extra)))
        hello = json.loads(await asyncio.wait_for(self.read(), START_TIMEOUT))
        pool = self.lane.pool
        for name, why in hello.get("unavailable", {}).items():
            pool.unavailable[name] = why
        if hello.get("numba") is False and pool.compiled is not False:
            log.warning("the search bots' kernel is not compiled (numba is not installed, or "
                        "NIMMT_NO_NUMBA is set): they search some 60 times fewer rollouts, and "
                        "their first decision at each kind of table runs past the deadline; "
                        "nimmt[server] installs numba")
        if hello.get("numba") is not None:
            pool.compiled = bool(hello["numba"])
        self.start_seconds = time.perf_counter() - t0
        self.ready.set()
        log.debug("%s ready (pid %s) in %.2f s", self.label,
                  self.process.pid if self.process is not None else None, self.start_seconds)

    async def stop(self, wait: float = 0.0) -> int | None:
        self.ready.clear()
        return await super().stop(wait)

    async def run(self) -> None:
        """Take jobs from the lane, one at a time, for as long as the pool runs."""
        pool = self.lane.pool
        backoff = 0.5
        while not pool.closing:
            if self.process is None:
                try:
                    await self.start()
                    backoff = 0.5
                except (OSError, EOFError, ValueError, TimeoutError,
                        asyncio.IncompleteReadError) as exc:
                    log.error("%s did not start: %s; trying again in %.1f s", self.label,
                              exc, backoff)
                    await self.stop()
                    await asyncio.sleep(backoff)
                    backoff = min(30.0, backoff * 2)
                    continue
            job = await self.lane.take()
            if job.future.done():
                continue
            self.job = job
            try:
                await self._think(job)
            except Exception:
                # Whatever went wrong here, the seat gets its answer and the lane its worker.
                log.exception("%s failed on a job", self.label)
                pool.fallback(job, "raised", "could not be asked (a server error)")
                await self.stop()
            finally:
                self.job = None

    async def _think(self, job: BotJob) -> None:
        pool = self.lane.pool
        assert self.writer is not None
        limit = pool.seconds + pool.grace
        job.started = time.perf_counter()
        try:
            await self.send(dump_job(job.spec, job.seed, pool.seconds, job.view))
            reply = json.loads(await asyncio.wait_for(self.read(), limit))
        except TimeoutError:
            pool.fallback(job, "timeout", f"did not answer within {limit:g} s; its worker "
                          "was stopped")
            await self.stop()
            return
        except (OSError, EOFError):  # IncompleteReadError too: the socket closed
            code = await self.stop(wait=1.0)
            pool.fallback(job, "raised", f"ended its worker process (exit code {code})")
            return
        except ValueError as exc:
            await self.stop()
            pool.fallback(job, "raised", f"sent a reply the server cannot read ({exc}); its "
                          "worker was stopped")
            return
        pool.answer(job, reply)


class BotPool:
    """The bot workers of one server, built by its composition root (:mod:`nimmt.server.root`).

    ``extra`` maps the operator's bot names to import paths; ``workers`` is the
    number of search workers; every job gets ``seconds`` of budget and
    ``seconds + grace`` before its worker is killed.
    """

    def __init__(self, *, workers: int, seconds: float, grace: float,
                 extra: Mapping[str, str] | None = None) -> None:
        self.extra = dict(extra or {})
        self.seconds = seconds
        self.grace = grace
        self.closing = False
        #: Names whose class did not import in a worker (a missing optional dependency).
        self.unavailable: dict[str, str] = {}
        #: Whether the search workers' kernel is compiled (None: no search worker ready yet).
        self.compiled: bool | None = None
        self.quick = BotLane(self, "quick", 1, QUICK_NICE)
        self.search = BotLane(self, "search", max(1, workers), SEARCH_NICE)
        self.lanes = {"quick": self.quick, "search": self.search}
        #: Where the tables count their bots' decisions (the server's metrics), if anywhere.
        self.metrics: BotCounts | None = None

    # -- names ----------------------------------------------------------------------

    def names(self) -> list[str]:
        """Every bot name a host may seat here: the ladder, the strengths, the operator's."""
        return [n for n in offered(self.extra) if n not in self.unavailable]

    def check(self, name: str) -> None:
        """Refuse a name this server does not offer; the message lists those it does.

        Only names in the list pass, so nothing a client sends is ever imported.
        """
        if name not in self.names() or name == DEFAULT:
            if name in self.unavailable:
                raise BotError(f"bot {name!r} is not available on this server "
                               f"({self.unavailable[name]}); it offers {', '.join(self.names())}")
            raise BotError(f"unknown bot {name!r}: this server offers {', '.join(self.names())}")

    # -- running --------------------------------------------------------------------

    async def start(self) -> None:
        """Check the operator's bots, then start every worker. Does not wait for them to
        warm up: jobs wait in their queues until a worker is ready."""
        check_bots(self.extra)
        for lane in self.lanes.values():
            for w in lane.workers:
                w.task = asyncio.create_task(w.run(), name=w.label)

    async def ready(self, timeout: float = START_TIMEOUT) -> None:
        """Wait until every worker has warmed up (benchmarks; tests that time things)."""
        async with asyncio.timeout(timeout):
            for lane in self.lanes.values():
                for w in lane.workers:
                    await w.ready.wait()

    async def close(self) -> None:
        """Stop every worker process and wait until each has ended: nothing is left over."""
        self.closing = True
        workers = [w for lane in self.lanes.values() for w in lane.workers]
        for w in workers:
            if w.task is not None:
                w.task.cancel()
        for w in workers:
            if w.task is not None:
                with contextlib.suppress(asyncio.CancelledError, Exception):
                    await w.task
            await w.stop()
        for lane in self.lanes.values():
            for q in lane.queues.values():
                for job in q:
                    job.future.cancel()
            lane.queues.clear()

    def wake(self) -> None:
        """A table's priority went up: let idle workers look at the queues again."""
        for lane in self.lanes.values():
            lane.wake()

    def pids(self) -> list[int]:
        """The process ids of the live workers."""
        return [w.process.pid for lane in self.lanes.values() for w in lane.workers
                if w.process is not None and w.process.pid is not None]

    # -- deciding -------------------------------------------------------------------

    async def decide(self, owner: Owner, seat: int, spec: str, seed: int, view: View) -> Answer:
        """The answer of bot ``spec`` for seat ``seat`` of ``owner``, from ``view``.

        Always a legal decision: the bot's, or the default player's when the bot
        faulted (raised, answered out of the options, ran past the deadline, or
        ended its process), with the :class:`~nimmt.bots.play.Fault` that says so.
        """
        loop = asyncio.get_running_loop()
        job = BotJob(owner, seat, spec, seed, view, loop.create_future())
        if spec != DEFAULT and spec not in self.names():
            # A bot the operator no longer offers (a table resumed after a restart).
            self.fallback(job, "raised", "is not offered by this server")
            return job.future.result()
        lane = self.lanes[lane_of(spec)]
        lane.put(job.owner, job)
        try:
            return await job.future
        except asyncio.CancelledError:
            lane.discard(job)
            raise

    def answer(self, job: BotJob, reply: object) -> None:
        """Settle ``job`` with a worker's ``reply``: its decision if it is the one asked for
        and legal (with the fault the worker's policy reported, if any), else the
        default player's."""
        if not isinstance(reply, dict) or "error" in reply:
            why = reply.get("error") if isinstance(reply, dict) else reply
            self.fallback(job, "raised", f"failed: {why}")
            return
        data = reply.get("decision")
        try:
            decision = decision_from_dict(data) if isinstance(data, dict) else None
        except (ValueError, KeyError, TypeError):
            decision = None
        view = job.view
        pending = view.pending
        if (decision is None or pending is None or decision.player != job.seat
                or decision.kind is not pending.kind or decision.value not in view.options):
            self.fallback(job, "illegal", f"answered {reply.get('decision')!r}, not one of "
                          f"{list(view.options)}")
            return
        fault = reply.get("fault")
        lane = self.lanes[lane_of(job.spec)]
        if isinstance(fault, dict):
            kind = fault.get("kind")
            reported = self.report(job, kind if kind in _FAULT_KINDS else "raised",
                                   str(fault.get("message")))
            lane.failed += 1
            self._settle(job, Answer(decision, reported, self._seconds(job)))
            return
        lane.done += 1
        self._settle(job, Answer(decision, None, self._seconds(job)))

    def report(self, job: BotJob, kind: FaultKind, message: str) -> Fault:
        """The fault of ``job``'s bot, logged in one line with its table, its seat and the
        seconds since a worker took the job: the default player answers."""
        view = job.view
        fault = Fault(job.seat, job.spec, kind, message, view.round, view.turn)
        log.warning("table %s: %s (%.2f s after a worker took it); the default player plays "
                    "for it", job.owner.code, fault.describe(), self._seconds(job),
                    extra=event("bot.fault", table=job.owner.code, bot=job.spec, kind=kind,
                                seat=job.seat))
        return fault

    def fallback(self, job: BotJob, kind: FaultKind, message: str) -> None:
        """Answer ``job`` with the default player's decision, and report the bot's fault."""
        self.lanes[lane_of(job.spec)].failed += 1
        fault = self.report(job, kind, message)
        if job.future.done():
            return
        decision: Decision = default_decision(job.view)
        self._settle(job, Answer(decision, fault, self._seconds(job)))

    @staticmethod
    def _seconds(job: BotJob) -> float:
        return time.perf_counter() - job.started if job.started else 0.0

    @staticmethod
    def _settle(job: BotJob, answer: Answer) -> None:
        if not job.future.done():
            job.future.set_result(answer)


_FAULT_KINDS = ("raised", "illegal", "timeout")
