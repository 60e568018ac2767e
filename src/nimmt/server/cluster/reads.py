"""HTTP reads of a table another process owns: sent to the owner as a request with a
timeout, answered there from the table in memory (:func:`nimmt.server.tables.reads.answer`),
so no process rebuilds a table from its log to answer a request."""

from __future__ import annotations

import asyncio
import itertools
import json
import logging
from typing import TYPE_CHECKING

from ...wire import ProtocolError
from ..base.params import ReadRefused
from ..base.settings import Settings
from ..tables.reads import TableRead, answer
from .nodewire import NodeAnswer, NodeAsk
from .relay import Relay

if TYPE_CHECKING:
    from ..tables.table import TableActor

__all__ = ["Asks", "TableMoving"]

log = logging.getLogger("nimmt.server")


class TableMoving(ProtocolError):
    """The table is between owners (its owner died and its lease has not run out)."""

    def __init__(self, code: str) -> None:
        super().__init__("no_table", f"the table {code!r} is moving to another server "
                         "process; try again in a moment")


class Asks:
    """The reads this process sent to others, waiting for their answers."""

    def __init__(self, settings: Settings, relay: Relay) -> None:
        self.settings = settings
        self.relay = relay
        #: HTTP reads sent to other processes, waiting for their answers, by number.
        self._asked: dict[int, asyncio.Future[str | None]] = {}
        self._numbers = itertools.count(1)

    async def ask(self, node: int, owner: int, code: str, read: TableRead) -> str | None:
        """Send ``read`` from process ``node`` to process ``owner`` and wait
        (``cluster_read_timeout``) for its answer: the JSON text, or None if the table is
        not there."""
        s = self.settings
        if len(self._asked) >= s.cluster_reads:
            raise ReadRefused(503, f"this server process waits for {s.cluster_reads} answers "
                              "from other processes already; try again in a moment")
        number = next(self._numbers)
        waiting: asyncio.Future[str | None] = asyncio.get_running_loop().create_future()
        self._asked[number] = waiting
        body = {"k": "rq", "t": code, "n": node, "i": number, "q": read.model_dump()}
        try:
            async with asyncio.timeout(s.cluster_read_timeout):
                listened = await self.relay.publish(self.relay.keys.channel(owner),
                                                    json.dumps(body, ensure_ascii=False))
                if not listened:
                    raise ReadRefused(503, TableMoving(code).message)
                return await waiting
        except TimeoutError:
            raise ReadRefused(503, f"the server process that holds table {code!r} did not "
                              f"answer within {s.cluster_read_timeout:g} s; try again in a "
                              "moment") from None
        finally:
            self._asked.pop(number, None)

    def answered(self, body: NodeAnswer) -> None:
        """An answer came back."""
        waiting = self._asked.get(body.i)
        if waiting is not None and not waiting.done():
            waiting.set_result(body.a)

    def answer(self, ask: NodeAsk, actor: TableActor | None) -> None:
        """At the owner: answer a read another process sent (``actor``: the table, if it
        is here)."""
        text = None if actor is None else answer(actor, ask.q)
        body = json.dumps({"k": "rs", "i": ask.i, "a": text}, ensure_ascii=False)
        room = self.relay.room
        if len(body) > room // 4 and len(body.encode()) > room:
            log.warning("table %s: an answer of %d characters is larger than a message "
                        "between processes may be (cluster_message_max)", ask.t, len(body))
            return
        self.relay.publish(self.relay.keys.channel(ask.n), body)
