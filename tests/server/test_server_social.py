"""Friends and where they are, blocks that keep a player from a table, reports an operator
reads, and the leaderboard: on a real server over loopback, on SQLite and PostgreSQL."""

from __future__ import annotations

import asyncio
import time
import urllib.error
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa
from server_helpers import api, close_all, eventually
from test_server_admin import admin, connect

from conftest import make_settings
from nimmt.client import ServerError
from nimmt.server.run import running_server
from nimmt.server.store.schema import game_players, games, players, tables

pytestmark = [pytest.mark.asyncio, pytest.mark.timeout(400)]


async def test_friends_and_where_they_are(db_url: str, tmp_path: Path) -> None:
    async with running_server(make_settings(db_url, tmp_path)) as url:
        ana = await connect(url, name="Ana")
        bob = await connect(url, "127.0.0.2", name="Bob")
        await ana.follow("bob")  # by the name's look
        state = await bob.create_table(rules={"players": 3})
        code = state.table.code

        # A one-way follow learns only that Bob is online, not where.
        [f] = await ana.friends()
        assert (f.name, f.mutual, f.online, f.table, f.free_seat) == ("Bob", False, True,
                                                                      None, None)
        # Friends (a mutual follow) see the table and whether a seat is free.
        await bob.follow("Ana")
        [f] = await ana.friends()
        assert (f.mutual, f.online, f.table, f.free_seat) == (True, True, code, True)
        cleo = await connect(url, "127.0.0.3", name="Cleo")
        await cleo.join(code)
        await cleo.sit()
        await ana.join(code)
        await ana.sit()
        [f] = await ana.friends()
        assert f.table == code and f.free_seat is False

        with pytest.raises(ServerError) as err:
            await ana.follow("Nobody")
        assert err.value.code == "no_player"
        with pytest.raises(ServerError) as err:
            await ana.follow("Ana")
        assert err.value.code == "bad_message"

        await bob.close()

        async def offline() -> bool:
            return not (await ana.friends())[0].online

        await eventually(offline, "Bob seen offline")
        await ana.unfollow("Bob")
        assert await ana.friends() == []
        await close_all([ana, cleo])


async def test_a_blocked_player_cannot_sit_and_reports_reach_the_operator(
        db_url: str, tmp_path: Path) -> None:
    settings = make_settings(db_url, tmp_path, reports_per_hour=1)
    async with running_server(settings) as url:
        ana = await connect(url, name="Ana")
        bob = await connect(url, "127.0.0.2", name="Bob")
        cleo = await connect(url, "127.0.0.3", name="Cleo")
        dan = await connect(url, "127.0.0.4", name="Dan")
        code = (await ana.create_table(rules={"players": 4})).table.code

        await ana.block("Bob")
        await bob.join(code)
        with pytest.raises(ServerError) as err:
            await bob.sit()
        assert err.value.code == "blocked"
        # A seated player's block holds too, not only the host's.
        await cleo.join(code)
        await cleo.sit()
        await cleo.block("Dan")
        await dan.join(code)
        with pytest.raises(ServerError) as err:
            await dan.sit()
        assert err.value.code == "blocked"
        # A mute is not a block; lifted, the block no longer holds.
        await ana.block("Bob", on=False)
        await ana.mute("Bob")
        await bob.sit()

        await bob.report("Ana", "insults", message="you are bad", place=code)
        await dan.report("cleo", "cheating")
        with pytest.raises(ServerError) as err:
            await dan.report("Cleo", "again")
        assert err.value.code == "quota"

        listed = await admin(db_url, "reports")
        assert listed.returncode == 0, listed.stderr
        lines = listed.stdout.splitlines()
        assert len(lines) == 2
        # As many reports on each: the newest first.
        assert lines[1].startswith("Report 1, ") and "Bob reported Ana at " + code in lines[1]
        assert "insults" in lines[1] and "'you are bad'" in lines[1]
        assert "Dan reported Cleo: cheating." in lines[0]

        done = await admin(db_url, "resolve", "1", "--note", "muted for a day", by="mod")
        assert done.returncode == 0 and done.stdout.strip() == "Report 1 is resolved."
        again = await admin(db_url, "resolve", "1")
        assert again.returncode == 1 and "was resolved by mod" in again.stderr
        assert (await admin(db_url, "resolve", "99")).returncode == 1
        waiting = (await admin(db_url, "reports")).stdout.splitlines()
        assert len(waiting) == 1 and waiting[0].startswith("Report 2")
        old = (await admin(db_url, "reports", "--resolved")).stdout
        assert "Resolved by mod" in old and "muted for a day" in old
        log = (await admin(db_url, "log")).stdout
        assert "mod did resolve on report 1 (player Ana; note muted for a day)." in log
        await close_all([ana, bob, cleo, dan])


def _seed(db_url: str) -> None:
    """Five players with rated games: four under classic, one under category5."""
    engine = sa.create_engine(db_url.replace("+aiosqlite", ""))
    now = time.time()
    # name: (mu, sigma, classic games, category5 games)
    who = {"Ana": (30.0, 2.0, 3, 0), "Bob": (28.0, 1.0, 2, 1), "Cleo": (40.0, 8.0, 1, 0),
           "Dan": (20.0, 1.0, 4, 0), "Eve": (35.0, 1.0, 0, 2)}
    with engine.begin() as c:
        ids = {}
        for name, (mu, sigma, n5, n7) in who.items():
            ids[name] = c.execute(players.insert().values(
                name=name, skeleton=name.lower(), mu=mu, sigma=sigma, rated_games=n5 + n7,
                created=now)).inserted_primary_key[0]
        for i, preset in enumerate(("classic", "category5")):
            tid = c.execute(tables.insert().values(
                code=f"SEED{i}", name="t", host_id=ids["Ana"], rules="{}", settings="{}",
                status="closed", created=now, preset=preset)).inserted_primary_key[0]
            for name, row in who.items():
                for k in range(row[2 + i]):
                    gid = c.execute(games.insert().values(
                        table_id=tid, game_no=k, rated=True, finished=True, record="{}",
                        ended=now)).inserted_primary_key[0]
                    c.execute(game_players.insert().values(
                        game_id=gid, seat=0, player_id=ids[name], name=name, total=10,
                        winner=False, mu_after=row[0]))
            # An unrated game counts for nobody.
            gid = c.execute(games.insert().values(table_id=tid, game_no=99, rated=False,
                                                  finished=True, record="{}", ended=now)
                            ).inserted_primary_key[0]
            c.execute(game_players.insert().values(game_id=gid, seat=0, player_id=ids["Ana"],
                                                   name="Ana", total=1, winner=True))
    engine.dispose()


async def status_of(url: str) -> tuple[int, Any]:
    try:
        return 200, await api(url)
    except urllib.error.HTTPError as exc:
        return exc.code, exc.headers.get("Retry-After")


async def test_leaderboard_order_paging_cache_and_limit(db_url: str, tmp_path: Path) -> None:
    settings = make_settings(db_url, tmp_path, board_rate=0.001, board_burst=6,
                             leaderboard_page=3, leaderboard_cache=3600)
    async with running_server(settings) as url:
        _seed(db_url)
        first = await api(f"{url}/api/leaderboard?preset=classic&limit=2")  # 1 read
        # By μ − 3σ: Bob 25, Ana 24, Dan 17, Cleo 16; Eve played no classic game.
        assert [p["name"] for p in first["players"]] == ["Bob", "Ana"]
        assert first["total"] == 4 and first["limit"] == 2
        bob = first["players"][0]
        assert bob == {"rank": 1, "name": "Bob", "rating": {"mu": 28.0, "sigma": 1.0,
                                                             "ordinal": 25.0},
                       "games": 2, "rated_games": 3}
        second = await api(f"{url}/api/leaderboard?preset=classic&offset=2&limit=2")  # 2
        assert [(p["rank"], p["name"]) for p in second["players"]] == [(3, "Dan"), (4, "Cleo")]
        page = await api(f"{url}/api/leaderboard?limit=50")  # 3: classic, capped at 3 rows
        assert page["limit"] == 3 and len(page["players"]) == 3
        # Kept: a change in the store is not read again within leaderboard_cache.
        engine = sa.create_engine(db_url.replace("+aiosqlite", ""))
        with engine.begin() as c:
            c.execute(players.update().where(players.c.name == "Dan").values(mu=99.0))
        engine.dispose()
        again = await api(f"{url}/api/leaderboard?preset=classic&limit=2")  # from memory
        assert again == first
        other = await api(f"{url}/api/leaderboard?preset=category5")  # 4
        assert [(p["name"], p["games"]) for p in other["players"]] == [("Eve", 2), ("Bob", 1)]
        assert (await status_of(f"{url}/api/leaderboard?preset=nope"))[0] == 400
        assert (await status_of(f"{url}/api/leaderboard?offset=-1"))[0] == 400
        ana = await api(f"{url}/api/players/Ana")  # 5
        assert ana["rated_games"] == 3 and len(ana["games"]) == 5
        assert (await status_of(f"{url}/api/players/Bob"))[0] == 200  # 6
        status, retry = await status_of(f"{url}/api/players/Cleo")
        assert status == 429 and int(retry) >= 1
        status, _ = await status_of(f"{url}/api/leaderboard?preset=classic&offset=1")
        assert status == 429


async def chat_lines(client: Any, until: str) -> list[str]:
    """The chat lines ``client`` received (those set aside while it waited for answers
    first), up to the one whose text is ``until``."""
    from nimmt.wire import Events

    def chatty(m: Any) -> bool:
        return isinstance(m, Events) and any(i.kind == "chat" for i in m.items)

    said: list[str] = []
    while True:
        kept = next((m for m in client.inbox if chatty(m)), None)
        if kept is not None:
            client.inbox.remove(kept)
            msg = kept
        else:
            msg = await client.expect(chatty)
        for item in msg.items:
            if item.kind == "chat":
                said.append(f"{item.name}: {item.text}")
                if item.text == until:
                    return said


async def test_a_muted_player_chat_does_not_reach_the_one_who_muted(
        db_url: str, tmp_path: Path) -> None:
    async with running_server(make_settings(db_url, tmp_path)) as url:
        ana = await connect(url, name="Ana")
        bob = await connect(url, "127.0.0.2", name="Bob")
        cleo = await connect(url, "127.0.0.3", name="Cleo")
        code = (await ana.create_table(rules={"players": 3})).table.code
        for c in (bob, cleo):
            await c.join(code)
            await c.sit()
        also = await connect(url, token=ana.token)  # a second connection of Ana's
        await also.spectate(code)

        await ana.mute("Bob")
        await bob.chat("first")
        await cleo.chat("one")
        for c in (ana, also):
            assert await chat_lines(c, "one") == ["Cleo: one"]
        assert await chat_lines(cleo, "one") == ["Bob: first", "Cleo: one"]

        # A catch-up leaves the muted chat out too.
        back = await connect(url, token=ana.token)
        await back.join(code, last_seq=0)
        await bob.chat("second")
        await cleo.chat("two")
        assert await chat_lines(back, "two") == ["Cleo: one", "Cleo: two"]

        # A block silences as a mute does; lifted both, Bob is heard again.
        await ana.mute("Bob", on=False)
        await ana.block("Bob")
        await ana.mute("Cleo")
        listed = await ana.friend_list()
        assert (listed.muted, listed.blocked) == (["Cleo"], ["Bob"])
        await ana.mute("Cleo", on=False)
        await bob.chat("third")
        await cleo.chat("three")
        assert await chat_lines(ana, "three") == ["Cleo: two", "Cleo: three"]
        await ana.block("Bob", on=False)
        await bob.chat("fourth")
        assert await chat_lines(ana, "fourth") == ["Bob: fourth"]
        await close_all([ana, bob, cleo, also, back])


async def test_invitations_delivered_accepted_declined(db_url: str, tmp_path: Path) -> None:
    from nimmt.wire import Invitation

    settings = make_settings(db_url, tmp_path, invites_per_minute=4)
    async with running_server(settings) as url:
        ana = await connect(url, name="Ana")
        bob = await connect(url, "127.0.0.2", name="Bob", lang="sr")
        bob_too = await connect(url, "127.0.0.2", token=bob.token, lang="cs")
        cleo = await connect(url, "127.0.0.3", name="Cleo")
        dan = await connect(url, "127.0.0.4", name="Dan")
        eve = await connect(url, "127.0.0.5", name="Eve")
        with pytest.raises(ServerError) as err:
            await ana.invite("Bob")
        assert err.value.code == "not_at_table"
        code = (await ana.create_table(rules={"players": 4})).table.code

        # Delivered on every connection of Bob's, said in each one's language.
        await ana.invite("bob")
        got = [await bob.invitation(), await bob_too.invitation()]
        assert {(i.by, i.table) for i in got} == {("Ana", code)}
        # The table by its host (who invites here), never by its code alone.
        assert got[0].text == "Ana vas poziva za svoj sto."
        assert got[1].text == "Ana vás zve ke svému stolu."
        state = await bob.accept(got[0].id)
        assert state.table.code == code
        await bob.sit()
        with pytest.raises(ServerError) as err:  # answered already, on the other one
            await bob_too.accept(got[1].id)
        assert err.value.code == "no_invitation"

        # A table's name, and its host when someone else invites.
        evening = (await dan.create_table(rules={"players": 3}, name="Evening")).table.code
        await eve.join(evening)
        await eve.invite("Bob")
        named = await bob.invitation()
        assert named.text == "Eve vas poziva za sto „Evening“, domaćin je Dan."
        await bob.decline(named.id)
        await eve.leave()

        # Declined: answered once.
        await ana.invite("Cleo")
        inv = await cleo.invitation()
        await cleo.decline(inv.id)
        with pytest.raises(ServerError) as err:
            await cleo.decline(inv.id)
        assert err.value.code == "no_invitation"

        # A blocker gets nothing from the one they blocked (who is not told).
        await cleo.block("Dan")
        await dan.join(code)
        await dan.invite("Cleo")
        await ana.invite("Cleo")
        assert (await cleo.invitation()).by == "Ana"
        assert not any(isinstance(m, Invitation) for m in cleo.inbox)

        # An invitation waiting is sent to a connection made later.
        token = eve.token
        await eve.close()
        await ana.invite("Eve")
        with pytest.raises(ServerError) as err:  # Ana's fifth this minute
            await ana.invite("Dan")
        assert err.value.code == "quota"
        eve = await connect(url, "127.0.0.5", token=token)
        late = await eve.invitation()
        assert late.by == "Ana" and late.table == code
        await eve.accept(late.id)
        await close_all([ana, bob, bob_too, cleo, dan, eve])


async def test_lobby_chat_and_private_messages(db_url: str, tmp_path: Path) -> None:
    from nimmt.wire import ChatMessage

    settings = make_settings(db_url, tmp_path, lobby_chat_per_minute=3, lobby_chat_max=20,
                             lobby_backlog=2, lobby_keep=3)

    async def line(client: Any, channel: str) -> ChatMessage:
        for m in client.inbox:
            if isinstance(m, ChatMessage) and m.channel == channel:
                client.inbox.remove(m)
                return m
        msg = await client.expect(lambda m: isinstance(m, ChatMessage) and m.channel == channel)
        assert isinstance(msg, ChatMessage)
        return msg

    async with running_server(settings) as url:
        ana = await connect(url, name="Ana", lang="sr")
        bob = await connect(url, "127.0.0.2", name="Bob")
        cleo = await connect(url, "127.0.0.3", name="Cleo")
        await ana.act("listen_lobby")
        await cleo.act("listen_lobby")
        await cleo.mute("Bob")
        await bob.act("lobby_chat", text="hello all")
        await ana.act("lobby_chat", text="zdravo")
        first = await line(ana, "lobby")
        assert (first.by, first.text, first.said) == ("Bob", "hello all", "Bob kaže: hello all")
        assert (await line(ana, "lobby")).text == "zdravo"
        assert (await line(cleo, "lobby")).text == "zdravo"  # Bob's line left out for her
        assert not any(isinstance(m, ChatMessage) for m in cleo.inbox)
        for raw, code in (("x" * 21, "chat_too_long"), ("  ", "chat_empty")):
            with pytest.raises(ServerError) as err:
                await bob.act("lobby_chat", text=raw)
            assert err.value.code == code
        await bob.act("lobby_chat", text="two")
        await bob.act("lobby_chat", text="three")
        with pytest.raises(ServerError) as err:
            await bob.act("lobby_chat", text="four")
        assert err.value.code == "quota"
        # One who starts listening gets the newest lines first.
        late = await connect(url, "127.0.0.4", name="Dan")
        await late.act("listen_lobby")
        assert [(await line(late, "lobby")).text for _ in range(2)] == ["two", "three"]
        engine = sa.create_engine(db_url.replace("+aiosqlite", ""))
        with engine.connect() as c:  # kept bounded: the newest lobby_keep lines
            kept = c.execute(sa.text("select text from messages order by id")).scalars().all()
        engine.dispose()
        assert kept == ["zdravo", "two", "three"]

        # Private messages: between friends only.
        with pytest.raises(ServerError) as err:
            await ana.act("private_message", name="Bob", text="hi")
        assert err.value.code == "not_friends"
        await ana.follow("Bob")
        await bob.follow("Ana")
        await ana.act("private_message", name="bob", text="psst")
        pm = await line(bob, "private")
        assert (pm.by, pm.to, pm.text) == ("Ana", "Bob", "psst")
        # A block stops them, and the writer is not told.
        await bob.block("Ana")
        await ana.act("private_message", name="Bob", text="still there?")
        await bob.block("Ana", on=False)
        await ana.act("private_message", name="Bob", text="again")
        assert (await line(bob, "private")).text == "again"
        await close_all([ana, bob, cleo, late])


async def test_an_invitation_link_seats_a_newcomer_once(db_url: str, tmp_path: Path) -> None:
    from nimmt.wire import Error, InviteLink, TableState

    async with running_server(make_settings(db_url, tmp_path)) as url:
        ana = await connect(url, name="Ana")
        with pytest.raises(ServerError) as err:
            await ana.request({"type": "invite_link"}, want="invite_link")
        assert err.value.code == "not_at_table"
        code = (await ana.create_table(rules={"players": 3})).table.code
        link = await ana.request({"type": "invite_link"}, want="invite_link")
        assert isinstance(link, InviteLink) and link.table == code
        assert link.path == f"/play/?invite={link.code}"

        guest = await connect(url, "127.0.0.2", name="Guest", invite=link.code)
        state = await guest.expect(lambda m: isinstance(m, TableState) and m.you is not None)
        assert isinstance(state, TableState) and state.table.code == code
        assert state.table.seats[state.you].name == "Guest"
        # Once only: a second newcomer with the same code is welcome, but not seated.
        other = await connect(url, "127.0.0.3", name="Other", invite=link.code)
        refusal = await other.expect(lambda m: isinstance(m, Error))
        assert isinstance(refusal, Error) and refusal.code == "no_invitation"
        assert other.state is None
        await close_all([ana, guest, other])


async def test_presence_is_pushed_to_followers(db_url: str, tmp_path: Path) -> None:
    from nimmt.wire import Presence

    async with running_server(make_settings(db_url, tmp_path, presence_interval=0.3)) as url:
        ana = await connect(url, name="Ana")
        bob = await connect(url, "127.0.0.2", name="Bob")
        await ana.follow("Bob")

        async def pushed(want: Any) -> Presence:
            while True:
                for m in list(ana.inbox):
                    if isinstance(m, Presence):
                        ana.inbox.remove(m)
                        if want(m.friend):
                            return m
                m = await ana.expect(lambda m: isinstance(m, Presence))
                assert isinstance(m, Presence)
                if want(m.friend):
                    return m

        # Bob follows Ana back: she learns at once that they are friends.
        await bob.follow("Ana")
        p = await pushed(lambda f: f.mutual)
        assert (p.friend.name, p.friend.online) == ("Bob", True)
        code = (await bob.create_table(rules={"players": 3})).table.code
        p = await pushed(lambda f: f.table == code)
        assert (p.friend.name, p.friend.mutual, p.friend.online, p.friend.free_seat) == (
            "Bob", True, True, True)
        await bob.close()
        p = await pushed(lambda f: not f.online)
        assert p.friend.table is None
        bob = await connect(url, "127.0.0.2", token=bob.token)
        await pushed(lambda f: f.online)
        await close_all([ana, bob])


async def test_mutes_and_blocks_hold_at_a_table_of_another_process(
        cluster_env: dict[str, str], pg_url: str, tmp_path: Path) -> None:
    """Two server processes: the table is owned by the first, the players who muted or
    blocked someone are connected to the second. The owner reads their mutes and checks
    their blocks as for its own connections (docs/scaling.md)."""
    from conftest import REDIS
    from nimmt.server.run import running_hub

    def settings(name: str) -> Any:
        return make_settings(pg_url, tmp_path / name, redis=REDIS,
                             redis_prefix=cluster_env["NIMMT_REDIS_PREFIX"], lease_ttl=10.0,
                             heartbeat=0.5, signal_poll=0.2)

    async with running_hub(settings("one")) as (url1, _), \
            running_hub(settings("two")) as (url2, hub2):
        cleo = await connect(url1, name="Cleo")
        code = (await cleo.create_table(rules={"players": 4})).table.code
        ana = await connect(url2, "127.0.0.2", name="Ana")
        bob = await connect(url1, "127.0.0.3", name="Bob")
        await ana.mute("Bob")  # before Ana comes to the table: read as she enters
        await ana.join(code)
        assert code not in hub2.tables.held  # Ana's seat is relayed to the owner
        await ana.sit()
        await bob.join(code)
        await bob.sit()
        await bob.chat("first")
        await cleo.chat("one")
        assert await chat_lines(ana, "one") == ["Cleo: one"]

        # Lifted at Ana's process while she sits: the owner learns at its next poll.
        await ana.mute("Bob", on=False)

        async def hears_bob() -> bool:
            await asyncio.sleep(0.3)  # a chat line now and then, within the chat's rate
            await bob.chat("again")
            await cleo.chat("mark")
            return await chat_lines(ana, "mark") in (["Bob: again", "Cleo: mark"],)

        await eventually(hears_bob, "Ana hears Bob again", 30)

        # Dan, at Ana's process too, is blocked by the host: he cannot sit at her table.
        dan = await connect(url2, "127.0.0.4", name="Dan")
        await cleo.block("Dan")
        await dan.join(code)
        with pytest.raises(ServerError) as err:
            await dan.sit()
        assert err.value.code == "blocked"
        await close_all([ana, bob, cleo, dan])
