"""Passwords: how each is hashed and checked.

- **Passwords** are hashed with argon2id (``argon2-cffi``), memory-hard, with the
  costs the operator sets (``argon2_memory``, ``argon2_time``,
  ``argon2_parallelism``). A hash costs tens of milliseconds of a core and
  ``argon2_memory`` KiB, so it never runs on the event loop: :class:`Hasher`
  runs at most ``hash_workers`` at once, each in a thread (argon2 releases the
  interpreter lock while it works), with at most ``hash_queue`` more waiting;
  past that a request is refused at once (:class:`HasherBusy`) rather than
  queued without end.
- **Checking a name that has no password costs the same** as checking a wrong
  password: :meth:`Hasher.verify` with no hash verifies against a hash made at
  start with the same costs, so the answer's timing says nothing of whether the
  account exists.

Session tokens and recovery codes are random, so the store keeps their SHA-256
(:mod:`nimmt.server.store.tokens`).
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import secrets
import unicodedata
from collections.abc import Callable

from argon2 import PasswordHasher, Type
from argon2.exceptions import InvalidHashError, VerificationError, VerifyMismatchError

from ... import wire as P
from ..base.settings import Settings

__all__ = ["Hasher", "HasherBusy", "check_password"]

class HasherBusy(Exception):
    """As many password operations run and wait as the settings allow."""


def check_password(raw: str, settings: Settings) -> str:
    """A new password as it is hashed (NFC, so it is the same typed on any device), or
    ``weak_password`` when it is shorter than ``password_min`` or longer than
    ``password_max`` characters."""
    password = unicodedata.normalize("NFC", raw)
    if not settings.password_min <= len(password) <= settings.password_max:
        raise P.ProtocolError(
            "weak_password", f"a password holds {settings.password_min} to "
            f"{settings.password_max} characters, not {len(password)}")
    return password


class Hasher:
    """argon2id hashing and checking, off the event loop, bounded (see the module)."""

    def __init__(self, settings: Settings) -> None:
        self.argon = PasswordHasher(
            time_cost=settings.argon2_time, memory_cost=settings.argon2_memory,
            parallelism=settings.argon2_parallelism, type=Type.ID)
        self.workers = settings.hash_workers
        self.limit = settings.hash_workers + settings.hash_queue
        self._pool = concurrent.futures.ThreadPoolExecutor(
            max_workers=settings.hash_workers, thread_name_prefix="nimmt-argon2")
        #: Operations running or waiting now.
        self.pending = 0
        #: A hash of a random password with the current costs: what a name without a
        #: password is checked against.
        self._dummy: str | None = None

    async def open(self) -> None:
        """Make the hash names without a password are checked against."""
        self._dummy = await self._run(self.argon.hash, secrets.token_urlsafe(16))

    def close(self) -> None:
        self._pool.shutdown(wait=False, cancel_futures=True)

    async def _run(self, fn: Callable[[str], str], arg: str) -> str:
        return await asyncio.get_running_loop().run_in_executor(self._pool, fn, arg)

    def _admit(self) -> None:
        if self.pending >= self.limit:
            raise HasherBusy(f"{self.pending} password operations are running or waiting")
        self.pending += 1

    async def hash(self, password: str) -> str:
        """The argon2id hash of ``password`` (raises :class:`HasherBusy`)."""
        self._admit()
        try:
            return await self._run(self.argon.hash, password)
        finally:
            self.pending -= 1

    async def verify(self, stored: str | None, password: str) -> tuple[bool, bool]:
        """Whether ``password`` matches ``stored``, and whether ``stored`` should be made
        again with the current costs. With no ``stored`` hash it checks against a dummy
        hash of the same cost and answers no: the same time either way."""
        self._admit()
        try:
            return await asyncio.get_running_loop().run_in_executor(
                self._pool, self._verify, stored, password)
        finally:
            self.pending -= 1

    def _verify(self, stored: str | None, password: str) -> tuple[bool, bool]:
        target = stored if stored is not None else self._dummy
        assert target is not None, "Hasher.open was not awaited"
        try:
            self.argon.verify(target, password)
        except (VerifyMismatchError, VerificationError, InvalidHashError):
            return False, False
        if stored is None:
            return False, False
        return True, self.argon.check_needs_rehash(stored)
