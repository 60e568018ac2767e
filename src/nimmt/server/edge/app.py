"""The ASGI app: one WebSocket endpoint for the game, the JSON API, the web client, and the
operations listener's routes; every HTTP answer carries the security headers.

The WebSocket endpoint is the edge's whole part in a connection's life: the page's
origin is checked before the upgrade, the connection is counted in (or refused and
closed), its frames go to the :class:`~.dispatch.Dispatcher` one by one, and when it
closes it leaves its table, the people forget it, and it is counted out. Its frames
out are written by its own task (:class:`~.connection.Outbox`).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator, Awaitable, Callable

from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.routing import BaseRoute, WebSocketRoute
from starlette.websockets import WebSocket, WebSocketDisconnect

from ..base.limits import address_key
from ..base.logs import event
from ..base.logs import flush as flush_logs
from ..base.settings import Settings
from ..ops.metrics import Metrics, OpsListener
from ..people.build import People
from ..tables.registry import Tables
from .admission import Admission
from .connection import Connection, Outbox
from .dispatch import Dispatcher
from .doors import Doors
from .gate import Gate
from .headers import HeaderedStarlette

__all__ = ["Edge"]

log = logging.getLogger("nimmt.server")


class Edge:
    """The edge of one server: who may connect (:class:`~.gate.Gate`), what each frame
    costs (:class:`~.admission.Admission`), what each message does
    (:class:`~.dispatch.Dispatcher`) and how a connection reaches a table
    (:class:`~.doors.Doors`)."""

    def __init__(self, settings: Settings, metrics: Metrics, people: People[Connection],
                 tables: Tables, doors: Doors) -> None:
        self.settings = settings
        self.metrics = metrics
        self.people = people
        self.doors = doors
        self.gate = Gate(settings, metrics.refused)
        self.admission = Admission(settings, metrics.refused)
        self.dispatcher = Dispatcher(settings, self.admission, people, tables, doors,
                                     metrics.traffic, metrics.refused)

    def app(self, routes: list[BaseRoute], ops: list[BaseRoute],
            stop: Callable[[], Awaitable[None]]) -> Starlette:
        """The ASGI app: the WebSocket and ``routes``, with ``ops`` on the operations
        listener (and on the game's port); ``stop`` closes the server when the app stops."""

        @contextlib.asynccontextmanager
        async def lifespan(app: Starlette) -> AsyncIterator[None]:
            try:
                yield
            finally:
                await stop()
                log.info("stopped", extra=event("server.stopped"))
                # SIGTERM ends the process once the app has stopped, with no exit handlers.
                flush_logs()

        # Every HTTP answer, error pages included, carries the security headers.
        return HeaderedStarlette(
            routes=[*ops, *routes, WebSocketRoute("/ws", self.websocket)],
            lifespan=lifespan,
            middleware=[Middleware(OpsListener, metrics=self.metrics, routes=ops)],
        )

    async def websocket(self, ws: WebSocket) -> None:
        """One WebSocket client, from its upgrade to its close."""
        gate = self.gate
        if not gate.origin_allowed(ws.headers.get("origin"), ws.headers.get("host")):
            # Refused before the upgrade (HTTP 403): a page elsewhere may not play for
            # the person who visits it.
            log.info("refused a WebSocket from origin %r", ws.headers.get("origin"),
                     extra=event("refused.origin"))
            self.metrics.refused("allowed_origins")
            await ws.close(code=1008)
            return
        await ws.accept()
        outbox = Outbox(ws, self.settings,
                        address_key(ws.client.host if ws.client else None),
                        self.metrics.traffic, self.metrics.refused)
        conn = Connection(outbox, self.settings)
        writer = asyncio.create_task(outbox.write_loop())
        refusal = gate.count_in(conn)
        if refusal is not None:
            conn.cut_off(*refusal)
            with contextlib.suppress(Exception):
                await asyncio.wait_for(writer, 5.0)
            writer.cancel()
            return
        on_frame = self.dispatcher.on_frame
        try:
            while not outbox.gone:
                message = await ws.receive()
                if message["type"] == "websocket.disconnect":
                    break
                text = message.get("text")
                await on_frame(conn, (message.get("bytes") or b"") if text is None else text)
        except (WebSocketDisconnect, RuntimeError):
            pass
        finally:
            outbox.gone = True
            self.doors.leave(conn)
            self.people.left(conn)
            if gate.count_out(conn) and conn.player_id:
                self.metrics.traffic.player_gone(conn.player_id)
            if outbox.closing:
                # The server closes: its last error and the close frame go out first.
                with contextlib.suppress(Exception):
                    await asyncio.wait_for(asyncio.shield(writer), 5.0)
            writer.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await writer
