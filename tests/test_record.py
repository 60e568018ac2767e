"""Game records: round trips, the JSON Schema, and every refusal with its exact step."""

from __future__ import annotations

import copy
import json
import random
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from nimmt import Deal, Game, RecordError, Rules
from nimmt.events import RoundScored
from nimmt.randomplay import decision_rng, play_random, simulate
from nimmt.record import (
    FORMAT,
    VERSION,
    Record,
    RulesRecord,
    events_sha256,
    load_record,
    record_from_dict,
    record_from_game,
    record_from_json,
    record_schema,
    replay,
    save_record,
    schema_json,
    to_json,
)
from profiles import examples

ROOT = Path(__file__).resolve().parents[1]
SCHEMA_FILE = ROOT / "schemas" / "record.schema.json"

#: Every preset and variant, and combinations the rules define.
SPECS = [
    "classic",
    "category5",
    "tactics",
    "logic",
    "professional",
    "open",
    "open-hands",
    "jokers",
    "tactics+professional",
    "category5+tactics+professional",
    "logic+professional",
    "tactics+open-hands",
    "open+professional",
    "jokers+professional+open-hands",
]


def _rules(spec: str, players: int, end: str, limit: int) -> Rules:
    if "open" in spec.split("+"):
        players = min(players, 9)
    rounds = 2 if end == "rounds" else None
    return Rules.parse(spec, players=players, end=end, limit=limit, rounds=rounds)


def _data(record: Record) -> dict[str, Any]:
    return copy.deepcopy(record.model_dump(mode="json"))


def _refused(data: dict[str, Any]) -> RecordError:
    with pytest.raises(RecordError) as info:
        replay(record_from_dict(data))
    return info.value


def _validator() -> jsonschema.Draft202012Validator:
    schema = json.loads(SCHEMA_FILE.read_text())
    jsonschema.Draft202012Validator.check_schema(schema)
    return jsonschema.Draft202012Validator(schema)


# -- round trips ----------------------------------------------------------------


@settings(max_examples=examples(1 / 3))
@given(
    spec=st.sampled_from(SPECS),
    players=st.integers(2, 10),
    end=st.sampled_from(["classic", "elimination", "rounds"]),
    limit=st.sampled_from([15, 40, 66]),
    seed=st.integers(0, 2**32),
    stop=st.one_of(st.none(), st.integers(0, 400)),
)
def test_round_trip_replays_identical_events(
    spec: str, players: int, end: str, limit: int, seed: int, stop: int | None
) -> None:
    rules = _rules(spec, players, end, limit)
    game = simulate(rules, seed, max_decisions=stop)
    record = record_from_game(game)
    text = to_json(record)
    _validator().validate(json.loads(text))
    again = record_from_json(text)
    assert again == record
    replayed = replay(again)
    assert replayed.events == game.events
    assert replayed.scores == game.scores
    assert replayed.is_over == game.is_over
    assert (record.result is None) == (not game.is_over)
    assert record_from_game(replayed) == record


def test_every_spec_finishes_and_replays() -> None:
    for i, spec in enumerate(SPECS):
        game = simulate(_rules(spec, 5, "classic", 66), i)
        assert game.is_over
        record = record_from_game(game)
        assert record.result is not None
        assert record.result.winners == list(game.winners)
        assert replay(record_from_json(to_json(record))).events == game.events


def test_unfinished_game_resumes_where_the_record_stops() -> None:
    rules = Rules.preset("classic", players=3)
    game = simulate(rules, 11, max_decisions=20)
    record = record_from_game(game)
    assert record.result is None
    assert record.rounds[-1].penalties is None
    replayed = replay(record_from_json(to_json(record)))
    # Both go on identically with the same decisions; the replayed game has no
    # seed, so at the end of the round it waits for the next deal.
    made = play_random(replayed, random.Random(3))
    assert made > 0 and replayed.pending is None and not replayed.is_over
    assert play_random(game, random.Random(3), made) == made
    replayed.deal(game.round_deals[1])
    assert replayed.events == game.events


def test_game_waiting_for_a_deal_records_and_continues() -> None:
    source = Game(Rules.preset("classic", players=3), seed=4)
    first_deal = source.round_deals[0]
    game = Game(Rules.preset("classic", players=3), deals=[first_deal])
    while game.pending is not None:
        play_random(game, random.Random(1), 1)
    assert game.round == 1 and not game.is_over
    record = record_from_game(game)
    assert record.rounds[0].penalties is not None and record.result is None
    replayed = replay(record_from_json(to_json(record)))
    assert replayed.events == game.events
    replayed.deal(first_deal)
    game.deal(first_deal)
    assert replayed.events == game.events


def test_start_scores_round_trip() -> None:
    rules = Rules.preset("classic", players=4)
    game = Game(rules, seed=8, scores=[10, 0, 30, 5])
    play_random(game, decision_rng(8))
    record = record_from_game(game)
    assert record.start_scores == [10, 0, 30, 5]
    assert replay(record).scores == game.scores


def test_names_and_files(tmp_path: Path) -> None:
    game = simulate(Rules.preset("category5", players=3), 2)
    record = record_from_game(game, ["Ana", "Bob", "Cleo"])
    path = tmp_path / "game.json"
    save_record(record, path)
    loaded = load_record(path)
    assert loaded.players == ["Ana", "Bob", "Cleo"]
    assert replay(loaded).events == game.events
    with pytest.raises(ValueError, match="3 player names"):
        record_from_game(game, ["Ana"])


def test_digest_ignores_layout() -> None:
    record = record_from_game(simulate(Rules.preset("classic", players=4), 5))
    compact = json.dumps(record.model_dump(mode="json"))
    spaced = json.dumps(record.model_dump(mode="json"), indent=7)
    assert replay(record_from_json(compact)).events == replay(record_from_json(spaced)).events


def test_events_digest_is_canonical_json_lines() -> None:
    game = simulate(Rules.preset("classic", players=2), 3, max_decisions=4)
    import hashlib

    from nimmt.events import event_to_dict

    lines = "".join(
        json.dumps(event_to_dict(e), sort_keys=True, separators=(",", ":")) + "\n"
        for e in game.events
    )
    assert events_sha256(game.events) == hashlib.sha256(lines.encode()).hexdigest()


def test_sampled_world_cannot_be_recorded() -> None:
    game = simulate(Rules.preset("classic", players=3), 1, max_decisions=5)
    world = Game.sample_world(game.view(0), random.Random(0))
    with pytest.raises(RecordError) as info:
        record_from_game(world)
    assert info.value.step == "game"


# -- the schema -----------------------------------------------------------------


def test_committed_schema_is_the_generated_one() -> None:
    assert SCHEMA_FILE.read_text() == schema_json()
    assert json.loads(SCHEMA_FILE.read_text()) == record_schema()


def test_schema_refuses_what_the_models_refuse() -> None:
    validator = _validator()
    data = _data(record_from_game(simulate(Rules.parse("jokers", players=3), 1)))
    validator.validate(data)
    for path, bad in [
        (("rounds", 0, "deal", "hands", 0, 0), 0),
        (("rounds", 0, "deal", "hands", 0, 0), 105),
        (("rounds", 0, "decisions", 0, 0), "pass"),
        (("version",), 2),
        (("rules", "variants", 0), "chaos"),
        (("events_sha256",), "abc"),
    ]:
        broken = copy.deepcopy(data)
        target: Any = broken
        for key in path[:-1]:
            target = target[key]
        target[path[-1]] = bad
        assert not validator.is_valid(broken), path
        with pytest.raises(RecordError):
            record_from_dict(broken)
    broken = copy.deepcopy(data)
    broken["extra"] = 1
    assert not validator.is_valid(broken)


def test_rules_model_matches_rules_to_dict() -> None:
    rules = Rules.parse("category5+tactics", players=5, end="rounds", rounds=3)
    assert set(RulesRecord.model_fields) == set(rules.to_dict())
    assert Rules.from_dict(RulesRecord.model_validate(rules.to_dict()).model_dump()) == rules


# -- refusals, each at its exact step -------------------------------------------


@pytest.fixture(scope="module")
def classic() -> Record:
    """A finished classic game of several rounds."""
    record = record_from_game(simulate(Rules.preset("classic", players=4), 21))
    assert len(record.rounds) >= 3
    return record


def test_wrong_format_and_version(classic: Record) -> None:
    data = _data(classic)
    data["format"] = "chess-pgn"
    assert _refused(data).step == "format"
    for version in (2, 0, "1", None, True):
        data = _data(classic)
        data["version"] = version
        error = _refused(data)
        assert error.step == "version", version
        assert "not supported" in error.reason
    data = _data(classic)
    del data["version"]
    assert _refused(data).step == "version"


def test_bad_files(tmp_path: Path) -> None:
    for text in ("{not json", "[1, 2]", '"record"'):
        with pytest.raises(RecordError) as info:
            record_from_json(text)
        assert info.value.step == "file"
    with pytest.raises(RecordError) as info:
        load_record(tmp_path / "missing.json")
    assert info.value.step == "file"


def test_bad_rules(classic: Record) -> None:
    for field, value, words in [
        ("variants", ["open", "tactics"], "cannot be combined"),
        ("variants", ["chaos"], "chaos"),
        ("preset", "poker", "poker"),
        ("limit", 0, "limit"),
        ("rounds", 3, "rounds"),
        ("players", 11, "players"),
    ]:
        data = _data(classic)
        data["rules"][field] = value
        error = _refused(data)
        assert error.step == "rules", (field, value)
        assert words in error.reason
    data = _data(classic)
    data["rules"]["house_rule"] = True
    assert _refused(data).step == "rules"


def test_players_and_start_scores(classic: Record) -> None:
    data = _data(classic)
    data["players"] = data["players"][:3]
    assert _refused(data).step == "players"
    data = _data(classic)
    data["start_scores"] = [0, 0, 0]
    assert _refused(data).step == "start_scores"
    data = _data(classic)
    data["start_scores"][1] = -4
    assert _refused(data).step == "start_scores"


def test_bad_deals(classic: Record) -> None:
    data = _data(classic)
    hands = data["rounds"][1]["deal"]["hands"]
    hands[0][0] = hands[1][0]  # a card dealt twice
    error = _refused(data)
    assert (error.step, "twice" in error.reason) == ("round 2, deal", True)
    data = _data(classic)
    data["rounds"][0]["deal"]["hands"][2] = data["rounds"][0]["deal"]["hands"][2][:9]
    assert _refused(data).step == "round 1, deal"
    data = _data(classic)
    data["rounds"][0]["deal"]["rows"].pop()
    assert _refused(data).step == "round 1, deal"
    data = _data(classic)
    data["rounds"][2]["deal"]["pool"] = [1, 2, 3]
    assert _refused(data).step == "round 3, deal"
    data = _data(classic)
    data["rounds"][0]["deal"]["hands"][0][0] = 0
    error = _refused(data)
    assert error.step == "round 1, deal"
    assert "not a card" in error.reason


def test_tactics_deal_outside_the_deck() -> None:
    record = record_from_game(simulate(Rules.preset("classic", 4, variants={"tactics"}), 3))
    data = _data(record)
    data["rounds"][0]["deal"]["hands"][3][-1] = 90  # the 4-player tactics deck ends at 44
    error = _refused(data)
    assert error.step == "round 1, deal"
    assert "not in this round's deck" in error.reason


def _first(record: Record, rnd: int, kind: str) -> int:
    """The 1-based index of the first decision of ``kind`` in round ``rnd``."""
    decisions = record.rounds[rnd - 1].decisions
    return next(j for j, d in enumerate(decisions, 1) if d[0] == kind)


def test_card_not_in_hand(classic: Record) -> None:
    data = _data(classic)
    decisions = data["rounds"][1]["decisions"]
    seat = decisions[13][1]
    hand = data["rounds"][1]["deal"]["hands"][seat]
    foreign = next(c for c in range(1, 105) if c not in hand)
    decisions[13][2] = foreign
    error = _refused(data)
    assert error.step == "round 2, decision 14"
    # The record's "player" index and the seat people count from one, as its names do.
    assert f"card {foreign} is not in the hand of player {seat} (seat {seat + 1})" in error.reason


def test_wrong_kind_of_decision(classic: Record) -> None:
    data = _data(classic)
    data["rounds"][0]["decisions"][0] = ["row", 0, 1]
    error = _refused(data)
    assert error.step == "round 1, decision 1"
    assert "card decision is pending" in error.reason
    j = _first(classic, 1, "row")
    data = _data(classic)
    seat = data["rounds"][0]["decisions"][j - 1][1]
    data["rounds"][0]["decisions"][j - 1] = ["card", seat, 50]
    error = _refused(data)
    assert error.step == f"round 1, decision {j}"
    assert "row decision is pending" in error.reason


def test_row_out_of_turn_and_no_such_row(classic: Record) -> None:
    j = _first(classic, 1, "row")
    data = _data(classic)
    seat = data["rounds"][0]["decisions"][j - 1][1]
    data["rounds"][0]["decisions"][j - 1][1] = (seat + 1) % 4
    error = _refused(data)
    assert error.step == f"round 1, decision {j}"
    assert f"player {seat} (seat {seat + 1}) chooses the row" in error.reason
    data = _data(classic)
    data["rounds"][0]["decisions"][j - 1][2] = 5
    error = _refused(data)
    assert error.step == f"round 1, decision {j}"
    assert "no row 5" in error.reason


def test_open_play_out_of_turn() -> None:
    record = record_from_game(simulate(Rules.preset("classic", 4, variants={"open"}), 6))
    data = _data(record)
    decisions = data["rounds"][0]["decisions"]
    decisions[0], decisions[1] = decisions[1], decisions[0]
    error = _refused(data)
    assert error.step == "round 1, decision 1"
    assert "the turn of player 0 (seat 1) to choose" in error.reason


def test_draft_out_of_turn_and_not_in_pool() -> None:
    record = record_from_game(simulate(Rules.preset("classic", 3, variants={"logic"}), 4))
    data = _data(record)
    data["rounds"][1]["decisions"][4][1] = (data["rounds"][1]["decisions"][4][1] + 1) % 3
    error = _refused(data)
    assert error.step == "round 2, decision 5"
    assert "the turn of player 2 (seat 3) to draft" in error.reason
    data = _data(record)
    data["rounds"][0]["decisions"][3][2] = data["rounds"][0]["decisions"][0][2]
    error = _refused(data)
    assert error.step == "round 1, decision 4"
    assert "not in the pool" in error.reason


def test_decision_after_the_game_ended(classic: Record) -> None:
    data = _data(classic)
    data["rounds"][-1]["decisions"].append(["card", 0, 10])
    n = len(data["rounds"])
    k = len(data["rounds"][-1]["decisions"])
    error = _refused(data)
    assert error.step == f"round {n}, decision {k}"
    assert "game is already over" in error.reason


def test_decision_after_the_round_ended(classic: Record) -> None:
    data = _data(classic)
    moved = data["rounds"][1]["decisions"].pop(0)
    data["rounds"][0]["decisions"].append(moved)
    k = len(data["rounds"][0]["decisions"])
    error = _refused(data)
    assert error.step == f"round 1, decision {k}"
    assert "round 1 is already over" in error.reason


def test_missing_decisions_in_a_finished_record(classic: Record) -> None:
    data = _data(classic)
    last = data["rounds"][-1]
    last["decisions"].pop()
    last["penalties"] = None
    n, k = len(data["rounds"]), len(last["decisions"]) + 1
    error = _refused(data)
    assert error.step == f"round {n}, decision {k}"
    assert error.reason.startswith("missing")
    # With the penalties left in place, the round is refused at its penalties first.
    data = _data(classic)
    data["rounds"][-1]["decisions"].pop()
    assert _refused(data).step == f"round {n}, penalties"


def test_a_round_cut_short_before_the_next(classic: Record) -> None:
    data = _data(classic)
    data["rounds"][0]["decisions"].pop()
    data["rounds"][0]["penalties"] = None
    error = _refused(data)
    assert error.step == "round 1"
    assert "round 2 follows" in error.reason


def test_missing_round_in_a_finished_record(classic: Record) -> None:
    data = _data(classic)
    data["rounds"].pop()
    error = _refused(data)
    assert error.step == f"round {len(classic.rounds)}"
    assert "game goes on" in error.reason


def test_round_after_the_game_ended(classic: Record) -> None:
    data = _data(classic)
    extra = copy.deepcopy(data["rounds"][-1])
    extra["round"] = len(data["rounds"]) + 1
    data["rounds"].append(extra)
    error = _refused(data)
    assert error.step == f"round {extra['round']}"
    assert "game ended" in error.reason


def test_misnumbered_round(classic: Record) -> None:
    data = _data(classic)
    data["rounds"][1]["round"] = 3
    assert _refused(data).step == "round 2"


def test_edited_penalties(classic: Record) -> None:
    data = _data(classic)
    data["rounds"][1]["penalties"][2] += 1
    error = _refused(data)
    assert error.step == "round 2, penalties"
    data = _data(classic)
    data["rounds"][0]["penalties"] = None
    assert _refused(data).step == "round 1, penalties"


def test_edited_result(classic: Record) -> None:
    data = _data(classic)
    data["result"]["totals"][0] += 3
    error = _refused(data)
    assert (error.step, "totals" in error.reason) == ("result", True)
    data = _data(classic)
    data["result"]["winners"] = [w for w in range(4) if w not in data["result"]["winners"]][:1]
    error = _refused(data)
    assert (error.step, "winners" in error.reason) == ("result", True)
    data = _data(classic)
    data["result"] = None
    error = _refused(data)
    assert (error.step, error.reason) == ("result", "missing; the game is over")


def test_result_on_an_unfinished_game() -> None:
    game = simulate(Rules.preset("classic", players=3), 2, max_decisions=7)
    data = _data(record_from_game(game))
    data["result"] = {"totals": [0, 0, 0], "winners": [0]}
    error = _refused(data)
    assert error.step == "round 1, decision 8"


def test_edited_digest(classic: Record) -> None:
    data = _data(classic)
    data["events_sha256"] = "f" * 64
    assert _refused(data).step == "events_sha256"


def test_reordered_choices_are_caught_by_the_digest(classic: Record) -> None:
    """Two face-down choices swapped: the same cards and scores, but other events."""
    data = _data(classic)
    decisions = data["rounds"][0]["decisions"]
    assert decisions[0][0] == decisions[1][0] == "card" and decisions[0][1] != decisions[1][1]
    decisions[0], decisions[1] = decisions[1], decisions[0]
    assert _refused(data).step == "events_sha256"


def test_structural_errors_name_their_step(classic: Record) -> None:
    data = _data(classic)
    data["rounds"][1]["decisions"][4][2] = "12"
    error = _refused_structure(data)
    assert error.step == "round 2, decision 5"
    data = _data(classic)
    data["rounds"][0]["decisions"][2] = ["pass", 0, 1]
    assert _refused_structure(data).step == "round 1, decision 3"
    data = _data(classic)
    data["rounds"][2]["deal"]["rows"][0] = "12"
    assert _refused_structure(data).step == "round 3, deal"
    data = _data(classic)
    del data["rounds"][0]["penalties"]
    assert _refused_structure(data).step == "round 1, penalties"
    data = _data(classic)
    data["surprise"] = 1
    assert _refused_structure(data).step == "surprise"


def _refused_structure(data: dict[str, Any]) -> RecordError:
    with pytest.raises(RecordError) as info:
        record_from_dict(data)
    return info.value


def test_constants() -> None:
    assert (FORMAT, VERSION) == ("nimmt-record", 1)


def test_penalties_are_the_round_scores(classic: Record) -> None:
    game = replay(classic)
    scored = [e.penalties for e in game.events if type(e) is RoundScored]
    assert [r.penalties for r in classic.rounds] == [list(p) for p in scored]


def test_explicit_deal_game_records() -> None:
    deal = Deal(
        rows=((9, 12, 21), (19, 24), (33, 42, 50, 57), (69, 72, 81)),
        hands=((7, 1, 2), (23, 3, 4), (64, 5, 6), (88, 8, 10)),
    )
    game = Game(Rules.preset("classic", players=4, end="rounds", rounds=1), deals=[deal])
    play_random(game, random.Random(0))
    assert game.is_over
    record = record_from_game(game)
    assert record.rounds[0].deal.rows[2] == [33, 42, 50, 57]
    assert replay(record_from_json(to_json(record))).events == game.events
