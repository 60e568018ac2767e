"""The vectorised environment against the engine: same deals, same actions, same game.

Every game of a vectorised environment is mirrored by an engine ``Game`` fed
the same deal (read back from the environment) and the same decisions: the
learner's actions, the opponents' cards as the kernel chose them, and the
opponents' rows by the default rule (the ladder's ``cheapest``). After every
step the observation and the mask must equal, number for number, what the
engine's view of the learner encodes to, and the reward and the end must
agree: so penalties, rows, hands, scores and the hidden-information rules
all match.
"""

from __future__ import annotations

import pickle

import numpy as np
import pytest

from nimmt import DecisionKind, Game, Phase, PlayCard, TakeRow, default_row
from nimmt.env import spaces as S
from nimmt.env.vector import NimmtVectorEnv, VectorRulesError
from nimmt.events import RowTaken
from nimmt.sim import kernel as K

CASES = [
    {"end": "rounds", "rounds": 1},
    {"players": 2, "end": "rounds", "rounds": 2},
    {"players": 10},
    {"rules": "category5", "players": 5, "reward": "game"},
    {"rules": "tactics", "players": 3, "reward": "rank"},
    {"rules": "professional", "players": 6},
    {"rules": "tactics+professional", "players": 4, "seat": None},
    {"rules": "jokers", "players": 5, "seat": 3},
    {"rules": "professional+jokers", "players": 7, "end": "rounds", "rounds": 3},
    {"rules": "open-hands", "players": 4},
    {"rules": "tactics+open-hands", "players": 5, "end": "rounds", "rounds": 1},
]


class Mirror:
    """One engine game following game ``i`` of a vectorised environment."""

    def __init__(self, env: NimmtVectorEnv, i: int) -> None:
        self.env = env
        self.i = i
        self.new_game()

    def new_game(self) -> None:
        self.game = Game(self.env.rules)
        self.seat = int(self.env.seats()[self.i])
        self.game.deal(self.env.dealt(self.i))

    def _play_opponents_rows(self) -> float:
        """Answer opponents' row choices by the default rule until the learner is asked."""
        taken = 0.0
        game = self.game
        while True:
            if game.phase is Phase.DEAL:
                game.deal(self.env.dealt(self.i))
            pending = game.pending
            if pending is None or pending.kind is not DecisionKind.ROW:
                return taken
            p = pending.players[0]
            if p == self.seat:
                return taken
            for e in game.decide(TakeRow(p, default_row(game.view(p).rows))):
                if isinstance(e, RowTaken) and e.player == self.seat:
                    taken += e.bullheads
        return taken

    def step(self, action: int) -> float:
        """Apply the learner's ``action`` and the opponents' decisions; bullheads taken."""
        game = self.game
        pending = game.pending
        assert pending is not None
        taken = 0.0
        decisions: list[PlayCard | TakeRow]
        if pending.kind is DecisionKind.ROW:
            decisions = [TakeRow(self.seat, action - S.ROW_ACTION + 1)]
        else:
            cards = self.env.last_turn(self.i)
            assert cards[self.seat] == S.slot_card(action)
            decisions = [PlayCard(p, c) for p, c in enumerate(cards)]
        for d in decisions:
            for e in game.decide(d):
                if isinstance(e, RowTaken) and e.player == self.seat:
                    taken += e.bullheads
        taken += self._play_opponents_rows()
        return taken


def run(kwargs: dict[str, object], seed: int, steps: int, num_envs: int = 3) -> int:
    """Step ``num_envs`` mirrored games; returns how many games ended."""
    env = NimmtVectorEnv(num_envs, **kwargs)  # type: ignore[arg-type]
    obs, _ = env.reset(seed=seed)
    mirrors = [Mirror(env, i) for i in range(num_envs)]
    rs = K.rng_state(seed)
    reward_kind = kwargs.get("reward", "bullheads")
    ended = 0
    for _ in range(steps):
        for i, m in enumerate(mirrors):
            view = m.game.view(m.seat)
            np.testing.assert_array_equal(obs["observation"][i], S.encode(view))
            np.testing.assert_array_equal(obs["action_mask"][i], S.action_mask(view))
        actions = env.random_actions(state=rs)
        obs, reward, terminated, truncated, info = env.step(actions)
        assert not truncated.any() and not info
        for i, m in enumerate(mirrors):
            if m.game.is_over:  # the environment started a new game, ignoring the action
                assert reward[i] == 0 and not terminated[i]
                m.new_game()
                continue
            taken = m.step(int(actions[i]))
            assert terminated[i] == m.game.is_over
            if reward_kind == "bullheads":
                assert reward[i] == -taken
            elif terminated[i] and reward_kind == "game":
                assert reward[i] == -m.game.scores[m.seat]
            elif terminated[i]:
                scores = m.game.scores
                n = len(scores)
                better = sum(s < scores[m.seat] for s in scores)
                same = sum(s == scores[m.seat] for s in scores)
                rank = better + (same + 1) / 2
                assert reward[i] == pytest.approx((n + 1 - 2 * rank) / (n - 1))
            else:
                assert reward[i] == 0
            ended += int(terminated[i])
    return ended


@pytest.mark.parametrize("kwargs", CASES, ids=lambda k: "-".join(f"{v}" for v in k.values()))
def test_vector_env_plays_like_the_engine(kwargs: dict[str, object]) -> None:
    ended = run(kwargs, seed=len(str(kwargs)), steps=150)
    assert ended >= 1


@pytest.mark.parametrize("opponents", ["random", "heuristic"])
def test_other_opponents_keep_the_rules(opponents: str) -> None:
    # Their rows are not the default rule, so only the learner's side is mirrored:
    # the game must still end and every mask must be legal.
    env = NimmtVectorEnv(64, opponents=opponents, end="rounds", rounds=1)
    env.reset(seed=4)
    rs = K.rng_state(1)
    ended = 0
    for _ in range(30):
        _, reward, terminated, _, info = env.step(env.random_actions(state=rs))
        assert not info and (reward <= 0).all()
        ended += int(terminated.sum())
    assert ended >= 64


@pytest.mark.parametrize(
    ("kwargs", "word"),
    [
        ({"rules": "logic"}, "logic"),
        ({"rules": "open"}, "open"),
        ({"end": "elimination"}, "elimination"),
    ],
)
def test_rules_it_cannot_play_exactly_are_refused(kwargs: dict[str, object], word: str) -> None:
    with pytest.raises(VectorRulesError, match=word):
        NimmtVectorEnv(2, **kwargs)  # type: ignore[arg-type]


def test_illegal_action_ends_the_game() -> None:
    env = NimmtVectorEnv(2, end="rounds", rounds=1)
    obs, _ = env.reset(seed=1)
    mask = obs["action_mask"]
    bad = [int(np.flatnonzero(mask[0] == 0)[0]), int(np.flatnonzero(mask[1])[0])]
    _, reward, terminated, _, info = env.step(np.array(bad))
    assert terminated.tolist() == [True, False]
    assert reward[0] == env.illegal_reward < -171
    assert info["illegal"].tolist() == [True, False]


def test_same_seed_same_games_and_pickling() -> None:
    a = NimmtVectorEnv(5, players=5)
    b = NimmtVectorEnv(5, players=5)
    oa, _ = a.reset(seed=9)
    ob, _ = b.reset(seed=9)
    rs = K.rng_state(2)
    for _ in range(7):
        acts = a.random_actions(state=rs)
        oa, ra, *_ = a.step(acts)
        ob, rb, *_ = b.step(acts)
        np.testing.assert_array_equal(oa["observation"], ob["observation"])
        np.testing.assert_array_equal(ra, rb)
    c = pickle.loads(pickle.dumps(a))
    acts = a.random_actions(state=rs.copy())
    oa, ra, *_ = a.step(acts)
    oc, rc, *_ = c.step(acts)
    np.testing.assert_array_equal(oa["observation"], oc["observation"])
    np.testing.assert_array_equal(ra, rc)
