"""The OpenAI Responses adapter: lossless round trips, SDK-valid output, repairs at item indices."""

from __future__ import annotations

import copy
import json
from collections.abc import Iterable
from typing import Any

import pydantic
import pytest
from hypothesis import HealthCheck, given, settings
from openai.types.responses import ResponseInputParam

import heal
from heal import InputError, ProviderId, validate_messages
from heal.adapters.openai_responses import (
    ResponsesLoaded,
    dump_messages,
    heal_openai_responses,
    load,
    load_messages,
)
from heal.messages import (
    AssistantMessage,
    ModelMessage,
    Part,
    ReasoningPart,
    SystemMessage,
    TextPart,
    ToolCallPart,
    ToolMessage,
    UserMessage,
)

from .strategies_openai_responses import broken_input_items, input_items, valid_input_items

SDK = pydantic.TypeAdapter(ResponseInputParam)
PROPERTY = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
PROVIDER: ProviderId = "openai-responses"


def parts_of(message: ModelMessage) -> tuple[Part, ...]:
    """The parts of a message loaded from this format (never string content)."""
    assert not isinstance(message.content, str)
    return tuple(message.content)


def sdk_validate(items: list[dict[str, Any]]) -> None:
    """Validate against the SDK's request type, forcing its lazily validated iterables."""

    def force(value: Any) -> Any:
        if isinstance(value, dict):
            return {k: force(v) for k, v in value.items()}
        if isinstance(value, (str, bytes)):
            return value
        if isinstance(value, Iterable):
            return [force(v) for v in value]
        return value

    force(SDK.validate_python(items))


# --- round trips -----------------------------------------------------------------------------


@PROPERTY
@given(input_items())
def test_round_trip_is_lossless(native: list[dict[str, Any]]) -> None:
    before = copy.deepcopy(native)
    loaded = load(native)
    assert native == before, "load mutated its input"
    assert len(loaded.origins) == len(loaded.messages)
    assert dump_messages(loaded.messages) == native


@PROPERTY
@given(input_items())
def test_round_trip_survives_canonical_json(native: list[dict[str, Any]]) -> None:
    # Stored as AI SDK JSON (heal.dump_messages) and read back: nothing native is lost.
    stored = json.loads(json.dumps(heal.dump_messages(load_messages(native))))
    assert dump_messages(heal.load_messages(stored)) == native


@PROPERTY
@given(input_items())
def test_dumped_items_validate_against_the_sdk(native: list[dict[str, Any]]) -> None:
    sdk_validate(native)  # the strategy itself draws SDK-valid input
    sdk_validate(dump_messages(load_messages(native)))


@PROPERTY
@given(input_items())
def test_source_map_points_at_the_items(native: list[dict[str, Any]]) -> None:
    loaded = load(native)
    assert isinstance(loaded, ResponsesLoaded)
    assert loaded.part_origins is not None and loaded.sub_origins is not None
    for m, message in enumerate(loaded.messages):
        if isinstance(message.content, str):
            continue
        for p in range(len(message.content)):
            item, sub = loaded.native_location(m, p)
            assert item is not None and 0 <= item < len(native)
            assert loaded.origins[m] <= item
            if sub is not None:
                key = "summary" if native[item].get("type") == "reasoning" else "content"
                container = native[item][key]
                assert isinstance(container, list) and 0 <= sub < len(container)


# --- healing ---------------------------------------------------------------------------------


@PROPERTY
@given(valid_input_items())
def test_valid_history_comes_back_identical(native: list[dict[str, Any]]) -> None:
    sdk_validate(native)
    result = heal_openai_responses(native)
    assert result.repairs == (), [r.describe() for r in result.repairs]
    assert result.messages is native
    assert validate_messages(load_messages(native), provider=PROVIDER).valid


@PROPERTY
@given(broken_input_items())
def test_broken_history_heals_to_a_valid_one(case: tuple[list[dict[str, Any]], list[str]]) -> None:
    native, _ = case
    before = copy.deepcopy(native)
    result = heal_openai_responses(native)
    assert native == before, "healing mutated its input"
    report = validate_messages(load_messages(result.messages), provider=PROVIDER)
    assert report.valid, report.report()
    sdk_validate(result.messages)
    for repair in result.repairs:
        if repair.message_index is not None:
            assert 0 <= repair.message_index < len(native)
        if repair.anchor_index is not None:
            assert 0 <= repair.anchor_index < len(native)
    again = heal_openai_responses(result.messages)
    assert not again.changed, [r.describe() for r in again.repairs]


def _call(call_id: str, name: str = "get_weather", arguments: str = '{"city":"Paris"}') -> Any:
    return {"type": "function_call", "call_id": call_id, "name": name, "arguments": arguments}


def _output(call_id: str, output: str = "sunny") -> Any:
    return {"type": "function_call_output", "call_id": call_id, "output": output}


def _heal(native: list[Any]) -> tuple[list[Any], list[tuple[str, int | None, int | None]]]:
    result = heal_openai_responses(native)
    report = validate_messages(load_messages(result.messages), provider=PROVIDER)
    assert report.valid, report.report()
    sdk_validate(result.messages)
    return result.messages, [(r.rule, r.message_index, r.part_index) for r in result.repairs]


def test_call_without_output_gets_a_placeholder_output() -> None:
    native = [
        {"role": "user", "content": "weather?"},
        {"type": "reasoning", "id": "rs_1", "summary": []},
        _call("call_1"),
        {"role": "user", "content": "hurry"},
    ]
    out, repairs = _heal(native)
    assert repairs == [("orphan-tool-call", None, None)]
    result = heal_openai_responses(native)
    assert result.repairs[0].anchor_index == 1  # after the turn that starts at input[1]
    assert out[:3] == native[:3]
    assert out[3]["type"] == "function_call_output"
    assert out[3]["call_id"] == "call_1"
    assert "unavailable" in out[3]["output"]
    assert out[4] == native[3]


def test_output_without_call_is_removed() -> None:
    native = [
        {"role": "user", "content": "hi"},
        _output("call_gone"),
        {"role": "assistant", "content": "hello"},
    ]
    out, repairs = _heal(native)
    # The canonical tool message it was in is left empty and removed too: same item.
    assert repairs == [("orphan-tool-result", 1, None), ("empty-message", 1, None)]
    assert out == [native[0], native[2]]


def test_arguments_that_are_not_an_object_are_repaired() -> None:
    native = [
        {"role": "user", "content": "hi"},
        {"type": "reasoning", "id": "rs_1", "summary": [{"type": "summary_text", "text": "x"}]},
        _call("call_1", arguments="[1, 2]"),
        _output("call_1"),
    ]
    loaded = load_messages(native)
    call = loaded[1].content[1]
    assert isinstance(call, ToolCallPart) and call.input == "[1, 2]"  # the raw string, for heal
    out, repairs = _heal(native)
    assert repairs == [("invalid-tool-input", 2, None)]
    assert json.loads(out[2]["arguments"]) == {"raw": "[1, 2]"}


def test_invalid_tool_name_is_renamed_in_call_and_output() -> None:
    native = [
        {"role": "user", "content": "hi"},
        _call("call_1", name="web search"),
        {**_output("call_1"), "name": "web search"},
    ]
    out, repairs = _heal(native)
    assert ("invalid-tool-name", 1, None) in repairs
    assert ("invalid-tool-name", 2, None) in repairs
    assert out[1]["name"] == "web_search"
    assert out[2]["name"] == "web_search"


def test_empty_text_is_removed_at_its_content_index() -> None:
    native = [
        {"role": "user", "content": [{"type": "input_text", "text": "hi"}]},
        {
            "type": "message",
            "role": "assistant",
            "id": "msg_1",
            "status": "completed",
            "content": [
                {"type": "output_text", "text": "", "annotations": []},
                {"type": "output_text", "text": "hello", "annotations": []},
            ],
        },
    ]
    out, repairs = _heal(native)
    assert repairs == [("empty-text", 1, 0)]
    assert out[1]["content"] == [native[1]["content"][1]]
    assert out[1]["id"] == "msg_1"
    assert out[1]["status"] == "completed"


def test_message_item_with_several_contents_is_one_item() -> None:
    native = [
        {"role": "user", "content": "hi"},
        {
            "type": "message",
            "role": "assistant",
            "id": "msg_1",
            "status": "completed",
            "content": [
                {"type": "output_text", "text": "a", "annotations": []},
                {"type": "refusal", "refusal": "b"},
            ],
        },
    ]
    first, second = parts_of(load_messages(native)[1])
    assert first.provider_options is not None and second.provider_options is not None
    assert first.provider_options["openai"] == {"itemId": "msg_1"}
    assert "openai" not in second.provider_options
    result = heal_openai_responses(native)
    assert result.repairs == ()
    assert result.messages is native


def test_misplaced_output_is_moved_after_its_call() -> None:
    native = [
        {"role": "user", "content": "weather?"},
        _call("call_1"),
        {"role": "user", "content": "hurry"},
        _output("call_1"),
    ]
    out, repairs = _heal(native)
    assert repairs == [("misplaced-tool-result", 3, None)]  # moved, not removed
    assert out == [native[0], native[1], native[3], native[2]]


def test_repairs_are_reported_to_on_repair_at_native_indices() -> None:
    seen: list[heal.Repair] = []
    heal_openai_responses([{"role": "user", "content": "hi"}, _output("x")], on_repair=seen.append)
    assert [(r.rule, r.message_index) for r in seen] == [
        ("orphan-tool-result", 1),
        ("empty-message", 1),
    ]


def test_repairs_name_input_items() -> None:
    # Places in ``input`` (the request field), not heal's canonical messages: an insert follows
    # the LAST item of the assistant turn (items 1 to 3 make one canonical message).
    native = [
        {"role": "user", "content": "hi"},
        {"type": "reasoning", "id": "rs_1", "summary": [{"type": "summary_text", "text": "x"}]},
        _call("call_1"),
        _call("call_2", name="web search"),
        {**_output("call_2"), "name": "web search"},
        {
            "role": "user",
            "content": [{"type": "input_text", "text": " "}, {"type": "input_text", "text": "ok"}],
        },
    ]
    result = heal_openai_responses(native)
    places = {(r.rule, r.describe().split(": ")[0]) for r in result.repairs}
    assert places == {
        ("invalid-tool-name", "input[3]"),
        ("invalid-tool-name", "input[4]"),
        ("orphan-tool-call", "after input[3]"),
        ("empty-text", "input[5].content[0]"),
    }
    with pytest.raises(heal.HealingError) as caught:
        heal_openai_responses(native, strict=True)
    assert "  after input[3]: orphan-tool-call: " in str(caught.value)


def test_repairs_name_reasoning_summary_entries() -> None:
    reasoning = {
        "type": "reasoning",
        "id": "rs_1",
        "summary": [{"type": "summary_text", "text": "a"}, {"type": "summary_text", "text": "b"}],
    }
    native = [
        {"role": "user", "content": "hi"},
        reasoning,
        {"role": "assistant", "content": "x"},
        {"role": "user", "content": "again"},
        copy.deepcopy(reasoning),
        {"role": "assistant", "content": "y"},
    ]
    result = heal_openai_responses(native)
    assert [r.describe().split(": ")[0] for r in result.repairs] == [
        "input[4].summary[0]",
        "input[4].summary[1]",
    ]


def test_strict_raises_on_any_repair() -> None:
    with pytest.raises(heal.HealingError):
        heal_openai_responses([_output("x")], strict=True)


# --- mapping ---------------------------------------------------------------------------------


def test_ai_sdk_conventions() -> None:
    native = [
        {"role": "developer", "content": "rules"},
        {"role": "user", "content": "hi"},
        {
            "type": "reasoning",
            "id": "rs_1",
            "encrypted_content": "gAAAA",
            "summary": [
                {"type": "summary_text", "text": "first"},
                {"type": "summary_text", "text": "second"},
            ],
        },
        {
            "type": "message",
            "role": "assistant",
            "id": "msg_1",
            "phase": "commentary",
            "status": "completed",
            "content": [{"type": "output_text", "text": "let me check", "annotations": []}],
        },
        {**_call("call_1", arguments='{"city": "Paris"}'), "id": "fc_1"},
        _output("call_1"),
    ]
    messages = load_messages(native)
    assert [type(m) for m in messages] == [
        SystemMessage,
        UserMessage,
        AssistantMessage,
        ToolMessage,
    ]
    first, second, text, call = parts_of(messages[2])
    assert isinstance(first, ReasoningPart) and first.text == "first"
    assert isinstance(second, ReasoningPart) and second.text == "second"
    for part in (first, second):
        assert part.provider_options is not None
        assert part.provider_options["openai"] == {
            "itemId": "rs_1",
            "reasoningEncryptedContent": "gAAAA",
        }
    assert isinstance(text, TextPart)
    assert text.provider_options is not None
    assert text.provider_options["openai"] == {"itemId": "msg_1", "phase": "commentary"}
    assert isinstance(call, ToolCallPart)
    assert call.tool_call_id == "call_1" and call.input == {"city": "Paris"}
    assert call.provider_options is not None and call.provider_options["openai"] == {
        "itemId": "fc_1"
    }
    assert dump_messages(messages) == native  # the exact arguments text comes back


def test_exact_arguments_text_is_not_reused_after_a_repair() -> None:
    native = [{"role": "user", "content": "hi"}, _call("call_1", arguments='{"a": 1}')]
    messages = load_messages(native)
    call = messages[1].content[0]
    assert isinstance(call, ToolCallPart)
    changed = call.model_copy(update={"input": {"a": 2}})
    out = dump_messages([messages[0], AssistantMessage(content=(changed,))])
    assert out[1]["arguments"] == '{"a":2}'


def test_server_tool_items_are_opaque_provider_executed_calls() -> None:
    search = {
        "type": "web_search_call",
        "id": "ws_1",
        "status": "completed",
        "action": {"type": "search", "query": "news"},
    }
    native = [{"role": "user", "content": "news?"}, search, {"role": "assistant", "content": "x"}]
    messages = load_messages(native)
    part = messages[1].content[0]
    assert isinstance(part, ToolCallPart)
    assert part.provider_executed is True
    assert part.tool_name == "web_search_call"
    assert heal_openai_responses(native).repairs == ()
    assert dump_messages(messages) == native


def test_reasoning_item_reference_is_a_reasoning_part() -> None:
    native = [{"role": "user", "content": "hi"}, {"type": "item_reference", "id": "rs_9"}]
    part = load_messages(native)[1].content[0]
    assert isinstance(part, ReasoningPart)
    assert part.provider_options is not None
    assert part.provider_options["openai"] == {"itemId": "rs_9"}
    assert dump_messages(load_messages(native)) == native


def test_sdk_output_items_are_read_as_their_json() -> None:
    from openai.types.responses import ResponseFunctionToolCall, ResponseReasoningItem

    reasoning = ResponseReasoningItem(id="rs_1", type="reasoning", summary=[])
    call = ResponseFunctionToolCall(
        type="function_call", call_id="call_1", name="f", arguments="{}", id="fc_1"
    )
    messages = load_messages([{"role": "user", "content": "hi"}, reasoning, call])
    out = dump_messages(messages)
    assert out[1] == reasoning.model_dump(mode="json", exclude_unset=True)
    assert out[2] == call.model_dump(mode="json", exclude_unset=True)


def test_dumps_canonical_messages_from_elsewhere() -> None:
    messages = heal.load_messages(
        [
            {"role": "system", "content": "be brief"},
            {"role": "user", "content": [{"type": "text", "text": "hi"}]},
            {
                "role": "assistant",
                "content": [
                    {
                        "type": "reasoning",
                        "text": "a",
                        "providerOptions": {"openai": {"itemId": "rs_1"}},
                    },
                    {
                        "type": "reasoning",
                        "text": "b",
                        "providerOptions": {"openai": {"itemId": "rs_1"}},
                    },
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
    assert out == [
        {"role": "system", "content": "be brief"},
        {"role": "user", "content": [{"type": "input_text", "text": "hi"}]},
        {
            "type": "reasoning",
            "id": "rs_1",
            "summary": [
                {"type": "summary_text", "text": "a"},
                {"type": "summary_text", "text": "b"},
            ],
        },
        {"type": "function_call", "call_id": "c1", "name": "f", "arguments": '{"x":1}'},
        {"type": "function_call_output", "call_id": "c1", "output": '{"ok":true}'},
    ]
    sdk_validate(out)


def test_image_detail_defaults_to_auto_only_for_images_from_elsewhere() -> None:
    # ResponseInputImageParam requires "detail": an image from another format gets the API's
    # default, while Responses input without one (which the API takes) comes back unchanged.
    native = [
        {
            "role": "user",
            "content": [
                {"type": "input_image", "image_url": "https://x.test/a.png"},
                {"type": "input_image", "image_url": "https://x.test/b.png", "detail": "low"},
            ],
        }
    ]
    assert dump_messages(load_messages(native)) == native
    assert heal_openai_responses(native).messages is native

    foreign = heal.load_messages(
        [
            {
                "role": "user",
                "content": [
                    {"type": "image", "image": "https://x.test/a.png"},
                    {"type": "image", "image": "iVBORw0KGgo=", "mediaType": "image/png"},
                    {
                        "type": "image",
                        "image": "https://x.test/c.png",
                        "providerOptions": {"openai": {"imageDetail": "high"}},
                    },
                ],
            }
        ]
    )
    out = dump_messages(foreign)
    assert out == [
        {
            "role": "user",
            "content": [
                {"type": "input_image", "image_url": "https://x.test/a.png", "detail": "auto"},
                {
                    "type": "input_image",
                    "image_url": "data:image/png;base64,iVBORw0KGgo=",
                    "detail": "auto",
                },
                {"type": "input_image", "image_url": "https://x.test/c.png", "detail": "high"},
            ],
        }
    ]
    sdk_validate(out)


def test_openai_server_tool_calls_from_elsewhere_are_item_references() -> None:
    # The AI SDK keeps OpenAI's own web search with the item id as toolCallId; pydantic-ai keeps
    # it as an item id. The item holds the result: one reference stands for call and result.
    def server_call(cid: str, **extra: Any) -> list[dict[str, Any]]:
        return [
            {
                "type": "tool-call",
                "toolCallId": cid,
                "toolName": "web_search",
                "input": {},
                "providerExecuted": True,
                **extra,
            },
            {
                "type": "tool-result",
                "toolCallId": cid,
                "toolName": "web_search",
                "output": {"type": "json", "value": []},
            },
        ]

    messages = heal.load_messages(
        [
            {"role": "user", "content": "news?"},
            {
                "role": "assistant",
                "content": [
                    *server_call("ws_1"),
                    *server_call("call_2", providerOptions={"openai": {"itemId": "ws_2"}}),
                    {"type": "text", "text": "Nothing new."},
                ],
            },
        ]
    )
    out = dump_messages(messages)
    assert out[1:] == [
        {"type": "item_reference", "id": "ws_1"},
        {"type": "item_reference", "id": "ws_2"},
        {"role": "assistant", "content": "Nothing new."},
    ]
    sdk_validate(out)

    foreign = heal.load_messages([{"role": "assistant", "content": server_call("srvtoolu_1")}])
    with pytest.raises(InputError, match="without an OpenAI item id"):
        dump_messages(foreign)


def test_tool_output_content_with_no_output_element_is_written_as_json_text() -> None:
    # An Anthropic search result in a tool result ("custom" content) has no Responses element.
    custom = {"type": "custom", "providerOptions": {"heal": {"anthropic": {"block": {"x": 1}}}}}
    messages = heal.load_messages(
        [
            {
                "role": "assistant",
                "content": [
                    {"type": "tool-call", "toolCallId": "c1", "toolName": "f", "input": {}}
                ],
            },
            {
                "role": "tool",
                "content": [
                    {
                        "type": "tool-result",
                        "toolCallId": "c1",
                        "toolName": "f",
                        "output": {"type": "content", "value": [custom]},
                    }
                ],
            },
        ]
    )
    out = dump_messages(messages)
    assert out[1] == {
        "type": "function_call_output",
        "call_id": "c1",
        "output": json.dumps([custom], separators=(",", ":")),
    }
    sdk_validate(out)


def test_another_providers_reasoning_cannot_be_dumped() -> None:
    messages = heal.load_messages(
        [
            {
                "role": "assistant",
                "content": [
                    {
                        "type": "reasoning",
                        "text": "hmm",
                        "providerOptions": {"anthropic": {"signature": "sig"}},
                    },
                    {"type": "text", "text": "hi"},
                ],
            }
        ]
    )
    with pytest.raises(InputError) as info:
        dump_messages(messages)
    assert info.value.path == "messages[0].content[0]"


# --- malformed input -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("native", "path"),
    [
        ({"input": []}, "input"),
        ("hello", "input"),
        ([42], "input[0]"),
        ([{"content": "no role"}], "input[0]"),
        ([{"role": "robot", "content": "x"}], "input[0].role"),
        ([{"role": "user", "content": 3}], "input[0].content"),
        ([{"role": "user", "content": [{"type": "input_audio"}]}], "input[0].content[0].type"),
        (
            [{"role": "user", "content": [{"type": "input_text", "text": 1}]}],
            "input[0].content[0].text",
        ),
        (
            [{"role": "user", "content": [{"type": "input_image", "detail": "auto"}]}],
            "input[0].content[0]",
        ),
        ([{"role": "system", "content": []}], "input[0].content"),
        ([{"type": "function_call", "name": "f", "arguments": "{}"}], "input[0]"),
        (
            [{"type": "function_call", "call_id": "c", "name": "f", "arguments": {}}],
            "input[0].arguments",
        ),
        ([{"type": "function_call_output", "call_id": "c", "output": 5}], "input[0].output"),
        ([{"type": "reasoning", "id": "rs", "summary": "x"}], "input[0].summary"),
        (
            [{"type": "reasoning", "id": "rs", "summary": [{"type": "other", "text": "x"}]}],
            "input[0].summary[0].type",
        ),
        (
            [{"role": "assistant", "content": [{"type": "input_image", "image_url": "x"}]}],
            "input[0].content[0].type",
        ),
        ([{"type": 7}], "input[0].type"),
    ],
)
def test_malformed_input_names_the_place(native: Any, path: str) -> None:
    with pytest.raises(InputError) as info:
        load(native)
    assert info.value.path == path, str(info.value)
    assert str(info.value).startswith(f"{path}: ")


def test_a_single_sdk_object_is_not_a_history() -> None:
    from openai.types.responses import ResponseReasoningItem

    with pytest.raises(InputError) as info:
        load(ResponseReasoningItem(id="rs_1", type="reasoning", summary=[]))
    assert info.value.path == "input"


# --- what heal adds, the format can write ------------------------------------------------------


def test_deepseek_empty_reasoning_is_written_as_a_reasoning_text_item() -> None:
    # missing-reasoning-content adds an empty reasoning part to a tool-call turn for DeepSeek,
    # whose Responses endpoint wants the turn's reasoning_text back: it is written, not refused.
    native = [{"role": "user", "content": "weather?"}, _call("call_1"), _output("call_1")]
    result = heal_openai_responses(native, provider="deepseek")
    assert [r.rule for r in result.repairs] == ["missing-reasoning-content"]
    assert result.messages == [
        native[0],
        {"type": "reasoning", "summary": [], "content": [{"type": "reasoning_text", "text": ""}]},
        *native[1:],
    ]
    again = heal_openai_responses(result.messages, provider="deepseek")
    assert again.repairs == ()
    assert again.messages is result.messages


# --- items that pair like function calls -------------------------------------------------------

_CUSTOM_CALL = {
    "type": "custom_tool_call",
    "call_id": "call_c1",
    "name": "apply_diff",
    "input": "*** Begin Patch\n*** End Patch",
    "id": "ctc_1",
}
_CUSTOM_OUTPUT = {"type": "custom_tool_call_output", "call_id": "call_c1", "output": "applied"}
_SHELL_CALL = {
    "type": "local_shell_call",
    "id": "lsh_1",
    "call_id": "call_s1",
    "status": "completed",
    "action": {"type": "exec", "command": ["ls", "-a"], "env": {}},
}
_SHELL_OUTPUT = {"type": "local_shell_call_output", "id": "call_s1", "output": '{"stdout":"."}'}
_SEARCH_CALL = {
    "type": "tool_search_call",
    "id": "ts_1",
    "call_id": "call_t1",
    "execution": "client",
    "status": "completed",
    "arguments": {"query": "weather"},
}
_SEARCH_OUTPUT = {
    "type": "tool_search_output",
    "call_id": "call_t1",
    "execution": "client",
    "status": "completed",
    "tools": [{"type": "function", "name": "get_weather", "parameters": {}, "strict": True}],
}
PAIRED_KINDS = [
    pytest.param(_CUSTOM_CALL, _CUSTOM_OUTPUT, "apply_diff", id="custom_tool_call"),
    pytest.param(_SHELL_CALL, _SHELL_OUTPUT, "local_shell", id="local_shell_call"),
    pytest.param(_SEARCH_CALL, _SEARCH_OUTPUT, "tool_search", id="tool_search_call"),
]


def _turn(*items: dict[str, Any]) -> list[dict[str, Any]]:
    return [{"role": "user", "content": "go"}, *items, {"role": "assistant", "content": "done"}]


@pytest.mark.parametrize(("call", "output", "name"), PAIRED_KINDS)
def test_paired_items_are_tool_calls_and_results(
    call: dict[str, Any], output: dict[str, Any], name: str
) -> None:
    native = _turn(call, output)
    messages = load_messages(native)
    part = parts_of(messages[1])[0]
    assert isinstance(part, ToolCallPart)
    assert (part.tool_call_id, part.tool_name, part.provider_executed) == (
        call["call_id"],
        name,
        None,
    )
    assert isinstance(part.input, dict)
    assert isinstance(messages[2], ToolMessage)
    result = parts_of(messages[2])[0]
    assert (result.tool_call_id, result.tool_name) == (call["call_id"], name)  # type: ignore[union-attr]
    assert dump_messages(messages) == native
    stored = json.loads(json.dumps(heal.dump_messages(messages)))
    assert dump_messages(heal.load_messages(stored)) == native
    healed = heal_openai_responses(native)
    assert healed.repairs == ()
    assert healed.messages is native


@pytest.mark.parametrize(("call", "output", "name"), PAIRED_KINDS)
def test_paired_item_without_its_output_gets_a_placeholder_of_its_kind(
    call: dict[str, Any], output: dict[str, Any], name: str
) -> None:
    out, repairs = _heal([{"role": "user", "content": "go"}, call])
    assert repairs == [("orphan-tool-call", None, None)]
    assert len(out) == 3
    placeholder = out[2]
    assert placeholder["type"] == output["type"]
    assert placeholder.get("call_id", placeholder.get("id")) == call["call_id"]
    assert heal_openai_responses(out).repairs == ()


@pytest.mark.parametrize(("call", "output", "name"), PAIRED_KINDS)
def test_paired_output_without_its_call_is_removed(
    call: dict[str, Any], output: dict[str, Any], name: str
) -> None:
    out, repairs = _heal(_turn(output))
    # The canonical tool message it was in is left empty and removed too: same item.
    assert repairs == [("orphan-tool-result", 1, None), ("empty-message", 1, None)]
    assert out == [{"role": "user", "content": "go"}, {"role": "assistant", "content": "done"}]


@pytest.mark.parametrize(("call", "output", "name"), PAIRED_KINDS)
def test_paired_output_before_its_call_is_moved_after_it(
    call: dict[str, Any], output: dict[str, Any], name: str
) -> None:
    native = [{"role": "user", "content": "go"}, output, call, {"role": "user", "content": "ok?"}]
    out, repairs = _heal(native)
    assert [rule for rule, _, _ in repairs] == ["misplaced-tool-result"]
    assert out == [native[0], call, output, native[3]]


@pytest.mark.parametrize(("call", "output", "name"), PAIRED_KINDS)
def test_paired_output_given_twice_is_kept_once(
    call: dict[str, Any], output: dict[str, Any], name: str
) -> None:
    out, repairs = _heal(_turn(call, output, output))
    assert [rule for rule, _, _ in repairs] == ["duplicate-tool-result"]
    assert out == _turn(call, output)


def test_local_shell_output_named_by_call_id_keeps_that_key() -> None:
    # The SDK types name the call by "id"; the AI SDK writes "call_id". Either comes back as is.
    output = {"type": "local_shell_call_output", "call_id": "call_s1", "output": "{}"}
    native = _turn(_SHELL_CALL, output)
    assert heal_openai_responses(native).messages is native
    assert dump_messages(load_messages(native)) == native
    result = heal_openai_responses(_turn(_SHELL_CALL, output, output))
    assert [r.rule for r in result.repairs] == ["duplicate-tool-result"]
    assert result.messages == native


def test_server_run_tool_search_stays_opaque() -> None:
    # Run by the server, the search carries its own output, as a web search does.
    call = {**_SEARCH_CALL, "execution": "server", "call_id": None}
    output = {**_SEARCH_OUTPUT, "execution": "server", "call_id": None, "id": "tso_1"}
    native = _turn(call, output)
    parts = parts_of(load_messages(native)[1])
    assert [p.provider_executed for p in parts if isinstance(p, ToolCallPart)] == [True, True]
    assert heal_openai_responses(native).repairs == ()
    assert dump_messages(load_messages(native)) == native


def test_developer_message_turned_into_user_text_is_written_as_user() -> None:
    # google-mid-conversation-system turns it into a user message, which keeps the item's other
    # fields but not its role.
    native = [{"role": "assistant", "content": "hi"}, {"role": "developer", "content": "be brief"}]
    result = heal_openai_responses(native, provider="google")
    assert "google-mid-conversation-system" in [r.rule for r in result.repairs]
    assert result.messages[1]["role"] == "user"
    assert not heal_openai_responses(result.messages, provider="google").changed


# --- aborted turns ---------------------------------------------------------------------------


def _aborted_marker(part_or_message: Any) -> Any:
    return ((part_or_message.provider_options or {}).get("heal") or {}).get("aborted")


@pytest.mark.parametrize("status", ["incomplete", "in_progress"])
def test_a_cut_off_call_without_output_is_removed(status: str) -> None:
    # A call the response was cut off in may be partial: removed rather than answered
    # (openclaw/openclaw#14322: a placeholder after a partial call drew a fresh 400).
    cut = {**_call("call_2", arguments='{"ci'), "id": "fc_2", "status": status}
    native = [{"role": "user", "content": "weather?"}, _call("call_1"), cut]
    native.append({"role": "user", "content": "hurry"})
    messages = load_messages(native)
    calls = parts_of(messages[1])
    assert [_aborted_marker(p) for p in calls] == [None, True]
    assert dump_messages(messages) == native  # the marker is never written; the status is
    out, repairs = _heal(native)
    assert ("orphan-tool-call", 2, None) in repairs
    assert [item.get("call_id") for item in out] == [None, "call_1", "call_1", None]
    assert out[2]["type"] == "function_call_output"
    # placeholder-every-call answers it as heal did before it read the status.
    kept = heal_openai_responses(native, policy={"orphan-tool-call": "placeholder-every-call"})
    assert [r.rule for r in kept.repairs].count("orphan-tool-call") == 2
    assert [i["call_id"] for i in kept.messages if i.get("type") == "function_call_output"] == [
        "call_1",
        "call_2",
    ]


def test_an_incomplete_assistant_message_marks_its_turn_aborted() -> None:
    message = {
        "type": "message",
        "role": "assistant",
        "id": "msg_1",
        "status": "incomplete",
        "content": [{"type": "output_text", "text": "Let me che", "annotations": []}],
    }
    native = [{"role": "user", "content": "weather?"}, _call("call_1"), message]
    loaded = load_messages(native)
    assert _aborted_marker(loaded[1]) is True
    assert dump_messages(loaded) == native
    out, repairs = _heal(native)
    assert repairs == [("orphan-tool-call", 1, None)]
    assert out == [native[0], message]


def test_a_completed_turn_heals_as_before() -> None:
    done = {**_call("call_1"), "id": "fc_1", "status": "completed"}
    native = [{"role": "user", "content": "weather?"}, done, {"role": "user", "content": "hurry"}]
    assert _aborted_marker(parts_of(load_messages(native)[1])[0]) is None
    out, repairs = _heal(native)
    assert repairs == [("orphan-tool-call", None, None)]
    assert out[2]["call_id"] == "call_1"
