"""Game records: versioned JSON that replays, and is verified as it replays.

A record holds what cannot be recomputed (the rules, each round's deal, every
decision in order) and what must come out again (each round's penalties, the
result, and a SHA-256 of every event). :func:`replay` rebuilds the game from
the deals alone, applies every decision through the engine, and compares
everything it recomputes with what the record claims; the first disagreement
is refused with a :class:`~nimmt.errors.RecordError` naming the exact step.
This is how games are saved, shared, resumed (a record of a game in progress
has ``result`` null) and tested (golden records).

The format is defined once, by the pydantic models below; the JSON Schema in
``schemas/record.schema.json`` is generated from them (:func:`record_schema`).
``docs/records.md`` describes it for people.

>>> from nimmt import Game, Rules
>>> from nimmt.randomplay import play_random
>>> import random
>>> game = Game(Rules.preset("classic", players=3), seed=5)
>>> _ = play_random(game, random.Random(6))
>>> record = record_from_game(game, ["Ana", "Bob", "Cleo"])
>>> again = replay(record_from_json(to_json(record)))
>>> again.events == game.events
True
>>> bad = record.model_copy(update={"events_sha256": "0" * 64})
>>> replay(bad)  # doctest: +ELLIPSIS
Traceback (most recent call last):
...
nimmt.errors.RecordError: events_sha256: the events hash to ..., not to 000...
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Annotated, Any, Final, Literal, TypeAlias

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, ValidationError, WithJsonSchema

from .deals import Deal
from .decisions import Decision, DecisionKind, make_decision
from .engine import Game
from .errors import IllegalMove, RecordError, RulesError, seat_of, seats_of
from .events import Event, RoundScored
from .rules import PRESETS, VARIANTS, EndMode, Rules
from .views import Phase
from .walk import Checksum, walk

__all__ = [
    "FORMAT",
    "VERSION",
    "DealRecord",
    "Record",
    "ResultRecord",
    "RoundRecord",
    "RulesRecord",
    "decision_from_record",
    "decision_to_record",
    "events_sha256",
    "load_record",
    "record_from_dict",
    "record_from_game",
    "record_from_json",
    "record_schema",
    "replay",
    "save_record",
    "to_json",
]

FORMAT: Final = "nimmt-record"
VERSION: Final = 1


def _not_zero(card: int) -> int:
    if card == 0:
        raise ValueError("0 is not a card: number cards are 1..104, jokers -10..-1")
    return card


#: A card: 1..104, or a joker 0.0..0.9 written as -10..-1 (joker 0.d is d - 10).
CardInt: TypeAlias = Annotated[
    int,
    Field(strict=True, ge=-10, le=104, json_schema_extra={"not": {"const": 0}}),
    AfterValidator(_not_zero),
]
Seat: TypeAlias = Annotated[int, Field(strict=True, ge=0)]
Points: TypeAlias = Annotated[int, Field(strict=True, ge=0)]
#: A kind of decision as JSON: its value. The schema lists the values in place, as for a
#: literal: the compiled engine leaves :class:`~nimmt.decisions.DecisionKind` no docstring
#: to describe a definition of its own with.
DecisionKindName: TypeAlias = Annotated[
    DecisionKind,
    WithJsonSchema({"enum": [kind.value for kind in DecisionKind], "type": "string"}),
]
#: ``[kind, seat, value]``: value is a card for "card" and "draft", a row 1..4 for "row".
#: The JSON form of a :data:`~nimmt.decisions.Decision` (see :func:`decision_to_record`).
DecisionRecord: TypeAlias = tuple[
    DecisionKindName, Seat, Annotated[int, Field(strict=True, ge=-10, le=104)]
]


def decision_to_record(decision: Decision) -> DecisionRecord:
    """A decision as a record writes it: ``("card", 2, 55)`` (the kind is a string)."""
    return (decision.kind, decision.player, decision.value)


def decision_from_record(entry: DecisionRecord) -> Decision:
    """Inverse of :func:`decision_to_record`."""
    kind, seat, value = entry
    return make_decision(kind, seat, value)

_CONFIG = ConfigDict(extra="forbid", frozen=True)


def _one_of(*values: str) -> Any:
    """A string restricted to ``values``, in the schema and in validation alike."""

    def check(value: str) -> str:
        if value not in values:
            raise ValueError(f"{value!r} is not one of {', '.join(values)}")
        return value

    return (Field(json_schema_extra={"enum": list(values)}), AfterValidator(check))


class RulesRecord(BaseModel):
    """The rules, exactly as :meth:`nimmt.Rules.to_dict` writes them."""

    model_config = _CONFIG

    preset: Annotated[str, *_one_of(*PRESETS)]
    players: Annotated[int, Field(strict=True, ge=2, le=10)]
    limit: Annotated[int, Field(strict=True, ge=1)]
    end: Annotated[str, *_one_of(*(m.value for m in EndMode))]
    rounds: Annotated[int, Field(strict=True, ge=1)] | None
    variants: list[Annotated[str, *_one_of(*VARIANTS)]]


class DealRecord(BaseModel):
    """One round's deal: four rows and one hand per seat, or (logic) only the pool."""

    model_config = _CONFIG

    rows: list[list[CardInt]]
    hands: list[list[CardInt]]
    pool: list[CardInt]


class RoundRecord(BaseModel):
    """One round: its deal, its decisions in order, and its penalties per seat.

    ``penalties`` is null while the round is still being played.
    """

    model_config = _CONFIG

    round: Annotated[int, Field(strict=True, ge=1)]
    deal: DealRecord
    decisions: list[DecisionRecord]
    penalties: list[Points] | None


class ResultRecord(BaseModel):
    """How the game ended: final totals per seat, and the winning seats."""

    model_config = _CONFIG

    totals: list[Points]
    winners: list[Seat]


class Record(BaseModel):
    """A whole game record, version 1."""

    model_config = ConfigDict(extra="forbid", frozen=True, title="nimmt game record")

    format: Literal["nimmt-record"]
    version: Literal[1]
    rules: RulesRecord
    players: list[Annotated[str, Field(min_length=1)]]
    start_scores: list[Points]
    rounds: list[RoundRecord]
    result: ResultRecord | None
    events_sha256: Annotated[str, Field(pattern=r"^[0-9a-f]{64}$")]


# -- building -------------------------------------------------------------------


def events_sha256(events: Iterable[Event]) -> str:
    """SHA-256 (hex) of the events, each as canonical JSON followed by a newline: the walk
    of the game with :class:`nimmt.walk.Checksum`, which says why."""
    return walk(events, Checksum())


def record_from_game(game: Game, players: Sequence[str] | None = None) -> Record:
    """The record of ``game`` so far, finished or not.

    ``players`` are the display names (default ``Player 1``, ``Player 2``, …).
    The game must hold its whole history: a world from
    :meth:`~nimmt.engine.Game.sample_world` starts mid-round and cannot be recorded.
    """
    rules = game.rules
    names = [f"Player {i + 1}" for i in range(rules.players)] if players is None else list(players)
    if len(names) != rules.players:
        raise ValueError(f"{rules.players} player names are needed, not {len(names)}")
    if not (len(game.round_deals) == len(game.decisions) == game.round):
        raise RecordError(
            "game", "this game does not hold its history from the first deal (a sampled world?)"
        )
    scored = {e.round: e.penalties for e in game.events if type(e) is RoundScored}
    rounds = []
    for i, (deal, decisions) in enumerate(zip(game.round_deals, game.decisions, strict=True), 1):
        penalties = scored.get(i)
        rounds.append(
            RoundRecord(
                round=i,
                deal=DealRecord(
                    rows=[list(r) for r in deal.rows],
                    hands=[list(h) for h in deal.hands],
                    pool=list(deal.pool),
                ),
                decisions=[decision_to_record(d) for d in decisions],
                penalties=None if penalties is None else list(penalties),
            )
        )
    result = (
        ResultRecord(totals=list(game.scores), winners=list(game.winners)) if game.is_over else None
    )
    return Record(
        format=FORMAT,
        version=VERSION,
        rules=RulesRecord.model_validate(rules.to_dict()),
        players=names,
        start_scores=list(game.start_scores),
        rounds=rounds,
        result=result,
        events_sha256=events_sha256(game.events),
    )


# -- JSON -----------------------------------------------------------------------


def to_json(record: Record) -> str:
    """The record as JSON text: one decision per line, short lists kept on one line.

    Any JSON layout loads; this one keeps files small and diffs readable.
    """
    return _dump(record.model_dump(mode="json"), 0) + "\n"


def _dump(value: Any, depth: int) -> str:
    if isinstance(value, dict):
        if not value:
            return "{}"
        pad = "  " * (depth + 1)
        items = [f"{pad}{json.dumps(k)}: {_dump(v, depth + 1)}" for k, v in value.items()]
        return "{\n" + ",\n".join(items) + "\n" + "  " * depth + "}"
    if isinstance(value, list):
        if all(not isinstance(v, (dict, list)) for v in value):
            return json.dumps(value, separators=(", ", ": "))
        pad = "  " * (depth + 1)
        items = [pad + _dump(v, depth + 1) for v in value]
        return "[\n" + ",\n".join(items) + "\n" + "  " * depth + "]"
    return json.dumps(value)


def save_record(record: Record, path: str | Path) -> None:
    """Write the record to ``path`` as UTF-8 JSON."""
    Path(path).write_text(to_json(record), encoding="utf-8")


def load_record(path: str | Path) -> Record:
    """Read and validate a record file (its structure; :func:`replay` verifies the game)."""
    try:
        text = Path(path).read_text(encoding="utf-8")
    except OSError as exc:
        raise RecordError("file", f"cannot read {path}: {exc.strerror or exc}") from exc
    except UnicodeDecodeError as exc:
        raise RecordError("file", f"{path} is not UTF-8 text") from exc
    return record_from_json(text)


def record_from_json(text: str) -> Record:
    """Parse and validate record JSON text."""
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise RecordError("file", f"not valid JSON: {exc}") from exc
    return record_from_dict(data)


def record_from_dict(data: Any) -> Record:
    """Validate a decoded record, refusing a wrong format or version before anything else."""
    if not isinstance(data, dict):
        raise RecordError("file", "a record is a JSON object")
    if data.get("format") != FORMAT:
        raise RecordError("format", f"not a nimmt record (format {data.get('format')!r})")
    version = data.get("version")
    if version != VERSION or type(version) is not int:
        raise RecordError(
            "version", f"version {version!r} is not supported; this nimmt reads version {VERSION}"
        )
    try:
        return Record.model_validate(data)
    except ValidationError as exc:
        error = exc.errors()[0]
        step, where = _step(error["loc"])
        reason = f"{where}: {error['msg']}" if where else error["msg"]
        raise RecordError(step, reason) from exc


def _step(loc: tuple[int | str, ...]) -> tuple[str, str]:
    """A validation error location as a record step and the place within it."""
    if len(loc) >= 2 and loc[0] == "rounds" and isinstance(loc[1], int):
        r = loc[1] + 1
        rest = loc[2:]
        if len(rest) >= 2 and rest[0] == "decisions" and isinstance(rest[1], int):
            part = rest[2:]
            if part and isinstance(part[0], int) and 0 <= part[0] < len(_DECISION_PARTS):
                part = (_DECISION_PARTS[part[0]], *part[1:])
            return f"round {r}, decision {rest[1] + 1}", _path(part)
        if rest and rest[0] in ("deal", "penalties"):
            return f"round {r}, {rest[0]}", _path(rest[1:])
        return f"round {r}", _path(rest)
    if not loc:
        return "record", ""
    return str(loc[0]), _path(loc[1:])


_DECISION_PARTS = ("kind", "seat", "value")


def _path(loc: Sequence[int | str]) -> str:
    return ".".join(str(x) for x in loc)


def record_schema() -> dict[str, Any]:
    """The JSON Schema of the record format, generated from :class:`Record`."""
    schema = Record.model_json_schema()
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        **schema,
    }


def schema_json() -> str:
    """:func:`record_schema` as the text committed in ``schemas/record.schema.json``."""
    return json.dumps(record_schema(), indent=2) + "\n"


# -- replay ---------------------------------------------------------------------


def replay(record: Record) -> Game:
    """Rebuild the game of ``record``, verifying every step; returns the game.

    The game is built from the rules, the starting scores and the deals only;
    every decision goes through the engine's own checks. Raises
    :class:`~nimmt.errors.RecordError` at the first step that does not replay
    or does not match: a bad deal, an illegal or out-of-turn decision, a
    decision after the game ended, a round cut short before later rounds,
    different penalties, a result that differs (or is missing, or is given for
    a game that is not over), a different events digest.

    A replayed unfinished game continues where the record stops; when its last
    round is over it waits for the next deal (:meth:`~nimmt.engine.Game.deal`).
    """
    if record.format != FORMAT:
        raise RecordError("format", f"not a nimmt record (format {record.format!r})")
    if record.version != VERSION:
        raise RecordError(
            "version", f"version {record.version} is not supported; this nimmt reads {VERSION}"
        )
    try:
        rules = Rules.from_dict(record.rules.model_dump())
    except RulesError as exc:
        raise RecordError("rules", str(exc)) from exc
    if len(record.players) != rules.players:
        raise RecordError(
            "players", f"{len(record.players)} names for a table of {rules.players} seats"
        )
    try:
        game = Game(rules, scores=record.start_scores)
    except RulesError as exc:
        raise RecordError("start_scores", str(exc)) from exc
    for i, rnd in enumerate(record.rounds, 1):
        _replay_round(game, i, rnd, last=i == len(record.rounds))
    _check_result(game, record)
    digest = events_sha256(game.events)
    if digest != record.events_sha256:
        raise RecordError(
            "events_sha256", f"the events hash to {digest}, not to {record.events_sha256}"
        )
    return game


def _replay_round(game: Game, i: int, rnd: RoundRecord, *, last: bool) -> None:
    if rnd.round != i:
        raise RecordError(f"round {i}", f"the round is numbered {rnd.round}, not {i}")
    if game.is_over:
        raise RecordError(f"round {i}", f"the game ended in round {game.round}; no round follows")
    if game.phase is not Phase.DEAL:
        raise RecordError(
            f"round {i - 1}",
            f"the decisions stop before the round ends ({_waiting(game)}), yet round {i} follows",
        )
    d = rnd.deal
    deal = Deal(d.rows, d.hands, d.pool)
    try:
        game.deal(deal)
    except RulesError as exc:
        raise RecordError(f"round {i}, deal", str(exc)) from exc
    first_event = len(game.events)
    for j, entry in enumerate(rnd.decisions, 1):
        step = f"round {i}, decision {j}"
        decision = decision_from_record(entry)
        kind = decision.kind.value
        if game.is_over:
            raise RecordError(step, f"the game is already over; no {kind} decision follows")
        if game.phase is Phase.DEAL:
            raise RecordError(step, f"round {i} is already over; no {kind} decision follows")
        pending = game.pending
        assert pending is not None
        if pending.kind is not decision.kind:
            raise RecordError(
                step,
                f"a {kind} decision by {seat_of(decision.player)}, but a {pending.kind.value} "
                f"decision is pending for {seats_of(pending.players)}",
            )
        try:
            game.decide(decision)
        except IllegalMove as exc:
            raise RecordError(step, str(exc)) from exc
    scored = [e for e in game.events[first_event:] if type(e) is RoundScored]
    if scored:
        got = list(scored[0].penalties)
        if rnd.penalties is None:
            raise RecordError(f"round {i}, penalties", f"missing; the round scored {got}")
        if rnd.penalties != got:
            raise RecordError(
                f"round {i}, penalties", f"the record says {rnd.penalties}, the round scored {got}"
            )
    elif rnd.penalties is not None:
        raise RecordError(
            f"round {i}, penalties",
            f"the round is not over ({_waiting(game)}), so it has no penalties yet",
        )


def _waiting(game: Game) -> str:
    pending = game.pending
    if pending is None:
        return "nothing pending"
    return f"waiting for the {pending.kind.value} decision of {seats_of(pending.players)}"



def _check_result(game: Game, record: Record) -> None:
    result = record.result
    if result is None:
        if game.is_over:
            raise RecordError("result", "missing; the game is over")
        return
    if not game.is_over:
        if not record.rounds:
            raise RecordError("result", "the record has a result but no rounds")
        last = len(record.rounds)
        if game.phase is Phase.DEAL:
            raise RecordError(
                f"round {last + 1}",
                f"missing: the record has a result, but the game goes on after round {last}",
            )
        raise RecordError(
            f"round {last}, decision {len(record.rounds[-1].decisions) + 1}",
            f"missing: the record has a result, but the game is {_waiting(game)}",
        )
    if result.totals != list(game.scores):
        raise RecordError("result", f"the totals are {list(game.scores)}, not {result.totals}")
    if result.winners != list(game.winners):
        raise RecordError("result", f"the winners are {list(game.winners)}, not {result.winners}")
