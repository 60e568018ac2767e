"""An invitation heard through Orca in the middle of a game, accepted with its key; then
a mute.

The player starts the quick game (Chromium under Orca, every action a key sent by
xdotool); another player, from the Python client, invites them to a table of theirs.
Orca must say the invitation's sentence (the server's, with the keys that answer it)
while the player's focus is on their hand, and J must reach the page and seat them at
the inviter's table. There the inviter's chat is heard until the player mutes them, by
Tab and Enter, from the inviter's entry in the seats. The transcript stays in
``build/screenreader/invitation/``.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest

from nimmt.client_sync import SyncClient
from nimmt.narrate import narrator

from .game import Player
from .orca import SLOW, Desktop, missing_packages, until
from .test_orca_game import BUILD, CPS, desktop, keep, server

# The fixtures this module shares with the game's (a server and a desktop's folder).
__all__ = ["desktop", "server"]

pytestmark = pytest.mark.timeout(600)


def test_an_invitation_heard_and_accepted_by_key(server: str, pw: Any, desktop: Path) -> None:
    gone = missing_packages(("chromium",))
    if gone:
        pytest.skip("the invitation in chromium needs the Debian packages " + ", ".join(gone))
    out = BUILD / "invitation"
    with Desktop(desktop, "en", CPS, pw=pw) as d:
        try:
            p = Player(d, server, "en")
            page = d.open(f"{server}/play/")
            d.quiet(1.0)
            p.tab_to("#quick-play", back=True)
            d.key("Return")
            page.wait_for_selector("#view-table:not([hidden])")
            p.ready("card")
            assert p.focused("#hand *"), "the quick game's first decision is not in the hand"
            guest = page.evaluate("() => localStorage.getItem('nimmt.name')")
            with SyncClient.connect(server, name="Inviter") as host:
                code = host.create_table(rules={"preset": "classic", "players": 2}).table.code
                since = time.time()
                host.act("invite", name=guest)
                # The host invites to the table they did not name: said by its host.
                sentence = narrator("en").invitation_sentence("Inviter", code, "", "Inviter")
                assert p.hear(sentence, since), f"Orca never said {sentence!r}"
                assert p.hear("J accepts", since), "Orca never said the key that accepts"
                d.key("j")
                assert until(lambda: page.evaluate("() => location.hash") == f"#/table/{code}",
                             SLOW), "J did not take the player to the inviter's table"
                p.wait_seated(2)
                d.quiet(1.0)
                # The inviter's chat is heard, until the player mutes them.
                since = time.time()
                host.chat("welcome aboard")
                said = narrator("en").chat_sentence("Inviter", "welcome aboard")
                assert p.hear(said, since), f"Orca never said {said!r}"
                p.tab_to("#seat-list [data-person='Inviter']")
                d.key("Return")
                page.wait_for_selector("#person-box:not([hidden])")
                p.tab_to("#person-mute")
                since = time.time()
                d.key("Return")
                assert p.hear("Inviter is muted", since), "the mute was not said"
                since = time.time()
                host.chat("can you hear me")
                # Whatever the server sent before the inviter leaves has come by then.
                host.leave()
                left = narrator("en").notice_sentence("left", name="Inviter", seat=0)
                assert p.hear(left, since), f"Orca never said {left!r}"
                assert not [u.text for u in d.said(since) if "can you hear me" in u.text]
        finally:
            keep(d, out)
            (out / "transcript.txt").write_text("\n".join(d.transcript()) + "\n")
