"""HTTP reads of one table as it is now, answered where the table lives.

``GET /api/tables/{code}`` (the table's public facts) and ``GET /api/speech/{code}``
(the narration of its events for one reader, its view and its speech sheet) read
a running table. With one process the table is in memory. With many
(docs/scaling.md) only its owner holds it: another process sends the owner the
read (:class:`TableRead`) through Redis and returns the owner's answer as it
comes, so no process ever rebuilds a table from its log to answer a request.
:func:`answer` is the one place either kind of read is answered, here or at the
owner.
"""

from __future__ import annotations

import json
from functools import cache
from typing import TYPE_CHECKING, Annotated, Any, Literal, cast

from pydantic import BaseModel, ConfigDict, Field, field_validator

from ...events import Event, for_viewer
from ...narrate import available_languages, narrator
from ..base.params import ID_MAX

if TYPE_CHECKING:
    from .table import TableActor

__all__ = ["SEQ_MAX", "TableRead", "answer", "json_text", "languages"]

#: The largest stream position a read names: far past any table's, and exact in JSON.
SEQ_MAX = 2**53 - 1

Seq = Annotated[int, Field(strict=True, ge=-SEQ_MAX, le=SEQ_MAX)]


@cache
def languages() -> frozenset[str]:
    """The narration languages this install speaks (read from the catalogs once)."""
    return frozenset(available_languages())


class TableRead(BaseModel):
    """One read of a table: what the route asks, as the table's owner gets it."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    what: Literal["info", "speech"]
    """``info``: the table's public facts; ``speech``: the narration page of one reader."""
    player: Annotated[int, Field(strict=True, ge=1, le=ID_MAX)] | None = None
    """The reader (its token was checked where the request came in); None: nobody
    seated, public information only."""
    lang: Annotated[str, Field(strict=True, max_length=35)] = "en"
    """The narration language, one this install speaks."""
    after: Seq = 0
    """Events after this stream position are narrated..."""
    upto: Seq | None = None
    """...up to this one (None: up to the newest)."""

    @field_validator("lang")
    @classmethod
    def _spoken(cls, value: str) -> str:
        if value not in languages():
            raise ValueError(f"no narration in {value!r}")
        return value

    @staticmethod
    def clamp(n: int) -> int:
        """``n`` within the range a read may name (no stream reaches the ends of it, so a
        number past them reads the same)."""
        return max(-SEQ_MAX, min(SEQ_MAX, n))


def json_text(data: Any) -> str:
    """``data`` as the JSON text an answer carries (as Starlette's ``JSONResponse`` writes
    it), so an answer made at the owner goes out unchanged."""
    return json.dumps(data, ensure_ascii=False, allow_nan=False, indent=None,
                      separators=(",", ":"))


def answer(actor: TableActor, read: TableRead) -> str:
    """The answer to ``read`` from the table ``actor``, as JSON text."""
    if read.what == "info":
        return json_text(actor.info().model_dump(mode="json"))
    return json_text(_speech(actor, read))


def _speech(actor: TableActor, read: TableRead) -> dict[str, Any]:
    """The narration of the events in ``(after, upto]`` that ``read``'s reader may see (its
    seat's, or a spectator's), its view now and its speech sheet."""
    from ...web.speech import sheet  # the web pages' sheet: the same sentences as the frames
    from .table import view_to_dict

    viewer: int | None = None
    if read.player is not None:
        viewer = actor.seat_of(read.player)
        if viewer is not None and read.player in actor.kicked:
            viewer = None
    upto = actor.seq if read.upto is None else read.upto
    speak = narrator(read.lang)
    names = actor.table.logged.names(speak.language)
    # The newest events of the span only, as a catch-up has them (``catchup_items``): the
    # narration of a whole long game would hold the event loop.
    span = [payload for seq, kind, payload in actor.items
            if kind == "event" and read.after < seq <= upto]
    events: list[Event] = []
    for payload in span[max(0, len(span) - actor.settings.catchup_items):]:
        ev = for_viewer(cast(Event, payload), viewer)
        if ev is not None:
            events.append(ev)
    game = actor.game
    view = game.view(viewer) if game is not None else None
    return {
        "seq": actor.seq,
        "upto": upto,
        "you": viewer,
        "events": speak.narrate(events, names, viewer) if events else [],
        "view": view_to_dict(view) if view is not None else None,
        "sheet": sheet(speak, view, names, viewer, actor.table.rules,
                       actor.fanout.presence_of()),
    }
