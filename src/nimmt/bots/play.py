"""The driver: seat bots at a game and play it to the end, and the bot-fault policy.

Each pending player's bot is asked for its decision from ``game.view(seat)``
only, the answer is checked against the legal options, and the decision is
applied. The driver also times every decision and can hold bots to a time
limit.

A bot that raises, answers illegally or runs out of time is a *fault*, and
every place that seats bots handles it the same way, through
:func:`decide_safely`: the fault is reported with the bot's name, and the
default player (:class:`~nimmt.bots.simple.DefaultPlayer`, docs/rules.md §5)
answers instead, so the game goes on. :func:`play_game` raises
:class:`BotFault` at the first fault unless given ``on_fault``; with it, the
default player plays that seat for the rest of the game.

>>> from nimmt import Rules
>>> from nimmt.bots.simple import CheapestBot
>>> game = play_game(Rules.preset("classic", 3), [CheapestBot(s) for s in range(3)], seed=1)
>>> game.is_over
True
"""

from __future__ import annotations

import operator
import random
import signal
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import Any, Literal, NamedTuple

from ..cards import card_or_repr
from ..deals import Deal
from ..decisions import Decision, DecisionKind, make_decision
from ..engine import Game
from ..errors import RulesError
from ..rules import EndMode, Rules
from ..views import View
from .base import Bot
from .registry import BotError, make_bot
from .simple import DefaultPlayer

__all__ = [
    "Answer",
    "BotFault",
    "Fault",
    "OnDecision",
    "OnFault",
    "call_bot",
    "decide_safely",
    "play_game",
    "play_round",
]

FaultKind = Literal["raised", "illegal", "timeout"]


@dataclass(frozen=True, slots=True)
class Fault:
    """One misbehaviour of a bot: which seat and bot, what kind, and when."""

    seat: int
    bot: str
    kind: FaultKind
    message: str
    round: int
    turn: int

    def describe(self) -> str:
        """A sentence naming the bot, for logs and error messages."""
        where = f"round {self.round}" + (f", turn {self.turn}" if self.turn else "")
        return f"bot {self.bot!r} (seat {self.seat + 1}, {where}): {self.message}"


class BotFault(BotError):
    """A bot raised, answered illegally or ran out of time; ``fault`` says which and how."""

    def __init__(self, fault: Fault) -> None:
        super().__init__(fault.describe())
        self.fault = fault


#: ``on_decision(seat, decision, seconds)`` after each decision is applied.
OnDecision = Callable[[int, Decision, float], None]
#: ``on_fault(fault)`` when a bot misbehaves; the default bot then plays its seat.
OnFault = Callable[[Fault], None]


class _OutOfTime(BaseException):
    """Raised inside a bot by the alarm. A BaseException so ``except Exception`` in a bot
    cannot swallow it."""


def _alarm(signum: int, frame: Any) -> None:
    raise _OutOfTime


def _call_in_thread(fn: Callable[[View], Any], view: View, timeout: float) -> tuple[bool, Any]:
    """Run ``fn(view)`` in a helper thread; ``(finished, result or exception)``.

    Used where an alarm signal cannot be (not the main thread, or another
    alarm is running, such as a test timeout). A bot that never returns is
    abandoned in its daemon thread; its seat is then played by the default bot.
    """
    box: list[Any] = []

    def run() -> None:
        try:
            box.append((True, fn(view)))
        except BaseException as exc:
            box.append((False, exc))

    worker = threading.Thread(target=run, name="nimmt-bot", daemon=True)
    worker.start()
    worker.join(timeout)
    if not box:
        return False, None
    ok, value = box[0]
    if not ok:
        raise value
    return True, value


def call_bot(fn: Callable[[View], Any], view: View, timeout: float | None) -> tuple[Any, float]:
    """Call a bot method, within ``timeout`` seconds if given; ``(answer, seconds)``.

    Raises :class:`TimeoutError` when the bot runs out of time; whatever the
    bot raises passes through. In the main thread a real-time alarm
    interrupts the bot (so a runaway loop stops); elsewhere a helper thread
    waits for it.
    """
    start = time.perf_counter()
    if timeout is None:
        answer = fn(view)
        return answer, time.perf_counter() - start
    if timeout <= 0:
        raise ValueError("timeout must be positive")
    use_alarm = (
        hasattr(signal, "setitimer")
        and threading.current_thread() is threading.main_thread()
        and signal.getitimer(signal.ITIMER_REAL)[0] == 0
    )
    if use_alarm:
        previous = signal.signal(signal.SIGALRM, _alarm)
        try:
            signal.setitimer(signal.ITIMER_REAL, timeout)
            try:
                answer = fn(view)
            finally:
                signal.setitimer(signal.ITIMER_REAL, 0)
        except _OutOfTime:
            raise TimeoutError(f"no answer within {timeout:g} s") from None
        finally:
            signal.signal(signal.SIGALRM, previous)
    else:
        finished, answer = _call_in_thread(fn, view, timeout)
        if not finished:
            raise TimeoutError(f"no answer within {timeout:g} s")
    seconds = time.perf_counter() - start
    if seconds > timeout:
        raise TimeoutError(f"answered after {seconds:.3g} s, over the limit of {timeout:g} s")
    return answer, seconds


def _bot_name(bot: object) -> str:
    name = getattr(bot, "name", None)
    return name if isinstance(name, str) else type(bot).__name__


def _method(bot: Bot, kind: DecisionKind) -> Callable[[View], Any]:
    if kind is DecisionKind.CARD:
        return bot.choose_card
    if kind is DecisionKind.ROW:
        return bot.choose_row
    return bot.draft_card


def _as_option(answer: object, options: tuple[int, ...]) -> int | None:
    """The answer as a legal option, or ``None``. Integer-like values (numpy) are accepted."""
    if isinstance(answer, bool):
        return None
    try:
        value = operator.index(answer)  # type: ignore[arg-type]
    except TypeError:
        return None
    return value if value in options else None


def _label(kind: DecisionKind, value: object) -> str:
    return f"row {value!r}" if kind is DecisionKind.ROW else card_or_repr(value)


class Answer(NamedTuple):
    """What :func:`decide_safely` decided for a seat."""

    #: The decision to apply: the bot's, or the fallback's after a fault.
    decision: Decision
    #: The bot's fault, or ``None`` when the bot answered legally in time.
    fault: Fault | None
    #: How long the bot thought (0 when it raised before answering).
    seconds: float


def decide_safely(
    bot: Bot, view: View, fallback: Bot, *, timeout: float | None = None
) -> Answer:
    """The decision of ``bot`` for the one pending in ``view``, or ``fallback``'s after a fault.

    The bot sees only ``view`` and has ``timeout`` seconds if given (see
    :func:`call_bot`). If it raises, answers anything but one of
    ``view.options``, or runs out of time, the :class:`Fault` names the bot,
    its seat, what went wrong and when, and ``fallback`` (the table's default
    player, :class:`~nimmt.bots.simple.DefaultPlayer`) answers instead,
    without a time limit: it is trusted, and its own failure is a bug that
    raises. This is the one bot-fault policy of the arena and of tables.
    """
    pending = view.pending
    seat = view.player
    if pending is None or seat is None or seat not in pending.players:
        raise BotError("decide_safely needs the view of a player whose decision is pending")
    kind = pending.kind
    fault: Fault | None = None
    seconds = 0.0
    try:
        answer, seconds = call_bot(_method(bot, kind), view, timeout)
    except TimeoutError as exc:
        fault = Fault(seat, _bot_name(bot), "timeout", str(exc), view.round, view.turn)
    except Exception as exc:
        message = f"{kind.value} decision raised {type(exc).__name__}: {exc}"
        fault = Fault(seat, _bot_name(bot), "raised", message, view.round, view.turn)
    else:
        value = _as_option(answer, view.options)
        if value is not None:
            return Answer(make_decision(kind, seat, value), None, seconds)
        message = (
            f"illegal {kind.value} decision {_label(kind, answer)}; legal: {list(view.options)}"
        )
        fault = Fault(seat, _bot_name(bot), "illegal", message, view.round, view.turn)
    value = _as_option(_method(fallback, kind)(view), view.options)
    if value is None:
        raise BotError(f"the fallback {_bot_name(fallback)!r} answered illegally")
    return Answer(make_decision(kind, seat, value), fault, seconds)


def play_game(
    rules: Rules,
    bots: Sequence[Bot | str],
    seed: int | random.Random | None = None,
    *,
    deals: Sequence[Deal] | None = None,
    on_decision: OnDecision | None = None,
    timeout: float | None = None,
    on_fault: OnFault | None = None,
) -> Game:
    """Play a whole game with one bot per seat; returns the finished :class:`Game`.

    A bot is any object of the bot protocol, or a name for
    :func:`~nimmt.bots.registry.make_bot` (seeded with its seat number).
    ``seed`` deals every round (``deals`` are used first, round by round).
    ``timeout`` is the longest a bot may think over one decision. Without
    ``on_fault`` a misbehaving bot raises :class:`BotFault`; with it, the
    fault is reported and the default player
    (:class:`~nimmt.bots.simple.DefaultPlayer`, seeded with the seat number)
    plays that seat from the faulty move on (see :func:`decide_safely`).
    """
    if len(bots) != rules.players:
        raise RulesError(f"{rules.players} players need {rules.players} bots, not {len(bots)}")
    game = Game(rules, seed, deals=deals or ())
    seated = [make_bot(b, seed=s) if isinstance(b, str) else b for s, b in enumerate(bots)]
    fallbacks = [DefaultPlayer(seed=s) for s in range(rules.players)]
    replaced = [False] * len(seated)
    while not game.is_over:
        pending = game.pending
        if pending is None:
            raise RulesError("the game ran out of deals: give a seed or more deals")
        seat = pending.players[0]
        view = game.view(seat)
        decision, fault, seconds = decide_safely(
            seated[seat], view, fallbacks[seat], timeout=None if replaced[seat] else timeout
        )
        if fault is not None:
            if on_fault is None:
                raise BotFault(fault)
            on_fault(fault)
            seated[seat] = fallbacks[seat]
            replaced[seat] = True
        game.decide(decision)
        if on_decision is not None:
            on_decision(seat, decision, seconds)
    return game


def single_round(rules: Rules) -> Rules:
    """The same table for exactly one round (the fixed-rounds end with one round)."""
    return replace(rules, end=EndMode.ROUNDS, rounds=1)


def play_round(
    rules: Rules,
    bots: Sequence[Bot | str],
    seed: int | random.Random | None,
    *,
    deal: Deal | None = None,
    on_decision: OnDecision | None = None,
    timeout: float | None = None,
    on_fault: OnFault | None = None,
) -> Game:
    """Play one round (``rules`` with the end set to one fixed round); see :func:`play_game`."""
    return play_game(
        single_round(rules),
        bots,
        seed,
        deals=[deal] if deal is not None else None,
        on_decision=on_decision,
        timeout=timeout,
        on_fault=on_fault,
    )
