"""The kernel against the engine: same deals, same decisions, same rows and penalties.

Every turn of a round is played twice: through the engine with random legal
cards and random row choices, and in the kernel from the engine's state at the
start of that turn with the same cards and the same row choices. Rows,
penalties and the number of row choices asked must agree after every turn. The
same checks run once more in a subprocess with numba turned off, and the
compiled and plain paths must give identical random streams and searches.
"""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from nimmt import DecisionKind, Game, Rules, bullheads
from nimmt.events import RowTaken
from nimmt.sim import kernel as K
from nimmt.sim.search import game_context
from nimmt.sim.world import encode_game, hidden_cards, rows_of, step_turn

SPECS = [
    ("classic", 4),
    ("classic", 2),
    ("classic", 10),
    ("tactics", 5),
    ("tactics", 3),
    ("professional", 4),
    ("professional", 6),
    ("tactics+professional", 4),
    ("jokers", 4),
    ("jokers", 7),
    ("professional+jokers", 5),
    ("open", 4),
    ("open-hands", 3),
    ("logic", 4),
]


def differential_round(spec: str, players: int, seed: int) -> int:
    """Play one round both ways; returns the number of turns compared."""
    rng = random.Random(seed)
    game = Game(Rules.parse(spec, players=players, end="rounds", rounds=1), seed=seed)
    while game.pending is not None and game.pending.kind is DecisionKind.DRAFT:
        p = game.pending.players[0]
        game.draft_card(p, rng.choice(game.legal(p)))
    turns = 0
    while not game.is_over:
        world = encode_game(game)
        st = world.state
        before = game.view(None)
        cards: dict[int, int] = {}
        row_choices: list[int] = []
        taken = [0] * players
        turn = before.turn
        while not game.is_over and game.view(None).turn == turn:
            pending = game.pending
            assert pending is not None
            if pending.kind is DecisionKind.CARD:
                for p in pending.players:
                    c = rng.choice(game.legal(p))
                    cards[p] = c
                    events = game.play_card(p, c)
            else:
                p = pending.players[0]
                r = rng.randint(1, 4)
                row_choices.append(r)
                events = game.take_row(p, r)
            for e in events:
                if isinstance(e, RowTaken):
                    taken[e.player] += sum(bullheads(c) for c in e.cards)
        used = step_turn(st, [cards[s] for s in world.seats], row_choices)
        assert used == len(row_choices), f"turn {turn}: row choices asked"
        after = game.view(None)
        if not game.is_over:
            assert rows_of(st) == tuple(after.rows), f"turn {turn}: rows"
        for k, seat in enumerate(world.seats):
            got = int(st[K.PEN + k]) - before.penalties[seat]
            assert got == taken[seat], f"turn {turn}: penalty of seat {seat}"
        turns += 1
    return turns


@pytest.mark.parametrize(("spec", "players"), SPECS)
def test_kernel_matches_engine(spec: str, players: int) -> None:
    for seed in range(25):
        assert differential_round(spec, players, seed) == 10


def test_kernel_matches_engine_on_many_decks() -> None:
    for seed in range(200):
        rng = random.Random(seed)
        spec = rng.choice(["classic", "professional", "jokers", "professional+jokers", "tactics"])
        players = rng.randint(2, 10)
        assert differential_round(spec, players, 1000 + seed) == 10


def test_sixth_card_and_left_end_examples() -> None:
    # The worked example of docs/rules.md §2: 7 too low takes row 4 (3 points), 88 takes 11.
    st = np.zeros(K.STATE_SIZE, dtype=np.int64)
    from nimmt.sim.world import encode_rows

    encode_rows(st, [(9, 12, 21), (19, 24), (33, 42, 50, 57), (69, 72, 81)])
    st[K.NPLAYERS] = 4
    for k, c in enumerate([7, 23, 64, 88]):
        st[K.HANDS + 10 * k] = c
        st[K.HLEN + k] = 1
        st[K.FIXED + k] = K.NO_CARD
    step_turn(st, [7, 23, 64, 88], [4])
    assert [int(st[K.PEN + k]) for k in range(4)] == [3, 0, 0, 11]
    assert rows_of(st) == ((9, 12, 21, 23), (19, 24), (88,), (7,))
    # Professional: 30 fits before 31 (difference 1) rather than after 25 (5).
    st2 = np.zeros(K.STATE_SIZE, dtype=np.int64)
    encode_rows(st2, [(10,), (25,), (31, 40), (90,)])
    st2[K.NPLAYERS] = 1
    st2[K.PROF] = 1
    st2[K.HANDS] = 30
    st2[K.HLEN] = 1
    st2[K.FIXED] = K.NO_CARD
    step_turn(st2, [30], [])
    assert rows_of(st2)[2] == (30, 31, 40)


def test_hidden_cards_agree_with_sample_world() -> None:
    rng = random.Random(5)
    for spec in ["classic", "jokers", "tactics", "open"]:
        game = Game(Rules.parse(spec, players=4), seed=rng.randrange(1 << 30))
        # Play two turns so that rows, revealed and taken cards are not trivial.
        while game.pending is not None and game.view(None).turn < 3:
            pending = game.pending
            if pending.kind is DecisionKind.CARD:
                game.play_card(pending.players[0], rng.choice(game.legal(pending.players[0])))
            else:
                game.take_row(pending.players[0], rng.randint(1, 4))
        view = game.view(1)
        seats = tuple(view.active)
        hidden = hidden_cards(view, seats)
        pool = set(hidden.pool.tolist()) | set(hidden.jpool.tolist())
        for _ in range(20):
            world = Game.sample_world(view, rng)
            enc = encode_game(world)
            for k, seat in enumerate(seats):
                if seat == 1:
                    assert hidden.need[k] == 0
                    continue
                hand = [int(c) for c in enc.state[K.HANDS + 10 * k : K.HANDS + 10 * k + 10]]
                hand = hand[: int(enc.state[K.HLEN + k])]
                assert set(hand) <= pool
                assert len(hand) == hidden.need[k] + hidden.needj[k]
                assert sum(1 for c in hand if c < 0) == hidden.needj[k]
        # The kernel's own dealing respects the same counts and draws from the same pool.
        enc = encode_game(Game.sample_world(view, rng))
        rs = K.rng_state(9)
        dealt: list[int] = []
        K.redeal(enc.state, hidden.pool, hidden.jpool, hidden.need, hidden.needj, rs)
        for k, seat in enumerate(seats):
            hand = enc.state[K.HANDS + 10 * k : K.HANDS + 10 * k + int(enc.state[K.HLEN + k])]
            if seat == 1:
                assert sorted(hand.tolist()) == sorted(c for c in view.hand)
            else:
                dealt.extend(hand.tolist())
        assert len(dealt) == len(set(dealt)) and set(dealt) <= pool


def test_rng_is_uniform_and_reproducible() -> None:
    rs = K.rng_state(123)
    draws = np.array([K.rng_below(rs, 10) for _ in range(20000)])
    counts = np.bincount(draws, minlength=10)
    assert counts.min() > 1800 and counts.max() < 2200
    a, b = K.rng_state(7), K.rng_state(7)
    assert [K.rng_next(a) for _ in range(5)] == [K.rng_next(b) for _ in range(5)]
    assert K.rng_state(7).tolist() != K.rng_state(8).tolist()


def test_mass_simulation_means() -> None:
    # Random play of 5 players loses about 13 bullheads per player-round (171 cards,
    # measured independently with the plain loop of bench/engine.py).
    pol, noise = K.seat_policies(5, K.POLICY_RANDOM)
    pen = K.simulate_rounds(4000, 5, 104, False, False, pol, noise, K.rng_state(1))
    mean = pen.mean()
    assert 12.3 < mean < 13.7
    # One seat playing the smart rollout policy loses clearly less than the random seats.
    pol[0] = K.POLICY_SMART
    mixed = K.simulate_rounds(4000, 5, 104, False, False, pol, noise, K.rng_state(1))
    assert mixed[:, 0].mean() < mixed[:, 1:].mean() - 2.0


def _fingerprint() -> dict[str, object]:
    """Numbers that the compiled and the plain kernel must both produce."""
    rs = K.rng_state(42)
    out: dict[str, object] = {"rng": [K.rng_next(rs) for _ in range(4)]}
    smart, noise = K.seat_policies(4, K.POLICY_SMART)
    pen = K.simulate_rounds(30, 4, 104, True, True, smart, noise, K.rng_state(3))
    out["smart"] = pen.sum(axis=0).tolist()
    rand, _ = K.seat_policies(5, K.POLICY_RANDOM)
    pen = K.simulate_rounds(30, 5, 54, False, False, rand, noise, K.rng_state(4))
    out["random"] = pen.sum(axis=0).tolist()
    game = Game(Rules.parse("classic", players=4), seed=11)
    view = game.view(0)
    world = encode_game(Game.sample_world(view, random.Random(1)))
    hidden = hidden_cards(view, world.seats)
    options = np.array(view.options, dtype=np.int64)
    for mode in (K.MODE_ROUND, K.MODE_CLASSIC, K.MODE_ELIMINATION, K.MODE_ROUNDS):
        ctx = game_context(view, world.seats)
        ctx[K.GAME_MODE] = mode
        ctx[K.GAME_LEFT] = 1
        stats = K.new_stats(len(options))
        K.flat_card_search(
            world.state, 0, options, hidden.pool, hidden.jpool, hidden.need, hidden.needj,
            20, smart, noise, ctx, stats, K.rng_state(5),
        )
        out[f"flat{mode}"] = stats.tolist()
    return out


def test_compiled_and_plain_paths_agree() -> None:
    if not K.NUMBA:
        pytest.skip("numba is not installed: only the plain path exists")
    here = Path(__file__).parent
    code = (
        f"import json, sys; sys.path.insert(0, {str(here)!r})\n"
        "import test_kernel as t\n"
        "from nimmt.sim import kernel as K\n"
        "assert not K.NUMBA\n"
        "for spec, players in t.SPECS:\n"
        "    assert t.differential_round(spec, players, 3) == 10\n"
        "print(json.dumps(t._fingerprint()))\n"
    )
    env = dict(os.environ, NIMMT_NO_NUMBA="1")
    proc = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=600
    )
    assert proc.returncode == 0, proc.stderr
    plain = json.loads(proc.stdout.strip().splitlines()[-1])
    assert plain == json.loads(json.dumps(_fingerprint()))


def test_sample_world_keeps_one_joker_per_player_in_open_jokers() -> None:
    # A joker chosen face up is that player's joker: the world must not deal a second.
    game = Game(Rules.parse("open+jokers", players=3), seed=1)
    first = game.pending.players[0] if game.pending else 0
    joker = next(c for c in game.legal(first) if c < 0)
    game.play_card(first, joker)
    assert game.pending is not None
    view = game.view(game.pending.players[0])
    world = Game.sample_world(view, random.Random(0))
    hand = world.view(first).hand
    assert sum(1 for c in hand if c < 0) == 1, hand


def _last_turn_outcomes(spec: str, players: int, seed: int, **changes: object) -> int:
    """Play random games through the engine; at every round's last turn, step the kernel
    through the same turn and rate it with ``game_value``. Where the engine ends the game,
    the kernel's value must be exactly each seat's share of the win; where the engine
    eliminates a seat and plays on, that seat's win chance must be 0 and the others'
    above 0; where the game goes on, every seat's chance lies strictly between 0 and 1."""
    rng = random.Random(seed)
    rules = Rules.parse(spec, players=players, **changes)  # type: ignore[arg-type]
    game = Game(rules, seed=seed)
    checked = 0
    while not game.is_over:
        pending = game.pending
        assert pending is not None
        if pending.kind is DecisionKind.DRAFT:
            p = pending.players[0]
            game.draft_card(p, rng.choice(game.legal(p)))
            continue
        view0 = game.view(None)
        last_turn = pending.kind is DecisionKind.CARD and all(
            view0.hand_sizes[p] == 1 for p in view0.active
        )
        if not last_turn:
            if pending.kind is DecisionKind.CARD:
                for p in pending.players:
                    game.play_card(p, rng.choice(game.legal(p)))
            else:
                game.take_row(pending.players[0], rng.randint(1, 4))
            continue
        world = encode_game(game)
        seats = world.seats
        cards = {p: game.view(p).hand[0] for p in seats}
        rows: list[int] = []
        while game.pending is not None and game.view(None).round == view0.round:
            pending = game.pending
            if pending.kind is DecisionKind.CARD:
                for p in pending.players:
                    game.play_card(p, cards[p])
            elif pending.kind is DecisionKind.ROW:
                r = rng.randint(1, 4)
                rows.append(r)
                game.take_row(pending.players[0], r)
            else:
                break
        step_turn(world.state, [cards[s] for s in seats], rows)
        for k, seat in enumerate(seats):
            # The public view before the turn: the totals before this round, its number.
            win, ahead = K.game_value(world.state, k, game_context(view0, seats))
            if game.is_over:
                share = 1 / len(game.winners) if seat in game.winners else 0.0
                assert win == pytest.approx(share, abs=1e-12), (spec, seat, game.winners)
            elif game.view(None).eliminated[seat]:
                assert win == 0.0
            else:
                assert 0.0 < win < 1.0
            assert 0.0 <= ahead <= 1.0
            checked += 1
    return checked


@pytest.mark.parametrize(
    ("spec", "players", "changes"),
    [
        ("classic", 4, {"limit": 20}),
        ("classic", 2, {"limit": 15}),
        ("classic", 6, {"end": "elimination", "limit": 25}),
        ("classic", 3, {"end": "elimination", "limit": 12}),
        ("category5", 5, {"end": "rounds", "rounds": 2}),
        ("tactics", 4, {"limit": 30}),
    ],
)
def test_game_value_ends_games_as_the_engine_does(
    spec: str, players: int, changes: dict[str, object]
) -> None:
    checked = sum(_last_turn_outcomes(spec, players, seed, **changes) for seed in range(12))
    assert checked > 12 * players
