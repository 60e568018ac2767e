"""The wire stands alone: its models of the engine's events and view are the ones the
engine's declarations make now, the type checker sees each one as a class, and every
client imports the wire without the server."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from nimmt.wire import derive

ROOT = Path(__file__).resolve().parents[2]
DERIVED = ROOT / "src" / "nimmt" / "wire" / "derived.py"


def test_the_committed_models_are_what_the_declarations_make() -> None:
    assert derive.render() == DERIVED.read_text("utf-8"), (
        "run scripts/wire-types and commit src/nimmt/wire/derived.py")


def test_the_models_are_classes_the_type_checker_sees() -> None:
    """No model of the wire is made at run time (the type checker would call it ``Any``):
    every event's model, the view's and its change's are declared in the source."""
    import ast

    from nimmt import wire

    declared = {node.name for node in ast.parse(DERIVED.read_text("utf-8")).body
                if isinstance(node, ast.ClassDef)}
    views = {"ViewPayload", "ViewChange"}
    assert {model.__name__ for model in wire.EVENT_MODELS.values()} | views == declared
    for module in Path(wire.__file__).parent.glob("*.py"):
        assert "create_model" not in module.read_text("utf-8"), module.name


def test_the_clients_import_the_wire_without_the_server() -> None:
    code = ("import sys\n"
            "import nimmt.client, nimmt.client_sync, nimmt.remote_bot, nimmt.wire\n"
            "import nimmt.tui.cli, nimmt.tui.local, nimmt.tui.remote, nimmt.tui.session\n"
            "print(sorted(m for m in sys.modules if m.startswith('nimmt.server')))\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True, timeout=120)
    assert out.stdout.strip() == "[]"
