"""No observation carries what its seat may not know (docs/rules.md §6).

Two checks. Directly: in every observation of random games, no card of
another seat's hand, no undealt card and no face-down choice of another seat
appears in any field, except where the rules make it public (``open-hands``
and the ``logic`` draft, a face-up ``open`` choice). And by counterfactual: two
games whose deals differ only in cards the observer cannot see give that
observer identical observations, step for step.
"""

from __future__ import annotations

import random

import numpy as np
import pytest

from nimmt import Deal, DecisionKind, Game, PlayCard, Rules, TakeRow
from nimmt.env import raw_env
from nimmt.env import spaces as S

CARD_FIELDS = ("hand", "seen", "played_by", "held_by", "pool")
VALUE_FIELDS = ("rows", "face_up", "my_choice", "pending_card")


def _appears(obs: np.ndarray, card: int, public_hands: bool) -> list[str]:
    """The fields of ``obs`` in which ``card`` shows."""
    where = []
    for name in CARD_FIELDS:
        if name == "held_by" and public_hands:
            continue
        if obs[S.field_slice(name)][S.slot(card)] != 0:
            where.append(name)
    for name in VALUE_FIELDS:
        if card in obs[S.field_slice(name)]:
            where.append(name)
    return where


@pytest.mark.parametrize(
    ("spec", "players"),
    [
        ("classic", 4),
        ("jokers", 5),
        ("professional", 3),
        ("open", 4),
        ("tactics", 3),
        ("open-hands", 4),
        ("logic", 3),
    ],
)
def test_no_hidden_card_in_any_observation(spec: str, players: int) -> None:
    env = raw_env(spec, players=players, end="rounds", rounds=2)
    rng = random.Random(7)
    env.reset(seed=3)
    rules = env.rules
    public_hands = rules.open_hands or rules.logic
    checked = 0
    while env.agents:
        agent = env.agent_selection
        game = env.game
        for viewer in range(players):
            obs = env.observe(f"player_{viewer}")["observation"]
            view = game.view(viewer)
            seen_by_viewer = view.seen_cards()
            if view.my_choice is not None:
                seen_by_viewer.add(view.my_choice)
            for p in range(players):
                if p == viewer:
                    continue
                face = view.face_up[p]
                for c in game.view(p).hand:
                    if c in seen_by_viewer or c == face:
                        continue
                    shown = _appears(obs, c, public_hands)
                    assert not shown, f"{spec}: seat {p}'s card {c} in seat {viewer}'s {shown}"
                mine = game.view(p).my_choice
                hidden = mine not in seen_by_viewer and mine != face
                if mine is not None and hidden and not public_hands:
                    assert not _appears(obs, mine, public_hands)
            in_hands = {c for p in range(players) for c in game.view(p).hand}
            for c in [*rules.deck(len(view.active)), *rules.joker_cards()]:
                if c not in in_hands and c not in seen_by_viewer and c not in view.draft_pool:
                    assert not _appears(obs, c, public_hands), f"undealt {c} shows"
            checked += 1
        if env.terminations[agent]:
            env.step(None)
            continue
        mask = env.observe(agent)["action_mask"]
        env.step(rng.choice(np.flatnonzero(mask).tolist()))
    assert checked > 40 * players


def _swap(deal: Deal, seat: int, out: int, into: int) -> Deal:
    hands = list(deal.hands)
    hands[seat] = tuple(sorted(into if c == out else c for c in hands[seat]))
    return Deal(rows=deal.rows, hands=tuple(hands))


@pytest.mark.parametrize("spec", ["classic", "professional", "jokers", "open"])
def test_what_the_observer_cannot_see_changes_nothing(spec: str) -> None:
    rules = Rules.parse(spec, players=4, end="rounds", rounds=1)
    base = Game(rules, seed=11).round_deals[0]
    deck = set(rules.deck(4))
    dealt = {c for h in base.hands for c in h} | {r[0] for r in base.rows}
    undealt = sorted(deck - dealt)
    # Seat 2 holds another card instead of its highest one: an undealt card.
    high = max(base.hands[2])
    other = _swap(base, 2, high, undealt[0])
    a = Game(rules, deals=[base])
    b = Game(rules, deals=[other])
    rng = random.Random(1)
    while not a.is_over:
        oa = S.encode(a.view(0))
        ob = S.encode(b.view(0))
        np.testing.assert_array_equal(oa, ob)
        pending = a.pending
        assert pending is not None
        p = pending.players[0]
        if pending.kind is DecisionKind.ROW:
            d: PlayCard | TakeRow = TakeRow(p, rng.randint(1, 4))
        else:
            options = [c for c in a.legal(p) if c != high]
            if not options:  # seat 2's swapped card must be played now: the games part
                break
            d = PlayCard(p, rng.choice(options))
        a.decide(d)
        b.decide(d)
