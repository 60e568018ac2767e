"""The HTTP API under bad input, and the security headers of every answer.

Every route answers 4xx to what a stranger can put in a URL (ids past 64 bits, NUL
bytes, bad UTF-8, surrogates, 5,000 digits, odd table codes, broken
percent-encodings), never 5xx, on SQLite and on PostgreSQL: a list of known cases,
then hypothesis throwing a few hundred generated paths, queries and headers at a
live server that has a table and a finished game to find. Every answer, error
pages included, carries the security headers (server/headers.py).
"""

from __future__ import annotations

import asyncio
import http.client
import json
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from server_helpers import play_out, seat_table
from starlette.routing import Route
from starlette.types import Message

from conftest import make_settings, module_db_url
from nimmt.server.edge.headers import SECURITY_HEADERS, HeaderedStarlette
from nimmt.server.run import running_server

pytestmark = [pytest.mark.timeout(300)]


def fetch(url: str, path: str, method: str = "GET",
          headers: dict[str, str] | None = None, timeout: float = 20,
          ) -> tuple[int, dict[str, str], bytes]:
    """One request with ``path`` sent exactly as given (no client-side normalizing)."""
    host, port = url.removeprefix("http://").rsplit(":", 1)
    conn = http.client.HTTPConnection(host, int(port), timeout=timeout)
    try:
        conn.putrequest(method, path, skip_accept_encoding=True)
        for k, v in (headers or {}).items():
            conn.putheader(k, v.encode("latin-1"))
        conn.endheaders()
        resp = conn.getresponse()
        body = resp.read()
        return resp.status, {k.lower(): v for k, v in resp.getheaders()}, body
    finally:
        conn.close()


@pytest.fixture(scope="module", params=["sqlite", "postgresql"])
def live(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
         ) -> Iterator[dict[str, Any]]:
    """A server in its own thread, with an open table and a finished game in its store."""
    tmp = tmp_path_factory.mktemp("http")
    db = module_db_url(request, tmp)
    box: dict[str, Any] = {}
    started = threading.Event()

    async def main() -> None:
        stop = asyncio.Event()
        box["loop"], box["stop"] = asyncio.get_running_loop(), stop
        async with running_server(make_settings(db, Path(tmp), names_per_minute=1000)) as url:
            rules = {"preset": "classic", "players": 2, "end": "rounds", "rounds": 1}
            clients, code = await seat_table(url, rules, humans=2, prefix="Http")
            await play_out(clients)
            box["played"] = code
            box["code"] = (await clients[0].create_table(rules=rules)).table.code
            box["player"] = clients[0].name
            box["url"] = url
            started.set()
            await stop.wait()
            for c in clients:
                await c.close()

    thread = threading.Thread(target=asyncio.run, args=(main(),), daemon=True)
    thread.start()
    assert started.wait(120), "the server did not start"
    yield box
    box["loop"].call_soon_threadsafe(box["stop"].set)
    thread.join(30)


KNOWN_BAD = [
    ("/api/games/99999999999999999999999", 404), ("/api/games/9223372036854775808", 404),
    ("/api/games/9223372036854775807", 404), ("/api/games/2147483648", 404),
    ("/api/games/2147483647", 404), ("/api/games/0", 404),
    ("/api/games/-1", 400), ("/api/games/" + "9" * 5000, 404), ("/api/games/1_0", 400),
    ("/api/games/%D9%A1", 400), ("/api/games/%00", 400), ("/api/games/1%00", 400),
    ("/api/games/99999999999999999999999/replay", 404),
    ("/api/games/" + "9" * 5000 + "/replay", 404), ("/api/games/1%00/replay", 400),
    ("/api/games/99999999999999999999999/analysis", 404), ("/api/games/-1/analysis", 400),
    ("/api/games/1%00/analysis", 400), ("/api/games/1/analysis?lang=%00", 400),
    ("/api/games/1/analysis?lang=" + "x" * 5000, 400),
    ("/api/players/%00x", 400), ("/api/players/x%00", 400), ("/api/players/%FF%FE", 404),
    ("/api/players/%ED%A0%80", 404), ("/api/players/" + "x" * 5000, 404),
    ("/api/players/%1B%5B31m", 400),
    ("/api/tables/%00", 404), ("/api/tables/" + "Z" * 5000, 404), ("/api/tables/A%20B", 404),
    ("/api/tables/%C3%9F", 404),
    ("/api/speech/%00", 404), ("/api/speech/ABCDEF?after=" + "9" * 5000, 404),
    ("/play/%00", 404), ("/play/" + "a" * 5000, 404), ("/play/..%2f..%2fetc%2fpasswd", 404),
    ("/play/%FF", 404), ("/play/i18n/%00.json", 404), ("/%00", 404), ("/api/%00", 404),
]


def test_known_bad_input_is_4xx(live: dict[str, Any]) -> None:
    url, code = live["url"], live["code"]
    for path, status in KNOWN_BAD:
        got, headers, body = fetch(url, path)
        assert got == status, (path[:80], got, body[:200])
        assert headers["x-content-type-options"] == "nosniff"
    # The open table's speech page checks its numbers too.
    for query in ("after=" + "9" * 5000, "upto=1e5", "after=%00", "after=%D9%A1", "upto=1_0"):
        got, _, body = fetch(url, f"/api/speech/{code}?{query}")
        assert got == 400, (query, body)
    got, _, _ = fetch(url, f"/api/speech/{code}?after=-{'9' * 30}&lang=%00")
    assert got == 200
    got, _, _ = fetch(url, "/api/games/1/replay?lang=%00%ED%A0%80")
    assert got == 200


def test_the_lobby_names_rules_in_the_readers_language(live: dict[str, Any]) -> None:
    url = live["url"]
    labels = {}
    for lang in ("en", "sr", "cs"):
        got, _, body = fetch(url, f"/api/tables?lang={lang}")
        assert got == 200, body
        (entry,) = [t for t in json.loads(body)["tables"] if t["code"] == live["code"]]
        assert entry["rules_name"] == "classic"
        labels[lang] = entry["rules_label"]
    assert labels == {"en": "Classic", "sr": "Klasična", "cs": "Klasická"}
    got, _, body = fetch(url, "/api/tables?lang=xx")
    assert got == 400 and b"no catalog" in body


def test_a_tables_games_are_found_by_its_code(live: dict[str, Any]) -> None:
    """A results page knows its table's code and game number: that finds the game's id."""
    url = live["url"]
    got, _, body = fetch(url, f"/api/tables/{live['played'].lower()}/games")
    assert got == 200, body
    data = json.loads(body)
    assert data["table"] == live["played"]
    (game,) = data["games"]
    assert game["game_no"] == 1 and game["finished"]
    got, _, body = fetch(url, f"/api/games/{game['id']}")
    assert got == 200 and json.loads(body)["table"] == live["played"]
    got, _, body = fetch(url, f"/api/tables/{live['code']}/games")  # open, nothing played
    assert got == 200 and json.loads(body)["games"] == []
    assert fetch(url, "/api/tables/NEVER1/games")[0] == 404


# -- fuzzing ---------------------------------------------------------------------------

TEMPLATES = ["/api/games/{}", "/api/games/{}/replay", "/api/games/{}/analysis",
             "/api/players/{}", "/api/tables/{}",
             "/api/speech/{}", "/play/{}", "/play/i18n/{}", "/{}", "/api/{}", "/api/games/1/{}",
             "/protocol.json{}", "/api/tables{}", "/api/tables/{}/games"]

# Strings a stranger may send: any code point (surrogates and NUL included), long ones,
# numbers past every range, and the odd bits of paths.
text = st.text(st.characters(codec=None, exclude_categories=()), max_size=60)
segments = st.one_of(
    text,
    st.text(st.sampled_from("\x00\ud800\udfff\ufffd%/.\\?#&=;:+ aZ09é\u202e\u3164"),
            max_size=30),
    st.integers(-(10**40), 10**40).map(str),
    st.integers(0, 2**70).map(str),
    st.sampled_from(["9" * 5000, "1" * 19, "9223372036854775807", "9223372036854775808",
                     "0", "-0", "00001", "1e5", "1_0", "\u0661\u0662", "..", "%", "."]),
    st.text(min_size=200, max_size=3000),
)


def encoded(raw: Any) -> str:
    """A segment as a URL carries it: UTF-8 (surrogates as their invalid UTF-8 bytes),
    percent-encoded; or raw bytes, percent-encoded."""
    data = raw if isinstance(raw, bytes) else raw.encode("utf-8", "surrogatepass")
    return quote(data, safe="")


# Some segments go as written, with broken percent-encodings and literal slashes.
loose = st.text(st.sampled_from("%0123456789abcdefABCDEFxyz/.-_~"), max_size=40)
path_parts = st.one_of(segments.map(encoded), st.binary(max_size=60).map(encoded), loose)
queries = st.one_of(
    st.just(""),
    st.lists(st.tuples(st.sampled_from(["lang", "after", "upto", "x", ""]), path_parts),
             max_size=4).map(lambda kv: "?" + "&".join(f"{k}={v}" for k, v in kv)),
)
tokens = st.text(st.characters(min_codepoint=0x20, max_codepoint=0xFF,
                               exclude_characters="\x7f"), max_size=200)


def test_fuzz_the_http_api(live: dict[str, Any]) -> None:
    """Hypothesis: no generated request makes the server answer 5xx (or fail to answer)."""
    url, code, player = live["url"], live["code"], live["player"]
    known = st.sampled_from([code, code.lower(), f" {code}", player, "1", "2"])
    statuses: list[int] = []

    @settings(max_examples=500, deadline=None,
              suppress_health_check=[HealthCheck.function_scoped_fixture,
                                     HealthCheck.too_slow, HealthCheck.data_too_large])
    @given(template=st.sampled_from(TEMPLATES), part=st.one_of(path_parts, known.map(encoded)),
           query=queries, method=st.sampled_from(["GET", "GET", "HEAD", "POST"]),
           token=st.none() | tokens)
    def probe(template: str, part: str, query: str, method: str, token: str | None) -> None:
        path = template.format(part) + query
        headers = {} if token is None else {"X-Nimmt-Token": token}
        status, got, body = fetch(url, path, method, headers)
        statuses.append(status)
        assert status < 500, (method, path[:200], status, body[:300])
        assert got.get("x-frame-options") == "DENY", (path[:200], status)

    probe()
    # It explored: hundreds of requests, answered by the routes' own checks and lookups.
    assert len(statuses) >= 500 and {200, 400, 404, 405} <= set(statuses), sorted(set(statuses))
    # And the server still serves.
    assert fetch(url, "/api")[0] == 200


# -- security headers -------------------------------------------------------------------

ROUTES = ["/", "/api", "/protocol.json", "/api/tables", "/api/tables/NOPE",
          "/api/tables/NOPE/games", "/api/games/1",
          "/api/games/x", "/api/games/1/replay", "/api/games/1/analysis",
          "/api/players/Nobody", "/api/speech/NOPE",
          "/play", "/play/", "/play/index.html", "/play/app.js", "/play/i18n.js",
          "/play/style.css", "/play/i18n/en.json", "/play/missing.js", "/missing"]


def test_security_headers_on_every_route(live: dict[str, Any]) -> None:
    url = live["url"]
    seen = set()
    for path in [*ROUTES, f"/api/tables/{live['code']}", f"/api/speech/{live['code']}",
                 f"/api/tables/{live['code']}/games",
                 f"/api/players/{live['player']}"]:
        for method in ("GET", "HEAD", "POST"):
            try:
                status, headers, _ = fetch(url, path, method, timeout=120)
            except TimeoutError:
                raise AssertionError(f"{method} {path}: no answer in 120 s") from None
            seen.add(status)
            for name, value in SECURITY_HEADERS.items():
                assert headers.get(name.lower()) == value, (method, path, status, name)
    assert {200, 307, 400, 404, 405} <= seen
    csp = SECURITY_HEADERS["Content-Security-Policy"]
    assert "'unsafe-inline'" not in csp and "script-src 'self'" in csp
    assert "frame-ancestors 'none'" in csp


def test_headers_reach_the_error_pages_of_a_crash() -> None:
    """A route that raises gets Starlette's 500 page: with the headers too, as the
    middleware wraps the whole stack (the server's own routes answer 4xx instead)."""

    async def boom(request: Any) -> Any:
        raise RuntimeError("boom")

    app = HeaderedStarlette(routes=[Route("/boom", boom)])
    sent: list[Message] = []

    async def receive() -> Message:
        return {"type": "http.request", "body": b"", "more_body": False}

    async def send(message: Message) -> None:
        sent.append(message)

    scope = {"type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1",
             "method": "GET", "scheme": "http", "path": "/boom", "raw_path": b"/boom",
             "root_path": "", "query_string": b"", "headers": [],
             "client": ("127.0.0.1", 1), "server": ("127.0.0.1", 80), "state": {}}
    # Starlette answers 500, then raises the error again for the server to log.
    with pytest.raises(RuntimeError, match="boom"):
        asyncio.run(app(scope, receive, send))  # type: ignore[arg-type]
    start = sent[0]
    assert start["type"] == "http.response.start" and start["status"] == 500
    headers = {k.decode(): v.decode() for k, v in start["headers"]}
    for name, value in SECURITY_HEADERS.items():
        assert headers[name.lower()] == value
