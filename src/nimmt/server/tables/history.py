"""Pages of a table's stream: what a catch-up left out, asked for with ``history``.

A catch-up carries the newest items only (:meth:`.fanout.Fanout.catch_up`), so
a game of any length costs a rejoining player one small frame. The older items
come on request, a page at a time: at most ``history_items`` stream positions
and ``history_bytes`` bytes each, costing ``history_cost`` messages of the
connection's and the player's rate.

A page the table still holds in memory is built at once. An older one is
rebuilt from the store's log, and only from its own *segment*: the entries of
the game it belongs to (or those before the first game). A game's entries are
replayed from its ``Started`` entry onto a table holding the same seats (seats
change only before the first game starts), at the stream position the game
started from (:attr:`.state.Logged.starts`), so every item comes back with its
own ``seq``, as the table made it. The replay runs in a read thread
(:mod:`.reads`), never on the event loop; the segment is kept (up to
``history_cache`` items over all tables) for the pages that follow, and a
segment asked for by many at once is rebuilt once.
"""

from __future__ import annotations

import asyncio
import collections
import json
import random
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from .apply import replay
from .state import SeatState, StreamItem, TableData
from .tablelog import entry_from_row

if TYPE_CHECKING:
    from ..store import Store
    from ..workers.heavyreads import Reads

__all__ = ["Page", "Pages", "Segment", "page", "segment_of"]


@dataclass(frozen=True, slots=True)
class Segment:
    """The part of a table's log one rebuild replays: entries from ``first_n`` (to
    ``next_n`` − 1, or to the end), whose items come after stream position
    ``seq_before``. ``game``: the segment starts with a game's ``Started`` entry (else it
    holds what came before the first game)."""

    first_n: int
    seq_before: int
    next_n: int | None
    game: bool


@dataclass(frozen=True, slots=True)
class Page:
    """The stream positions ``lo <= seq < before`` one page covers, and the segment they
    are in."""

    lo: int
    before: int
    segment: Segment


def segment_of(t: TableData, seq: int) -> Segment:
    """The segment that holds stream position ``seq``."""
    found = Segment(1, 0, None, False)
    for i, (n, before) in enumerate(t.logged.starts):
        if before >= seq:
            return replace(found, next_n=n)
        following = t.logged.starts[i + 1][0] if i + 1 < len(t.logged.starts) else None
        found = Segment(n, before, following, True)
    return found


def page(t: TableData, before: int, after: int, limit: int) -> Page:
    """The page of at most ``limit`` positions just before ``before`` (and after
    ``after``), within one segment."""
    before = min(before, t.logged.seq + 1)
    seg = segment_of(t, max(1, before - 1))
    lo = max(after + 1, before - limit, seg.seq_before + 1, 1)
    return Page(min(lo, before), before, seg)


def in_memory(t: TableData, p: Page) -> list[StreamItem] | None:
    """The page's items from what the table holds, or None if it no longer holds them
    all."""
    items = t.logged.items
    if p.lo >= p.before:
        return []
    if not items or items[0].seq > p.lo:
        return None
    return [it for it in items if p.lo <= it.seq < p.before]


def rebuild(scratch: TableData, rows: Sequence[tuple[int, str, str]]) -> list[StreamItem]:
    """The stream items of ``rows`` (one segment of the log), replayed onto ``scratch``
    (placed where the segment starts). Pure: run in a read thread."""
    entries = [(n, entry_from_row(kind, json.loads(data))) for n, kind, data in rows]
    replay(scratch.logged, scratch.rules, entries, random.Random(0))
    return scratch.logged.items


def scratch_for(t: TableData, seg: Segment) -> TableData:
    """A table to replay ``seg`` onto: blank, at the segment's start, holding the seats
    the game started with (seats are taken and left only before the first game). Made on
    the event loop: the live seats are copied, never shared with a thread."""
    scratch = t.blank()
    if seg.game:
        scratch.logged.seats = [
            None if s is None else SeatState(s.kind, s.name, s.player_id, s.bot)
            for s in t.logged.seats]
        scratch.logged.seq = seg.seq_before
    scratch.logged.n = seg.first_n - 1
    return scratch


class Pages:
    """Rebuilt segments of every table of the process, the most recently used kept."""

    def __init__(self, reads: Reads, store: Store, cache_items: int) -> None:
        self.reads = reads
        self.store = store
        self.cache_items = cache_items
        self._kept: collections.OrderedDict[tuple[int, int], list[StreamItem]] = (
            collections.OrderedDict())
        self.kept_items = 0
        self._building: dict[tuple[int, int], asyncio.Future[list[StreamItem]]] = {}
        #: Segments rebuilt from the log (for the tests and the operator).
        self.rebuilt = 0

    async def items(self, t: TableData, p: Page) -> list[StreamItem]:
        """The items of page ``p`` of table ``t``: from memory, from a kept segment, or
        from the segment rebuilt in a read thread (:class:`~.reads.ReadsBusy` when the
        threads are all taken)."""
        found = in_memory(t, p)
        if found is not None:
            return found
        seg = p.segment
        key = (t.id, seg.first_n)
        kept = self._kept.get(key)
        if kept is None or not kept or kept[-1].seq < p.before - 1:
            kept = await self._build(t, seg, key)
        else:
            self._kept.move_to_end(key)
        return [it for it in kept if p.lo <= it.seq < p.before]

    async def _build(self, t: TableData, seg: Segment, key: tuple[int, int]) -> list[StreamItem]:
        running = self._building.get(key)
        if running is not None:
            return await asyncio.shield(running)
        future: asyncio.Future[list[StreamItem]] = asyncio.get_running_loop().create_future()
        self._building[key] = future
        try:
            last = seg.next_n - 1 if seg.next_n is not None else t.logged.n
            scratch = scratch_for(t, seg)
            rows = await self.store.log_rows(t.id, seg.first_n, last)
            items = await self.reads.run(rebuild, scratch, rows)
        except asyncio.CancelledError:
            future.cancel()
            raise
        except Exception as exc:
            future.set_exception(exc)
            future.exception()  # those waiting get it; nobody need be waiting
            raise
        finally:
            del self._building[key]
        self.rebuilt += 1
        future.set_result(items)
        self._keep(key, items)
        return items

    def _keep(self, key: tuple[int, int], items: list[StreamItem]) -> None:
        old = self._kept.pop(key, None)
        if old is not None:
            self.kept_items -= len(old)
        if len(items) > self.cache_items:
            return
        self._kept[key] = items
        self.kept_items += len(items)
        while self.kept_items > self.cache_items:
            _, gone = self._kept.popitem(last=False)
            self.kept_items -= len(gone)
