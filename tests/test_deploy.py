"""docs/deploy.md's systemd units: ``systemd-analyze verify`` finds nothing to say about
them (skipped where it is not installed), and the backup unit's command backs up.

The rest of the document is run by tests/server/test_server_proxy.py,
tests/web/test_web_proxy.py and tests/server/test_server_backup.py.
"""

from __future__ import annotations

import asyncio
import os
import shlex
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from deploy_helpers import doc_block, doc_env, fill

NIMMT = str(Path(sys.executable).parent / "nimmt")
SYSTEMD_ANALYZE = shutil.which("systemd-analyze")
UNITS = ["nimmt.service", "nimmt@.service", "nimmt-backup.service", "nimmt-backup.timer"]


@pytest.mark.skipif(SYSTEMD_ANALYZE is None,
                    reason="systemd-analyze is not installed (Debian's systemd package)")
def test_the_systemd_units_verify(tmp_path: Path) -> None:
    for name in UNITS:
        text = doc_block(name)
        if name.endswith(".service"):
            # systemd-analyze checks that the program exists: this nimmt for /opt/nimmt's.
            text = fill(text, {"/opt/nimmt/bin/nimmt": NIMMT})
        (tmp_path / name).write_text(text)
    assert SYSTEMD_ANALYZE is not None
    done = subprocess.run([SYSTEMD_ANALYZE, "verify", *(str(tmp_path / n) for n in UNITS)],
                          capture_output=True, text=True, timeout=120)
    # A setting it cannot parse is only a warning ("…, ignoring"): nothing may be said.
    assert done.returncode == 0 and not (done.stdout + done.stderr).strip(), (
        done.stdout + done.stderr)


def test_the_template_unit_is_the_service_on_a_port_of_its_own() -> None:
    """``nimmt@.service`` keeps every setting of ``nimmt.service`` (its hardening too):
    only the description and the command, which takes the instance's port, differ."""
    single = doc_block("nimmt.service").splitlines()
    template = doc_block("nimmt@.service").splitlines()
    assert len(single) == len(template)
    differ = [(a, b) for a, b in zip(single, template, strict=True) if a != b]
    assert differ == [
        ("Description=nimmt game server", "Description=nimmt game server on port %i"),
        ("ExecStart=/opt/nimmt/bin/nimmt serve", "ExecStart=/opt/nimmt/bin/nimmt serve --port %i"),
    ]


@pytest.mark.skipif(SYSTEMD_ANALYZE is None,
                    reason="systemd-analyze is not installed (Debian's systemd package)")
def test_an_instance_of_the_template_verifies(tmp_path: Path) -> None:
    (tmp_path / "nimmt@.service").write_text(
        fill(doc_block("nimmt@.service"), {"/opt/nimmt/bin/nimmt": NIMMT}))
    (tmp_path / "nimmt@8001.service").symlink_to("nimmt@.service")
    assert SYSTEMD_ANALYZE is not None
    done = subprocess.run([SYSTEMD_ANALYZE, "verify", str(tmp_path / "nimmt@8001.service")],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0 and not (done.stdout + done.stderr).strip(), (
        done.stdout + done.stderr)


def test_the_backup_units_command_backs_up(tmp_path: Path) -> None:
    """The unit's ``ExecStart`` as systemd runs it (``%%`` and ``$$`` unescaped) with the
    document's settings and the unit's environment: a backup named for the weekday."""
    pytest.importorskip("sqlalchemy")
    from nimmt.server.store import Store

    data = tmp_path / "data"

    async def make_store() -> None:
        store = Store(f"sqlite+aiosqlite:///{data / 'nimmt.db'}")
        await store.open()
        await store.close()

    asyncio.run(make_store())
    unit = doc_block("nimmt-backup.service").splitlines()
    (line,) = [s for s in unit if s.startswith("ExecStart=")]
    # Its Environment= lines (one NAME=value each here) on top of the EnvironmentFile's.
    own = dict(s.removeprefix("Environment=").split("=", 1) for s in unit
               if s.startswith("Environment="))
    command = line.removeprefix("ExecStart=").replace("%%", "%").replace("$$", "$")
    command = fill(command, {"/opt/nimmt/bin/nimmt": NIMMT,
                             "/var/backups/nimmt/": f"{tmp_path}/backups/"})
    (tmp_path / "backups").mkdir()
    env = {**os.environ, **doc_env({"NIMMT_DATA_DIR": str(data)}), **own}
    days = {time.strftime("%a")}
    done = subprocess.run(shlex.split(command), env=env, capture_output=True, text=True,
                          timeout=120)
    days.add(time.strftime("%a"))  # at midnight, either day's
    assert done.returncode == 0, done.stderr
    (made,) = (tmp_path / "backups").iterdir()
    assert made.name in {f"nimmt-{day}.db" for day in days}
    assert f"to {made}:" in done.stdout
