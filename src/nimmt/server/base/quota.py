"""Quotas that hold when many connections race at them.

One event loop runs every connection, so anything between two awaits happens
alone; what spans an await does not. A quota checked, then the store awaited,
then counted, is passed by every request that arrived during the await: sixteen
connections of one player at once all passed a quota of six. So a quota here is
*taken* before the first await, in the same step that checks it, and *given back*
when what it paid for failed (a refusal from the store, a name taken): what was
refused is not counted, and nothing is counted twice.

:class:`Quota` is an allowance of events per key in a window (lines a minute,
invitations a minute, new names a minute per address); :class:`InFlight` counts
requests under way per key, for limits that count what exists (unstarted tables
per host) and must see the ones being made. docs/server.md ("Shared state under
concurrency") states the discipline; tests/server/test_server_crowd.py races
connections at every quota.
"""

from __future__ import annotations

import collections
import contextlib
import math
from collections.abc import Callable, Hashable, Iterator

from ... import wire as P
from .limits import WindowCounter

__all__ = ["InFlight", "Quota"]


class Quota:
    """At most ``limit`` events per key in ``window`` seconds.

    ``setting`` names the limit (a setting's name: the metrics count refusals under
    it, ``nimmt_refusals_total{reason=...}``); ``message`` is the refusal's text;
    ``refused`` is called with ``setting`` at each refusal.
    """

    def __init__(self, limit: int, window: float, setting: str, message: str,
                 refused: Callable[[str], None]) -> None:
        self.counter = WindowCounter(limit, window)
        self.setting = setting
        self.message = message
        self.refused = refused

    def full(self, key: Hashable) -> bool:
        return self.counter.full(key)

    @contextlib.contextmanager
    def held(self, key: Hashable) -> Iterator[None]:
        """Take one event of ``key``'s allowance for the block (``quota`` when none is
        left); given back if the block raises an exception."""
        stamp = self.counter.take(key)
        if stamp is None:
            self.refused(self.setting)
            raise P.ProtocolError("quota", self.message,
                                  retry_after=max(1, math.ceil(self.counter.wait(key))))
        try:
            yield
        except Exception:
            self.counter.give_back(key, stamp)
            raise


class InFlight:
    """Requests under way, per key: a limit on what exists counts these too, so requests
    that race past each other's check cannot together pass it.

    >>> f = InFlight()
    >>> with f.held("ana", "127.0.0.1"):
    ...     f["ana"], f["bob"]
    (1, 0)
    >>> f["ana"], len(f)
    (0, 0)
    """

    def __init__(self) -> None:
        self._n: collections.Counter[Hashable] = collections.Counter()

    def __getitem__(self, key: Hashable) -> int:
        return self._n[key]

    def __len__(self) -> int:
        return len(self._n)

    @contextlib.contextmanager
    def held(self, *keys: Hashable) -> Iterator[None]:
        for key in keys:
            self._n[key] += 1
        try:
            yield
        finally:
            for key in keys:
                self._n[key] -= 1
                if self._n[key] <= 0:
                    del self._n[key]
