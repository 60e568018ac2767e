"""No import cycles in ``src/nimmt``, no import up a floor, and no server part reaching past
the parts it may use: the floors of DESIGN.md and the parts of the server only hold if no
module needs, however indirectly, a module that needs it, and if no module needs one on a
higher floor or in a part its own may not use. docs/modules.md's tables place every module
on its floor and say what each part of the server may import; this test reads those
tables, so the map people read is the one that is checked.

The graph is read from the source with :mod:`ast`, not from ``sys.modules``: an import
inside a function is as much a dependency as one at the top (it only runs later), so both
count, and so does one under ``if TYPE_CHECKING:``: a type that names another module is a
dependency of the reader, and a circle of them is a tangle to the person who reads the
code, whether or not the interpreter ever walks it. Each strongly connected component of
more than one module is a cycle, and each is named. The same holds between packages: a
package's modules together may not need a package that needs it.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
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


def _imports(tree: ast.AST, type_only: bool = True) -> Iterator[ast.Import | ast.ImportFrom]:
    """Every import statement at any depth; with ``type_only`` False, not those under ``if
    TYPE_CHECKING:`` (its ``else:`` runs, so it is walked)."""
    stack: list[ast.AST] = [tree]
    while stack:
        node = stack.pop()
        if isinstance(node, ast.Import | ast.ImportFrom):
            yield node
        if not type_only and isinstance(node, ast.If) and _is_type_checking(node.test):
            stack.extend(node.orelse)
            continue
        stack.extend(ast.iter_child_nodes(node))


def import_graph(root: Path, package: str, type_only: bool = True) -> dict[str, set[str]]:
    """Module → the modules of ``package`` it imports (``type_only`` False: leaving out the
    imports under ``if TYPE_CHECKING:``). ``from a import b`` is an edge to ``a.b`` when
    that is a module, else to ``a``; relative imports are resolved against the importing
    module's package."""
    modules = module_names(root, package)
    graph: dict[str, set[str]] = {name: set() for name in modules}
    for name, path in modules.items():
        for target in _targets(name, path, modules, type_only):
            if target in modules and target != name:
                graph[name].add(target)
    return graph


def _targets(name: str, path: Path, modules: dict[str, Path] | None,
             type_only: bool = True) -> Iterator[str]:
    """The dotted names module ``name`` (at ``path``) imports: with ``modules``, ``from a
    import b`` names ``a.b`` when that is one of them, else ``a``."""
    is_package = path.name == "__init__.py"
    here = name.split(".") if is_package else name.split(".")[:-1]
    for node in _imports(ast.parse(path.read_text(encoding="utf-8"), str(path)), type_only):
        if isinstance(node, ast.Import):
            yield from (alias.name for alias in node.names)
            continue
        base = node.module or ""
        if node.level:
            anchor = here[: len(here) - (node.level - 1)]
            base = ".".join([*anchor, *([base] if base else [])])
        for alias in node.names:
            full = f"{base}.{alias.name}"
            yield full if modules is not None and full in modules else base


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


def _named(found: list[list[str]]) -> str:
    return "; ".join("{" + ", ".join(component) + "}" for component in found)


def test_no_import_cycle_in_src() -> None:
    found = cycles(import_graph(SRC, "nimmt"))
    assert not found, f"import cycles in src/nimmt (type-only imports count): {_named(found)}"


def test_no_import_cycle_when_run() -> None:
    """Without the type checker's imports too: what the interpreter walks has no cycle."""
    found = cycles(import_graph(SRC, "nimmt", type_only=False))
    assert not found, f"import cycles in src/nimmt: {_named(found)}"


def package_of(module: str, root: Path = SRC) -> str:
    """The package ``module`` belongs to: its own name for a package, else its parent's;
    a module directly in the front package (``nimmt.rules``) stands alone, since the
    front package is only the floors' common roof."""
    parts = module.split(".")
    if len(parts) <= 2 or (root.joinpath(*parts) / "__init__.py").exists():
        return module
    return ".".join(parts[:-1])


def package_graph(graph: dict[str, set[str]], root: Path = SRC) -> dict[str, set[str]]:
    """Package → the packages its modules import (itself left out)."""
    out: dict[str, set[str]] = {}
    for module, targets in graph.items():
        here = package_of(module, root)
        out.setdefault(here, set()).update(
            there for t in targets if (there := package_of(t, root)) != here)
    for targets in list(out.values()):
        for t in targets:
            out.setdefault(t, set())
    return out


def test_no_package_cycle_in_src() -> None:
    found = cycles(package_graph(import_graph(SRC, "nimmt")))
    assert not found, f"package cycles in src/nimmt: {_named(found)}"


def _write(root: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")


def test_the_detector_finds_cycles_and_only_cycles(tmp_path: Path) -> None:
    """A small package with each kind of import the real one uses: the cycles it holds are
    found, and what only looks like a cycle is not; type-only imports count unless left
    out."""
    _write(tmp_path, {
        "pkg/__init__.py": "",
        # a cycle through a relative import inside a function, and `from . import module`
        "pkg/a.py": "def f():\n    from .b import thing\n",
        "pkg/b.py": "from . import a\nthing = 1\n",
        # a cycle through an absolute import and a subpackage's relative `..` import
        "pkg/c.py": "import pkg.sub.d\n",
        "pkg/sub/__init__.py": "",
        "pkg/sub/d.py": "from ..c import x\n",
        # a cycle only through the type checker's import: e's import of f; f's `else`
        # branch still runs
        "pkg/e.py": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from .f import y\n",
        "pkg/f.py": ("import typing\nif typing.TYPE_CHECKING:\n    pass\nelse:\n"
                     "    from .g import z\n"),
        "pkg/g.py": "from .e import w\n",
    })
    graph = import_graph(tmp_path, "pkg")
    assert graph["pkg.b"] == {"pkg.a"}
    assert graph["pkg.e"] == {"pkg.f"}
    assert cycles(graph) == [["pkg.a", "pkg.b"], ["pkg.c", "pkg.sub.d"],
                             ["pkg.e", "pkg.f", "pkg.g"]]
    run = import_graph(tmp_path, "pkg", type_only=False)
    assert run["pkg.e"] == set()
    assert cycles(run) == [["pkg.a", "pkg.b"], ["pkg.c", "pkg.sub.d"]]
    # Between packages: pkg.c (a module of the front package stands alone) needs the
    # package pkg.sub (its module d), which needs pkg.c.
    assert cycles(package_graph(graph, tmp_path)) == [
        ["pkg.a", "pkg.b"], ["pkg.c", "pkg.sub"], ["pkg.e", "pkg.f", "pkg.g"]]


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


# -- the server's parts -------------------------------------------------------------------


def parts(text: str) -> dict[str, set[str]]:
    """The module map's table of the server's parts: each part (a package) and the parts it
    may import, from the rows after the header ``| part | may import |`` (every `name` of
    the first cell is a part; of the second, a part it may import)."""
    out: dict[str, set[str]] = {}
    inside = False
    for line in text.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if [c.lower() for c in cells] == ["part", "may import"]:
            inside = True
            continue
        if inside and not line.strip().startswith("|"):
            inside = False
        if inside and len(cells) == 2 and not set(cells[0]) <= {"-", " "}:
            allowed = set(re.findall(r"`([\w.]+)`", cells[1]))
            for name in re.findall(r"`([\w.]+)`", cells[0]):
                out[name] = allowed
    return out


def part_of(module: str, table: dict[str, set[str]]) -> str | None:
    """The part ``module`` is in: the longest part's name it starts with."""
    found = [p for p in table if module == p or module.startswith(p + ".")]
    return max(found, key=len) if found else None


def reaching(graph: dict[str, set[str]], table: dict[str, set[str]]) -> list[str]:
    """Each import of one part by another that the table does not allow: a part may import
    its own modules, the parts its row names and the parts inside it (the server's root,
    the part that holds the others, may import any of them), never the modules of a part
    that holds it."""
    out = []
    for module in sorted(graph):
        here = part_of(module, table)
        for target in sorted(graph[module]):
            there = part_of(target, table)
            if here is None or there is None or there == here:
                continue
            if here.startswith(there + "."):
                out.append(f"{module} ({here}) imports {target} (the part that holds it)")
            elif not there.startswith(here + ".") and there not in table[here]:
                out.append(f"{module} ({here}) imports {target} ({there})")
    return out


def test_no_part_of_the_server_imports_what_it_may_not() -> None:
    graph = import_graph(SRC, "nimmt")
    table = parts(MODULE_MAP.read_text("utf-8"))
    bad = reaching(graph, table)
    assert not bad, "imports docs/modules.md's table of parts does not allow: " + "; ".join(bad)


def test_the_parts_check_finds_a_part_reaching_past_its_row(tmp_path: Path) -> None:
    _write(tmp_path, {
        "pkg/__init__.py": "",
        "pkg/root.py": "from .low import a\nfrom .high import b\n",
        "pkg/low/__init__.py": "",
        "pkg/low/a.py": "from ..high.b import x\n",   # low may not import high
        "pkg/high/__init__.py": "",
        "pkg/high/b.py": "from ..low.a import y\nfrom .. import root\n",  # nor the root
    })
    table = parts("| part | may import |\n| --- | --- |\n| `pkg` | every part |\n"
                  "| `pkg.low` | nothing |\n| `pkg.high` | `pkg.low` |\n")
    assert table == {"pkg": set(), "pkg.low": set(), "pkg.high": {"pkg.low"}}
    assert reaching(import_graph(tmp_path, "pkg"), table) == [
        "pkg.high.b (pkg.high) imports pkg.root (the part that holds it)",
        "pkg.low.a (pkg.low) imports pkg.high.b (pkg.high)",
    ]


# -- libraries kept to one part -------------------------------------------------------------

#: Libraries only one part may import: SQL is the store's alone (its callers get its own
#: errors, never the database's), so is the schema's history (Alembic).
ONLY_IN = {"sqlalchemy": "nimmt.server.store", "alembic": "nimmt.server.store"}
def outsiders(root: Path, package: str, only_in: dict[str, str]) -> dict[str, set[str]]:
    """Module → the libraries of ``only_in`` it imports from outside their part."""
    out: dict[str, set[str]] = {}
    for name, path in module_names(root, package).items():
        for target in _targets(name, path, None):
            library = target.split(".")[0]
            part = only_in.get(library)
            if part is not None and name != part and not name.startswith(part + "."):
                out.setdefault(name, set()).add(library)
    return out


def test_sql_stays_in_the_store() -> None:
    found = outsiders(SRC, "nimmt", ONLY_IN)
    assert not found, f"libraries imported outside their part (docs/modules.md): {found}"


def test_only_the_entry_point_imports_the_composition_root() -> None:
    """The composition root builds every part and hands each the interfaces it needs; a
    part that imported it could reach every other part through it (a god object again)."""
    graph = import_graph(SRC, "nimmt")
    importers = sorted(m for m, targets in graph.items() if "nimmt.server.root" in targets)
    assert importers == ["nimmt.server.run"], importers
