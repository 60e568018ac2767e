"""Each type of ``src/`` is declared once: no two modules declare a class or a type alias of
the same name, save the few docs/modules.md names with their reason ("Same names at two
layers"). A second declaration of a name is how a copy of a type starts: it is found here,
when it is written, not after the two have drifted apart."""

from __future__ import annotations

import ast
from collections import defaultdict
from pathlib import Path

from nimmt.decisions import CODECS
from nimmt.events import EVENT_TYPES

SRC = Path(__file__).resolve().parents[1] / "src" / "nimmt"

#: The names two modules declare on purpose (docs/modules.md says why), with their modules.
TWICE = {
    # A card as the engine counts it, and as a client may send one (bounded, strict).
    "Card": {"nimmt/cards.py", "nimmt/wire/base.py"},
    # A table log's entry, and a cluster batch's entry (a frame for a connection).
    "Entry": {"nimmt/server/tables/tablelog.py", "nimmt/server/cluster/nodewire.py"},
}
#: The wire's models of the engine's own values carry the engine's names, their names in the
#: JSON Schema: each event's model (written from nimmt.events into wire/derived.py) and each
#: decision's message (checked against its codec as it is made).
MIRRORED = {
    **{cls.__name__: {"nimmt/events.py", "nimmt/wire/derived.py"}
       for cls in EVENT_TYPES.values()},
    **{codec.type.__name__: {"nimmt/decisions.py", "nimmt/wire/to_server.py"}
       for codec in CODECS.values()},
}


def declared(package: Path = SRC) -> dict[str, set[str]]:
    """Every module-level class and type alias of ``package``, by name: the modules."""
    where: dict[str, set[str]] = defaultdict(set)
    for path in sorted(package.rglob("*.py")):
        module = path.relative_to(package.parent).as_posix()
        for node in ast.parse(path.read_text(encoding="utf-8")).body:
            if isinstance(node, ast.ClassDef):
                where[node.name].add(module)
            elif (isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name)
                  and "TypeAlias" in ast.unparse(node.annotation)):
                where[node.target.id].add(module)
    return where


def test_no_type_is_declared_twice() -> None:
    twice = {name: modules for name, modules in declared().items() if len(modules) > 1}
    assert twice == TWICE | MIRRORED, (
        "declared in more than one module (declare it once and import it; or, if the two "
        f"are different things, name each for what it is): {twice}")


def test_the_check_finds_a_second_declaration(tmp_path: Path) -> None:
    package = tmp_path / "nimmt"
    (package / "tui").mkdir(parents=True)
    (package / "record.py").write_text("from typing import TypeAlias\nSeat: TypeAlias = int\n")
    (package / "tui" / "session.py").write_text("class Seat:\n    pass\n")
    assert declared(package)["Seat"] == {"nimmt/record.py", "nimmt/tui/session.py"}
