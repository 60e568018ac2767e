"""The JSON API: what this server speaks, its lobby, a table, a stored game, its replay's
analysis, the leaderboard and a player.

Routes: ``/`` (redirects to the web client at ``/play/``), ``/api`` (what this server
speaks), ``/protocol.json`` (the JSON Schema), ``/api/tables`` (the lobby),
``/api/tables/{code}`` (one table, for links), ``/api/tables/{code}/games`` (the ids of
its stored games), ``/api/games/{id}`` (a game record), ``/api/games/{id}/analysis``
(the expert's review of a finished game), ``/api/leaderboard`` and
``/api/players/{name}`` (a player's games and rating). Path values are checked
(:mod:`~nimmt.server.base.params`) before anything is looked up: bad input is answered
4xx, never passed to a database that would fail with it.
"""

from __future__ import annotations

import json
import math
from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse, RedirectResponse, Response
from starlette.routing import BaseRoute, Route

from ... import wire as P
from ..base.limits import address_key
from ..base.params import BadParam, ReadRefused, player_names, row_id, shown, speaker, table_code
from ..people.leaderboards import Leaderboards, board_params
from ..store import Store
from ..tables.reads import TableRead
from ..tables.registry import Tables
from ..tables.state import speaker_of
from ..workers.analyses import Analyses, AnalysisRefused
from ..workers.heavyreads import Reads, game_read
from .doors import Doors
from .responses import (
    ClientGone,
    json_bytes_response,
    refusal,
    refused_response,
    table_answer,
    unless_gone,
)

__all__ = ["api_routes", "game_json"]


def game_json(data: dict[str, Any]) -> bytes:
    """The answer of ``/api/games/{id}``: the game as the store read it, its record parsed
    (in a read process: a long game's record is megabytes)."""
    return json.dumps({**data, "record": json.loads(data["record"])},
                      separators=(",", ":")).encode()


def api_routes(store: Store, reads: Reads, tables: Tables, doors: Doors, analyses: Analyses,
               boards: Leaderboards, leaderboard_page: int) -> list[BaseRoute]:
    """The routes of the JSON API."""

    async def schema(request: Request) -> JSONResponse:
        return JSONResponse(P.protocol_schema())

    async def index(request: Request) -> Response:
        # People open the address the server prints: send them to the web client.
        return RedirectResponse("/play/", status_code=307)

    async def about(request: Request) -> JSONResponse:
        return JSONResponse({"name": "nimmt", "protocol": P.PROTOCOL_VERSION,
                             "websocket": "/ws", "schema": "/protocol.json",
                             "tables": len(tables.held)})

    async def lobby(request: Request) -> JSONResponse:
        try:
            lang = speaker(request.query_params.get("lang")).language
        except BadParam as exc:
            return refusal(exc)
        return JSONResponse({"tables": [t.model_dump() for t in await doors.lobby(lang)]})

    # Path values are checked (server/params.py) before anything is looked up: bad input
    # is answered 4xx, never passed to a database that would fail with it.
    async def table(request: Request) -> Response:
        try:
            code = table_code(request.path_params["code"])
        except BadParam as exc:
            return refusal(exc)
        return await table_answer(doors, code, TableRead(what="info"),
                                  "no open table has that code")

    async def table_games(request: Request) -> JSONResponse:
        try:
            code = table_code(request.path_params["code"])
        except BadParam as exc:
            return refusal(exc)
        found = await store.table_games(code)
        if found is None:
            return JSONResponse({"error": "no table has that code"}, status_code=404)
        return JSONResponse({"table": code, "games": found})

    async def game(request: Request) -> Response:
        try:
            game_id = row_id(request.path_params["game_id"], "game")
        except BadParam as exc:
            return refusal(exc)
        reader = speaker_of((request.query_params.get("lang") or "en")[:35])
        address = address_key(request.client.host if request.client else None)
        try:
            # Stored games never change: built once, off the event loop, then kept.
            body = await game_read(reads, ("game", game_id), address,
                                   lambda: store.game(game_id), game_json)
        except ReadRefused as exc:
            return refused_response(exc, reader)
        if body is None:
            return JSONResponse({"error": f"no game {game_id}"}, status_code=404)
        return json_bytes_response(body)

    async def analysis(request: Request) -> Response:
        try:
            game_id = row_id(request.path_params["game_id"], "game")
        except BadParam as exc:
            return refusal(exc)
        try:
            reader = speaker(request.query_params.get("lang"))
        except BadParam as exc:
            return refusal(exc)
        address = address_key(request.client.host if request.client else None)
        try:
            review = await unless_gone(request, analyses.analysis(game_id, address))
        except AnalysisRefused as exc:
            body: dict[str, Any] = {"error": exc.message,
                                    "text": reader.analysis_refusal(exc.status, exc.wait)}
            headers = None
            if exc.wait is not None:
                wait = max(1, math.ceil(exc.wait))
                body["retry_after"] = wait
                headers = {"Retry-After": str(wait)}
            return JSONResponse(body, status_code=exc.status, headers=headers)
        except ClientGone:
            return Response(status_code=499)  # nobody reads it
        data = {"game": game_id, "language": reader.language,
                "text": reader.review_sentences(review), **review.to_dict()}
        return JSONResponse(data)

    async def leaderboard(request: Request) -> Response:
        try:
            preset, offset, limit = board_params(request.query_params,
                                                 leaderboard_page)
        except BadParam as exc:
            return refusal(exc)
        address = address_key(request.client.host if request.client else None)
        try:
            body = await boards.page(preset, offset, limit, address)
        except ReadRefused as exc:
            return refused_response(exc, speaker_of("en"))
        return json_bytes_response(body)

    async def player(request: Request) -> JSONResponse:
        name = request.path_params["name"]
        try:
            candidates = player_names(name)
        except BadParam as exc:
            return refusal(exc)
        try:
            boards.charge(address_key(request.client.host if request.client else None))
        except ReadRefused as exc:
            return refused_response(exc, speaker_of("en"))
        for candidate in candidates:
            data = await store.player_games(candidate)
            if data is not None:
                return JSONResponse(data)
        return JSONResponse({"error": f"no player named {shown(name)}"}, status_code=404)

    return [
        Route("/", index),
        Route("/api", about),
        Route("/protocol.json", schema),
        Route("/api/tables", lobby),
        Route("/api/tables/{code}", table),
        Route("/api/tables/{code}/games", table_games),
        Route("/api/games/{game_id}", game),
        Route("/api/games/{game_id}/analysis", analysis),
        Route("/api/leaderboard", leaderboard),
        Route("/api/players/{name}", player),
    ]
