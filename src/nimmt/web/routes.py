"""The web client's routes: the pages under ``/play/`` and the speech endpoints.

``GET /api/speech/{code}?lang=&after=&upto=`` (header ``X-Nimmt-Token``) gives
a page, for the table ``code`` and the seat its player holds there (none for a
spectator): the narration of the game events with ``after < seq <= upto``,
filtered for that seat; the view as it is now; and the speech sheet of the
shortcuts (the same :class:`~nimmt.server.payloads.Sheet` the WebSocket frames
carry with each view). The terminal client asks it; the web pages need not. It
narrates the newest events of the span only (as many as a catch-up carries), in a
read thread, within its own limits per player and per address.

``GET /api/games/{id}/replay?lang=`` turns a finished game's record into steps
(one per turn, round start and round end), each with its sentences and the rows
and scores after it, for the replay viewer: built in a read process, kept, and
rate limited per address (:mod:`nimmt.server.reads`).
"""

from __future__ import annotations

import functools
import json
from pathlib import Path
from typing import Any, cast

from starlette.requests import Request
from starlette.responses import JSONResponse, RedirectResponse, Response
from starlette.routing import BaseRoute, Mount, Route
from starlette.staticfiles import StaticFiles

from ..errors import RecordError
from ..events import (
    CardPlaced,
    Event,
    GameOver,
    RoundScored,
    RoundStarted,
    RowsDealt,
    RowTaken,
    TurnStarted,
    for_viewer,
)
from ..narrate import Narrator
from ..record import record_from_dict, replay
from ..server.limits import address_key
from ..server.params import BadParam, refusal, row_id, table_code, whole_number
from ..server.reads import (
    ReadRefused,
    ReadsBusy,
    game_read,
    json_bytes_response,
    refused_response,
)
from ..server.reducer import StreamItem, seat_name
from ..views import View
from .speech import sheet, speaker

__all__ = ["STATIC_DIR", "replay_steps", "web_routes"]

STATIC_DIR = Path(__file__).parent / "static"


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
    speak = speaker(lang)
    events: list[Event] = []
    for ev in game.events:
        public = for_viewer(ev, None)
        if public is not None:
            events.append(public)
    rows: list[list[int]] = []
    scores = list(rec.start_scores)
    steps: list[dict[str, Any]] = []
    chunk: list[Event] = []

    def flush() -> None:
        if chunk:
            steps.append({"sentences": speak.narrate(chunk, names, None),
                          "rows": [list(r) for r in rows], "scores": list(scores)})
            chunk.clear()

    for ev in events:
        if isinstance(ev, TurnStarted | RoundStarted | RoundScored | GameOver):
            flush()
        chunk.append(ev)
        if isinstance(ev, RowsDealt):
            rows = [list(r) for r in ev.rows]
        elif isinstance(ev, RowTaken):
            rows[ev.row - 1] = []
        elif isinstance(ev, CardPlaced):
            if ev.end == "left":
                rows[ev.row - 1].insert(0, ev.card)
            else:
                rows[ev.row - 1].append(ev.card)
        elif isinstance(ev, RoundScored):
            scores = list(ev.totals)
    flush()
    return {"players": names, "rules": rec.rules.model_dump(), "steps": steps,
            "winners": list(game.winners), "totals": list(game.scores)}


def _replay_json(data: dict[str, Any], game_id: int, lang: str) -> bytes:
    """The answer of ``/api/games/{id}/replay`` (built in a read process)."""
    out = replay_steps(json.loads(data["record"]), lang)
    out.update({"id": game_id, "table": data["table"], "finished": data["finished"]})
    return json.dumps(out, separators=(",", ":")).encode()


def _speech_json(span: list[StreamItem], viewer: int | None, speak: Narrator,
                 names: list[str], view: View | None, seq: int, upto: int) -> bytes:
    """The answer of ``/api/speech/{code}`` (built in a read thread)."""
    from ..server.table import view_to_dict

    events = [ev for it in span if (ev := for_viewer(cast(Event, it.payload), viewer))]
    return json.dumps({
        "seq": seq,
        "upto": upto,
        "you": viewer,
        "events": speak.narrate(events, names, viewer) if events else [],
        "view": view_to_dict(view) if view is not None else None,
        "sheet": sheet(speak, view, names),
    }, separators=(",", ":")).encode()


def web_routes(hub: Any) -> list[BaseRoute]:
    """The routes to add to the server's app (``hub`` is its :class:`~nimmt.server.app.Hub`)."""

    async def speech(request: Request) -> Response:
        # Every value from the URL is checked before use (server/params.py): 4xx, not 5xx.
        try:
            code = table_code(request.path_params["code"])
        except BadParam as exc:
            return refusal(exc)
        speak = speaker(_lang(request))
        address = address_key(request.client.host if request.client else None)
        viewer: int | None = None
        player: int | None = None
        token = request.headers.get("x-nimmt-token")
        if token:
            row = await hub.store.player_by_token(token)
            if row is None:
                return JSONResponse({"error": "no player has that token"}, status_code=403)
            player = int(row.id)
        try:
            hub.reads.charge_speech(address, player)
        except ReadRefused as exc:
            return refused_response(exc, speak)
        actor = await hub.table_view(code)
        if actor is None:
            return JSONResponse({"error": f"no open table has the code {code!r}"},
                                status_code=404)
        try:
            after = _int(request, "after", 0)
            upto = _int(request, "upto", actor.seq)
        except BadParam as exc:
            return refusal(exc)
        if player is not None:
            viewer = actor.seat_of(player)
            if viewer is not None and player in actor.kicked:
                viewer = None
        names = [seat_name(s, speak.language) if s is not None else f"{i + 1}"
                 for i, s in enumerate(actor.seats)]
        # The newest events of the span only, as a catch-up has them; told in a read
        # thread from what the table holds now (its items and events do not change).
        span = [it for it in actor.items if after < it.seq <= upto and it.kind == "event"]
        span = span[max(0, len(span) - hub.settings.catchup_items):]
        game = actor.game
        view = game.view(viewer) if game is not None else None
        try:
            body = await hub.reads.run(_speech_json, span, viewer, speak, names, view,
                                       actor.seq, upto)
        except ReadsBusy as exc:
            return refused_response(hub.reads.busy(exc), speak)
        return json_bytes_response(body)

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
