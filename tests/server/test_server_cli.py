"""``nimmt serve``: clear refusals for bad settings, a bad database and a busy port."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = [pytest.mark.timeout(300)]

NIMMT = str(Path(sys.executable).parent / "nimmt")


def serve(args: list[str], tmp_path: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "NIMMT_DATA_DIR": str(tmp_path)}
    return subprocess.run([NIMMT, "serve", *args], capture_output=True, text=True, env=env,
                          timeout=240)


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


def test_the_printed_address_is_one_a_browser_opens() -> None:
    from nimmt.server.run import address

    assert address("127.0.0.1", 8000) == "http://127.0.0.1:8000"
    assert address("0.0.0.0", 80) == "http://127.0.0.1:80"
    assert address("::", 8000) == "http://[::1]:8000"
    assert address("::1", 8000) == "http://[::1]:8000"
    assert address("example.org", 8000) == "http://example.org:8000"


def test_serve_prints_the_address_of_the_client(tmp_path: Path) -> None:
    """The address ``nimmt serve`` prints answers with the web client (via a redirect)."""
    import re
    import urllib.request

    env = {**os.environ, "NIMMT_DATA_DIR": str(tmp_path)}
    proc = subprocess.Popen([NIMMT, "serve", "--host", "0.0.0.0", "--port", "0"],
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                            env=env)
    try:
        assert proc.stdout is not None
        line = proc.stdout.readline()
        m = re.search(r"open (http://127\.0\.0\.1:\d+/) in a browser", line)
        assert m, line
        with urllib.request.urlopen(m.group(1), timeout=60) as resp:
            assert resp.url.endswith("/play/")
            assert "<html" in resp.read().decode().lower()
    finally:
        proc.terminate()
        proc.wait(timeout=60)
