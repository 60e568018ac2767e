"""The server: a Starlette app with one WebSocket endpoint and a small JSON API.

The :class:`Hub` holds the tables (one :class:`~nimmt.server.table.TableActor`
each) and the connections. A connection reads frames, checks their size and
rate, parses them with the protocol models, and handles the few messages that
are not about one table (hello, create_table, join, spectate, lobby, ping);
everything else goes to the actor of the table the connection is at. Each
connection writes from its own queue, so a slow client never holds up a table.

Routes: ``/`` (redirects to the web client at ``/play/``), ``/api`` (what this
server speaks), ``/ws`` (the game), ``/protocol.json`` (the JSON Schema),
``/api/tables`` (the lobby), ``/api/tables/{code}`` (one table, for links),
``/api/games/{id}`` (a game record),
``/api/players/{name}`` (a player's games and rating).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import secrets
import time
import unicodedata
from collections.abc import AsyncIterator
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import sqlalchemy as sa
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncConnection
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, RedirectResponse, Response
from starlette.routing import Route, WebSocketRoute
from starlette.websockets import WebSocket, WebSocketDisconnect

from ..errors import RulesError
from ..narrate import UnknownLanguage, narrator
from ..rules import Rules
from ..web import web_routes
from . import protocol as P
from .settings import Settings
from .store import Store, game_players, games, hash_token, players, tables
from .table import TableActor, clean_text

__all__ = ["Connection", "Hub", "create_app"]

log = logging.getLogger("nimmt.server")

CODE_ALPHABET = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"
NAME_MAX = 24
#: Frames queued for one client before it counts as gone (a client that stopped reading).
SEND_BACKLOG = 2000


def check_name(raw: str) -> str:
    """A display name: 1 to 24 characters, no control or invisible formatting characters."""
    name = raw.strip()
    if not name or len(name) > NAME_MAX:
        raise P.ProtocolError("bad_name", f"a name holds 1 to {NAME_MAX} characters")
    if any(unicodedata.category(ch) in ("Cc", "Cf", "Cs", "Co", "Zl", "Zp") for ch in name):
        raise P.ProtocolError("bad_name", "a name may not hold control characters")
    return name


def _echo_ref(text: str) -> P.Ref:
    """The ``ref`` of a refused frame, when it is a valid ref, so the client can match it."""
    try:
        data = json.loads(text)
    except ValueError:
        return None
    ref = data.get("ref") if isinstance(data, dict) else None
    if (type(ref) is int and abs(ref) < 1 << 53) or (type(ref) is str and len(ref) <= 64):
        return ref
    return None


class Connection:
    """One WebSocket client."""

    def __init__(self, ws: WebSocket, settings: Settings) -> None:
        self.ws = ws
        self.player_id = 0
        self.name = ""
        #: The narration language of this connection (its ``hello`` says which).
        self.lang = "en"
        self.seq = 0
        self.table: TableActor | None = None
        self.out: asyncio.Queue[str | None] = asyncio.Queue()
        self.gone = False
        self._tokens = float(settings.burst)
        self._rate = settings.rate
        self._burst = float(settings.burst)
        self._stamp = time.monotonic()

    def send(self, text: str) -> None:
        if self.gone:
            return
        if self.out.qsize() > SEND_BACKLOG:
            self.gone = True
            self.out.put_nowait(None)
            return
        self.out.put_nowait(text)

    def allow(self) -> bool:
        """Token bucket: ``rate`` messages per second on average, ``burst`` at once."""
        now = time.monotonic()
        self._tokens = min(self._burst, self._tokens + (now - self._stamp) * self._rate)
        self._stamp = now
        if self._tokens < 1.0:
            return False
        self._tokens -= 1.0
        return True

    async def write_loop(self) -> None:
        while True:
            text = await self.out.get()
            if text is None:
                with contextlib.suppress(Exception):
                    await self.ws.close(code=1008, reason="too slow")
                return
            try:
                await self.ws.send_text(text)
            except Exception:
                self.gone = True
                return

    def error(self, code: P.ErrorCode, message: str, ref: P.Ref = None) -> None:
        self.send(json.dumps({"type": "error", "seq": self.seq, "code": code,
                              "message": message, "ref": ref}, separators=(",", ":")))


class Hub:
    """Every table and connection of one server process."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self.store = Store(settings.database_url())
        self.tables: dict[str, TableActor] = {}
        self.executor = ThreadPoolExecutor(max_workers=2, thread_name_prefix="nimmt-bot")

    async def open(self) -> None:
        await self.store.open()
        for row, entries in await self.store.live_tables():
            actor = self._actor(row)
            try:
                actor.replay(entries)
            except Exception:
                log.exception("table %s does not replay; it stays closed", row.code)
                continue
            self.tables[actor.code] = actor
            actor.start()
            actor.resume()

    async def close(self) -> None:
        for actor in list(self.tables.values()):
            await actor.stop()
        self.tables.clear()
        await self.store.close()
        self.executor.shutdown(wait=False, cancel_futures=True)

    def _actor(self, row: Any) -> TableActor:
        settings = json.loads(row.settings)
        return TableActor(
            store=self.store, settings=self.settings, executor=self.executor,
            on_close=self._forget, table_id=row.id, code=row.code, name=row.name,
            host_id=row.host_id, rules=Rules.from_dict(json.loads(row.rules)),
            turn_timer=settings["turn_timer"], rated=settings["rated"],
            private=settings["private"],
        )

    def _forget(self, actor: TableActor) -> None:
        if self.tables.get(actor.code) is actor:
            del self.tables[actor.code]

    # -- frames ---------------------------------------------------------------------

    async def on_frame(self, conn: Connection, text: str) -> None:
        if len(text) > self.settings.max_frame:
            conn.error("frame_too_large",
                       f"frames hold at most {self.settings.max_frame} bytes, not {len(text)}")
            return
        if not conn.allow():
            conn.error("rate_limited", f"at most {self.settings.rate:g} messages per second; "
                       "this one was dropped")
            return
        try:
            msg = P.parse_client(text)
            await self._dispatch(conn, msg)
        except P.ProtocolError as exc:
            conn.error(exc.code, exc.message, _echo_ref(text))

    async def _dispatch(self, conn: Connection, msg: Any) -> None:
        t = msg.type
        if t == "hello":
            await self._hello(conn, msg)
            return
        if t == "ping":
            conn.send(P.Pong(seq=conn.seq, ref=msg.ref).model_dump_json())
            return
        if not conn.player_id:
            raise P.ProtocolError("not_authenticated", "send hello first")
        if t == "lobby":
            conn.send(P.LobbyList(seq=conn.seq, tables=self.lobby(), ref=msg.ref)
                      .model_dump_json())
        elif t == "create_table":
            await self._create(conn, msg)
        elif t in ("join", "spectate"):
            self._enter(conn, msg.table, t, msg.last_seq, msg.ref)
        elif conn.table is None:
            raise P.ProtocolError("not_at_table", "join or spectate a table first")
        else:
            conn.table.post("msg", conn, msg)

    async def _hello(self, conn: Connection, msg: P.Hello) -> None:
        if msg.version != P.PROTOCOL_VERSION:
            raise P.ProtocolError(
                "version", f"this server speaks protocol version {P.PROTOCOL_VERSION}, "
                f"not {msg.version}")
        if conn.player_id:
            raise P.ProtocolError("bad_message", "hello was already said on this connection")
        lang = "en"
        if msg.lang is not None:
            try:
                lang = narrator(msg.lang).language
            except UnknownLanguage as exc:
                raise P.ProtocolError("bad_language", str(exc)) from None
        token: str | None = None
        if msg.token is not None:
            row = await self.store.player_by_token(msg.token)
            if row is None:
                raise P.ProtocolError("bad_token", "no player has that token")
            pid, name = int(row.id), str(row.name)
        elif msg.name is not None:
            name = check_name(msg.name)
            token = secrets.token_urlsafe(24)
            pid = await self._new_player(name, token)
        else:
            raise P.ProtocolError("bad_message", "hello needs a name (new player) or a token")
        conn.player_id, conn.name, conn.lang = pid, name, lang
        conn.send(P.Welcome(seq=conn.seq, player=name, token=token, lang=lang, ref=msg.ref)
                  .model_dump_json())
        if msg.table is not None:
            self._enter(conn, msg.table, "join", msg.last_seq, msg.ref)

    async def _new_player(self, name: str, token: str) -> int:
        async def op(c: AsyncConnection) -> int:
            res = await c.execute(
                players.insert().values(name=name, token_hash=hash_token(token), mu=25.0,
                                        sigma=25.0 / 3, rated_games=0, created=time.time())
            )
            return int(res.inserted_primary_key[0])  # type: ignore[index]

        exists = await self.store.player_by_name(name)
        if exists is not None:
            raise P.ProtocolError("name_taken", f"the name {name!r} belongs to another player; "
                                  "choose another, or send your token")
        try:
            pid: int = await self.store.run(op)
        except IntegrityError:
            raise P.ProtocolError("name_taken", f"the name {name!r} is taken") from None
        return pid

    async def _create(self, conn: Connection, msg: P.CreateTable) -> None:
        if len(self.tables) >= self.settings.max_tables:
            raise P.ProtocolError("closed", "the server holds as many tables as it may")
        spec = msg.rules.model_dump()
        if spec["limit"] is None:
            del spec["limit"]
        try:
            rules = Rules.from_dict(spec)
        except RulesError as exc:
            raise P.ProtocolError("bad_rules", str(exc)) from None
        name = clean_text(msg.name or "")[:64] or f"{conn.name}'s table"
        settings = {"turn_timer": msg.turn_timer, "rated": msg.rated, "private": msg.private}
        for _ in range(20):
            code = "".join(secrets.choice(CODE_ALPHABET) for _ in range(6))
            if code not in self.tables:
                break

        async def op(c: AsyncConnection) -> int:
            res = await c.execute(
                tables.insert().values(code=code, name=name, host_id=conn.player_id,
                                       rules=json.dumps(rules.to_dict()),
                                       settings=json.dumps(settings), status="open",
                                       created=time.time())
            )
            return int(res.inserted_primary_key[0])  # type: ignore[index]

        table_id: int = await self.store.run(op)
        actor = TableActor(
            store=self.store, settings=self.settings, executor=self.executor,
            on_close=self._forget, table_id=table_id, code=code, name=name,
            host_id=conn.player_id, rules=rules, turn_timer=msg.turn_timer, rated=msg.rated,
            private=msg.private,
        )
        self.tables[code] = actor
        actor.start()
        self._leave_current(conn)
        conn.table = actor
        actor.post("create", conn, msg.ref)

    def _enter(self, conn: Connection, code: str, mode: str, last_seq: int | None,
               ref: P.Ref) -> None:
        actor = self.tables.get(code.strip().upper())
        if actor is None:
            raise P.ProtocolError("no_table", f"no open table has the code {code!r}")
        self._leave_current(conn)
        conn.table = actor
        actor.post("attach", conn, mode, last_seq, ref)

    def _leave_current(self, conn: Connection) -> None:
        if conn.table is not None:
            conn.table.post("detach", conn)
            conn.table = None

    def disconnected(self, conn: Connection) -> None:
        conn.gone = True
        self._leave_current(conn)

    def lobby(self) -> list[P.LobbyTable]:
        out = []
        for a in self.tables.values():
            if a.private or a.status not in ("open", "playing"):
                continue
            info = a.info()
            out.append(P.LobbyTable(
                code=a.code, name=a.name, host=info["host"], rules_name=a.rules.name,
                seats=len(a.seats), taken=sum(1 for s in a.seats if s is not None),
                status=a.status,
            ))
        return out

    # -- the JSON API ------------------------------------------------------------------

    async def game(self, game_id: int) -> dict[str, Any] | None:
        async def q(c: AsyncConnection) -> dict[str, Any] | None:
            row = (await c.execute(sa.select(games).where(games.c.id == game_id))).first()
            if row is None:
                return None
            code = (await c.execute(sa.select(tables.c.code).where(
                tables.c.id == row.table_id))).scalar()
            seats = await c.execute(sa.select(game_players).where(
                game_players.c.game_id == game_id).order_by(game_players.c.seat))
            return {
                "id": row.id, "table": code, "game_no": row.game_no, "rated": row.rated,
                "finished": row.finished, "ended": row.ended,
                "players": [{"seat": s.seat, "name": s.name, "total": s.total,
                             "winner": s.winner, "human": s.player_id is not None,
                             "mu_after": s.mu_after} for s in seats],
                "record": json.loads(row.record),
            }

        result: dict[str, Any] | None = await self.store.read(q)
        return result

    async def player(self, name: str) -> dict[str, Any] | None:
        async def q(c: AsyncConnection) -> dict[str, Any] | None:
            row = (await c.execute(sa.select(players).where(players.c.name == name))).first()
            if row is None:
                return None
            res = await c.execute(
                sa.select(game_players, games.c.rated, games.c.finished, games.c.ended)
                .join(games, games.c.id == game_players.c.game_id)
                .where(game_players.c.player_id == row.id)
                .order_by(games.c.id.desc()).limit(200)
            )
            return {
                "name": row.name,
                "rating": {"mu": row.mu, "sigma": row.sigma,
                           "ordinal": row.mu - 3 * row.sigma},
                "rated_games": row.rated_games,
                "games": [{"id": g.game_id, "seat": g.seat, "total": g.total,
                           "winner": g.winner, "rated": g.rated, "finished": g.finished,
                           "ended": g.ended} for g in res],
            }

        result: dict[str, Any] | None = await self.store.read(q)
        return result


def create_app(settings: Settings | None = None, hub: Hub | None = None) -> Starlette:
    """The ASGI app. Give an opened ``hub`` to open the store (and resume every table)
    before serving, so a bad database is reported before anything listens; otherwise
    the hub opens at startup."""
    settings = settings or Settings()
    opened = hub is not None
    hub = hub if hub is not None else Hub(settings)

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        if not opened:
            await hub.open()
        try:
            yield
        finally:
            await hub.close()

    async def ws_endpoint(ws: WebSocket) -> None:
        await ws.accept()
        conn = Connection(ws, settings)
        writer = asyncio.create_task(conn.write_loop())
        try:
            while not conn.gone:
                message = await ws.receive()
                if message["type"] == "websocket.disconnect":
                    break
                text = message.get("text")
                if text is None:
                    raw = message.get("bytes") or b""
                    try:
                        text = raw.decode()
                    except UnicodeDecodeError:
                        conn.error("bad_json", "binary frames must hold UTF-8 JSON")
                        continue
                await hub.on_frame(conn, text)
        except (WebSocketDisconnect, RuntimeError):
            pass
        finally:
            hub.disconnected(conn)
            writer.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await writer

    async def schema(request: Request) -> JSONResponse:
        return JSONResponse(P.protocol_schema())

    async def index(request: Request) -> Response:
        # People open the address the server prints: send them to the web client.
        return RedirectResponse("/play/", status_code=307)

    async def about(request: Request) -> JSONResponse:
        return JSONResponse({"name": "nimmt", "protocol": P.PROTOCOL_VERSION,
                             "websocket": "/ws", "schema": "/protocol.json",
                             "tables": len(hub.tables)})

    async def lobby(request: Request) -> JSONResponse:
        return JSONResponse({"tables": [t.model_dump() for t in hub.lobby()]})

    async def table(request: Request) -> JSONResponse:
        actor = hub.tables.get(str(request.path_params["code"]).upper())
        if actor is None:
            return JSONResponse({"error": "no open table has that code"}, status_code=404)
        return JSONResponse(actor.info())

    async def game(request: Request) -> JSONResponse:
        try:
            game_id = int(request.path_params["game_id"])
        except ValueError:
            return JSONResponse({"error": "a game id is a number"}, status_code=400)
        data = await hub.game(game_id)
        if data is None:
            return JSONResponse({"error": f"no game {game_id}"}, status_code=404)
        return JSONResponse(data)

    async def player(request: Request) -> JSONResponse:
        name = request.path_params["name"]
        data = await hub.player(name)
        if data is None:
            return JSONResponse({"error": f"no player named {name!r}"}, status_code=404)
        return JSONResponse(data)

    app = Starlette(
        routes=[
            Route("/", index),
            Route("/api", about),
            Route("/protocol.json", schema),
            Route("/api/tables", lobby),
            Route("/api/tables/{code}", table),
            Route("/api/games/{game_id}", game),
            Route("/api/players/{name}", player),
            WebSocketRoute("/ws", ws_endpoint),
            # The web client: its pages under /play/ and its speech endpoints.
            *web_routes(hub),
        ],
        lifespan=lifespan,
    )
    app.state.hub = hub
    return app
