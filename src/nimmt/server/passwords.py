"""Passwords, session tokens and recovery codes: how each is made, kept and checked.

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
- **Session tokens** (32 random bytes) and **recovery codes** (16 characters of
  a 32-letter alphabet: 80 random bits) are kept as their SHA-256: they are
  random, so a fast hash is enough, and a leaked database gives out neither.

>>> normal_code(" abcd-efgh jkmn-pqrs ")
'ABCDEFGHJKMNPQRS'
>>> len(new_recovery_code()), new_recovery_code()[4]
(19, '-')
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import hashlib
import secrets
import unicodedata
from collections.abc import Callable

from argon2 import PasswordHasher, Type
from argon2.exceptions import InvalidHashError, VerificationError, VerifyMismatchError

from .. import wire as P
from .settings import Settings

__all__ = [
    "RECOVERY_CODES",
    "Hasher",
    "HasherBusy",
    "check_password",
    "hash_code",
    "new_recovery_code",
    "new_token",
    "normal_code",
]

#: Recovery codes given at sign-up (and each time new ones are asked for).
RECOVERY_CODES = 8
#: The letters of a recovery code: no 0/O or 1/I to mistake for each other.
CODE_ALPHABET = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"
#: Characters of a recovery code (without its dashes): 16 × 5 = 80 random bits.
CODE_LENGTH = 16


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


def new_token() -> str:
    """A new session token: 32 random bytes, URL-safe."""
    return secrets.token_urlsafe(32)


def new_recovery_code() -> str:
    """A new recovery code, shown in groups of four: ``ABCD-EFGH-JKMN-PQRS``."""
    raw = "".join(secrets.choice(CODE_ALPHABET) for _ in range(CODE_LENGTH))
    return "-".join(raw[i:i + 4] for i in range(0, CODE_LENGTH, 4))


def normal_code(raw: str) -> str:
    """A recovery code as typed, made comparable: capitals, no dashes or spaces."""
    return "".join(ch for ch in raw.upper() if ch.isalnum())


def hash_code(code: str) -> str:
    """What the store keeps of a recovery code."""
    return hashlib.sha256(normal_code(code).encode()).hexdigest()


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
