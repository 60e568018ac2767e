"""Build hook: compiles the hot core of the engine with mypyc.

The engine, its events, decisions, views, deals, row arithmetic and the
default row choice are plain, strictly typed Python; mypyc turns them into C
extensions, about twice as fast, with the same behaviour (the test suite runs
against the compiled build). Set ``NIMMT_PURE=1`` to install the pure-Python
package instead; where no C compiler works (or mypyc cannot be had), the build
falls back to it by itself, with a notice.

mypyc (pinned in ``pyproject.toml``) gives the compiled modules, classes,
methods and properties no docstring, only a signature, so ``help(nimmt.Game)``
would say nothing. :func:`_keep_docstrings` writes the docstrings of the
sources into the C code mypyc generates, before it is compiled, so the
compiled build documents itself like the pure one (tests/test_pure_build.py
checks it).
"""

from __future__ import annotations

import ast
import contextlib
import os
import re
import sys
from pathlib import Path
from typing import Any

from setuptools import setup
from setuptools.command.build_ext import build_ext
from setuptools.errors import BaseError, CCompilerError

#: The modules compiled with mypyc. ``scripts/setup`` rebuilds when one of them changes,
#: and the tests read this list to find the compiled modules (conftest.py).
COMPILED = [
    "src/nimmt/value.py",
    "src/nimmt/rows.py",
    "src/nimmt/events.py",
    "src/nimmt/decisions.py",
    "src/nimmt/views.py",
    "src/nimmt/deals.py",
    "src/nimmt/engine.py",
    "src/nimmt/defaults.py",
]


def _docstrings(paths: list[str]) -> dict[str, str]:
    """The docstrings in ``paths`` by the names mypyc gives their owners in C.

    ``engine`` for the module ``nimmt.engine``, ``engine.simulate`` for one of
    its functions, ``engine___Game`` for a class, ``engine___Game.play_card``
    for a method or a property.
    """
    docs: dict[str, str] = {}
    for path in paths:
        module = Path(path).stem
        tree = ast.parse(Path(path).read_text(encoding="utf-8"))
        if doc := ast.get_docstring(tree):
            docs[module] = doc
        for node in tree.body:
            if isinstance(node, ast.FunctionDef) and (doc := ast.get_docstring(node)):
                docs[f"{module}.{node.name}"] = doc
            if isinstance(node, ast.ClassDef):
                owner = f"{module}___{node.name}"
                if doc := ast.get_docstring(node):
                    docs[owner] = doc
                for item in node.body:
                    if isinstance(item, ast.FunctionDef) and (doc := ast.get_docstring(item)):
                        docs[f"{owner}.{item.name}"] = doc
    return docs


# In the C that mypyc writes, a docstring slot holds a string literal (the
# signature, "name(args)\n--\n\n") or NULL.
_SLOT = r'PyDoc_STR\(((?:"(?:[^"\\]|\\.)*"\s*)+|NULL)\)'
_CLASS = re.compile(r"(static PyTypeObject CPyType_(\w+)_template_ = \{.*?\.tp_doc = )" + _SLOT, re.S)
_TABLE = re.compile(r"(static (PyMethodDef|PyGetSetDef) (\w+?)_(?:methods|getseters)\[\] = \{)(.*?\};)", re.S)
_METHOD = re.compile(r'(\{"(\w+)",\s*\(PyCFunction\)\w+,\s*[A-Z_| ]+,\s*)' + _SLOT)
_GETTER = re.compile(r'(\{"(\w+)",\s*\(getter\)\w+,\s*(?:\(setter\)\w+,|NULL,))\s*NULL,\s*NULL\}')
_MODULE = re.compile(
    r'(static struct PyModuleDef (\w+)module = \{\s*PyModuleDef_HEAD_INIT,\s*"[\w.]+",\s*)NULL'
)


def _keep_docstrings(c_files: list[str], docs: dict[str, str]) -> None:
    """Write ``docs`` into the generated ``c_files``, each after its owner's signature.

    C joins adjacent string literals, so a docstring is added as a second
    literal after the signature's; CPython then reads the signature from
    before the ``--`` line and the docstring from after it.
    """
    from mypyc.codegen.cstring import c_string_initializer

    def literal(doc: str) -> str:
        return str(c_string_initializer(doc.encode("utf-8")))

    def slot(signature: str, doc: str | None) -> str:
        if doc is None:
            return f"PyDoc_STR({signature})"
        if signature == "NULL":
            return f"PyDoc_STR({literal(doc)})"
        return f"PyDoc_STR({signature.rstrip()} {literal(doc)})"

    def table(m: re.Match[str]) -> str:
        owner = m.group(3).removesuffix("module")  # module functions: "enginemodule_methods"

        def method(e: re.Match[str]) -> str:
            return e.group(1) + slot(e.group(3), docs.get(f"{owner}.{e.group(2)}"))

        def getter(e: re.Match[str]) -> str:
            doc = docs.get(f"{owner}.{e.group(2)}")
            return e.group(0) if doc is None else f"{e.group(1)} {literal(doc)}, NULL}}"

        body = m.group(4)
        body = _METHOD.sub(method, body) if m.group(2) == "PyMethodDef" else _GETTER.sub(getter, body)
        return m.group(1) + body

    for path in c_files:
        source = Path(path).read_text(encoding="utf-8")
        text = _CLASS.sub(lambda m: m.group(1) + slot(m.group(3), docs.get(m.group(2))), source)
        text = _TABLE.sub(table, text)
        text = _MODULE.sub(
            lambda m: m.group(1) + (literal(docs[m.group(2)]) if m.group(2) in docs else "NULL"),
            text,
        )
        if text != source:
            Path(path).write_text(text, encoding="utf-8")


class OptionalBuildExt(build_ext):
    """Compiles the core where a C compiler works; elsewhere the package stays pure Python.

    The compiled modules are only faster, never different (tests/test_pure_build.py), so
    a machine without a compiler still gets a working nimmt: what was built so far is
    removed (a half-compiled core would mix two builds) and a notice says why.
    """

    def run(self) -> None:
        try:
            super().run()
        except (CCompilerError, BaseError, OSError) as exc:
            for path in self.get_outputs():
                with contextlib.suppress(OSError):
                    os.remove(path)
            print(
                f"nimmt: the C extensions could not be built ({exc}); installing the "
                "pure-Python engine instead (same rules, about half as fast)",
                file=sys.stderr,
            )


def _compiled() -> list[Any]:
    """The mypyc extensions, or none: NIMMT_PURE=1 asks for none, and without mypyc
    (a build from source that could not install it) there is nothing to compile with."""
    if os.environ.get("NIMMT_PURE") == "1":
        return []
    try:
        from mypyc.build import mypycify
    except ImportError as exc:
        print(f"nimmt: mypyc is not available ({exc}); installing the pure-Python engine",
              file=sys.stderr)
        return []
    modules: list[Any] = mypycify(COMPILED, opt_level="3")
    generated = {s for ext in modules for s in ext.sources if s.endswith(".c")}
    _keep_docstrings(sorted(generated), _docstrings(COMPILED))
    return modules


#: README.md is the package's long description. A package index shows it away from the
#: repository, where a relative link or picture leads nowhere; so what README.md marks
#: ``<!-- package index: omit -->`` … ``<!-- package index: end -->`` is left out (the
#: screenshots), a relative link becomes its text, a relative picture goes, and the build
#: stops at any other relative reference (HTML ``src``/``href``, a reference definition).
#: docs/packaging.md says what changes once the project has a public address.
_OMIT = re.compile(r"<!-- package index: omit -->.*?<!-- package index: end -->\n?", re.S)
_LINK = re.compile(r"(!?)\[([^\]]*)\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)")
_ABSOLUTE = re.compile(r"[a-z][a-z0-9+.-]*:", re.I)  # https:, mailto:
_OTHER = re.compile(r"""(?:src|href)\s*=\s*["']?+(?![a-z][a-z0-9+.-]*:)[^"'\s>]*"""
                    r"""|^ {0,3}\[[^\]]+\]:\s*(?![a-z][a-z0-9+.-]*:)\S+""", re.I | re.M)


def _long_description() -> str:
    """README.md as a package index can show it (see :data:`_OMIT`); code blocks as they are."""
    text = _OMIT.sub("", Path("README.md").read_text(encoding="utf-8"))

    def link(m: re.Match[str]) -> str:
        picture, label, target = m.groups()
        if _ABSOLUTE.match(target):
            return m.group(0)
        return "" if picture else label

    # Fenced code blocks (the odd pieces between ``` lines) are left alone.
    parts = re.split(r"(^```.*?^```$)", text, flags=re.S | re.M)
    for i in range(0, len(parts), 2):
        parts[i] = _LINK.sub(link, parts[i])
        left = _OTHER.findall(parts[i])
        if left:
            raise SystemExit(f"README.md: relative references a package index cannot "
                             f"resolve: {left}")
    return "".join(parts).rstrip() + "\n"


setup(
    ext_modules=_compiled(),
    cmdclass={"build_ext": OptionalBuildExt},
    long_description=_long_description(),
    long_description_content_type="text/markdown",
)
