"""The OpenAI Chat Completions adapter: lossless round trips, SDK-valid output, native repairs."""

from __future__ import annotations

import copy
import json
from collections.abc import Iterable
from typing import Any
from unittest import mock

import pydantic
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from openai.types.chat import ChatCompletionMessageParam

import heal
from heal import Action, InputError, validate_messages
from heal._verdict import plain_input
from heal.adapters import openai_chat
from heal.adapters.openai_chat import (
    UNKNOWN_TOOL_NAME,
    dump_messages,
    heal_openai_chat,
    load,
    load_messages,
)
from heal.messages import ReasoningPart, SystemMessage, ToolCallPart, ToolMessage, ToolResultPart

from .strategies_openai_chat import histories, valid_histories

SDK = pydantic.TypeAdapter(list[ChatCompletionMessageParam])
PROPERTY = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def sdk_validate(messages: list[dict[str, Any]]) -> None:
    """Validate against the SDK's request types, forcing its lazily validated iterables."""

    def force(value: Any) -> Any:
        if isinstance(value, dict):
            return {k: force(v) for k, v in value.items()}
        if isinstance(value, (str, bytes, pydantic.BaseModel)):
            return value
        if isinstance(value, Iterable):
            return [force(v) for v in value]
        return value

    force(SDK.validate_python(messages))


def _assert_nothing_left_to_fix(history: Any) -> None:
    # Findings no edit can fix (Action.REPORT, such as a tool loop whose thinking was lost) stay
    # for the caller; every other finding must be gone after healing.
    issues = validate_messages(load_messages(history), provider="openai-chat").issues
    assert all(issue.action is Action.REPORT for issue in issues), [i.describe() for i in issues]


# --- round trips -----------------------------------------------------------------------------


@PROPERTY
@given(histories(sdk=False))
def test_round_trip_is_lossless(native: list[dict[str, Any]]) -> None:
    before = copy.deepcopy(native)
    loaded = load(native)
    assert native == before, "load mutated its input"
    assert len(loaded.origins) == len(loaded.messages)
    assert dump_messages(loaded.messages) == native
    # Stored as AI SDK JSON (heal.dump_messages) and read back: nothing native is lost.
    stored = json.loads(json.dumps(heal.dump_messages(loaded.messages)))
    assert dump_messages(heal.load_messages(stored)) == native


@PROPERTY
@given(histories(sdk=True))
def test_dumped_histories_validate_against_the_sdk(native: list[dict[str, Any]]) -> None:
    sdk_validate(native)  # the strategy itself draws SDK-valid requests
    out = dump_messages(load_messages(native))
    assert out == native
    sdk_validate(out)


@PROPERTY
@given(histories(sdk=True))
def test_healed_histories_are_valid_and_sdk_valid(native: list[dict[str, Any]]) -> None:
    result = heal_openai_chat(native)
    sdk_validate(result.messages)
    _assert_nothing_left_to_fix(result.messages)
    for repair in result.repairs:
        assert repair.message_index is None or 0 <= repair.message_index < len(native)
        assert repair.anchor_index is None or 0 <= repair.anchor_index < len(native)


@PROPERTY
@given(valid_histories())
def test_valid_history_comes_back_identical(native: list[dict[str, Any]]) -> None:
    result = heal_openai_chat(native)
    assert result.repairs == ()
    assert result.messages is native
    assert not result.changed


# --- mapping decisions -----------------------------------------------------------------------


def test_mapping_of_a_full_assistant_turn() -> None:
    native = [
        {"role": "developer", "content": "be brief", "name": "ops"},
        {"role": "user", "content": "weather?"},
        {
            "role": "assistant",
            "content": None,
            "reasoning_content": "look it up",
            "tool_calls": [
                {
                    "id": "call_1",
                    "type": "function",
                    "function": {"name": "weather", "arguments": '{"city": "Paris"}'},
                }
            ],
        },
        {"role": "tool", "tool_call_id": "call_1", "content": "sunny"},
    ]
    loaded = load(native)
    system, _, assistant, tool = loaded.messages
    assert isinstance(system, SystemMessage)
    assert system.provider_options == {
        "heal": {"openai_chat": {"role": "developer", "extra": {"name": "ops"}}}
    }
    assert isinstance(assistant.content, tuple)
    reasoning, call = assistant.content
    assert isinstance(reasoning, ReasoningPart) and reasoning.text == "look it up"
    assert reasoning.provider_options == {"heal": {"openai_chat": {"field": "reasoning_content"}}}
    assert isinstance(call, ToolCallPart) and call.input == {"city": "Paris"}
    assert isinstance(tool, ToolMessage) and isinstance(tool.content[0], ToolResultPart)
    assert tool.content[0].tool_name == "weather"
    assert loaded.origins == [0, 1, 2, 3]
    assert dump_messages(loaded.messages) == native


def test_arguments_keep_their_exact_text() -> None:
    spellings = ['{"a":1}', '{"a": 1}', '{\n  "a": 1\n}', '{"a":"\\u00e9"}', '{"a": 1.50}']
    for raw in spellings:
        native = [{"role": "assistant", "tool_calls": [_call("c1", "f", raw)], "content": None}]
        call = load_messages(native)[0].content[0]
        assert isinstance(call, ToolCallPart)
        assert call.input == json.loads(raw)
        assert dump_messages(load_messages(native)) == native


def test_arguments_that_are_not_an_object_stay_the_raw_string() -> None:
    for raw in ["", "{bad", "[1]", '"s"', "null"]:
        native = [{"role": "assistant", "content": None, "tool_calls": [_call("c1", "f", raw)]}]
        call = load_messages(native)[0].content[0]
        assert isinstance(call, ToolCallPart)
        assert call.input == raw
        assert dump_messages(load_messages(native)) == native


def test_a_raw_arguments_record_is_ignored_once_the_input_changed() -> None:
    native = [
        {"role": "assistant", "content": None, "tool_calls": [_call("c1", "f", '{"a":1,"a":2}')]}
    ]
    message = load_messages(native)[0]
    call = message.content[0]
    assert isinstance(call, ToolCallPart)
    edited = message.model_copy(update={"content": (call.model_copy(update={"input": {"b": 2}}),)})
    out = dump_messages([edited])
    assert out[0]["tool_calls"][0]["function"]["arguments"] == '{"b":2}'


def test_reasoning_repeated_in_two_fields_is_one_part() -> None:
    native = [
        {
            "role": "assistant",
            "content": "hi",
            "reasoning": "think",
            "reasoning_content": "think",
            "reasoning_details": [{"type": "reasoning.text", "text": "think", "signature": "s"}],
        }
    ]
    (message,) = load_messages(native)
    assert [type(p).__name__ for p in message.content] == ["ReasoningPart", "TextPart"]
    # The OpenRouter signature stays inside its native detail: never an Anthropic signature.
    assert isinstance(message.content, tuple)
    assert "anthropic" not in (message.content[0].provider_options or {})
    assert dump_messages([message]) == native


def test_tool_result_without_a_call_gets_a_placeholder_name() -> None:
    native = [{"role": "tool", "tool_call_id": "gone", "content": "x"}]
    (message,) = load_messages(native)
    assert isinstance(message.content[0], ToolResultPart)
    assert message.content[0].tool_name == UNKNOWN_TOOL_NAME
    assert dump_messages([message]) == native


def test_legacy_function_call_pairs_with_its_function_message() -> None:
    native = [
        {"role": "user", "content": "hi"},
        {"role": "assistant", "content": None, "function_call": {"name": "f", "arguments": "{}"}},
        {"role": "function", "name": "f", "content": "ok"},
    ]
    assert validate_messages(load_messages(native), provider="openai-chat").valid
    result = heal_openai_chat(native)
    assert result.messages is native and result.repairs == ()


def test_sdk_response_objects_read_as_the_sdk_would_send_them() -> None:
    from openai.types.chat import ChatCompletionMessage

    reply = ChatCompletionMessage(role="assistant", content="hi")
    native = [{"role": "user", "content": "q"}, reply]
    assert dump_messages(load_messages(native)) == [
        {"role": "user", "content": "q"},
        {"role": "assistant", "content": "hi"},
    ]


def test_canonical_history_from_elsewhere_dumps_as_the_ai_sdk_does() -> None:
    messages = heal.load_messages(
        [
            {"role": "system", "content": "s"},
            {"role": "user", "content": [{"type": "text", "text": "hi"}]},
            {
                "role": "assistant",
                "content": [
                    {"type": "text", "text": "a"},
                    {"type": "text", "text": "b"},
                    {"type": "tool-call", "toolCallId": "c1", "toolName": "f", "input": {"x": 1}},
                ],
            },
            {
                "role": "tool",
                "content": [
                    {
                        "type": "tool-result",
                        "toolCallId": "c1",
                        "toolName": "f",
                        "output": {"type": "json", "value": {"ok": True}},
                    }
                ],
            },
        ]
    )
    out = dump_messages(messages)
    assert out[2] == {
        "role": "assistant",
        "content": "ab",
        "tool_calls": [
            {"id": "c1", "type": "function", "function": {"name": "f", "arguments": '{"x":1}'}}
        ],
    }
    assert out[3] == {"role": "tool", "tool_call_id": "c1", "content": '{"ok":true}'}
    sdk_validate(out)


# --- healing at native indices ---------------------------------------------------------------


def _call(tid: str, name: str, arguments: str = "{}") -> dict[str, Any]:
    return {"id": tid, "type": "function", "function": {"name": name, "arguments": arguments}}


def _result_names(native: list[Any]) -> list[str]:
    return [
        part.tool_name
        for message in load_messages(native)
        if isinstance(message, ToolMessage)
        for part in message.content
        if isinstance(part, ToolResultPart)
    ]


_CUSTOM = {"id": "c", "type": "custom", "custom": {"name": "free", "input": "x"}}
"""A custom call: a call the fast path leaves to the general one."""


@pytest.mark.parametrize(
    ("native", "names"),
    [
        # The call comes after its result (the fast path has not read it yet).
        (
            [
                {"role": "tool", "tool_call_id": "c", "content": "r"},
                {"role": "assistant", "content": None, "tool_calls": [_call("c", "late")]},
                {"role": "assistant", "content": None, "tool_calls": [_call("c", "later")]},
            ],
            ["late"],
        ),
        # The nearest call before wins over an earlier one and a later one.
        (
            [
                {"role": "assistant", "content": None, "tool_calls": [_call("c", "first")]},
                {"role": "assistant", "content": None, "tool_calls": [_call("c", "near")]},
                {"role": "tool", "tool_call_id": "c", "content": "r"},
                {"role": "assistant", "content": None, "tool_calls": [_call("c", "after")]},
                {"role": "tool", "tool_call_id": "c", "content": "r"},
            ],
            ["near", "after"],
        ),
        # Two calls of one id in one message: the last.
        (
            [
                {
                    "role": "assistant",
                    "content": None,
                    "tool_calls": [_call("c", "one"), _call("c", "two")],
                },
                {"role": "tool", "tool_call_id": "c", "content": "r"},
            ],
            ["two"],
        ),
        # Calls the general path reads: a custom call, a message with a refusal.
        (
            [
                {"role": "assistant", "content": None, "tool_calls": [_CUSTOM]},
                {"role": "tool", "tool_call_id": "c", "content": "r"},
                {
                    "role": "assistant",
                    "content": "x",
                    "refusal": "no",
                    "tool_calls": [_call("d", "g")],
                },
                {"role": "tool", "tool_call_id": "d", "content": "r"},
                {"role": "tool", "tool_call_id": "e", "content": "r"},
                {
                    "role": "assistant",
                    "content": "x",
                    "refusal": "no",
                    "tool_calls": [_call("e", "h")],
                },
            ],
            ["free", "g", "h"],
        ),
        # The nearest call read by either path, after one read by the other.
        (
            [
                {"role": "assistant", "content": None, "tool_calls": [_call("c", "fast")]},
                {
                    "role": "assistant",
                    "content": "x",
                    "refusal": "no",
                    "tool_calls": [_call("c", "g")],
                },
                {"role": "tool", "tool_call_id": "c", "content": "r"},
                {"role": "assistant", "content": None, "tool_calls": [_call("c", "fast")]},
                {"role": "tool", "tool_call_id": "c", "content": "r"},
            ],
            ["g", "fast"],
        ),
        # Legacy function messages: their call before, else after them.
        (
            [
                {"role": "function", "name": "f", "content": "early"},
                {
                    "role": "assistant",
                    "content": None,
                    "function_call": {"name": "f", "arguments": "{}"},
                },
                {"role": "function", "name": "f", "content": "ok"},
                {"role": "assistant", "content": None, "tool_calls": [_call("c", "t")]},
                {"role": "tool", "tool_call_id": "c", "content": "r"},
            ],
            ["f", "f", "t"],
        ),
    ],
)
def test_a_result_is_named_by_the_nearest_call_before_it_else_the_first_after(
    native: list[Any], names: list[str]
) -> None:
    # The fast path names results from the calls it has read so far, and indexes the whole
    # history only for a result whose call it has not read: the same names as the index.
    assert _result_names(native) == names
    loaded = load(native)
    with mock.patch.object(openai_chat, "_PARTIAL", False):
        assert _result_names(native) == names
        assert load(native) == loaded
    assert openai_chat._Loader(native, fast=True).run() == loaded


BROKEN: dict[str, tuple[list[dict[str, Any]], list[tuple[str, int | None, int | None]]]] = {
    "orphan-tool-call": (
        [
            {
                "role": "system",
                "content": [{"type": "text", "text": "a"}, {"type": "text", "text": "b"}],
            },
            {"role": "user", "content": "hi"},
            {"role": "assistant", "content": None, "tool_calls": [_call("call_1", "f")]},
            {"role": "user", "content": "next"},
        ],
        [("orphan-tool-call", None, None)],
    ),
    "orphan-tool-result": (
        [
            {
                "role": "developer",
                "content": [{"type": "text", "text": "a"}, {"type": "text", "text": "b"}],
            },
            {"role": "user", "content": "hi"},
            {"role": "tool", "tool_call_id": "call_9", "content": "stale"},
            {"role": "assistant", "content": "hello"},
        ],
        [("orphan-tool-result", 2, None), ("empty-message", 2, None)],
    ),
    "invalid-tool-input": (
        [
            {"role": "user", "content": "hi"},
            {
                "role": "assistant",
                "content": None,
                "tool_calls": [_call("call_1", "f", "{bad json")],
            },
            {"role": "tool", "tool_call_id": "call_1", "content": "ok"},
        ],
        [("invalid-tool-input", 1, None)],
    ),
    "invalid-tool-name": (
        [
            {"role": "user", "content": "hi"},
            {"role": "assistant", "content": None, "tool_calls": [_call("call_1", "web search")]},
            {"role": "tool", "tool_call_id": "call_1", "content": "ok"},
        ],
        [("invalid-tool-name", 1, None), ("invalid-tool-name", 2, None)],
    ),
    "invalid-tool-call-id": (
        [
            {"role": "user", "content": "hi"},
            {
                "role": "assistant",
                "content": "",
                "tool_calls": [_call("functions.search:0", "search")],
            },
            {"role": "tool", "tool_call_id": "functions.search:0", "content": "ok"},
        ],
        [("invalid-tool-call-id", 1, None), ("invalid-tool-call-id", 2, None)],
    ),
    "empty-text": (
        [
            {"role": "system", "content": "s"},
            {
                "role": "user",
                "content": [{"type": "text", "text": "hi"}, {"type": "text", "text": ""}],
            },
            {"role": "assistant", "content": "hello"},
        ],
        [("empty-text", 1, 1)],
    ),
}


@pytest.mark.parametrize("case", sorted(BROKEN))
def test_heal_reports_native_indices(case: str) -> None:
    native, expected = BROKEN[case]
    before = copy.deepcopy(native)
    result = heal_openai_chat(native)
    assert native == before, "heal mutated its input"
    got = [(r.rule, r.message_index, r.part_index) for r in result.repairs]
    assert [g for g in got if g[0] == expected[0][0] or g in expected] == expected, got
    assert result.changed
    sdk_validate(result.messages)
    assert validate_messages(load_messages(result.messages), provider="openai-chat").valid
    again = heal_openai_chat(result.messages)
    assert again.repairs == () and again.messages is result.messages


def test_orphan_call_placeholder_is_anchored_at_the_native_call() -> None:
    native, _ = BROKEN["orphan-tool-call"]
    result = heal_openai_chat(native)
    (repair,) = [r for r in result.repairs if r.rule == "orphan-tool-call"]
    assert repair.anchor_index == 2  # the assistant message, in the native list
    assert result.messages[3] == {
        "role": "tool",
        "tool_call_id": "call_1",
        "content": "Tool result unavailable: no result for this call was recorded.",
    }


def test_fixed_arguments_are_serialized_back_to_json_text() -> None:
    native, _ = BROKEN["invalid-tool-input"]
    out = heal_openai_chat(native).messages
    arguments = out[1]["tool_calls"][0]["function"]["arguments"]
    assert isinstance(arguments, str) and isinstance(json.loads(arguments), dict)


def test_on_repair_and_strict_see_native_indices() -> None:
    native, _ = BROKEN["orphan-tool-result"]
    seen: list[int | None] = []
    heal_openai_chat(native, on_repair=lambda r: seen.append(r.message_index))
    assert seen == [2, 2]
    with pytest.raises(heal.HealingError) as info:
        heal_openai_chat(native, strict=True)
    assert [r.message_index for r in info.value.repairs] == [2, 2]


# --- input errors ----------------------------------------------------------------------------

MALFORMED = [
    ([{"role": "user", "content": None}], "messages[0].content", "null"),
    ([{"role": "user"}], "messages[0]", "no content"),
    ([{"content": "x"}], "messages[0]", "no role"),
    ([{"role": "critic", "content": "x"}], "messages[0].role", "unknown role"),
    (["hello"], "messages[0]", "message object"),
    ([{"role": "system", "content": None}], "messages[0].content", "null"),
    ([{"role": "tool", "content": "x"}], "messages[0]", "tool_call_id"),
    ([{"role": "tool", "tool_call_id": "c", "content": None}], "messages[0].content", "null"),
    (
        [
            {
                "role": "assistant",
                "tool_calls": [{"type": "function", "function": {"name": "f", "arguments": "{}"}}],
            }
        ],
        "messages[0].tool_calls[0]",
        "no id",
    ),
    (
        [
            {
                "role": "assistant",
                "tool_calls": [
                    {
                        "id": "c",
                        "type": "function",
                        "function": {"name": "f", "arguments": {"a": 1}},
                    }
                ],
            }
        ],
        "messages[0].tool_calls[0].function.arguments",
        "JSON string",
    ),
    (
        [
            {
                "role": "assistant",
                "tool_calls": [{"id": "c", "type": "function", "function": {"arguments": "{}"}}],
            }
        ],
        "messages[0].tool_calls[0].function",
        "no name",
    ),
    (
        [{"role": "assistant", "tool_calls": [{"id": "c", "type": "web"}]}],
        "messages[0].tool_calls[0].type",
        "unknown tool call type",
    ),
    (
        [{"role": "user", "content": [{"type": "video", "url": "x"}]}],
        "messages[0].content[0].type",
        "unknown content part",
    ),
    ([{"role": "user", "content": [{"type": "text"}]}], "messages[0].content[0]", "no text"),
    (
        [{"role": "user", "content": [{"type": "image_url", "image_url": {}}]}],
        "messages[0].content[0].image_url",
        "no url",
    ),
    (
        [{"role": "assistant", "content": [{"type": "image_url"}]}],
        "messages[0].content[0].type",
        "unknown content part",
    ),
    ([{"role": "assistant", "content": 3}], "messages[0].content", "got a number"),
    (
        [{"role": "assistant", "content": "", "reasoning_content": 1}],
        "messages[0].reasoning_content",
        "string",
    ),
    (
        [{"role": "system", "content": [{"type": "image_url"}]}],
        "messages[0].content[0].type",
        "must be text",
    ),
]


@pytest.mark.parametrize(("native", "path", "words"), MALFORMED)
def test_malformed_input_names_the_native_place(native: Any, path: str, words: str) -> None:
    with pytest.raises(InputError) as info:
        load_messages(native)
    assert info.value.path == path
    assert words in info.value.reason


def test_a_single_object_is_not_a_history() -> None:
    with pytest.raises(InputError, match="messages' field"):
        load_messages({"messages": []})


def test_what_the_format_cannot_hold_is_refused_on_dump() -> None:
    messages = heal.load_messages(
        [
            {
                "role": "assistant",
                "content": [
                    {
                        "type": "tool-call",
                        "toolCallId": "s",
                        "toolName": "web_search",
                        "input": {},
                        "providerExecuted": True,
                    }
                ],
            }
        ]
    )
    with pytest.raises(InputError) as info:
        dump_messages(messages)
    assert info.value.path == "messages[0].content[0]"


# --- Gemini's OpenAI-compatible endpoint -------------------------------------------------------


def _gemini_turn(**call_fields: Any) -> list[dict[str, Any]]:
    call = {
        "id": "call_1",
        "type": "function",
        "function": {"name": "get_weather", "arguments": "{}"},
        **call_fields,
    }
    return [
        {"role": "user", "content": "weather?"},
        {"role": "assistant", "content": None, "tool_calls": [call]},
        {"role": "tool", "tool_call_id": "call_1", "content": "sunny"},
    ]


def test_thought_signature_is_read_from_extra_content() -> None:
    # Gemini's OpenAI-compatible endpoint returns and takes a call's signature in
    # extra_content.google.thought_signature (ai.google.dev/gemini-api/docs/thought-signatures).
    native = _gemini_turn(extra_content={"google": {"thought_signature": "CiQBjz1rX0Tm"}})
    call = load_messages(native)[1].content[0]
    assert isinstance(call, ToolCallPart)
    assert call.provider_options is not None
    assert call.provider_options["google"] == {"thoughtSignature": "CiQBjz1rX0Tm"}
    assert dump_messages(load_messages(native)) == native
    result = heal_openai_chat(native, provider="google")
    assert result.repairs == ()
    assert result.messages is native


def test_other_extra_content_is_kept_beside_the_signature() -> None:
    extra = {"google": {"thought_signature": "CiQB", "other": 1}, "vendor": {"x": True}}
    native = _gemini_turn(extra_content=extra)
    assert dump_messages(load_messages(native)) == native


def test_missing_thought_signature_is_written_where_gemini_reads_it() -> None:
    native = _gemini_turn()
    result = heal_openai_chat(native, provider="google")
    assert [r.rule for r in result.repairs] == ["google-missing-thought-signature"]
    call = result.messages[1]["tool_calls"][0]
    assert call["extra_content"] == {
        "google": {"thought_signature": "skip_thought_signature_validator"}
    }
    again = heal_openai_chat(result.messages, provider="google")
    assert again.repairs == ()
    assert again.messages is result.messages


def test_legacy_function_call_keeps_its_signature_in_the_call_object() -> None:
    # The legacy format has no tool_calls entry: the signature heal sets rides in the
    # function_call object the same way, so a second heal finds it.
    native = [{"role": "assistant", "function_call": {"name": "f", "arguments": "{}"}}]
    result = heal_openai_chat(native, provider="google")
    assert "google-missing-thought-signature" in [r.rule for r in result.repairs]
    assert not heal_openai_chat(result.messages, provider="google").changed
    assert dump_messages(load_messages(result.messages)) == result.messages


# --- media in tool messages --------------------------------------------------------------------


def _screenshot_turn() -> list[dict[str, Any]]:
    image = {
        "type": "image_url",
        "image_url": {"url": "data:image/png;base64,iVBO", "detail": "low"},
    }
    return [
        {"role": "user", "content": "What is on my screen?"},
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {
                    "id": "call_1",
                    "type": "function",
                    "function": {"name": "shot", "arguments": "{}"},
                }
            ],
        },
        {
            "role": "tool",
            "tool_call_id": "call_1",
            "content": [{"type": "text", "text": "ok"}, image],
        },
        {"role": "assistant", "content": "A cat."},
    ]


def test_media_in_a_tool_message_is_read_and_written_back() -> None:
    native = _screenshot_turn()
    result = load_messages(native)[2].content[0]
    assert isinstance(result, ToolResultPart)
    assert result.type == "tool-result"
    assert result.output.type == "content"
    assert [item["type"] for item in result.output.value] == ["text", "image-url"]
    assert dump_messages(load_messages(native)) == native
    assert heal_openai_chat(native, provider=None).messages is native


def test_media_in_a_tool_message_moves_to_a_user_message_for_openai() -> None:
    native = _screenshot_turn()
    result = heal_openai_chat(native)
    assert [r.rule for r in result.repairs] == ["openai-tool-result-media"]
    out = result.messages
    assert out[2]["content"] == [
        {"type": "text", "text": "ok"},
        {"type": "text", "text": "(image moved to the next user message)"},
    ]
    assert out[3] == {
        "role": "user",
        "content": [
            {
                "type": "text",
                "text": "The image below is from the result of tool call call_1 (shot):",
            },
            native[2]["content"][1],
        ],
    }
    assert out[4] == native[3]
    sdk_validate(out)
    assert heal_openai_chat(out).repairs == ()


# --- the verdict's reading of arguments --------------------------------------------------------

_JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=4),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=3), inner, max_size=3)
    ),
    max_leaves=8,
)
_ARGUMENTS = st.one_of(
    _JSON.map(json.dumps),
    st.integers(0, 80).map(lambda n: '{"a":' + "[" * n + "]" * n + "}"),
    st.integers(0, 80).map(lambda n: '{"a":' + "[" * n + "1" + "]" * n + "}"),
    st.integers(0, 80).map(lambda n: '{"a":"' + "[" * n + '"}'),
    st.sampled_from(('{"a":1e999}', '{"a":-1e400}', '{"a":1e308}', '{"a":NaN}', " {} ", "{}x")),
    st.text(max_size=8),
)


@PROPERTY
@given(raw=_ARGUMENTS)
def test_plain_arguments_are_those_the_loader_reads_as_a_plain_input(raw: str) -> None:
    # The verdict's test, and the fast loader's input: the object the general path parses.
    try:
        parsed = openai_chat._decode_json(raw)
    except (ValueError, RecursionError):
        expected = None
    else:
        expected = parsed if plain_input(parsed) else None
    found = openai_chat._plain_object(raw)
    assert found == expected
    assert json.dumps(found) == json.dumps(expected)  # int and float apart, keys in order


@PROPERTY
@given(value=st.dictionaries(st.text(max_size=3), _JSON, max_size=4))
def test_arguments_read_as_json_dumps_writes_them(value: dict[str, Any]) -> None:
    for fmt, options in openai_chat._ARG_FORMATS.items():
        assert openai_chat._PARSED_ENCODERS[fmt](value) == json.dumps(value, **options)
