"""The operator's mutes and bans in force: who may not chat, who and which addresses may
not play (``nimmt admin``, :mod:`nimmt.server.store.operator`, writes them; every
server process reads them again when told, :mod:`.signals`)."""

from __future__ import annotations

import ipaddress
import time
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from ... import wire as P

__all__ = ["Sanction", "Sanctions"]


def _network_of(address: str) -> ipaddress.IPv4Network | ipaddress.IPv6Network | None:
    """The network a connection's address key stands for, or None (an address that is not
    an IP address: a test client, a Unix socket)."""
    try:
        return ipaddress.ip_network(address, strict=False)
    except ValueError:
        return None


def _until(until: float | None) -> str:
    if until is None:
        return "until it is lifted"
    return "until " + time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime(until))


@dataclass(slots=True)
class Sanction:
    """One mute or ban in force."""

    kind: str
    player_id: int | None
    network: ipaddress.IPv4Network | ipaddress.IPv6Network | None
    until: float | None
    reason: str

    def live(self, now: float) -> bool:
        return self.until is None or self.until > now

    def said(self) -> str:
        why = f": {self.reason}" if self.reason else ""
        return f"{_until(self.until)}{why}"


class Sanctions:
    """The mutes and bans in force, read from the store (and again at each ``ban`` or
    ``sanctions`` signal, and at each housekeeping round: :meth:`read`)."""

    def __init__(self, rows: Iterable[Any] = ()) -> None:
        self.items: list[Sanction] = []
        self.read(rows)

    def read(self, rows: Iterable[Any]) -> None:
        """The sanctions in force now are ``rows`` (the store's)."""
        self.items = []
        for r in rows:
            network = None
            if r.address is not None:
                network = _network_of(r.address)
                if network is None:
                    continue
            self.items.append(Sanction(r.kind, r.player_id, network, r.until, r.reason or ""))

    def player(self, kind: str, player_id: int, now: float) -> Sanction | None:
        """The ``kind`` sanction in force on player ``player_id``."""
        for s in self.items:
            if s.kind == kind and s.player_id == player_id and s.live(now):
                return s
        return None

    def address(self, kind: str, address: str, now: float) -> Sanction | None:
        """The ``kind`` sanction in force on a network that holds ``address``."""
        if not any(s.network is not None for s in self.items):
            return None
        net = _network_of(address)
        if net is None:
            return None
        for s in self.items:
            if (s.kind == kind and s.network is not None and s.live(now)
                    and s.network.version == net.version and s.network.overlaps(net)):
                return s
        return None

    def check_hello(self, address: str) -> None:
        """Refuse a ``hello`` from a banned address (``banned``)."""
        banned = self.address("ban", address, time.time())
        if banned is not None:
            raise P.ProtocolError("banned", f"this address is banned {banned.said()}")

    def check_player(self, player_id: int) -> None:
        """Refuse a banned player (``banned``)."""
        banned = self.player("ban", player_id, time.time())
        if banned is not None:
            raise P.ProtocolError("banned", f"this player is banned {banned.said()}")

    def check_chat(self, player_id: int) -> None:
        """Refuse chat from a muted player (``muted``)."""
        muted = self.player("mute", player_id, time.time())
        if muted is not None:
            raise P.ProtocolError("muted", f"the operator muted you {muted.said()}")
