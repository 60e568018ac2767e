"""The one walk over a game's events: its steps partition the events, begin where the
rules of the walk say, and every consumer built on it tells the same steps."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from nimmt import EndMode, Game
from nimmt.cli import _turns
from nimmt.events import CardChosen, Event, GameOver, RoundStarted, TurnStarted, for_viewer
from nimmt.record import events_sha256, load_record, record_from_game, to_json
from nimmt.server.tables.fanout import history_frame, narration
from nimmt.server.tables.state import ChatLine, Notice, StreamItem
from nimmt.walk import STEP_STARTS, Checksum, GameVisitor, Steps, starts_step, walk
from nimmt.web.replay import replay_steps
from randomgames import GAMES, make_rules, play_out

GOLDEN = Path(__file__).resolve().parent / "golden"


class Calls(GameVisitor[list[tuple[Any, ...]]]):
    """Every call the walk makes, in order."""

    def __init__(self) -> None:
        self.calls: list[tuple[Any, ...]] = []

    def begin_game(self) -> None:
        self.calls.append(("begin_game",))

    def begin_round(self, event: RoundStarted, index: int) -> None:
        self.calls.append(("begin_round", index, event))

    def begin_step(self, event: Event, index: int) -> None:
        self.calls.append(("begin_step", index, event))

    def visit_event(self, event: Event, index: int) -> None:
        self.calls.append(("visit_event", index, event))

    def end_step(self) -> None:
        self.calls.append(("end_step",))

    def end_round(self) -> None:
        self.calls.append(("end_round",))

    def end_game(self) -> None:
        self.calls.append(("end_game",))

    def result(self) -> list[tuple[Any, ...]]:
        return self.calls


def _game(variants: frozenset[str], end: EndMode, players: int, seed: int, knob: int,
          preset: str = "classic") -> Game:
    game = Game(make_rules(variants, preset, end, players, knob), random.Random(seed))
    play_out(game, random.Random(seed))
    return game


def check_walk(events: list[Event]) -> None:
    """The walk's calls over ``events``: well nested, every event visited once in order
    inside a step, steps beginning at the first event and at each step start only, rounds
    at each ``RoundStarted`` until the next one or the game's end."""
    calls = walk(events, Calls())
    assert calls[0] == ("begin_game",)
    assert calls[-1] == ("end_game",)
    visited = [c[2] for c in calls if c[0] == "visit_event"]
    assert visited == events
    assert [c[1] for c in calls if c[0] == "visit_event"] == list(range(len(events)))
    in_step = in_round = False
    steps: list[list[Event]] = []
    for call in calls[1:-1]:
        match call:
            case ("begin_round", index, event):
                assert not in_step and not in_round
                assert isinstance(event, RoundStarted) and events[index] is event
                in_round = True
            case ("end_round",):
                assert in_round and not in_step
                in_round = False
            case ("begin_step", index, event):
                assert not in_step
                assert events[index] is event
                assert index == 0 or isinstance(event, STEP_STARTS)
                in_step = True
                steps.append([])
            case ("visit_event", index, event):
                assert in_step
                assert (index == 0 or starts_step(event)) == (not steps[-1])
                if isinstance(event, RoundStarted | GameOver):
                    assert in_round == isinstance(event, RoundStarted)
                steps[-1].append(event)
            case ("end_step",):
                assert in_step
                in_step = False
    assert not in_step and not in_round
    # The steps partition the events, and the Steps visitor gives the same ones.
    assert [e for step in steps for e in step] == events
    assert walk(events, Steps()) == steps
    assert sum(1 for c in calls if c[0] == "begin_round") == sum(
        1 for e in events if isinstance(e, RoundStarted))


def check_consumers(game: Game) -> None:
    """The server's narration, its history pages, the replay page and ``nimmt replay``
    tell the same steps of the same events."""
    record = record_from_game(game)
    names = list(record.players)
    public = [e for e in (for_viewer(ev, None) for ev in game.events) if e is not None]
    told = narration(public, names, None, "en")
    replayed = replay_steps(json.loads(to_json(record)), "en")["steps"]
    assert told == [text for s in replayed if (text := " ".join(s["sentences"]))]

    # A history page of the whole stream (notices and chat between the events) says the
    # steps the narration says, each at the seq of its first event.
    items: list[StreamItem] = []
    for ev in game.events:
        items.append(StreamItem(len(items) + 1, "event", ev))
        if isinstance(ev, TurnStarted) and ev.turn == 2:
            items.append(StreamItem(len(items) + 1, "notice", Notice("sat", None, 1, "Bob")))
            items.append(StreamItem(len(items) + 1, "chat", ChatLine(0, "Ana", "hi")))
    seen = [e for e in (for_viewer(ev, 0) for ev in game.events) if e is not None]
    page = json.loads(history_frame(items, 0, "sr", names, len(items), None, None))
    lines = page["lines"]
    assert [line["seq"] for line in lines] == sorted(line["seq"] for line in lines)
    assert [line["text"] for line in lines if line["kind"] == "event"] == narration(
        seen, names, 0, "sr")
    firsts = {item.seq for item in items
              if item.kind == "event" and (item.seq == 1 or starts_step(item.payload))}
    assert {line["seq"] for line in lines if line["kind"] == "event"} <= firsts

    # nimmt replay's turns: the steps with a round's scores and the end kept with the
    # turn before them, and no card chosen face down.
    turns = _turns(list(game.events))
    assert [e for b in turns for e in b] == [
        e for e in game.events if not (type(e) is CardChosen and not e.face_up)]
    assert all(isinstance(b[0], RoundStarted | TurnStarted) for b in turns[1:])


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(**GAMES)
def test_the_walk_partitions_every_game(variants: frozenset[str], end: EndMode, players: int,
                                        seed: int, knob: int) -> None:
    game = _game(variants, end, players, seed, knob)
    check_walk(list(game.events))
    for viewer in (None, 0):
        check_walk([e for e in (for_viewer(ev, viewer) for ev in game.events) if e is not None])


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(**GAMES, cut=st.integers(0, 10_000))
def test_a_span_from_inside_a_round_walks_too(variants: frozenset[str], end: EndMode,
                                              players: int, seed: int, knob: int,
                                              cut: int) -> None:
    """A frame's events start anywhere: the first step begins at the first of them."""
    events = list(_game(variants, end, players, seed, knob).events)
    check_walk(events[cut % len(events):])


@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(**GAMES)
def test_every_consumer_tells_the_same_steps(variants: frozenset[str], end: EndMode,
                                             players: int, seed: int, knob: int) -> None:
    check_consumers(_game(variants, end, players, seed, knob, "category5"))


def test_an_empty_walk_opens_nothing() -> None:
    assert walk([], Calls()) == [("begin_game",), ("end_game",)]


@pytest.mark.parametrize("path", sorted(GOLDEN.glob("*.json")), ids=lambda p: p.stem)
def test_the_checksum_visitor_is_the_records_digest(path: Path) -> None:
    """Each golden record's stored digest is the walk's checksum of its events (a record
    that hashed otherwise would not load)."""
    from nimmt.record import replay
    record = load_record(path)
    events = list(replay(record).events)
    assert walk(events, Checksum()) == events_sha256(events) == record.events_sha256
    assert walk(events[:-1], Checksum()) != record.events_sha256
