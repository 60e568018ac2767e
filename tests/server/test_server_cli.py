"""``nimmt serve``: clear refusals for bad settings, a bad database and a busy port."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = [pytest.mark.timeout(60)]

NIMMT = str(Path(sys.executable).parent / "nimmt")


def serve(args: list[str], tmp_path: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "NIMMT_DATA_DIR": str(tmp_path)}
    return subprocess.run([NIMMT, "serve", *args], capture_output=True, text=True, env=env,
                          timeout=50)


def test_bad_port(tmp_path: Path) -> None:
    done = serve(["--port", "70000"], tmp_path)
    assert done.returncode == 2 and "port" in done.stderr
    assert "Traceback" not in done.stderr


def test_bad_database_url(tmp_path: Path) -> None:
    done = serve(["--port", "0", "--db", "nosuchdb://x"], tmp_path)
    assert done.returncode == 1 and "Bad database URL" in done.stderr
    assert "Traceback" not in done.stderr


def test_unreachable_database(tmp_path: Path) -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]  # nothing listens there once closed
    done = serve(["--port", "0", "--db", f"postgresql+psycopg://postgres@127.0.0.1:{port}/x"],
                 tmp_path)
    assert done.returncode == 1 and "Cannot open the database" in done.stderr
    assert "Traceback" not in done.stderr


def test_port_in_use(tmp_path: Path) -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        s.listen()
        done = serve(["--port", str(s.getsockname()[1])], tmp_path)
    assert done.returncode == 1 and "Cannot serve on" in done.stderr
    assert "Traceback" not in done.stderr
