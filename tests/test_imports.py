"""No import cycles in ``src/nimmt``, and no import up a floor: the floors of DESIGN.md only
hold if no module needs, however indirectly, a module that needs it, and if no module
needs one on a higher floor. docs/modules.md's table places every module on its floor;
this test reads that table, so the map people read is the one that is checked.

The graph is read from the source with :mod:`ast`, not from ``sys.modules``: an import
inside a function is as much a dependency as one at the top (it only runs later), so both
count; only the body of ``if TYPE_CHECKING:`` is left out, since it never runs. Each
strongly connected component of more than one module is a cycle, and each is named.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterable, Iterator
from pathlib import Path

SRC = Path(__file__).resolve().parent.parent / "src"
MODULE_MAP = SRC.parent / "docs" / "modules.md"


def module_names(root: Path, package: str) -> dict[str, Path]:
    """Every module of ``package`` under ``root``, by dotted name (a package by its own name)."""
    found: dict[str, Path] = {}
    for path in sorted((root / package.replace(".", "/")).rglob("*.py")):
        parts = list(path.relative_to(root).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        found[".".join(parts)] = path
    return found


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")


def _imports(tree: ast.AST) -> Iterator[ast.Import | ast.ImportFrom]:
    """Every import statement that can run: at any depth, but not under ``if TYPE_CHECKING:``
    (its ``else:`` runs, so it is walked)."""
    stack: list[ast.AST] = [tree]
    while stack:
        node = stack.pop()
        if isinstance(node, ast.Import | ast.ImportFrom):
            yield node
        if isinstance(node, ast.If) and _is_type_checking(node.test):
            stack.extend(node.orelse)
            continue
        stack.extend(ast.iter_child_nodes(node))


def import_graph(root: Path, package: str) -> dict[str, set[str]]:
    """Module → the modules of ``package`` it imports. ``from a import b`` is an edge to
    ``a.b`` when that is a module, else to ``a``; relative imports are resolved against the
    importing module's package."""
    modules = module_names(root, package)
    graph: dict[str, set[str]] = {name: set() for name in modules}
    for name, path in modules.items():
        is_package = path.name == "__init__.py"
        here = name.split(".") if is_package else name.split(".")[:-1]
        for node in _imports(ast.parse(path.read_text(encoding="utf-8"), str(path))):
            if isinstance(node, ast.Import):
                targets: Iterable[str] = (alias.name for alias in node.names)
            else:
                base = node.module or ""
                if node.level:
                    anchor = here[: len(here) - (node.level - 1)]
                    base = ".".join([*anchor, *([base] if base else [])])
                targets = (f"{base}.{alias.name}" if f"{base}.{alias.name}" in modules
                           else base for alias in node.names)
            graph[name].update(t for t in targets if t in modules and t != name)
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one node (Tarjan), each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for nxt in sorted(graph[node]):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            component: list[str] = []
            while True:
                top = stack.pop()
                on_stack.discard(top)
                component.append(top)
                if top == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return sorted(found)


def test_no_import_cycle_in_src() -> None:
    found = cycles(import_graph(SRC, "nimmt"))
    assert not found, "import cycles in src/nimmt: " + "; ".join(
        "{" + ", ".join(component) + "}" for component in found)


def _write(root: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")


def test_the_detector_finds_cycles_and_only_cycles(tmp_path: Path) -> None:
    """A small package with each kind of import the real one uses: the cycles it holds are
    found, and what only looks like a cycle is not."""
    _write(tmp_path, {
        "pkg/__init__.py": "",
        # a cycle through a relative import inside a function, and `from . import module`
        "pkg/a.py": "def f():\n    from .b import thing\n",
        "pkg/b.py": "from . import a\nthing = 1\n",
        # a cycle through an absolute import and a subpackage's relative `..` import
        "pkg/c.py": "import pkg.sub.d\n",
        "pkg/sub/__init__.py": "",
        "pkg/sub/d.py": "from ..c import x\n",
        # no cycle: e's import of f is for the type checker only; f's `else` branch still runs
        "pkg/e.py": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from .f import y\n",
        "pkg/f.py": ("import typing\nif typing.TYPE_CHECKING:\n    pass\nelse:\n"
                     "    from .g import z\n"),
        "pkg/g.py": "from .e import w\n",
    })
    graph = import_graph(tmp_path, "pkg")
    assert graph["pkg.b"] == {"pkg.a"}
    assert graph["pkg.e"] == set()
    assert cycles(graph) == [["pkg.a", "pkg.b"], ["pkg.c", "pkg.sub.d"]]


# -- floors -------------------------------------------------------------------------------


def floors(text: str) -> dict[str, int]:
    """Each name of the module map's table (a module or a package) and its floor: the rows
    whose last cell is a number, every `name` in the first cell."""
    out: dict[str, int] = {}
    for line in text.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) == 2 and cells[1].isdigit():
            for name in re.findall(r"`([\w.]+)`", cells[0]):
                out[name] = int(cells[1])
    return out


def floor_of(module: str, table: dict[str, int]) -> int | None:
    """``module``'s floor: its own row, else its closest package's below the front package
    (the row of ``nimmt`` itself places the front package only, not every module)."""
    parts = module.split(".")
    for end in range(len(parts), 1, -1):
        name = ".".join(parts[:end])
        if name in table:
            return table[name]
    return table.get(module)


def upward(graph: dict[str, set[str]], table: dict[str, int]) -> tuple[list[str], list[str]]:
    """The modules the table does not place, and each import of a higher floor."""
    unplaced = sorted(m for m in graph if floor_of(m, table) is None)
    up = []
    for module in sorted(graph):
        here = floor_of(module, table)
        for target in sorted(graph[module]):
            there = floor_of(target, table)
            if here is not None and there is not None and there > here:
                up.append(f"{module} (floor {here}) imports {target} (floor {there})")
    return unplaced, up


def test_every_module_is_placed_and_no_import_goes_up_a_floor() -> None:
    unplaced, up = upward(import_graph(SRC, "nimmt"), floors(MODULE_MAP.read_text("utf-8")))
    assert not unplaced, f"modules docs/modules.md does not place on a floor: {unplaced}"
    assert not up, "imports up a floor: " + "; ".join(up)


def test_the_floor_check_finds_an_upward_import_and_an_unplaced_module(tmp_path: Path) -> None:
    _write(tmp_path, {
        "pkg/__init__.py": "",
        "pkg/low.py": "from .face import x\n",       # floor 1 needs floor 3
        "pkg/face/__init__.py": "from ..low import y\n",
        "pkg/face/inner.py": "from ..low import y\n",  # placed by its package's row
        "pkg/stray.py": "",
    })
    table = floors("| module | floor |\n| --- | --- |\n| `pkg`, `pkg.low` | 1 |\n"
                   "| `pkg.face` | 3 |\n")
    unplaced, up = upward(import_graph(tmp_path, "pkg"), table)
    assert unplaced == ["pkg.stray"]
    assert up == ["pkg.low (floor 1) imports pkg.face (floor 3)"]
