"""``/healthz`` and ``/readyz``: is the process alive, and can it serve.

- ``GET /healthz`` answers ``{"alive": true}`` at once, with no I/O: that the
  event loop runs the request is the whole check. A supervisor restarts a
  process that stops answering it.
- ``GET /readyz`` answers 200 ``{"ready": true, "checks": {...}}`` when the
  process can serve, else 503 with ``"ready": false`` and ``"failed"`` naming
  the checks that failed: ``database`` (a ``SELECT 1`` through the store's pool
  within ``ready_timeout``; for SQLite also the file it opened is still there,
  the same file, readable and writable: a server whose file was removed would
  otherwise go on writing to a file nobody can open again), ``redis`` (a
  ``PING`` within ``ready_timeout``, with ``--redis``) and ``tables`` (the
  process takes new tables: it is not draining). A load balancer sends players
  only to processes that are ready.

Both are unauthenticated and pass no limit of the app (a limit would hide an
outage from the probe that looks for it). They stay cheap whatever their rate:
``/readyz`` checks at most once per :data:`READY_CACHE` seconds, requests that
come meanwhile share the running check or its answer, so a flood of requests
costs the database one query a second. A public answer says which check failed
in a few words; the details (an exception's text) go to the log, once when a
check fails and once when it recovers.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import threading
from collections.abc import Awaitable, Callable
from typing import Protocol

from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import BaseRoute, Route

from ..base.logs import event

__all__ = ["READY_CACHE", "Readiness", "StoreProbe", "health_routes"]

log = logging.getLogger("nimmt.server")

#: Seconds an answer of ``/readyz`` is reused: the database is asked at most once per this.
READY_CACHE = 1.0

#: A check's result: "ok", or a few words for the public answer and the details for the log.
Result = tuple[str, str]
_OK: Result = ("ok", "")


class StoreProbe(Protocol):
    """The store as ``/readyz`` checks it: a question it answers, and its SQLite file."""

    @property
    def sqlite_file(self) -> str | None:
        """The SQLite database's file (None: PostgreSQL, or SQLite in memory)."""

    async def ping(self) -> None:
        """Ask the smallest question; raises when the database cannot answer."""


class Readiness:
    """The checks of ``/readyz``, run at most once per :data:`READY_CACHE` seconds:
    ``database``, ``redis`` (a ``PING``, given ``redis``) and ``tables`` (``draining``
    says whether the process takes none)."""

    def __init__(self, timeout: float, database: StoreProbe, draining: Callable[[], bool],
                 redis: Callable[[], Awaitable[object]] | None = None) -> None:
        self.timeout = timeout
        self.database = database
        self.draining = draining
        self.redis = redis
        self._running: asyncio.Task[dict[str, str]] | None = None
        self._answer: dict[str, str] | None = None
        self._at = 0.0
        #: The checks failing at the last look (what the log was told).
        self._failing: set[str] = set()
        #: The SQLite file's identity (device, inode) when first seen.
        self._file: tuple[int, int] | None = None
        #: A look at the SQLite file still running in a thread (a hung file system).
        self._looking: asyncio.Future[Result] | None = None
        self._path = database.sqlite_file

    async def checks(self) -> dict[str, str]:
        """Each check's result: ``ok``, or why it failed (in a few words)."""
        loop = asyncio.get_running_loop()
        if self._answer is not None and loop.time() - self._at < READY_CACHE:
            return self._answer
        if self._running is None or self._running.done():
            self._running = asyncio.create_task(self._check(), name="nimmt-readiness")
        # Shielded: a client that goes away does not cancel the check the others wait for.
        return await asyncio.shield(self._running)

    async def _check(self) -> dict[str, str]:
        names = ["database"]
        work = [self._database()]
        if self.redis is not None:
            names.append("redis")
            work.append(self._redis())
        results = dict(zip(names, await asyncio.gather(*work), strict=True))
        results["tables"] = ("draining", "") if self.draining() else _OK
        self._tell(results)
        self._answer = {name: short for name, (short, _) in results.items()}
        self._at = asyncio.get_running_loop().time()
        return self._answer

    def _tell(self, results: dict[str, Result]) -> None:
        """Log a check that began to fail, with its details, and one that recovered."""
        for name, (short, detail) in results.items():
            if short != "ok" and name not in self._failing:
                self._failing.add(name)
                log.error("not ready: the %s check failed: %s%s", name, short,
                          f" ({detail})" if detail else "",
                          extra=event("ready.failed", check=name, reason=short))
            elif short == "ok" and name in self._failing:
                self._failing.discard(name)
                log.warning("ready again: the %s check passes", name,
                            extra=event("ready.recovered", check=name))

    async def _database(self) -> Result:
        try:
            async with asyncio.timeout(self.timeout):
                if self._path is not None:
                    found = await self._look_at_file(self._path)
                    if found != _OK:
                        return found
                await self.database.ping()
        except TimeoutError:
            return f"no answer within {self.timeout:g} s", ""
        except Exception as exc:
            return "unreachable", f"{type(exc).__name__}: {exc}"
        return _OK

    async def _look_at_file(self, path: str) -> Result:
        # In a thread of its own (not the loop's executor, which others may keep busy): a
        # file system that hangs holds that thread, not the loop. One look at a time, so a
        # hung one is not joined by a new one every second.
        if self._looking is not None and not self._looking.done():
            return "the database file does not answer", f"a look at {path} has not returned"
        loop = asyncio.get_running_loop()
        looking: asyncio.Future[Result] = loop.create_future()
        self._looking = looking

        def look() -> None:
            result = self._file_state(path)

            def settle() -> None:
                if not looking.done():
                    looking.set_result(result)

            with contextlib.suppress(RuntimeError):  # the loop closed meanwhile
                loop.call_soon_threadsafe(settle)

        threading.Thread(target=look, name="nimmt-readiness", daemon=True).start()
        return await asyncio.shield(looking)

    def _file_state(self, path: str) -> Result:
        try:
            st = os.stat(path)
        except FileNotFoundError:
            return "the database file is gone", f"{path} does not exist"
        except OSError as exc:
            return "the database file cannot be read", f"{path}: {exc.strerror or exc}"
        identity = (st.st_dev, st.st_ino)
        if self._file is None:
            self._file = identity
        elif identity != self._file:
            return ("the database file was replaced", f"{path} is not the file the server "
                    "opened: restart the server to use it")
        if not os.access(path, os.R_OK | os.W_OK):
            return ("the database file cannot be read and written",
                    f"{path}: permission denied")
        return _OK

    async def _redis(self) -> Result:
        assert self.redis is not None
        try:
            async with asyncio.timeout(self.timeout):
                await self.redis()
        except TimeoutError:
            return f"no answer within {self.timeout:g} s", ""
        except Exception as exc:
            return "unreachable", f"{type(exc).__name__}: {exc}"
        return _OK


def health_routes(readiness: Readiness) -> list[BaseRoute]:
    """``/healthz`` and ``/readyz`` with ``readiness``'s checks (the game's port and the
    operations listener share them, and so share one check a second)."""
    fresh = {"Cache-Control": "no-store"}

    async def healthz(request: Request) -> JSONResponse:
        return JSONResponse({"alive": True}, headers=fresh)

    async def readyz(request: Request) -> JSONResponse:
        checks = await readiness.checks()
        failed = [name for name, result in checks.items() if result != "ok"]
        body: dict[str, object] = {"ready": not failed, "checks": checks}
        if failed:
            body["failed"] = failed
        return JSONResponse(body, status_code=503 if failed else 200, headers=fresh)

    return [Route("/healthz", healthz), Route("/readyz", readyz)]
