"""What a table answers beside its command loop: a hint computed in the tutor's workers,
and a page of old stream items rebuilt from the log in a read thread.

Both answer one connection only, and neither holds the table's loop up: the reducer
allowed them (an :class:`~.commands.Advise`, a :class:`~.commands.SendHistory`), and
they run as tasks of their own, one at a time per connection (a hint also one at a time
per seat, and per player across tables in the tutor).
"""

from __future__ import annotations

import asyncio
import functools
import logging
from collections.abc import Callable, Mapping, Sequence
from typing import Protocol

from ... import wire as P
from ...wire import AdvicePayload, build, dump
from ..base.settings import Settings
from ..workers.botpool import decision_seed
from ..workers.heavyreads import ReadsBusy
from ..workers.tutor import Tutor, TutorBusy, TutorStopped
from .commands import Advise, SendHistory
from .fanout import Fanout, bounded, history_frame, older
from .history import Page, Pages, in_memory, page
from .state import StreamItem, TableData

__all__ = ["Asides", "Asker"]

log = logging.getLogger("nimmt.server")


class Asker(Protocol):
    """A connection at the table, as a hint or a page answers it."""

    id: int
    player_id: int
    lang: str
    seq: int
    #: Whether a hint this connection asked for is being computed (one at a time).
    hinting: bool

    def send(self, text: str) -> None: ...


class Asides:
    """The hints and pages of history one table is computing."""

    def __init__(self, table: TableData, peers: Mapping[int, Asker], fanout: Fanout,
                 settings: Settings, tutor: Tutor, pages: Pages) -> None:
        self.table = table
        self.peers = peers
        self.fanout = fanout
        self.settings = settings
        #: Where hints are computed (worker processes of their own).
        self.tutor = tutor
        #: Hints being computed, each answering one connection.
        self.hints: set[asyncio.Task[None]] = set()
        #: The seats whose hint is being computed (one at a time per seat).
        self.hinting: set[int] = set()
        #: Where pages of old stream items are rebuilt (shared by the process's tables).
        self.pages = pages
        #: Pages being rebuilt, each answering one connection (one at a time each).
        self.paging: dict[int, asyncio.Task[None]] = {}

    def stop(self) -> None:
        """Every hint and page under way is cancelled (the table stops)."""
        for task in [*self.hints, *self.paging.values()]:
            task.cancel()

    def advise(self, effect: Advise) -> None:
        """Have the hint the reducer allowed computed in the tutor's workers, and answer
        the connection that asked (only it) when it is done; one hint at a time per
        connection and per seat here, and the tutor's share per player across tables."""
        peer = self.peers.get(effect.conn)
        if peer is None:
            return
        # One hint at a time per seat, however many connections its player has: one
        # player cannot take every slot of the lane the whole server shares.
        if peer.hinting or effect.seat in self.hinting:
            self.fanout.refuse(effect.conn, "hint_pending", "your last hint is still being "
                               "computed; it comes in a moment", effect.ref,
                               self.tutor.hints.wait_of(peer.player_id))
            return
        peer.hinting = True
        self.hinting.add(effect.seat)
        task = asyncio.create_task(self._hint(peer, effect), name=f"hint-{self.table.code}")
        self.hints.add(task)
        task.add_done_callback(self.hints.discard)

    async def _hint(self, peer: Asker, effect: Advise) -> None:
        # The seed is the decision's own, as a bot's would be: asking again gives the
        # same advice, so asking many times gains nothing.
        seed = decision_seed(self.table.id, effect.seat, effect.key)
        try:
            data, text = await self.tutor.hint(peer.player_id, effect.view, seed, peer.lang,
                                               self.settings.hint_rollouts)
        except TutorBusy as exc:
            if exc.own:  # this player's hint at another table
                self.fanout.refuse(peer.id, "hint_pending", "your last hint (at this or "
                                   "another table) is still being computed", effect.ref,
                                   exc.wait)
            else:
                self.fanout.refuse(peer.id, "busy", "the server is computing as many hints "
                                   f"as it may; ask again in {exc.wait:g} s", effect.ref,
                                   exc.wait)
            return
        except TutorStopped:
            self.fanout.refuse(peer.id, "busy", "the server is stopping", effect.ref)
            return
        except Exception as exc:
            log.error("table %s: a hint failed: %s", self.table.code, exc)
            self.fanout.refuse(peer.id, "internal", "the hint could not be computed",
                               effect.ref)
            return
        finally:
            peer.hinting = False
            self.hinting.discard(effect.seat)
        peer.send(dump(build(P.Hint, {
            "seq": peer.seq, "type": "hint", "key": effect.key, "text": text,
            "advice": AdvicePayload.model_validate(data), "ref": effect.ref})))

    def history(self, effect: SendHistory) -> None:
        """Answer a ``history`` request: a page the table holds at once, an older one once
        it is rebuilt from the log in a read thread (one page at a time per connection)."""
        peer = self.peers.get(effect.conn)
        if peer is None:
            return
        if effect.conn in self.paging:
            self.fanout.refuse(effect.conn, "rate_limited", "a page of history is still being "
                               "built for this connection; ask for the next once it came",
                               effect.ref)
            return
        cap = self.settings.history_items
        p = page(self.table, effect.before, effect.after, min(effect.limit or cap, cap))
        items = in_memory(self.table, p)
        build = self._page_builder(peer, effect, p)
        if items is not None:
            peer.send(build(items))
            return
        task = asyncio.create_task(self._history(peer, effect, p, build),
                                   name=f"history-{self.table.code}")
        self.paging[effect.conn] = task
        task.add_done_callback(lambda _: self.paging.pop(effect.conn, None))

    def _page_builder(self, peer: Asker, effect: SendHistory,
                      p: Page) -> Callable[[Sequence[StreamItem]], str]:
        """What makes the page's frame from its items: everything it needs of the live table
        is read now, so a read thread may run it."""
        t = self.table
        viewer, lang, seq, ref = effect.viewer, peer.lang, peer.seq, effect.ref
        names = t.logged.names(lang)
        limit, after = self.settings.history_bytes, effect.after

        def frame(kept: Sequence[StreamItem], begin: int) -> str:
            return history_frame(kept, viewer, lang, names, seq, older(after, begin), ref)

        def build(items: Sequence[StreamItem]) -> str:
            return bounded(items, p.lo - 1, len(items), limit, frame)

        return build

    async def _history(self, peer: Asker, effect: SendHistory, p: Page,
                       build: Callable[[Sequence[StreamItem]], str]) -> None:
        try:
            items = await self.pages.items(self.table, p)
            text = await self.pages.reads.run(functools.partial(build, items))
        except ReadsBusy:
            self.fanout.refuse(peer.id, "server_busy", "the server rebuilds as many older "
                               "pages as it may; ask again in a moment", effect.ref)
            return
        except Exception:
            log.exception("table %s: a page of history failed", self.table.code)
            self.fanout.refuse(peer.id, "internal", "the page could not be rebuilt",
                               effect.ref)
            return
        peer.send(text)
