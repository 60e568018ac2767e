"""Running the server: uvicorn on one process, for ``nimmt serve`` and for tests.

uvicorn runs with the sans-I/O ``websockets`` implementation (the legacy one is
deprecated). Frames larger than ``8 × max_frame`` are refused by the transport
itself (close code 1009); smaller oversized frames get a ``frame_too_large``
error from the protocol and the connection stays open.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import socket
from collections.abc import AsyncIterator
from typing import Any

import uvicorn

from .app import Hub, create_app
from .settings import Settings

__all__ = ["address", "proxy_options", "running_hub", "running_server", "serve"]


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


def _config(settings: Settings, hub: Hub) -> uvicorn.Config:
    return uvicorn.Config(
        create_app(settings, hub),
        host=settings.host,
        port=settings.port,
        ws="websockets-sansio",
        ws_max_size=8 * settings.max_frame,
        ws_ping_interval=20.0,
        ws_ping_timeout=20.0,
        log_level="warning",
        lifespan="on",
        backlog=4096,
        **proxy_options(settings),
    )


def proxy_options(settings: Settings) -> dict[str, Any]:
    """uvicorn's proxy options: ``X-Forwarded-For`` is believed only from the proxies the
    operator names; otherwise anyone could claim any address and walk past the limits
    per address."""
    trusted = [p.strip() for p in settings.trusted_proxies.split(",") if p.strip()]
    return {"proxy_headers": bool(trusted), "forwarded_allow_ips": trusted or None}


async def _start(settings: Settings) -> tuple[uvicorn.Server, asyncio.Task[None], int]:
    """Open the store (resuming every table), then listen; errors come out as exceptions."""
    hub = Hub(settings)
    try:
        await hub.open()
    except BaseException:
        await hub.close()
        raise
    try:
        sock = _bind(settings.host, settings.port)
    except OSError:
        await hub.close()
        raise
    server = uvicorn.Server(_config(settings, hub))
    task = asyncio.create_task(server.serve(sockets=[sock]))
    while not server.started:
        if task.done():
            await hub.close()
            raise RuntimeError("the server stopped while starting")
        await asyncio.sleep(0.01)
    port = int(sock.getsockname()[1])
    return server, task, port


@contextlib.asynccontextmanager
async def running_server(settings: Settings) -> AsyncIterator[str]:
    """Serve in this event loop; yields ``http://host:port`` and stops on exit."""
    async with running_hub(settings) as (url, _hub):
        yield url


@contextlib.asynccontextmanager
async def running_hub(settings: Settings) -> AsyncIterator[tuple[str, Hub]]:
    """:func:`running_server`, yielding its :class:`Hub` too: for tests and benchmarks that
    look inside (the tables, the bot workers)."""
    server, task, port = await _start(settings)
    hub: Hub = server.config.app.state.hub  # type: ignore[union-attr]
    try:
        yield f"http://{settings.host}:{port}", hub
    finally:
        server.should_exit = True
        await task


async def serve(settings: Settings) -> None:
    """Serve until interrupted; prints the address to open once listening."""
    _server, task, port = await _start(settings)
    # What exists now (the modules, the protocol's validators and serializers, the tables
    # resumed) lives as long as the server: the cyclic collector need not go through it
    # again on every full collection, which would hold every table up for a moment each time.
    gc.freeze()
    url = address(settings.host, port)
    # The root redirects to the web client (/play/): that is the address people open.
    print(f"nimmt server: open {url}/ in a browser (WebSocket "
          f"{url.replace('http://', 'ws://', 1)}/ws; database {_safe_url(settings)})",
          flush=True)
    await task


def _bind(host: str, port: int) -> socket.socket:
    """Bind the listening socket here, so a port in use is a plain OSError.

    The protocol is named (``IPPROTO_TCP``, not 0): accepted connections inherit it, and
    asyncio turns Nagle's algorithm off (``TCP_NODELAY``) only on sockets that say they are
    TCP. With it on, a small frame sent right after another (a pong after an event) waited
    for the client's delayed ACK: 40 ms stalls at the 99th percentile of every round trip.
    """
    family = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)[0][0]
    sock = socket.socket(family, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
    except OSError:
        sock.close()
        raise
    sock.set_inheritable(True)
    return sock


def _safe_url(settings: Settings) -> str:
    url = settings.database_url()
    if "@" in url:
        scheme, _, rest = url.partition("://")
        return f"{scheme}://***@{rest.split('@', 1)[1]}"
    return url
