"""The leaderboard's pages, and the read limit of the pages built from the store.

One query per preset and page, kept for ``leaderboard_cache`` seconds however many ask;
the leaderboard's and the players' pages are read from the store at most
``board_rate`` a second per client address.
"""

from __future__ import annotations

import collections
import json
import time
from typing import Any

from ...rules import PRESETS
from ..base.limits import Buckets
from ..base.params import BadParam, ReadRefused, whole_number
from ..base.settings import Settings
from ..store import Store
from ..store import social as db

__all__ = ["Leaderboards", "board_params"]


def board_params(query: Any, page_max: int) -> tuple[str, int, int]:
    """The preset, offset and limit of a leaderboard request (``preset`` defaults to
    ``classic``, ``offset`` to 0, ``limit`` to ``page_max`` and at most that), or
    :class:`~.params.BadParam` (400)."""
    preset = query.get("preset") or "classic"
    if preset not in PRESETS:
        raise BadParam(400, f"no preset {preset[:32]!r}; the presets are "
                       f"{', '.join(PRESETS)}")
    offset = whole_number(query.get("offset") or "0", "offset")
    limit = whole_number(query.get("limit") or str(page_max), "limit")
    if not 0 <= offset <= 1_000_000 or limit < 1:
        raise BadParam(400, "offset is from 0 to 1000000, limit at least 1")
    return preset, offset, min(limit, page_max)


class Leaderboards:
    """The leaderboard's pages, each kept ``leaderboard_cache`` seconds (one query per page
    and period, however many ask), and the read limit of the pages built from the store
    (the leaderboard's and the players' pages), per client address."""

    def __init__(self, store: Store, settings: Settings) -> None:
        self.store = store
        self.settings = settings
        self._reads = Buckets(settings.board_rate, float(settings.board_burst))
        self._kept: collections.OrderedDict[tuple[str, int, int], tuple[float, bytes]] = (
            collections.OrderedDict())

    def charge(self, address: str) -> None:
        """One page built from the store for ``address``, or :class:`ReadRefused` (429)."""
        if not self._reads.take(address, 1.0):
            s = self.settings
            b = self._reads.bucket(address, time.monotonic())
            wait = max(1, int((1.0 - b.tokens) / s.board_rate + 0.999))
            raise ReadRefused(429, f"at most {s.board_rate:g} leaderboard or player pages a "
                              f"second ({s.board_burst} at once) are read for one address; "
                              "ask again later", wait, "rate_limited")

    async def page(self, preset: str, offset: int, limit: int, address: str) -> bytes:
        """The page's JSON: from memory, or read (charged to ``address``) and kept."""
        key = (preset, offset, limit)
        now = time.monotonic()
        kept = self._kept.get(key)
        if kept is not None and now - kept[0] < self.settings.leaderboard_cache:
            return kept[1]
        self.charge(address)
        data = await self.store.read(db.leaderboard_query(preset, offset, limit))
        body = json.dumps(data, separators=(",", ":"), ensure_ascii=False).encode()
        self._kept[key] = (now, body)
        self._kept.move_to_end(key)
        while len(self._kept) > 256:
            self._kept.popitem(last=False)
        return body

