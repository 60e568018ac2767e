"""The tables this process holds: made, resumed, ended, and the quotas that bound them.

Each table is one :class:`~nimmt.server.tables.table.TableActor`, by its code. A table is made
for a host (:meth:`Tables.create`, within the quotas per host and per address, counting
the tables being made), resumed from its log after a restart or a take-over
(:meth:`Tables.resume`), and forgotten when it closes or moves to another process
(:meth:`Tables.forget`). The search bots its host may seat are capped across the
host's live tables (:meth:`Tables.bot_quota`).
"""

from __future__ import annotations

import asyncio
import json
import logging
import secrets
from collections.abc import Callable, Iterable
from typing import Any, Protocol

from ... import wire as P
from ...bots.registry import BotError
from ...errors import RulesError
from ...rules import EndMode, Rules
from ..base.logs import event
from ..base.quota import InFlight
from ..base.settings import Settings
from ..base.text import clean_text
from ..store import LogEntry, Store
from ..workers.botpool import BotPool, lane_of
from ..workers.tutor import Tutor
from .commands import Shut
from .history import Pages
from .table import TableActor

__all__ = ["LIVE", "Owners", "Tables"]

log = logging.getLogger("nimmt.server")

CODE_ALPHABET = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"
#: The key under which :attr:`Tables.creating` counts every table being made (no player
#: id or address is a tuple).
ALL_TABLES = ("all",)
#: The statuses of a live table: it holds its seats (and its bots think, once started).
LIVE = ("open", "playing")


class Owners(Protocol):
    """The other processes that hold tables (the cluster), as the tables tell them what
    changed here."""

    async def created(self, actor: TableActor) -> None:
        """A table made here: it is ours (its lease and fencing token)."""

    async def forget(self, actor: TableActor) -> None:
        """``actor`` ended here: closed, or lost to another process."""


def _search_bots(actor: TableActor) -> int:
    """The search bots seated at ``actor`` (the search lane's: up to a second a decision)."""
    return sum(1 for seat in actor.seats
               if seat is not None and seat.bot is not None and lane_of(seat.bot.kind) == "search")


class Tables:
    """Every table of one server process, by code."""

    def __init__(self, settings: Settings, store: Store, bots: BotPool, tutor: Tutor,
                 pages: Pages, refused: Callable[[str], None]) -> None:
        self.settings = settings
        self.store = store
        self.bots = bots
        self.tutor = tutor
        self.pages = pages
        self.refused = refused
        #: The tables held here, by code.
        self.held: dict[str, TableActor] = {}
        #: Tables being made (their row being stored), by host and by address: the quotas
        #: on tables count them (base/quota.py).
        self.creating = InFlight()
        #: With Redis: the other processes (docs/scaling.md).
        self.owners: Owners | None = None
        #: Whether this process drains: no table is made or entered here.
        self.draining = False
        self._forgetting: set[asyncio.Task[None]] = set()

    def get(self, code: str) -> TableActor | None:
        return self.held.get(code)

    def statuses(self) -> Iterable[str]:
        return [a.status for a in self.held.values()]

    # -- resuming and forgetting ------------------------------------------------------

    async def resume_all(self) -> None:
        """Every table the store has not closed, from its log (one process alone)."""
        for row, entries in await self.store.live_tables():
            await self.resume(row, entries)

    async def resume(self, row: Any, entries: list[LogEntry],
                     token: int | None = None) -> TableActor | None:
        """Bring table ``row`` back from its log (a restart, or a take-over with fencing
        ``token``): its actor, running; None if it does not come back."""
        if row.status == "open":
            # Nobody can be at an unstarted table after a restart: close it rather
            # than bring back tables that anyone could have opened by the thousand.
            await self.store.close_table(int(row.id))
            return None
        settings = json.loads(row.settings)
        actor = self._actor(row.id, row.code, row.name, row.host_id,
                            Rules.from_dict(json.loads(row.rules)), settings["turn_timer"],
                            settings["rated"], settings["private"])
        actor.token = token
        try:
            actor.replay(entries)
        except Exception:
            log.exception("table %s does not replay; it stays closed", row.code)
            return None
        self.held[actor.code] = actor
        actor.start()
        actor.resume()
        return actor

    def _actor(self, table_id: int, code: str, name: str, host_id: int, rules: Rules,
               turn_timer: float | None, rated: bool, private: bool) -> TableActor:
        return TableActor(
            store=self.store, settings=self.settings, bots=self.bots, tutor=self.tutor,
            pages=self.pages, on_close=self.forget, table_id=table_id, code=code, name=name,
            host_id=host_id, rules=rules, turn_timer=turn_timer, rated=rated, private=private)

    def forget(self, actor: TableActor) -> None:
        """``actor`` ended (closed, or owned by another process now)."""
        if self.held.get(actor.code) is actor:
            del self.held[actor.code]
            how = "moved to another process" if actor.lost else "closed"
            log.info("table %s %s", actor.code, how,
                     extra=event("table.ended", table=actor.code,
                                 reason="moved" if actor.lost else "closed"))
            if self.owners is not None:
                task = asyncio.create_task(self.owners.forget(actor))
                self._forgetting.add(task)
                task.add_done_callback(self._forgetting.discard)

    def close_table(self, code: str) -> bool:
        """Close the table ``code`` if it is held here (the operator's signal)."""
        actor = self.held.get(code)
        if actor is None:
            return False
        actor.post(Shut())
        return True

    async def stop(self) -> None:
        """Stop every table (the server stops; their logs stay as they are)."""
        for actor in list(self.held.values()):
            await actor.stop()
        self.held.clear()

    # -- making tables ----------------------------------------------------------------

    async def create(self, host_id: int, address: str, msg: P.CreateTable) -> TableActor:
        """A new table for player ``host_id`` (at ``address``) as ``msg`` asks, running; or
        a refusal (:class:`~nimmt.wire.ProtocolError`)."""
        s = self.settings
        if self.draining:
            raise P.ProtocolError("restarting", "this server process is stopping: reconnect "
                                  "and open the table then")
        if len(self.held) + self.creating[ALL_TABLES] >= s.max_tables:
            self.refused("max_tables")
            raise P.ProtocolError("server_full", "the server holds as many tables as it may")
        self._check_quotas(host_id, address)
        rules = self._rules(msg)
        # A table the host did not name keeps an empty name: each client says it after
        # its host in its reader's language, not in the host's.
        name = clean_text(msg.name or "")[:64]
        settings = {"turn_timer": msg.turn_timer, "rated": msg.rated, "private": msg.private}
        for _ in range(20):
            code = "".join(secrets.choice(CODE_ALPHABET) for _ in range(6))
            if code not in self.held:
                break
        with self.creating.held(host_id, address, ALL_TABLES):
            table_id = await self.store.create_table(
                code=code, name=name, host_id=host_id, rules=json.dumps(rules.to_dict()),
                preset=rules.preset_name, settings=json.dumps(settings))
            actor = self._actor(table_id, code, name, host_id, rules, msg.turn_timer,
                                msg.rated, msg.private)
            actor.address = address
            actor.bot_quota = self.bot_quota
            if self.owners is not None:
                await self.owners.created(actor)
            self.held[code] = actor
        actor.start()
        log.info("table %s opened by player %d (%s, %d seats)", code, host_id, rules.name,
                 rules.players,
                 extra=event("table.created", table=code, player=host_id, rules=rules.name,
                             seats=rules.players, rated=msg.rated, private=msg.private))
        return actor

    def _check_quotas(self, host_id: int, address: str) -> None:
        s = self.settings
        # Unstarted tables are cheap to open and to leave; started games go on without
        # their host (the bots play them), so they count until they end.
        for statuses, per_host, per_address, what, then, limit in (
            (("open",), s.tables_per_host, s.tables_per_address, "unstarted",
             "start or leave one first", "tables"),
            (("open", "playing"), s.running_per_host, s.running_per_address, "running",
             "wait for one of their games to end", "running"),
        ):
            # Tables being made (awaiting the store) count too: they will be unstarted.
            mine = [a for a in self.held.values() if a.status in statuses]
            hosted = sum(1 for a in mine if a.host_id == host_id)
            if hosted + self.creating[host_id] >= per_host:
                self.refused(f"{limit}_per_host")
                raise P.ProtocolError("quota", f"you host {per_host} {what} tables already: "
                                      f"{then}")
            sent = sum(1 for a in mine if a.address == address)
            if sent + self.creating[address] >= per_address:
                self.refused(f"{limit}_per_address")
                raise P.ProtocolError("quota", f"{per_address} {what} tables come from your "
                                      f"address already: {then}")

    def _rules(self, msg: P.CreateTable) -> Rules:
        spec = msg.rules.model_dump()
        if spec["limit"] is None:
            del spec["limit"]
        try:
            rules = Rules.from_dict(spec)
        except RulesError as exc:
            raise P.ProtocolError("bad_rules", str(exc)) from None
        most = self.settings.max_point_limit
        if rules.end is not EndMode.ROUNDS and rules.limit > most:
            raise P.ProtocolError(
                "bad_rules", f"a point limit of {rules.limit} is longer than this server plays "
                f"(at most {most})")
        return rules

    def refusal(self, bot: str) -> str | None:
        """Why this server does not offer bot ``bot`` to a host, or None: only the names it
        offers are seated (nothing a client names is imported)."""
        try:
            self.bots.check(bot)
        except BotError as exc:
            return str(exc)
        return None

    def bot_quota(self, actor: TableActor, bot: str | None) -> str | None:
        """Why ``actor``'s host may not seat bot ``bot`` now (``None``: play a rematch, the
        table's bots with it), or None.

        A search bot thinks up to ``bot_seconds`` of a worker per decision, and every
        table gets its turn in the search lane's round: without a cap one player with a
        few tables of experts would take as many turns as there are tables. The search
        bots at the live tables (unstarted or playing) of the host, and at those opened
        from the table's address, are counted; the quick bots cost microseconds.
        """
        here = _search_bots(actor)
        if bot is None:
            adding = 0 if actor.status in LIVE else here
        else:
            adding = 1 if lane_of(bot) == "search" else 0
        if not adding:
            return None
        s = self.settings
        live = [a for a in self.held.values() if a.status in LIVE]
        checks = [([a for a in live if a.host_id == actor.host_id], s.search_bots_per_host,
                   "your live tables")]
        if actor.address is not None:
            checks.append(([a for a in live if a.address == actor.address],
                           s.search_bots_per_address, "the live tables from your address"))
        for mine, cap, whose in checks:
            if sum(_search_bots(a) for a in mine) + adding > cap:
                return (f"at most {cap} search bots (hard, expert) may play at {whose} at "
                        "once: seat an easier bot, or wait for one of those games to end")
        return None
