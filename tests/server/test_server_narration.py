"""The server's narration, prompts' timers and auto-play notices, over real sockets.

Each connection says its language in ``hello``; every ``events`` frame carries the
narration (``text``) of its game events in that language, for that seat, one entry
per resolution step. The first prompt of a turn shows the turn timer. When the
default player takes a seat over or gives it back, a fresh ``table_state`` and a
notice with a machine-readable reason and seat go out.
"""

from __future__ import annotations

import asyncio
import json
import random
import re
from pathlib import Path
from typing import Any

import pytest
from server_helpers import close_all, seat_table

from nimmt.client import Client, ServerError
from nimmt.events import event_from_dict
from nimmt.narrate import narrator
from nimmt.wire import (
    EventItem,
    Events,
    NoticeItem,
    Prompt,
    ServerMessage,
    TableState,
)

pytestmark = [pytest.mark.asyncio, pytest.mark.timeout(300)]

SHORT = {"preset": "classic", "players": 3, "end": "rounds", "rounds": 1}
STEP_STARTS = ("turn_started", "round_started", "round_scored", "game_over")


class Choices:
    """Who has chosen this turn's card, followed frame by frame as a client sees it: the
    others' choices are said together once only the viewer is still to choose."""

    def __init__(self, players: int) -> None:
        self.players = players
        self.chosen: set[int] = set()

    def follow(self, frame: dict[str, Any]) -> None:
        for item in frame["items"]:
            if item["kind"] != "event":
                continue
            kind = item["event"]["type"]
            if kind in ("cards_revealed", "turn_started", "round_started"):
                self.chosen.clear()
            elif kind == "card_chosen":
                self.chosen.add(item["event"]["player"])

    def others_done(self, viewer: int | None) -> bool:
        return (viewer is not None and viewer not in self.chosen
                and len(self.chosen) == self.players - 1)


def expected_text(frame: dict[str, Any], names: list[str], viewer: int | None,
                  lang: str, others_chosen: bool = False) -> list[str]:
    """The narration the frame's own (already filtered) events should get: one
    announcement per resolution step."""
    speak = narrator(lang)
    steps: list[list[Any]] = []
    for item in frame["items"]:
        if item["kind"] != "event":
            continue
        if not steps or item["event"]["type"] in STEP_STARTS:
            steps.append([])
        steps[-1].append(event_from_dict(item["event"]))
    return [t for t in (speak.announce(s, names, viewer, others_chosen) for s in steps) if t]


async def test_hello_language_and_refusal(server: str) -> None:
    assert (await Client.connect(server, name="Eng")).lang == "en"
    assert (await Client.connect(server, name="Srb", lang="sr-Latn-RS")).lang == "sr"
    assert (await Client.connect(server, name="Cze", lang="cs")).lang == "cs"
    with pytest.raises(ServerError) as err:
        await Client.connect(server, name="Klingon", lang="tlh")
    assert err.value.code == "bad_language" and "tlh" in str(err.value)
    # The refused hello created nobody: the name is still free.
    assert (await Client.connect(server, name="Klingon")).name == "Klingon"


async def test_each_connection_hears_its_language(server: str) -> None:
    ana = await Client.connect(server, name="Ana", record=True)
    mila = await Client.connect(server, name="Mila", lang="sr", record=True)
    petr = await Client.connect(server, name="Petr", lang="cs", record=True)
    code = (await ana.create_table(rules={"preset": "classic", "players": 3, "end": "rounds",
                                          "rounds": 2})).table.code
    await mila.join(code)
    await mila.sit()
    await ana.add_bot("easy")
    await petr.spectate(code)
    await ana.start()
    # Ana chooses last on the first turn, so she is told that everyone else has chosen
    # (later turns go in whatever order the machine's timing gives).
    others: set[int] = set()

    def others_chose(m: ServerMessage) -> bool:
        if isinstance(m, Events):
            others.update(i.event.player for i in m.items if isinstance(i, EventItem)
                          and i.event.type == "card_chosen")
        return others >= {1, 2}

    mila_plays = asyncio.create_task(mila.play_until_over(random.Random(6)))
    await ana.expect(others_chose)
    await asyncio.gather(ana.play_until_over(random.Random(5)), mila_plays)
    await petr.expect(lambda m: isinstance(m, Events) and any(
        isinstance(i, EventItem) and i.event.type == "game_over" for i in m.items))
    marks = {"en": "Cards revealed:", "sr": "Otkrivene karte:", "cs": "Odkryté karty:"}
    for client, viewer in ((ana, 0), (mila, 1), (petr, None)):
        assert client.frames is not None
        lang = client.lang
        said = " ".join(client.narration)
        assert marks[lang] in said, (lang, said[:300])
        names: list[str] = []
        frames = 0
        steps_with_reveal = 0
        choices = Choices(3)
        for raw in client.frames:
            frame = json.loads(raw)
            if frame["type"] == "table_state":
                names = [s["name"] or "" for s in frame["table"]["seats"]]
            if frame["type"] != "events":
                continue
            choices.follow(frame)
            assert frame["text"] == expected_text(frame, names, viewer, lang,
                                                  choices.others_done(viewer)), frame
            frames += 1
            # One resolution step, one entry: the reveal and its placements together.
            for text in frame["text"]:
                if marks[lang] in text:
                    steps_with_reveal += 1
                    assert text.count(marks[lang]) == 1, text
        assert frames > 10 and steps_with_reveal >= 10
    # The others' choices are one sentence when only you are left to choose; bots are
    # named in each reader's language.
    assert any("Everyone else has chosen." in t for t in ana.narration)
    assert not any("has chosen a card" in t for t in ana.narration)
    assert any("Easy Bot 1" in t for t in ana.narration)
    assert any("Bot Laki 1" in t for t in mila.narration)
    assert any("Robot Snadný 1" in t for t in petr.narration)
    # Your seat is "you" in your language; a spectator hears names only.
    assert any("you" in t for t in ana.narration)
    assert any(" vi " in f" {t} " or "Vaš" in t or "Vi " in t for t in mila.narration)
    assert not any(" vy " in f" {t} " for t in petr.narration)
    await close_all([ana, mila, petr])


async def test_reconnect_narrates_the_missed_steps(server: str) -> None:
    clients, code = await seat_table(server, SHORT, humans=1, bots=["easy", "easy"],
                                     prefix="R")
    (ana,) = clients
    await ana.play_until_over(random.Random(3))
    token = ana.token
    await ana.close()
    back = await Client.connect(server, token=token, table=code, last_seq=0, lang="cs")
    missed = await back.expect(lambda m: isinstance(m, Events))
    assert isinstance(missed, Events)
    assert back.state is not None
    names = [s.name or "" for s in back.state.table.seats]
    frame = json.loads(missed.model_dump_json())
    assert missed.text == expected_text(frame, names, 0, "cs")
    # Ten turns, a round start and its end, the game's end: one entry each at least.
    assert len(missed.text) >= 12
    assert sum("Odkryté karty" in t for t in missed.text) == 10
    await back.close()


async def first_prompt(client: Client) -> Prompt:
    """The decision asked of ``client`` (waiting for it; the message stays in the inbox)."""
    while client.prompt is None:
        client.inbox.append(await client.recv())
    return client.prompt


async def test_every_prompt_shows_the_turn_timer(server: str) -> None:
    clients, _code = await seat_table(server, SHORT, humans=1, bots=["easy", "easy"],
                                      prefix="T", turn_timer=30)
    (ana,) = clients
    first = await first_prompt(ana)
    assert first.seconds is not None and 25 < first.seconds <= 30, first
    await ana.play_until_over(random.Random(4))
    # Every message that asked something (the play kept them all in the inbox).
    prompts = [m.prompt for m in ana.inbox if isinstance(m, TableState | Events) and m.prompt]
    assert prompts[0] == first
    assert len({p.key for p in prompts}) >= 9
    assert all(p.seconds is not None and 0 < p.seconds <= 30 for p in prompts), [
        (p.key, p.seconds) for p in prompts]
    await close_all(clients)


async def _auto_notice(client: Client, notice: str, seat: int,
                       timeout: float = 60) -> tuple[NoticeItem, int]:
    """The first ``notice`` item about ``seat`` this client got, and its message's index."""
    while True:
        for k, m in enumerate(client.inbox):
            if isinstance(m, Events):
                for i in m.items:
                    if isinstance(i, NoticeItem) and i.notice == notice and i.seat == seat:
                        return i, k
        client.inbox.append(await client.recv(timeout))


def _state_after(client: Client, k: int, seat: int, auto: bool) -> bool:
    """A table_state with ``seat``'s ``auto`` as given came with the notice at ``k``."""
    near = client.inbox[max(0, k - 3):k + 1]
    return any(isinstance(m, TableState) and m.table.seats[seat].auto is auto for m in near)


async def test_a_timeout_hands_over_one_decision_and_says_so(server: str) -> None:
    ana = await Client.connect(server, name="Ana")
    # Long enough that Ana's answer is never late, even on a busy machine.
    code = (await ana.create_table(rules=SHORT, turn_timer=5.0)).table.code
    bob = await Client.connect(server, name="Bob", lang="sr")
    await bob.join(code)
    await bob.sit()
    await ana.add_bot("easy")
    await ana.start()
    # Ana plays her card; Bob lets his time run out.
    prompt = await first_prompt(ana)
    await ana.play_card(prompt.options[0])
    on, k = await _auto_notice(ana, "auto_on", 1)
    assert (on.reason, on.seat, on.name) == ("timeout", 1, "Bob")
    assert _state_after(ana, k, 1, True)
    on_b, k_b = await _auto_notice(bob, "auto_on", 1)
    assert (on_b.reason, on_b.seat) == ("timeout", 1)
    assert _state_after(bob, k_b, 1, True)
    # The default player made that one decision: Bob has his seat back at once, and both
    # are told why (``returned``), not that he took it over.
    off, k = await _auto_notice(ana, "auto_off", 1)
    assert (off.reason, off.seat) == ("returned", 1)
    assert _state_after(ana, k, 1, False)
    off_b, _ = await _auto_notice(bob, "auto_off", 1)
    assert off_b.reason == "returned"
    await close_all([ana, bob])


async def test_leave_and_kick_carry_their_reason(server: str) -> None:
    clients, _code = await seat_table(server, {"preset": "classic", "players": 3}, humans=3,
                                      prefix="K")
    ana, bob, cleo = clients
    await bob.leave()
    left, k = await _auto_notice(ana, "auto_on", 1)
    assert (left.reason, left.seat) == ("left", 1)
    assert _state_after(ana, k, 1, True)
    ana.inbox.clear()
    await ana.act("kick", seat=2)
    kicked, k = await _auto_notice(ana, "auto_on", 2)
    assert (kicked.reason, kicked.seat) == ("kicked", 2)
    assert _state_after(ana, k, 2, True)
    await close_all([ana, bob, cleo])


async def test_the_documented_narration_is_the_narrators() -> None:
    """docs/protocol.md shows a reveal with its ``text``: it is what the server would say."""
    doc = (Path(__file__).resolve().parents[2] / "docs" / "protocol.md").read_text()
    frames = [json.loads(b) for b in re.findall(r"```json\n(.*?)```", doc, flags=re.S)]
    told = [f for f in frames if f.get("type") == "events" and f["text"]]
    assert len(told) >= 2  # the reveal, and a catch-up
    for frame in told:
        assert frame["text"] == expected_text(frame, ["Ana", "Bob", "Cleo"], 0, "en")


def _notice_text(client: Client, notice: str) -> str:
    """The text of the last ``notice`` item ``client`` has received."""
    assert client.frames is not None
    found = [item["text"] for raw in client.frames for item in json.loads(raw).get("items", [])
             if item["kind"] == "notice" and item["notice"] == notice]
    assert found, (notice, client.frames[-3:])
    return str(found[-1])


async def test_notices_chat_and_refusals_are_said_in_each_language(server: str) -> None:
    """One voice: a notice, a chat line and a refusal come worded by the server, in the
    language of each connection's hello, "you" to whom they concern."""
    ana = await Client.connect(server, name="Ana", record=True)
    mila = await Client.connect(server, name="Mila", lang="sr", record=True)
    petr = await Client.connect(server, name="Petr", lang="cs", record=True)
    code = (await ana.create_table(rules={"preset": "classic", "players": 3})).table.code
    await petr.spectate(code)
    await mila.join(code)
    await mila.sit()
    await ana.add_bot("easy")
    await mila.chat("zdravo")
    for client in (ana, mila, petr):
        await client.expect(lambda m: isinstance(m, Events) and any(
            i.kind == "chat" for i in m.items))
    assert _notice_text(ana, "sat") == "Mila sits in seat 2."
    assert _notice_text(mila, "sat") == "Sedite na mesto 2."
    assert _notice_text(petr, "sat") == "Mila si sedá na místo 2."
    assert _notice_text(ana, "bot_added") == "Easy Bot 1 sits in seat 3."
    assert _notice_text(mila, "bot_added") == "Bot Laki 1 sedi na mesto 3."
    assert _notice_text(petr, "bot_added") == "Robot Snadný 1 si sedá na místo 3."
    chats = {c.lang: [i["said"] for raw in c.frames or [] for i in json.loads(raw).get("items", [])
                      if i["kind"] == "chat"] for c in (ana, mila, petr)}
    assert chats == {"en": ["Mila says: zdravo"], "sr": ["Mila kaže: zdravo"],
                     "cs": ["Mila píše: zdravo"]}
    # Refusals: the code for programs, the English details for logs, the sentence said.
    with pytest.raises(ServerError) as err:
        await mila.start()
    assert err.value.code == "not_host"
    assert err.value.error.text == "To može samo domaćin stola."
    with pytest.raises(ServerError) as err:
        await petr.sit()
    assert err.value.code == "table_full"
    assert err.value.error.text == "Všechna místa u stolu jsou obsazená."
    assert err.value.error.message == "every seat is taken"
    # A refused hello is said in the language it asked for.
    with pytest.raises(ServerError) as err:
        await Client.connect(server, name="mila", lang="cs")
    assert err.value.code == "name_taken"
    assert err.value.error.text == "Toto jméno je obsazené. Zvolte jiné."
    # The start is said to each in their language; the table's close too.
    await ana.start()
    for client, said in ((ana, "The game starts."), (mila, "Igra počinje."),
                         (petr, "Hra začíná.")):
        await client.expect(lambda m: isinstance(m, Events) and any(
            i.kind == "notice" and i.notice == "started" for i in m.items))
        assert _notice_text(client, "started") == said
    # The host leaves: the new host hears it in the second person, a spectator by name.
    await ana.leave()
    for client, said in ((mila, "Sada ste vi domaćin stola."),
                         (petr, "Hostitelem stolu je nyní Mila.")):
        await client.expect(lambda m: isinstance(m, Events) and any(
            i.kind == "notice" and i.notice == "host" for i in m.items))
        assert _notice_text(client, "host") == said
    await close_all([ana, mila, petr])
