"""A table's log applied: each entry changes what the log rebuilds, live or replaying.

The table is event-sourced: a command that changes the table does it through log
entries (:mod:`.tablelog`) applied by :func:`apply`, which is also what :func:`replay`
folds over a stored log after a restart, so a rebuilt table has the same seats, game
and stream, item for item and ``seq`` for ``seq``.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from ...deals import Deal, random_deal
from ...engine import Game
from ...rules import Rules
from ...views import Phase
from .state import ChatLine, Logged, SeatState, StreamItem, TableData
from .tablelog import (
    AutoPlay,
    BotSeated,
    Chatted,
    Closed,
    Dealt,
    Decided,
    Entry,
    HintsSet,
    HostPassed,
    Sat,
    Started,
    Unseated,
)

__all__ = ["apply", "replay", "trim"]


def apply(log: Logged, rules: Rules, entry: Entry, rng: random.Random | None = None,
          deals: Sequence[Deal] = ()) -> Entry:
    """Change ``log`` by one log entry, live or replaying; returns the entry as it is
    stored. Only the logged state is given: what an entry changes, a replay rebuilds.

    A game starts with ``rng`` for its shuffles (only :class:`~.tablelog.Started`
    needs one; the log keeps it for the rounds :class:`~.tablelog.Dealt` deals), but
    ``deals`` the log holds for it (while replaying) come first: a replay never
    shuffles what was dealt before. The entry returned carries the deals the entry
    made, so the store keeps them.
    """
    match entry:  # decisions first: the cases are tried in order
        case Decided(decision, by):
            current = log.game
            assert current is not None
            round_before = current.round
            events = current.decide(decision)
            log.decisions += 1
            log.tell(events)
            if current.is_over:
                log.status = "over"
            if current.round == round_before:
                return entry  # no round started: no deal to keep
            return Decided(decision, by, current.round_deals[round_before:])
        case Sat(seat, player_id, name):
            log.seats[seat] = SeatState("human", name, player_id=player_id)
            log.notice("sat", seat, name)
        case BotSeated(seat, bot):
            log.seats[seat] = SeatState("bot", bot.name, bot=bot)
            log.notice("bot_added", seat, bot.name, bot=bot)
        case Unseated(seat, reason):
            old = log.seats[seat]
            assert old is not None
            log.seats[seat] = None
            if reason == "kicked" and old.player_id is not None:
                log.kicked.add(old.player_id)
            log.notice(reason, seat, old.name, bot=old.bot)
        case HostPassed(player_id, name):
            log.host_id = player_id
            log.notice("host", log.seat_of(player_id), name)  # the seat hears "You are …"
        case Dealt(dealt):
            game = log.game
            assert game is not None and game.phase is Phase.DEAL
            if dealt:
                deal = dealt[0]
            else:
                assert log.shuffle is not None, "a live game keeps its shuffle"
                deal = random_deal(rules, game.active, log.shuffle)
            log.tell(game.deal(deal))
            return Dealt((deal,))
        case Started(game_no):
            log.starts.append((log.n + 1, log.seq))  # the entry being applied is number n + 1
            log.game_no = game_no
            # Each round after the first waits for its deal (:class:`Dealt`, after the pause
            # at a round's end): the game keeps no shuffle of its own, the log does. The
            # deals a replay gives (an earlier version's, kept with its decisions) come first.
            if not deals:
                assert rng is not None, "a game starts with a shuffle"
                deals = (random_deal(rules, tuple(range(rules.players)), rng),)
            log.shuffle = rng
            game = Game(rules, None, deals=deals)
            log.game = game
            log.status = "playing" if not game.is_over else "over"
            log.chats = 0
            log.notice("started", None, None, game_no=game_no)
            log.game_seq = log.seq
            log.tell(game.events)
            return Started(game_no, game.round_deals)
        case AutoPlay(seat, on, reason):
            s = log.seats[seat]
            assert s is not None
            s.auto = on
            s.auto_reason = reason if on else None
            if reason in ("left", "kicked"):
                s.left = True
            if reason == "kicked" and s.player_id is not None:
                log.kicked.add(s.player_id)
            if reason == "took_over":
                s.left = False
            log.notice("auto_on" if on else "auto_off", seat, s.name, reason, bot=s.bot)
        case Chatted(seat, name, text):
            log.chats += 1
            log.seq += 1
            log.items.append(StreamItem(log.seq, "chat", ChatLine(seat, name, text)))
        case HintsSet(on):
            # The table's info says it (a fresh table_state): no stream item, so clients
            # that know no notice of it have nothing new to read.
            log.hints = on
        case Closed():
            log.status = "closed"
            log.notice("closed", None, None)
    return entry


def replay(log: Logged, rules: Rules, entries: Sequence[tuple[int, Entry]],
           rng: random.Random) -> None:
    """Rebuild ``log`` (a fresh one, :meth:`TableData.blank`'s) from its stored entries:
    ``(n, entry)`` in order. ``rng`` shuffles only the rounds the log has no deal for yet."""
    deals: dict[int, list[Deal]] = {}
    game_no = 0
    for _, e in entries:
        if isinstance(e, Started):
            game_no = e.game_no
        if isinstance(e, Started | Decided):
            deals.setdefault(game_no, []).extend(e.deals)
    for n, e in entries:
        apply(log, rules, e, rng, deals.get(e.game_no, ()) if isinstance(e, Started) else ())
        log.n = n


def trim(t: TableData, keep: int) -> None:
    """Keep the stream in memory bounded: past ``2 × keep`` items, the oldest go (the
    store still has them). Called between commands, never while items wait to be sent."""
    if len(t.logged.items) > 2 * keep:
        del t.logged.items[: len(t.logged.items) - keep]
