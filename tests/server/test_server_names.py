"""Names and text against a real server (SQLite and PostgreSQL).

Two names that look alike are one name (UTS #39 skeletons from ICU, case folded):
the second is refused with ``name_taken``, server-wide and at a table. Names that
show nothing are refused with ``bad_name``. Chat and table names lose their bidi
controls. Players stored before migration 0002 get their skeletons, the older of
two alike names keeping it.
"""

from __future__ import annotations

import json
import secrets
import time
import unicodedata
from pathlib import Path

import pytest
import sqlalchemy as sa
from alembic import command
from alembic.config import Config
from server_helpers import api, close_all
from websockets.asyncio.client import connect

from conftest import make_settings
from nimmt.client import Client, ServerError, ws_url
from nimmt.server.base.text import check_name, clean_text, has_visible, name_key
from nimmt.server.run import running_server
from nimmt.server.store import hash_token
from nimmt.server.store.migrate import MIGRATIONS
from nimmt.wire import Events

pytestmark = [pytest.mark.timeout(300)]

NFD_JOSE = unicodedata.normalize("NFD", "José")
#: Names that show nothing: fillers, blanks, zero-width and space characters.
INVISIBLE = ["\u3164", "\u2800", "\u115f", "\u1160", "\uffa0", "\u200b", "\u200c", "\u200d",
             "\u2060", "\ufeff", " ", "\u3000", "\u00a0\u2003", "\u3164\u2800\u3164",
             "\u0301", "\U0001d159", "\u034f", "\u180e"]
#: Bidi controls: embeddings, overrides, isolates and marks.
BIDI = "\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\u200e\u200f\u061c"


# -- the rules, without a server ------------------------------------------------------


@pytest.mark.parametrize(("a", "b"), [
    ("José", NFD_JOSE), ("Ana", "\u0410na"), ("paypal", "p\u0430ypal"), ("PayPal", "paypal"),
    ("Il", "ll"), ("Ana", "ANA"), ("bob", "b\u043eb"),
    ("rn", "m"), ("Ana", "Ana\ufe0f"),
])
def test_alike_names_share_a_key(a: str, b: str) -> None:
    assert name_key(a) == name_key(b)


@pytest.mark.parametrize(("a", "b"), [("Ana", "Anna"), ("Ana", "Ann"), ("José", "Jose1")])
def test_different_names_do_not(a: str, b: str) -> None:
    assert name_key(a) != name_key(b)


@pytest.mark.parametrize("name", INVISIBLE)
def test_names_that_show_nothing_are_refused(name: str) -> None:
    from nimmt.wire import ProtocolError

    assert not has_visible(name)
    with pytest.raises(ProtocolError) as err:
        check_name(name)
    assert err.value.code == "bad_name"


def test_names_are_normalized() -> None:
    assert check_name(NFD_JOSE) == "José" == unicodedata.normalize("NFC", NFD_JOSE)
    assert check_name("  Ana \u3000  Bo ") == "Ana Bo"
    assert check_name("\u2764\ufe0f") == "\u2764\ufe0f"  # a variation selector is fine


def test_clean_text_drops_bidi_controls() -> None:
    assert clean_text(f"a{BIDI}b\tc\x00\u2028") == "ab c"
    assert all(ch not in clean_text(ch + "x") for ch in BIDI)


# -- over the wire ----------------------------------------------------------------------


async def hello_error(url: str, name: str) -> tuple[str, str]:
    async with connect(ws_url(url)) as ws:
        await ws.send(json.dumps({"type": "hello", "name": name}))
        msg = json.loads(await ws.recv())
        assert msg["type"] == "error", msg
        return msg["code"], msg["message"]


@pytest.mark.asyncio
async def test_alike_and_invisible_names_are_refused(db_url: str, tmp_path: Path) -> None:
    async with running_server(make_settings(db_url, tmp_path, names_per_minute=1000)) as url:
        first = [await Client.connect(url, name=n) for n in ("José", "Ana", "paypal")]
        assert [c.name for c in first] == ["José", "Ana", "paypal"]
        for alike, owner in [(NFD_JOSE, "José"), ("\u0410na", "Ana"), ("ANA", "Ana"),
                             ("p\u0430ypal", "paypal"), ("PayPal", "paypal"), ("José", "José")]:
            code, message = await hello_error(url, alike)
            assert code == "name_taken", (alike, message)
            assert repr(owner) in message
        for name in INVISIBLE:
            code, _ = await hello_error(url, name)
            assert code == "bad_name", repr(name)
        for name in (f"Ana{BIDI[4]}", f"{BIDI[5]}Bob", "Bo\u200bb", "Bo\u3164b"):
            code, message = await hello_error(url, name)
            assert code == "bad_name" and "U+" in message, (repr(name), message)
        # A decomposed new name is kept composed, and the store holds its skeleton.
        zoe = await Client.connect(url, name=unicodedata.normalize("NFD", "Zoë"))
        assert zoe.name == "Zoë"
        info = await api(f"{url}/api/players/Zo%C3%AB")
        assert info["name"] == "Zoë"
        # Looked up in either form.
        assert (await api(f"{url}/api/players/Zoe%CC%88"))["name"] == "Zoë"
        await close_all([*first, zoe])


@pytest.mark.asyncio
async def test_chat_and_table_names_lose_bidi_controls(db_url: str, tmp_path: Path) -> None:
    async with running_server(make_settings(db_url, tmp_path, names_per_minute=1000)) as url:
        ana = await Client.connect(url, name="Ana")
        state = await ana.create_table(name=f"\u202eelbat ym{BIDI}", rules={"players": 2})
        assert state.table.name == "elbat ym"
        lobby = await api(f"{url}/api/tables")
        assert [t["name"] for t in lobby["tables"]] == ["elbat ym"]
        await ana.chat(f"hi \u2067there\u2069{BIDI}!")
        msg = await ana.expect(lambda m: isinstance(m, Events)
                               and any(i.kind == "chat" for i in m.items))
        assert isinstance(msg, Events)
        assert [i.text for i in msg.items if i.kind == "chat"] == ["hi there!"]
        await ana.close()


def _legacy_database(db_url: str) -> dict[str, str]:
    """A database at migration 0001 holding players whose names look alike; their tokens."""
    sync_url = db_url.replace("+aiosqlite", "")
    engine = sa.create_engine(sync_url)
    tokens = {}
    try:
        with engine.begin() as conn:
            cfg = Config()
            cfg.set_main_option("script_location", str(MIGRATIONS))
            cfg.attributes["connection"] = conn
            command.upgrade(cfg, "0001")
            for name in ("Ana", "\u0410na", "ana", "Bob"):
                tokens[name] = secrets.token_urlsafe(16)
                conn.execute(sa.text(
                    "insert into players (name, token_hash, mu, sigma, rated_games, created) "
                    "values (:n, :t, 25.0, 8.3, 0, :c)"),
                    {"n": name, "t": hash_token(tokens[name]), "c": time.time()})
    finally:
        engine.dispose()
    return tokens


@pytest.mark.asyncio
async def test_migration_keys_old_players_and_tables_refuse_alike(
        db_url: str, tmp_path: Path) -> None:
    tokens = _legacy_database(db_url)
    async with running_server(make_settings(db_url, tmp_path, names_per_minute=1000)) as url:
        # Everyone still plays under their name and token; nobody new gets a name like theirs.
        old = {n: await Client.connect(url, token=t) for n, t in tokens.items()}
        assert {n: c.name for n, c in old.items()} == {n: n for n in tokens}
        code, message = await hello_error(url, "ANA")
        assert code == "name_taken" and "'Ana'" in message
        # At a table, a name like one already seated is refused too.
        state = await old["Ana"].create_table(rules={"players": 3})
        await old["\u0410na"].join(state.table.code)
        with pytest.raises(ServerError) as err:
            await old["\u0410na"].sit()
        assert err.value.code == "name_taken"
        await old["Bob"].join(state.table.code)
        await old["Bob"].sit()
        await close_all(list(old.values()))
    engine = sa.create_engine(db_url.replace("+aiosqlite", ""))
    try:
        with engine.connect() as conn:
            rows = dict(conn.execute(sa.text("select name, skeleton from players")).all())
    finally:
        engine.dispose()
    assert rows == {"Ana": name_key("Ana"), "\u0410na": None, "ana": None,
                    "Bob": name_key("Bob")}
