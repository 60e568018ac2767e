"""The pure-Python engine and the mypyc-compiled one behave identically.

``setup.py`` compiles the core with mypyc; ``NIMMT_PURE=1`` installs the same
sources uncompiled. This test runs :func:`behaviour` (seeded games of every
preset and variant; games, views, events, decisions and deals copied by
``pickle``, ``copy``, ``copy.deepcopy`` and ``clone``; deals given as lists;
refusals) in a subprocess that imports a copy of the sources without any
compiled module, and compares it with the build under test. The compiled
build also documents itself: ``help()`` shows the docstrings of the sources.
"""

from __future__ import annotations

import ast
import copy
import hashlib
import json
import pickle
import pydoc
import random
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import nimmt
from nimmt import Deal, DecisionKind, Game, Rules, default_row
from nimmt.decisions import make_decision
from nimmt.events import event_to_dict

SRC = Path(__file__).resolve().parent.parent / "src" / "nimmt"
SPECS = [
    "classic",
    "category5",
    "classic+tactics",
    "classic+logic",
    "classic+professional",
    "classic+open",
    "classic+open-hands",
    "classic+jokers",
    "classic+tactics+professional",
]


def digest() -> str:
    """Seeded random games of every rule set, with views and sampled worlds along the way."""
    h = hashlib.sha256()
    for spec in SPECS:
        for end in ("classic", "elimination"):
            game = Game(Rules.parse(spec, players=5, end=end), seed=11)
            rng = random.Random(5)
            while not game.is_over:
                pending = game.pending
                assert pending is not None
                for p in pending.players:
                    view = game.view(p)
                    world = Game.sample_world(view, random.Random(len(game.events)))
                    h.update(repr(sorted(world.hands[q] for q in world.active)).encode())
                    if pending.kind is DecisionKind.CARD:
                        game.play_card(p, rng.choice(game.legal(p)))
                    elif pending.kind is DecisionKind.DRAFT:
                        game.draft_card(p, rng.choice(game.legal(p)))
                    else:
                        game.take_row(p, default_row(view.rows))
            for event in game.events:
                h.update(json.dumps(event_to_dict(event), sort_keys=True).encode())
    return h.hexdigest()


def _play(game: Game, rng: random.Random, decisions: int | None = None) -> list[Any]:
    """Random legal decisions (``decisions`` of them, or to the end); returns them."""
    made = []
    while not game.is_over and (decisions is None or len(made) < decisions):
        pending = game.pending
        assert pending is not None
        p = pending.players[0]
        decision = make_decision(pending.kind, p, rng.choice(game.legal(p)))
        game.decide(decision)
        made.append(decision)
    return made


def _state(game: Game) -> tuple[Any, ...]:
    seats: list[int | None] = [*range(game.rules.players), None]
    return (
        [game.view(p) for p in seats],
        game.events,
        game.decisions,
        game.round_deals,
        game.hands,
        game.chosen,
        game.scores,
    )


COPIES: dict[str, Callable[[Any], Any]] = {
    "pickle": lambda x: pickle.loads(pickle.dumps(x)),
    "deepcopy": copy.deepcopy,
    "copy": copy.copy,
}


def copies() -> str:
    """Every way of copying a game gives an independent game that plays on identically
    (its random generator too); every value of the core survives every copy."""
    h = hashlib.sha256()
    for spec in ("classic+jokers", "classic+professional+open", "classic+logic"):
        game = Game(Rules.parse(spec, players=4, end="elimination", limit=30), seed=3)
        _play(game, random.Random(4), 37)
        twins = {name: how(game) for name, how in COPIES.items()}
        twins["clone"] = game.clone()
        before = _state(game)
        rest = _play(game.clone(), random.Random(5))
        for name, twin in twins.items():
            assert _state(twin) == before, name
            for decision in rest:
                twin.decide(decision)
            assert twin.is_over, name
            assert _state(game) == before, f"{name}: the original changed"
        final = {name: _state(twin) for name, twin in twins.items()}
        assert all(s == final["clone"] for s in final.values())
        values = [
            game.view(0),
            game.view(None),
            game.pending,
            game.round_deals[0],
            game.decisions[0][0],
            game.view(0).target(50),
            *game.events,
        ]
        for value in values:
            for name, how in COPIES.items():
                assert how(value) == value, (name, value)
        for event in twins["clone"].events:
            h.update(json.dumps(event_to_dict(event), sort_keys=True).encode())
    return h.hexdigest()


def refusals() -> list[str]:
    """What both builds say to a bad deal or a decision of the wrong type."""
    said = []
    for bad in ({"rows": 5}, {"hands": [[1], ["2"]]}, {"pool": [1, None]}, {"rows": "abc"}):
        try:
            Deal(**bad)  # type: ignore[arg-type]
        except TypeError as exc:
            said.append(str(exc))
    rows = [[10], [20], [30], [40]]
    game = Game(Rules.parse("classic", players=2), deals=[Deal(rows, [[1], [2]])])
    wrong: list[Callable[[], object]] = [
        lambda: game.play_card(0, "1"),  # type: ignore[arg-type]
        lambda: game.take_row(0, 1.0),  # type: ignore[arg-type]
        lambda: game.view("0"),  # type: ignore[arg-type]
    ]
    for act in wrong:
        try:
            act()
        except TypeError as exc:
            said.append(type(exc).__name__)
        except nimmt.NimmtError as exc:
            said.append(str(exc))
    return said


def behaviour() -> dict[str, Any]:
    """Everything that must not depend on the build."""
    return {
        "games": digest(),
        "copies": copies(),
        "deal from lists": repr(Deal(rows=[[10], [20], [30], [40]], hands=[[1, 2], [3, 4]])),
        "refusals": refusals(),
    }


def test_pure_sources_behave_like_the_installed_build(tmp_path: Path) -> None:
    pure = tmp_path / "nimmt"
    shutil.copytree(SRC, pure, ignore=shutil.ignore_patterns("*.so", "__pycache__"))
    script = (
        "import sys, json; sys.path.insert(0, sys.argv[1]); sys.path.insert(1, sys.argv[2]);"
        "import nimmt.engine as e; assert e.__file__.endswith('.py'), e.__file__;"
        "import test_pure_build as t; print(json.dumps(t.behaviour()))"
    )
    tests_dir = str(Path(__file__).resolve().parent)
    out = subprocess.run(
        [sys.executable, "-c", script, str(tmp_path), tests_dir],
        capture_output=True,
        text=True,
        check=True,
        timeout=300,
    )
    assert json.loads(out.stdout) == behaviour()


def _first_line(module: str, *names: str) -> str:
    """The first line of a docstring in the sources: the module's, or a class's or a
    member's (``"Game"``, ``"Game", "play_card"``)."""
    node: ast.AST = ast.parse((SRC / f"{module}.py").read_text())
    for name in names:
        body = node.body  # type: ignore[attr-defined]
        node = next(n for n in body if getattr(n, "name", None) == name)
    doc = ast.get_docstring(node)  # type: ignore[arg-type]
    assert doc
    return doc.splitlines()[0]


def test_help_shows_the_docstrings() -> None:
    """mypyc keeps only signatures; setup.py puts the docstrings back (both builds)."""
    game_help = pydoc.render_doc(nimmt.Game, renderer=pydoc.plaintext)
    for names in [("Game",), ("Game", "play_card"), ("Game", "rows"), ("Game", "sample_world")]:
        assert _first_line("engine", *names) in game_help, names
    view_help = pydoc.render_doc(nimmt.View, renderer=pydoc.plaintext)
    for names in [("View",), ("View", "target"), ("View", "rows")]:
        assert _first_line("views", *names) in view_help, names
    assert _first_line("engine") in (nimmt.engine.__doc__ or "")
    assert _first_line("rows", "target") in (nimmt.rows.target.__doc__ or "")
    assert _first_line("events", "RowTaken") in (nimmt.events.RowTaken.__doc__ or "")
