"""heal builds the parts, messages and records it adds without validating them again
(:mod:`heal._construct`); what it builds must be exactly what validation would have made."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from langchain_core.messages import AIMessage
from langchain_core.messages import ToolMessage as LcToolMessage
from pydantic import BaseModel, ConfigDict, PrivateAttr, ValidationError

from heal import Action, Repair, heal_messages, messages
from heal._construct import construct_message, construct_trusted, copied, replaced, with_field
from heal.messages import (
    ErrorTextOutput,
    ModelMessage,
    TextPart,
    ToolCallPart,
    ToolMessage,
    ToolResultPart,
)
from heal.repairs import Scope
from tests.strategies import histories

_PART = ToolResultPart(
    tool_call_id="c1",
    tool_name="run",
    output=ErrorTextOutput(value="unavailable"),
    provider_options={"heal": {"synthesized": True}},
)

CASES: list[tuple[type[BaseModel], set[str], dict[str, Any]]] = [
    (
        ToolResultPart,
        {"type", "tool_call_id", "tool_name", "output", "provider_options"},
        {
            "tool_call_id": "c1",
            "tool_name": "run",
            "output": ErrorTextOutput(value="unavailable"),
            "provider_options": {"heal": {"synthesized": True}},
        },
    ),
    (ToolMessage, {"role", "content"}, {"content": (_PART,)}),
    (TextPart, {"type", "text"}, {"text": "hi"}),
    (
        Repair,
        set(Repair.model_fields),
        {
            "rule": "orphan-tool-call",
            "action": Action.INSERT,
            "message_index": None,
            "part_index": None,
            "anchor_index": 3,
            "tool_call_id": "c1",
            "reason": "no result",
            "removed": None,
            "added": {"type": "tool-result", "toolCallId": "c1"},
            "scope": Scope.HISTORY,
        },
    ),
]


@pytest.mark.parametrize(("cls", "fields_set", "values"), CASES, ids=lambda c: str(c)[:30])
def test_trusted_construction_equals_validation(
    cls: type[BaseModel], fields_set: set[str], values: dict[str, Any]
) -> None:
    built = construct_trusted(cls, set(fields_set), values)
    validated = cls(**values)
    assert built == validated
    assert list(built.__dict__) == list(validated.__dict__)  # dumps follow this order
    assert built.model_dump(exclude_unset=True) == validated.model_dump(exclude_unset=True)
    assert built.model_dump(mode="json") == validated.model_dump(mode="json")
    assert built.__pydantic_fields_set__ == validated.__pydantic_fields_set__
    assert built.__pydantic_extra__ == validated.__pydantic_extra__
    assert cls.model_validate(built.model_dump()) == built


def test_every_message_class_keeps_extras() -> None:
    """construct_message gives every model of heal.messages empty extras, as validation does
    for a class that keeps them (and would not for one that ignores them)."""
    classes = [
        cls
        for cls in vars(messages).values()
        if isinstance(cls, type)
        and issubclass(cls, BaseModel)
        and cls.__module__ == messages.__name__
    ]
    assert len(classes) > 15
    for cls in classes:
        assert cls.model_config.get("extra") == "allow", cls
    text = construct_message(
        TextPart, {"type", "text"}, {"type": "text", "text": "hi", "provider_options": None}
    )
    assert text == TextPart(text="hi") and text.__pydantic_extra__ == {}


def test_a_trusted_model_copies_like_a_validated_one() -> None:
    built = construct_trusted(ToolMessage, {"role", "content"}, {"content": (_PART,)})
    copy = built.model_copy(update={"provider_options": {"x": {"y": 1}}})
    assert "provider_options" in copy.__pydantic_fields_set__
    assert "provider_options" not in built.__pydantic_fields_set__
    assert built.provider_options is None


def test_instances_sharing_a_fields_set_stay_independent() -> None:
    shared = {"role", "content"}
    one = construct_trusted(ToolMessage, shared, {"content": (_PART,)})
    two = construct_trusted(ToolMessage, shared, {"content": (_PART,)})
    with pytest.raises(ValidationError, match="frozen"):
        one.provider_options = {"x": {}}  # type: ignore[misc]
    with pytest.raises(ValidationError, match="frozen"):
        one.custom = 1  # type: ignore[attr-defined]
    copy = one.model_copy(update={"provider_options": {"x": {}}})
    assert shared == {"role", "content"}
    assert "provider_options" in copy.model_fields_set
    assert two.model_fields_set == {"role", "content"}


def test_built_in_repairs_are_valid_repairs() -> None:
    """The engine builds built-in rules' records unvalidated: each must survive validation."""
    broken = [
        {"role": "user", "content": "go"},
        {
            "role": "assistant",
            "content": [
                {"type": "tool-call", "toolCallId": "a b", "toolName": "x y", "input": "{"},
                {"type": "text", "text": "  "},
            ],
        },
        {
            "role": "tool",
            "content": [
                {
                    "type": "tool-result",
                    "toolCallId": "zz",
                    "toolName": "f",
                    "output": {"type": "text", "value": "\ud83d"},
                }
            ],
        },
    ]
    repairs = heal_messages(broken, provider="anthropic").repairs
    assert len(repairs) >= 4
    for repair in repairs:
        assert Repair.model_validate(repair.model_dump()) == repair


def _same_copy(fast: BaseModel, slow: BaseModel) -> None:
    assert type(fast) is type(slow)
    assert fast.__dict__ == slow.__dict__
    assert list(fast.__dict__) == list(slow.__dict__)  # dumps follow this order
    assert fast.__pydantic_fields_set__ == slow.__pydantic_fields_set__
    assert fast.__pydantic_extra__ == slow.__pydantic_extra__
    assert fast.__pydantic_private__ == slow.__pydantic_private__
    # A dump is made of these, so the dumps are equal too (the values drawn below need not be
    # of the field's type: a rule's update is not validated either, so they are not dumped).


@given(histories(), st.data())
def test_replaced_copies_exactly_as_model_copy(history: list[Any], data: st.DataObject) -> None:
    """Every message and part of any history, any of its declared fields replaced (the rules'
    edits): the fast copy is pydantic's, field for field, and leaves the original as it was."""
    from heal import load_messages

    for model in (
        item
        for message in load_messages(history)
        for item in (message, *(() if isinstance(message.content, str) else message.content))
    ):
        names = sorted(type(model).model_fields)
        chosen = data.draw(st.lists(st.sampled_from(names), max_size=3, unique=True))
        update = {name: data.draw(st.sampled_from((None, "x", 1, {"a": [1]}))) for name in chosen}
        before = dict(model.__dict__)
        fields_before = set(model.__pydantic_fields_set__)
        _same_copy(replaced(model, update), model.model_copy(update=update))
        for name, value in update.items():  # one field: with_field, as the renames copy
            _same_copy(with_field(model, name, value), model.model_copy(update={name: value}))
        assert model.__dict__ == before
        assert model.__pydantic_fields_set__ == fields_before


def test_replaced_leaves_other_models_to_pydantic() -> None:
    """A subclass of a heal model may copy otherwise, an unknown name goes to pydantic's rules
    for extras: both take pydantic's own copy."""

    class Traced(ToolCallPart):
        pass

    call = Traced(tool_call_id="c1", tool_name="run", input={})
    _same_copy(
        replaced(call, {"tool_call_id": "c2"}), call.model_copy(update={"tool_call_id": "c2"})
    )
    message: ModelMessage = ToolMessage(content=(_PART,))
    _same_copy(replaced(message, {"extra_field": 1}), message.model_copy(update={"extra_field": 1}))
    _same_copy(
        with_field(call, "tool_call_id", "c2"), call.model_copy(update={"tool_call_id": "c2"})
    )
    _same_copy(with_field(message, "extra_field", 1), message.model_copy(update={"extra_field": 1}))


def test_a_cleared_field_leaves_the_original_as_it_was() -> None:
    """Clearing a field takes it out of the copy's fields set only: the set :func:`replaced`
    shares with the original (the caller's part) must not change."""
    from heal._construct import cleared

    part = TextPart(text="hi", provider_options={"x": {"y": 1}})
    copy = cleared(part, "provider_options")
    assert copy.provider_options is None
    assert copy.model_dump(exclude_unset=True) == {"type": "text", "text": "hi"}
    assert part.model_fields_set == {"type", "text", "provider_options"}
    assert part.provider_options == {"x": {"y": 1}}


def test_the_engine_builds_records_as_validation_would() -> None:
    """The engine hands each record's values to ``construct_complete`` as they are: they must
    name every field, in declared order (dumps follow it)."""
    history = [
        {"role": "user", "content": "go"},
        {
            "role": "assistant",
            "content": [{"type": "tool-call", "toolCallId": "a.b", "toolName": "f", "input": {}}],
        },
    ]
    for repair in heal_messages(history).repairs:
        assert list(repair.__dict__) == list(Repair.model_fields)
        validated = Repair(**repair.__dict__)
        assert repair == validated
        assert repair.model_dump(mode="json") == validated.model_dump(mode="json")
        assert repair.__pydantic_extra__ == validated.__pydantic_extra__


class _Private(BaseModel):
    """A model with private values, one of them never set."""

    model_config = ConfigDict(extra="allow")
    name: str
    size: int = 0
    _seen: int = PrivateAttr(default=1)
    _unset: str = PrivateAttr()


class _OwnCopy(BaseModel):
    """A model whose copy is its own: copied leaves it to pydantic's model_copy."""

    name: str
    copies: int = 0

    def __copy__(self) -> _OwnCopy:
        return type(self)(name=self.name, copies=self.copies + 1)


class _OwnModelCopy(BaseModel):
    """A model whose model_copy is its own (it marks every copy)."""

    name: str
    marked: bool = False

    def model_copy(
        self, *, update: Mapping[str, Any] | None = None, deep: bool = False
    ) -> _OwnModelCopy:
        return super().model_copy(update={**(update or {}), "marked": True}, deep=deep)


def _state(model: BaseModel) -> tuple[Any, ...]:
    return (
        type(model),
        list(model.__dict__.items()),
        model.__pydantic_fields_set__,
        model.__pydantic_extra__,
        model.__pydantic_private__,
    )


@pytest.mark.parametrize(
    ("model", "update"),
    [
        (AIMessage("hi", id="m1"), {"content": "hello"}),
        (
            AIMessage("", tool_calls=[{"id": "a:1", "name": "f", "args": {}}], custom="kept"),
            {"tool_calls": [{"id": "a_1", "name": "f", "args": {}, "type": "tool_call"}]},
        ),
        (LcToolMessage("ok", tool_call_id="a:1"), {"tool_call_id": "a_1"}),
        (_Private(name="x", other=[1]), {"size": 2}),
        (_Private(name="x"), {"other": 3}),  # an extra name: pydantic's own rules
        (_OwnCopy(name="x"), {"name": "y"}),
        (_OwnModelCopy(name="x"), {"name": "y"}),
        (_OwnCopy(name="x"), {}),  # nothing to update: still its own copy
        (_OwnModelCopy(name="x"), {}),
        (LcToolMessage("ok", tool_call_id="a:1"), {}),
    ],
    ids=[
        "AI text",
        "AI calls, an extra field",
        "tool",
        "private values",
        "extra name",
        "own copy",
        "own model_copy",
        "own copy, no update",
        "own model_copy, no update",
        "tool, no update",
    ],
)
def test_copied_copies_exactly_as_model_copy(model: BaseModel, update: dict[str, Any]) -> None:
    """copied is model_copy(update=...) for any pydantic model: the same values in the same
    order, fields set, extras and private values (the unset one left out), each its own."""
    expected = model.model_copy(update=update)
    got = copied(model, update)
    assert _state(got) == _state(expected)
    assert got.__dict__ is not model.__dict__
    assert got.__pydantic_fields_set__ is not model.__pydantic_fields_set__
    if model.__pydantic_extra__:
        assert got.__pydantic_extra__ is not model.__pydantic_extra__
    if model.__pydantic_private__:
        assert got.__pydantic_private__ is not model.__pydantic_private__
