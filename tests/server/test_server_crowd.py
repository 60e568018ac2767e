"""The social room under a crowd: many players, many addresses and many connections of one
player at once, racing at every quota and every delivery, on SQLite and PostgreSQL.

Each test reproduces a finding of a hostile crowd and pins the figure that now holds
(docs/security.md, "The room under a crowd"): every line reaches each connection once,
in order; a quota lets through exactly its number whatever races it; a race on one row
is answered, not a dropped connection; what a stranger can grow has a bound."""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa
from server_helpers import close_all, eventually
from test_server_admin import connect

from conftest import make_settings
from nimmt.client import Client, ServerError
from nimmt.server.run import running_hub
from nimmt.wire import ChatMessage, Error, Invitation

pytestmark = [pytest.mark.asyncio, pytest.mark.timeout(600)]


async def race(clients: list[Client], act: Callable[[Client, int], Awaitable[Any]]
               ) -> tuple[int, list[str]]:
    """``act`` on every client at once: how many were answered, and the refusals' codes."""
    results = await asyncio.gather(*(act(c, i) for i, c in enumerate(clients)),
                                   return_exceptions=True)
    codes = []
    for r in results:
        if isinstance(r, ServerError):
            codes.append(r.code)
        elif isinstance(r, BaseException):
            raise r
    return len(results) - len(codes), codes


async def one_player(url: str, name: str, n: int, host: str = "127.0.0.1") -> list[Client]:
    """``n`` connections of one new player."""
    first = await connect(url, host, name=name)
    rest = await asyncio.gather(*(connect(url, host, token=first.token) for _ in range(n - 1)))
    return [first, *rest]


async def many(url: str, prefix: str, n: int, host: str = "127.0.0.1") -> list[Client]:
    return list(await asyncio.gather(*(connect(url, host, name=f"{prefix}{i}")
                                       for i in range(n))))


async def friends(url: str, me: Client, others: list[Client]) -> None:
    """``me`` and each of ``others`` follow each other."""
    assert me.name is not None
    for o in others:
        assert o.name is not None
        await me.follow(o.name)
        await o.follow(me.name)


async def lines_until(client: Client, channel: str, last: str, timeout: float = 120
                      ) -> list[ChatMessage]:
    """Every chat line of ``channel`` ``client`` receives until the one whose text is
    ``last`` (included)."""
    got: list[ChatMessage] = [m for m in client.inbox
                              if isinstance(m, ChatMessage) and m.channel == channel]
    client.inbox[:] = [m for m in client.inbox if m not in got]
    loop = asyncio.get_running_loop()
    end = loop.time() + timeout
    while not any(m.text == last for m in got):
        msg = await client.recv(max(0.05, end - loop.time()))
        if isinstance(msg, ChatMessage) and msg.channel == channel:
            got.append(msg)
        else:
            client.inbox.append(msg)  # another channel's: read later
    return got


def rows(db_url: str, query: str) -> list[Any]:
    engine = sa.create_engine(db_url.replace("+aiosqlite", ""))
    try:
        with engine.begin() as c:
            result = c.execute(sa.text(query))
            return list(result) if result.returns_rows else []
    finally:
        engine.dispose()


class Tracebacks(logging.Handler):
    """Records logged with a traceback by the server while it is attached."""

    def __init__(self) -> None:
        super().__init__()
        self.records: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        if record.exc_info:
            self.records.append(record)


# -- 1. every line once, in order -------------------------------------------------------------


async def test_forty_writers_at_once_each_line_reaches_each_connection_once(
        db_url: str, tmp_path: Path) -> None:
    """40 players write in the lobby at once, and 40 friends write privately to one player
    at once; listeners (one player with three connections among them) get every line
    exactly once, in the order of the lines' ids. Before: 17 copies of each line."""
    settings = make_settings(db_url, tmp_path, lobby_chat_per_minute=100)
    async with running_hub(settings) as (url, hub):
        listeners = [*await many(url, "Ear", 4), *await one_player(url, "Many", 3)]
        for c in listeners:
            await c.act("listen_lobby")
        writers = await many(url, "Mouth", 40)
        heard, _ = await race(writers, lambda c, i: c.act("lobby_chat", text=f"line {i}"))
        assert heard == 40
        await writers[0].act("lobby_chat", text="the end")
        for c in listeners:
            got = await lines_until(c, "lobby", "the end")
            ids = [m.id for m in got]
            assert ids == sorted(set(ids)), f"copies or disorder: {ids}"
            assert len(got) == 41
        # Private: the same to each connection of the one they are written to.
        target = await one_player(url, "Dear", 3)
        await friends(url, target[0], writers)
        sent, _ = await race(writers, lambda c, i: c.act("private_message", name="Dear",
                                                         text=f"psst {i}"))
        assert sent == 40
        await writers[1].act("private_message", name="Dear", text="over")
        for c in target:
            got = await lines_until(c, "private", "over")
            ids = [m.id for m in got]
            assert ids == sorted(set(ids)), f"copies or disorder: {ids}"
            assert len(got) == 41
        # Nothing is still being delivered that could come late.
        await eventually(lambda: _idle(hub), "the deliveries end")
        for c in [*listeners, *target]:
            assert not [m for m in c.inbox if isinstance(m, ChatMessage)]
        await close_all([*listeners, *writers, *target])


async def _idle(hub: Any) -> bool:
    social = hub.people.social
    return not any(ch.delivering for ch in [social.lobby, *social._private.values()])


# -- 2. every quota holds when sixteen connections race at it ----------------------------------


async def test_every_quota_holds_when_sixteen_connections_race(db_url: str,
                                                                tmp_path: Path) -> None:
    """One player's 16 connections send the same limited request at once: exactly the
    quota passes (before: all 16), and each refusal is counted in the metrics."""
    settings = make_settings(
        db_url, tmp_path, lobby_chat_per_minute=6, private_per_minute=5,
        invites_per_minute=4, reports_per_hour=5, follows_max=5, relations_max=7,
        relations_per_minute=100, tables_per_host=2, tables_per_address=8,
        invite_links_per_hour=3)
    async with running_hub(settings) as (url, hub):
        me = await one_player(url, "Racer", 16)
        others = await many(url, "Other", 16, "127.0.0.2")
        names = [o.name for o in others]
        await friends(url, me[0], others[:1])

        async def counted(setting: str, act: Callable[[Client, int], Awaitable[Any]],
                          want: int) -> None:
            before = hub.metrics.counts[setting]
            passed, codes = await race(me, act)
            assert (passed, set(codes)) == (want, {"quota"}), (setting, passed, codes)
            assert hub.metrics.counts[setting] - before == 16 - want, setting

        await counted("lobby_chat_per_minute",
                      lambda c, i: c.act("lobby_chat", text=f"hi {i}"), 6)
        await counted("private_per_minute",
                      lambda c, i: c.act("private_message", name=names[0], text=f"{i}"), 5)
        await counted("reports_per_hour",
                      lambda c, i: c.report(str(names[i]), "spam"), 5)
        # Counted in the store: the followed and the muted players.
        passed, codes = await race(me, lambda c, i: c.follow(str(names[i])))
        assert (passed, set(codes)) == (5, {"quota"})
        assert rows(db_url, "select count(*) from follows f join players p on "
                    "p.id = f.follower_id where p.name = 'Racer'")[0][0] == 5
        passed, codes = await race(me, lambda c, i: c.mute(str(names[i])))
        assert (passed, set(codes)) == (7, {"quota"})
        # Tables: 2 unstarted per host, whoever races.
        passed, codes = await race(me, lambda c, i: c.create_table(rules={"players": 2}))
        assert (passed, set(codes)) == (2, {"quota"})
        assert len(hub.tables.held) == 2
        # Invitations and links: from a table every connection is at.
        code = next(iter(hub.tables.held))
        for c in me:
            await c.join(code)
        await counted("invites_per_minute",
                      lambda c, i: c.act("invite", name=names[i]), 4)
        await counted("invite_links_per_hour",
                      lambda c, i: c.request({"type": "invite_link"}, want="invite_link"), 3)
        await close_all([*me, *others])


async def test_new_names_from_one_address_hold_when_they_race(db_url: str,
                                                              tmp_path: Path) -> None:
    """31 new players say hello from one address at once: 6 are made (before: 31)."""
    settings = make_settings(db_url, tmp_path, names_per_minute=6)
    async with running_hub(settings) as (url, hub):
        results = await asyncio.gather(*(connect(url, "127.0.0.9", name=f"Crowd{i}")
                                         for i in range(31)), return_exceptions=True)
        made = [r for r in results if isinstance(r, Client)]
        refused = [r for r in results if isinstance(r, ServerError)]
        assert len(made) == 6 and len(refused) == 25, results
        assert {r.code for r in refused} == {"quota"}
        assert all(r.error.retry_after for r in refused)
        assert hub.metrics.counts["names_per_minute"] == 25
        # A refused name is not counted: the same name twice at once is one player.
        await close_all(made)


# -- 3. invitations per recipient ---------------------------------------------------------------


async def test_a_player_hears_a_few_invitations_a_minute_however_many_invite(
        db_url: str, tmp_path: Path) -> None:
    """12 hosts invite one player at once: the player hears 5 (before: every one, 525 from
    130 inviters in 7.5 s); the others are refused, with the time to wait."""
    settings = make_settings(db_url, tmp_path, invites_heard_per_minute=5)
    async with running_hub(settings) as (url, _hub):
        victim = await one_player(url, "Victim", 2, "127.0.0.3")
        hosts = await many(url, "Host", 12)
        for h in hosts:
            await h.create_table(rules={"players": 2})
        sent, codes = await race(hosts, lambda c, i: c.act("invite", name="Victim"))
        assert (sent, set(codes)) == (5, {"quota"})
        for c in victim:
            got = []
            while len(got) < 5:
                got.append(await c.expect(lambda m: isinstance(m, Invitation), 60))
            assert len({m.id for m in got}) == 5
        # A refusal says when to try again.
        with pytest.raises(ServerError) as err:
            await hosts[0].act("invite", name="Victim")
        assert err.value.code == "quota" and err.value.error.retry_after
        assert not [m for c in victim for m in c.inbox if isinstance(m, Invitation)]
        await close_all([*victim, *hosts])


# -- 4. a race on one row is answered -----------------------------------------------------------


async def test_racing_the_same_follow_mute_or_block_is_answered(db_url: str,
                                                               tmp_path: Path) -> None:
    """16 connections of one player follow, mute and block the same player at once: each
    is answered, one row is kept, nothing is logged with a traceback, and every
    connection stays (before: dropped with no answer, two tracebacks each)."""
    settings = make_settings(db_url, tmp_path, relations_per_minute=100)
    seen = Tracebacks()
    logging.getLogger("nimmt").addHandler(seen)
    try:
        async with running_hub(settings) as (url, _hub):
            me = await one_player(url, "Twin", 16)
            other = await connect(url, "127.0.0.2", name="Target")
            for act in (lambda c, i: c.follow("Target"), lambda c, i: c.mute("Target"),
                        lambda c, i: c.block("Target")):
                passed, codes = await race(me, act)
                assert (passed, codes) == (16, []), codes
            assert rows(db_url, "select count(*) from follows")[0][0] == 1
            assert rows(db_url, "select count(*) from relations")[0][0] == 2
            # Two hellos with one new name at once: one player, one refusal.
            results = await asyncio.gather(
                *(connect(url, f"127.0.0.{4 + i}", name="Same") for i in range(8)),
                return_exceptions=True)
            assert sum(isinstance(r, Client) for r in results) == 1
            assert {r.code for r in results if isinstance(r, ServerError)} == {"name_taken"}
            for c in me:
                await c.request({"type": "ping"}, want="pong")
            await close_all([*me, other, *(r for r in results if isinstance(r, Client))])
    finally:
        logging.getLogger("nimmt").removeHandler(seen)
    assert not seen.records, [r.getMessage() for r in seen.records]


# -- 5. what strangers can grow has a bound ---------------------------------------------------


async def test_what_strangers_grow_is_bounded(db_url: str, tmp_path: Path) -> None:
    """Listeners that left are forgotten at once (before: kept until someone posted, 18.6
    KB a cycle); reports are one per reporter and at most ``reports_per_target`` per
    player, most reported first; expired invitations and old resolved reports are swept;
    a mute made twice writes one signal, and mutes a minute are bounded."""
    settings = make_settings(db_url, tmp_path, reports_per_target=5, relations_per_minute=10)
    async with running_hub(settings) as (url, hub):
        for _ in range(3):
            cs = await many(url, f"Ear{time.monotonic_ns()}", 20)
            for c in cs:
                await c.act("listen_lobby")
            await close_all(cs)

        async def forgotten() -> bool:
            s = hub.people.social
            return len(s.lobby) == 0 and not s._private and not s._invites

        await eventually(forgotten, "the closed listeners forgotten")

        target = await connect(url, "127.0.0.2", name="Reported")
        crowd = await many(url, "Reporter", 12, "127.0.0.3")
        await race(crowd, lambda c, i: c.report("Reported", f"reason {i}"))
        await crowd[0].report("Reported", "again")
        waiting = rows(db_url, "select reason from reports where resolved is null "
                       "order by id")
        assert [r[0] for r in waiting][-1] == "again" and len(waiting) == 5
        # Swept: invitations past their time, resolved reports past their keeping.
        await target.create_table(rules={"players": 2})
        await target.act("invite", name="Reporter0")
        assert rows(db_url, "select count(*) from invitations")[0][0] == 1
        rows(db_url, "update invitations set at = at - 100000")
        rows(db_url, f"update reports set resolved = {time.time()}, resolved_by = 'mod'")
        await hub.people.social.sweep()
        assert rows(db_url, "select count(*) from invitations")[0][0] == 0
        assert rows(db_url, "select count(*) from reports")[0][0] == 5  # kept 90 days
        rows(db_url, f"update reports set resolved = {time.time() - 100 * 86400}")
        await hub.people.social.sweep()
        assert rows(db_url, "select count(*) from reports")[0][0] == 0

        # A mute made twice is one signal; mutes toggled fast stop at the quota.
        before = rows(db_url, "select count(*) from signals where kind = 'social'")[0][0]
        await target.mute("Reporter1")
        await target.mute("Reporter1")
        after = rows(db_url, "select count(*) from signals where kind = 'social'")[0][0]
        assert after - before == 1
        toggled = 0
        with pytest.raises(ServerError) as err:
            for i in range(100):
                await target.mute("Reporter1", on=i % 2 == 1)
                toggled += 1
        assert err.value.code == "quota" and toggled == 8  # 10 a minute, 2 made above
        await close_all([target, *crowd])


# -- 6. chat that shows nothing --------------------------------------------------------------


INVISIBLE = ["\u200b\u200c\u200d", "\u3164\u3164", "\u2800 \u2800", "\u0301" * 249,
             "\ufeff\u2060\u180e"]


async def test_chat_that_shows_nothing_is_refused(server: str) -> None:
    """Lines of zero-width characters, Hangul fillers, braille blanks or bare accents are
    refused as empty in the lobby, privately and at a table; 249 accents on a letter
    are cut to the few a script uses."""
    ana = await connect(server, name="Shower")
    bob = await connect(server, "127.0.0.2", name="Looker")
    await friends(server, ana, [bob])
    await ana.create_table(rules={"players": 2})
    for raw in INVISIBLE:
        for message in ({"type": "lobby_chat", "text": raw},
                        {"type": "private_message", "name": "Looker", "text": raw},
                        {"type": "chat", "text": raw}):
            with pytest.raises(ServerError) as err:
                await ana.request(message)
            assert err.value.code == "chat_empty", (message["type"], repr(raw))
    await bob.act("listen_lobby")
    await ana.act("lobby_chat", text="a" + "\u0301" * 249)
    line = await bob.expect(lambda m: isinstance(m, ChatMessage))
    assert isinstance(line, ChatMessage) and len(line.text) == 9
    await close_all([ana, bob])


# -- 7. refusals carry their ref and are counted ---------------------------------------------


async def test_refusals_carry_their_ref(db_url: str, tmp_path: Path) -> None:
    """``frame_too_large`` and ``rate_limited`` name the ``ref`` of the frame they refuse."""
    settings = make_settings(db_url, tmp_path, max_frame=512, rate=1.0, burst=2)
    async with running_hub(settings) as (url, _hub):
        c = await connect(url, name="Hasty")
        await c.send_raw('{"type": "ping", "ref": "big", "pad": "' + "x" * 1000 + '"}')
        err = await c.expect(lambda m: isinstance(m, Error))
        assert isinstance(err, Error) and (err.code, err.ref) == ("frame_too_large", "big")
        for i in range(5):
            await c.send({"type": "ping", "ref": f"r{i}"})
        err = await c.expect(lambda m: isinstance(m, Error) and m.code == "rate_limited")
        assert isinstance(err, Error) and err.ref in {f"r{i}" for i in range(5)}
        await c.close()


async def test_a_busy_hasher_spends_no_password_check(db_url: str, tmp_path: Path) -> None:
    """Sign-ins refused ``sign_in_busy`` are not counted among the address's password checks
    a minute: exactly ``password_checks_per_minute`` sign-ins are checked, however many
    were busy."""
    settings = make_settings(db_url, tmp_path, hash_workers=1, hash_queue=1,
                             password_checks_per_minute=6, argon2_time=4)
    async with running_hub(settings) as (url, _hub):
        ana = await connect(url, name="Keeper")
        await ana.set_password("correct horse battery")
        checked = busy = 0
        for _ in range(4):
            results = await asyncio.gather(
                *(connect(url, "127.0.0.5", name="Keeper", password="correct horse battery")
                  for _ in range(8)), return_exceptions=True)
            codes = [r.code if isinstance(r, ServerError) else "ok" for r in results]
            checked += codes.count("ok")
            busy += codes.count("sign_in_busy")
            await close_all([r for r in results if isinstance(r, Client)])
            if "sign_in_limited" in codes:
                break
        assert busy, "no sign-in found the hasher busy"
        assert checked == 6, (checked, busy)
        await ana.close()


async def test_across_processes_each_line_reaches_each_connection_once(
        cluster_env: dict[str, str]) -> None:
    """Two server processes (Redis, PostgreSQL): 30 writers on both at once, listeners on
    both (one player on both): every lobby line and private message reaches each
    connection once, in order, whichever process it was written at."""
    from test_server_cluster import processes

    async with processes(cluster_env, 2) as procs:
        urls = [u for _, u in procs]
        first = await connect(urls[0], name="Both")
        both = [first, await connect(urls[1], token=first.token)]
        listeners = [*both, await connect(urls[0], name="Left"),
                     await connect(urls[1], name="Right")]
        for c in listeners:
            await c.act("listen_lobby")
        writers = [await connect(urls[i % 2], name=f"Pen{i}") for i in range(30)]
        await friends(urls[0], first, writers)
        said, _ = await race(writers, lambda c, i: c.act("lobby_chat", text=f"line {i}"))
        sent, _ = await race(writers, lambda c, i: c.act("private_message", name="Both",
                                                         text=f"psst {i}"))
        assert (said, sent) == (30, 30)
        await writers[0].act("lobby_chat", text="the end")
        await writers[1].act("private_message", name="Both", text="over")
        for c in listeners:
            got = await lines_until(c, "lobby", "the end")
            ids = [m.id for m in got]
            assert ids == sorted(set(ids)) and len(ids) == 31, ids
        for c in both:
            got = await lines_until(c, "private", "over")
            ids = [m.id for m in got]
            assert ids == sorted(set(ids)) and len(ids) == 31, ids
        await close_all([*listeners, *writers])
