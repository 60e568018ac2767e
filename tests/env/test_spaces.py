"""The fast encoder writes exactly what the plain definition says, in every rule set."""

from __future__ import annotations

import random
import re
from pathlib import Path

import numpy as np
import pytest

from nimmt import Deal, DecisionKind, DraftCard, Game, PlayCard, Rules, TakeRow
from nimmt.env import spaces as S

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
            assert S.observation_space("flat")["observation"].contains(flats[p])
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
