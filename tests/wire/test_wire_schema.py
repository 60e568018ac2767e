"""The wire contract: its models, the JSON Schema made from them, the parse of a frame,
the documentation's examples and the error codes."""

from __future__ import annotations

import json
import re
import typing
from pathlib import Path

import jsonschema
import pytest
from pydantic import TypeAdapter

from nimmt import wire as P

ROOT = Path(__file__).resolve().parents[2]
DOC = (ROOT / "docs" / "protocol.md").read_text()
CLIENT_TYPES = [typing.get_args(m.model_fields["type"].annotation)[0]
                for m in typing.get_args(typing.get_args(P.ClientMessage)[0])]
SERVER_TYPES = [m.model_fields["type"].default
                for m in typing.get_args(typing.get_args(P.ServerMessage)[0])]


def doc_examples() -> list[dict[str, object]]:
    blocks = re.findall(r"```json\n(.*?)```", DOC, flags=re.S)
    return [json.loads(b) for b in blocks]


def test_every_message_and_code_is_documented() -> None:
    assert len(CLIENT_TYPES) == 38 and len(SERVER_TYPES) == 17
    for t in CLIENT_TYPES + SERVER_TYPES:
        assert f"`{t}`" in DOC, t
    for code in P.ErrorCode:
        assert f"`{code}`" in DOC, code


def test_error_codes_are_declared_once_with_a_meaning() -> None:
    """The schema lists the codes of the enum, each with its description, and the ``code``
    field of ``error`` takes exactly them, as wire strings."""
    schema = P.protocol_schema()
    assert schema["error_codes"] == {c.value: c.description for c in P.ErrorCode}
    assert all(c.description for c in P.ErrorCode)
    assert schema["server"]["$defs"]["ErrorCode"]["enum"] == [c.value for c in P.ErrorCode]
    err = P.parse_server('{"type": "error", "seq": 0, "code": "no_table", "message": "m"}')
    assert isinstance(err, P.Error) and err.code is P.ErrorCode.NO_TABLE
    assert err.model_dump(mode="json")["code"] == "no_table"
    assert P.ProtocolError("no_table", "m").code is P.ErrorCode.NO_TABLE
    with pytest.raises(ValueError):
        P.ProtocolError("no_tabel", "m")


def test_doc_examples_are_valid_messages() -> None:
    examples = doc_examples()
    assert len(examples) >= 8
    client: TypeAdapter[P.ClientMessage] = TypeAdapter(P.ClientMessage)
    schema = P.protocol_schema()
    for ex in examples:
        if "seq" in ex:
            P.parse_server(json.dumps(ex))
            jsonschema.validate(ex, schema["server"])
        else:
            client.validate_python(ex)
            jsonschema.validate(ex, schema["client"])


def test_schema_rejects_what_the_models_reject() -> None:
    schema = P.protocol_schema()["client"]
    for bad in ({"type": "play_card", "card": "5"}, {"type": "fly"},
                {"type": "take_row", "row": 1, "x": 2}, {"card": 4}):
        with pytest.raises(jsonschema.ValidationError):
            jsonschema.validate(bad, schema)
        with pytest.raises(P.ProtocolError) as err:
            P.parse_client(json.dumps(bad))
        assert err.value.code == "bad_message"


@pytest.mark.parametrize(("frame", "code"), [
    ("", "bad_json"), ("nul", "bad_json"), ("42", "bad_json"), ('"x"', "bad_json"),
    ('{"type": 3}', "bad_message"), ('{"type": "chat"}', "bad_message"),
    # The parser's limits: nesting, number length, constants JSON has not, lone surrogates.
    ("[" * 1000 + "]" * 1000, "bad_message"), ('{"a": ' * 9 + "1" + "}" * 9, "bad_message"),
    ('{"type": "ping", "ref": ' + "9" * 5000 + "}", "bad_message"),
    ('{"type": "ping", "ref": NaN}', "bad_json"), ('{"type": "chat", "text": "\\ud800"}',
                                                    "bad_message"),
    (b"\xff", "bad_json"), ('"' + "[" * 100, "bad_json"),
])
def test_parse_client_errors(frame: str | bytes, code: str) -> None:
    with pytest.raises(P.ProtocolError) as err:
        P.parse_client(frame)
    assert err.value.code == code and err.value.message


def test_nesting_depth_skips_strings_and_counts_what_the_parser_would() -> None:
    assert P.nesting_depth('{"a": "[[[[{{{{", "b": [{"c": "]]]]"}]}') == 3
    assert P.nesting_depth('["\\"[[[[", [1]]') == 2  # an escaped quote does not end a string
    assert P.nesting_depth('["' + "[" * 100) == 1  # the parser stops at the open string
    frame = '{"type": "create_table", "rules": {"variants": ["open"]}}'
    assert P.nesting_depth(frame) == 3 <= P.MAX_DEPTH
    assert P.parse_client(frame).type == "create_table"
    assert P.parse_client('{"type": "ping", "ref": "[[[[[[[[[[["}').type == "ping"


@pytest.mark.parametrize("spec", ["classic", "logic", "jokers", "open+professional",
                                  "category5+open-hands"])
def test_event_payloads_are_the_engine_events(spec: str) -> None:
    """The server's unvalidated event models say exactly what event_to_dict says, and
    what they say parses back into the same models: every event as each seat and a
    spectator may know it (a hidden card is null), in whichever build runs (the
    compiled engine's classes keep no annotations to read the types from)."""
    import random

    from nimmt import Game, Rules
    from nimmt.events import event_to_dict, for_viewer
    from nimmt.randomplay import play_random
    from nimmt.wire import EventItem, event_payload

    game = Game(Rules.parse(spec, players=4), seed=3)
    play_random(game, random.Random(1))
    assert len(game.events) > 50
    seen = [for_viewer(ev, viewer) for ev in game.events for viewer in (None, 0, 1)]
    for ev in (ev for ev in seen if ev is not None):
        wire = event_payload(ev).model_dump_json()
        assert json.loads(wire) == json.loads(json.dumps(event_to_dict(ev)))
        item = EventItem.model_validate_json(f'{{"seq": 1, "kind": "event", "event": {wire}}}')
        assert item.event.model_dump_json() == wire


def test_every_event_class_has_a_model_with_its_fields() -> None:
    """One wire model per class of nimmt.events, field for field, so they cannot drift."""
    import dataclasses

    from nimmt.events import EVENT_TYPES
    from nimmt.wire import EVENT_MODELS, EventPayload

    assert set(EVENT_MODELS) == set(EVENT_TYPES.values())
    union = typing.get_args(typing.get_args(EventPayload)[0])
    assert set(union) == set(EVENT_MODELS.values())
    for name, cls in EVENT_TYPES.items():
        model = EVENT_MODELS[cls]
        assert model.model_fields["type"].default == name
        fields = [f.name for f in dataclasses.fields(cls)]
        assert [n for n in model.model_fields if n != "type"] == fields, name
        for f in dataclasses.fields(cls):
            if f.default is not dataclasses.MISSING:
                assert model.model_fields[f.name].default == f.default, (name, f.name)


def test_every_field_of_the_schema_is_described() -> None:
    """No field of either direction is an untyped object, and each says what it holds."""
    schema = P.protocol_schema()
    for side in ("client", "server"):
        for name, model in schema[side]["$defs"].items():
            assert model.get("description"), (side, name)
            for prop, spec in model.get("properties", {}).items():
                assert spec.get("description"), (side, name, prop)
                assert spec != {"type": "object"} and "additionalProperties" not in spec, (
                    side, name, prop)
    text = json.dumps(schema["server"])
    assert '"additionalProperties": true' not in text


def test_the_view_model_is_the_engine_view() -> None:
    """Every public attribute of a view goes out, and nothing else."""
    import dataclasses
    import random

    from nimmt import Game, Rules
    from nimmt.randomplay import play_random
    from nimmt.views import Table, View
    from nimmt.wire import ViewPayload, view_payload

    fields = set(ViewPayload.model_fields)
    assert fields - {"rules_name"} <= {*dir(View)}  # each one a view's attribute
    # Every public fact of the table goes out (but the draft's first picker, which the
    # narration says as it happens), and every field of the view but the table itself.
    assert {f.name for f in dataclasses.fields(Table)} - {"first_picker"} <= fields
    assert {f.name for f in dataclasses.fields(View)} - {"table"} <= fields
    game = Game(Rules.parse("classic+logic", players=3), seed=4)
    play_random(game, random.Random(2), max_decisions=40)
    for viewer in (0, 1, None):
        view = game.view(viewer)
        wire = view_payload(view).model_dump_json()
        again = ViewPayload.model_validate_json(wire)
        assert again.hand == view.hand and again.rows == view.rows
        assert again.options == view.options and again.chosen == view.chosen
        assert again.phase == view.phase.value and again.player == viewer
        assert again.rules.model_dump() == view.rules.to_dict()


def test_schema_has_the_language_and_the_narration() -> None:
    """``hello`` takes an optional ``lang``; ``events`` carries ``text``, a list of strings;
    notices carry a ``reason``; ``welcome`` says the language chosen."""
    schema = P.protocol_schema()
    defs = schema["client"]["$defs"]
    assert defs["Hello"]["properties"]["lang"]["anyOf"][0]["type"] == "string"
    assert "lang" not in defs["Hello"].get("required", [])
    server = schema["server"]["$defs"]
    assert server["Events"]["properties"]["text"]["items"] == {"type": "string"}
    assert "reason" in server["NoticeItem"]["properties"]
    assert "lang" in server["Welcome"]["properties"]
    jsonschema.validate({"type": "hello", "name": "Mila", "lang": "sr"}, schema["client"])
    # Old clients stay valid: no lang in hello, no text in events.
    jsonschema.validate({"type": "hello", "name": "Ana"}, schema["client"])
    P.parse_server('{"type": "events", "seq": 1, "items": [], "prompt": null}')
    for bad in ({"type": "hello", "name": "x", "lang": 5},
                {"type": "hello", "name": "x", "lang": ""}):
        with pytest.raises(jsonschema.ValidationError):
            jsonschema.validate(bad, schema["client"])
        with pytest.raises(P.ProtocolError) as err:
            P.parse_client(json.dumps(bad))
        assert err.value.code == "bad_message"
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate({"type": "events", "seq": 1, "items": [], "text": [3]},
                            schema["server"])


def test_the_fast_builder_makes_what_model_construct_makes() -> None:
    """wire.build skips model_construct's search for aliases and defaults; for every
    server model it must give an equal model that serializes alike (a pydantic upgrade
    that changes what a model holds fails here)."""
    from pydantic import BaseModel

    models: set[type[BaseModel]] = set()

    def collect(cls: type[BaseModel]) -> None:
        if cls in models:
            return
        models.add(cls)
        for f in cls.model_fields.values():
            for arg in [f.annotation, *typing.get_args(f.annotation)]:
                for inner in [arg, *typing.get_args(arg)]:
                    if isinstance(inner, type) and issubclass(inner, BaseModel):
                        collect(inner)

    for m in typing.get_args(typing.get_args(P.ServerMessage)[0]):
        collect(m)
    for m in P.EVENT_MODELS.values():
        collect(m)
    assert len(models) > 25
    for cls in models:
        values = {name: (f.default if not f.is_required() else None)
                  for name, f in cls.model_fields.items()}
        built = P.build(cls, dict(values))
        constructed = cls.model_construct(**values)
        assert built == constructed, cls
        assert built.model_fields_set == constructed.model_fields_set, cls
        assert built.model_dump_json() == constructed.model_dump_json(), cls
        assert P.dump(built) == built.model_dump_json(), cls


def test_the_analysis_example_of_the_docs_is_valid() -> None:
    """The example of ``GET /api/games/{id}/analysis`` in docs/advice.md is what the model
    (and so the schema in /protocol.json) describes."""
    from nimmt.wire import GameAnalysis

    doc = (ROOT / "docs" / "advice.md").read_text()
    (block,) = re.findall(r"```json\n(.*?)```", doc, flags=re.S)
    example = json.loads(block)
    GameAnalysis.model_validate(example)
    jsonschema.validate(example, P.protocol_schema()["http"]["analysis"])


def test_every_refusal_and_notice_is_said_in_every_language() -> None:
    """One voice: each error code and each notice has its sentence in the narration, and
    Serbian and Czech say every one in their own words, with no field left unfilled."""
    from nimmt.narrate import REFUSALS, narrator
    from nimmt.wire import NoticeName, NoticeReason

    # Every code has its sentence, and no sentence is keyed by anything but a code.
    assert set(REFUSALS) == set(P.ErrorCode)
    assert all(type(code) is P.ErrorCode for code in REFUSALS)
    en = narrator("en")
    reasons: list[str | None] = [None, *typing.get_args(NoticeReason)]
    for lang in ("sr", "cs"):
        speak = narrator(lang)
        for code in P.ErrorCode:
            said = speak.refusal_sentence(code)
            assert said != en.refusal_sentence(code), (lang, code)
        for notice in typing.get_args(NoticeName):
            for reason in reasons:
                for you in (False, True):
                    said = speak.notice_sentence(notice, reason, "Ana", 1, you=you, game_no=2)
                    english = en.notice_sentence(notice, reason, "Ana", 1, you=you, game_no=2)
                    assert "{" not in said and said != english, (lang, notice, reason, you)
                    assert said != speak.notice_sentence("?"), (lang, notice, reason)


def test_the_decision_codec_names_the_protocol_messages() -> None:
    """Each kind's codec makes the client message the server reads as that kind, and the
    dict form of the decision reads back: one table of names for every channel."""
    from nimmt.decisions import (
        CODECS,
        DecisionKind,
        decision_from_dict,
        decision_message,
        decision_to_dict,
    )

    assert set(CODECS) == set(DecisionKind)
    for codec in CODECS.values():
        msg = P.parse_client(json.dumps(decision_message(codec.kind.value, 3)))
        made = P.decision(msg, seat=1)
        assert made == codec.type(1, 3) and made.kind is codec.kind
        assert decision_from_dict(decision_to_dict(made)) == made
