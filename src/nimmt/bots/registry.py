"""The bot ladder by name, strength levels, and bots entered by import path.

``make_bot`` turns a spec into a seated bot: a ladder name (``cheapest``), a
strength level for players (``easy`` … ``expert``), or an import path
``pkg.module:Class`` to any class that follows the protocol of
:class:`~nimmt.bots.base.Bot`. Classes are imported only when asked for, so
the registry works while an optional module (the search bots) is missing,
and a user's bot costs nothing until it plays.

>>> make_bot("cheapest", seed=3).name
'cheapest'
>>> make_bot("medium").name
'dodger'
"""

from __future__ import annotations

import importlib
import inspect
from typing import Any

from ..errors import NimmtError
from .base import Bot, Budget

__all__ = [
    "BOTS",
    "STRENGTHS",
    "BotError",
    "bot_class",
    "describe_bots",
    "make_bot",
    "resolve_spec",
]


class BotError(NimmtError):
    """A bot that cannot be found, built, or trusted; the message names it."""


#: The ladder, weakest first: name → import path. The search bots live on floor 3
#: beside the kernel they roll out with (``nimmt.sim.search``); naming them by path
#: keeps this floor from importing upward: they load only when asked for.
BOTS: dict[str, str] = {
    "random": "nimmt.bots.simple:RandomBot",
    "cheapest": "nimmt.bots.simple:CheapestBot",
    "lowrisk": "nimmt.bots.simple:LowRiskBot",
    "dodger": "nimmt.bots.simple:DodgerBot",
    "mcs": "nimmt.sim.search:MCSBot",
    "expert": "nimmt.sim.search:ExpertBot",
}

#: Strength levels offered to players, mapped to the ladder.
STRENGTHS: dict[str, str] = {
    "easy": "cheapest",
    "medium": "dodger",
    "hard": "mcs",
    "expert": "expert",
}

_METHODS = ("choose_card", "choose_row", "draft_card")


def resolve_spec(spec: str) -> str:
    """The import path for a ladder name, a strength level, or an import path.

    >>> resolve_spec("medium")
    'nimmt.bots.simple:DodgerBot'
    """
    spec = spec.strip()
    if not spec:
        raise BotError("empty bot name")
    # A ladder name wins over a strength of the same name ("expert" is both, and the same).
    if spec in BOTS:
        return BOTS[spec]
    if spec in STRENGTHS:
        return BOTS[STRENGTHS[spec]]
    if ":" in spec:
        return spec
    known = ", ".join([*BOTS, *STRENGTHS])
    raise BotError(
        f"unknown bot {spec!r}: use a ladder name or strength ({known}) "
        "or an import path such as mypkg.mybot:MyBot"
    )


def bot_class(spec: str) -> Any:
    """Import the class (or factory) named by ``spec``; a clear :class:`BotError` if it fails."""
    path = resolve_spec(spec)
    module_name, _, attr = path.partition(":")
    if not module_name or not attr:
        raise BotError(f"bot {spec!r}: an import path looks like pkg.module:Class")
    try:
        module = importlib.import_module(module_name)
    except ImportError as exc:
        raise BotError(f"bot {spec!r}: cannot import module {module_name!r} ({exc})") from exc
    except Exception as exc:
        raise BotError(
            f"bot {spec!r}: importing module {module_name!r} failed: {type(exc).__name__}: {exc}"
        ) from exc
    obj: Any = module
    for part in attr.split("."):
        try:
            obj = getattr(obj, part)
        except AttributeError:
            raise BotError(f"bot {spec!r}: module {module_name!r} has no {attr!r}") from None
    if not callable(obj):
        raise BotError(f"bot {spec!r}: {path} is not a class or a factory")
    return obj


def make_bot(spec: str, seed: int = 0, budget: Budget | None = None) -> Bot:
    """A bot from a ladder name, a strength level or an import path ``pkg.module:Class``.

    The class is called as ``Cls(seed=seed, budget=budget)`` when it accepts
    those keywords (every built-in bot does); a user's class that takes fewer
    keywords gets only the ones it accepts. The result must have the three
    methods of the protocol; its ``name`` defaults to ``spec``.
    """
    cls = bot_class(spec)
    kwargs: dict[str, Any] = {"seed": seed, "budget": budget}
    try:
        params = inspect.signature(cls).parameters
    except (TypeError, ValueError):
        params = None
    if params is not None and not any(
        p.kind is inspect.Parameter.VAR_KEYWORD for p in params.values()
    ):
        kwargs = {k: v for k, v in kwargs.items() if k in params}
    try:
        bot = cls(**kwargs)
    except Exception as exc:
        raise BotError(f"bot {spec!r}: building it failed: {type(exc).__name__}: {exc}") from exc
    missing = [m for m in _METHODS if not callable(getattr(bot, m, None))]
    if missing:
        raise BotError(
            f"bot {spec!r} does not follow the bot protocol: missing {', '.join(missing)}"
        )
    if not isinstance(getattr(bot, "name", None), str):
        try:
            bot.name = spec
        except AttributeError as exc:
            raise BotError(f"bot {spec!r} has no name and none can be set") from exc
    return bot  # type: ignore[no-any-return]


def describe_bots() -> list[tuple[str, str]]:
    """``(name, one-line description)`` for the whole ladder, weakest first.

    A bot whose module is missing is described as unavailable rather than
    hiding the rest of the ladder.
    """
    out: list[tuple[str, str]] = []
    for name in BOTS:
        try:
            cls = bot_class(name)
        except BotError as exc:
            out.append((name, f"(unavailable: {exc})"))
            continue
        out.append((name, str(getattr(cls, "description", "")).strip()))
    return out
