"""Limits on what strangers may send: token buckets shared by player and by address.

A limit kept per connection is no limit: one player opens twenty connections,
one address makes twenty players. So every frame is charged, before it is
parsed and whatever its size, to three message buckets (the connection, the
player once known, the client address) and to the address's byte bucket; it
passes only if all of them have room. The byte bucket is what makes an
oversized frame cost its sender: the transport has already read it.

Addresses are grouped the way networks hand them out: an IPv4 address is
itself, an IPv6 address is its /64 (one customer's share), so rotating through
one's own IPv6 prefix gains nothing.
"""

from __future__ import annotations

import contextlib
import ipaddress
import time
from collections import deque
from collections.abc import Hashable
from dataclasses import dataclass, field

__all__ = ["Backoff", "Bucket", "Buckets", "WindowCounter", "address_key", "address_network"]


def address_key(host: str | None) -> str:
    """The key a client address is counted under: IPv4 as is, IPv6 by its /64."""
    if not host:
        return "unknown"
    try:
        ip = ipaddress.ip_address(host)
    except ValueError:
        return host[:64]
    if isinstance(ip, ipaddress.IPv6Address):
        if ip.ipv4_mapped is not None:
            return str(ip.ipv4_mapped)
        return str(ipaddress.IPv6Network((int(ip) >> 64 << 64, 64)))
    return str(ip)


def address_network(raw: str) -> str:
    """An address or network as a ban keeps it: CIDR; an IPv6 address by its /64, as the
    limits count it (:func:`address_key`). Raises ValueError for what is
    neither.

    >>> address_network("203.0.113.5"), address_network("2001:db8::1")
    ('203.0.113.5/32', '2001:db8::/64')
    >>> address_network("198.51.100.0/24")
    '198.51.100.0/24'
    """
    net = ipaddress.ip_network(raw.strip(), strict=False)
    if net.version == 6 and net.prefixlen > 64:
        net = net.supernet(new_prefix=64)
    return str(net)


@dataclass(slots=True)
class Bucket:
    """Token bucket: ``rate`` tokens a second, at most ``burst`` saved up."""

    rate: float
    burst: float
    tokens: float = -1.0
    stamp: float = field(default_factory=time.monotonic)

    def __post_init__(self) -> None:
        if self.tokens < 0:
            self.tokens = self.burst

    def refill(self, now: float) -> None:
        self.tokens = min(self.burst, self.tokens + (now - self.stamp) * self.rate)
        self.stamp = now

    def full(self, now: float) -> bool:
        return self.tokens + (now - self.stamp) * self.rate >= self.burst


class Buckets:
    """One bucket per key (player id, address), made on first use and dropped when full.

    ``charge`` takes ``cost`` from every named bucket at once or from none, so a
    refused frame costs its sender nothing more than the refusal (a refused
    frame is still charged to the byte bucket by its caller: bytes were read).
    """

    def __init__(self, rate: float, burst: float) -> None:
        self.rate = rate
        self.burst = burst
        self._buckets: dict[Hashable, Bucket] = {}
        self._swept = time.monotonic()

    def bucket(self, key: Hashable, now: float) -> Bucket:
        b = self._buckets.get(key)
        if b is None:
            b = self._buckets[key] = Bucket(self.rate, self.burst, stamp=now)
        else:
            b.refill(now)
        return b

    def take(self, key: Hashable, cost: float, now: float | None = None) -> bool:
        """Take ``cost`` tokens from ``key``'s bucket; False (and nothing taken) if short."""
        now = time.monotonic() if now is None else now
        self._sweep(now)
        b = self.bucket(key, now)
        if b.tokens < cost:
            return False
        b.tokens -= cost
        return True

    def force(self, key: Hashable, cost: float, now: float | None = None) -> bool:
        """Take ``cost`` even into debt (bytes already read); False if it went into debt."""
        now = time.monotonic() if now is None else now
        self._sweep(now)
        b = self.bucket(key, now)
        b.tokens = max(b.tokens - cost, -b.burst)
        return b.tokens >= 0

    def room(self, key: Hashable, cost: float, now: float) -> bool:
        b = self._buckets.get(key)
        if b is None:
            return cost <= self.burst
        b.refill(now)
        return b.tokens >= cost

    def __len__(self) -> int:
        return len(self._buckets)

    def _sweep(self, now: float) -> None:
        """Forget full buckets now and then, so strangers who left cost no memory."""
        if now - self._swept < 30.0 or len(self._buckets) < 1024:
            return
        self._swept = now
        for key in [k for k, b in self._buckets.items() if b.full(now)]:
            del self._buckets[key]


class WindowCounter:
    """Events per key within a sliding window (new names per address per minute)."""

    def __init__(self, limit: int, window: float) -> None:
        self.limit = limit
        self.window = window
        self._seen: dict[Hashable, deque[float]] = {}

    def _times(self, key: Hashable, now: float) -> deque[float]:
        times = self._seen.setdefault(key, deque())
        while times and now - times[0] >= self.window:
            times.popleft()
        return times

    def full(self, key: Hashable, now: float | None = None) -> bool:
        """Whether ``key`` has used up its events in the window."""
        now = time.monotonic() if now is None else now
        return len(self._times(key, now)) >= self.limit

    def wait(self, key: Hashable, now: float | None = None) -> float:
        """Seconds until ``key`` may count one more event (0 when it may now)."""
        now = time.monotonic() if now is None else now
        times = self._times(key, now)
        if len(times) < self.limit:
            return 0.0
        return times[len(times) - self.limit] + self.window - now

    def add(self, key: Hashable, now: float | None = None) -> None:
        """Count one event for ``key`` (after it happened: refusals are not counted)."""
        now = time.monotonic() if now is None else now
        self._times(key, now).append(now)
        if len(self._seen) > 4096:
            for k in [k for k, t in self._seen.items() if not t or now - t[-1] >= self.window]:
                del self._seen[k]

    def take(self, key: Hashable, now: float | None = None) -> float | None:
        """Check and count one event for ``key`` at once, with no await between: its stamp
        (for :meth:`give_back`), or None when ``key`` has used up its events.

        Checking, awaiting the store and counting only then lets every request that
        arrived during the await pass the check (sixteen connections at once passed a
        quota of six): a quota is taken before the first await and given back when what
        it paid for failed (docs/server.md, "Shared state under concurrency").

        >>> w = WindowCounter(2, 60.0)
        >>> a = w.take("ana", 0.0); b = w.take("ana", 0.0); w.take("ana", 0.0) is None
        True
        >>> w.give_back("ana", b); w.take("ana", 1.0) is None
        False
        """
        now = time.monotonic() if now is None else now
        if self.full(key, now):
            return None
        self.add(key, now)
        return now

    def give_back(self, key: Hashable, stamp: float) -> None:
        """Uncount the event :meth:`take` counted at ``stamp`` (what it paid for failed)."""
        times = self._seen.get(key)
        if times is not None:
            with contextlib.suppress(ValueError):
                times.remove(stamp)


class Backoff:
    """Failures per key (an account, an address): after ``free`` of them, each further
    attempt must wait, one second after the first failure past ``free`` and twice as long
    after each next one, up to ``cap`` seconds; ``window`` seconds without a failure
    forget them all.

    Attempts refused while a key waits are not failures: they change nothing, so a
    guesser who keeps knocking gains no time and costs the owner no more than ``cap``.

    >>> b = Backoff(free=2, cap=5.0, window=60.0)
    >>> b.fail("ana", 0.0); b.fail("ana", 0.0); b.wait("ana", 0.5)
    0.5
    >>> b.fail("ana", 1.0); b.wait("ana", 1.0), b.wait("ana", 3.0)
    (2.0, 0.0)
    >>> b.fail("ana", 3.0); b.fail("ana", 10.0); b.wait("ana", 10.0)
    5.0
    >>> b.wait("ana", 71.0)
    0.0
    """

    def __init__(self, free: int, cap: float, window: float) -> None:
        self.free = free
        self.cap = cap
        self.window = window
        #: key → (failures, time of the latest one).
        self._failed: dict[Hashable, tuple[int, float]] = {}

    def pause(self, failures: int) -> float:
        """How long a key with ``failures`` must wait after its latest one."""
        if failures < self.free:
            return 0.0
        return float(min(self.cap, 2.0 ** min(failures - self.free, 62)))

    def wait(self, key: Hashable, now: float) -> float:
        """Seconds before ``key`` may try again (0: now)."""
        seen = self._failed.get(key)
        if seen is None:
            return 0.0
        failures, last = seen
        if now - last >= self.window:
            del self._failed[key]
            return 0.0
        return max(0.0, last + self.pause(failures) - now)

    def fail(self, key: Hashable, now: float) -> None:
        """Count a failure of ``key`` at ``now``."""
        seen = self._failed.get(key)
        failures = 0 if seen is None or now - seen[1] >= self.window else seen[0]
        self._failed[key] = (failures + 1, now)
        if len(self._failed) > 65536:
            for k in [k for k, (_, t) in self._failed.items() if now - t >= self.window]:
                del self._failed[k]

    def clear(self, key: Hashable) -> None:
        """Forget ``key``'s failures (it succeeded)."""
        self._failed.pop(key, None)
