"""The WebDriver BiDi adapter's values (:mod:`.bidi`), without a browser: what Firefox
sends back is read as Playwright would give it, and what the harness passes is sent as
BiDi has it."""

from __future__ import annotations

import math

import pytest

from .bidi import FUNCTION, deserialize, serialize


def test_remote_values_nested_as_python_values() -> None:
    # As Firefox ESR 153 answered script.callFunction for
    # [1, 'a', null, undefined, {x: [1.5, NaN, -0]}, new Map([[1, 2]]), 12n, new Set([1])].
    remote = {"type": "array", "value": [
        {"type": "number", "value": 1}, {"type": "string", "value": "a"}, {"type": "null"},
        {"type": "undefined"},
        {"type": "object", "value": [["x", {"type": "array", "value": [
            {"type": "number", "value": 1.5}, {"type": "number", "value": "NaN"},
            {"type": "number", "value": "-0"}]}]]},
        {"type": "map", "value": [[{"type": "number", "value": 1},
                                   {"type": "number", "value": 2}]]},
        {"type": "bigint", "value": "12"},
        {"type": "set", "value": [{"type": "number", "value": 1}]}]}
    got = deserialize(remote)
    assert got[:4] == [1, "a", None, None]
    x = got[4]["x"]
    assert x[0] == 1.5 and math.isnan(x[1]) and x[2] == 0 and math.copysign(1, x[2]) < 0
    assert got[5:] == [{1: 2}, 12, [1]]
    assert deserialize({"type": "boolean", "value": False}) is False
    assert deserialize({"type": "number", "value": "-Infinity"}) == -math.inf
    assert deserialize({"type": "object", "value": [
        ["t", {"type": "number", "value": 1.25}],
        ["live", {"type": "string", "value": "polite"}]]}) == {"t": 1.25, "live": "polite"}
    assert deserialize({"type": "regexp", "value": {"pattern": "a", "flags": "g"}}) == "/a/g"
    # A node stays the remote value: the harness never asks for one.
    node = {"type": "node", "sharedId": "x", "value": {"nodeType": 1}}
    assert deserialize(node) == node


def test_arguments_as_local_values() -> None:
    assert serialize(None) == {"type": "null"}
    assert serialize(True) == {"type": "boolean", "value": True}
    assert serialize(59) == {"type": "number", "value": 59}
    assert serialize(-0.0) == {"type": "number", "value": "-0"}
    assert serialize(math.inf) == {"type": "number", "value": "Infinity"}
    assert serialize(["sr", {"n": 1}]) == {"type": "array", "value": [
        {"type": "string", "value": "sr"},
        {"type": "object", "value": [["n", {"type": "number", "value": 1}]]}]}
    with pytest.raises(TypeError):
        serialize(object())


@pytest.mark.parametrize(("expression", "function"), [
    ("() => document.title", True), ("s => document.querySelector(s)", True),
    ("(a, b) => a + b", True), ("async () => 1", True), ("function () { return 1; }", True),
    ("document.title", False), ("(1 + 2)", False), ("window.__live || []", False)])
def test_a_function_is_called_and_anything_else_evaluated(expression: str,
                                                          function: bool) -> None:
    assert bool(FUNCTION.match(expression)) is function
