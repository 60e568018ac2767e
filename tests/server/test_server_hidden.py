"""No frame sent to a seat or a spectator ever holds a card it may not know (docs/rules.md §6).

Every frame one seat (and one spectator) receives over full games of every
variant is recorded. Afterwards the stored record gives each round's deal, and
the frames are checked in order: a card may appear only if the viewer holds it,
it lies on the table at the deal, hands are public, or an earlier item (or an
earlier item of the same frame) revealed it. The narration sent with the items
(``text``, English) is checked the same way: every card number it says must be
one the viewer may know.
"""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
from server_helpers import RULE_SETS, api, close_all, play_out, rules_id, seat_table

from nimmt.client import Client

pytestmark = [pytest.mark.timeout(300)]


def event_cards(ev: dict[str, Any]) -> tuple[set[int], set[int]]:
    """(cards mentioned, cards this event makes public)."""
    t = ev["type"]
    if t == "hand_dealt":
        hand = set(ev["hand"])
        return hand, (hand if ev["public"] else set())
    if t == "draft_started":
        return set(ev["pool"]), set(ev["pool"])
    if t in ("card_drafted", "card_placed", "row_choice_needed"):
        return {ev["card"]}, set()
    if t == "card_chosen":
        if ev["card"] is None:
            return set(), set()
        return {ev["card"]}, ({ev["card"]} if ev["face_up"] else set())
    if t == "cards_revealed":
        cards = {c for _, c in ev["plays"]}
        return cards, cards
    if t == "rows_dealt":
        cards = {c for row in ev["rows"] for c in row}
        return cards, cards
    if t == "row_taken":
        return set(ev["cards"]), set()
    return set(), set()


def view_cards(view: dict[str, Any], prompt: dict[str, Any] | None) -> set[int]:
    cards: set[int] = set(view["hand"]) | set(view["draft_pool"])
    if view["my_choice"] is not None:
        cards.add(view["my_choice"])
    for row in view["rows"]:
        cards |= set(row)
    for pile in view["taken"]:
        cards |= set(pile)
    cards |= {c for c in view["face_up"] if c is not None}
    for turn in view["revealed"]:
        cards |= {c for _, c in turn}
    cards |= {c for _, c in view["to_resolve"]}
    if view["hands"] is not None:
        for hand in view["hands"]:
            cards |= set(hand)
    if view["pending"] is not None and view["pending"]["card"] is not None:
        cards.add(view["pending"]["card"])
    if view["phase"] != "row":
        cards |= set(view["options"])
    if prompt is not None:
        if prompt["kind"] != "row":
            cards |= set(prompt["options"])
        if prompt["card"] is not None:
            cards.add(prompt["card"])
    return cards


#: Numbers the English narration says that are not cards: rows, rounds, turns, counts,
#: the value a joker gives a row, the scores of a round's end.
NOT_CARDS = re.compile(
    r"\b[Rr]ow \d+|\bRound \d+|\bTurn \d+|\b\d+ (?:face-up )?(?:bullheads?|cards?)\b"
    r"|end value [\d.]+|Penalties: [^.]*\. Totals: [^.]*\.|Bullheads: [^.]*\.|\bPlayer \d+"
    r"|\bBot \d+"
)


def text_cards(text: str, names: list[str]) -> set[int]:
    """The cards an English narration entry names (jokers as -10..-1)."""
    for name in sorted(names, key=len, reverse=True):
        text = text.replace(name, "NAME")
    cards = {int(d) - 10 for d in re.findall(r"joker 0\.(\d)", text)}
    text = re.sub(r"joker 0\.\d", "", NOT_CARDS.sub("", text))
    return cards | {int(n) for n in re.findall(r"\d+", text)}


def check_frames(frames: list[str], seat: int | None, record: dict[str, Any]) -> int:
    """Assert no leak; return the number of card mentions checked."""
    rounds = record["rounds"]
    public_hands = "open-hands" in record["rules"]["variants"]
    known: set[int] = set()
    current = 0
    checked = 0
    names: list[str] = []

    def start_round(r: int) -> None:
        nonlocal current
        current = r
        known.clear()
        deal = rounds[r - 1]["deal"]
        if seat is not None and deal["hands"]:
            known.update(deal["hands"][seat])
        for row in deal["rows"]:
            known.update(row)
        known.update(deal["pool"])
        if public_hands:
            for hand in deal["hands"]:
                known.update(hand)

    for frame in frames:
        msg = json.loads(frame)
        if msg["type"] == "events":
            seen_here = set(known)
            for item in msg["items"]:
                if item["kind"] != "event":
                    continue
                ev = item["event"]
                if ev["type"] == "round_started":
                    start_round(ev["round"])
                if ev["type"] == "card_drafted" and seat is not None and ev["player"] == seat:
                    known.add(ev["card"])
                mentioned, made_public = event_cards(ev)
                known.update(made_public)
                leak = mentioned - known
                assert not leak, f"seat {seat} saw hidden {sorted(leak)} in {ev}"
                checked += len(mentioned)
                seen_here |= known
            # The narration of these items: every card it names was known during them.
            for text in msg["text"]:
                said = text_cards(text, names)
                leak = said - seen_here - known
                assert not leak, f"seat {seat} was told hidden {sorted(leak)}: {text!r}"
                checked += len(said)
            if msg["prompt"] is not None and current:
                leak = {c for c in msg["prompt"]["options"] if msg["prompt"]["kind"] != "row"}
                leak -= known
                assert not leak, f"seat {seat} prompt holds hidden {sorted(leak)}"
        elif msg["type"] == "table_state":
            names = [s["name"] or "" for s in msg["table"]["seats"]]
            if msg["view"] is None:
                continue
            view = msg["view"]
            if view["round"] and view["round"] != current:
                start_round(view["round"])
            mentioned = view_cards(view, msg["prompt"])
            leak = mentioned - known
            assert not leak, f"seat {seat} saw hidden {sorted(leak)} in table_state"
            checked += len(mentioned)
    return checked


@pytest.mark.asyncio
@pytest.mark.parametrize("rules", RULE_SETS, ids=rules_id)
async def test_no_hidden_card_in_any_frame(server: str, rules: dict[str, Any]) -> None:
    clients, code = await seat_table(server, rules, humans=2, bots=["easy"], record=True,
                                     prefix="H")
    watcher = await Client.connect(server, name="Watcher", record=True)
    await watcher.spectate(code)
    await play_out(clients, seed=3)
    # A reconnect mid-stream would replay items: the watcher rejoins from seq 0 at the end.
    await watcher.join(code, last_seq=0)
    games = (await api(f"{server}/api/players/{clients[0].name}"))["games"]
    record = (await api(f"{server}/api/games/{games[0]['id']}"))["record"]
    assert clients[0].frames is not None and watcher.frames is not None
    assert check_frames(clients[0].frames, 0, record) > 50
    assert check_frames(watcher.frames, None, record) > 20
    # The narration was there to check.
    told = [t for f in clients[0].frames for t in json.loads(f).get("text", [])]
    assert sum("Cards revealed" in t for t in told) >= 5
    await close_all([*clients, watcher])


def test_the_checker_catches_a_leak() -> None:
    """The checker itself fails on a frame holding another seat's card."""
    record = {"rules": {"variants": []}, "rounds": [{"deal": {
        "hands": [[1, 2], [3, 4]], "rows": [[10], [20], [30], [40]], "pool": []}}]}
    frames = [json.dumps({"type": "events", "seq": 1, "prompt": None, "items": [
        {"seq": 1, "kind": "event", "event": {"type": "round_started", "round": 1,
                                              "players": [0, 1], "deck_size": 104}},
        {"seq": 2, "kind": "event", "event": {"type": "card_chosen", "player": 1, "card": 3,
                                              "face_up": False}},
    ]})]
    with pytest.raises(AssertionError, match="hidden"):
        check_frames(frames, 0, record)


def test_the_checker_catches_a_leak_in_the_narration() -> None:
    """A sentence naming another seat's hidden card fails the check; the same sentence
    about a revealed card, and numbers that are not cards, pass."""
    record = {"rules": {"variants": []}, "rounds": [{"deal": {
        "hands": [[1, 2], [3, 4]], "rows": [[10], [20], [30], [40]], "pool": []}}]}
    state = {"type": "table_state", "seq": 0, "view": None, "prompt": None, "you": 0,
             "table": {"seats": [{"name": "Ana 7"}, {"name": "Bob"}]}}
    start = {"seq": 1, "kind": "event", "event": {"type": "round_started", "round": 1,
                                                  "players": [0, 1], "deck_size": 104}}

    def frames(text: str) -> list[str]:
        return [json.dumps(state), json.dumps({"type": "events", "seq": 1, "prompt": None,
                                               "items": [start], "text": [text]})]

    fine = "Round 1 begins for you and Bob, with 104 cards. Ana 7's 2 goes to row 4."
    assert check_frames(frames(fine), 0, record) == 1
    assert text_cards("Bob takes row 3, 8 bullheads, and starts it with joker 0.4.",
                      ["Bob"]) == {-6}
    with pytest.raises(AssertionError, match="hidden"):
        check_frames(frames("Bob chooses 3."), 0, record)
    with pytest.raises(AssertionError, match="hidden"):
        check_frames(frames("Cards revealed: Bob 4, you 1."), 0, record)
