"""The base of the core's value classes: events, decisions, views, deals, targets.

The core is compiled with mypyc (see ``setup.py``). A compiled class cannot be
created without calling its ``__init__``, so Python's default pickling (which
creates a blank object, then fills it) fails for it, and with it
``copy.copy`` and ``copy.deepcopy``. Every value class spells out an
``__init__`` that takes all its fields in order, so :class:`Value` pickles a
value as "call the class with these fields": the same in the compiled and the
pure build, and the same as building the value again.
"""

from __future__ import annotations

from dataclasses import fields
from typing import Any


class Value:
    """A dataclass whose ``__init__`` takes every field, in order."""

    __slots__ = ()

    def __reduce__(self) -> tuple[Any, ...]:
        return (type(self), tuple([getattr(self, f.name) for f in fields(self)]))  # type: ignore[arg-type]
