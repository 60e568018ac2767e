"""The inside of a bot worker process (see :mod:`.botpool` for the outside).

Kept apart from the pool so that a worker imports only what thinking needs
(the registry, the bots, the engine; numba in the search lane), not asyncio or
the server: a worker starts in about 0.05 s of CPU, and a killed one is
replaced quickly.

A worker reads jobs from its socket, each a length-prefixed pickle of
``(bot name, seed, seconds, view)`` sent by the server, and answers each with a
length-prefixed JSON object: ``{"decision": {...}, "fault": null}`` (the
decision as :func:`~nimmt.decisions.decision_to_dict` writes it), or with
``"fault": {"kind": ..., "message": ...}`` when the bot raised or answered
illegally and the default player decided instead, or ``{"error": "..."}`` when
not even that could be done. The bot is asked through
:func:`nimmt.bots.play.decide_safely`, the bot-fault policy the arena uses too.
The first thing a worker sends, once warmed up, is ``{"ready": pid,
"unavailable": {name: why}, "numba": true|false|null}`` (whether the search
kernel is compiled; null in the quick lane, which has none).
"""

from __future__ import annotations

import contextlib
import json
import os
import pickle
import signal
from typing import TYPE_CHECKING, Any

from ...bots.base import Budget
from ...bots.play import decide_safely
from ...bots.registry import BOTS, STRENGTHS, BotError, bot_class, build_bot, offered
from ...bots.simple import DefaultPlayer
from ...decisions import decision_to_dict
from .lifeline import exit_with_parent, serve_frames

if TYPE_CHECKING:
    import socket

__all__ = ["DEFAULT", "QUICK", "lane_of", "main"]

#: The table's stand-in for absent people: run like a bot, never offered to hosts.
DEFAULT = "default"
DEFAULT_PATH = "nimmt.server.workers.autoplay:DefaultPlayer"

#: Ladder names cheap enough for the quick lane (strengths map onto them).
QUICK = frozenset({"random", "beginner", "cheapest", "lowrisk", "dodger"})

def lane_of(name: str) -> str:
    """``quick`` or ``search``: the lane whose workers run bot ``name``.

    >>> lane_of("medium"), lane_of("default"), lane_of("expert"), lane_of("mybot")
    ('quick', 'quick', 'search', 'search')
    """
    if name == DEFAULT:
        return "quick"
    ladder = name if name in BOTS else STRENGTHS.get(name, name)
    return "quick" if ladder in QUICK else "search"


def main(sock: socket.socket, lane: str, nice: int, extra: dict[str, str]) -> None:
    """Warm up, say ready, then answer jobs until the server closes the socket.

    The bot is built for every job from its class (imported once per name) with
    the job's seed, so an answer depends on the job only, never on this
    worker's history.
    """
    exit_with_parent()  # a killed server leaves no worker thinking for nobody
    # Ctrl-C in a terminal reaches the whole process group: the server stops its workers.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    with contextlib.suppress(OSError):
        os.nice(nice)
    names = {**extra, DEFAULT: DEFAULT_PATH}
    classes: dict[str, Any] = {}
    unavailable: dict[str, str] = {}
    for name in [*offered(extra), DEFAULT]:
        if lane_of(name) != lane:
            continue
        try:
            classes[name] = bot_class(name, allow_paths=False, extra=names)
        except BotError as exc:
            unavailable[name] = str(exc)
    compiled: bool | None = None
    if lane == "search":
        # Compile (or load from numba's cache) the kernel and measure every table's round
        # prior now, not in a decision's budget: a respawned worker is ready before it is
        # asked anything.
        try:
            from ...sim.kernel import NUMBA
            from ...sim.search import warm_up
        except ImportError:
            pass  # numpy missing: the search bots are reported unavailable above
        else:
            warm_up()
            compiled = NUMBA

    def reply_to(body: bytes) -> bytes:
        spec, seed, seconds, view = pickle.loads(body)
        try:
            cls = classes[spec] if spec in classes else bot_class(
                spec, allow_paths=False, extra=names)
            bot = build_bot(cls, spec, seed, Budget(seconds=seconds))
            # The server keeps the deadline (it kills a worker that runs past it): no
            # timeout here. A bot that raises or answers illegally is a fault, and the
            # default player answers.
            answer = decide_safely(bot, view, DefaultPlayer(seed=seed))
            fault = answer.fault
            reply: dict[str, Any] = {
                "decision": decision_to_dict(answer.decision),
                "fault": None if fault is None else {"kind": fault.kind,
                                                     "message": fault.message[:300]},
            }
        except Exception as exc:
            reply = {"error": f"{type(exc).__name__}: {exc}"[:300]}
        return json.dumps(reply).encode()

    ready = {"ready": os.getpid(), "unavailable": unavailable, "numba": compiled}
    serve_frames(sock, json.dumps(ready).encode(), reply_to)
