"""The package as a user gets it: wheels built, installed in fresh virtual environments.

``scripts/wheels`` builds the sdist, the pure wheel and the compiled wheel
(repaired to a manylinux tag) in a fresh clone, with the build tools alone. The
install blocks of README.md and docs/packaging.md run as written (a release
file; a checkout), and a fresh clone's ``scripts/start --port N`` serves on N;
each wheel is installed into a new virtual
environment outside the repository, the pure one with no C compiler on the
path (``CC=false``), and used as a user would: the version, ``python -m
nimmt``, a simulate/replay round trip, and a server that starts and serves
the web client. The sdist with no compiler falls back to pure Python, saying
so. Dependencies come at the versions of ``locks/serve.txt`` (from pip's cache
after the first run).

The compiled wheel with the ``server`` extra at those versions is what
``scripts/start`` installs (``scripts/setup serve``: ``locks/serve.txt``, then the
package compiled): in it a table of experts plays through the server, and nearly
every decision must be the bots' own, not the default player's after a missed
deadline (``bench/bot_deadline.py``, run by that install's interpreter).
"""

from __future__ import annotations

import fcntl
import json
import os
import re
import shlex
import shutil
import signal
import socket
import subprocess
import sys
import tarfile
import urllib.request
import venv
import zipfile
from collections.abc import Callable
from pathlib import Path

import pexpect
import pytest

import nimmt
from deploy_helpers import doc_block

ROOT = Path(__file__).resolve().parents[1]

pytestmark = pytest.mark.timeout(900)


def once(tmp_path_factory: pytest.TempPathFactory, name: str,
         make: Callable[[Path], object]) -> Path:
    """The folder ``name`` made by ``make`` once in a run, whichever of the test processes
    (xdist's workers) asks first; the others wait for it and share it. A build that
    failed is tried again by the next to ask."""
    root = tmp_path_factory.getbasetemp()
    if os.environ.get("PYTEST_XDIST_WORKER"):
        root = root.parent  # the run's folder, above each worker's own
    out = root / name
    with open(root / f"{name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not (out / ".made").exists():
            shutil.rmtree(out, ignore_errors=True)
            out.mkdir()
            make(out)
            (out / ".made").touch()
    return out


def fresh_clone(dest: Path) -> Path:
    """The files git tracks, as this working tree has them: what a fresh clone holds, with
    the change under test, and nothing of the developer set-up (no ``.venv``, no
    ``node_modules``, no build)."""
    names = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True,
                           check=True).stdout.decode().split("\0")
    for name in filter(None, names):
        source = ROOT / name
        if source.is_file():  # a file deleted in the working tree is not there
            (dest / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, dest / name)
    return dest


def bare_env(**changes: str) -> dict[str, str]:
    """This environment without the developer set-up's virtual environment: what a host's
    shell has (``python3`` is the machine's, ``PYTHON`` its base interpreter)."""
    venv_bin = str(Path(sys.executable).parent)
    env = {k: v for k, v in os.environ.items()
           if k not in ("VIRTUAL_ENV", "PYTHONPATH", "PYTHONHOME")}
    env["PATH"] = os.pathsep.join(p for p in env.get("PATH", "").split(os.pathsep)
                                  if p and p != venv_bin)
    env["PYTHON"] = getattr(sys, "_base_executable", sys.executable)
    return {**env, **changes}


@pytest.fixture(scope="module")
def dist(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The sdist and the two wheels, built once in a run by ``scripts/wheels`` in a fresh
    clone, with the build tools alone (no ``scripts/setup``)."""

    def build(out: Path) -> None:
        clone = fresh_clone(out.with_name("dist-clone"))
        done = subprocess.run(
            [str(clone / "scripts" / "wheels"), str(out)], cwd=clone, capture_output=True,
            text=True, env=bare_env(NIMMT_BUILD_TOOLS=str(out.with_name("wheel-tools"))))
        assert done.returncode == 0, done.stdout + done.stderr
        assert not (clone / ".venv").exists()

    return once(tmp_path_factory, "dist", build)


README = ROOT / "README.md"
PACKAGING = ROOT / "docs" / "packaging.md"


def run_block(doc: Path, name: str, cwd: Path, home: Path, **settings: str) -> str:
    """Run the shell block marked ``<!-- test: NAME -->`` in ``doc`` as it is written, in
    ``cwd``, with ``home`` as the home folder (``~/nimmt`` lands there). pip takes its
    versions from ``locks/serve.txt`` (``PIP_CONSTRAINT``), its packages from this
    machine's cache and index, and compiles no byte code (Python does it at the first
    import): settings of pip, not words of the commands; ``settings``: more of them (no
    compiler, a pure build)."""
    block = doc_block(name, doc)
    home.mkdir(parents=True, exist_ok=True)
    env = bare_env(HOME=str(home), PIP_CONSTRAINT=str(ROOT / "locks" / "serve.txt"),
                   PIP_CACHE_DIR=os.path.expanduser("~/.cache/pip"), PIP_NO_COMPILE="1",
                   PIP_NO_INPUT="1", **settings)
    done = subprocess.run(["bash", "-euo", "pipefail", "-c", block], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, f"{name}:\n{block}\n{done.stdout}{done.stderr}"
    return done.stdout


def fresh_env(where: Path, requirement: str, env: dict[str, str]) -> tuple[Path, str]:
    """A new virtual environment with ``requirement`` installed; its bin folder and
    pip's output. Without byte-compiling what it installs (``--no-compile``): Python does
    that at the first import, and it took a third of each install's time here."""
    venv.create(where, with_pip=True)
    bin_ = where / "bin"
    done = subprocess.run(
        [str(bin_ / "python"), "-m", "pip", "install", "--no-compile",
         "-c", str(ROOT / "locks" / "serve.txt"), requirement],
        env=env, capture_output=True, text=True, cwd=where,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    return bin_, done.stdout + done.stderr


def no_compiler() -> dict[str, str]:
    return {**os.environ, "CC": "false", "CXX": "false", "PIP_NO_INPUT": "1"}


def use_like_a_user(bin_: Path, work: Path, compiled: bool, serve: bool = True) -> None:
    def run(*args: str) -> str:
        done = subprocess.run([*args], capture_output=True, text=True, cwd=work, timeout=120)
        assert done.returncode == 0, done.stdout + done.stderr
        assert "Traceback" not in done.stderr
        return done.stdout

    nimmt = str(bin_ / "nimmt")
    python = str(bin_ / "python")
    assert run(nimmt, "--version").strip() == "nimmt 0.1.0"
    assert "simulate" in run(python, "-m", "nimmt", "--help")
    run(nimmt, "simulate", "--players", "5", "--seed", "3", "--out", "game.json")
    assert "Record verified" in run(nimmt, "replay", "game.json", "--quiet")
    where = run(python, "-c", "import nimmt.engine as e; print(e.__file__)")
    assert where.strip().endswith(".so") is compiled, where
    assert str(ROOT) not in where  # the installed package, not this checkout
    if not serve:
        return
    server = subprocess.Popen(
        [nimmt, "serve", "--port", "0", "--data-dir", str(work / "data")],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=work,
    )
    try:
        assert server.stdout is not None
        line = server.stdout.readline()
        found = re.search(r"open (http://[\d.:]+)/", line)
        assert found, line + (server.stderr.read() if server.stderr else "")
        url = found.group(1)
        with urllib.request.urlopen(f"{url}/api", timeout=10) as resp:
            assert b'"nimmt"' in resp.read()
        with urllib.request.urlopen(f"{url}/play/", timeout=10) as resp:
            page = resp.read().decode()
            assert "<html" in page.lower()
    finally:
        server.terminate()
        server.wait(20)


@pytest.fixture(scope="module")
def served(dist: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The compiled wheel with the server extra, installed as docs/packaging.md says (and
    docs/deploy.md on a server), at ``locks/serve.txt``'s versions: the install
    ``scripts/start`` makes too. Its bin folder."""
    if sys.platform != "linux":
        pytest.skip("manylinux wheels are for Linux")
    (wheel,) = dist.glob("nimmt-*-cp3*-manylinux*.whl")

    def install(out: Path) -> None:
        shutil.copy(wheel, out)
        said = run_block(PACKAGING, "install-compiled", out, out / "home")
        assert said.strip().splitlines()[-1] == f"nimmt {nimmt.__version__}"

    return once(tmp_path_factory, "served", install) / "home" / "nimmt" / "bin"


def test_the_readme_installs_a_release_file(dist: Path, tmp_path: Path) -> None:
    """README.md's install from a release file, run as written, with the file it names:
    the pure wheel with the server, on a machine without a C compiler (``CC=false``)."""
    (wheel,) = dist.glob("nimmt-*-py3-none-any.whl")
    assert f'"./{wheel.name}[server]"' in doc_block("install-wheel", README)
    shutil.copy(wheel, tmp_path)
    said = run_block(README, "install-wheel", tmp_path, tmp_path / "home", CC="false",
                     CXX="false")
    assert said.strip().splitlines()[-1] == f"nimmt {nimmt.__version__}"
    use_like_a_user(tmp_path / "home" / "nimmt" / "bin", tmp_path, compiled=False)


def test_the_readme_installs_a_checkout(tmp_path: Path) -> None:
    """README.md's install from a checkout, run as written in a fresh clone, nothing of the
    clone's folder used. The engine is built pure (``NIMMT_PURE=1``, a setting of the
    build): the compiled build of a fresh clone is the wheel ``scripts/wheels`` makes
    (``dist``), and it would cost this test two minutes more."""
    clone = fresh_clone(tmp_path / "clone")
    said = run_block(README, "install-checkout", clone, tmp_path / "home", NIMMT_PURE="1")
    assert said.strip().splitlines()[-1] == f"nimmt {nimmt.__version__}"
    use_like_a_user(tmp_path / "home" / "nimmt" / "bin", tmp_path, compiled=False)


def test_scripts_start_with_options_serves_with_them(tmp_path: Path) -> None:
    """A fresh clone's ``scripts/start --port N`` sets itself up and serves on N. Its
    engine is built pure (``NIMMT_PURE=1``): the compiled build is what the checkout's
    install and the wheels above test, and it would cost this test a minute more."""
    clone = fresh_clone(tmp_path / "clone")
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    start = subprocess.Popen(
        [str(clone / "scripts" / "start"), "--port", str(port), "--data-dir",
         str(tmp_path / "data")], cwd=tmp_path, stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT, text=True, start_new_session=True,
        env=bare_env(PIP_CACHE_DIR=os.path.expanduser("~/.cache/pip"), NIMMT_PURE="1"))
    try:
        assert start.stdout is not None
        seen = []
        for line in start.stdout:  # the set-up's lines, then the server's address
            seen.append(line)
            if "open http://" in line:
                break
        assert f"open http://127.0.0.1:{port}/ in a browser" in seen[-1], "".join(seen)
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/api", timeout=30) as resp:
            assert json.loads(resp.read())["name"] == "nimmt"
    finally:
        os.killpg(start.pid, signal.SIGTERM)
        start.wait(60)
    # The server stopped with its drain (uvicorn ends by the signal it drained on), its
    # data kept.
    rest = start.stdout.read()
    assert "stopped" in rest and start.returncode in (0, -signal.SIGTERM), rest
    assert (tmp_path / "data" / "nimmt.db").is_file()


def test_compiled_wheel_has_a_manylinux_tag_and_runs(served: Path, tmp_path: Path) -> None:
    use_like_a_user(served, tmp_path, compiled=True)


@pytest.mark.timeout(1800)
def test_the_served_install_plays_its_strongest_bots_within_their_deadline(
    served: Path, tmp_path: Path,
) -> None:
    """Five experts and a person at one table through the server of the served install:
    the kernel is compiled there, and the bots make (nearly) every decision themselves
    (ten seats, twice the work, are measured by the benchmark: docs/benchmarks.md)."""
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "NIMMT_NO_NUMBA")}
    done = subprocess.run(
        [str(served / "python"), str(ROOT / "bench" / "bot_deadline.py"), "--players", "6",
         "--bot", "expert", "--rounds", "1"],
        capture_output=True, text=True, cwd=tmp_path, env=env, timeout=800,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    out = json.loads(done.stdout.strip().splitlines()[-1])
    print(done.stdout)  # the share measured, in the test's output
    assert out["numba"] is True
    assert out["bot_decisions"] >= 5 * 10  # five bots, ten cards each (and any row choices)
    assert out["own_share"] >= 0.95, out
    # Every decision that ran out of time was told at the table too.
    assert out["timeout_notices"] == out["timeouts_logged"], out


def test_source_without_a_compiler_falls_back_to_pure_python(dist: Path, tmp_path: Path) -> None:
    """The sdist on a machine without a C compiler builds the pure engine, saying so. The
    core alone: the extras' parts install the same from either wheel (above)."""
    (sdist,) = dist.glob("nimmt-*.tar.gz")
    bin_, output = fresh_env(tmp_path / "venv", str(sdist), {**no_compiler(), "PIP_VERBOSE": "1"})
    assert "installing the pure-Python engine" in output
    use_like_a_user(bin_, tmp_path, compiled=False, serve=False)


def test_the_core_alone_plays_and_names_the_extra_it_lacks(dist: Path, tmp_path: Path) -> None:
    (wheel,) = dist.glob("nimmt-*-py3-none-any.whl")
    bin_, _ = fresh_env(tmp_path / "venv", str(wheel), no_compiler())
    done = subprocess.run([str(bin_ / "nimmt"), "simulate", "--out", "-"], capture_output=True,
                          text=True, cwd=tmp_path)
    assert done.returncode == 0 and '"nimmt-record"' in done.stdout
    done = subprocess.run([str(bin_ / "nimmt"), "env", "check"], capture_output=True, text=True,
                          cwd=tmp_path)
    assert done.returncode == 3
    assert f"{bin_ / 'python'} -m pip install 'pettingzoo" in done.stderr
    assert "Traceback" not in done.stderr
    listed = subprocess.run([str(bin_ / "python"), "-m", "pip", "list"], capture_output=True,
                            text=True).stdout
    assert "SQLAlchemy" not in listed and "uvicorn" not in listed
    # nimmt play in a terminal without Textual: the plain mode, and the command that adds
    # the full screen to this install, which does when run as written.
    terminal = {**os.environ, "TERM": "xterm", "LANG": "C.UTF-8"}
    terminal.pop("NIMMT_PLAIN", None)
    terminal.pop("NO_COLOR", None)
    child = pexpect.spawn(str(bin_ / "nimmt"), ["play"], encoding="utf-8", timeout=60,
                          env=terminal, dimensions=(40, 160), cwd=str(tmp_path))
    child.expect(r"playing in plain mode\. For the full screen: (.+?)\r?\n")
    command = child.match.group(1).strip()
    child.terminate(force=True)
    assert command == f"{bin_ / 'python'} -m pip install 'textual<9,>=8.0'"
    added = subprocess.run([*shlex.split(command), "-c", str(ROOT / "locks" / "dev.txt")],
                           capture_output=True, text=True, cwd=tmp_path, env=no_compiler())
    assert added.returncode == 0, added.stdout + added.stderr
    child = pexpect.spawn(str(bin_ / "nimmt"), ["play"], encoding="utf-8", timeout=60,
                          env=terminal, dimensions=(40, 160), cwd=str(tmp_path))
    child.expect_exact("\x1b[?1049h")  # the full screen (plain mode writes no escape)
    assert "plain mode" not in (child.before or "")
    child.terminate(force=True)
    done = subprocess.run([str(bin_ / "nimmt"), "serve"], capture_output=True, text=True,
                          cwd=tmp_path)
    assert done.returncode == 3 and "Traceback" not in done.stderr
    # The sentence names this install's pip and the extra's requirements (nimmt itself is on
    # no index here, so 'nimmt[server]' could not be found): run as written, it adds them.
    command = done.stderr.strip().split("): ", 1)[1]
    assert command.startswith(f"{bin_ / 'python'} -m pip install 'pydantic-settings")
    added = subprocess.run([*shlex.split(command), "-c", str(ROOT / "locks" / "serve.txt")],
                           capture_output=True, text=True, cwd=tmp_path, env=no_compiler())
    assert added.returncode == 0, added.stdout + added.stderr
    done = subprocess.run([str(bin_ / "nimmt"), "serve", "--help"], capture_output=True,
                          text=True, cwd=tmp_path)
    assert done.returncode == 0 and "--port" in done.stdout, done.stdout + done.stderr


#: A link or picture's target in Markdown (inline, or a reference definition) or HTML.
TARGETS = re.compile(r"!?\[[^\]]*\]\(([^)\s]+)|^ {0,3}\[[^\]]+\]:\s*(\S+)"
                     r"""|(?:src|href)\s*=\s*["']?+([^"'\s>]*)""", re.I | re.M)


def relative_targets(markdown: str) -> list[str]:
    """The targets of links and pictures outside code blocks that are not absolute URLs
    (a package index shows the text away from the repository: they would lead nowhere)."""
    prose = re.sub(r"^```.*?^```$", "", markdown, flags=re.S | re.M)
    found = [next((t for t in m.groups() if t is not None), "") for m in TARGETS.finditer(prose)]
    return [t for t in found if not re.match(r"[a-z][a-z0-9+.-]*:", t, re.I)]


def test_the_long_description_has_no_relative_link_or_image(dist: Path) -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    # README.md itself has them (its screenshots): the check below is not idle.
    assert any(t.startswith("docs/screenshots/") for t in relative_targets(readme))
    metadata = {}
    for wheel in dist.glob("nimmt-*.whl"):
        with zipfile.ZipFile(wheel) as z:
            (name,) = (n for n in z.namelist() if n.endswith(".dist-info/METADATA"))
            metadata[wheel.name] = z.read(name).decode()
    (sdist,) = dist.glob("nimmt-*.tar.gz")
    with tarfile.open(sdist) as t:
        info = t.extractfile(f"{sdist.name.removesuffix('.tar.gz')}/PKG-INFO")
        assert info is not None
        metadata[sdist.name] = info.read().decode()
    assert len(metadata) == 3
    for where, text in metadata.items():
        headers, _, body = text.partition("\n\n")
        assert "Description-Content-Type: text/markdown" in headers, where
        assert body.startswith("# nimmt\n\nThe open 6 nimmt! platform"), where
        assert "## A game between bots in three lines" in body, where
        assert relative_targets(body) == [], where
        assert "Screenshots" not in body, where
