"""Train the linear policy of ``policy.py`` with REINFORCE on the vectorised environment.

One seat of 4 learns against three ``cheapest`` opponents (a random card, the
cheapest row), one round per episode, reward minus the bullheads taken at each
step. Thousands of rounds run side by side in
:class:`nimmt.env.vector.NimmtVectorEnv`; the policy starts uniform (every
legal action alike) and follows the policy gradient with the return still to
come at each step, minus a running baseline, through Adam. Plain numpy: no
deep-learning library needed.

Run from the project directory (a few minutes on 2 cores)::

    .venv/bin/python -m examples.rl.train --minutes 5

It writes ``weights.json`` (for ``LearnedBot``), ``learning_curve.csv`` and
``learning_curve.png`` beside this file (or into ``--out``).
"""

from __future__ import annotations

import argparse
import csv
import json
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import numpy.typing as npt

from examples.rl.policy import FEATURES, N_FEATURES, features, masked_softmax
from nimmt.env.spaces import field_slice
from nimmt.env.vector import NimmtVectorEnv

S_BULLS = field_slice("row_bullheads")
FloatArray = npt.NDArray[np.float32]
HERE = Path(__file__).resolve().parent


@dataclass
class Adam:
    """Adam on one parameter vector (ascent: it follows the gradient)."""

    size: int
    lr: float = 0.05
    b1: float = 0.9
    b2: float = 0.999
    m: FloatArray = field(init=False)
    v: FloatArray = field(init=False)
    t: int = 0

    def __post_init__(self) -> None:
        self.m = np.zeros(self.size, dtype=np.float32)
        self.v = np.zeros(self.size, dtype=np.float32)

    def step(self, theta: FloatArray, grad: FloatArray) -> FloatArray:
        self.t += 1
        self.m = self.b1 * self.m + (1 - self.b1) * grad
        self.v = self.b2 * self.v + (1 - self.b2) * grad * grad
        mh = self.m / (1 - self.b1**self.t)
        vh = self.v / (1 - self.b2**self.t)
        new: FloatArray = (theta + self.lr * mh / (np.sqrt(vh) + 1e-8)).astype(np.float32)
        return new


@dataclass
class Point:
    """One point of the learning curve."""

    iteration: int
    seconds: float
    rounds: int
    bullheads: float  # the learner's mean bullheads per round in this iteration


def train(
    minutes: float = 5.0,
    num_envs: int = 1024,
    steps: int = 40,
    lr: float = 0.05,
    seed: int = 1,
    max_iterations: int | None = None,
    log: bool = True,
) -> tuple[FloatArray, list[Point]]:
    """Learn; returns the weights and the learning curve.

    Each iteration plays ``steps`` steps of ``num_envs`` games and updates
    once, from the episodes that ended within those steps. It stops after
    ``minutes`` or ``max_iterations``.
    """
    env = NimmtVectorEnv(num_envs, players=4, end="rounds", rounds=1, opponents="cheapest")
    rng = np.random.default_rng(seed)
    obs, _ = env.reset(seed=seed)
    theta = np.zeros(N_FEATURES, dtype=np.float32)
    opt = Adam(N_FEATURES, lr=lr)
    baseline = np.zeros(30, dtype=np.float64)  # running mean return by step of the round
    curve: list[Point] = []
    start = time.perf_counter()
    rows = np.arange(num_envs)
    it = 0
    while True:
        grads = np.zeros((steps, num_envs, N_FEATURES), dtype=np.float32)
        rewards = np.zeros((steps, num_envs), dtype=np.float32)
        dones = np.zeros((steps, num_envs), dtype=bool)
        live = np.zeros((steps, num_envs), dtype=bool)  # a decision of the learner
        depth = np.zeros((steps, num_envs), dtype=np.int64)
        age = np.zeros(num_envs, dtype=np.int64)
        for t in range(steps):
            mask = obs["action_mask"]
            phi = features(obs["observation"])
            probs = masked_softmax(phi @ theta, mask)
            has = mask.any(axis=1)  # an ended game's last observation has no decision
            probs[~has, 0] = 1.0  # any action: the next step starts a new game
            u = rng.random((num_envs, 1))
            actions = (probs.cumsum(axis=1) < u).sum(axis=1).clip(0, probs.shape[1] - 1)
            # grad of log pi(a): features of a minus their expectation under pi
            grads[t] = phi[rows, actions] - np.einsum("ba,baf->bf", probs, phi)
            live[t] = has
            depth[t] = age
            obs, reward, terminated, _, _ = env.step(actions)
            rewards[t] = reward
            dones[t] = terminated
            age = np.where(has, age + 1, 0)
            age[terminated] = 0
        # Returns still to come, within each episode; only episodes that ended here count.
        ret = np.zeros((steps, num_envs), dtype=np.float32)
        ended = np.zeros((steps, num_envs), dtype=bool)
        g = np.zeros(num_envs, dtype=np.float32)
        seen_end = np.zeros(num_envs, dtype=bool)
        for t in range(steps - 1, -1, -1):
            g = np.where(dones[t], 0.0, g) + rewards[t]
            seen_end |= dones[t]
            ret[t] = g
            ended[t] = seen_end
        use = live & ended
        d = np.minimum(depth, len(baseline) - 1)
        adv = np.where(use, ret - baseline[d], 0.0).astype(np.float32)
        grad = np.einsum("sb,sbf->f", adv, grads) / max(int(use.sum()), 1)
        theta = opt.step(theta, grad)
        for k in range(len(baseline)):
            sel = use & (d == k)
            if sel.any():
                baseline[k] = 0.9 * baseline[k] + 0.1 * float(ret[sel].mean())
        # The curve: the learner's bullheads per round ended in this iteration.
        first = ended & live & (depth == 0)
        episodes = int(first.sum())
        mine = -float(ret[first].mean()) if episodes else float("nan")
        it += 1
        elapsed = time.perf_counter() - start
        curve.append(Point(it, elapsed, episodes, mine))
        if log and (it % 10 == 0 or it == 1):
            print(f"iteration {it:4d}  {elapsed:6.1f} s  rounds {episodes:6d}  "
                  f"learner {mine:6.2f} bullheads/round  theta {np.round(theta, 2).tolist()}")
        if elapsed > minutes * 60 or (max_iterations is not None and it >= max_iterations):
            return theta, curve


def save(theta: FloatArray, curve: list[Point], out: Path, reference: float | None) -> None:
    """Write the weights, the curve as CSV and as a PNG."""
    out.mkdir(parents=True, exist_ok=True)
    (out / "weights.json").write_text(
        json.dumps({"features": list(FEATURES), "theta": [round(float(x), 6) for x in theta]},
                   indent=1) + "\n"
    )
    with (out / "learning_curve.csv").open("w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["iteration", "seconds", "rounds", "learner_bullheads_per_round"])
        for p in curve:
            w.writerow([p.iteration, round(p.seconds, 2), p.rounds, round(p.bullheads, 4)])
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    xs = [p.seconds for p in curve]
    ys = [p.bullheads for p in curve]
    fig, ax = plt.subplots(figsize=(7, 4))
    ax.plot(xs, ys, lw=1, label="learner (mean of each iteration)")
    if reference is not None:
        ax.axhline(reference, color="gray", ls="--", label=f"cheapest in its seat: {reference:.2f}")
    ax.set_xlabel("training time (s)")
    ax.set_ylabel("bullheads per round (lower is better)")
    ax.set_title("REINFORCE on NimmtVectorEnv: 4 players, 3 × cheapest, single rounds")
    ax.legend()
    fig.tight_layout()
    fig.savefig(out / "learning_curve.png", dpi=100)
    plt.close(fig)


def cheapest_reference(rounds: int = 200_000, seed: int = 7) -> float:
    """What ``cheapest`` takes per round in the learner's seat, against three others."""
    env = NimmtVectorEnv(4096, players=4, end="rounds", rounds=1, opponents="cheapest")
    obs, _ = env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    total = 0.0
    done = 0
    while done < rounds:
        mask = obs["action_mask"]
        # a random card, the cheapest row: score rows by minus their bullheads
        bulls = obs["observation"][:, S_BULLS]
        scores = rng.random(mask.shape)
        scores[:, -4:] = -bulls + 1000.0
        scores = np.where(mask != 0, scores, -np.inf)
        actions = scores.argmax(axis=1)
        actions[~mask.any(axis=1)] = 0
        obs, reward, terminated, _, _ = env.step(actions)
        total -= float(reward.sum())
        done += int(terminated.sum())
    return total / done


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--minutes", type=float, default=5.0)
    parser.add_argument("--num-envs", type=int, default=1024)
    parser.add_argument("--steps", type=int, default=40, help="steps per update")
    parser.add_argument("--lr", type=float, default=0.05)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--iterations", type=int, default=None, help="stop after this many")
    parser.add_argument("--out", type=Path, default=HERE)
    args = parser.parse_args()
    theta, curve = train(args.minutes, args.num_envs, args.steps, args.lr, args.seed,
                         args.iterations)
    reference = cheapest_reference()
    print(f"cheapest in the learner's seat: {reference:.2f} bullheads/round")
    save(theta, curve, args.out, reference)
    print(f"wrote {args.out / 'weights.json'} and {args.out / 'learning_curve.png'}")


if __name__ == "__main__":
    main()
