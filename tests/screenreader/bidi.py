"""A page looked into over WebDriver BiDi: Firefox ESR's side of the harness's eyes.

Playwright cannot drive Debian's Firefox (it needs its own patched build), but
Firefox serves the W3C's WebDriver BiDi protocol itself: started with
``--remote-debugging-port=PORT`` it listens on ``ws://127.0.0.1:PORT/session``
(and writes the port it chose to ``WebDriverBiDiServer.json`` in its profile).
:class:`BiDiPage` speaks it over the ``websockets`` package's sync client and
offers the four page methods the screen-reader harness uses of a Playwright
page (``evaluate``, ``wait_for_function``, ``wait_for_selector``,
``set_default_timeout``), with Playwright's meaning:

- ``session.new`` opens the session, ``browsingContext.getTree`` finds the
  tab showing the page, ``script.callFunction`` (a function and its argument)
  or ``script.evaluate`` (an expression) run the script with
  ``awaitPromise`` true, and :func:`deserialize` turns the BiDi *remote value*
  that comes back into a Python value;
- a wait polls its condition (every 0.1 s) until it holds, within the page's
  default timeout (or the one given), and raises :class:`TimeoutError`
  naming the condition otherwise.

As with the Playwright page of Chromium, the harness only *looks* through it:
every action on the page is a key pressed on the X server.
"""

from __future__ import annotations

import contextlib
import json
import math
import re
import time
from collections.abc import Callable
from typing import Any

from websockets.sync.client import connect

__all__ = ["BiDiError", "BiDiPage", "ScriptError", "deserialize", "serialize"]

#: An expression that is a function (Playwright calls it, with the argument, instead of
#: evaluating it): ``function …``, ``async …``, ``(a, b) => …``, ``a => …``.
FUNCTION = re.compile(r"^\s*(async\b|function\b|\([^()]*\)\s*=>|[A-Za-z_$][\w$]*\s*=>)")
#: Playwright's "visible": in the DOM, a non-empty box, and not ``visibility: hidden``.
VISIBLE = """s => {
  const el = document.querySelector(s);
  if (!el) return false;
  const box = el.getBoundingClientRect();
  return box.width > 0 && box.height > 0 && getComputedStyle(el).visibility !== 'hidden';
}"""
_NO_ARG = object()


class BiDiError(RuntimeError):
    """The browser answered a command with an error (``error``: its WebDriver error code)."""

    def __init__(self, method: str, error: str, message: str) -> None:
        super().__init__(f"{method}: {error}: {message}")
        self.error = error


class ScriptError(RuntimeError):
    """The page's script threw (the exception's text, as the page has it)."""


def serialize(value: Any) -> dict[str, Any]:
    """A Python value (None, bool, int, float, str, lists, tuples and dicts of them) as a
    BiDi *local value*, an argument of ``script.callFunction``."""
    if value is None:
        return {"type": "null"}
    if isinstance(value, bool):
        return {"type": "boolean", "value": value}
    if isinstance(value, int | float):
        number = float(value)
        if math.isnan(number):
            return {"type": "number", "value": "NaN"}
        if math.isinf(number):
            return {"type": "number", "value": "Infinity" if number > 0 else "-Infinity"}
        if number == 0 and math.copysign(1.0, number) < 0:
            return {"type": "number", "value": "-0"}
        return {"type": "number", "value": value}
    if isinstance(value, str):
        return {"type": "string", "value": value}
    if isinstance(value, list | tuple):
        return {"type": "array", "value": [serialize(v) for v in value]}
    if isinstance(value, dict):
        return {"type": "object", "value": [[str(k), serialize(v)] for k, v in value.items()]}
    raise TypeError(f"cannot pass {type(value).__name__} to the page")


_NUMBERS = {"NaN": math.nan, "-0": -0.0, "Infinity": math.inf, "-Infinity": -math.inf}


def deserialize(remote: dict[str, Any]) -> Any:
    """A BiDi *remote value* as a Python value: undefined and null as None; strings,
    booleans and numbers (NaN, -0 and the infinities too) as themselves, a bigint as an
    int; arrays and sets as lists, objects and maps as dicts (a key that is not a string
    deserialized in turn), nested to any depth; a date as its ISO text, a regular
    expression as ``/pattern/flags``. Anything else (a node, a window, a function) is
    kept as the remote value itself, as a dict: the harness never asks for one."""
    kind = remote.get("type")
    value: Any = remote.get("value")
    if kind in ("undefined", "null"):
        return None
    if kind in ("string", "boolean"):
        return value
    if kind == "number":
        return _NUMBERS.get(value, value) if isinstance(value, str) else value
    if kind == "bigint":
        return int(value)
    if kind in ("array", "set"):
        return [deserialize(v) for v in value or []]
    if kind in ("object", "map"):
        out: dict[Any, Any] = {}
        for key, item in value or []:
            if isinstance(key, dict):
                key = deserialize(key)
                with contextlib.suppress(TypeError):
                    hash(key)
                    out[key] = deserialize(item)
                    continue
                key = json.dumps(key)
            out[key] = deserialize(item)
        return out
    if kind == "date":
        return value
    if kind == "regexp":
        return f"/{value['pattern']}/{value.get('flags', '')}"
    return remote


class BiDiPage:
    """The top-level tab of a Firefox showing ``url`` (a prefix of its address), looked
    into over the WebDriver BiDi endpoint ``endpoint`` (``ws://127.0.0.1:PORT``)."""

    def __init__(self, endpoint: str, url: str, timeout: float = 90.0) -> None:
        self._timeout = timeout
        self._stack = contextlib.ExitStack()
        self._ws = self._stack.enter_context(connect(
            f"{endpoint}/session", proxy=None, max_size=None, open_timeout=timeout,
            ping_interval=None))
        self._id = 0
        self.context = ""
        try:
            self._send("session.new", {"capabilities": {}})
            self.context = self._find(url)
        except BaseException:
            self._stack.close()
            raise

    def _find(self, url: str) -> str:
        """The browsing context (tab) showing ``url``, once the browser has it."""
        found: list[str] = []

        def tab() -> bool:
            tree = self._send("browsingContext.getTree", {"maxDepth": 0})
            found[:] = [c["context"] for c in tree["contexts"] if c["url"].startswith(url)]
            return bool(found)

        self._poll(tab, f"a tab showing {url}")
        return found[0]

    # -- the protocol --------------------------------------------------------------------------

    def _send(self, method: str, params: dict[str, Any],
              timeout: float | None = None) -> dict[str, Any]:
        """Send one command and wait for its answer (events, never subscribed to, are
        passed over); its ``result``."""
        self._id += 1
        mine = self._id
        self._ws.send(json.dumps({"id": mine, "method": method, "params": params}))
        deadline = time.monotonic() + (self._timeout if timeout is None else timeout)
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError(f"{method}: no answer from the browser")
            message = json.loads(self._ws.recv(timeout=left))
            if message.get("id") != mine:
                continue
            if message.get("type") == "error":
                raise BiDiError(method, message.get("error", ""), message.get("message", ""))
            result: dict[str, Any] = message["result"]
            return result

    def _poll(self, ready: Callable[[], object], what: str, timeout: float | None = None,
              step: float = 0.1) -> Any:
        """Poll ``ready()`` every ``step`` seconds until it is truthy (its value), within
        ``timeout`` (the default one); a protocol error meanwhile (the page between two
        documents) is tried again."""
        deadline = time.monotonic() + (self._timeout if timeout is None else timeout)
        last: Exception | None = None
        while True:
            try:
                value = ready()
            except BiDiError as e:
                value, last = None, e
            if value:
                return value
            if time.monotonic() >= deadline:
                why = f" (last: {last})" if last else ""
                raise TimeoutError(f"waiting for {what} took more than "
                                   f"{self._timeout if timeout is None else timeout:.0f} s{why}")
            time.sleep(step)

    # -- Playwright's page methods that the harness uses --------------------------------------

    def set_default_timeout(self, timeout: float) -> None:
        """The bound of every wait and command, in milliseconds (as Playwright has it)."""
        self._timeout = timeout / 1000

    def evaluate(self, expression: str, arg: Any = _NO_ARG) -> Any:
        """Run ``expression`` in the page: a function is called (with ``arg`` if given),
        anything else evaluated; a promise is awaited. Its value, as Python."""
        common = {"target": {"context": self.context}, "awaitPromise": True,
                  "resultOwnership": "none", "serializationOptions": {"maxDomDepth": 0}}
        if FUNCTION.match(expression):
            args = [] if arg is _NO_ARG else [serialize(arg)]
            result = self._send("script.callFunction", {
                "functionDeclaration": expression, "arguments": args, **common})
        else:
            result = self._send("script.evaluate", {"expression": expression, **common})
        if result.get("type") == "exception":
            details = result.get("exceptionDetails", {})
            raise ScriptError(f"{details.get('text', 'the page threw')} "
                              f"(evaluating {expression[:80]!r})")
        return deserialize(result["result"])

    def wait_for_function(self, expression: str, arg: Any = _NO_ARG,
                          timeout: float | None = None) -> Any:
        """Wait until ``expression`` (called with ``arg``, as :meth:`evaluate`) is truthy;
        its value. ``timeout`` in milliseconds."""
        return self._poll(lambda: self.evaluate(expression, arg), repr(expression),
                          None if timeout is None else timeout / 1000)

    def wait_for_selector(self, selector: str, timeout: float | None = None) -> None:
        """Wait until an element matching ``selector`` is visible (Playwright's default
        state). ``timeout`` in milliseconds."""
        self._poll(lambda: self.evaluate(VISIBLE, selector), f"{selector} to show",
                   None if timeout is None else timeout / 1000)

    def close(self) -> None:
        """End the session (the browser stays; its owner stops it) and the connection."""
        try:
            with contextlib.suppress(Exception):
                self._send("session.end", {}, timeout=10)
        finally:
            self._stack.close()
