"""Running the server: uvicorn on one process, for ``nimmt serve`` and for tests; or
``--workers N`` processes sharing one port (:func:`serve_workers`).

uvicorn runs with the sans-I/O ``websockets`` implementation (the legacy one is
deprecated), it and the HTTP/1.1 protocol as the guard subclasses them
(:mod:`.httpguard`: a header timeout, connections per address, writes that end).
Frames larger than ``8 × max_frame`` are refused by the transport itself (close
code 1009); smaller oversized frames get a ``frame_too_large`` error from the
protocol and the connection stays open.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import logging
import multiprocessing
import os
import signal
import socket
import time
from collections.abc import AsyncIterator
from typing import Any

import uvicorn
from uvicorn.config import LOGGING_CONFIG

from .base import logs
from .base.logs import event
from .base.settings import Settings, listen_address, shown_url
from .edge.httpguard import Guard, guarded, quiet_accept_errors, raise_open_file_limit
from .ops.metrics import worker_address
from .root import Server
from .store.migrate import head as schema_head
from .workers.lifeline import exit_with_parent

__all__ = ["address", "proxy_options", "running_hub", "running_server", "serve",
           "serve_workers"]

#: The cyclic collector's thresholds while serving (``gc.set_threshold``): a young
#: collection after 20,000 new container objects rather than Python's 700, an older one
#: after 20 of those, a full one after 10 of the older ones. A server makes and drops
#: objects at every frame (models, frames, sentences), nearly none of them in cycles,
#: so Python's defaults collect about a hundred times a second under load and go
#: through the whole heap every few seconds: each of those holds every table up for
#: tens of milliseconds (at 2,000 people, hundreds). With these, a busy server spends
#: a sixth of the time collecting and its longest pause is a third as long
#: (docs/benchmarks.md, "What a decision costs").
COLLECTOR = (20_000, 20, 10)

log = logging.getLogger("nimmt.server")


def address(host: str, port: int) -> str:
    """The address to open in a browser for a server listening on ``host``: a wildcard
    (all interfaces) is opened on this machine's loopback, an IPv6 literal in brackets."""
    if host in ("", "0.0.0.0"):
        host = "127.0.0.1"
    elif host == "::":
        host = "::1"
    if ":" in host:
        host = f"[{host}]"
    return f"http://{host}:{port}"


class _DrainingServer(uvicorn.Server):
    """uvicorn's server, which drains the server's parts first when it starts to stop: it
    stops listening, then :meth:`Server.wind_down` tells every client, lets the tables store what
    they received (and, with Redis, hands them over) and closes the connections with
    code 1012; then uvicorn waits for what is left, the whole at most ``drain_seconds``."""

    def __init__(self, config: uvicorn.Config, server: Server) -> None:
        super().__init__(config)
        self.server = server

    async def shutdown(self, sockets: list[socket.socket] | None = None) -> None:
        start = time.monotonic()
        # No new connection comes to the game's port while the tables settle: clients
        # reconnect to another process (or, a single process, to this one once it is
        # back). The operations listener (metrics_address) stays open meanwhile: its
        # /readyz says "draining" and nimmt_draining is 1.
        if self.servers:
            self.servers[0].close()
        if sockets:
            sockets[0].close()
        await self.server.wind_down(self.config.timeout_graceful_shutdown or 0)
        # What uvicorn waits for next shares the same bound.
        spent = time.monotonic() - start
        self.config.timeout_graceful_shutdown = max(
            1, int((self.config.timeout_graceful_shutdown or 0) - spent))
        await super().shutdown(sockets)


def _config(settings: Settings, server: Server, guard: Guard) -> uvicorn.Config:
    http, ws = guarded(guard)
    return uvicorn.Config(
        server.app(),
        host=settings.host,
        port=settings.port,
        http=http,
        ws=ws,
        ws_max_size=8 * settings.max_frame,
        ws_ping_interval=20.0,
        ws_ping_timeout=20.0,
        log_level="warning",
        # Once nimmt serve has set the log up (server/logs.py), uvicorn's lines go through it.
        log_config=None if logs.configured() else LOGGING_CONFIG,
        lifespan="on",
        backlog=4096,
        # SIGTERM: what has not ended by itself after this is cancelled.
        timeout_graceful_shutdown=settings.drain_seconds,
        **proxy_options(settings),
    )


def proxy_options(settings: Settings) -> dict[str, Any]:
    """uvicorn's proxy options: ``X-Forwarded-For`` is believed only from the proxies the
    operator names; otherwise anyone could claim any address and walk past the limits
    per address."""
    trusted = [p.strip() for p in settings.trusted_proxies.split(",") if p.strip()]
    return {"proxy_headers": bool(trusted), "forwarded_allow_ips": trusted or None}


async def _start(settings: Settings, reuse_port: bool = False
                 ) -> tuple[Server, _DrainingServer, asyncio.Task[None], int, Guard]:
    """Open the store (resuming every table), then listen; errors come out as exceptions."""
    parts = Server(settings)
    try:
        await parts.open()
    except BaseException:
        await parts.close()
        raise
    try:
        sock = _bind(settings.host, settings.port, reuse_port)
    except OSError:
        await parts.close()
        raise
    sockets = [sock]
    if settings.metrics_address:
        # The operations listener: a socket of its own, served by the same server; what
        # comes in on it sees /metrics, /healthz and /readyz only (ops/metrics.py).
        try:
            ops = _bind(*listen_address(settings.metrics_address))
        except OSError as exc:
            sock.close()
            await parts.close()
            raise OSError(exc.errno, f"metrics_address {settings.metrics_address}: "
                          f"{exc.strerror or exc}") from None
        sockets.append(ops)
        host, ops_port = ops.getsockname()[:2]
        parts.metrics.listening = (str(host), int(ops_port))
    guard = Guard(settings, parts.metrics.counts)
    server = _DrainingServer(_config(settings, parts, guard), parts)
    task = asyncio.create_task(server.serve(sockets=sockets))
    while not server.started:
        if task.done():
            await parts.close()
            raise RuntimeError("the server stopped while starting")
        await asyncio.sleep(0.01)
    port = int(sock.getsockname()[1])
    return parts, server, task, port, guard


@contextlib.asynccontextmanager
async def running_server(settings: Settings) -> AsyncIterator[str]:
    """Serve in this event loop; yields ``http://host:port`` and stops on exit."""
    async with running_hub(settings) as (url, _parts):
        yield url


@contextlib.asynccontextmanager
async def running_hub(settings: Settings) -> AsyncIterator[tuple[str, Server]]:
    """:func:`running_server`, yielding its :class:`~.root.Server` too: for tests and
    benchmarks that look inside (the tables, the bot workers)."""
    parts, server, task, port, guard = await _start(settings)
    undo = quiet_accept_errors(asyncio.get_running_loop(), guard.tally)
    try:
        yield f"http://{settings.host}:{port}", parts
    finally:
        server.should_exit = True
        await task
        undo()


async def serve(settings: Settings, *, reuse_port: bool = False, ready: Any = None) -> None:
    """Serve until interrupted; prints the address to open once listening (or, as one of
    ``--workers``, puts its process id on the ``ready`` queue)."""
    logs.configure(settings)
    # Every connection is a file descriptor: this process may open as many as it is allowed.
    raise_open_file_limit()
    parts, _server, task, port, guard = await _start(settings, reuse_port)
    # For as long as the loop runs: asyncio retries a failed accept a second later, even
    # once the server has stopped.
    quiet_accept_errors(asyncio.get_running_loop(), guard.tally)
    # What exists now (the modules, the protocol's validators and serializers, the tables
    # resumed) lives as long as the server: the cyclic collector need not go through it
    # again on every full collection, which would hold every table up for a moment each time.
    gc.freeze()
    gc.set_threshold(*COLLECTOR)
    if ready is not None:
        ready.put(os.getpid())
    else:
        _say_listening(settings, port)
    ops = parts.metrics.listening
    held = len(parts.tables.held)
    fields: dict[str, object] = {"port": port, "tables": held}
    if ops is not None:
        fields["metrics"] = f"{address(*ops)}/metrics"
    # An upgrade's migrations are worth a word in the log: when the schema moved, and from
    # what (docs/deploy.md, "Upgrading").
    fields["schema"] = schema_head()
    before = parts.store.migrated_from
    moved = "" if before == fields["schema"] else (
        f"; schema migrated from {before or 'nothing'} to {fields['schema']}")
    if moved:
        fields["schema_before"] = before or "none"
    log.info("serving on %s (database %s, %d tables resumed%s%s)",
             address(settings.host, port), shown_url(settings.database_url()),
             held, f"; metrics on {fields['metrics']}" if ops else "", moved,
             extra=event("server.started", **fields))
    await task


def _say_listening(settings: Settings, port: int, workers: int = 1) -> None:
    url = address(settings.host, port)
    # The root redirects to the web client (/play/): that is the address people open.
    many = f"; {workers} processes" if workers > 1 else ""
    database = shown_url(settings.database_url())
    print(f"nimmt server: open {url}/ in a browser (WebSocket "
          f"{url.replace('http://', 'ws://', 1)}/ws; database {database}{many})", flush=True)


def _worker(settings: Settings, ready: Any) -> None:
    exit_with_parent(graceful=True)  # its supervisor killed: it stops as after SIGTERM
    with contextlib.suppress(KeyboardInterrupt):
        asyncio.run(serve(settings, reuse_port=True, ready=ready))


def serve_workers(settings: Settings) -> bool:
    """``settings.workers`` server processes on one port (``SO_REUSEPORT``: the kernel
    spreads the connections among them), joined by Redis. A worker that dies is started
    again; meanwhile its tables fail over to the others. Returns on SIGINT or SIGTERM,
    after stopping every worker: False if one of them could not start."""
    # This socket holds the port (a free one for port 0) without listening, so the kernel
    # hands no connection to it: only to the workers' sockets of the same port.
    holder = _bind(settings.host, settings.port, reuse_port=True)
    port = int(holder.getsockname()[1])
    child = settings.model_copy(update={"port": port, "workers": 1})
    ctx = multiprocessing.get_context("spawn")
    ready = ctx.Queue()

    def start(index: int) -> multiprocessing.process.BaseProcess:
        # Each process serves its metrics on a port of its own: the first's plus its index.
        mine = child.model_copy(update={
            "metrics_address": worker_address(settings.metrics_address, index)})
        proc = ctx.Process(target=_worker, args=(mine, ready), name="nimmt-server",
                           daemon=False)
        proc.start()
        return proc

    stop: list[int] = []
    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, lambda n, _f: stop.append(n))
    procs = [start(i) for i in range(settings.workers)]
    try:
        started = 0
        while started < len(procs) and not stop:
            if any(p.exitcode is not None for p in procs):
                log.error("a server process stopped while starting (its error is above)")
                return False
            with contextlib.suppress(Exception):
                ready.get(timeout=0.2)
                started += 1
        if not stop:
            _say_listening(settings, port, settings.workers)
        while not stop:
            time.sleep(0.2)
            for i, proc in enumerate(procs):
                if proc.exitcode is not None and not stop:
                    log.warning("server process %s ended (%s); starting another", proc.pid,
                                proc.exitcode)
                    procs[i] = start(i)
        return True
    finally:
        for proc in procs:
            if proc.pid is not None and proc.exitcode is None:
                os.kill(proc.pid, signal.SIGTERM)
        for proc in procs:
            proc.join(settings.drain_seconds + 15)
            if proc.exitcode is None:
                proc.kill()
                proc.join()
        holder.close()


def _bind(host: str, port: int, reuse_port: bool = False) -> socket.socket:
    """Bind the listening socket here, so a port in use is a plain OSError.

    The protocol is named (``IPPROTO_TCP``, not 0): accepted connections inherit it, and
    asyncio turns Nagle's algorithm off (``TCP_NODELAY``) only on sockets that say they are
    TCP. With it on, a small frame sent right after another (a pong after an event) waited
    for the client's delayed ACK: 40 ms stalls at the 99th percentile of every round trip.
    """
    family = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)[0][0]
    sock = socket.socket(family, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    if reuse_port:
        # --workers: every process binds the same port; the kernel balances between them.
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
    try:
        sock.bind((host, port))
    except OSError:
        sock.close()
        raise
    sock.set_inheritable(True)
    return sock


