"""Fan-out: a table's frames, filtered per seat, narrated per language, sent to each connection.

Everything a table sends is built here from the protocol's models
(:mod:`nimmt.wire`), unvalidated since the data is the
server's own. Hidden information is filtered before anything is built: each
game event goes through :func:`nimmt.events.for_viewer` for the seat it is
sent to, and a view is :meth:`nimmt.Game.view` of that seat. The narration
sent with the events (``text``) is made from those filtered events only, in
the connection's language, so no sentence tells what the seat may not know.

Work is shared where the result is the same: connections that see as the same
seat in the same language get one frame, and an event every seat sees whole is
built once per broadcast. A frame that carries a view carries the sentences of
the shortcuts for it too (``sheet``), in the connection's language: whole in
``table_state`` and in a catch-up, and in ``events`` only the sentences that changed
since the last sheet the connection was sent (each connection's last sheet is kept on
it, so peers are grouped by it as well; they nearly always share it).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, Protocol, cast

from ... import wire as P
from ...engine import Game
from ...events import Event, RoundScored, for_viewer
from ...narrate import Narrator, SeatMark, narrator
from ...narrate.events import Told, others_have_chosen
from ...views import View
from ...walk import STEP_STARTS, starts_step, walk
from ...wire import (
    ChatItem,
    EventItem,
    Line,
    NoticeItem,
    Older,
    RulesInfo,
    Sheet,
    SheetMemo,
    ViewPayload,
    build,
    dump,
    event_payload,
    rules_info,
    sheet_change,
    table_sheet,
    view_change,
    view_payload,
)
from .commands import Audience
from .facts import info, prompt, seat_infos
from .state import ChatLine, Notice, StreamItem, TableData, speaker_of

__all__ = ["STEP_STARTS", "Fanout", "Receiver", "bounded", "echo_ref", "error_frame",
           "history_frame", "item_text", "narration", "older", "seen", "since", "with_items"]

class Receiver(Protocol):
    """A connection as a table sends to it."""

    #: The connection's number (:attr:`~.commands.Who.conn`).
    id: int
    player_id: int
    name: str
    #: The narration language (``en``, ``sr``, ``cs``).
    lang: str
    #: The newest stream position this connection has been sent (its errors carry it).
    seq: int
    #: The last sheet this connection was sent, whole (None before the first): an
    #: ``events`` frame carries what changed since (:func:`~nimmt.wire.sheet_change`).
    sheet: Sheet | None

    def send(self, text: str) -> None: ...


def narration(events: Sequence[Event], names: Sequence[str], viewer: int | None,
              lang: str, others_chosen: bool | None = None) -> list[str]:
    """The sentences of ``events`` (already filtered for ``viewer``: a spectator gets the
    public events, so no sentence tells what the viewer may not know), one entry per
    resolution step (:meth:`nimmt.Narrator.steps`), in ``lang``."""
    return narrator(lang).steps(events, names, viewer, others_chosen)


def error_frame(seq: int, code: P.CodeLike, message: str, ref: P.Ref, lang: str,
                retry_after: float | None = None) -> str:
    """An ``error`` frame: the code, the English details, and the refusal as the
    connection's reader hears it, in ``lang``; ``retry_after``: the seconds to wait before
    asking again, for a refusal that passes."""
    return dump(build(P.Error, {"seq": seq, "type": "error", "code": P.ErrorCode(code),
                                "message": message,
                                "text": speaker_of(lang).refusal_sentence(code), "ref": ref,
                                "retry_after": retry_after}))


def echo_ref(text: str) -> P.Ref:
    """The ``ref`` of a refused frame, when it is a valid ref, so the client can match it.

    Read with the parser's limits (at their ceiling, so whatever the settings let
    through is read): a frame refused for its depth must not recurse here instead."""
    try:
        data = P.load_json(text, P.MAX_DEPTH_CEILING)
    except P.ProtocolError:
        return None
    ref = data.get("ref") if isinstance(data, dict) else None
    if (type(ref) is int and abs(ref) < 1 << 53) or (type(ref) is str and len(ref) <= 64):
        return ref
    return None


def seen(items: Sequence[StreamItem], viewer: int | None, cache: dict[object, Any],
         lang: str = "en") -> tuple[list[Any], list[Event]]:
    """``items`` as ``viewer`` may see them: their wire models, and the game events among
    them as the viewer may know them (for the narration).

    Each event is filtered for the viewer first (:func:`nimmt.events.for_viewer`) and
    only then looked up in ``cache``, which keeps the models built by seq and by what
    they hold, so a viewer gets the model of exactly its own version: the whole event,
    or the one with the card hidden that every other seat gets too. Notices and chat
    lines are said in ``lang`` (a notice to its own seat as "you", a bot by its name in
    ``lang``), so their models are kept by language and reader."""
    models: list[Any] = []
    events: list[Event] = []
    for seq, kind, payload in items:
        key: object = seq  # the item as it is whole
        if kind == "event":
            ev = for_viewer(cast(Event, payload), viewer)
            if ev is None:
                continue
            events.append(ev)
            if ev is not payload:
                key = (seq, ev)  # the item with what this viewer may not see left out
            model = cache.get(key)
            if model is None:
                model = cache[key] = build(EventItem, {"seq": seq, "kind": "event",
                                                       "event": event_payload(ev)})
        else:
            other = cast(Notice | ChatLine, payload)
            you = False
            if isinstance(other, Notice):
                you = viewer is not None and viewer == other.seat
            key = (seq, lang, you)
            model = cache.get(key)
            if model is None:
                model = cache[key] = _other_item(seq, other, speaker_of(lang), viewer)
        models.append(model)
    return models, events


#: Where an ``events`` frame made with no items holds them: its first field after
#: ``seq`` (a number) and ``type`` (``"events"``), so the first match is the field.
_NO_ITEMS = '"items":[]'


def item_text(model: Any, cache: dict[object, Any]) -> str:
    """``model`` (an item of :func:`seen`, kept in ``cache``) as JSON text, made once for
    every frame of the broadcast that holds it: the items are what the viewers of an
    event share, so each is serialized once, not once per connection. A model kept in
    ``cache`` lives as long as it, so its ``id`` names it there."""
    key = ("text", id(model))
    text: str | None = cache.get(key)
    if text is None:
        text = cache[key] = dump(model)
    return text


def with_items(frame: str, items: Sequence[str]) -> str:
    """``frame`` (an ``events`` frame's JSON, made with no items) holding ``items`` (each
    an item's JSON, in order): the text ``dump`` gives for the frame with the items in
    it (tests/server/test_server_frames.py checks this over whole games)."""
    if not items:
        return frame
    at = frame.index(_NO_ITEMS)
    return f'{frame[:at]}"items":[{",".join(items)}]{frame[at + len(_NO_ITEMS):]}'


def _other_item(seq: int, payload: Notice | ChatLine, speak: Narrator,
                viewer: int | None) -> Any:
    if isinstance(payload, Notice):
        return build(NoticeItem, {
            "seq": seq, "kind": "notice", "notice": payload.notice, "reason": payload.reason,
            "seat": payload.seat, "name": payload.name_in(speak),
            "text": payload.said(speak, viewer)})
    return build(ChatItem, {"seq": seq, "kind": "chat", "seat": payload.seat,
                            "name": payload.name, "text": payload.text,
                            "said": speak.chat_sentence(payload.name, payload.text)})


def _step_start(item: StreamItem) -> bool:
    return item.kind == "event" and starts_step(cast(Event, item.payload))


def bounded(items: Sequence[StreamItem], after: int, max_items: int, max_bytes: int,
            frame: Callable[[Sequence[StreamItem], int], str]) -> str:
    """The frame ``frame(kept, begin)`` of the newest of ``items`` (the items after
    ``after`` still at hand, in order) that holds at most ``max_items`` of them and fits
    in ``max_bytes`` bytes (UTF-8); ``begin`` is the position of the first item kept, so
    a frame with ``begin > after + 1`` left the items in between out and says so.

    Items are left out from the oldest end. A frame that leaves some out starts at a
    resolution step's beginning where it can, so its narration tells whole steps. Each
    try keeps the share of items the last one had room for, so a few tries settle it;
    the frame with no item left is the last.
    """
    kept = list(items[len(items) - max_items:]) if max_items < len(items) else list(items)
    while True:
        begin = kept[0].seq if kept else (items[-1].seq + 1 if items else after + 1)
        if begin > after + 1 and kept:
            first = next((i for i, it in enumerate(kept) if _step_start(it)), 0)
            kept = kept[first:]
            begin = kept[0].seq
        text = frame(kept, begin)
        size = len(text.encode())
        if size <= max_bytes or not kept:
            return text
        keep = min(len(kept) - 1, int(len(kept) * max_bytes / size * 0.9))
        kept = kept[len(kept) - keep:] if keep > 0 else []


def older(after: int, begin: int) -> Older | None:
    """What a frame whose first item is at ``begin`` left out after ``after``."""
    return build(Older, {"after": after, "before": begin}) if begin > after + 1 else None


def history_frame(items: Sequence[StreamItem], viewer: int | None, lang: str,
                  names: Sequence[str], seq: int, left: Older | None, ref: P.Ref) -> str:
    """A ``history`` page: ``items`` as ``viewer`` may see them, and the page said line by
    line in ``lang`` (one line per resolution step, notice and chat line, in stream
    order); ``left``: what is still older. Pure, so a read thread may build it."""
    models, events = seen(items, viewer, {}, lang)
    lines = [(m.seq, m.kind, m.text if m.kind == "notice" else m.said)
             for m in models if m.kind != "event"]
    seqs = [m.seq for m in models if m.kind == "event"]  # the seq of each of ``events``
    told = walk(events, Told(narrator(lang), names, viewer))
    lines += [(seqs[first], "event", text) for first, text in told]
    lines.sort(key=lambda line: line[0])
    return dump(build(P.History, {
        "seq": seq, "type": "history", "items": models,
        "lines": [build(Line, {"seq": s, "kind": k, "text": x}) for s, k, x in lines],
        "older": left, "ref": ref,
    }))


class Fanout:
    """Builds and sends one table's frames (``peers``: its connections by number)."""

    def __init__(self, table: TableData, peers: Mapping[int, Receiver]) -> None:
        self.table = table
        self.peers = peers
        self._rules: RulesInfo = rules_info(table.rules)
        #: The sentences of the sheets sent so far, shared by seats and frames.
        self._sheets = SheetMemo()
        #: The last sheet made per seat and language: an equal one made again is this one,
        #: so connections that were sent equal sheets hold one object and share a frame.
        self._last: dict[tuple[int | None, str], Sheet] = {}
        #: The last view made per seat (:meth:`_view`).
        self._seen: dict[int | None, ViewPayload] = {}
        #: The last view each connection was sent, whole: an ``events`` frame carries what
        #: changed since (:func:`~nimmt.wire.view_change`).
        self._views: dict[int, ViewPayload | None] = {}
        #: A broadcast of items held for :meth:`flush` (the items after its mark up to its
        #: newest, and its audience), and how many broadcasts it holds.
        self._held: tuple[int, int, Audience] | None = None
        self._merged = 0
        #: The score sheet last made (:meth:`_rounds`), the game it is of and how many of
        #: the game's events it read.
        self._scored: tuple[Game | None, int, list[Any]] = (None, 0, [])

    def _sheet(self, view: View | None, viewer: int | None, names: Sequence[str], lang: str,
               presence: Sequence[SeatMark]) -> Sheet:
        """The sheet for ``viewer`` in ``lang``: of ``view``, or before the first game (no
        view) of the seats; ``presence``: who sits in each seat, for key W."""
        sheet = table_sheet(self.table.rules, view, names, viewer, lang, self._sheets, presence)
        last = self._last.get((viewer, lang))
        if last is not None and last == sheet:
            return last
        self._last[(viewer, lang)] = sheet
        return sheet

    def _view(self, view: View, viewer: int | None) -> ViewPayload:
        """``view`` (``viewer``'s) as its wire model: the one made last for the seat when it
        is equal, so connections that were sent equal views hold one object and share a
        frame (as :meth:`_sheet`)."""
        made = view_payload(view, self._rules)
        last = self._seen.get(viewer)
        if last is not None and last == made:
            return last
        self._seen[viewer] = made
        return made

    def _rounds(self, game: Game | None) -> list[Any]:
        """The score sheet of ``game``: its ``round_scored`` events so far, made again only
        when the game has told something since."""
        if game is None:
            return []
        made, read, rounds = self._scored
        if made is not game or read != len(game.events):
            rounds = [event_payload(e) for e in game.events if isinstance(e, RoundScored)]
            self._scored = (game, len(game.events), rounds)
        return rounds

    def presence_of(self, audience: Audience | None = None) -> tuple[SeatMark, ...]:
        """Who sits in each seat as key W tells it, as ``audience`` (default: the
        connections at the table now) sees the seats (:func:`~.facts.seat_infos`)."""
        return tuple(s.presence for s in seat_infos(self.table, audience))

    # -- frames ---------------------------------------------------------------------------

    def state_frame(self, viewer: int | None, lang: str, ref: P.Ref, now: float,
                    audience: Audience | None = None) -> tuple[str, Sheet, ViewPayload | None]:
        """``table_state`` as ``viewer`` sees it (the seats' presence as ``audience`` has it),
        bots named and its shortcuts' sentences said in ``lang``; and its sheet (whole: of
        the seats alone before the first game) and view (None before the first game)."""
        t = self.table
        game = t.logged.game
        seen_view = None if game is None else game.view(viewer)
        table = info(t, audience, lang)
        sheet = self._sheet(seen_view, viewer, t.logged.names(lang), lang,
                            tuple(s.presence for s in table.seats))
        view = None if seen_view is None else self._view(seen_view, viewer)
        return dump(build(P.TableState, {
            "seq": t.logged.seq, "type": "table_state", "table": table,
            "you": viewer,
            "view": view,
            "prompt": prompt(t, viewer, now),
            "sheet": sheet,
            "ref": ref,
            "rounds": self._rounds(game),
        })), sheet, view

    def events_frame(self, items: Sequence[StreamItem], viewer: int | None, lang: str,
                     now: float, cache: dict[object, Any], *, always: bool,
                     names: Sequence[str] | None = None,
                     left: Older | None = None,
                     before: Sheet | None = None,
                     presence: Sequence[SeatMark] | None = None,
                     upto: int | None = None,
                     held: ViewPayload | None = None,
                     ) -> tuple[str | None, Sheet | None, ViewPayload | None]:
        """``events`` for ``viewer`` in ``lang`` (None: nothing to send; ``always``: send
        the prompt even when no item is for the viewer), and the sheet and the view it
        brings (None: none). ``names``: the seats' names, when the caller has them
        already; ``left``: what a catch-up left out; ``before`` and ``held``: the last
        sheet and view the readers were sent, so only what changed since goes (None: the
        whole of it); ``presence``: who sits in each seat (:meth:`presence_of`), when the
        caller has it already; ``upto``: the stream position the frame brings the reader
        to (default: the newest)."""
        t = self.table
        models, events = seen(items, viewer, cache, lang)
        asked = prompt(t, viewer, now)
        if not models and (asked is None or not always) and left is None:
            return None, None, None
        names = names if names is not None else t.logged.names(lang)
        # A game event changes the view: it comes along, with what the shortcuts now say.
        seen_view = t.logged.game.view(viewer) if events and t.logged.game is not None else None
        sheet = None if seen_view is None else self._sheet(
            seen_view, viewer, names, lang,
            presence if presence is not None else self.presence_of())
        view = None if seen_view is None else self._view(seen_view, viewer)
        frame = dump(build(P.Events, {
            "seq": t.logged.seq if upto is None else upto, "type": "events", "items": [],
            "prompt": asked,
            "text": narration(events, names, viewer, lang, others_chosen(t, viewer, seen_view)),
            "view": None if view is None else view_change(view, held),
            "sheet": None if sheet is None else sheet_change(sheet, before),
            "older": left,
        }))
        return with_items(frame, [item_text(m, cache) for m in models]), sheet, view

    # -- sending ----------------------------------------------------------------------------

    def ack(self, conn: int, ref: P.Ref) -> None:
        """The command of ``ref`` is stored. The ack carries the stream position the
        connection was sent (a broadcast held may not have gone yet), so a client that
        keeps the newest ``seq`` it saw never skips items when it comes back."""
        peer = self.peers.get(conn)
        if peer is not None:
            peer.send(dump(build(P.Ack, {"seq": peer.seq, "type": "ack", "ref": ref})))

    def refuse(self, conn: int, code: P.CodeLike, message: str, ref: P.Ref,
               retry_after: float | None = None) -> None:
        peer = self.peers.get(conn)
        if peer is not None:
            peer.send(error_frame(peer.seq, code, message, ref, peer.lang, retry_after))

    def send_state(self, conn: int, viewer: int | None, ref: P.Ref, now: float) -> None:
        peer = self.peers.get(conn)
        if peer is not None:
            peer.seq = self.table.logged.seq
            text, peer.sheet, self._views[conn] = self.state_frame(viewer, peer.lang, ref, now)
            peer.send(text)

    def catch_up(self, conn: int, viewer: int | None, after: int, now: float,
                 max_items: int, max_bytes: int) -> None:
        """What a connection coming back missed after ``after``, with its narration: the
        newest ``max_items`` items at most, in ``max_bytes`` bytes at most, from what the
        table holds in memory (nothing is read back or rebuilt here, however long the
        game). The frame's ``older`` says what it left out; ``history`` pages back."""
        peer = self.peers.get(conn)
        if peer is None:
            return
        lang = peer.lang
        names = self.table.logged.names(lang)
        missed = unmuted(since(self.table.logged.items, after), silenced(peer))
        sent: list[tuple[str | None, Sheet | None, ViewPayload | None]] = []

        def frame(kept: Sequence[StreamItem], begin: int) -> str:
            left = older(after, begin)
            # The sheet and view whole: a connection coming back may have lost any frame.
            text, sheet, view = self.events_frame(kept, viewer, lang, now, {}, always=False,
                                                  names=names, left=left)
            sent[:] = [(text, sheet, view)]
            return text or ""

        bounded(missed, after, max_items, max_bytes, frame)
        if sent and sent[0][0] is not None:
            text, sheet, view = sent[0]
            assert text is not None
            if sheet is not None:
                peer.sheet = sheet
            if view is not None:
                self._views[conn] = view
            peer.send(text)

    def presence(self, audience: Audience, now: float) -> None:
        """Someone came or went: a fresh table_state to each of ``audience``."""
        for conn, viewer in audience:
            peer = self.peers.get(conn)
            if peer is not None:
                text, peer.sheet, self._views[conn] = self.state_frame(viewer, peer.lang,
                                                                       None, now)
                peer.send(text)

    def broadcast(self, after: int, state: bool, audience: Audience, now: float) -> None:
        """Send the items after ``after`` to ``audience``, filtered per seat and narrated in
        each connection's language; with ``state``, a fresh table_state first.

        Items alone are held until :meth:`flush`, and the items of the broadcasts that
        follow to the same audience join them: commands handled one after another (four
        cards chosen while the first one's write was stored) go out as one frame per
        connection, not one each."""
        held = self._held
        upto = self.table.logged.seq
        if not state:
            if held is not None and held[2] == audience:
                self._held = (held[0], upto, audience)
                self._merged += 1
                return
            self.flush(now)
            self._held = (after, upto, audience)
            self._merged = 1
            return
        self.flush(now)
        self._send(after, upto, state, audience, now)

    @property
    def holding(self) -> int:
        """How many broadcasts are held for the next :meth:`flush` (0: none)."""
        return self._merged if self._held is not None else 0

    def flush(self, now: float) -> None:
        """Send the broadcast held (:meth:`broadcast`), if any. The table calls it when its
        queue is empty, and before anything else it sends."""
        held = self._held
        if held is not None:
            self._held = None
            self._send(held[0], held[1], False, held[2], now)

    def _send(self, after: int, upto: int, state: bool, audience: Audience,
              now: float) -> None:
        """Send the items after ``after`` up to ``upto`` (the newest when the broadcast was
        made: the commands after it broadcast their own)."""
        t = self.table
        new = between(t.logged.items, after, upto)
        cache: dict[object, Any] = {}
        # Peers are grouped by what they are sent: their seat, language, the speakers of
        # these chat lines they muted (nearly always none) and the last sheet and view they
        # were sent (nearly always the group's): one frame for the group.
        talking = chatters(new)
        views = self._views
        groups: dict[tuple[int | None, str, frozenset[str], int, int], list[Receiver]] = {}
        for conn, viewer in audience:
            peer = self.peers.get(conn)
            if peer is not None:
                quiet = silenced(peer) & talking if talking else _NOBODY
                groups.setdefault((viewer, peer.lang, quiet, id(peer.sheet), id(views.get(conn))),
                                  []).append(peer)
        names = {key[1]: t.logged.names(key[1]) for key in groups}
        marks = self.presence_of(audience)
        for (viewer, lang, quiet, _, _), peers in groups.items():
            text: str | None
            sheet: Sheet | None
            view: ViewPayload | None
            frames: list[str] = []
            if state:
                text, sheet, view = self.state_frame(viewer, lang, None, now, audience)
                frames.append(text)
                if new:
                    # Items that came with a state change still go out, for logs and
                    # narration: made before either frame is sent, so the two reach the
                    # reader together (a prompt in the state, the sentences that led to it
                    # in the items: a page says them as one step).
                    more, more_sheet, more_view = self.events_frame(
                        unmuted(new, quiet), viewer, lang, now, cache, always=False,
                        names=names[lang], before=sheet, presence=marks, upto=upto,
                        held=view)
                    if more is not None:
                        frames.append(more)
                        sheet = more_sheet if more_sheet is not None else sheet
                        view = more_view if more_view is not None else view
            else:
                text, sheet, view = self.events_frame(
                    unmuted(new, quiet), viewer, lang, now, cache, always=True,
                    names=names[lang], before=peers[0].sheet, presence=marks, upto=upto,
                    held=views.get(peers[0].id))
                if text is None:
                    continue
                frames.append(text)
            for peer in peers:
                peer.seq = upto
                if state or sheet is not None:
                    peer.sheet = sheet  # a table_state's sheet (or none) replaces the last
                if state or view is not None:
                    views[peer.id] = view
                for frame in frames:
                    peer.send(frame)

    def forget(self, conn: int) -> None:
        """Connection ``conn`` left the table: what it was sent is forgotten (it is sent a
        whole ``table_state`` when it comes back)."""
        self._views.pop(conn, None)


_NOBODY: frozenset[str] = frozenset()


def silenced(peer: Receiver) -> frozenset[str]:
    """The names whose chat ``peer`` muted or blocked (a connection of this process, or
    of another relayed here)."""
    names: frozenset[str] = getattr(peer, "silenced", _NOBODY)
    return names


def chatters(items: Sequence[StreamItem]) -> frozenset[str]:
    """The names that wrote the chat lines among ``items``."""
    return frozenset(cast(ChatLine, it.payload).name for it in items if it.kind == "chat")


def unmuted(items: Sequence[StreamItem], quiet: frozenset[str]) -> Sequence[StreamItem]:
    """``items`` without the chat lines of the names in ``quiet``."""
    if not quiet:
        return items
    return [it for it in items
            if it.kind != "chat" or cast(ChatLine, it.payload).name not in quiet]


def others_chosen(t: TableData, viewer: int | None, view: View | None = None) -> bool:
    """Whether the table waits for ``viewer``'s card alone
    (:func:`nimmt.narrate.events.others_have_chosen`). ``view``: the viewer's view of the
    game now, when the caller has it."""
    game = t.logged.game
    if game is None or viewer is None or game.pending is None:
        return False
    return others_have_chosen(game.view(viewer) if view is None else view)


def between(items: list[StreamItem], after: int, upto: int) -> list[StreamItem]:
    """The items of ``items`` (in seq order) after seq ``after`` up to seq ``upto``."""
    new = since(items, after)
    if new and new[-1].seq > upto:
        new = [it for it in new if it.seq <= upto]
    return new


def since(items: list[StreamItem], after: int) -> list[StreamItem]:
    """The items of ``items`` (in seq order) after seq ``after``: the newest, so the search
    starts from the end."""
    i = len(items)
    while i > 0 and items[i - 1].seq > after:
        i -= 1
    return items[i:]
