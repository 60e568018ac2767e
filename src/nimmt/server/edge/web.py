"""The web client's routes: the pages under ``/play/`` and the speech endpoints.

``GET /api/speech/{code}?lang=&after=&upto=`` (header ``X-Nimmt-Token``) gives
a page, for the table ``code`` and the seat its player holds there (none for a
spectator): the narration of the game events with ``after < seq <= upto``,
filtered for that seat; the view as it is now; and the speech sheet of the
shortcuts (the same :class:`~nimmt.wire.Sheet` the WebSocket frames
carry with each view). The terminal client asks it; the web pages need not. It
narrates the newest events of the span only (as many as a catch-up carries: a few
milliseconds, where the table is, :mod:`nimmt.server.tables.reads`), within its own limits
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
from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse, RedirectResponse, Response
from starlette.routing import BaseRoute, Mount, Route
from starlette.staticfiles import StaticFiles

from ...errors import RecordError
from ...web import STATIC_DIR
from ...web.replay import replay_steps
from ...web.speech import speaker
from ..base.limits import address_key
from ..base.params import BadParam, ReadRefused, row_id, table_code, whole_number
from ..store import Store
from ..tables.reads import TableRead
from ..workers.heavyreads import Reads, game_read
from .doors import Doors
from .responses import json_bytes_response, refusal, refused_response, table_answer

__all__ = ["web_routes"]


def _lang(request: Request) -> str:
    return request.query_params.get("lang", "en")


def _int(request: Request, key: str, default: int) -> int:
    raw = request.query_params.get(key)
    if raw is None:
        return default
    return whole_number(raw, key)


async def _reader(store: Store, token: str | None) -> int | None:
    """The player whose token a request carries (None without one), or 403."""
    if not token:
        return None
    row = await store.player_by_token(token)
    if row is None:
        raise BadParam(403, "no player has that token")
    return int(row.id)


def _replay_json(data: dict[str, Any], game_id: int, lang: str) -> bytes:
    """The answer of ``/api/games/{id}/replay`` (built in a read process)."""
    out = replay_steps(json.loads(data["record"]), lang)
    out.update({"id": game_id, "table": data["table"], "finished": data["finished"]})
    return json.dumps(out, separators=(",", ":")).encode()


def web_routes(store: Store, reads: Reads, doors: Doors) -> list[BaseRoute]:
    """The routes of the web client and its speech endpoints."""

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
            player = await _reader(store, request.headers.get("x-nimmt-token"))
        except BadParam as exc:
            # A table that does not exist is said first, whatever else is wrong.
            if not await doors.exists(code):
                return JSONResponse({"error": missing}, status_code=404)
            return refusal(exc)
        try:
            reads.charge_speech(address, player)
        except ReadRefused as exc:
            return refused_response(exc, speak)
        read = TableRead(what="speech", player=player, lang=speak.language,
                         after=TableRead.clamp(after),
                         upto=None if last is None else TableRead.clamp(last))
        # Read where the table is: here, or at the process that owns it.
        return await table_answer(doors, code, read, missing)

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
            body = await game_read(reads, ("replay", game_id, speak.language), address,
                                   lambda: store.game(game_id),
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
