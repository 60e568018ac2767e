"""The synchronous client against a real server: requests, a dropped socket, views."""

from __future__ import annotations

import pytest

from nimmt.client_sync import ServerError, ServerUnreachable, Status, SyncClient
from nimmt.views import View

from .tui_helpers import Server


def test_a_game_with_a_drop_in_the_middle(server: Server) -> None:
    with SyncClient.connect(server.url, name="Sync") as me:
        state = me.create_table(rules={"preset": "classic", "players": 2, "end": "rounds",
                                       "rounds": 1})
        assert state.you == 0 and me.code == state.table.code
        me.add_bot("easy")
        me.start()
        statuses: list[str] = []
        answered: set[str] = set()
        dropped = False
        while not me.game_over:
            msg = me.next(10)
            if isinstance(msg, Status):
                statuses.append(msg.state)
            prompt = me.prompt
            if prompt is None or prompt.key in answered:
                continue
            view = me.view()
            assert isinstance(view, View) and view.player == 0
            if view.pending is None or view.pending.kind.value != prompt.kind:
                continue
            assert set(prompt.options) == set(view.options)
            try:
                me.answer(min(prompt.options), prompt.kind)
            except ServerError as exc:
                assert exc.code == "not_your_turn"
                continue
            except ConnectionError:
                continue
            answered.add(prompt.key)
            if len(answered) == 3 and not dropped:
                dropped = True
                me.drop()
        assert statuses[:3] == ["lost", "retrying", "back"]
        final = me.view()
        assert final is not None and final.phase.value == "over"
        assert sum(final.scores) > 0


def test_refusals_and_no_server(server: Server) -> None:
    with pytest.raises(ServerUnreachable):
        SyncClient.connect("http://127.0.0.1:9", name="Nobody", timeout=3)
    with SyncClient.connect(server.url, name="Refused") as me:
        with pytest.raises(ServerError) as info:
            me.join("ZZZZZZ")
        assert info.value.code == "no_table"
    with pytest.raises(ServerError) as info:
        SyncClient.connect(server.url, name="Refused")
    assert info.value.code == "name_taken"
