"""docs/deploy.md's room, run as written: ``nimmt serve`` with its settings behind nginx
with its site, TLS with a certificate made for the test (tests/deploy_helpers.py).

Games go through it over ``wss://``; the server counts each client by its own address
(the one nginx saw, passed in ``X-Forwarded-For`` and believed from the trusted proxy
alone), not the proxy's; a page of another site is refused; the answers keep the
server's headers and the proxy's HSTS, and the server's own redirects stay on https.
"""

from __future__ import annotations

import asyncio
import json
import os
import ssl
import subprocess
import urllib.error
import urllib.request
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio
from server_helpers import LIFTED_LIMITS, play_out, start_server
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import InvalidStatus
from websockets.typing import Origin

from deploy_helpers import Proxy, doc_env, nginx_proxy
from nimmt.client import Client, ws_url

pytestmark = [pytest.mark.asyncio, pytest.mark.timeout(300)]

#: Connections one client address may hold: small, so the test reaches it.
PER_ADDRESS = 2


@pytest_asyncio.fixture
async def room(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> AsyncIterator[Proxy]:
    """The room as the world sees it: the proxy (``https://127.0.0.1:PORT``) in front of
    a server with docs/deploy.md's settings. The test's TLS clients trust the proxy's
    certificate authority (``SSL_CERT_FILE``, which Python's default TLS context reads)."""
    settings = doc_env({"NIMMT_DATA_DIR": str(tmp_path / "data"),
                        # The test machine's own numba cache, which is warm.
                        "NUMBA_CACHE_DIR": os.environ.get("NUMBA_CACHE_DIR", "")})
    env = {**os.environ, **LIFTED_LIMITS, **settings,
           "NIMMT_CONNECTIONS_PER_ADDRESS": str(PER_ADDRESS)}
    if not env["NUMBA_CACHE_DIR"]:
        del env["NUMBA_CACHE_DIR"]
    # nimmt serve --port 0: a free port in place of the document's 8000.
    proc, url = await start_server([], env)
    try:
        with nginx_proxy(url) as proxy:
            monkeypatch.setenv("SSL_CERT_FILE", str(proxy.ca))
            yield proxy
    finally:
        proc.terminate()
        try:
            proc.wait(30)
        except subprocess.TimeoutExpired:
            proc.kill()


def tls(proxy: Proxy) -> ssl.SSLContext:
    return ssl.create_default_context(cafile=str(proxy.ca))


async def hello(proxy: Proxy, address: str, name: str, **options: Any
                ) -> tuple[ClientConnection, dict[str, Any]]:
    """A WebSocket through the proxy from ``address``, a ``hello``, and the first message
    the server sends back (``welcome``, or the error that refused the connection)."""
    ws = await connect(ws_url(proxy.url), ssl=tls(proxy), local_addr=(address, 0),
                       open_timeout=30, **options)
    await ws.send(json.dumps({"type": "hello", "name": name}))
    return ws, json.loads(await asyncio.wait_for(ws.recv(), 30))


async def test_a_game_through_the_tls_proxy(room: Proxy) -> None:
    assert room.url.startswith("https://")
    # Three players, each from an address of their own (the limit per address is 2).
    clients = [await Client.connect(room.url, name=f"Tls{i}", local_addr=(f"127.0.0.{i + 2}", 0))
               for i in range(3)]
    assert clients[0].ws.request is not None
    state = await clients[0].create_table(
        rules={"preset": "classic", "players": 3, "end": "rounds", "rounds": 1})
    code = state.table.code
    for c in clients[1:]:
        await c.join(code)
        await c.sit()
    await clients[0].start()
    await play_out(clients)
    assert all(c.game_over for c in clients)
    for c in clients:
        await c.close()


async def test_the_server_counts_each_client_not_the_proxy(room: Proxy) -> None:
    """Every connection reaches the server from nginx (127.0.0.1); the server counts
    them by the address nginx saw, and a client's own X-Forwarded-For changes nothing."""
    held = []
    for i in range(PER_ADDRESS):
        ws, first = await hello(room, "127.0.0.2", f"Two{i}")
        assert first["type"] == "welcome", first
        held.append(ws)
    # One more from the same address is refused, whatever address it claims ...
    ws, first = await hello(room, "127.0.0.2", "TwoMore",
                            additional_headers={"X-Forwarded-For": "203.0.113.9"})
    assert first["type"] == "error" and first["code"] == "too_many_connections", first
    await ws.close()
    # ... while another address has its own count: the proxy's address is not the one counted.
    for i in range(PER_ADDRESS):
        ws, first = await hello(room, "127.0.0.3", f"Three{i}")
        assert first["type"] == "welcome", first
        held.append(ws)
    for ws in held:
        await ws.close()


async def test_a_page_of_another_site_is_refused_through_the_proxy(room: Proxy) -> None:
    with pytest.raises(InvalidStatus) as refused:
        await connect(ws_url(room.url), ssl=tls(room), origin=Origin("https://evil.example"),
                      open_timeout=30)
    assert refused.value.response.status_code == 403
    # The room's own pages may: nginx passes the Host the browser asked for, port and all.
    ws, first = await hello(room, "127.0.0.4", "Own", origin=Origin(room.url))
    assert first["type"] == "welcome", first
    await ws.close()


def fetch(proxy: Proxy, path: str) -> tuple[int, dict[str, str]]:
    """The status and headers of ``path`` through the proxy, redirects not followed."""

    class Stay(urllib.request.HTTPRedirectHandler):
        def redirect_request(self, *args: Any) -> None:
            return None

    opener = urllib.request.build_opener(urllib.request.HTTPSHandler(context=tls(proxy)),
                                         Stay())
    try:
        with opener.open(proxy.url + path, timeout=30) as resp:
            return resp.status, {k.lower(): v for k, v in resp.headers.items()}
    except urllib.error.HTTPError as exc:
        return exc.code, {k.lower(): v for k, v in exc.headers.items()}


async def test_pages_keep_their_headers_and_redirects_stay_on_https(room: Proxy) -> None:
    status, headers = await asyncio.to_thread(fetch, room, "/play/")
    assert status == 200
    assert "frame-ancestors 'none'" in headers["content-security-policy"]
    assert headers["strict-transport-security"].startswith("max-age=")
    # The server makes this redirect's address from the request's scheme and Host: https
    # (X-Forwarded-Proto from the trusted proxy) and the port the client used.
    status, headers = await asyncio.to_thread(fetch, room, "/api/")
    assert status == 307
    assert headers["location"] == f"{room.url}/api"
