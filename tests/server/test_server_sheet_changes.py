"""An ``events`` frame's sheet and view hold what changed; merged, they are the whole ones.

A ``table_state`` carries the sheet whole and an ``events`` frame only the fields that
changed since the last sheet its connection was sent (:func:`~nimmt.wire.
sheet_change`). Here whole games of several variants are played through the real
reducer and fan-out, to connections in several languages per seat (one of them coming
mid-game, one coming back with a catch-up) that parse every frame as a client does
and merge each change (each frame, its items' text set in once per broadcast, is the
text its parsed model gives): after every frame, each one's sheet is the one made afresh for
its seat and language, and the one ``/api/speech`` gives. Then over a real server, the
Python client's merged sheet at the end of a game is the one ``/api/speech`` gives.
"""

from __future__ import annotations

import asyncio
import json
import random
import urllib.request
from dataclasses import dataclass, field
from typing import Any

import pytest
from server_helpers import close_all, play_out, seat_table

from nimmt import Rules
from nimmt import wire as P
from nimmt.client import Client
from nimmt.decisions import DecisionKind
from nimmt.narrate import narrator
from nimmt.server.tables.commands import (
    Attach,
    Broadcast,
    Create,
    Effect,
    Message,
    SendMissed,
    SendPresence,
    SendState,
    Who,
)
from nimmt.server.tables.fanout import Fanout
from nimmt.server.tables.reducer import reduce
from nimmt.server.tables.state import Limits, TableData
from nimmt.web.speech import sheet as speech_sheet
from nimmt.wire import Sheet, merge_sheet, sheet_payload

pytestmark = pytest.mark.timeout(600)

RULES = [
    Rules.parse("classic", players=4, end="rounds", rounds=2),
    Rules.parse("classic", players=10, end="rounds", rounds=1),
    Rules.parse("category5+tactics", players=3, end="rounds", rounds=2),
    Rules.parse("classic+logic", players=3, end="rounds", rounds=1),
    Rules.parse("category5+open-hands+professional", players=4, end="rounds", rounds=1),
    Rules.parse("classic+open+jokers", players=4, end="rounds", rounds=1),
]


@dataclass
class Reader:
    """A connection that reads its frames as a client does: parsed, the sheet merged."""

    id: int
    player_id: int
    name: str
    lang: str
    viewer: int | None = None
    seq: int = 0
    #: What the server last sent this connection (the fan-out keeps it).
    sheet: Sheet | None = None
    #: What the client holds: the table_state's sheet with every change merged in.
    held: Sheet | None = None
    #: And the table_state's view with every change merged in.
    view: P.ViewPayload | None = None
    changes: int = 0
    partial: int = 0
    #: Views that came as a change leaving fields out.
    partial_views: int = 0
    #: Changes that brought a reveal's turn alone (``revealed_added``).
    turns_added: int = 0
    frames: list[P.ServerMessage] = field(default_factory=list)
    text: str = ""

    def send(self, text: str) -> None:
        self.text = text
        msg = P.parse_server(text)
        self.frames.append(msg)
        if isinstance(msg, P.TableState):
            self.held = msg.sheet
            self.view = msg.view
        elif isinstance(msg, P.Events):
            # Its items' text was made once for the broadcast and set into the frame: the
            # frame is the text its model gives, to the byte.
            assert P.dump(msg) == text
        if isinstance(msg, P.Events) and msg.view is not None:
            self.view = P.merge_view(self.view, msg.view)
            self.partial_views += len(msg.view.model_fields_set) < len(P.ViewPayload.model_fields)
            if "revealed_added" in msg.view.model_fields_set:
                assert "revealed" not in msg.view.model_fields_set
                self.turns_added += 1
        if isinstance(msg, P.Events) and msg.sheet is not None:
            self.held = merge_sheet(self.held, msg.sheet)
            self.changes += 1
            self.partial += len(msg.sheet.model_fields_set) < len(Sheet.model_fields)


def decision(kind: DecisionKind, value: int) -> P.DecisionMessage:
    if kind is DecisionKind.CARD:
        return P.PlayCard(type="play_card", card=value)
    if kind is DecisionKind.ROW:
        return P.TakeRow(type="take_row", row=value)
    return P.DraftCard(type="draft_card", card=value)


@pytest.mark.parametrize("rules", RULES, ids=lambda r: f"{r.name}-{r.players}")
def test_merged_changes_are_the_whole_sheet_after_every_frame(rules: Rules) -> None:
    table = TableData(1, "ABCDEF", "test", 1, rules, None, False, False, Limits())
    readers: dict[int, Reader] = {}
    fanout = Fanout(table, readers)
    conns = iter(range(1, 10_000))
    rng = random.Random(rules.players)

    def connect(player_id: int, lang: str) -> Who:
        who = Who(next(conns), player_id, f"P{player_id}")
        readers[who.conn] = Reader(who.conn, player_id, who.name, lang)
        return who

    def run(command: object) -> None:
        _, effects = reduce(table, command, 1000.0)  # type: ignore[arg-type]
        for effect in effects:
            if isinstance(effect, SendState | SendPresence | SendMissed):
                fanout.flush(1000.0)  # as the table does: what is held goes first
            apply(effect)
        fanout.flush(1000.0)  # the table's queue is empty: the broadcasts held go
        check()

    def seen_as(audience: tuple[tuple[int, int | None], ...]) -> None:
        for conn, viewer in audience:
            readers[conn].viewer = viewer

    def apply(effect: Effect) -> None:
        match effect:
            case Broadcast(after, state, audience):
                seen_as(audience)
                fanout.broadcast(after, state, audience, 1000.0)
            case SendPresence(audience):
                seen_as(audience)
                fanout.presence(audience, 1000.0)
            case SendState(conn, viewer, ref):
                seen_as(((conn, viewer),))
                fanout.send_state(conn, viewer, ref, 1000.0)
            case SendMissed(conn, viewer, after):
                seen_as(((conn, viewer),))
                fanout.catch_up(conn, viewer, after, 1000.0, 300, 1 << 20)

    def check() -> None:
        game = table.logged.game
        if game is None:
            return
        for reader in readers.values():
            if reader.held is None:
                continue
            view = game.view(reader.viewer)
            names = table.logged.names(reader.lang)
            fresh = sheet_payload(view, names, reader.lang)
            assert reader.held == fresh, (reader.id, reader.viewer, reader.lang)
            # The view merged from its changes is the one made afresh.
            assert reader.view == P.view_payload(view), (reader.id, reader.viewer)
            assert reader.held.model_dump() == speech_sheet(
                narrator(reader.lang), view, names, reader.viewer, rules,
                fanout.presence_of())

    langs = ("en", "sr", "cs")
    people = [connect(p, langs[p % 3]) for p in range(1, rules.players + 1)]
    run(Create(people[0], None))
    for who in people[1:]:
        run(Attach(who, None, False, None))
        run(Message(who, P.Sit(type="sit")))
    # A second connection of the first seat, in another language, and a spectator.
    run(Attach(connect(1, "sr"), None, False, None))
    run(Attach(connect(100, "cs"), None, True, None))
    run(Message(people[0], P.Start(type="start"), seed=5))
    decisions = 0
    while table.logged.status == "playing":
        game = table.logged.game
        assert game is not None and game.pending is not None
        seat = next(s for s in game.pending.players if game.legal(s))
        options = game.legal(seat)
        run(Message(people[seat], decision(game.pending.kind, rng.choice(options))))
        decisions += 1
        if decisions == 3:
            # Someone comes mid-game, as the first seat, in Serbian like its other two
            # connections, and a third time in English.
            run(Attach(connect(1, "sr"), None, False, None))
            run(Attach(connect(1, "en"), None, False, None))
        if decisions == 5:
            # A spectator coming back with a catch-up: its frame holds the sheet whole.
            run(Attach(connect(101, "en"), None, True, 2))
    assert table.logged.status == "over" and decisions > 10
    changes = sum(r.changes for r in readers.values())
    partial = sum(r.partial for r in readers.values())
    # Most frames leave out what did not change (the rows, the timer, the rules...).
    assert changes > 50 and partial > changes // 2, (changes, partial)
    # And of the view: the rules, the rows, the hand... go only when they change.
    views = sum(r.partial_views for r in readers.values())
    assert views > changes // 2, (changes, views)
    # A reveal sends its turn alone (after the round's first), and the merged view is
    # still the fresh one (check() above).
    assert sum(r.turns_added for r in readers.values()) >= len(readers), readers
    # The first seat's three Serbian connections were sent equal sheets: they share frames.
    alike = [r for r in readers.values() if r.player_id == 1 and r.lang == "sr"]
    assert len(alike) == 3 and all(r.text is alike[0].text for r in alike)
    catching = next(r for r in readers.values() if r.player_id == 101)
    first = next(f for f in catching.frames if isinstance(f, P.Events) and f.sheet is not None)
    assert first.sheet is not None
    assert first.sheet.model_fields_set == set(Sheet.model_fields)


def test_a_change_has_the_sheets_fields_each_optional() -> None:
    """:class:`SheetChange` is :class:`Sheet` with every field optional: the same names in
    the same order, each the sheet's type or left out, described by the sheet's text."""
    from pydantic import MISSING

    from nimmt.wire import SheetChange

    whole, change = Sheet.model_fields, SheetChange.model_fields
    assert list(change) == list(whole)
    for name, f in whole.items():
        assert change[name].annotation == (f.annotation | MISSING), name
        assert change[name].default is MISSING and change[name].description == f.description


def test_a_change_without_a_sheet_to_merge_into_is_refused() -> None:
    change = P.parse_server(json.dumps({"type": "events", "seq": 1, "items": [],
                                        "view": None, "sheet": {"chosen": "x"}}))
    assert isinstance(change, P.Events) and change.sheet is not None
    with pytest.raises(ValueError, match="lacks"):
        merge_sheet(None, change.sheet)


def speech(url: str, code: str, token: str, lang: str) -> dict[str, Any]:
    req = urllib.request.Request(f"{url}/api/speech/{code}?lang={lang}",
                                 headers={"X-Nimmt-Token": token})
    with urllib.request.urlopen(req, timeout=30) as resp:
        data: dict[str, Any] = json.loads(resp.read())
    return data


@pytest.mark.asyncio
async def test_the_client_merges_to_the_sheet_the_server_speaks(server: str) -> None:
    """Over a real server: a game played to its end by two people and a bot, watched by a
    spectator who hears Serbian; each client's merged sheet is what ``/api/speech`` says
    for its seat and language."""
    clients, code = await seat_table(server, {"preset": "classic", "players": 3, "end": "rounds",
                                              "rounds": 1}, 2, ["easy"], prefix="Sh")
    watcher = await Client.connect(server, name="ShWatch", lang="sr")
    clients.append(watcher)
    try:
        await watcher.spectate(code)
        await play_out(clients, seed=3)
        for client in clients:
            assert client.sheet is not None and client.token is not None
            got = await asyncio.to_thread(speech, server, code, client.token, client.lang)
            assert client.sheet.model_dump(mode="json") == got["sheet"], client.name
        assert watcher.sheet is not None and watcher.sheet.rows.startswith("Skup 1")
    finally:
        await close_all(clients)
