"""A learned 6 nimmt! policy: a linear score over features of each legal action.

The policy sees only an observation of :mod:`nimmt.env.spaces` (what its seat
may know) and scores every legal action by ``theta · features(action)``; the
softmax of the scores is the policy while learning, the best score is the move
when playing. The features are read from the observation, for every card slot
at once with numpy:

- a number card: where it would land (the row with the highest end below it),
  whether it is too low for every row (and what the cheapest row costs then),
  whether it would be the sixth card (and what that row costs), how much room
  the row has left, how many unseen cards lie between the row's end and the
  card (any of them, played by someone else, lands first), and the card's
  value;
- a joker: a constant;
- a row (for a too-low card): its bullheads and its length.

``LearnedBot`` is the policy as an arena bot (``pkg.mod:Class``)::

    PYTHONPATH=. nimmt arena --bots examples.rl.policy:LearnedBot,cheapest --single-round

It loads ``weights.json`` beside this file (written by ``train.py``), or the
file named by ``NIMMT_RL_WEIGHTS``.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import numpy as np
import numpy.typing as npt

from nimmt import Card, View
from nimmt.env import spaces as S

FloatArray = npt.NDArray[np.float32]

#: The features of an action, in order.
FEATURES = (
    "card",  # 1 for a number card
    "too_low",  # the card is below every row: its player takes a row
    "too_low_cost",  # ... and the cheapest row's bullheads / 10
    "sixth",  # the card would be the sixth of its row
    "sixth_cost",  # ... and that row's bullheads / 10
    "room1",  # it would be the fifth card: one more card before it takes the row
    "room2",  # it would be the fourth
    "unseen_between",  # unseen cards between the row's end and the card / 10
    "risk1",  # unseen_between when it would be the fifth card
    "risk2",  # unseen_between when it would be the fourth
    "value",  # the card / 104
    "joker",  # 1 for a joker
    "row",  # 1 for a row choice
    "row_cost",  # that row's bullheads / 10
    "row_length",  # that row's cards / 5
)
N_FEATURES = len(FEATURES)
_F = {name: i for i, name in enumerate(FEATURES)}
_VALUES = np.arange(1, 105, dtype=np.float32)  # number card in slots 10..113
_HAND = S.field_slice("hand")
_SEEN = S.field_slice("seen")
_ENDS = S.field_slice("row_ends")
_LENS = S.field_slice("row_lengths")
_BULLS = S.field_slice("row_bullheads")


def features(obs: FloatArray) -> FloatArray:
    """The features of every action for a batch of flat observations: ``(B, 118, F)``."""
    b = obs.shape[0]
    out = np.zeros((b, S.N_ACTIONS, N_FEATURES), dtype=np.float32)
    ends = obs[:, _ENDS]  # (B, 4)
    lens = obs[:, _LENS]
    bulls = obs[:, _BULLS]
    v = _VALUES[None, :, None]  # (1, 104, 1)
    below = ends[:, None, :] < v  # (B, 104, 4)
    # The landing row: the highest end below the card.
    masked = np.where(below, ends[:, None, :], -1.0)
    land = masked.argmax(axis=2)  # (B, 104)
    too_low = ~below.any(axis=2)
    rows = np.arange(b)[:, None]
    land_len = lens[rows, land]
    land_bull = bulls[rows, land]
    land_end = ends[rows, land]
    # Unseen cards strictly between the landing row's end and the card.
    known = np.maximum(obs[:, _HAND], obs[:, _SEEN])[:, 10:]  # number cards 1..104
    cum = np.concatenate([np.zeros((b, 1), np.float32), np.cumsum(known, axis=1)], axis=1)
    lo = np.floor(land_end).astype(np.int64)  # cards lo+1 .. v-1 lie between
    hi = np.broadcast_to(np.arange(1, 105), lo.shape)
    span = np.clip(hi - lo - 1, 0, None)
    inside = cum[rows, np.clip(hi - 1, 0, 104)] - cum[rows, np.clip(lo, 0, 104)]
    unseen = np.where(too_low, 0.0, span - inside) / 10.0
    sixth = (~too_low) & (land_len >= 5)
    room1 = (~too_low) & (land_len == 4)
    room2 = (~too_low) & (land_len == 3)
    cards = out[:, 10 : S.CARD_SLOTS]
    cards[..., _F["card"]] = 1.0
    cards[..., _F["too_low"]] = too_low
    cards[..., _F["too_low_cost"]] = too_low * bulls.min(axis=1, keepdims=True) / 10.0
    cards[..., _F["sixth"]] = sixth
    cards[..., _F["sixth_cost"]] = sixth * land_bull / 10.0
    cards[..., _F["room1"]] = room1
    cards[..., _F["room2"]] = room2
    cards[..., _F["unseen_between"]] = unseen
    cards[..., _F["risk1"]] = unseen * room1
    cards[..., _F["risk2"]] = unseen * room2
    cards[..., _F["value"]] = _VALUES / 104.0
    out[:, :10, _F["joker"]] = 1.0
    rowf = out[:, S.ROW_ACTION :]
    rowf[..., _F["row"]] = 1.0
    rowf[..., _F["row_cost"]] = bulls / 10.0
    rowf[..., _F["row_length"]] = lens / 5.0
    return out


def masked_softmax(scores: FloatArray, mask: npt.NDArray[np.int8]) -> FloatArray:
    """The policy's probabilities: a softmax over the legal actions only.

    A row without any legal action (an ended game's last observation) gets zeros.
    """
    legal = mask != 0
    s = np.where(legal, scores, -np.inf)
    s[~legal.any(axis=1)] = 0.0
    s = s - s.max(axis=1, keepdims=True)
    e = np.exp(s)
    e = np.where(legal, e, 0.0)
    total = e.sum(axis=1, keepdims=True)
    p: FloatArray = (e / np.where(total > 0, total, 1.0)).astype(np.float32)
    return p


def default_weights() -> Path:
    """Where ``train.py`` saves the weights and ``LearnedBot`` loads them."""
    return Path(os.environ.get("NIMMT_RL_WEIGHTS", Path(__file__).with_name("weights.json")))


def load_theta(path: Path | None = None) -> FloatArray:
    """The weights saved by ``train.py``."""
    data = json.loads((path or default_weights()).read_text())
    if data.get("features") != list(FEATURES):
        raise ValueError(f"{path}: the weights were trained for other features")
    return np.array(data["theta"], dtype=np.float32)


class LearnedBot:
    """The trained policy at a table: the legal action with the best score."""

    name = "learned"
    description = "a linear policy over action features, trained on the vectorised environment"

    def __init__(self, seed: int = 0, theta: FloatArray | None = None) -> None:
        self.seed = seed
        self.theta = load_theta() if theta is None else theta

    def _best(self, view: View) -> int:
        obs = S.encode(view)[None, :]
        mask = S.action_mask(view)
        scores = features(obs)[0] @ self.theta
        scores = np.where(mask != 0, scores, -np.inf)
        return int(scores.argmax())

    def choose_card(self, view: View) -> Card:
        return S.slot_card(self._best(view))

    def choose_row(self, view: View) -> int:
        return self._best(view) - S.ROW_ACTION + 1

    def draft_card(self, view: View) -> Card:
        # The policy never trained on drafts: take the highest card, as lowrisk does.
        return max(view.options)

    def __repr__(self) -> str:
        return f"LearnedBot(seed={self.seed})"

