"""Signing in, in Serbian, by keyboard, heard through Orca.

A player with an account opens the Account page from the main navigation, types the
name and a wrong password: focus stays on the password field, which Orca says with the
refusal (it describes the field), once; then the right password: Orca says once who
the page now is. The transcript stays in ``build/screenreader/account/``. Run alone:
``.venv/bin/python -m pytest tests/screenreader/test_orca_account.py -p no:randomly -n 0``.
"""

from __future__ import annotations

import asyncio
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from nimmt.client import Client

from .game import Player
from .orca import Desktop, missing_packages, norm
from .test_orca_game import BUILD, CPS, desktop, keep, server

__all__ = ["desktop", "server"]  # the fixtures this file shares with the game's

pytestmark = pytest.mark.timeout(600)

NAME = "Vesna"
PASSWORD = "plavi cajnici pevaju u zoru"  # xdotool types ASCII here


async def _account(url: str) -> None:
    """``NAME``, an account with ``PASSWORD`` (made by the Python client)."""
    c = await Client.connect(url, name=NAME)
    try:
        await c.set_password(PASSWORD)
    finally:
        await c.close()


def test_a_sign_in_heard_through_orca(server: str, pw: Any, desktop: Path) -> None:
    gone = missing_packages(("chromium",))
    if gone:
        pytest.skip("the sign-in in chromium needs the Debian packages " + ", ".join(gone))
    # The page's Playwright runs an event loop in this thread: the client runs in another.
    made = threading.Thread(target=asyncio.run, args=(_account(server),))
    made.start()
    made.join(60)
    out = BUILD / "account"
    with Desktop(desktop, "sr", CPS, pw=pw) as d:
        try:
            p = Player(d, server, "sr")
            d.open(f"{server}/play/")
            d.quiet(1.0)
            p.choose_language()
            # The Account link of the main navigation, then the sign-in form.
            p.tab_to("nav a[href='#/account']", back=True)
            d.key("Return")
            p.page.wait_for_selector("#view-account:not([hidden])")
            p.tab_to("#signin-name")
            p.fill("#signin-name", NAME)
            p.tab_to("#signin-pw")
            p.fill("#signin-pw", "pogresna lozinka")
            since = time.time()
            d.key("Return")
            refused = "Ime i lozinka se ne poklapaju."
            assert p.hear(refused, since), "the refusal was not said"
            # Focus on the password field, which Orca says with the refusal (described by it).
            assert p.focused("#signin-pw")
            refusals = sum(norm(u.text).count(norm(refused)) for u in d.said(since))
            # Back to the password (it was emptied), the right one this time.
            p.fill("#signin-pw", PASSWORD)
            since = time.time()
            d.key("Return")
            signed = f"Prijavljeni ste kao {NAME}."
            assert p.hear(signed, since), "the sign-in was not said"
            welcomes = sum(norm(u.text).count(norm(signed)) for u in d.said(since))
        finally:
            keep(d, out)
            (out / "transcript.txt").write_text("\n".join(d.transcript()) + "\n")
    assert refusals == 1, f"the refusal was said {refusals} times"
    assert welcomes == 1, f"the sign-in was said {welcomes} times"
