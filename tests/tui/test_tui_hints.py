"""The hint key of the terminal client: locally the expert's advice from the player's own
view, at a server the server's hint, each said as one line."""

from __future__ import annotations

import time
import zlib
from pathlib import Path

import pytest

from nimmt.narrate import narrator
from nimmt.rules import Rules
from nimmt.sim.advice import advise
from nimmt.tui.commands import Interpreter
from nimmt.tui.local import LocalSession
from nimmt.tui.remote import RemoteSession, RemoteTarget, TokenStore
from nimmt.tui.session import InputRefused

from .tui_helpers import Server

#: A hint's first words ("Play {card}…") are the same in every sentence a card hint says.
PLAY = "Play {card}: it is the only card you can play."


def test_a_local_hint_is_the_advice_from_the_players_view() -> None:
    session = LocalSession(Rules.parse("classic", players=3), ["easy"] * 2, seed=5, lang="cs")
    session.open()
    game = session.game
    ask = session.snapshot.ask
    assert game is not None and ask is not None
    expected = advise(game.view(0), seed=zlib.crc32(f"5:{ask.key}".encode()))
    line = Interpreter(session).line("h")
    assert line.say == narrator("cs").advice_sentence(expected) and not line.urgent
    assert "\n" not in line.say
    assert expected.best in ask.options
    # /hint works whatever the keymap; ? is the help.
    assert Interpreter(session).line("/hint").say == line.say
    assert Interpreter(session).line("?").say.startswith(session.labels("help.title"))
    # Nothing asked (the game over): one sentence says so.
    while session.snapshot.ask is not None:
        session.answer(session.snapshot.ask.options[0])
    refused = Interpreter(session).line("h")
    assert refused.urgent and refused.say == session.labels("nothing_asked")


@pytest.mark.timeout(600)
def test_a_hint_at_a_server_and_the_hosts_switch(server: Server, tmp_path: Path) -> None:
    session = RemoteSession(
        RemoteTarget(server.url), name="Hana", lang="sr", bots=["easy"],
        rules={"preset": "classic", "players": 2, "end": "rounds", "rounds": 1},
        tokens=TokenStore(tmp_path / "client.json"),
    )
    session.open()
    try:
        end = time.monotonic() + 60
        while session.snapshot.ask is None and time.monotonic() < end:
            session.pump(0.05)
        ask = session.snapshot.ask
        assert ask is not None
        client = session.client
        assert client is not None
        # The server's first hint starts its tutor's worker, a niced process: on a busy
        # machine that can take longer than the session waits. Asked here first, with time.
        client.request({"type": "hint"}, want="hint", timeout=240)
        text = session.hint()
        assert text.startswith(narrator("sr")._(PLAY).split("{")[0]), text
        assert any(str(card) in text for card in ask.options)
        client.act("set_hints", hints=False)
        with pytest.raises(InputRefused) as off:
            session.hint()
        assert str(off.value) == "Saveti su isključeni za ovim stolom."
    finally:
        session.close()
