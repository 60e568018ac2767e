"""Game analyses for the JSON API: computed once in the tutor's lane, kept in memory,
cancelled when nobody waits.

A finished game's analysis is the expert's review of every decision. It is asked for
over HTTP (``GET /api/games/{id}/analysis``), computed in the tutor's analysis lane
(:mod:`.tutor`), and kept in memory (the newest ``analysis_cache``). A game asked for
by many at once is analysed once; when every request waiting for it has gone, it is
cancelled. New analyses are limited per client address (``analyses_per_minute``; the
tutor bounds those computed at once per address and in all).
"""

from __future__ import annotations

import collections
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ..base.limits import WindowCounter
from ..base.settings import Settings
from .tutor import Tutor, TutorBusy, TutorJob, TutorStopped

if TYPE_CHECKING:
    from ...advice import GameReview

__all__ = ["Analyses", "Analysing", "AnalysisRefused"]

log = logging.getLogger("nimmt.server")


@dataclass(eq=False)
class Analysing:
    """A game's analysis being computed, and how many requests wait for it."""

    job: TutorJob
    waiters: int = 0


class AnalysisRefused(Exception):
    """Why an analysis is not given, with the HTTP status that says it, and for a refusal
    that passes (429, 503) the seconds to wait before asking again (an estimate)."""

    def __init__(self, status: int, message: str, wait: float | None) -> None:
        super().__init__(message)
        self.status = status
        self.message = message
        self.wait = wait


class Analyses:
    """The analyses of finished games this process computed or computes."""

    def __init__(self, settings: Settings, tutor: Tutor,
                 records: Callable[[int], Awaitable[tuple[bool, str] | None]],
                 refused: Callable[[str], None]) -> None:
        self.settings = settings
        self.tutor = tutor
        #: Whether a stored game was finished, and its record (the store's).
        self.records = records
        self.refused = refused
        #: Finished games' analyses, by game id (the newest ``analysis_cache``), and those
        #: being computed, so a game asked for twice at once is analysed once.
        self.done: collections.OrderedDict[int, GameReview] = collections.OrderedDict()
        self.analysing: dict[int, Analysing] = {}
        #: Analyses not yet cached that each client address asked for, per minute.
        self.new = WindowCounter(settings.analyses_per_minute, 60.0)

    async def analysis(self, game_id: int, address: str) -> GameReview:
        """The expert's review of finished game ``game_id``: from memory, or computed once
        in the tutor's workers (a game asked for by many at once is analysed once).

        Cancelling the call (the asker left) cancels the analysis when nobody else waits
        for it: its worker stops computing. Raises :class:`AnalysisRefused` with the HTTP
        status to answer: 404 (no such game), 409 (not finished), 429 (this address asked
        for too many new analyses, or has one being computed), 503 (the analysis lane is
        full, or the server stops), 500 (the analysis failed).
        """
        cached = self.done.get(game_id)
        if cached is not None:
            self.done.move_to_end(game_id)
            return cached
        entry = self._analysing(game_id)
        if entry is None:
            entry = await self._start_analysis(game_id, address)
        entry.waiters += 1
        try:
            return await Tutor.review(entry.job)
        except TutorStopped:
            raise AnalysisRefused(503, "the server is stopping; ask again when it is back",
                                  None) from None
        except AnalysisRefused:
            raise
        except Exception as exc:
            log.error("game %s: the analysis failed: %s", game_id, exc)
            raise AnalysisRefused(500, "the analysis failed", None) from None
        finally:
            entry.waiters -= 1
            if entry.waiters == 0:
                self.tutor.cancel(entry.job)  # nobody waits for it any more

    async def _start_analysis(self, game_id: int, address: str) -> Analysing:
        """Check that game ``game_id`` may be analysed for ``address``, and queue it."""
        if self.tutor.closing:
            raise AnalysisRefused(503, "the server is stopping; ask again when it is back", None)
        row = await self.records(game_id)
        if row is None:
            raise AnalysisRefused(404, f"no game {game_id}", None)
        finished, record = row
        if not finished:
            raise AnalysisRefused(409, f"game {game_id} was not finished: only finished "
                                  "games are analysed", None)
        entry = self._analysing(game_id)  # asked for while the store was read
        if entry is not None:
            return entry
        s = self.settings
        if self.new.full(address):
            self.refused("analyses_per_minute")
            raise AnalysisRefused(429, f"at most {s.analyses_per_minute} new analyses a "
                                  "minute from one address; ask again later",
                                  self.new.wait(address))
        try:
            job = self.tutor.analysis(address, record, 0, s.analysis_rollouts)
        except TutorStopped:
            raise AnalysisRefused(503, "the server is stopping; ask again when it is back",
                                  None) from None
        except TutorBusy as exc:
            if exc.own:
                raise AnalysisRefused(429, f"an analysis asked from your address is being "
                                      f"computed (at most {s.analyses_per_address} at once)",
                                      exc.wait) from None
            raise AnalysisRefused(503, "the server is computing as many analyses as it may",
                                  exc.wait) from None
        self.new.add(address)
        entry = self.analysing[game_id] = Analysing(job)
        job.future.add_done_callback(lambda _f: self._analysed(game_id, entry))
        return entry

    def _analysing(self, game_id: int) -> Analysing | None:
        """The analysis of ``game_id`` being computed, if any (one cancelled a moment ago,
        nobody waiting for it, is not)."""
        entry = self.analysing.get(game_id)
        return None if entry is None or entry.job.future.cancelled() else entry

    def _analysed(self, game_id: int, entry: Analysing) -> None:
        """An analysis ended: kept in memory if it was computed, forgotten otherwise (a
        later request computes it again)."""
        if self.analysing.get(game_id) is entry:
            del self.analysing[game_id]
        future = entry.job.future
        if future.cancelled() or future.exception() is not None:
            return
        self.done[game_id] = future.result()
        while len(self.done) > self.settings.analysis_cache:
            self.done.popitem(last=False)

