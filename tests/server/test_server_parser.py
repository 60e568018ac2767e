"""Parser limits over a real WebSocket: deep, huge and odd frames get a code, not a drop.

Python's JSON parser recurses once per nesting level, turns a 5,000-digit literal
into an int in quadratic time (and gives up past 4,300 digits) and reads ``NaN``;
a frame 1,000 deep used to end the connection with a RecursionError. Each frame
here is refused with a code and a sentence, the table stays as it was, and the
same connection goes on to play its game to the end.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from server_helpers import close_all, error_for, play_out, seat_table, state_of

from conftest import make_settings
from nimmt.server.run import running_server
from nimmt.wire import Ack

pytestmark = [pytest.mark.asyncio, pytest.mark.timeout(300)]

RULES = {"preset": "classic", "players": 2, "end": "rounds", "rounds": 1}


def nested(depth: int, inner: str = "1") -> str:
    return "[" * depth + inner + "]" * depth


async def test_limits_refuse_and_the_connection_plays_on(db_url: str, tmp_path: Path) -> None:
    async with running_server(make_settings(db_url, tmp_path, names_per_minute=1000)) as url:
        clients, code = await seat_table(url, RULES, humans=2, prefix="Deep")
        ana, bob = clients
        await ana.expect(lambda m: ana.prompt is not None)
        before = await state_of(ana, code)
        cases: list[tuple[str | bytes, str, str]] = [
            (nested(1000), "bad_message", "nest at most 8 deep"),
            ("[" * 8000, "bad_message", "nest"),
            ('{"type": "play_card", "card": ' + nested(1000) + "}", "bad_message", "nest"),
            ('{"type": "chat", "text": "x", "a": ' + '{"b": ' * 500 + "1" + "}" * 500 + "}",
             "bad_message", "nest"),
            (b"[" * 7000, "bad_message", "nest"),
            ('{"type": "play_card", "card": ' + "9" * 5000 + "}", "bad_message", "digits"),
            ('{"type": "ping", "ref": ' + "1" * 4400 + "}", "bad_message", "digits"),
            ('{"type": "play_card", "card": 0.' + "5" * 300 + "}", "bad_message", "characters"),
            ('{"type": "play_card", "card": 1e999999}', "bad_message", "integer"),
            ('{"type": "play_card", "card": NaN}', "bad_json", "NaN"),
            ('{"type": "play_card", "card": -Infinity}', "bad_json", "Infinity"),
            ('{"type": "chat", "text": "\\ud800"}', "bad_message", "surrogate"),
            ('{"type": "chat", "text": "a\\udfffb"}', "bad_message", "surrogate"),
            # At the limit the depth is fine; the message is wrong for another reason.
            ('{"type": "ping", "x": ' + nested(7) + "}", "bad_message", "Extra inputs"),
        ]
        for frame, want, words in cases:
            err = await error_for(ana, frame)
            assert (err.code, words in err.message) == (want, True), (str(frame)[:60], err)
        # A frame refused for its depth still has its ref read back, when it is shallow
        # enough to read, so a client can match the refusal.
        err = await error_for(ana, '{"type": "ping", "ref": "deep", "x": ' + nested(12) + "}")
        assert err.code == "bad_message" and err.ref == "deep"
        # Brackets inside a string are text, not nesting; a paired surrogate is a character.
        ack = await ana.request({"type": "chat", "text": "[" * 200 + "{" * 100})
        assert isinstance(ack, Ack)
        await ana.send_raw('{"type": "chat", "text": "\\ud83d\\ude00", "ref": "emoji"}')
        assert isinstance(await ana.expect(lambda m: getattr(m, "ref", None) == "emoji"), Ack)
        # The table is as it was (two chat lines aside), and the same connections play on.
        after = await state_of(ana, code)
        assert after["view"] == before["view"] and after["seats"] == before["seats"]
        assert json.dumps(after["view"]) == json.dumps(before["view"])
        await play_out([ana, bob])
        assert all(c.game_over for c in clients)
        await close_all(clients)
