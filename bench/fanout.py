"""The cost of a table's frames: :meth:`Fanout.broadcast` over whole played games.

A table of ``--players`` people (one connection each, plus ``--spectators``
watching) plays whole games through the real reducer (:mod:`nimmt.server.tables.reducer`),
each seat answering with its first legal option, and every frame goes through the
real fan-out (:class:`nimmt.server.tables.fanout.Fanout`) to connections that keep only
the byte count. Reported per table size: the time spent in ``broadcast`` per
decision and per frame sent, and the bytes sent per decision. The time is the
process's CPU time (other jobs on the machine do not count) of the server's own
work for a decision's frames, without sockets or the event loop, so it compares
builds on a shared machine better than a whole-server benchmark.

Run: ``.venv/bin/python bench/fanout.py [--players 4,10] [--games 20] [--lang en]``.
The last line is one JSON object.
"""

from __future__ import annotations

import argparse
import json
import time
from dataclasses import dataclass

from nimmt import Rules
from nimmt import wire as P
from nimmt.decisions import DecisionKind
from nimmt.server.tables.commands import (
    Attach,
    Broadcast,
    Create,
    Effect,
    Message,
    SendPresence,
    SendState,
    Who,
)
from nimmt.server.tables.fanout import Fanout
from nimmt.server.tables.reducer import reduce
from nimmt.server.tables.state import Limits, TableData
from nimmt.wire import Sheet


@dataclass
class Counter:
    """A connection that keeps the size of what it is sent."""

    id: int
    player_id: int
    name: str
    lang: str
    seq: int = 0
    frames: int = 0
    sent: int = 0
    sheet: Sheet | None = None

    def send(self, text: str) -> None:
        self.frames += 1
        self.sent += len(text)


def message(kind: DecisionKind, value: int) -> P.DecisionMessage:
    if kind is DecisionKind.CARD:
        return P.PlayCard(type="play_card", card=value)
    if kind is DecisionKind.ROW:
        return P.TakeRow(type="take_row", row=value)
    return P.DraftCard(type="draft_card", card=value)


def play(players: int, spectators: int, seed: int, lang: str) -> tuple[float, int, int, int]:
    """One game: (seconds in broadcast, decisions, frames, bytes)."""
    table = TableData(1, "ABCDEF", "bench", 1, Rules.parse("classic", players=players),
                      None, False, False, Limits())
    peers: dict[int, Counter] = {}
    fanout = Fanout(table, peers)
    spent = 0.0
    conns = iter(range(1, 10_000))

    def connect(player_id: int) -> Who:
        who = Who(next(conns), player_id, f"P{player_id}")
        peers[who.conn] = Counter(who.conn, player_id, who.name, lang)
        return who

    def run(command: object) -> None:
        nonlocal spent
        _, effects = reduce(table, command, 1000.0)  # type: ignore[arg-type]
        for effect in effects:
            spent += apply(effect)
        # Each decision is handled alone (the table's queue is then empty): what its
        # broadcasts held goes out now, as the table sends it.
        t0 = time.process_time()
        fanout.flush(1000.0)
        spent += time.process_time() - t0

    def apply(effect: Effect) -> float:
        t0 = time.process_time()
        match effect:
            case SendPresence() | SendState():
                fanout.flush(1000.0)  # as the table does: what is held goes first
        match effect:
            case Broadcast(after, state, audience):
                fanout.broadcast(after, state, audience, 1000.0)
            case SendPresence(audience):
                fanout.presence(audience, 1000.0)
            case SendState(conn, viewer, ref):
                fanout.send_state(conn, viewer, ref, 1000.0)
            case _:
                return 0.0
        return time.process_time() - t0

    people = [connect(p) for p in range(1, players + 1)]
    run(Create(people[0], None))
    for who in people[1:]:
        run(Attach(who, None, False, None))
        run(Message(who, P.Sit(type="sit")))
    for k in range(spectators):
        run(Attach(connect(100 + k), None, True, None))
    for peer in peers.values():
        peer.frames = peer.sent = 0
    spent = 0.0
    run(Message(people[0], P.Start(type="start"), seed=seed))
    decisions = 0
    while table.logged.status == "playing":
        game = table.logged.game
        assert game is not None and game.pending is not None
        for seat in game.pending.players:
            options = game.legal(seat)
            if options:
                run(Message(people[seat], message(game.pending.kind, options[0])))
                decisions += 1
                break
    return (spent, decisions, sum(p.frames for p in peers.values()),
            sum(p.sent for p in peers.values()))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--players", default="4,10", help="table sizes, comma-separated")
    parser.add_argument("--spectators", type=int, default=1)
    parser.add_argument("--games", type=int, default=20)
    parser.add_argument("--lang", default="en")
    args = parser.parse_args()
    out: dict[str, object] = {}
    for players in (int(p) for p in args.players.split(",")):
        spent = 0.0
        decisions = frames = sent = 0
        for g in range(args.games):
            s, d, f, b = play(players, args.spectators, g + 1, args.lang)
            spent, decisions, frames, sent = spent + s, decisions + d, frames + f, sent + b
        row = {"us_per_decision": round(spent / decisions * 1e6, 1),
               "us_per_frame": round(spent / frames * 1e6, 2),
               "bytes_per_decision": round(sent / decisions)}
        print(f"{players} players + {args.spectators} spectator(s), {args.games} games: "
              f"{row['us_per_decision']} µs per decision, {row['us_per_frame']} µs per frame, "
              f"{row['bytes_per_decision']} bytes per decision")
        out[f"players_{players}"] = row
    print(json.dumps(out))


if __name__ == "__main__":
    main()
