"""What every wire model shares: the base of the payloads, the bounded scalars a client may
send, and the two cheap paths a server takes with trusted data (:func:`build`, :func:`dump`).

The server's data is trusted (it comes from the engine), so it makes models without
validation and keeps the engine's tuples as they are (serialized as JSON arrays); the
models validate only what a client parses.
"""

from __future__ import annotations

from typing import Annotated, Any, TypeAlias, TypeVar

from pydantic import MISSING, BaseModel, ConfigDict, Field

__all__ = ["Card", "Code", "Name", "Password", "Payload", "Ref", "SeatNo", "build", "changes",
           "dump", "merged"]

#: A payload's fields are its JSON Schema's; each field's docstring is its description.
PAYLOAD = ConfigDict(extra="forbid", use_attribute_docstrings=True)
#: A client message's: strict, so ``"55"`` is no card (every field is described).
STRICT = ConfigDict(extra="forbid", strict=True, use_attribute_docstrings=True)

M = TypeVar("M", bound=BaseModel)
C = TypeVar("C", bound=BaseModel)


class Payload(BaseModel):
    """The base of what server messages carry (views, events, prompts, stream items)."""

    model_config = PAYLOAD


#: A card as a client may send one (jokers as −10..−1): bounded and strict, checked at the
#: trust boundary (the engine's :data:`nimmt.cards.Card` is a plain ``int``).
Card: TypeAlias = Annotated[int, Field(strict=True, ge=-10, le=104)]
Ref: TypeAlias = Annotated[str, Field(max_length=64)] | Annotated[int, Field(strict=True)] | None
Code: TypeAlias = Annotated[str, Field(min_length=1, max_length=16)]
Name: TypeAlias = Annotated[str, Field(min_length=1, max_length=64)]
SeatNo: TypeAlias = Annotated[int, Field(strict=True, ge=0, le=9)]
#: A password as sent (the server's own bounds, ``password_min`` and ``password_max``, are
#: checked after it is read: ``weak_password``).
Password: TypeAlias = Annotated[str, Field(min_length=1, max_length=1024)]


_setattr = object.__setattr__
_new = object.__new__
_FIELDS: dict[type[BaseModel], frozenset[str]] = {}


def build(cls: type[M], values: dict[str, Any]) -> M:
    """An instance of model ``cls`` holding ``values``, which name every field: trusted data,
    not validated.

    ``model_construct`` does the same but looks for aliases and defaults field by field,
    which costs three times as much; a table builds a dozen models per decision. This
    sets what ``model_construct`` sets (tests/wire/test_wire_schema.py checks that both
    give equal models for every model of the wire, so a pydantic upgrade that changes
    them is caught)."""
    m = _new(cls)
    _setattr(m, "__dict__", values)
    fields = _FIELDS.get(cls)
    if fields is None:
        fields = _FIELDS[cls] = frozenset(cls.model_fields)
    # Every field is set, so every instance of a class shares one (frozen) set of names.
    _setattr(m, "__pydantic_fields_set__", fields)
    _setattr(m, "__pydantic_extra__", None)
    _setattr(m, "__pydantic_private__", None)
    return m


def dump(model: BaseModel) -> str:
    """``model`` as JSON text: what ``model_dump_json()`` gives with its defaults, without
    the cost of going through its keyword arguments on every frame."""
    text: str = type(model).__pydantic_serializer__.to_json(model).decode()
    return text


def changes(now: BaseModel, before: BaseModel | None, change: type[C]) -> C:
    """The ``change`` model (the fields of ``now``'s model, each ``MISSING`` by default) of
    what differs in ``now`` from ``before`` (what the reader holds; None: nothing, so every
    field), unvalidated. What a table keeps unchanged is nearly always the very same
    object, so most fields are told apart by identity."""
    values = now.__dict__
    if before is None:
        return build(change, dict(values))
    was = before.__dict__
    return build(change, {name: MISSING if value is was[name] or value == was[name] else value
                          for name, value in values.items()})


def merged(held: M | None, change: BaseModel, whole: type[M]) -> M:
    """``held`` (the model a client holds; None: none yet) with ``change`` (of
    :func:`changes`) merged in: the one the server holds for that client. A change that
    leaves out a field of a client with nothing held is refused (``ValueError``). Both
    were validated as they were parsed, so the merge is not validated again."""
    values = {} if held is None else dict(held.__dict__)
    for name in whole.model_fields:
        value = getattr(change, name)
        if value is not MISSING:
            values[name] = value
    missing = [name for name in whole.model_fields if name not in values]
    if missing:
        raise ValueError(f"a change without a {whole.__name__} to merge into lacks {missing}")
    return build(whole, values)
