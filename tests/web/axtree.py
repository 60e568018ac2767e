"""What reached the accessibility tree, not the DOM: a watcher of Chromium's own tree.

A screen reader hears a live region's text only if the browser's accessibility tree
had it: a paragraph added and removed before the browser updated its tree (in the same
task, or in the very next one) was in the DOM, so a ``MutationObserver`` counts it, but
no screen reader ever got it. :class:`TreeWatcher` asks Chromium for the text under the
live regions (CDP ``Accessibility.queryAXTree``) every few milliseconds, on a DevTools
connection of its own in a thread, while the test drives the page with Playwright: every
text it ever saw there is recorded with when.

The browser is started here with a DevTools port (:func:`chromium_with_port`), so that
the watcher's connection stands beside Playwright's (``connect_over_cdp``).
"""

from __future__ import annotations

import contextlib
import json
import re
import subprocess
import tempfile
import threading
import time
from collections.abc import Iterator
from typing import Any

from websockets.sync.client import connect

from .conftest import ARGS, CHROMIUM

#: The page's live regions (voice.js).
REGIONS = ("#live-polite", "#live-assertive", "#dlg-live-polite", "#dlg-live-assertive")
#: Seconds between two looks at the tree: far under the time a paragraph stays in its
#: region (voice.js keeps it 1.5 s at least).
EVERY = 0.03


@contextlib.contextmanager
def chromium_with_port(pw: Any) -> Iterator[tuple[Any, int]]:
    """Debian's Chromium with a DevTools port, and Playwright connected to it."""
    folder = tempfile.mkdtemp(prefix="nimmt-ax-")
    proc = subprocess.Popen(
        [CHROMIUM, "--headless=new", *ARGS, "--remote-debugging-port=0",
         f"--user-data-dir={folder}", "about:blank"],
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    try:
        assert proc.stderr is not None
        port = None
        deadline = time.monotonic() + 60
        while port is None and time.monotonic() < deadline:
            line = proc.stderr.readline()
            if not line:
                break
            m = re.search(r"DevTools listening on ws://[^:]+:(\d+)/", line)
            if m:
                port = int(m.group(1))
        assert port is not None, "Chromium did not open its DevTools port"
        # Chromium keeps writing to stderr: read it away, or it blocks when the pipe fills.
        threading.Thread(target=proc.stderr.read, daemon=True).start()
        browser = pw.chromium.connect_over_cdp(f"http://127.0.0.1:{port}")
        try:
            yield browser, port
        finally:
            browser.close()
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()


class TreeWatcher:
    """Records every text Chromium's accessibility tree held under the page's live regions
    (``seen``: text → first time, ``time.time()``). Use as a context manager."""

    def __init__(self, page: Any, port: int) -> None:
        self.page = page
        self.port = port
        self.seen: dict[str, float] = {}
        self.looks = 0
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._error: BaseException | None = None
        cdp = page.context.new_cdp_session(page)
        try:
            self.target = cdp.send("Target.getTargetInfo")["targetInfo"]["targetId"]
            doc = cdp.send("DOM.getDocument", {"depth": 0})["root"]["nodeId"]
            self.regions = []
            for selector in REGIONS:
                node = cdp.send("DOM.querySelector", {"nodeId": doc, "selector": selector})
                self.regions.append(cdp.send("DOM.describeNode", {"nodeId": node["nodeId"]})[
                    "node"]["backendNodeId"])
        finally:
            cdp.detach()

    def __enter__(self) -> TreeWatcher:
        self._thread = threading.Thread(target=self._watch, daemon=True)
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=30)
        if self._error is not None:
            raise self._error

    def _watch(self) -> None:
        try:
            url = f"ws://127.0.0.1:{self.port}/devtools/page/{self.target}"
            with connect(url, max_size=None, open_timeout=30) as ws:
                n = 0
                while not self._stop.is_set():
                    for region in self.regions:
                        n += 1
                        ws.send(json.dumps({"id": n, "method": "Accessibility.queryAXTree",
                                            "params": {"backendNodeId": region,
                                                       "role": "StaticText"}}))
                        while True:
                            msg = json.loads(ws.recv(timeout=30))
                            if msg.get("id") == n:
                                break
                        now = time.time()
                        for node in msg.get("result", {}).get("nodes", []):
                            text = " ".join(str(node.get("name", {}).get("value", "")).split())
                            if text:
                                self.seen.setdefault(text, now)
                    self.looks += 1
                    time.sleep(EVERY)
        except BaseException as e:  # reported by __exit__
            self._error = e

    def missing(self, texts: list[str]) -> list[str]:
        """The texts of ``texts`` the tree never held."""
        return [t for t in texts if " ".join(t.split()) not in self.seen]
