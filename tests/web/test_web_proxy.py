"""A game in the browser through docs/deploy.md's nginx with TLS (tests/deploy_helpers.py):
the pages over ``https://``, the WebSocket over ``wss://``, the server's origin check
letting the room's own page in because nginx passes on the Host the browser asked for."""

from __future__ import annotations

import os
from collections.abc import Iterator
from typing import Any

import pytest

from deploy_helpers import Proxy, doc_env, nginx_proxy

from .conftest import QUOTAS, NewPage, _pages, _serve
from .helpers import create_table, fresh_name, play_by_keyboard, set_name


@pytest.fixture(scope="module")
def proxied(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Proxy]:
    """nginx (``https://127.0.0.1:PORT``) in front of a ``nimmt serve`` with the document's
    settings (and the browser tests' quotas and pace)."""
    data = tmp_path_factory.mktemp("web-proxy")
    settings = doc_env({"NIMMT_DATA_DIR": str(data)})
    # The test machine's own numba cache, which is warm.
    del settings["NUMBA_CACHE_DIR"]
    env = dict(os.environ, **QUOTAS, **settings, NIMMT_BOT_SECONDS="0.05",
               NIMMT_REVEAL_PACE="0", NIMMT_ROUND_PAUSE="0", NIMMT_LISTEN_CPS="0")
    for url in _serve(data, env):
        with nginx_proxy(url) as proxy:
            yield proxy


@pytest.fixture
def proxied_page(browser: Any, proxied: Proxy) -> Iterator[NewPage]:
    """Pages of the room through the proxy; its certificate is the test's own, which
    Chromium is told to accept."""
    yield from _pages(browser, proxied.url, ignore_https_errors=True)


#: Each WebSocket address the page opens, in ``window.__sockets``.
SOCKETS = """
window.__sockets = [];
const Native = window.WebSocket;
window.WebSocket = class extends Native {
  constructor(...args) { super(...args); window.__sockets.push(this.url); }
};
"""


def test_a_game_through_the_tls_proxy(proxied_page: NewPage, proxied: Proxy) -> None:
    page = proxied_page(script=SOCKETS)
    assert page.url == f"{proxied.url}/play/"
    set_name(page, fresh_name("Tls"))
    create_table(page, players=3, rounds=1, bots=2)
    steps = play_by_keyboard(page)
    assert steps and steps[0]["kind"] == "card"
    sockets = page.evaluate("window.__sockets")
    assert sockets and all(u == f"wss{proxied.url[5:]}/ws" for u in sockets), sockets
