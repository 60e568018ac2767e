"""Writes :mod:`nimmt.wire.derived`: the wire models of the game's own values (each event of
:mod:`nimmt.events`, and the view of :mod:`nimmt.views`), made from their declarations.

A field of an event or of the view is declared once, where the engine declares it: its
name, type, default and docstring (the description of the JSON Schema). This module reads
those declarations from the source and writes them out as pydantic classes, so the type
checker sees real classes (not models made at run time, which it could only call
``Any``), and a client imports the wire without reading any source. ``scripts/wire-types``
runs it; ``tests/wire/test_wire_derived.py`` fails when the committed module differs from
what it writes now.

Read from the source files, not from the classes: the compiled engine (mypyc) keeps its
``.py`` sources beside its extension modules, but its classes keep neither attribute
docstrings nor their annotations (``int | None`` becomes ``type``).

``python src/nimmt/wire/derive.py`` prints the module.
"""

from __future__ import annotations

import ast
import dataclasses
import inspect
import itertools
import json
import sys
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType

# Absolute, so that it runs as a script (``python src/nimmt/wire/derive.py``) without
# importing the package it writes for, whose module it may be mending.
from nimmt import events as E
from nimmt import views
from nimmt.views import Phase

__all__ = ["VIEW_FIELDS", "render"]

#: What a view sends, in order: the engine's own fields and properties of a view
#: (:class:`nimmt.views.View` and its :class:`~nimmt.views.Table`), each with the type and
#: the description declared there, and ``rules_name``. The draft's first picker stays
#: home: the narration says it as it happens.
VIEW_FIELDS: tuple[str, ...] = (
    "player", "rules", "rules_name", "phase", "pending", "round", "turn", "options", "hand",
    "my_choice", "rows", "scores", "penalties", "totals", "taken", "hand_sizes", "chosen",
    "face_up", "revealed", "to_resolve", "hands", "active", "eliminated", "has_joker", "marker",
    "draft_pool", "winners", "places")
#: Where the wire says a view's fact in its own shape (the engine's value has no JSON): the
#: annotation, and the description when the engine has none.
_VIEW_WIRE: dict[str, tuple[str, str | None]] = {
    "rules": ("RulesInfo", None),
    "rules_name": ("str", "The rules in a few words."),
    "phase": ("Literal[" + ", ".join(json.dumps(p.value) for p in Phase) + "]", None),
    "pending": ("PendingInfo | None", None),
}
_CHANGE_DOC = ("The fields of your :class:`ViewPayload` that changed since the last view\n"
               "sent to you (``table_state``'s, or the last ``events``'): a field left out\n"
               "holds what it held. A client keeps the view of the last ``table_state`` and\n"
               "merges each change into it (docs/protocol.md); a catch-up's holds every\n"
               "field.")
_VIEW_DOC = ("One seat's view of the game (docs/rules.md §6): everything it may know, "
             "nothing more.\n\nA spectator's view (``player`` null) holds the public part "
             "only.")
#: Names the written module has without an import from the engine.
_BUILTIN = {"int", "str", "bool", "float", "tuple", "list", "None", "Literal", "MISSING"}
_HERE = {"RulesInfo": ".game", "PendingInfo": ".game"}


@dataclass
class _Class:
    """One class as its source declares it: its docstring, and each field's (and
    property's) annotation as written and docstring."""

    doc: str
    types: dict[str, str] = field(default_factory=dict)
    docs: dict[str, str] = field(default_factory=dict)


class _Source:
    """The classes of one module of the engine, and where each name it uses comes from."""

    def __init__(self, module: ModuleType) -> None:
        path = Path(module.__file__ or "")
        source = path.with_name(path.name.split(".")[0] + ".py")
        if not source.is_file():
            raise ImportError(f"the wire models are made from {source}, which is missing")
        self.name = module.__name__
        tree = ast.parse(source.read_text("utf-8"))
        self.classes: dict[str, _Class] = {}
        #: Each name the module defines or imports: the module it is defined in.
        self.origin: dict[str, str] = {}
        package = self.name.rpartition(".")[0]
        for node in tree.body:
            if isinstance(node, ast.ImportFrom) and node.level == 1 and node.module:
                for alias in node.names:
                    self.origin[alias.asname or alias.name] = f"{package}.{node.module}"
            elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
                self.origin[node.target.id] = self.name
            elif isinstance(node, ast.ClassDef):
                self.origin[node.name] = self.name
                self.classes[node.name] = self._read(node)

    @staticmethod
    def _read(node: ast.ClassDef) -> _Class:
        out = _Class(ast.get_docstring(node) or "")
        for item, after in itertools.pairwise([*node.body, None]):
            if isinstance(item, ast.AnnAssign) and isinstance(item.target, ast.Name):
                out.types[item.target.id] = ast.unparse(item.annotation)
                if (isinstance(after, ast.Expr) and isinstance(after.value, ast.Constant)
                        and isinstance(after.value.value, str)):
                    out.docs[item.target.id] = inspect.cleandoc(after.value.value)
            elif (isinstance(item, ast.FunctionDef) and item.returns is not None
                  and any(ast.unparse(d) == "property" for d in item.decorator_list)):
                out.types[item.name] = ast.unparse(item.returns)
                out.docs[item.name] = inspect.cleandoc(ast.get_docstring(item) or "")
        return out


def _docstring(text: str, indent: str) -> list[str]:
    """``text`` as a docstring at ``indent``: what :func:`inspect.cleandoc` reads back as
    ``text``."""
    text = text.replace("\\", "\\\\").replace('"""', '\\"\\"\\"')
    lines = text.split("\n")
    body = [lines[0], *((indent + line) if line else "" for line in lines[1:])]
    if len(lines) == 1:
        return [f'{indent}"""{text}"""']
    body[0] = f'{indent}"""{body[0]}'
    body[-1] += '"""'
    return body


class _Writer:
    """The module's text, and the names of the engine it needs imported."""

    def __init__(self) -> None:
        self.lines: list[str] = []
        self.imports: dict[str, set[str]] = {}

    def need(self, annotation: str, source: _Source) -> None:
        for node in ast.walk(ast.parse(annotation, mode="eval")):
            if isinstance(node, ast.Name) and node.id not in _BUILTIN:
                module = _HERE.get(node.id) or source.origin[node.id]
                self.imports.setdefault(module, set()).add(node.id)

    def model(self, name: str, doc: str, fields: list[tuple[str, str, str | None, str]],
              source: _Source) -> None:
        """A class ``name`` of ``fields``: (name, annotation, default's source or None for
        none, docstring)."""
        self.lines += ["", "", f"class {name}(Payload):", *_docstring(doc, "    "), ""]
        for fname, annotation, default, fdoc in fields:
            self.need(annotation, source)
            line = f"    {fname}: {annotation}" + ("" if default is None else f" = {default}")
            self.lines += [line, *_docstring(fdoc, "    ")]


def _events(out: _Writer) -> list[str]:
    source = _Source(E)
    made = []
    for name, cls in E.EVENT_TYPES.items():
        declared = source.classes[cls.__name__]
        fields: list[tuple[str, str, str | None, str]] = [
            ("type", f"Literal[{json.dumps(name)}]", json.dumps(name), "The event's name.")]
        for f in dataclasses.fields(cls):
            default = None if f.default is dataclasses.MISSING else (
                json.dumps(f.default) if isinstance(f.default, str) else repr(f.default))
            fields.append((f.name, declared.types[f.name], default, declared.docs[f.name]))
        out.model(cls.__name__, declared.doc, fields, source)
        made.append(cls.__name__)
    return made


def _view(out: _Writer) -> None:
    source = _Source(views)
    view, table = source.classes["View"], source.classes["Table"]
    # The table's own declarations over the view's properties that pass them through.
    types = {**view.types, **table.types}
    docs = {**view.docs, **table.docs}
    fields: list[tuple[str, str, str | None, str]] = []
    for name in VIEW_FIELDS:
        annotation, doc = _VIEW_WIRE[name] if name in _VIEW_WIRE else (types[name], None)
        fields.append((name, annotation, None, doc or docs[name]))
    out.model("ViewPayload", _VIEW_DOC, fields, source)
    # The same fields, each left out when it did not change.
    # ``revealed`` only grows within a round: its new turns alone, when the reader holds
    # the turns before them.
    added = ("revealed_added", _or_missing(types["revealed"]), "MISSING",
             "The turns revealed since the view you hold, to append to its ``revealed``\n"
             "(sent instead of ``revealed`` when that only grew).")
    out.model("ViewChange", _CHANGE_DOC,
              [*((name, _or_missing(annotation), "MISSING", doc)
                 for name, annotation, _, doc in fields), added], source)


def _or_missing(annotation: str) -> str:
    """``annotation`` that may also be left out (``None``, if it has one, stays last)."""
    if annotation.endswith(" | None"):
        return annotation[:-len(" | None")] + " | MISSING | None"
    return f"{annotation} | MISSING"


def _isort(name: str) -> tuple[int, str]:
    """Where ruff's isort-style order puts ``name`` in ``__all__``: constants, classes,
    then the rest."""
    return (0 if name.isupper() else 1 if name[0].isupper() else 2, name)


def render() -> str:
    """The text of :mod:`nimmt.wire.derived`."""
    out = _Writer()
    events = _events(out)
    _view(out)
    union = ["", "", "#: The model of any event, by its ``type``.",
             "EventPayload: TypeAlias = Annotated[",
             *(f"    {'| ' if i else ''}{name}{',' if i == len(events) - 1 else ''}"
               for i, name in enumerate(events)),
             '    Field(discriminator="type"),',
             "]",
             "#: The wire model of each event class.",
             "EVENT_MODELS: dict[type[E.Event], type[Payload]] = {",
             *(f"    E.{name}: {name}," for name in events),
             "}"]
    engine = sorted((m for m in out.imports if not m.startswith(".")),
                    key=lambda m: m.rsplit(".", 1)[1])
    head = [
        '"""The wire models of the game\'s own values: each event of :mod:`nimmt.events` and',
        "the view of :mod:`nimmt.views`, with each field's type, default and description as",
        "declared there.",
        "",
        "Written by :mod:`nimmt.wire.derive` (``scripts/wire-types``): never edit it by hand.",
        '"""',
        "",
        "from __future__ import annotations",
        "",
        "from typing import Annotated, Literal, TypeAlias",
        "",
        "from pydantic import MISSING, Field",
        "",
        "from .. import events as E",
        *(f"from ..{m.rsplit('.', 1)[1]} import {', '.join(sorted(out.imports[m]))}"
          for m in engine),
        "from .base import Payload",
        *(f"from {m} import {', '.join(sorted(names))}"
          for m, names in sorted(out.imports.items()) if m.startswith(".")),
        "",
        "__all__ = [",
        *(f"    {json.dumps(n)}," for n in sorted(["EVENT_MODELS", "EventPayload",
                                                    "ViewChange", "ViewPayload", *events],
                                                   key=_isort)),
        "]",
    ]
    return "\n".join([*head, *out.lines, *union]) + "\n"


if __name__ == "__main__":
    sys.stdout.write(render())
