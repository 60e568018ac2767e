"""The web client's routes: the pages under ``/play/`` and the speech endpoints.

``GET /api/speech/{code}?lang=&after=&upto=`` (header ``X-Nimmt-Token``) gives
a page, for the table ``code`` and the seat its player holds there (none for a
spectator): the narration of the game events with ``after < seq <= upto``,
filtered for that seat; the view as it is now; and the speech sheet of the
shortcuts (the same :class:`~nimmt.wire.Sheet` the WebSocket frames
carry with each view). The terminal client asks it; the web pages need not. It
narrates the newest events of the span only (as many as a catch-up carries: a few
milliseconds, where the table is, :mod:`nimmt.server.reads`), within its own limits
per player and per address.

``GET /api/games/{id}/replay?lang=`` turns a finished game's record into steps
(one per turn, round start and round end: the steps of :func:`nimmt.walk.walk`),
each with its sentences and the rows and scores after it, for the replay viewer:
built in a read process, kept, and rate limited per address
(:mod:`nimmt.server.workers.heavyreads`).
"""

from __future__ import annotations

import functools
import json
from collections.abc import Sequence
from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse, RedirectResponse, Response
from starlette.routing import BaseRoute, Mount, Route
from starlette.staticfiles import StaticFiles

from ...errors import RecordError
from ...events import CardPlaced, Event, RoundScored, RowsDealt, RowTaken, for_viewer
from ...narrate import Narrator
from ...record import record_from_dict, replay
from ...walk import StepVisitor, walk
from ...web import STATIC_DIR
from ...web.speech import speaker
from ..base.limits import address_key
from ..base.params import BadParam, ReadRefused, refusal, row_id, table_code, whole_number
from ..reads import TableRead, table_answer
from ..workers.heavyreads import (
    game_read,
    json_bytes_response,
    refused_response,
)

__all__ = ["STATIC_DIR", "replay_steps", "web_routes"]



def _lang(request: Request) -> str:
    return request.query_params.get("lang", "en")


def _int(request: Request, key: str, default: int) -> int:
    raw = request.query_params.get(key)
    if raw is None:
        return default
    return whole_number(raw, key)


def replay_steps(record: dict[str, Any], lang: str) -> dict[str, Any]:
    """A finished game's record as the replay viewer's steps (public information only)."""
    rec = record_from_dict(record)
    game = replay(rec)
    names = list(rec.players)
    events = [e for e in (for_viewer(ev, None) for ev in game.events) if e is not None]
    steps = walk(events, _ReplaySteps(speaker(lang), names, list(rec.start_scores)))
    return {"players": names, "rules": rec.rules.model_dump(), "steps": steps,
            "winners": list(game.winners), "totals": list(game.scores)}


class _ReplaySteps(StepVisitor[list[dict[str, Any]]]):
    """Each resolution step of a game's public events: its sentences, and the rows and
    scores as they are after it."""

    def __init__(self, speak: Narrator, names: list[str], scores: list[int]) -> None:
        self._speak = speak
        self._names = names
        self._rows: list[list[int]] = []
        self._scores = scores
        self._steps: list[dict[str, Any]] = []

    def step(self, events: Sequence[Event], first: int) -> None:
        rows = self._rows
        for event in events:
            if isinstance(event, RowsDealt):
                rows = self._rows = [list(r) for r in event.rows]
            elif isinstance(event, RowTaken):
                rows[event.row - 1] = []
            elif isinstance(event, CardPlaced):
                if event.end == "left":
                    rows[event.row - 1].insert(0, event.card)
                else:
                    rows[event.row - 1].append(event.card)
            elif isinstance(event, RoundScored):
                self._scores = list(event.totals)
        self._steps.append({"sentences": self._speak.narrate(events, self._names, None),
                            "rows": [list(r) for r in rows],
                            "scores": list(self._scores)})

    def result(self) -> list[dict[str, Any]]:
        return self._steps


async def _reader(hub: Any, token: str | None) -> int | None:
    """The player whose token a request carries (None without one), or 403."""
    if not token:
        return None
    row = await hub.store.player_by_token(token)
    if row is None:
        raise BadParam(403, "no player has that token")
    return int(row.id)


def _replay_json(data: dict[str, Any], game_id: int, lang: str) -> bytes:
    """The answer of ``/api/games/{id}/replay`` (built in a read process)."""
    out = replay_steps(json.loads(data["record"]), lang)
    out.update({"id": game_id, "table": data["table"], "finished": data["finished"]})
    return json.dumps(out, separators=(",", ":")).encode()


def web_routes(hub: Any) -> list[BaseRoute]:
    """The routes to add to the server's app (``hub`` is its :class:`~nimmt.server.app.Hub`)."""

    async def speech(request: Request) -> Response:
        # Every value from the URL is checked before use (server/params.py): 4xx, not 5xx.
        try:
            code = table_code(request.path_params["code"])
        except BadParam as exc:
            return refusal(exc)
        missing = f"no open table has the code {code!r}"
        speak = speaker(_lang(request))
        address = address_key(request.client.host if request.client else None)
        try:
            after = _int(request, "after", 0)
            upto = request.query_params.get("upto")
            last = None if upto is None else whole_number(upto, "upto")
            player = await _reader(hub, request.headers.get("x-nimmt-token"))
        except BadParam as exc:
            # A table that does not exist is said first, whatever else is wrong.
            if not await hub.table_exists(code):
                return JSONResponse({"error": missing}, status_code=404)
            return refusal(exc)
        try:
            hub.reads.charge_speech(address, player)
        except ReadRefused as exc:
            return refused_response(exc, speak)
        read = TableRead(what="speech", player=player, lang=speak.language,
                         after=TableRead.clamp(after),
                         upto=None if last is None else TableRead.clamp(last))
        # Read where the table is: here, or at the process that owns it.
        return await table_answer(hub, code, read, missing)

    async def game_replay(request: Request) -> Response:
        try:
            game_id = row_id(request.path_params["game_id"], "game")
        except BadParam as exc:
            return refusal(exc)
        speak = speaker(_lang(request))
        address = address_key(request.client.host if request.client else None)
        try:
            # Stored games never change: each replay is built once per language, off the
            # event loop, then kept.
            body = await game_read(hub.reads, ("replay", game_id, speak.language), address,
                                   lambda: hub.game(game_id),
                                   functools.partial(_replay_json, game_id=game_id,
                                                     lang=speak.language))
        except ReadRefused as exc:
            return refused_response(exc, speak)
        except RecordError as exc:
            return JSONResponse({"error": f"the record does not replay: {exc}"},
                                status_code=422)
        if body is None:
            return JSONResponse({"error": f"no game {game_id}"}, status_code=404)
        return json_bytes_response(body)

    async def play_root(request: Request) -> Response:
        return RedirectResponse("/play/", status_code=307)

    return [
        Route("/api/speech/{code}", speech),
        # No ":int" convertor: it would turn 5,000 digits into a ValueError, a 500.
        Route("/api/games/{game_id}/replay", game_replay),
        Route("/play", play_root),
        Mount("/play", StaticFiles(directory=STATIC_DIR, html=True), name="play"),
    ]
