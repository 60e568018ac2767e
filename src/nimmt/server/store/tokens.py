"""The secrets the store keeps as their SHA-256: session tokens, recovery codes and the
codes of invitation links.

Each is random (a token 32 bytes, a recovery code 80 bits), so a fast hash is enough,
and a leaked database gives out none of them. Passwords are another matter: they are
chosen by people and hashed with argon2id (:mod:`nimmt.server.people.passwords`).

>>> normal_code(" abcd-efgh jkmn-pqrs ")
'ABCDEFGHJKMNPQRS'
>>> len(new_recovery_code()), new_recovery_code()[4]
(19, '-')
"""

from __future__ import annotations

import hashlib
import secrets

__all__ = ["RECOVERY_CODES", "hash_code", "hash_token", "new_recovery_code", "new_token",
           "normal_code"]

#: Recovery codes given at sign-up (and each time new ones are asked for).
RECOVERY_CODES = 8
#: The letters of a recovery code: no 0/O or 1/I to mistake for each other.
CODE_ALPHABET = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"
#: Characters of a recovery code (without its dashes): 16 × 5 = 80 random bits.
CODE_LENGTH = 16


def new_token() -> str:
    """A new session token: 32 random bytes, URL-safe."""
    return secrets.token_urlsafe(32)


def hash_token(token: str) -> str:
    """Tokens are stored hashed: a leaked database does not hand out seats."""
    return hashlib.sha256(token.encode()).hexdigest()


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
