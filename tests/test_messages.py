"""The canonical model: lossless load/dump and readable errors for bad input."""

from __future__ import annotations

import json
from typing import Any

import pytest

from heal import InputError, dump_messages, heal_messages, load_messages, validate_messages
from heal.messages import TextPart, ToolCallPart, UserMessage

HISTORY: list[dict[str, Any]] = [
    {
        "role": "system",
        "content": "be brief",
        "providerOptions": {"anthropic": {"cacheControl": {"type": "ephemeral"}}},
    },
    {
        "role": "user",
        "content": [
            {"type": "text", "text": "hi", "customField": [1, 2]},
            {"type": "image", "image": "https://example.com/a.png"},
        ],
    },
    {
        "role": "assistant",
        "content": [
            {
                "type": "reasoning",
                "text": "",
                "providerOptions": {"anthropic": {"signature": "sig"}},
            },
            {"type": "tool-call", "toolCallId": "c1", "toolName": "f", "input": {"a": None}},
        ],
        "id": "msg_1",
    },
    {
        "role": "tool",
        "content": [
            {
                "type": "tool-result",
                "toolCallId": "c1",
                "toolName": "f",
                "output": {"type": "content", "value": [{"type": "text", "text": "x"}]},
            }
        ],
    },
    {"role": "assistant", "content": "done", "metadata": {"createdAt": "2026-01-01"}},
]


def test_round_trip_keeps_strings_absent_fields_and_unknown_fields() -> None:
    assert dump_messages(load_messages(HISTORY)) == HISTORY
    assert dump_messages(load_messages(json.dumps(HISTORY))) == HISTORY
    assert dump_messages(load_messages(json.dumps(HISTORY).encode())) == HISTORY


def test_models_pass_through_as_the_same_objects() -> None:
    models = load_messages(HISTORY)
    again = load_messages(models)
    assert all(a is b for a, b in zip(models, again, strict=False))
    result = heal_messages(models)
    assert result.repairs == ()
    assert all(a is b for a, b in zip(models, result.messages, strict=False))


def test_python_constructed_models_dump_their_discriminators() -> None:
    message = UserMessage(content=[TextPart(text="hi")])
    assert dump_messages([message]) == [
        {"role": "user", "content": [{"type": "text", "text": "hi"}]}
    ]
    call = ToolCallPart(tool_call_id="c", tool_name="f", input={})
    assert call.model_dump(mode="json", exclude_unset=True) == {
        "type": "tool-call",
        "toolCallId": "c",
        "toolName": "f",
        "input": {},
    }


def test_loading_does_not_run_the_models_init() -> None:
    # Pydantic runs a model's own __init__ for every object it validates unless the function is
    # marked as a base init; heal's __init__ (which only marks discriminators as set) carries
    # that mark, so loading validates each message and part once, in pydantic-core alone.
    import heal.messages as models

    classes = [
        cls
        for cls in vars(models).values()
        if isinstance(cls, type) and issubclass(cls, models._Model) and cls is not models._Model
    ]
    assert len(classes) >= 18
    assert [cls.__name__ for cls in classes if cls.__pydantic_custom_init__] == []


@pytest.mark.parametrize(
    "text",
    [
        '[{"role": "user", "content": "a\\ud800b"}]',  # pydantic-core's parser refuses this
        '\ufeff[{"role": "user", "content": "a"}]',
    ],
    ids=["lone-surrogate-escape", "byte-order-mark"],
)
def test_json_text_the_fast_parser_refuses_takes_the_exact_path(text: str) -> None:
    try:
        expected: Any = dump_messages(load_messages(json.loads(text)))
    except ValueError as exc:
        expected = type(exc)
    try:
        got: Any = dump_messages(load_messages(text))
    except InputError as exc:
        got = type(exc)
        assert "not valid JSON" in str(exc)
    assert got == (InputError if expected is json.JSONDecodeError else expected)


@pytest.mark.parametrize(
    ("data", "path", "message"),
    [
        ([None], "messages[0]", "expected a message object, got null"),
        ([{"role": "user", "content": None}], "messages[0].content", "content is null"),
        (
            [{"role": "tool", "content": "x"}],
            "messages[0].content",
            "must be a list of parts, got a string",
        ),
        (
            [{"role": "assistant", "content": [{"type": "tool-call", "toolName": "f"}]}],
            "messages[0].content[0]",
            "tool-call part has no toolCallId",
        ),
        ([{"content": "x"}], "messages[0]", "message has no role"),
        ([{"role": "robot", "content": "x"}], "messages[0].role", "unknown role 'robot'"),
        ([{"role": "user"}], "messages[0]", "user message has no content"),
        (
            [
                {
                    "role": "user",
                    "content": [{"type": "tool-call", "toolCallId": "c", "toolName": "f"}],
                }
            ],
            "messages[0].content[0].type",
            "not allowed in a user message",
        ),
        (
            [{"role": "user", "content": "ok"}, {"role": "assistant", "content": [{"text": "x"}]}],
            "messages[1].content[0]",
            "part has no type",
        ),
        (
            [
                {
                    "role": "tool",
                    "content": [
                        {
                            "type": "tool-result",
                            "toolCallId": "c",
                            "toolName": "f",
                            "output": {"type": "nope"},
                        }
                    ],
                }
            ],
            "messages[0].content[0].output.type",
            "unknown tool output type 'nope'",
        ),
        (
            [
                {
                    "role": "assistant",
                    "content": [{"type": "tool-call", "toolCallId": 5, "toolName": "f"}],
                }
            ],
            "messages[0].content[0].toolCallId",
            "wrong type (a number)",
        ),
        ({"messages": []}, "messages", "did you mean its 'messages' field?"),
        ("{not json", "messages", "not valid JSON"),
        (42, "messages", "expected a list of messages, got a number"),
    ],
)
def test_bad_input_names_the_place(data: Any, path: str, message: str) -> None:
    with pytest.raises(InputError) as info:
        heal_messages(data)
    assert info.value.path == path
    assert str(info.value).startswith(f"{path}: ")
    assert message in str(info.value)
    assert isinstance(info.value, ValueError)
    with pytest.raises(InputError):
        validate_messages(data)


def test_tool_message_string_content_does_not_lose_data() -> None:
    data = [{"role": "tool", "content": "raw"}]
    with pytest.raises(InputError):
        load_messages(data)
    assert data == [{"role": "tool", "content": "raw"}]
