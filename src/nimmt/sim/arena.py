"""The arena: tournaments of bots with duplicate deals.

Every deal is played once per rotation of the seating: with ``n`` seats the
bot list is turned round the table ``n`` times, so every seat (and so every
hand of the deal) is played by every bot. Luck of the cards then cancels
within a deal's group of tables, and statistics are computed over those
groups.

Reproducibility: deal ``d`` gets its own seed derived from the arena seed
(``numpy.random.SeedSequence(seed, spawn_key=(d,))``), and every bot at every
table its own (``spawn_key=(d, rotation, seat)``). Results are gathered in
deal order before any statistic or rating is computed, so the same seed gives
the same numbers on one worker, on many, and on Ray. Only think times differ.

Faults: a bot that raises, answers illegally or exceeds ``timeout`` seconds
on a decision is recorded against its name, and the default player
(:class:`~nimmt.bots.simple.DefaultPlayer`) finishes the table in its seat, so
the deal still counts for every rotation: the one bot-fault policy of
:func:`nimmt.bots.play.decide_safely`, which tables share. The faulty bot's
numbers then include some play of the default player; the ``faults`` column
says how often.
"""

from __future__ import annotations

import csv
import io
import json
import math
import os
import sys
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
from dataclasses import asdict, dataclass, field
from typing import Any

import numpy as np

from ..bots.base import Bot, Budget
from ..bots.play import Fault, play_game
from ..bots.play import single_round as one_round
from ..bots.registry import BotError, make_bot
from ..bots.simple import DefaultPlayer
from ..decisions import Decision
from ..errors import RulesError
from ..events import RoundStarted
from ..rules import Rules

__all__ = [
    "ArenaError",
    "ArenaResult",
    "BotStats",
    "PairStats",
    "TableResult",
    "ci95",
    "deal_seed",
    "labels_of",
    "paired",
    "run_arena",
    "seating",
    "t975",
    "t_two_sided",
]


class ArenaError(RulesError):
    """An arena that cannot run as asked (bad seating, bad counts, a lost worker)."""


# -- seeds and seating ---------------------------------------------------------


def deal_seed(seed: int, deal: int) -> int:
    """The seed of deal ``deal``: a child of the arena seed, independent of every other deal.

    >>> deal_seed(1, 0) == deal_seed(1, 0) != deal_seed(1, 1)
    True
    """
    state = np.random.SeedSequence(seed, spawn_key=(deal,)).generate_state(2, np.uint64)
    return int(state[0]) << 64 | int(state[1])


def bot_seed(seed: int, deal: int, rotation: int, seat: int) -> int:
    """The seed of the bot at ``seat`` for ``rotation`` of ``deal``."""
    ss = np.random.SeedSequence(seed, spawn_key=(deal, rotation, seat))
    return int(ss.generate_state(1, np.uint64)[0])


def seating(bots: Sequence[str], players: int) -> tuple[str, ...]:
    """The bot list filled to ``players`` seats: the last name repeats.

    >>> seating(["expert", "cheapest"], 4)
    ('expert', 'cheapest', 'cheapest', 'cheapest')
    """
    names = [b.strip() for b in bots]
    if not names or not all(names):
        raise ArenaError("name at least one bot")
    if len(names) > players:
        raise ArenaError(f"{len(names)} bots do not fit at a table of {players} players")
    return tuple(names + [names[-1]] * (players - len(names)))


def rotate(seats: Sequence[str], rotation: int) -> tuple[str, ...]:
    """The seating of one rotation: bot ``i`` sits at seat ``(i + rotation) % n``.

    >>> rotate(("a", "b", "c"), 1)
    ('c', 'a', 'b')
    """
    n = len(seats)
    return tuple(seats[(s - rotation) % n] for s in range(n))


# -- statistics ----------------------------------------------------------------

# Student t quantiles t(0.975, df) for df = 1..30; beyond, a Cornish-Fisher expansion.
_T975 = (
    12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228,
    2.201, 2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086,
    2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042,
)  # fmt: skip


def t975(df: int) -> float:
    """The 97.5% quantile of Student's t with ``df`` degrees of freedom.

    >>> t975(1), t975(30), round(t975(10_000), 3)
    (12.706, 2.042, 1.96)
    """
    if df < 1:
        raise ValueError("degrees of freedom must be at least 1")
    if df <= len(_T975):
        return _T975[df - 1]
    z = 1.959963984540054
    return (
        z
        + (z**3 + z) / (4 * df)
        + (5 * z**5 + 16 * z**3 + 3 * z) / (96 * df**2)
        + (3 * z**7 + 19 * z**5 + 17 * z**3 - 15 * z) / (384 * df**3)
    )


def ci95(values: Sequence[float]) -> tuple[float, float]:
    """Mean and half-width of its 95% confidence interval (Student t).

    Each value is one independent observation: in the arena, one bot's mean
    penalty per round over one deal's group of rotated tables. With fewer than
    two values the half-width is ``nan``.

    >>> m, h = ci95([1.0, 2.0, 3.0, 4.0])
    >>> m, round(h, 4)
    (2.5, 2.054)
    """
    n = len(values)
    if n == 0:
        return math.nan, math.nan
    mean = math.fsum(values) / n
    if n < 2:
        return mean, math.nan
    var = math.fsum((v - mean) ** 2 for v in values) / (n - 1)
    return mean, t975(n - 1) * math.sqrt(var / n)


def ranks_of(key: Sequence[tuple[Any, ...]]) -> tuple[float, ...]:
    """Rank 1 for the best (smallest) key; ties share the average of their places.

    >>> ranks_of([(0, 5), (1, 9), (0, 5), (1, 7)])
    (1.5, 4.0, 1.5, 3.0)
    """
    out = []
    for k in key:
        better = sum(1 for other in key if other < k)
        same = sum(1 for other in key if other == k)
        out.append(better + (same + 1) / 2)
    return tuple(out)


def _betacf(a: float, b: float, x: float) -> float:
    """The continued fraction of the incomplete beta function (Lentz's method)."""
    tiny = 1e-300
    qab, qap, qam = a + b, a + 1.0, a - 1.0
    c, d = 1.0, 1.0 - qab * x / qap
    d = 1.0 / (d if abs(d) > tiny else tiny)
    h = d
    for m in range(1, 300):
        m2 = 2 * m
        aa = m * (b - m) * x / ((qam + m2) * (a + m2))
        d = 1.0 + aa * d
        d = 1.0 / (d if abs(d) > tiny else tiny)
        c = 1.0 + aa / c
        c = c if abs(c) > tiny else tiny
        h *= d * c
        aa = -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2))
        d = 1.0 + aa * d
        d = 1.0 / (d if abs(d) > tiny else tiny)
        c = 1.0 + aa / c
        c = c if abs(c) > tiny else tiny
        delta = d * c
        h *= delta
        if abs(delta - 1.0) < 1e-14:
            break
    return h


def t_two_sided(t: float, df: int) -> float:
    """P(|T| >= |t|) for Student's t with ``df`` degrees of freedom: the p-value of a
    two-sided test (the regularized incomplete beta function, no scipy needed).

    >>> round(t_two_sided(2.042, 30), 3), round(t_two_sided(0.0, 5), 3)
    (0.05, 1.0)
    """
    if df < 1 or not math.isfinite(t):
        return math.nan if not math.isinf(t) else 0.0
    x = df / (df + t * t)
    a, b = df / 2.0, 0.5
    if x <= 0.0:
        return 0.0
    if x >= 1.0:
        return 1.0
    front = math.exp(
        math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b) + a * math.log(x) + b * math.log1p(-x)
    )
    if x < (a + 1.0) / (a + b + 2.0):
        return min(1.0, front * _betacf(a, b, x) / a)
    return min(1.0, 1.0 - front * _betacf(b, a, 1.0 - x) / b)


@dataclass(frozen=True, slots=True)
class PairStats:
    """Is ``a`` stronger than ``b``? Their paired differences over the same deals.

    For every deal both played (in all its rotations, so on the same cards),
    ``a``'s figure minus ``b``'s: bullheads per round (negative: ``a`` takes
    fewer) and win share (positive: ``a`` wins more). Each difference has its
    mean, the half-width of its 95% interval, Student's t over the deals
    (``mean / (sd / sqrt(deals))``, ``deals - 1`` degrees of freedom) and the
    two-sided p-value. Deals cancel the luck of the cards, so these intervals
    are much narrower than those of the two bots' separate means.
    """

    a: str
    b: str
    deals: int
    bullheads_diff: float
    bullheads_ci95: float
    bullheads_t: float
    bullheads_p: float
    win_diff: float
    win_ci95: float
    win_t: float
    win_p: float


def paired(a: str, b: str, xs: Sequence[float], ys: Sequence[float],
           wa: Sequence[float], wb: Sequence[float]) -> PairStats:
    """:class:`PairStats` from per-deal bullheads per round (``xs``, ``ys``) and win shares
    (``wa``, ``wb``) of ``a`` and ``b``, deal by deal."""
    d_bull = [x - y for x, y in zip(xs, ys, strict=True)]
    d_win = [x - y for x, y in zip(wa, wb, strict=True)]
    n = len(d_bull)
    out: list[float] = []
    for diffs in (d_bull, d_win):
        mean, half = ci95(diffs)
        t = math.nan
        p = math.nan
        if n >= 2:
            sd = math.sqrt(math.fsum((v - mean) ** 2 for v in diffs) / (n - 1))
            if sd > 0:
                t = mean / (sd / math.sqrt(n))
                p = t_two_sided(t, n - 1)
            elif mean != 0:
                t, p = math.copysign(math.inf, mean), 0.0
        out += [mean, half, t, p]
    return PairStats(a, b, n, *out)


# -- one table and one chunk of deals -------------------------------------------


@dataclass(frozen=True, slots=True)
class TableResult:
    """What one table produced; compact, so that workers send little back."""

    deal: int
    rotation: int
    seats: tuple[str, ...]
    penalties: tuple[int, ...]  #: total bullheads per seat at the end
    rounds: tuple[int, ...]  #: rounds each seat played (fewer when eliminated)
    winners: tuple[int, ...]
    ranks: tuple[float, ...]
    decisions: tuple[int, ...]  #: decisions each seat's own bot made (not the default bot)
    seconds: tuple[float, ...]  #: their total think time
    faults: tuple[Fault, ...]


@dataclass(frozen=True, slots=True)
class _Job:
    """Everything a worker needs to play some deals; plain values, cheap to pickle."""

    seats: tuple[str, ...]
    rules: dict[str, Any]
    seed: int
    deals: tuple[int, ...]
    budget: Budget | None
    timeout: float | None
    sys_path: tuple[str, ...] = ()
    #: The label of each seat's bot in the results (its name), by seat of ``seats``.
    labels: tuple[str, ...] = ()
    #: Budgets for some specs, instead of ``budget``.
    budgets: tuple[tuple[str, Budget], ...] = ()


def play_table(
    rules: Rules,
    seats: Sequence[str],
    seed: int,
    deal: int,
    rotation: int,
    budget: Budget | None = None,
    timeout: float | None = None,
    labels: Sequence[str] | None = None,
    budgets: Mapping[str, Budget] | None = None,
) -> TableResult:
    """Play rotation ``rotation`` of deal ``deal``; faults are recorded, never raised.

    ``seats`` are the bots' specs; ``labels`` (default: the specs) name them in the
    result. ``budgets`` give some specs a budget of their own instead of ``budget``.
    """
    specs = rotate(seats, rotation)
    names = rotate(labels, rotation) if labels else specs
    n = len(names)
    faults: list[Fault] = []
    bots: list[Bot] = []
    for s, spec in enumerate(specs):
        own = budgets.get(spec, budget) if budgets else budget
        name = names[s]
        try:
            bots.append(make_bot(spec, bot_seed(seed, deal, rotation, s), own))
        except BotError as exc:
            # A bot that cannot even be built is played by the default player, with a fault.
            faults.append(Fault(s, name, "raised", str(exc), 1, 0))
            bots.append(DefaultPlayer(seed=s))
    built_ok = [not any(f.seat == s for f in faults) for s in range(n)]
    decisions = [0] * n
    seconds = [0.0] * n
    faulted = [not ok for ok in built_ok]

    def on_decision(seat: int, _d: Decision, secs: float) -> None:
        if not faulted[seat]:
            decisions[seat] += 1
            seconds[seat] += secs

    def on_fault(fault: Fault) -> None:
        faulted[fault.seat] = True
        # Name the fault by the arena's name of the seat, which statistics use.
        faults.append(
            Fault(fault.seat, names[fault.seat], fault.kind, fault.message, fault.round, fault.turn)
        )

    game = play_game(
        rules,
        bots,
        deal_seed(seed, deal),
        on_decision=on_decision,
        timeout=timeout,
        on_fault=on_fault,
    )
    played = [0] * n
    for event in game.events:
        if type(event) is RoundStarted:
            for p in event.players:
                played[p] += 1
    penalties = tuple(s - s0 for s, s0 in zip(game.scores, game.start_scores, strict=True))
    winners = game.winners
    keys = [(p not in winners, -played[p], penalties[p]) for p in range(n)]
    return TableResult(
        deal,
        rotation,
        names,
        penalties,
        tuple(played),
        winners,
        ranks_of(keys),
        tuple(decisions),
        tuple(seconds),
        tuple(faults),
    )


def _run_job(job: _Job) -> list[TableResult]:
    """Play every rotation of the job's deals (runs in a worker)."""
    for entry in job.sys_path:
        if entry not in sys.path:
            sys.path.append(entry)
    rules = Rules.from_dict(job.rules)
    out = []
    budgets = dict(job.budgets)
    for d in job.deals:
        for r in range(len(job.seats)):
            out.append(
                play_table(
                    rules, job.seats, job.seed, d, r, job.budget, job.timeout,
                    job.labels, budgets,
                )
            )
    return out


# -- results ---------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class BotStats:
    """One bot's results, over every seat it held at every table."""

    name: str
    mean_penalty: float  #: bullheads per round played, averaged over deal groups
    ci95: float  #: half-width of the 95% confidence interval of ``mean_penalty``
    win_share: float  #: wins per seat held; a shared win counts 1/k for each of k winners
    avg_rank: float  #: 1 = best; ties share the average place
    sec_per_decision: float
    rounds: int  #: rounds played, summed over the seats held
    decisions: int
    seats: int  #: seats held, summed over tables
    mu: float
    sigma: float
    ordinal: float  #: openskill ordinal, mu - 3 sigma
    faults: int
    #: half-width of the 95% interval of ``win_share``, over the deal groups
    win_ci95: float = math.nan


@dataclass(frozen=True)
class ArenaResult:
    """The arena's outcome: per-bot statistics plus what was played."""

    bots: dict[str, BotStats]
    seating: tuple[str, ...]
    players: int
    games: int  #: deals, each played in every rotation
    tables: int
    seed: int
    rules: dict[str, Any]
    single_round: bool
    backend: str
    workers: int
    seconds: float
    fault_log: list[dict[str, Any]] = field(default_factory=list)
    #: Every table, in deal and rotation order (in the JSON as ``tables``).
    results: tuple[TableResult, ...] = ()
    #: Every pair of bots, in seating order: is the first stronger than the second?
    pairs: tuple[PairStats, ...] = ()
    #: What each label was built from: a ladder name, a strength or an import path.
    specs: dict[str, str] = field(default_factory=dict)

    def pair(self, a: str, b: str) -> PairStats:
        """The paired comparison of ``a`` against ``b`` (either order)."""
        for p in self.pairs:
            if (p.a, p.b) == (a, b):
                return p
            if (p.a, p.b) == (b, a):
                return PairStats(
                    a, b, p.deals, -p.bullheads_diff, p.bullheads_ci95, -p.bullheads_t,
                    p.bullheads_p, -p.win_diff, p.win_ci95, -p.win_t, p.win_p,
                )
        raise KeyError((a, b))

    def ranking(self) -> list[BotStats]:
        """Bots from the fewest bullheads per round to the most."""
        return sorted(self.bots.values(), key=lambda b: (b.mean_penalty, b.name))

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready: ``nan`` becomes ``None``."""

        def clean(v: Any) -> Any:
            return None if isinstance(v, float) and not math.isfinite(v) else v

        return {
            "rules": self.rules,
            "players": self.players,
            "games": self.games,
            "tables": self.tables,
            "seed": self.seed,
            "single_round": self.single_round,
            "seating": list(self.seating),
            "backend": self.backend,
            "workers": self.workers,
            "seconds": self.seconds,
            "bots": {n: {k: clean(v) for k, v in asdict(b).items()} for n, b in self.bots.items()},
            "faults": self.fault_log,
            "specs": dict(self.specs),
            "pairs": [{k: clean(v) for k, v in asdict(p).items()} for p in self.pairs],
            "table_results": [
                {
                    "deal": t.deal,
                    "rotation": t.rotation,
                    "seats": list(t.seats),
                    "penalties": list(t.penalties),
                    "rounds": list(t.rounds),
                    "winners": list(t.winners),
                    "ranks": list(t.ranks),
                    "decisions": list(t.decisions),
                    "seconds": [round(x, 6) for x in t.seconds],
                    "faults": len(t.faults),
                }
                for t in self.results
            ],
        }

    def to_json(self) -> str:
        """The result as a JSON document."""
        return json.dumps(self.to_dict(), indent=2) + "\n"

    def to_csv(self) -> str:
        """One line per bot, best first, with a header."""
        buf = io.StringIO()
        names = [f for f in BotStats.__dataclass_fields__]
        writer = csv.writer(buf, lineterminator="\n")
        writer.writerow(names)
        for b in self.ranking():
            row = asdict(b)
            writer.writerow(["" if _nan(row[k]) else row[k] for k in names])
        return buf.getvalue()


def _nan(v: Any) -> bool:
    return isinstance(v, float) and math.isnan(v)


def summarize(tables: Sequence[TableResult]) -> dict[str, BotStats]:
    """Statistics and openskill ratings from tables, in deal and rotation order."""
    from openskill.models import PlackettLuce

    ordered = sorted(tables, key=lambda t: (t.deal, t.rotation))
    names: list[str] = []
    for t in ordered:
        for n in t.seats:
            if n not in names:
                names.append(n)
    model = PlackettLuce()
    mu = {n: model.mu for n in names}
    sigma = {n: model.sigma for n in names}
    # Per deal group: bullheads, rounds, wins and seats per name.
    groups: dict[int, dict[str, list[float]]] = {}
    win = dict.fromkeys(names, 0.0)
    rank = dict.fromkeys(names, 0.0)
    seats = dict.fromkeys(names, 0)
    rounds = dict.fromkeys(names, 0)
    decisions = dict.fromkeys(names, 0)
    secs = dict.fromkeys(names, 0.0)
    faults = dict.fromkeys(names, 0)
    for t in ordered:
        g = groups.setdefault(t.deal, {})
        for s, n in enumerate(t.seats):
            acc = g.setdefault(n, [0.0, 0.0, 0.0, 0.0])
            acc[0] += t.penalties[s]
            acc[1] += t.rounds[s]
            acc[2] += 1 / len(t.winners) if s in t.winners else 0.0
            acc[3] += 1
            seats[n] += 1
            rounds[n] += t.rounds[s]
            decisions[n] += t.decisions[s]
            secs[n] += t.seconds[s]
            rank[n] += t.ranks[s]
            if s in t.winners:
                win[n] += 1 / len(t.winners)
        for f in t.faults:
            faults[f.bot] = faults.get(f.bot, 0) + 1
        # Ratings: one team per seat; a name at several seats moves by its seats' average.
        teams = [[model.rating(mu=mu[n], sigma=sigma[n], name=n)] for n in t.seats]
        new = model.rate(teams, ranks=list(t.ranks))
        moved: dict[str, list[tuple[float, float]]] = {}
        for s, n in enumerate(t.seats):
            moved.setdefault(n, []).append((new[s][0].mu, new[s][0].sigma))
        for n, vals in moved.items():
            mu[n] = math.fsum(v[0] for v in vals) / len(vals)
            sigma[n] = math.fsum(v[1] for v in vals) / len(vals)
    out: dict[str, BotStats] = {}
    for n in names:
        per_group = [g[n][0] / g[n][1] for g in groups.values() if n in g and g[n][1] > 0]
        mean, half = ci95(per_group)
        _, win_half = ci95([g[n][2] / g[n][3] for g in groups.values() if n in g])
        out[n] = BotStats(
            name=n,
            mean_penalty=mean,
            ci95=half,
            win_share=win[n] / seats[n],
            avg_rank=rank[n] / seats[n],
            sec_per_decision=secs[n] / decisions[n] if decisions[n] else math.nan,
            rounds=rounds[n],
            decisions=decisions[n],
            seats=seats[n],
            mu=mu[n],
            sigma=sigma[n],
            ordinal=mu[n] - 3 * sigma[n],
            faults=faults[n],
            win_ci95=win_half,
        )
    return out


def pairs_of(tables: Sequence[TableResult]) -> tuple[PairStats, ...]:
    """Every pair of names, in the order they first sit, compared deal by deal."""
    names: list[str] = []
    groups: dict[int, dict[str, list[float]]] = {}
    for t in sorted(tables, key=lambda t: (t.deal, t.rotation)):
        g = groups.setdefault(t.deal, {})
        for s, n in enumerate(t.seats):
            if n not in names:
                names.append(n)
            acc = g.setdefault(n, [0.0, 0.0, 0.0, 0.0])
            acc[0] += t.penalties[s]
            acc[1] += t.rounds[s]
            acc[2] += 1 / len(t.winners) if s in t.winners else 0.0
            acc[3] += 1
    out = []
    for i, a in enumerate(names):
        for b in names[i + 1 :]:
            both = [g for g in groups.values() if a in g and b in g and g[a][1] and g[b][1]]
            out.append(
                paired(
                    a, b,
                    [g[a][0] / g[a][1] for g in both], [g[b][0] / g[b][1] for g in both],
                    [g[a][2] / g[a][3] for g in both], [g[b][2] / g[b][3] for g in both],
                )
            )
    return tuple(out)


# -- backends ----------------------------------------------------------------------

Progress = Callable[[int], None]


def _chunks(games: int, workers: int) -> Iterator[tuple[int, ...]]:
    """Deals in chunks: small enough to spread and show progress, big enough to be cheap."""
    size = max(1, min(16, games // (workers * 8)))
    for start in range(0, games, size):
        yield tuple(range(start, min(games, start + size)))


def _run_local(jobs: list[_Job], workers: int, advance: Progress) -> list[TableResult]:
    out: list[TableResult] = []
    if workers == 1:
        for job in jobs:
            done = _run_job(job)
            out.extend(done)
            advance(len(done))
        return out
    from concurrent.futures.process import BrokenProcessPool

    try:
        with ProcessPoolExecutor(max_workers=workers) as pool:
            futures = {pool.submit(_run_job, job) for job in jobs}
            while futures:
                finished, futures = wait(futures, return_when=FIRST_COMPLETED)
                for f in finished:
                    done = f.result()
                    out.extend(done)
                    advance(len(done))
    except BrokenProcessPool as exc:
        raise ArenaError(
            f"a worker process died (a bot may have ended the process): {exc}"
        ) from exc
    return out


def _run_ray(
    jobs: list[_Job], address: str, workers: int | None, advance: Progress
) -> list[TableResult]:
    """Run the jobs as Ray tasks. ``local`` starts a private instance; ``auto`` joins the
    running one (or starts one when none runs); anything else is a cluster address."""
    os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")
    try:
        import ray
    except ImportError as exc:
        raise ArenaError("Ray is not installed: pip install 'nimmt[cluster]'") from exc
    started = False
    if not ray.is_initialized():
        start_kwargs: dict[str, Any] = {
            "include_dashboard": False,
            "log_to_driver": False,
            "configure_logging": False,
        }
        if workers is not None:
            start_kwargs["num_cpus"] = workers
        if address == "local":
            ray.init(address="local", **start_kwargs)
        elif address == "auto":
            try:
                ray.init(address="auto", log_to_driver=False, configure_logging=False)
            except ConnectionError:
                ray.init(address="local", **start_kwargs)
        else:
            ray.init(address=address, log_to_driver=False, configure_logging=False)
        started = True
    try:
        remote = ray.remote(num_cpus=1, max_retries=0)(_run_job)
        pending = [remote.remote(job) for job in jobs]
        out: list[TableResult] = []
        while pending:
            ready, pending = ray.wait(pending, num_returns=1)
            for ref in ready:
                done = ray.get(ref)
                out.extend(done)
                advance(len(done))
        return out
    finally:
        if started:
            ray.shutdown()


# -- the entry point ---------------------------------------------------------------


def run_arena(
    bots: Sequence[str],
    *,
    players: int = 4,
    games: int,
    seed: int,
    rules: Rules | None = None,
    single_round: bool = False,
    workers: int | None = None,
    ray_address: str | None = None,
    budget: Budget | None = None,
    progress: bool | Callable[[int, int], None] = False,
    timeout: float | None = None,
    budgets: Mapping[str, Budget] | None = None,
) -> ArenaResult:
    """Play ``games`` duplicate deals, each in every rotation of the seating.

    ``bots`` are ladder names, strength levels or import paths; with fewer
    names than ``players`` the last name fills the remaining seats, and
    statistics are per name. ``rules`` default to the classic preset for
    ``players``; ``single_round`` plays one round per table instead of whole
    games. ``workers`` processes (default: one per CPU; ``1`` plays in this
    process) or Ray at ``ray_address``. ``budget`` is passed to every bot, except
    the specs named in ``budgets``, which get their own (equal think time for bots
    of different speeds); ``timeout`` bounds each decision. A bad bot name raises
    :class:`BotError` before anything is played.

    Bots are labelled by their ``name`` (a user's ``pkg.mod:MyBot`` whose name is
    ``mybot`` is ``mybot`` in the results); two specs with the same name are told
    apart by the spec in brackets. ``progress`` shows a progress bar, or is called
    as ``progress(done, total)`` after each batch of tables.
    """
    if type(games) is not int or games < 1:
        raise ArenaError(f"games must be a positive whole number, not {games!r}")
    if type(seed) is not int or seed < 0:
        raise ArenaError(f"seed must be a whole number >= 0, not {seed!r}")
    if workers is not None and (type(workers) is not int or workers < 1):
        raise ArenaError(f"workers must be a positive whole number, not {workers!r}")
    if timeout is not None and not timeout > 0:
        raise ArenaError(f"timeout must be positive, not {timeout!r}")
    if rules is None:
        rules = Rules.preset("classic", players=players)
    elif rules.players != players:
        raise ArenaError(f"the rules are for {rules.players} players, but players={players}")
    table_rules = one_round(rules) if single_round else rules
    seats = seating(bots, players)
    own = dict(budgets or {})
    unknown = sorted(set(own) - set(seats))
    if unknown:
        raise ArenaError(f"a budget is given for {unknown[0]!r}, which does not play")
    labels = labels_of(seats, budget, own)  # a bad name or path fails here, naming the bot
    seat_labels = tuple(labels[spec] for spec in seats)
    n_workers = workers or os.cpu_count() or 1
    jobs = [
        _Job(
            seats, table_rules.to_dict(), seed, chunk, budget, timeout, _import_path(),
            seat_labels, tuple(own.items()),
        )
        for chunk in _chunks(games, n_workers)
    ]
    total = games * players
    start = time.perf_counter()
    with _progress_bar(progress, total) as advance:
        if ray_address is not None:
            results = _run_ray(jobs, ray_address, workers, advance)
            backend = f"ray:{ray_address}"
        else:
            results = _run_local(jobs, n_workers, advance)
            backend = "local" if n_workers == 1 else "processes"
    elapsed = time.perf_counter() - start
    ordered = sorted(results, key=lambda t: (t.deal, t.rotation))
    fault_log = [
        {"deal": t.deal, "rotation": t.rotation, **asdict(f)} for t in ordered for f in t.faults
    ]
    return ArenaResult(
        bots=summarize(ordered),
        seating=seat_labels,
        players=players,
        games=games,
        tables=len(ordered),
        seed=seed,
        rules=table_rules.to_dict(),
        single_round=single_round,
        backend=backend,
        workers=n_workers,
        seconds=elapsed,
        fault_log=fault_log,
        results=tuple(ordered),
        pairs=pairs_of(ordered),
        specs={labels[spec]: spec for spec in dict.fromkeys(seats)},
    )


def labels_of(
    seats: Sequence[str], budget: Budget | None = None,
    budgets: Mapping[str, Budget] | None = None,
) -> dict[str, str]:
    """The label of each spec: the name of the bot it builds.

    Builds each bot once (so a bad name or path fails here, before any play).
    A name taken by an earlier spec is told apart by the spec in brackets.

    >>> labels_of(["expert", "hard", "nimmt.bots.simple:CheapestBot"])
    {'expert': 'expert', 'hard': 'mcs', 'nimmt.bots.simple:CheapestBot': 'cheapest'}
    """
    out: dict[str, str] = {}
    for spec in dict.fromkeys(seats):
        own = (budgets or {}).get(spec, budget)
        name = str(make_bot(spec, 0, own).name)
        out[spec] = name if name not in out.values() else f"{name} ({spec})"
    return out


def _import_path() -> tuple[str, ...]:
    """This process's import path, so workers elsewhere (Ray) find the same user bots."""
    return tuple(os.path.abspath(p) if p else os.getcwd() for p in sys.path)


class _progress_bar:
    """A rich progress bar with the time left, or nothing."""

    def __init__(self, show: bool | Callable[[int, int], None], total: int) -> None:
        self.show = show
        self.total = total
        self._bar: Any = None
        self._task: Any = None

    def __enter__(self) -> Progress:
        if callable(self.show):
            report = self.show
            done = [0]

            def advance(k: int) -> None:
                done[0] += k
                report(done[0], self.total)

            return advance
        if not self.show:
            return lambda k: None
        from rich.console import Console
        from rich.progress import (
            BarColumn,
            MofNCompleteColumn,
            Progress,
            TextColumn,
            TimeElapsedColumn,
            TimeRemainingColumn,
        )

        self._bar = Progress(
            TextColumn("tables"),
            BarColumn(),
            MofNCompleteColumn(),
            TimeElapsedColumn(),
            TextColumn("left"),
            TimeRemainingColumn(),
            console=Console(stderr=True),  # standard output is for the results
            transient=False,
        )
        self._bar.__enter__()
        self._task = self._bar.add_task("arena", total=self.total)
        bar, task = self._bar, self._task
        return lambda k: bar.advance(task, k)

    def __exit__(self, *exc: object) -> None:
        if self._bar is not None:
            self._bar.__exit__(*exc)
