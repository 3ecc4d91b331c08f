"""The Anthropic Messages adapter: lossless round trips, SDK-valid output, native repairs."""

from __future__ import annotations

import copy
import json
from collections.abc import Iterable
from typing import Any
from unittest import mock

import pydantic
import pytest
from anthropic.types import MessageParam, TextBlockParam, ToolUseBlock
from hypothesis import HealthCheck, given, settings

import heal
from heal import Action, InputError, validate_messages
from heal.adapters import anthropic as anthropic_format
from heal.adapters.anthropic import (
    UNKNOWN_TOOL_NAME,
    dump_messages,
    heal_anthropic,
    load,
    load_messages,
)
from heal.messages import ReasoningPart, ToolCallPart, ToolMessage, ToolResultPart, UserMessage

from .strategies_anthropic import histories, valid_histories

MESSAGES = pydantic.TypeAdapter(list[MessageParam])
SYSTEM = pydantic.TypeAdapter(list[TextBlockParam])
PROPERTY = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def _force(value: Any) -> Any:
    """Consume the SDK types' lazily validated iterables, so every block is validated."""
    if isinstance(value, dict):
        return {k: _force(v) for k, v in value.items()}
    if isinstance(value, (str, bytes, pydantic.BaseModel)):
        return value
    if isinstance(value, Iterable):
        return [_force(v) for v in value]
    return value


def sdk_validate(history: Any) -> None:
    if isinstance(history, dict):
        if isinstance(history.get("system"), list):
            _force(SYSTEM.validate_python(history["system"]))
        else:
            assert isinstance(history.get("system", ""), str)
        history = history["messages"]
    _force(MESSAGES.validate_python(history))


def _shape(native: Any) -> Any:
    return "params" if isinstance(native, dict) else "messages"


def _assert_nothing_left_to_fix(history: Any) -> None:
    # Findings no edit can fix (Action.REPORT, such as a tool loop whose thinking was lost) stay
    # for the caller; every other finding must be gone after healing.
    issues = validate_messages(load_messages(history), provider="anthropic").issues
    assert all(issue.action is Action.REPORT for issue in issues), [i.describe() for i in issues]


# --- round trips -----------------------------------------------------------------------------


@PROPERTY
@given(histories(sdk=False))
def test_round_trip_is_lossless(native: Any) -> None:
    before = copy.deepcopy(native)
    loaded = load(native)
    assert native == before, "load mutated its input"
    assert dump_messages(loaded.messages, shape=_shape(native)) == native
    # shape="auto" gives the shape back whenever the history says which it was.
    if isinstance(native, list) or "system" in native:
        assert dump_messages(loaded.messages) == native
    # Stored as AI SDK JSON (heal.dump_messages) and read back: nothing native is lost.
    stored = json.loads(json.dumps(heal.dump_messages(loaded.messages)))
    assert dump_messages(heal.load_messages(stored), shape=_shape(native)) == native


@PROPERTY
@given(histories(sdk=True))
def test_dumped_histories_validate_against_the_sdk(native: Any) -> None:
    sdk_validate(native)  # the strategy itself draws SDK-valid requests
    out = dump_messages(load_messages(native), shape=_shape(native))
    assert out == native
    sdk_validate(out)


@PROPERTY
@given(histories(sdk=True))
def test_healed_histories_are_valid_and_sdk_valid(native: Any) -> None:
    result = heal_anthropic(native)
    sdk_validate(result.messages)
    _assert_nothing_left_to_fix(result.messages)
    count = len(native["messages"] if isinstance(native, dict) else native)
    for repair in result.repairs:
        assert repair.message_index is None or 0 <= repair.message_index < count
        assert repair.anchor_index is None or 0 <= repair.anchor_index < count


@PROPERTY
@given(valid_histories())
def test_valid_history_comes_back_identical(native: Any) -> None:
    result = heal_anthropic(native)
    assert result.repairs == ()
    assert result.messages is native


# --- mapping decisions -----------------------------------------------------------------------


def test_tool_results_split_and_merge_back_in_block_order() -> None:
    native = [
        {"role": "user", "content": "go"},
        {
            "role": "assistant",
            "content": [
                {"type": "tool_use", "id": "toolu_1", "name": "a", "input": {}},
                {"type": "tool_use", "id": "toolu_2", "name": "b", "input": {}},
            ],
        },
        {
            "role": "user",
            "content": [
                {"type": "tool_result", "tool_use_id": "toolu_1", "content": "1"},
                {"type": "text", "text": "between"},
                {"type": "tool_result", "tool_use_id": "toolu_2", "content": "2", "is_error": True},
            ],
        },
    ]
    loaded = load(native)
    tool, user = loaded.messages[2:]
    assert isinstance(tool, ToolMessage) and isinstance(user, UserMessage)
    first, second = tool.content
    assert isinstance(first, ToolResultPart) and isinstance(second, ToolResultPart)
    assert [first.tool_name, second.tool_name] == ["a", "b"]
    assert second.output.type == "error-text"
    assert loaded.origins == [0, 1, 2, 2]
    assert loaded.part_origins is not None and loaded.part_origins[2:] == [(0, 2), (1,)]
    assert dump_messages(loaded.messages) == native


def test_thinking_keeps_its_signature_under_anthropic() -> None:
    native = [
        {
            "role": "assistant",
            "content": [
                {"type": "thinking", "thinking": "hm", "signature": "sig"},
                {"type": "redacted_thinking", "data": "opaque"},
                {"type": "text", "text": "answer"},
            ],
        }
    ]
    content = load_messages(native)[0].content
    assert isinstance(content, tuple)
    thinking, redacted, _ = content
    assert isinstance(thinking, ReasoningPart) and isinstance(redacted, ReasoningPart)
    assert thinking.provider_options == {"anthropic": {"signature": "sig"}}
    assert redacted.provider_options == {"anthropic": {"redactedData": "opaque"}}
    assert redacted.text == ""


def test_server_tools_are_provider_executed_parts_of_the_assistant_message() -> None:
    native = [
        {
            "role": "assistant",
            "content": [
                {
                    "type": "server_tool_use",
                    "id": "srvtoolu_1",
                    "name": "web_search",
                    "input": {"query": "q"},
                },
                {
                    "type": "web_search_tool_result",
                    "tool_use_id": "srvtoolu_1",
                    "content": {
                        "type": "web_search_tool_result_error",
                        "error_code": "unavailable",
                    },
                },
            ],
        }
    ]
    content = load_messages(native)[0].content
    assert isinstance(content, tuple)
    call, result = content
    assert isinstance(call, ToolCallPart) and isinstance(result, ToolResultPart)
    assert call.provider_executed is True
    assert result.output.type == "error-json"
    assert dump_messages(load_messages(native)) == native


def test_cache_control_maps_to_the_ai_sdk_option() -> None:
    native = {
        "system": [{"type": "text", "text": "s", "cache_control": {"type": "ephemeral"}}],
        "messages": [
            {
                "role": "user",
                "content": [
                    {
                        "type": "text",
                        "text": "hi",
                        "cache_control": {"type": "ephemeral", "ttl": "1h"},
                    }
                ],
            }
        ],
    }
    system, user = load_messages(native)
    assert system.provider_options is not None and isinstance(user.content, tuple)
    assert system.provider_options["anthropic"] == {"cacheControl": {"type": "ephemeral"}}
    assert user.content[0].provider_options == {
        "anthropic": {"cacheControl": {"type": "ephemeral", "ttl": "1h"}}
    }


def test_shape_option() -> None:
    native = {"messages": [{"role": "user", "content": "hi"}]}
    messages = load_messages(native)
    assert dump_messages(messages) == native["messages"]
    assert dump_messages(messages, shape="params") == native
    with_system = load_messages({"system": "s", "messages": native["messages"]})
    assert dump_messages(with_system, shape="messages") == [
        {"role": "system", "content": "s"},
        {"role": "user", "content": "hi"},
    ]


def test_result_without_a_call_gets_a_placeholder_name() -> None:
    native = [
        {
            "role": "user",
            "content": [{"type": "tool_result", "tool_use_id": "gone", "content": "x"}],
        }
    ]
    result = load_messages(native)[0].content[0]
    assert isinstance(result, ToolResultPart)
    assert result.tool_name == UNKNOWN_TOOL_NAME


def test_sdk_response_blocks_read_as_the_sdk_would_send_them() -> None:
    from anthropic.types import TextBlock, ToolUseBlock

    blocks = [
        TextBlock(type="text", text="hi", citations=None),
        ToolUseBlock(type="tool_use", id="toolu_1", name="f", input={"a": 1}),
    ]
    out = dump_messages(load_messages([{"role": "assistant", "content": blocks}]))
    assert out == [
        {
            "role": "assistant",
            "content": [
                {"type": "text", "text": "hi"},
                {"type": "tool_use", "id": "toolu_1", "name": "f", "input": {"a": 1}},
            ],
        }
    ]


def test_foreign_reasoning_is_refused_not_invented() -> None:
    messages = heal.load_messages(
        [
            {
                "role": "assistant",
                "content": [
                    {
                        "type": "reasoning",
                        "text": "t",
                        "providerOptions": {"bedrock": {"signature": "x"}},
                    }
                ],
            }
        ]
    )
    with pytest.raises(InputError) as info:
        dump_messages(messages)
    assert info.value.path == "messages[0].content[0]"


TOOL_TURN: list[dict[str, Any]] = [
    {"role": "user", "content": "weather?"},
    {
        "role": "assistant",
        "content": [{"type": "tool_use", "id": "toolu_1", "name": "get_weather", "input": {}}],
    },
    {
        "role": "user",
        "content": [{"type": "tool_result", "tool_use_id": "toolu_1", "content": "sunny"}],
    },
]


def test_deepseeks_empty_reasoning_is_written_as_thinking_with_an_empty_signature() -> None:
    # DeepSeek's /anthropic endpoint wants the thinking of a tool-call turn back, and its
    # blocks have no real signature: it takes signature "" (provider-rules.md §7).
    result = heal_anthropic(TOOL_TURN, provider="deepseek")
    assert [r.rule for r in result.repairs] == ["missing-reasoning-content"]
    sdk_validate(result.messages)
    assert result.messages[1]["content"] == [
        {"type": "thinking", "thinking": "", "signature": ""},
        *TOOL_TURN[1]["content"],
    ]
    assert heal_anthropic(result.messages, provider="deepseek").repairs == ()
    # Only heal's own empty part gets the empty signature: unsigned words are still refused.
    unsigned = heal.load_messages(
        [{"role": "assistant", "content": [{"type": "reasoning", "text": "t"}]}]
    )
    with pytest.raises(InputError, match="no Anthropic signature"):
        dump_messages(unsigned)


def test_a_gemini_thought_signature_is_reported_not_written() -> None:
    # A tool_use block has no field for a Gemini thought signature: the rule that would set one
    # reports the unsigned call (kept), and the history comes back as it is.
    result = heal_anthropic(TOOL_TURN, provider="google")
    assert [(r.rule, r.action) for r in result.repairs] == [
        ("google-missing-thought-signature", Action.KEEP)
    ]
    assert result.messages is TOOL_TURN


def test_data_urls_from_other_formats_are_sent_as_their_payload() -> None:
    messages = heal.load_messages(
        [
            {
                "role": "user",
                "content": [
                    {"type": "image", "image": "data:image/png;base64,iVBORw0KGgo="},
                    {
                        "type": "file",
                        "data": "data:application/pdf;base64,JVBERi0=",
                        "mediaType": "application/pdf",
                    },
                    {
                        "type": "file",
                        "data": "data:text/plain;base64,aGk=",
                        "mediaType": "text/plain",
                    },
                    {"type": "file", "data": "data:text/plain,a%20b", "mediaType": "text/plain"},
                ],
            }
        ]
    )
    out = dump_messages(messages)
    sdk_validate(out)
    assert isinstance(out, list)  # no system message: the messages alone
    assert [block["source"] for block in out[0]["content"]] == [
        {"type": "base64", "media_type": "image/png", "data": "iVBORw0KGgo="},
        {"type": "base64", "media_type": "application/pdf", "data": "JVBERi0="},
        {"type": "text", "media_type": "text/plain", "data": "hi"},
        {"type": "text", "media_type": "text/plain", "data": "a b"},
    ]


# --- healing at native indices ---------------------------------------------------------------


def _use(tid: str, name: str = "f", tool_input: Any = None) -> dict[str, Any]:
    return {
        "type": "tool_use",
        "id": tid,
        "name": name,
        "input": {} if tool_input is None else tool_input,
    }


def _result(tid: str, content: str = "ok") -> dict[str, Any]:
    return {"type": "tool_result", "tool_use_id": tid, "content": content}


def _result_names(native: list[Any]) -> list[str]:
    return [
        part.tool_name
        for message in load_messages(native)
        if not isinstance(message.content, str)
        for part in message.content
        if isinstance(part, ToolResultPart)
    ]


_CACHED_TEXT = {"type": "text", "text": "x", "cache_control": {"type": "ephemeral"}}
"""A block that leaves its message to the general path."""


@pytest.mark.parametrize(
    ("native", "names"),
    [
        # The call comes after its result (the fast path has not read it yet).
        (
            [
                {"role": "user", "content": [_result("c")]},
                {"role": "assistant", "content": [_use("c", "late")]},
                {"role": "assistant", "content": [_use("c", "later")]},
            ],
            ["late"],
        ),
        # The nearest call before wins over an earlier one and a later one.
        (
            [
                {"role": "assistant", "content": [_use("c", "first")]},
                {"role": "assistant", "content": [_use("c", "near")]},
                {"role": "user", "content": [_result("c")]},
                {"role": "assistant", "content": [_use("c", "after")]},
                {"role": "user", "content": [_result("c")]},
            ],
            ["near", "after"],
        ),
        # Two calls of one id in one message: the last.
        (
            [
                {"role": "assistant", "content": [_use("c", "one"), _use("c", "two")]},
                {"role": "user", "content": [_result("c")]},
            ],
            ["two"],
        ),
        # The nearest call read by either path, after one read by the other.
        (
            [
                {"role": "assistant", "content": [_use("c", "fast")]},
                {"role": "assistant", "content": [_CACHED_TEXT, _use("c", "general")]},
                {"role": "user", "content": [_result("c")]},
                {"role": "assistant", "content": [_use("c", "fast")]},
                {"role": "user", "content": [_result("c")]},
            ],
            ["general", "fast"],
        ),
        # A server tool's result names the call of its own message.
        (
            [
                {"role": "user", "content": "q"},
                {
                    "role": "assistant",
                    "content": [
                        {"type": "server_tool_use", "id": "s", "name": "web_search", "input": {}},
                        {"type": "web_search_tool_result", "tool_use_id": "s", "content": []},
                    ],
                },
            ],
            ["web_search"],
        ),
        # An SDK block is read, but names no result (it is no mapping): the dict call after.
        (
            [
                {
                    "role": "assistant",
                    "content": [ToolUseBlock(type="tool_use", id="c", name="sdk", input={})],
                },
                {"role": "user", "content": [_result("c")]},
                {"role": "assistant", "content": [_use("c", "dict")]},
            ],
            ["dict"],
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
    with mock.patch.object(anthropic_format, "_PARTIAL", False):
        assert _result_names(native) == names
        assert load(native) == loaded


BROKEN: dict[str, tuple[Any, list[tuple[str, int | None, int | None]]]] = {
    "orphan-tool-call": (
        {
            "system": "s",
            "messages": [
                {"role": "user", "content": "hi"},
                {
                    "role": "assistant",
                    "content": [{"type": "text", "text": "calling"}, _use("toolu_1")],
                },
                {"role": "user", "content": "next"},
            ],
        },
        [("orphan-tool-call", None, None)],
    ),
    "orphan-tool-result": (
        [
            {"role": "user", "content": "hi"},
            {"role": "assistant", "content": [{"type": "text", "text": "hello"}]},
            {"role": "user", "content": [{"type": "text", "text": "and"}, _result("toolu_gone")]},
        ],
        [("orphan-tool-result", 2, 1)],
    ),
    "invalid-tool-input": (
        [
            {"role": "user", "content": "hi"},
            {
                "role": "assistant",
                "content": [{"type": "text", "text": "x"}, _use("toolu_1", tool_input='{"a": 1}')],
            },
            {"role": "user", "content": [_result("toolu_1")]},
        ],
        [("invalid-tool-input", 1, 1)],
    ),
    "invalid-tool-name": (
        [
            {"role": "user", "content": "hi"},
            {"role": "assistant", "content": [_use("toolu_1", name="web.search")]},
            {"role": "user", "content": [{"type": "text", "text": "see"}, _result("toolu_1")]},
        ],
        [("invalid-tool-name", 1, 0), ("invalid-tool-name", 2, 1)],
    ),
    "invalid-tool-call-id": (
        [
            {"role": "user", "content": "hi"},
            {"role": "assistant", "content": [_use("functions.search:0", name="search")]},
            {"role": "user", "content": [_result("functions.search:0")]},
        ],
        [("invalid-tool-call-id", 1, 0), ("invalid-tool-call-id", 2, 0)],
    ),
    "empty-text": (
        [
            {
                "role": "user",
                "content": [{"type": "text", "text": "hi"}, {"type": "text", "text": ""}],
            },
            {"role": "assistant", "content": "hello"},
        ],
        [("empty-text", 0, 1)],
    ),
}


@pytest.mark.parametrize("case", sorted(BROKEN))
def test_heal_reports_native_indices(case: str) -> None:
    native, expected = BROKEN[case]
    before = copy.deepcopy(native)
    result = heal_anthropic(native)
    assert native == before, "heal mutated its input"
    got = [(r.rule, r.message_index, r.part_index) for r in result.repairs]
    assert [g for g in got if g[0] == expected[0][0]] == expected, got
    sdk_validate(result.messages)
    assert validate_messages(load_messages(result.messages), provider="anthropic").valid
    again = heal_anthropic(result.messages)
    assert again.repairs == () and again.messages is result.messages


def test_placeholder_result_joins_the_next_user_message() -> None:
    native, _ = BROKEN["orphan-tool-call"]
    result = heal_anthropic(native)
    (repair,) = [r for r in result.repairs if r.rule == "orphan-tool-call"]
    assert repair.anchor_index == 1
    assert result.messages["system"] == "s"
    assert len(result.messages["messages"]) == 3
    first, second = result.messages["messages"][2]["content"]
    assert first["type"] == "tool_result" and first["is_error"] is True
    assert second == {"type": "text", "text": "next"}


def test_params_keep_their_other_keys() -> None:
    native, _ = BROKEN["orphan-tool-call"]
    request = {"model": "claude", "max_tokens": 10, **native}
    out = heal_anthropic(request).messages
    assert list(out) == list(request)
    assert out["model"] == "claude" and out["max_tokens"] == 10


def test_repairs_on_the_system_parameter_have_no_message_index() -> None:
    native = {
        "system": [{"type": "text", "text": "ok"}, {"type": "text", "text": "cut \ud83d"}],
        "messages": [{"role": "user", "content": "hi"}],
    }
    result = heal_anthropic(native)
    (repair,) = result.repairs
    assert (repair.rule, repair.message_index, repair.part_index) == ("lone-surrogate", None, 1)
    assert result.messages["system"][1]["text"] == "cut \ufffd"


# --- input errors ----------------------------------------------------------------------------

MALFORMED = [
    ([{"role": "user", "content": None}], "messages[0].content", "null"),
    ([{"role": "user"}], "messages[0]", "no content"),
    ([{"role": "tool", "content": "x"}], "messages[0].role", "unknown role"),
    (
        [{"role": "user", "content": [{"type": "bogus"}]}],
        "messages[0].content[0].type",
        "unknown block type",
    ),
    (
        [{"role": "assistant", "content": [{"type": "tool_result", "tool_use_id": "x"}]}],
        "messages[0].content[0].type",
        "unknown block type",
    ),
    (
        [{"role": "user", "content": [{"type": "thinking", "thinking": "x", "signature": "s"}]}],
        "messages[0].content[0].type",
        "unknown block type",
    ),
    (
        [{"role": "assistant", "content": [{"type": "tool_use", "name": "f", "input": {}}]}],
        "messages[0].content[0]",
        "no id",
    ),
    (
        [{"role": "user", "content": [{"type": "tool_result", "content": "x"}]}],
        "messages[0].content[0]",
        "no tool_use_id",
    ),
    (
        [{"role": "user", "content": [{"type": "tool_result", "tool_use_id": "x", "content": 5}]}],
        "messages[0].content[0].content",
        "string or a list",
    ),
    (
        [{"role": "user", "content": [{"type": "image", "source": {"type": "ftp"}}]}],
        "messages[0].content[0].source.type",
        "unknown source type",
    ),
    (
        [{"role": "user", "content": [{"type": "text", "text": 3}]}],
        "messages[0].content[0].text",
        "must be a string",
    ),
    (
        [{"role": "assistant", "content": [{"type": "thinking", "thinking": "x", "signature": 1}]}],
        "messages[0].content[0].signature",
        "must be a string",
    ),
    ({"system": 5, "messages": []}, "system", "string or a list"),
    ({"system": [{"type": "image"}], "messages": []}, "system[0].type", "text blocks"),
    ({"nothing": []}, "messages", "no messages"),
]


@pytest.mark.parametrize(("native", "path", "words"), MALFORMED)
def test_malformed_input_names_the_native_place(native: Any, path: str, words: str) -> None:
    with pytest.raises(InputError) as info:
        load_messages(native)
    assert info.value.path == path
    assert words in info.value.reason


def test_heal_puts_tool_results_first_in_a_user_message() -> None:
    # Anthropic: "Did not find 1 tool_result block(s) at the beginning of this message."
    native: list[dict[str, Any]] = [
        {"role": "user", "content": "go"},
        {
            "role": "assistant",
            "content": [{"type": "tool_use", "id": "toolu_1", "name": "a", "input": {}}],
        },
        {
            "role": "user",
            "content": [
                {"type": "text", "text": "before"},
                {"type": "tool_result", "tool_use_id": "toolu_1", "content": "1"},
                {"type": "text", "text": "after"},
            ],
        },
    ]
    result = heal_anthropic(native)
    assert result.messages[2]["content"] == [
        {"type": "tool_result", "tool_use_id": "toolu_1", "content": "1"},
        {"type": "text", "text": "before"},
        {"type": "text", "text": "after"},
    ]
    assert [(r.rule, r.action.value, r.message_index) for r in result.repairs] == [
        ("misplaced-tool-result", "move", 2)
    ]
    assert native[2]["content"][0] == {"type": "text", "text": "before"}  # input untouched
    again = heal_anthropic(result.messages)
    assert again.repairs == () and again.messages is result.messages


@pytest.mark.parametrize("provider", [None, "anthropic"])
def test_results_go_first_through_the_canonical_path_too(provider: Any) -> None:
    # Loaded here, healed by heal_messages, dumped here: the block order Anthropic rejects
    # must not come back, and validating the loaded history must say so (it found nothing).
    native = [
        {"role": "user", "content": "go"},
        {
            "role": "assistant",
            "content": [{"type": "tool_use", "id": "toolu_1", "name": "a", "input": {}}],
        },
        {
            "role": "user",
            "content": [
                {"type": "text", "text": "before"},
                {"type": "tool_result", "tool_use_id": "toolu_1", "content": "1"},
            ],
        },
    ]
    loaded = load_messages(native)
    issues = validate_messages(loaded, provider=provider).issues
    assert [(i.rule, i.message_index) for i in issues] == [("misplaced-tool-result", 3)]
    out = dump_messages(heal.heal_messages(loaded, provider=provider).messages)
    assert isinstance(out, list)  # no system message: the messages alone
    assert [block["type"] for block in out[2]["content"]] == ["tool_result", "text"]
    assert dump_messages(loaded) == native  # loading and dumping alone stay lossless


# --- the target --------------------------------------------------------------------------------

PREFILL: list[Any] = [
    {"role": "user", "content": "Name a color"},
    {"role": "assistant", "content": "Blue"},
]


def tool_loop(opening: list[Any]) -> list[Any]:
    """Signed thinking earlier, and an open tool loop whose assistant message holds ``opening``
    (the history of tests/cases/target/anthropic-tool-loop-thinking.json, natively)."""

    def use(tool_use_id: str) -> Any:
        return {"type": "tool_use", "id": tool_use_id, "name": "get_weather", "input": {}}

    def result(tool_use_id: str) -> Any:
        block = {"type": "tool_result", "tool_use_id": tool_use_id, "content": "sunny"}
        return {"role": "user", "content": [block]}

    thinking = {"type": "thinking", "thinking": "call the tool", "signature": "c2lnbmF0dXJl"}
    return [
        {"role": "user", "content": "weather in Paris?"},
        {"role": "assistant", "content": [thinking, use("toolu_1")]},
        result("toolu_1"),
        {"role": "assistant", "content": "Sunny."},
        {"role": "user", "content": "and Rome?"},
        {"role": "assistant", "content": [*opening, use("toolu_2")]},
        result("toolu_2"),
    ]


def test_the_model_of_the_params_decides_and_a_keyword_wins() -> None:
    params = {"model": "claude-sonnet-4-6", "max_tokens": 10, "messages": PREFILL}
    healed = heal_anthropic(params)
    assert [(r.rule, r.message_index) for r in healed.repairs] == [
        ("anthropic-assistant-prefill", 1)
    ]
    assert healed.messages["messages"] == PREFILL[:1]
    assert heal_anthropic({**params, "model": "claude-sonnet-4-5"}).repairs == ()
    assert heal_anthropic(params, model="claude-sonnet-4-5").repairs == ()
    assert [r.rule for r in heal_anthropic(PREFILL, model="claude-sonnet-4-6").repairs] == [
        "anthropic-assistant-prefill"
    ]


def test_thinking_of_the_params_decides_the_tool_loop_report() -> None:
    loop = tool_loop([{"type": "text", "text": "Checking."}])

    def reported(config: Any, **keywords: Any) -> list[tuple[str, str, int | None]]:
        params = {"model": "claude-sonnet-4-5", "thinking": config, "messages": loop}
        repairs = heal_anthropic(params, **keywords).repairs
        return [(r.rule, r.action.value, r.message_index) for r in repairs]

    on = [("anthropic-tool-loop-thinking", "report", 5)]
    assert reported({"type": "enabled", "budget_tokens": 1024}) == on
    assert reported({"type": "adaptive"}) == on
    assert reported({"type": "disabled"}) == []
    assert reported({"type": "enabled", "budget_tokens": 1024}, thinking=False) == []


def test_tools_of_the_params_name_the_calls_not_offered() -> None:
    loop = tool_loop([{"type": "thinking", "thinking": "again", "signature": "c2ln"}])
    get_time = {"name": "get_time", "input_schema": {"type": "object"}}
    params = {"model": "claude-sonnet-4-5", "tools": [get_time], "messages": loop}
    repairs = heal_anthropic(params).repairs
    assert [(r.rule, r.action.value, r.tool_call_id) for r in repairs] == [
        ("tool-not-offered", "keep", "toolu_1"),
        ("tool-not-offered", "keep", "toolu_2"),
    ]
    assert heal_anthropic(params, tools=["get_weather"]).repairs == ()
    with pytest.raises(InputError, match="name"):
        heal_anthropic({**params, "tools": [{"name": 3}]})


def test_a_target_is_used_as_given() -> None:
    params = {"model": "claude-sonnet-4-6", "messages": PREFILL}
    assert heal_anthropic(params, target=heal.Target.of(model="claude-sonnet-4-5")).repairs == ()
    with pytest.raises(heal.ConfigError, match="either target"):
        heal_anthropic(params, model="claude-sonnet-4-5", target=heal.Target.of("anthropic"))
    with pytest.raises(heal.ConfigError, match="either target"):
        heal_anthropic(params, provider="bedrock", target=heal.Target.of("anthropic"))
