"""The bot ladder by name, strength levels, and bots entered by import path.

``make_bot`` turns a spec into a seated bot: a ladder name (``cheapest``), a
strength level for players (``easy`` … ``expert``), or an import path
``pkg.module:Class`` to any class that follows the protocol of
:class:`~nimmt.bots.base.Bot`. Classes are imported only when asked for, so
the registry works while an optional module (the search bots) is missing,
and a user's bot costs nothing until it plays.

Import paths are for whoever runs the code: the local arena, a Python caller.
Where the name comes from a stranger (the game server's ``add_bot``) the caller
passes ``allow_paths=False`` and the names it offers beyond the ladder as
``extra`` (the operator's bots), so no name a client sends can import anything.

>>> make_bot("cheapest", seed=3).name
'cheapest'
>>> make_bot("medium").name
'dodger'
"""

from __future__ import annotations

import importlib
import inspect
import re
from collections.abc import Mapping
from typing import Any

from ..errors import NimmtError
from .base import Bot, Budget

__all__ = [
    "BOTS",
    "NAME_PATTERN",
    "STRENGTHS",
    "BotError",
    "bot_class",
    "build_bot",
    "check_extra",
    "describe_bots",
    "make_bot",
    "offered",
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

#: What a bot's name looks like (ladder, strengths, an operator's bots): a plain word, so a
#: name can never be read as an import path. The server's protocol holds ``add_bot`` to it.
NAME_PATTERN = r"^[A-Za-z0-9_-]{1,32}$"
_NAME = re.compile(NAME_PATTERN)

#: An import path: dotted module, colon, dotted attribute.
_PATH = re.compile(r"^[A-Za-z_][\w]*(\.[A-Za-z_][\w]*)*:[A-Za-z_][\w]*(\.[A-Za-z_][\w]*)*$")

_METHODS = ("choose_card", "choose_row", "draft_card")


def resolve_spec(
    spec: str, *, allow_paths: bool = True, extra: Mapping[str, str] | None = None
) -> str:
    """The import path for a ladder name, a strength level, a name in ``extra``, or (when
    ``allow_paths``) an import path.

    ``extra`` maps more names to import paths: the bots a server's operator enabled.
    With ``allow_paths=False`` nothing outside the ladder, the strengths and ``extra``
    resolves, so a caller that passes a stranger's string can only pick from that list.

    >>> resolve_spec("medium")
    'nimmt.bots.simple:DodgerBot'
    >>> resolve_spec("os:abort", allow_paths=False)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    nimmt.bots.registry.BotError: unknown bot 'os:abort': this one offers random, cheapest, ...
    """
    spec = spec.strip()
    if not spec:
        raise BotError("empty bot name")
    # A ladder name wins over a strength of the same name ("expert" is both, and the same).
    if spec in BOTS:
        return BOTS[spec]
    if spec in STRENGTHS:
        return BOTS[STRENGTHS[spec]]
    if extra and spec in extra:
        return extra[spec]
    if allow_paths and ":" in spec:
        return spec
    known = ", ".join(offered(extra))
    if not allow_paths:
        raise BotError(f"unknown bot {spec!r}: this one offers {known}")
    raise BotError(
        f"unknown bot {spec!r}: use a ladder name or strength ({known}) "
        "or an import path such as mypkg.mybot:MyBot"
    )


def offered(extra: Mapping[str, str] | None = None) -> list[str]:
    """Every name :func:`resolve_spec` knows without import paths: ladder, strengths, extra.

    >>> offered({"mine": "pkg.mod:Mine"})[-3:]
    ['medium', 'hard', 'mine']
    """
    names = [*BOTS, *(s for s in STRENGTHS if s not in BOTS)]
    return [*names, *(n for n in (extra or {}) if n not in names)]


def check_extra(extra: Mapping[str, str]) -> None:
    """Refuse ``extra`` names that are not plain names or shadow the ladder, and paths that
    are not import paths (the shape only; :func:`bot_class` says whether they import)."""
    for name, path in extra.items():
        if not _NAME.match(name):
            raise BotError(f"bot name {name!r}: use letters, digits, '-' and '_' (1 to 32)")
        if name in BOTS or name in STRENGTHS:
            raise BotError(f"bot name {name!r} is a built-in bot already; choose another")
        if not isinstance(path, str) or not _PATH.match(path):
            raise BotError(f"bot {name!r}: {path!r} is not an import path like pkg.mod:Class")


def bot_class(spec: str, *, allow_paths: bool = True,
              extra: Mapping[str, str] | None = None) -> Any:
    """Import the class (or factory) named by ``spec``; a clear :class:`BotError` if it fails.

    ``allow_paths`` and ``extra`` are those of :func:`resolve_spec`.
    """
    path = resolve_spec(spec, allow_paths=allow_paths, extra=extra)
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


def make_bot(spec: str, seed: int = 0, budget: Budget | None = None, *,
             allow_paths: bool = True, extra: Mapping[str, str] | None = None) -> Bot:
    """A bot from a ladder name, a strength level or an import path ``pkg.module:Class``.

    The class is called as ``Cls(seed=seed, budget=budget)`` when it accepts
    those keywords (every built-in bot does); a user's class that takes fewer
    keywords gets only the ones it accepts. The result must have the three
    methods of the protocol; its ``name`` defaults to ``spec``. ``allow_paths``
    and ``extra`` are those of :func:`resolve_spec` (the server passes
    ``allow_paths=False``).
    """
    return build_bot(bot_class(spec, allow_paths=allow_paths, extra=extra), spec, seed, budget)


def build_bot(cls: Any, spec: str, seed: int = 0, budget: Budget | None = None) -> Bot:
    """A bot from a class :func:`bot_class` gave, checked as :func:`make_bot` checks it.

    Apart so that a caller that seats many bots of one name (the server's bot
    workers, once per decision) imports and looks the class up only once.
    """
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
