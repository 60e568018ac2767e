"""The pure-Python engine and the mypyc-compiled one play identically.

``setup.py`` compiles the core with mypyc; ``NIMMT_PURE=1`` installs the same
sources uncompiled. This test runs seeded games of every preset and variant in
a subprocess that imports a copy of the sources without any compiled module,
and compares a digest of every event with the build under test.
"""

from __future__ import annotations

import hashlib
import json
import random
import shutil
import subprocess
import sys
from pathlib import Path

from nimmt import DecisionKind, Game, Rules, default_row
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


def test_pure_sources_play_like_the_installed_build(tmp_path: Path) -> None:
    pure = tmp_path / "nimmt"
    shutil.copytree(SRC, pure, ignore=shutil.ignore_patterns("*.so", "__pycache__"))
    script = (
        "import sys; sys.path.insert(0, sys.argv[1]); sys.path.insert(1, sys.argv[2]);"
        "import nimmt.engine as e; assert e.__file__.endswith('.py'), e.__file__;"
        "import test_pure_build as t; print(t.digest())"
    )
    tests_dir = str(Path(__file__).resolve().parent)
    out = subprocess.run(
        [sys.executable, "-c", script, str(tmp_path), tests_dir],
        capture_output=True,
        text=True,
        check=True,
        timeout=300,
    )
    assert out.stdout.strip() == digest()
