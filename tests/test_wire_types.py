"""The web client's types of the wire (src/nimmt/web/static/wire.d.ts) are generated from
the protocol's JSON Schema: the committed file is what scripts/wire-types makes now, so a
model changed without regenerating them fails here (and tsc checks the client against
them: scripts/test)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
COMMITTED = ROOT / "src" / "nimmt" / "web" / "static" / "wire.d.ts"


@pytest.mark.skipif(shutil.which("node") is None
                    or not (ROOT / "node_modules" / "json-schema-to-typescript").is_dir(),
                    reason="needs node and the npm packages (scripts/setup dev)")
def test_the_committed_wire_types_are_generated_from_the_schema(tmp_path: Path) -> None:
    env = {**os.environ, "PYTHON": sys.executable,
           "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT / "src"),
                                                      os.environ.get("PYTHONPATH")]))}
    subprocess.run([str(ROOT / "scripts" / "wire-types"), str(tmp_path)], env=env, check=True,
                   timeout=120)
    made = (tmp_path / "wire.d.ts").read_text()
    assert made == COMMITTED.read_text(), "run scripts/wire-types and commit wire.d.ts"
    # The shapes the client reads are there, with what the hand-copied types lacked.
    assert "export interface ViewPayload" in made and "decision_with_hand" in made


def test_the_client_names_the_wire_types_instead_of_copying_them() -> None:
    state = (ROOT / "src" / "nimmt" / "web" / "static" / "state.js").read_text()
    for name in ("ViewPayload", "Prompt", "Sheet", "TableState", "Events", "EventItem"):
        assert f'import("./wire").{name}' in state, name
