"""The limits on what strangers send, across all their connections: every frame is charged
to its connection, its player and its client address before it is parsed
(docs/security.md); a hint and a page of history cost more.

A limit kept per connection is no limit: one player opens twenty connections, one
address makes twenty players. So a frame passes only if the connection's bucket, the
player's, the address's and the address's bytes all have room; the bytes are taken
even when the frame is then refused (they were read). A connection refused
``flood_cutoff`` times in a row is closed.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable

from ... import wire as P
from ..base.limits import Buckets
from ..base.settings import Settings
from .connection import Connection

__all__ = ["Admission"]

log = logging.getLogger("nimmt.server")


class Admission:
    """The buckets shared by player and by address, and the charges made from them."""

    def __init__(self, settings: Settings, refused: Callable[[str], None]) -> None:
        self.settings = settings
        self.refused = refused
        self.player_msgs = Buckets(settings.player_rate, float(settings.player_burst))
        self.address_msgs = Buckets(settings.address_rate, float(settings.address_burst))
        self.address_bytes = Buckets(settings.address_bytes, float(settings.address_bytes_burst))

    def admit(self, conn: Connection, size: int, frame: str | bytes = "") -> bool:
        """Charge one frame of ``size`` bytes to its connection, player and address.

        Every frame is charged before it is parsed, oversized and malformed ones too,
        so a limit cannot be dodged by sending what the parser refuses. The bytes are
        taken even when the frame is then refused: they were read. The refusal carries
        ``frame``'s ``ref``.
        """
        s = self.settings
        now = time.monotonic()
        addr = conn.address
        fits = self.address_bytes.force(addr, size, now)
        conn.rate.bucket.refill(now)
        player = conn.player_id or None
        ok = (fits and conn.rate.bucket.tokens >= 1.0
              and (player is None or self.player_msgs.room(player, 1.0, now))
              and self.address_msgs.room(addr, 1.0, now))
        if ok:
            conn.rate.bucket.tokens -= 1.0
            if player is not None:
                self.player_msgs.take(player, 1.0, now)
            self.address_msgs.take(addr, 1.0, now)
            conn.rate.refused = 0
            return True
        conn.rate.refused += 1
        # Counted under the setting of the first bucket that was short.
        if not fits:
            self.refused("address_bytes")
        elif conn.rate.bucket.tokens < 1.0:
            self.refused("rate")
        elif player is not None and not self.player_msgs.room(player, 1.0, now):
            self.refused("player_rate")
        else:
            self.refused("address_rate")
        if conn.rate.refused >= s.flood_cutoff:
            self.refused("flood_cutoff")
            log.warning("cut off a flooding connection from %s (player %s)", addr, player)
            conn.cut_off("flooding", f"{conn.rate.refused} messages in a row came faster than "
                         "the server accepts; the connection is closed")
        elif not fits:
            conn.throttled(f"at most {s.address_bytes:g} bytes per second from one address; "
                           "this frame was dropped", frame)
        else:
            conn.throttled(f"at most {s.rate:g} messages per second ({s.player_rate:g} per "
                           f"player, {s.address_rate:g} per address); this one was dropped",
                           frame)
        return False

    def charge_hint(self, conn: Connection) -> None:
        """A hint is a second of search: it costs ``hint_cost`` messages of the
        connection's rate (the frame itself paid one)."""
        extra = self.settings.hint_cost - 1.0
        conn.rate.bucket.refill(time.monotonic())
        if conn.rate.bucket.tokens < extra:
            self.refused("hint_cost")
            raise P.ProtocolError(
                "rate_limited", f"a hint costs {self.settings.hint_cost:g} messages of your "
                f"rate ({self.settings.rate:g} a second); ask again in a moment")
        conn.rate.bucket.tokens -= extra

    def charge_history(self, conn: Connection) -> None:
        """A page of history may be rebuilt from the log: it costs ``history_cost``
        messages of the connection's rate and of its player's (the frame itself paid
        one of each)."""
        s = self.settings
        extra = s.history_cost - 1.0
        now = time.monotonic()
        conn.rate.bucket.refill(now)
        if conn.rate.bucket.tokens < extra or not self.player_msgs.room(conn.player_id, extra, now):
            raise P.ProtocolError(
                "rate_limited", f"a page of history costs {s.history_cost:g} messages of your "
                f"rate ({s.rate:g} a second, {s.player_rate:g} per player); ask again in a "
                "moment")
        conn.rate.bucket.tokens -= extra
        self.player_msgs.take(conn.player_id, extra, now)
