"""Runs the docstring examples of the mypyc-compiled core modules.

pytest's ``--doctest-modules`` cannot collect a module compiled to a C
extension, and compiled functions hide from ``doctest``'s finder, so the
examples are read from the source and run against the imported (compiled or
pure) module: the documentation is checked against what users actually get.
"""

from __future__ import annotations

import ast
import doctest
import importlib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SRC = ROOT / "src"


def _compiled() -> list[str]:
    """The module names of setup.py's ``COMPILED`` list."""
    for node in ast.parse((ROOT / "setup.py").read_text()).body:
        if isinstance(node, ast.Assign) and getattr(node.targets[0], "id", "") == "COMPILED":
            return [Path(p).relative_to("src").with_suffix("").as_posix().replace("/", ".")
                    for p in ast.literal_eval(node.value)]
    raise LookupError("setup.py has no COMPILED list")


COMPILED = _compiled()


def _docstrings(path: Path) -> list[tuple[str, str, int]]:
    tree = ast.parse(path.read_text())
    found: list[tuple[str, str, int]] = []
    nodes: list[ast.AST] = [tree, *ast.walk(tree)]
    for node in nodes:
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            doc = ast.get_docstring(node, clean=False)
            if doc and ">>>" in doc:
                name = getattr(node, "name", path.stem)
                found.append((name, doc, getattr(node, "lineno", 1)))
    return list(dict.fromkeys(found))


@pytest.mark.parametrize("module_name", COMPILED)
def test_docstring_examples(module_name: str) -> None:
    module = importlib.import_module(module_name)
    path = SRC / (module_name.replace(".", "/") + ".py")
    examples = _docstrings(path)
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    parser = doctest.DocTestParser()
    for name, doc, lineno in examples:
        globs = dict(vars(module))
        test = parser.get_doctest(doc, globs, f"{module_name}.{name}", str(path), lineno)
        runner.run(test)
    result = runner.summarize(verbose=False)
    assert result.attempted > 0 or not examples
    assert result.failed == 0, f"{result.failed} docstring example(s) failed in {module_name}"


def test_readme_examples() -> None:
    """The README's three-line game runs as printed."""
    result = doctest.testfile(
        str(ROOT / "README.md"), module_relative=False, optionflags=doctest.ELLIPSIS
    )
    assert result.attempted >= 3 and result.failed == 0


def test_compiled_modules_are_fresh() -> None:
    """A compiled module older than its source would silently shadow the edit."""
    for module_name in COMPILED:
        module = importlib.import_module(module_name)
        built = Path(module.__file__ or "")
        source = SRC / (module_name.replace(".", "/") + ".py")
        if built.suffix == ".so":
            assert built.stat().st_mtime >= source.stat().st_mtime, (
                f"{built.name} is older than {source.name}: run scripts/setup to rebuild"
            )
