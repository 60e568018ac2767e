"""An invitation in the terminal client: shown with the server's sentence, accepted with
/accept (joining the table), refused with a sentence when none waits."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from nimmt.tui.commands import Interpreter
from nimmt.tui.remote import RemoteSession, RemoteTarget, TokenStore
from nimmt.tui.session import Said

from .tui_helpers import Server


@pytest.mark.timeout(300)
def test_an_invitation_is_shown_and_accepted(server: Server, tmp_path: Path) -> None:
    rules = {"preset": "classic", "players": 3}
    hana = RemoteSession(RemoteTarget(server.url), name="Hana", lang="sr", bots=[], rules=rules,
                         tokens=TokenStore(tmp_path / "hana.json"))
    ivo = RemoteSession(RemoteTarget(server.url), name="Ivo", lang="cs", bots=[], rules=rules,
                        tokens=TokenStore(tmp_path / "ivo.json"))
    heard: list[Said] = []
    ivo.listen(lambda u: heard.append(u) if isinstance(u, Said) else None)
    hana.open()
    ivo.open()
    try:
        none = Interpreter(ivo).line("/accept")
        assert none.urgent and none.say == "Žádná pozvánka na vás nečeká."
        end = time.monotonic() + 60
        while hana.snapshot.code is None or ivo.snapshot.code is None:
            assert time.monotonic() < end
            hana.pump(0.05)
            ivo.pump(0.05)
        code = hana.snapshot.code
        assert code != ivo.snapshot.code
        Interpreter(hana).line("/invite Ivo")
        said = "Hana vás zve ke svému stolu."  # the table by its host, who invites
        while not any(s.text.startswith(said) for s in heard):
            assert time.monotonic() < end, [s.text for s in heard]
            ivo.pump(0.05)
        line = next(s for s in heard if s.text.startswith(said))
        assert line.text.endswith("/accept a přisednete k tomu stolu, nebo /decline.")
        assert Interpreter(ivo).line("/accept").say == ""
        while ivo.snapshot.code != code:
            assert time.monotonic() < end
            ivo.pump(0.05)
        assert Interpreter(ivo).line("/sit").say == ""
    finally:
        hana.close()
        ivo.close()
