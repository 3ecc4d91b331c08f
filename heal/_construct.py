"""Building pydantic models from values heal made itself, without validating them again.

Validation is what keeps bad input out, and every model built from the caller's data goes
through it. But a healed history can need one new part, message and repair record per broken
turn (a long agent run whose every tool call lost its result), and re-validating values heal
just built is most of that cost: ``Repair(...)`` takes about 7 µs, pydantic's own
``model_construct`` about 9 µs (it resolves aliases and defaults per call), this about 2 µs.

The result is exactly what validation would produce (``tests/test_construct.py`` compares the two
for every model built this way): the field values, the defaults of fields not given, the set of
fields given (``exclude_unset`` dumps depend on it) and pydantic's empty extras.
"""

from __future__ import annotations

from typing import Any, TypeVar

from pydantic import BaseModel
from pydantic_core import PydanticUndefined

M = TypeVar("M", bound=BaseModel)

_Layout = tuple[dict[str, Any], bool]
_LAYOUTS: dict[type[BaseModel], _Layout] = {}

# A model's four slots, set through BaseModel's own slot descriptors: about a third of the
# cost of ``object.__setattr__``, which looks each name up on the class first. A history loaded
# or healed for a repair builds a few models per message.
new_instance = object.__new__
set_dict = BaseModel.__dict__["__dict__"].__set__
set_fields = BaseModel.__dict__["__pydantic_fields_set__"].__set__
set_extra = BaseModel.__dict__["__pydantic_extra__"].__set__
set_private = BaseModel.__dict__["__pydantic_private__"].__set__
_REQUIRED: Any = object()
"""Stands for a required field's value in a layout's template; every caller replaces it."""


def _layout(cls: type[BaseModel]) -> _Layout:
    """Every field in order with its default (required ones: ``_REQUIRED``), and whether the
    model keeps extra fields."""
    found = _LAYOUTS.get(cls)
    if found is None:
        template: dict[str, Any] = {}
        for name, field in cls.model_fields.items():
            if field.default_factory is not None:  # pragma: no cover - no heal model has one
                raise TypeError(f"{cls.__name__}.{name} has a default factory")
            template[name] = _REQUIRED if field.is_required() else field.default
        if not cls.model_config.get("frozen"):  # pragma: no cover - every heal model is
            raise TypeError(f"{cls.__name__} is not frozen: its fields set cannot be shared")
        found = _LAYOUTS[cls] = (template, cls.model_config.get("extra") == "allow")
    return found


def construct_trusted(cls: type[M], fields_set: set[str], values: dict[str, Any]) -> M:
    """An instance of ``cls`` holding ``values`` (already valid, by field name), with every
    other field at its default, and ``fields_set`` as the fields counted as set.

    ``values`` must name every required field and hold values of the declared types; nothing
    checks that here, so use it only for values heal built from validated ones.

    ``fields_set`` is stored as it is, so callers pass one set for every instance of a shape: a
    set of ten names takes about 700 bytes, more than the rest of a record. Sharing is safe
    because ``cls`` must be frozen: pydantic changes an instance's set only on assignment,
    which a frozen model refuses first, and ``model_copy`` copies the set before changing it.
    """
    template, extra = _layout(cls)
    # The template holds every field in order, so updating a copy keeps validation's order
    # (dumps follow it).
    data = template.copy()
    data.update(values)
    obj = new_instance(cls)
    set_dict(obj, data)
    set_fields(obj, fields_set)
    set_extra(obj, {} if extra else None)
    set_private(obj, None)
    return obj


def construct_complete(cls: type[M], fields_set: set[str], values: dict[str, Any]) -> M:
    """:func:`construct_trusted` for ``values`` that name every field of ``cls`` in the order
    the class declares them (dumps follow that order), as the engine builds each repair record
    and the adapters the messages they load (``tests/test_construct.py`` and
    ``tests/adapters/test_partial_conversion.py`` check that they do).

    ``values`` becomes the instance's ``__dict__`` as it is, so the caller must not keep or
    reuse it, and ``fields_set`` is shared as :func:`construct_trusted` shares it. Nothing is
    checked per call: a history with a repair in every turn makes thousands of records."""
    layout = _LAYOUTS.get(cls) or _layout(cls)
    obj = new_instance(cls)
    set_dict(obj, values)
    set_fields(obj, fields_set)
    set_extra(obj, {} if layout[1] else None)
    set_private(obj, None)
    return obj


def construct_message(cls: type[M], fields_set: set[str], values: dict[str, Any]) -> M:
    """:func:`construct_complete` for a class of :mod:`heal.messages`, every one of which keeps
    extra fields (``extra="allow"``, which ``tests/test_construct.py`` holds): its extras are
    empty, without the look-up of the class's layout. The adapters build each message, part
    and output of a history that needs a repair this way (a few models a message), and the
    look-up was an eighth of each."""
    obj = new_instance(cls)
    set_dict(obj, values)
    set_fields(obj, fields_set)
    set_extra(obj, {})
    set_private(obj, None)
    return obj


_COPY_AS_IS: dict[type[BaseModel], frozenset[str]] = {}
"""The classes :func:`replaced` copies itself (heal's own frozen models, once seen), with the
names of their fields."""


def replaced(model: M, update: dict[str, Any]) -> M:
    """``model.model_copy(update=update)``, exactly, at about a fifth of its cost.

    Every repair that mends a field (a renamed id, a parsed input, stripped provider options)
    copies one part, and a history with a repair in every turn makes thousands of them: pydantic's
    copy goes through ``copy.copy`` three times and a generic update loop. ``update`` must name
    declared fields only (as every rule's does); the copy gets its own ``__dict__`` and extras,
    and the fields set grows by the names updated, as pydantic's does. The set is shared with
    ``model`` when it already holds them, as :func:`construct_trusted` shares it (the class is
    frozen). A subclass of a heal model, or any other model, is copied by pydantic.
    """
    cls = type(model)
    names = _COPY_AS_IS.get(cls)
    if names is None:
        if cls.__module__ != "heal.messages" or not cls.model_config.get("frozen"):
            return model.model_copy(update=update)
        names = _COPY_AS_IS[cls] = frozenset(cls.__pydantic_fields__)
    if not names.issuperset(update):  # an extra or unknown name: pydantic's rules apply
        return model.model_copy(update=update)
    new = new_instance(cls)
    set_dict(new, {**model.__dict__, **update})
    extra = model.__pydantic_extra__
    set_extra(new, None if extra is None else extra.copy())
    fields_set = model.__pydantic_fields_set__
    set_fields(new, fields_set if fields_set.issuperset(update) else fields_set | update.keys())
    set_private(new, None)
    return new


def copied(model: M, update: dict[str, Any]) -> M:
    """``model.model_copy(update=update)``, exactly, for any pydantic model whose copy is
    pydantic's own (a caller's message, such as LangChain's, that the adapters copy with new
    ids): its own ``__dict__``, extras, fields set (grown by the names updated) and private
    values less the unset ones, as pydantic's ``__copy__`` makes them, without its
    ``copy.copy`` calls. ``update`` must name declared fields only; anything else (an extra
    name, a class with its own copy) is copied by pydantic."""
    cls = type(model)
    names = _COPIED.get(cls)
    if names is None:
        own = cls.__copy__ is not _PYDANTIC_COPY or cls.model_copy is not _PYDANTIC_MODEL_COPY
        names = _COPIED[cls] = frozenset() if own else frozenset(cls.__pydantic_fields__)
    if not update or not names.issuperset(update):  # no names: the class copies itself
        return model.model_copy(update=update)
    new = new_instance(cls)
    set_dict(new, {**model.__dict__, **update})
    extra = model.__pydantic_extra__
    set_extra(new, None if extra is None else extra.copy())
    set_fields(new, model.__pydantic_fields_set__ | update.keys())
    private = model.__pydantic_private__
    set_private(
        new,
        None
        if private is None
        else {k: v for k, v in private.items() if v is not PydanticUndefined},
    )
    return new


_COPIED: dict[type[BaseModel], frozenset[str]] = {}
"""The classes :func:`copied` has seen, with the names of their fields when their copy is
pydantic's own (else none: pydantic copies them)."""
_PYDANTIC_COPY = BaseModel.__copy__
_PYDANTIC_MODEL_COPY = BaseModel.model_copy


def with_field(model: M, name: str, value: Any) -> M:
    """``replaced(model, {name: value})``, for one field, without the dict: every renamed id
    copies its part, and every message holding one."""
    cls = type(model)
    names = _COPY_AS_IS.get(cls)
    if names is None or name not in names:
        return replaced(model, {name: value})
    data = model.__dict__.copy()  # ``name`` keeps its place, as in ``replaced``'s merge
    data[name] = value
    new = new_instance(cls)
    set_dict(new, data)
    extra = model.__pydantic_extra__
    set_extra(new, None if extra is None else extra.copy())
    fields_set = model.__pydantic_fields_set__
    set_fields(new, fields_set if name in fields_set else fields_set | {name})
    set_private(new, None)
    return new


def cleared(model: M, name: str) -> M:
    """A copy of ``model`` with the optional field ``name`` back to None and no longer counted
    as set, so it dumps as absent (``exclude_unset``), not as null.

    The copy gets a fields set of its own: :func:`replaced` may share the original's, which
    must never change (it belongs to the caller's history)."""
    new = replaced(model, {name: None})
    set_fields(new, new.__pydantic_fields_set__ - {name})
    return new
