"""The server's shape: small modules, and no class that holds the state of many parts.

A module past :data:`MODULE_LINES` lines holds more than one thing a reader keeps in mind
at once, and a class with more than :data:`CLASS_FIELDS` fields of state is several parts
sharing one object (each reaching the others through it). Both are read from the source
with :mod:`ast`: a class's fields are its annotated class attributes (a dataclass's, a
model's) and every ``self.<name>`` its methods assign.

Run as a script, it prints the figures (the largest modules and classes, the import
cycles): ``.venv/bin/python tests/server/test_server_shape.py``.
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path

SERVER = Path(__file__).resolve().parents[2] / "src" / "nimmt" / "server"

#: The most lines a module of the server may have.
MODULE_LINES = 600
#: The most fields of state a class of the server may hold.
CLASS_FIELDS = 15
#: Classes that declare settings, not state: each field is one setting of the operator's
#: (an environment variable), read together and never changed.
DECLARATIONS = {"base/settings.py:Settings"}

def module_lines(root: Path = SERVER) -> dict[str, int]:
    """Each module's lines, by its path under ``root``."""
    return {path.relative_to(root).as_posix(): len(path.read_text("utf-8").splitlines())
            for path in sorted(root.rglob("*.py"))}


def class_fields(root: Path = SERVER) -> dict[str, set[str]]:
    """Each class's fields of state, by ``path:Class`` (its path under ``root``)."""
    out: dict[str, set[str]] = {}
    for path in sorted(root.rglob("*.py")):
        tree = ast.parse(path.read_text("utf-8"))
        for cls in ast.walk(tree):
            if isinstance(cls, ast.ClassDef):
                out[f"{path.relative_to(root).as_posix()}:{cls.name}"] = _fields(cls)
    return out


def _fields(cls: ast.ClassDef) -> set[str]:
    names = {node.target.id for node in cls.body
             if isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name)
             and "ClassVar" not in ast.unparse(node.annotation)}
    for method in cls.body:
        if not isinstance(method, ast.FunctionDef | ast.AsyncFunctionDef):
            continue
        for node in ast.walk(method):
            targets: list[ast.expr] = []
            if isinstance(node, ast.Assign):
                targets = node.targets
            elif isinstance(node, ast.AnnAssign | ast.AugAssign):
                targets = [node.target]
            for target in targets:
                for part in ast.walk(target):
                    if (isinstance(part, ast.Attribute) and isinstance(part.value, ast.Name)
                            and part.value.id == "self"):
                        names.add(part.attr)
    return names


def test_no_server_module_is_long() -> None:
    long = {m: n for m, n in module_lines().items() if n > MODULE_LINES}
    assert not long, f"server modules past {MODULE_LINES} lines (cut each by what it holds): {long}"


def test_no_server_class_holds_many_parts() -> None:
    large = {c: len(f) for c, f in class_fields().items()
             if len(f) > CLASS_FIELDS and c not in DECLARATIONS}
    assert not large, (f"server classes with more than {CLASS_FIELDS} fields of state (split "
                       f"them by responsibility): {large}")


def test_fields_are_counted_from_the_class_and_its_methods(tmp_path: Path) -> None:
    (tmp_path / "m.py").write_text(
        "from typing import ClassVar\n"
        "class A:\n    x: int\n    k: ClassVar[int] = 1\n"
        "    def __init__(self) -> None:\n        self.y = 1\n        self.x = 2\n"
        "    def later(self) -> None:\n        self.z, other.w = 1, 2\n"
        "        self.n += 1\n        self.y.q = 3\n", encoding="utf-8")
    assert class_fields(tmp_path) == {"m.py:A": {"x", "y", "z", "n"}}


def main() -> None:
    """Print the figures: the largest modules and classes, and the import cycles."""
    sys.path.insert(0, str(SERVER.parents[2] / "tests"))
    from test_imports import SRC, cycles, import_graph, package_graph

    lines = module_lines()
    print("largest server modules (lines):")
    for module, n in sorted(lines.items(), key=lambda kv: -kv[1])[:5]:
        print(f"  {n:5d}  {module}")
    fields = class_fields()
    print("largest server classes (fields of state):")
    for cls, f in sorted(fields.items(), key=lambda kv: -len(kv[1]))[:6]:
        note = "  (settings)" if cls in DECLARATIONS else ""
        print(f"  {len(f):5d}  {cls}{note}")
    graph = import_graph(SRC, "nimmt")
    found = cycles(graph)
    print(f"import cycles in src/nimmt (type-only imports count): {len(found)} "
          f"({sum(len(c) for c in found)} modules); when run: "
          f"{len(cycles(import_graph(SRC, 'nimmt', type_only=False)))}; between packages: "
          f"{len(cycles(package_graph(graph)))}")


if __name__ == "__main__":
    main()
