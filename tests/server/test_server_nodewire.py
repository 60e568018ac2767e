"""Messages between the processes of a cluster: the seal, freshness, and the strict reading
of bodies (``nimmt.server.cluster.nodewire``). The real processes are in
test_server_cluster.py."""

from __future__ import annotations

import json
import logging
from typing import Any

import pytest

from nimmt.server.cluster.nodewire import (
    DROP_LOG_EVERY,
    Batch,
    Drops,
    Enter,
    Forward,
    Moved,
    NodeAnswer,
    NodeAsk,
    NodeRefused,
    Sealer,
    moved,
    parse_body,
)

KEY = b"k" * 64
CHANNEL = b"nimmt:node:3"


class Clock:
    """A clock the test moves."""

    def __init__(self) -> None:
        self.now = 1_800_000_000.0

    def __call__(self) -> float:
        return self.now


def pair(clock: Clock | None = None) -> tuple[Sealer, Sealer]:
    """A sender and a receiver sharing the key (and a clock)."""
    c = clock or Clock()
    return Sealer(KEY, 30.0, 1 << 20, c), Sealer(KEY, 30.0, 1 << 20, c)


ENTER: dict[str, Any] = {"k": "in", "t": "ABCDEF", "n": 2, "c": 5, "p": 1, "nm": "Ana",
                         "l": "en", "m": "join", "s": None, "r": 7}


def test_a_sealed_message_opens_once_on_its_channel() -> None:
    sender, receiver = pair()
    data = sender.seal(CHANNEL, json.dumps(ENTER).encode())
    assert json.loads(receiver.open(CHANNEL, data)) == ENTER
    with pytest.raises(NodeRefused, match="replayed"):
        receiver.open(CHANNEL, data)
    # The next message of the sender opens; an older one does not, though never seen.
    older = sender.seal(CHANNEL, b"{}")
    newer = sender.seal(CHANNEL, b"{}")
    assert receiver.open(CHANNEL, newer) == "{}"
    with pytest.raises(NodeRefused, match="replayed"):
        receiver.open(CHANNEL, older)


@pytest.mark.parametrize("forge", ["no seal", "wrong key", "other channel", "body changed",
                                   "seal cut", "empty", "not UTF-8"])
def test_a_forged_message_is_refused(forge: str) -> None:
    sender, receiver = pair()
    body = json.dumps(ENTER).encode()
    data = {
        "no seal": body,
        "wrong key": Sealer(b"x" * 64, 30.0, 1 << 20).seal(CHANNEL, body),
        "other channel": sender.seal(b"nimmt:node:4", body),
        "body changed": sender.seal(CHANNEL, body).replace(b'"p": 1', b'"p": 2'),
        "seal cut": sender.seal(CHANNEL, body)[10:],
        "empty": b"",
        "not UTF-8": b"\xff" * 200,
    }[forge]
    with pytest.raises(NodeRefused):
        receiver.open(CHANNEL, data)


def test_a_message_out_of_its_window_is_refused() -> None:
    clock = Clock()
    sender, receiver = pair(clock)
    stale = sender.seal(CHANNEL, b"{}")
    clock.now += 31
    with pytest.raises(NodeRefused, match="stamped 31 s ago"):
        receiver.open(CHANNEL, stale)
    # Stamped in the future past the window: refused too.
    clock.now -= 62
    ahead = sender.seal(CHANNEL, b"{}")
    clock.now += 62
    with pytest.raises(NodeRefused, match="stamped"):
        receiver.open(CHANNEL, ahead)
    fresh = sender.seal(CHANNEL, b"{}")
    assert receiver.open(CHANNEL, fresh) == "{}"


def test_forgotten_senders_stay_refused_by_age() -> None:
    clock = Clock()
    sender, receiver = pair(clock)
    first = sender.seal(CHANNEL, b"{}")
    receiver.open(CHANNEL, first)
    clock.now += 61
    receiver.forget()
    assert receiver._seen == {}
    with pytest.raises(NodeRefused, match="stamped"):
        receiver.open(CHANNEL, first)


def test_a_message_past_its_size_is_refused_before_its_seal_is_computed() -> None:
    sender = Sealer(KEY, 30.0, 1000)
    with pytest.raises(NodeRefused, match="larger than 1000 bytes"):
        sender.open(CHANNEL, b"0" * 1001)


def test_a_signed_value_is_read_back_only_under_its_name() -> None:
    sealer, other = pair()
    raw = sealer.sign("ABCDEF", '{"code":"ABCDEF"}').encode()
    assert other.unsign("ABCDEF", raw) == '{"code":"ABCDEF"}'
    with pytest.raises(NodeRefused):
        other.unsign("GHJKLM", raw)
    with pytest.raises(NodeRefused):
        other.unsign("ABCDEF", raw.replace(b"ABCDEF", b"ABCDEG"))
    with pytest.raises(NodeRefused):
        other.unsign("ABCDEF", b'{"code":"ABCDEF"}')


def test_each_kind_of_body_is_read() -> None:
    assert isinstance(parse_body(json.dumps(ENTER)), Enter)
    fwd = {**{k: v for k, v in ENTER.items() if k not in "msr"}, "k": "msg", "x": "{}"}
    assert isinstance(parse_body(json.dumps(fwd)), Forward)
    batch = parse_body('{"k":"b","e":[[5,"f","{}",3],[6,"l","ABCDEF",0]]}')
    assert isinstance(batch, Batch) and batch.e[1] == (6, "l", "ABCDEF", 0)
    ask = parse_body('{"k":"rq","t":"ABCDEF","n":2,"i":1,"q":{"what":"speech","player":3,'
                     '"lang":"cs","after":-5,"upto":null}}')
    assert isinstance(ask, NodeAsk) and ask.q.lang == "cs"
    assert isinstance(parse_body('{"k":"rs","i":1,"a":null}'), NodeAnswer)
    # A table taken over by process 3, and one a draining process let go (to none yet).
    for node in (3, 0):
        body = parse_body(moved("ABCDEF", node))
        assert isinstance(body, Moved) and (body.t, body.n) == ("ABCDEF", node)


MALFORMED: dict[str, str] = {
    "not an object": "[1, 2]",
    "not JSON": "{",
    "unknown kind": '{"k": "zz"}',
    "no kind": '{"t": "ABCDEF"}',
    "player as a string": json.dumps({**ENTER, "p": "1"}),
    "player 0": json.dumps({**ENTER, "p": 0}),
    "player past the ids": json.dumps({**ENTER, "p": 2**31}),
    "connection past its bits": json.dumps({**ENTER, "c": 1 << 40}),
    "node 0": json.dumps({**ENTER, "n": 0}),
    "a float for an int": json.dumps({**ENTER, "c": 5.0}),
    "a bool for an int": json.dumps({**ENTER, "c": True}),
    "unknown mode": json.dumps({**ENTER, "m": "sit"}),
    "unknown language": json.dumps({**ENTER, "l": "xx"}),
    "long name": json.dumps({**ENTER, "nm": "A" * 65}),
    "long code": json.dumps({**ENTER, "t": "A" * 17}),
    "an extra field": json.dumps({**ENTER, "admin": True}),
    "a field missing": json.dumps({k: v for k, v in ENTER.items() if k != "p"}),
    "deep nesting": json.dumps(ENTER)[:-1] + ', "r": ' + "[" * 100 + "]" * 100 + "}",
    "nesting past the parser's limit": "[" * 100_000 + "]" * 100_000,
    "a long number": '{"k": "rs", "i": ' + "9" * 5000 + ', "a": null}',
    "NaN": '{"k": "rs", "i": NaN, "a": null}',
    "a lone surrogate": '{"k": "rs", "i": 1, "a": "\\ud800"}',
    "an empty batch": '{"k": "b", "e": []}',
    "moved to a process past the ids": json.dumps({"k": "mv", "t": "ABCDEF", "n": 1 << 22}),
    "moved to a negative process": json.dumps({"k": "mv", "t": "ABCDEF", "n": -1}),
    "a batch entry short": '{"k": "b", "e": [[5, "f", "{}"]]}',
    "a batch entry of unknown kind": '{"k": "b", "e": [[5, "x", "{}", 0]]}',
    "a negative seq": '{"k": "b", "e": [[5, "f", "{}", -1]]}',
    "a read of an unknown kind": '{"k":"rq","t":"ABCDEF","n":2,"i":1,"q":{"what":"log"}}',
    "a read past the stream's range": '{"k":"rq","t":"ABCDEF","n":2,"i":1,'
                                      '"q":{"what":"info","after":' + str(2**60) + "}}",
}


@pytest.mark.parametrize("name", list(MALFORMED))
def test_a_malformed_body_is_refused_with_a_reason(name: str) -> None:
    with pytest.raises(NodeRefused) as refused:
        parse_body(MALFORMED[name])
    assert refused.value.reason.startswith("malformed")


def test_drops_are_logged_at_most_every_few_seconds(caplog: pytest.LogCaptureFixture,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    now = [1000.0]
    monkeypatch.setattr("nimmt.server.cluster.nodewire.time.monotonic", lambda: now[0])
    drops = Drops()
    with caplog.at_level(logging.WARNING, logger="nimmt.server"):
        for _ in range(1000):
            drops.drop("bad seal")
        now[0] += DROP_LOG_EVERY / 2
        drops.flush()
        now[0] += DROP_LOG_EVERY
        drops.drop("malformed: p: Input should be a valid integer")
    lines = [r.getMessage() for r in caplog.records]
    assert len(lines) == 2 and drops.total == 1001
    assert "dropped 1 message" in lines[0]
    assert "999 bad seal, 1 malformed" in lines[1]
