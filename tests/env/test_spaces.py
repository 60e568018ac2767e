"""The fast encoder writes exactly what the plain definition says, in every rule set."""

from __future__ import annotations

import random
import re
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import nimmt.env as nenv
from nimmt import Deal, DecisionKind, DraftCard, EndMode, Game, PlayCard, Rules, TakeRow
from nimmt.env import spaces as S
from profiles import examples
from randomgames import COMBOS, combo_id, make_rules, play_out

SPECS = [
    ("classic", 2),
    ("classic", 10),
    ("category5+tactics", 4),
    ("logic", 3),
    ("professional+jokers", 5),
    ("open", 6),
    ("open+jokers+professional", 4),
    ("open-hands+tactics", 3),
]


@pytest.mark.parametrize(("spec", "players"), SPECS)
def test_encoder_matches_the_reference(spec: str, players: int) -> None:
    rules = Rules.parse(spec, players=players, end="elimination", limit=25)
    game = Game(rules, seed=players)
    rng = random.Random(len(spec))
    encoder = S.Encoder()
    moments = 0
    while not game.is_over:
        views = [game.view(p) for p in range(players)]
        flats, masks = encoder.encode_all(views)
        for p, view in enumerate(views):
            np.testing.assert_array_equal(flats[p], S.encode_reference(view))
            np.testing.assert_array_equal(masks[p], S.action_mask(view))
            assert S.observation_space("flat", rules)["observation"].contains(flats[p])
        moments += 1
        pending = game.pending
        assert pending is not None
        p = pending.players[0]
        if pending.kind is DecisionKind.ROW:
            game.decide(TakeRow(p, rng.randint(1, 4)))
        elif pending.kind is DecisionKind.DRAFT:
            game.decide(DraftCard(p, rng.choice(game.legal(p))))
        else:
            game.decide(PlayCard(p, rng.choice(game.legal(p))))
    assert moments > 30


def test_actions_and_slots_round_trip() -> None:
    for card in [*range(-10, 0), *range(1, 105)]:
        assert S.slot_card(S.slot(card)) == card
        assert S.action_of(S.decision_of(DecisionKind.CARD, 0, S.slot(card))) == S.slot(card)
    for row in range(1, 5):
        d = S.decision_of(DecisionKind.ROW, 2, S.ROW_ACTION + row - 1)
        assert d == TakeRow(2, row) and S.action_of(d) == S.ROW_ACTION + row - 1


def test_dict_form_holds_the_same_numbers() -> None:
    game = Game(Rules.preset("classic", 4), seed=3)
    flat = S.encode(game.view(1))
    d = S.to_dict(flat)
    assert S.observation_space("dict")["observation"].contains(d)
    assert int(d["hand"].sum()) == 10 and d["rows"].shape == (4, 5)
    assert np.concatenate([v.ravel() for v in d.values()]).astype(np.float32).tolist() == (
        flat.tolist()
    )


def test_docs_describe_every_field() -> None:
    # docs/rl.md's table of fields is the user's reference: it must match the layout.
    doc = (Path(__file__).resolve().parents[2] / "docs" / "rl.md").read_text()
    rows = re.findall(r"^\| `(\w+)` \| ([\d × ]+) \|", doc, flags=re.MULTILINE)
    assert [name for name, _ in rows] == [f.name for f in S.FIELDS]
    for (_, shape), f in zip(rows, S.FIELDS, strict=True):
        assert tuple(int(x) for x in shape.split("×")) == f.shape
    assert sum(f.size for f in S.FIELDS) == S.FLAT_SIZE == 700
    assert "Box` of 700" in doc
    # So must the module's own table (the environment's documentation, PettingZoo-style).
    assert S.__doc__ is not None
    names = re.findall(r"^``(\w+)``\s+[\d ×]+\s{2,}", S.__doc__, flags=re.MULTILINE)
    assert names == [f.name for f in S.FIELDS]


@pytest.mark.parametrize(
    ("spec", "hands", "reason", "slot"),
    [
        ("classic", ((5,), (100,)), "too_low", 0),
        ("professional", ((50,), (100,)), "fits_no_end", 0),
        ("jokers", ((-3, 2), (-5, 100)), "joker", 1),
    ],
)
def test_pending_reason_is_a_number_card_that_fits_no_row_or_a_joker(
    spec: str, hands: tuple[tuple[int, ...], ...], reason: str, slot: int
) -> None:
    # professional's "fits at no end" is the number-card case, like "too low" elsewhere.
    game = Game(Rules.parse(spec, players=2))
    game.deal(Deal(rows=((10, 90), (20, 80), (30, 70), (40, 60)), hands=hands))
    card = hands[0][0]
    game.play_card(0, card)
    game.play_card(1, 100)
    pending = game.pending
    assert pending is not None and pending.kind is DecisionKind.ROW and pending.reason == reason
    reasons = S.field_slice("pending_reason")
    for view in (game.view(0), game.view(1)):
        for flat in (S.encode_reference(view), S.Encoder().encode_all([view])[0][0]):
            assert flat[reasons].tolist() == [1 - slot, slot]
            assert flat[S.field_slice("pending_card")].tolist() == [card]


def _out_of_bounds(flat: np.ndarray, bounds: dict[str, tuple[float, float]]) -> list[str]:
    """The fields of ``flat`` that leave their bounds, with the values that do."""
    out = []
    for f in S.FIELDS:
        part = flat[f.start : f.start + f.size]
        low, high = bounds[f.name]
        bad = part[(part < low) | (part > high)]
        if bad.size:
            out.append(f"{f.name}: {bad.tolist()} outside [{low}, {high}]")
    return out


@pytest.mark.parametrize("combo", COMBOS, ids=[combo_id(c) for c in COMBOS])
@settings(max_examples=examples(1 / 60))  # per combination: 5, 50 when thorough
@given(players=st.integers(2, 10), seed=st.integers(0, 2**32 - 1), knob=st.integers(0, 5))
def test_every_observation_of_random_games_lies_in_its_space(
    combo: tuple[frozenset[str], EndMode, str], players: int, seed: int, knob: int
) -> None:
    # Every seat's observation at every moment of a random game, in the space its
    # environment declares for these rules (flat and dict) and in the rules-free one.
    variants, end, preset = combo
    rules = make_rules(variants, preset, end, players, knob)
    flat_space = S.observation_space("flat", rules)["observation"]
    dict_space = S.observation_space("dict", rules)["observation"]
    any_rules = S.observation_space("flat")["observation"]
    bounds = S.field_bounds(rules)
    # The bounds of every number of the flat vector, to test all seats at once; the
    # fields that leave them are named only when some number does.
    low = np.concatenate([np.full(f.size, bounds[f.name][0]) for f in S.FIELDS])
    high = np.concatenate([np.full(f.size, bounds[f.name][1]) for f in S.FIELDS])
    encoder = S.Encoder()
    n = rules.players

    def check(game: Game, _events: object = None) -> None:
        flats, _ = encoder.encode_all([game.view(p) for p in range(n)])
        outside = ((flats < low) | (flats > high)).any(axis=1)
        for p in range(n):
            where = f"{rules.name} {n}p {rules.end} seat {p}, round {game.round}"
            assert not outside[p], (where, _out_of_bounds(flats[p], bounds))
            assert flat_space.contains(flats[p]) and any_rules.contains(flats[p]), where
        assert dict_space.contains(S.to_dict(flats[game.round % n])), where

    game = Game(rules, seed=seed)
    check(game)
    play_out(game, random.Random(seed + 1), check)


def test_a_row_ends_highest_on_the_top_card_and_the_largest_jokers() -> None:
    # 104, then 0.6, 0.7, 0.8 and 0.9 each put on it: 107.0, the bound of the rules.
    rules = Rules.parse("jokers", players=4)
    game = Game(rules)
    hands = ((-4, 2), (-3, 3), (-2, 4), (-1, 5))
    game.deal(Deal(rows=((104,), (10,), (20,), (30,)), hands=hands))
    for p, hand in enumerate(hands):
        game.play_card(p, hand[0])
    for _ in range(4):
        pending = game.pending
        assert pending is not None and pending.kind is DecisionKind.ROW
        game.decide(TakeRow(pending.players[0], 1))
    flat = S.encode(game.view(0))
    ends = flat[S.field_slice("row_ends")]
    assert ends[0] == np.float32(107.0) == np.float32(S.field_bounds(rules)["row_ends"][1])
    assert S.observation_space("flat", rules)["observation"].contains(flat)
    # Two seats have only two jokers to give: 104.9 + 0.8.
    assert S.field_bounds(Rules.parse("jokers", players=2))["row_ends"][1] == 105.7
    assert S.field_bounds(Rules.parse("classic", players=2))["row_ends"][1] == 104


@pytest.mark.parametrize(
    ("spec", "changes", "scores", "rounds", "penalty", "top"),
    [
        # Classic: totals stay under 66 until the last round, which adds at most 171.
        ("classic", {}, 65 + 171, 4 * 66, 171, 104),
        # Elimination: a seat out keeps the total it reached, up to 24 + one round.
        ("classic", {"end": "elimination", "limit": 25}, 24 + 171, 4 * 25, 171, 104),
        ("classic", {"end": "rounds", "rounds": 3}, 3 * 171, 3, 171, 104),
        # Tactics with 3 seats: cards 1..34 (55 bullheads), the rows' top card 34.
        ("tactics", {}, 65 + 55, 3 * 66, 55, 34),
        # Jokers: one each, worth 1.
        ("jokers", {}, 65 + 171 + 4, 4 * 66, 171 + 4, 104),
    ],
)
def test_bounds_follow_the_rules(
    spec: str, changes: dict[str, object], scores: int, rounds: int, penalty: int, top: int
) -> None:
    players = 3 if spec == "tactics" else 4
    bounds = S.field_bounds(Rules.parse(spec, players=players, **changes))
    assert bounds["scores"] == (0, scores)
    assert bounds["round"] == (0, rounds)
    assert bounds["penalties"] == (0, penalty)
    assert bounds["rows"][1] == bounds["face_up"][1] == top
    assert bounds["rows"][0] == (-10 if spec == "jokers" else 0)


def test_the_rules_free_space_leaves_open_what_the_rules_leave_open() -> None:
    bounds = S.field_bounds()
    assert bounds["scores"][1] == bounds["round"][1] == bounds["limit"][1] == float("inf")
    assert bounds["row_ends"] == (0, 107.0) and bounds["penalties"] == (0, 181)
    assert S.observation_space("dict")["observation"]["scores"].high.max() == 2**31 - 1


def test_a_limit_too_large_for_float32_is_refused_with_the_reason() -> None:
    with pytest.raises(ValueError, match=r"limit 2000000 is too large.*float32 holds exactly"):
        nenv.env(players=10, limit=2_000_000)
    nenv.env(players=10, limit=1_000_000)
