"""Random games of every rule set, for the property tests of the engine and the environments.

Every variant set the rules allow (asked of :class:`~nimmt.Rules` itself, so
a combination newly defined or refused is picked up here), every end mode,
small limits and few rounds so that a game stays short, and legal decisions
drawn from a seeded ``random.Random``: the same seed plays the same game.
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Callable

from hypothesis import strategies as st

from nimmt import PRESETS, VARIANTS, Decision, DecisionKind, EndMode, Game, Rules
from nimmt.decisions import make_decision
from nimmt.errors import RulesError
from nimmt.events import Event


def _allowed(variants: tuple[str, ...]) -> bool:
    try:
        Rules(variants=frozenset(variants))
    except RulesError:
        return False
    return True


#: Every variant set the rules allow.
ALLOWED = [
    frozenset(c)
    for k in range(len(VARIANTS) + 1)
    for c in itertools.combinations(VARIANTS, k)
    if _allowed(c)
]
ENDS = [EndMode.CLASSIC, EndMode.ELIMINATION, EndMode.ROUNDS]

#: A random game: the variants, the end, the seats, the deals' seed, and a knob for
#: the limit or the number of rounds (see :func:`make_rules`).
GAMES = {
    "variants": st.sampled_from(ALLOWED),
    "end": st.sampled_from(ENDS),
    "players": st.integers(2, 10),
    "seed": st.integers(0, 2**32 - 1),
    "knob": st.integers(0, 5),
}

# Every allowed variant set with every end; the two presets alternate over them, so each
# preset meets every end mode and most variants.
COMBOS = [
    (v, end, sorted(PRESETS)[(i + k) % 2])
    for i, v in enumerate(ALLOWED)
    for k, end in enumerate(ENDS)
]


def combo_id(combo: tuple[frozenset[str], EndMode, str]) -> str:
    variants, end, preset = combo
    return "+".join([preset, *(v for v in VARIANTS if v in variants)]) + f"-{end.value}"


def make_rules(
    variants: frozenset[str], preset: str, end: EndMode, players: int, knob: int
) -> Rules:
    """Rules with small limits or few rounds, so that random games stay short."""
    spec = "+".join([preset, *sorted(variants)])
    if "open" in variants:
        players = min(players, 9)
    if end is EndMode.ROUNDS:
        return Rules.parse(spec, players=players, end=end, rounds=1 + knob % 2)
    limit = (PRESETS[preset], 12, 30)[knob % 3]
    return Rules.parse(spec, players=players, end=end, limit=limit)


def random_decision(game: Game, rng: random.Random) -> Decision:
    """One legal decision, chosen at random among everything that may be decided now."""
    pending = game.pending
    assert pending is not None
    if pending.kind is DecisionKind.CARD and not game.rules.open_play and rng.random() < 0.1:
        # Change a face-down choice already made (allowed until the last player chooses).
        done = [p for p in game.active if game.view(p).my_choice is not None]
        if done:
            p = rng.choice(done)
            return make_decision(DecisionKind.CARD, p, rng.choice(game.legal(p)))
    p = rng.choice(pending.players)
    options = game.legal(p)
    assert options, f"player {p} is pending but has no option"
    return make_decision(pending.kind, p, rng.choice(options))


def play_out(
    game: Game,
    rng: random.Random,
    step: Callable[[Game, list[Event]], None] | None = None,
    cap: int = 20000,
) -> list[Decision]:
    """Random decisions until the game ends; ``step`` runs after each one, given the
    events that decision caused."""
    made = []
    while not game.is_over:
        assert len(made) < cap, "the game does not end"
        decision = random_decision(game, rng)
        start = len(game.events)
        game.decide(decision)
        made.append(decision)
        if step is not None:
            step(game, game.events[start:])
    return made
