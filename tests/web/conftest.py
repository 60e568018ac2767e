"""Fixtures of the browser tests: a real ``nimmt serve`` and Debian's Chromium.

The server runs as a subprocess on a free loopback port with a SQLite file in a
temporary folder; the browser is ``/usr/bin/chromium`` driven by Playwright
(Playwright cannot download its own browsers on this machine; ``scripts/setup``
installs Chromium). Every page records what its live regions say in
``window.__ann`` as ``[politeness, text]`` pairs, with a MutationObserver (and
when, in ``window.__annAt``).
``new_page(pace=...)`` sets how long the page waits for a message to be spoken
before the next (short by default, so games run fast).
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("playwright.sync_api")

CHROMIUM = os.environ.get("NIMMT_CHROMIUM", "/usr/bin/chromium")
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync"]

#: ``new_page(width=, height=, lang=)``: a page of the client in a fresh browser context.
NewPage = Callable[..., Any]

RECORDER = """
window.__ann = [];
window.__annAt = [];
// Where focus was as each message was written (null: lost, on the page's body).
window.__annFocus = [];
document.addEventListener("DOMContentLoaded", () => {
  for (const id of ["live-polite", "live-assertive", "dlg-live-polite", "dlg-live-assertive"]) {
    const region = document.getElementById(id);
    new MutationObserver((muts) => {
      for (const m of muts) for (const n of m.addedNodes) {
        window.__ann.push([region.getAttribute("aria-live"), n.textContent]);
        window.__annAt.push(performance.now());
        const el = document.activeElement;
        window.__annFocus.push(
          el && el !== document.body ? (el.id || el.getAttribute("role") || el.tagName) : null);
      }
    }).observe(region, {childList: true});
  }
});
"""


def _nimmt() -> list[str]:
    exe = Path(sys.executable).parent / "nimmt"
    if exe.exists():
        return [str(exe)]
    return [sys.executable, "-c", "from nimmt.cli import main; main()"]


def _serve(data: Path, env: dict[str, str], nimmt: list[str] | None = None) -> Iterator[str]:
    """``nimmt serve`` on a free loopback port with a SQLite file in ``data``, with
    ``env``; yields its address and stops it. ``nimmt``: the command that runs nimmt."""
    if not Path(CHROMIUM).exists():
        pytest.fail(f"{CHROMIUM} is missing: run scripts/setup (it installs chromium)")
    proc = subprocess.Popen(
        [*(nimmt or _nimmt()), "serve", "--port", "0", "--db",
         f"sqlite+aiosqlite:///{data / 'nimmt.db'}", "--data-dir", str(data)],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env,
    )
    assert proc.stdout is not None
    url = None
    deadline = time.monotonic() + 60
    lines = []
    while time.monotonic() < deadline:
        line = proc.stdout.readline()
        if not line:
            break
        lines.append(line)
        m = re.search(r"open (http://127\.0\.0\.1:\d+)/", line)
        if m:
            url = m.group(1)
            break
    if url is None:
        proc.kill()
        pytest.fail("nimmt serve did not start:\n" + "".join(lines))
    try:
        yield url
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()


#: Every test's browser is a new player from 127.0.0.1: more than the default quota of new
#: names per address and minute allows, and more unstarted tables at once.
QUOTAS = {"NIMMT_NAMES_PER_MINUTE": "1000", "NIMMT_TABLES_PER_ADDRESS": "1000",
          "NIMMT_RUNNING_PER_ADDRESS": "1000",
          "NIMMT_SEARCH_BOTS_PER_HOST": "1000", "NIMMT_SEARCH_BOTS_PER_ADDRESS": "10000",
          "NIMMT_RATE": "1000", "NIMMT_BURST": "1000", "NIMMT_PLAYER_RATE": "1000",
          "NIMMT_PLAYER_BURST": "1000", "NIMMT_ADDRESS_RATE": "10000",
          "NIMMT_ADDRESS_BURST": "10000"}


@pytest.fixture(scope="session")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """``http://127.0.0.1:PORT`` of a running ``nimmt serve`` at a test's pace: bots answer
    at once and do not wait after a reveal, timers get no listening time."""
    env = dict(os.environ, **QUOTAS, NIMMT_BOT_SECONDS="0.05", NIMMT_DISCONNECT_GRACE="30",
               NIMMT_REVEAL_PACE="0", NIMMT_ROUND_PAUSE="0", NIMMT_LISTEN_CPS="0",
               # A small search budget: the analyses in these tests take a second, not ten.
               NIMMT_ANALYSIS_ROLLOUTS="100")
    yield from _serve(tmp_path_factory.mktemp("web-server"), env)


@pytest.fixture(scope="session")
def default_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A ``nimmt serve`` at the pace a newcomer's server has (its defaults: the bots' time,
    the pause after a reveal, the timers' listening time); only the quotas of new names
    and tables are raised, as every test is a new player from one address."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("NIMMT_")}
    yield from _serve(tmp_path_factory.mktemp("web-default"), dict(env, **QUOTAS))


@pytest.fixture(scope="module")
def browser(pw: Any) -> Iterator[Any]:
    b = pw.chromium.launch(executable_path=CHROMIUM, args=ARGS)
    try:
        yield b
    finally:
        b.close()


def _pages(browser: Any, url: str, **options: Any) -> Iterator[NewPage]:
    """Pages of the server at ``url``; ``options`` go to every browser context (e.g.
    ``ignore_https_errors``)."""
    contexts = []
    #: Uncaught errors of the page's scripts: any one fails the test that made the page.
    errors: list[str] = []

    def make(width: int = 1280, height: int = 900, lang: str | None = None,
             dark: bool = False, pace: int | None = 5,
             ws: Callable[[Any], None] | None = None, motion: bool = False,
             touch: bool = False, script: str | None = None) -> Any:
        ctx = browser.new_context(viewport={"width": width, "height": height},
                                  reduced_motion="no-preference" if motion else "reduce",
                                  color_scheme="dark" if dark else "light",
                                  has_touch=touch, is_mobile=touch, **options)
        # Generous for a busy machine: a wait ends as soon as what it waits for happens.
        ctx.set_default_timeout(60_000)
        ctx.add_init_script(RECORDER)
        if script:
            ctx.add_init_script(script)
        if lang:
            ctx.add_init_script(f"localStorage.setItem('nimmt.lang', {lang!r});")
        if pace is not None:
            # How long the page lets a message be spoken (ms a character) before the next:
            # short, so games run at machine speed; None keeps the page's own default.
            ctx.add_init_script(f"localStorage.setItem('nimmt.pace', '{pace}');")
        if ws is not None:
            # Stand between the page and the server's WebSocket (``ws`` gets the route).
            ctx.route_web_socket("**/ws", ws)
        contexts.append(ctx)
        # Every page of the client in the context, a second tab or a popup too (not the
        # blank or error page of a browser, where the init scripts find no storage).
        ctx.on("page", lambda p: p.on("pageerror", lambda e: None if not p.url.startswith(
            "http") else errors.append(f"{p.url}: {e}")))
        page = ctx.new_page()
        page.goto(f"{url}/play/")
        page.wait_for_selector("body[data-ready='1']")
        return page

    yield make
    for ctx in contexts:
        ctx.close()
    assert not errors, "the page's scripts failed:\n" + "\n".join(errors)


@pytest.fixture
def new_page(browser: Any, server: str) -> Iterator[NewPage]:
    """Make pages in fresh browser contexts (each its own localStorage, like a new device):
    ``motion`` lets the page animate (reduced motion otherwise), ``touch`` makes it a
    phone's (touch events, a mobile viewport); ``script`` runs before the page's own."""
    yield from _pages(browser, server)


@pytest.fixture
def default_page(browser: Any, default_server: str) -> Iterator[NewPage]:
    """Pages of the server at its default pace (:func:`default_server`)."""
    yield from _pages(browser, default_server)
