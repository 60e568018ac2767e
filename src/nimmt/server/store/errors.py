"""The store's own errors: what its callers answer, never the database's.

A caller of the store handles these and nothing of SQLAlchemy's: a unique constraint met
is a :class:`Conflict` (answered, never a dropped connection), a write of an owner that
lost its table a :class:`StaleOwner`, a store operation that refuses what it was asked (no
such player, a bound the store counts) a :class:`Refused` with the code its answer carries,
and a database that cannot be opened :class:`BadURL` or :class:`Unreachable`
(:func:`opening`).
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

import sqlalchemy as sa

from ...error_codes import CodeLike, ErrorCode

__all__ = ["OPENING", "BadURL", "Conflict", "Refused", "StaleOwner", "Unreachable", "opening",
           "said"]


class Conflict(Exception):
    """A write met a row another write made meanwhile (a unique constraint): the caller
    answers it (the follow exists already, the name was taken), it never drops a
    connection. The database's own error is its ``__cause__``."""


class StaleOwner(Exception):
    """A write with a fencing token older than the newest one the table has seen: its
    process no longer owns the table, and another may have written since."""

    def __init__(self, table_id: int, token: int) -> None:
        super().__init__(f"table {table_id}: fencing token {token} is stale")
        self.table_id = table_id
        self.token = token


class Refused(Exception):
    """A store operation refuses what it was asked (no such player, a bound the store
    counts reached, an invitation gone): nothing was written; ``code`` is the refusal's
    code (:mod:`nimmt.error_codes`), ``message`` its English details and ``retry_after``
    the seconds until it may pass, for a bound that passes."""

    def __init__(self, code: CodeLike, message: str, retry_after: float | None = None) -> None:
        super().__init__(message)
        self.code = ErrorCode(code)
        self.message = message
        self.retry_after = retry_after


class BadURL(Exception):
    """The database URL does not parse, or names a database nimmt cannot use."""


class Unreachable(Exception):
    """The database the URL names cannot be opened (its message is the driver's)."""


#: The failures of opening a database a command says in a sentence (:func:`said`): the
#: store's own, and a driver that is not installed.
OPENING = (BadURL, Unreachable, ImportError)


def said(exc: BaseException, url: str) -> str:
    """What a command says of ``exc`` (one of :data:`OPENING`), the database at ``url`` (as
    the command shows it)."""
    if isinstance(exc, Unreachable):
        return f"Cannot open the database: {exc}"
    return f"Bad database URL {url!r}: {exc}"


@contextlib.contextmanager
def opening() -> Iterator[None]:
    """Whatever opens a database inside, its failures to do so come out as the store's
    :class:`BadURL` and :class:`Unreachable` (the commands that start a server or act on
    its database say each in a sentence)."""
    try:
        yield
    except sa.exc.ArgumentError as exc:
        raise BadURL(str(exc)) from exc
    except sa.exc.OperationalError as exc:
        raise Unreachable(str(exc.orig)) from exc
