"""Who may open a WebSocket, and how many: the page's origin, and the connections open in
all and per client address.

A browser always names the page's origin on a WebSocket upgrade, so a page elsewhere
cannot hide it; programs (the terminal client, bots) send none and are let in, as they
act only for whoever runs them. Every connection counted in is remembered, so a drain
can tell each and close it.
"""

from __future__ import annotations

from collections.abc import Callable

from ... import wire as P
from ..base.settings import Settings
from .connection import Connection

__all__ = ["Gate"]


class Gate:
    """The connections open here, and the checks a new one passes."""

    def __init__(self, settings: Settings, refused: Callable[[str], None]) -> None:
        self.settings = settings
        self.refused = refused
        self.origins = {o.strip().rstrip("/").lower() for o in settings.allowed_origins.split(",")
                        if o.strip()}
        #: Open connections, by client address.
        self.by_address: dict[str, int] = {}
        #: Every connection counted in (a drain tells each and closes it).
        self.live: set[Connection] = set()

    @property
    def open_connections(self) -> int:
        return len(self.live)

    def origin_allowed(self, origin: str | None, host: str | None) -> bool:
        """Whether a WebSocket from a page of ``origin`` may open, the server's ``host``."""
        if origin is None:
            return True
        o = origin.strip().rstrip("/").lower()
        if "*" in self.origins or o in self.origins:
            return True
        scheme, sep, netloc = o.partition("://")
        return (bool(sep) and scheme in ("http", "https") and host is not None
                and netloc == host.strip().lower())

    def count_in(self, conn: Connection) -> tuple[P.CodeLike, str] | None:
        """Count a new connection in, or say why it may not stay."""
        s = self.settings
        if len(self.live) >= s.max_connections:
            self.refused("max_connections")
            return "server_full", "the server holds as many connections as it may; try later"
        if self.by_address.get(conn.address, 0) >= s.connections_per_address:
            self.refused("connections_per_address")
            return ("too_many_connections", f"at most {s.connections_per_address} connections "
                    "from one address")
        self.by_address[conn.address] = self.by_address.get(conn.address, 0) + 1
        self.live.add(conn)
        return None

    def count_out(self, conn: Connection) -> bool:
        """Count ``conn`` out; whether it had been counted in."""
        if conn not in self.live:
            return False
        self.live.discard(conn)
        left = self.by_address.get(conn.address, 0) - 1
        if left > 0:
            self.by_address[conn.address] = left
        else:
            self.by_address.pop(conn.address, None)
        return True
