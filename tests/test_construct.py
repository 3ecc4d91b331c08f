"""heal builds the parts, messages and records it adds without validating them again
(:mod:`heal._construct`); what it builds must be exactly what validation would have made."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import BaseModel, ValidationError

from heal import Action, Repair, heal_messages
from heal._construct import construct_trusted
from heal.messages import ErrorTextOutput, TextPart, ToolMessage, ToolResultPart
from heal.repairs import Scope

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
