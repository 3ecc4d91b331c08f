"""The Gemini adapter: lossless round trips (dicts in both spellings, SDK objects), SDK-valid
output, repairs at native (content, part) indices."""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest
from google.genai import types
from hypothesis import HealthCheck, given, settings

import heal
from heal import InputError, ProviderId, validate_messages
from heal.adapters.gemini import (
    SYSTEM_INDEX,
    dump_messages,
    heal_gemini,
    load,
    load_messages,
    read_request,
)
from heal.messages import (
    AssistantMessage,
    FilePart,
    ModelMessage,
    Part,
    ReasoningPart,
    SystemMessage,
    ToolCallPart,
    ToolMessage,
    ToolResultPart,
    UserMessage,
)
from heal.providers import PROVIDERS, get_profile

from .strategies_gemini import broken_gemini_histories, gemini_histories, valid_gemini_histories

PROPERTY = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
PROVIDER: ProviderId = "google"


def parts_of(message: ModelMessage) -> tuple[Part, ...]:
    """The parts of a message loaded from this format (never string content)."""
    assert not isinstance(message.content, str)
    return tuple(message.content)


def contents_of(native: Any) -> list[Any]:
    contents = native["contents"] if isinstance(native, dict) else native
    assert isinstance(contents, list)
    return contents


def sdk_validate(native: Any) -> None:
    for content in contents_of(native):
        types.Content.model_validate(content)
    if isinstance(native, dict):
        for key in ("system_instruction", "systemInstruction"):
            if isinstance(native.get(key), dict):
                types.Content.model_validate(native[key])


# --- round trips -----------------------------------------------------------------------------


@PROPERTY
@given(gemini_histories(flavor="json") | gemini_histories(flavor="python"))
def test_round_trip_is_lossless(native: Any) -> None:
    before = copy.deepcopy(native)
    loaded = load(native)
    assert native == before, "load mutated its input"
    assert len(loaded.origins) == len(loaded.messages)
    assert dump_messages(loaded.messages) == native


@PROPERTY
@given(gemini_histories(flavor="json"))
def test_round_trip_survives_canonical_json(native: Any) -> None:
    # Stored as AI SDK JSON (heal.dump_messages) and read back: nothing native is lost.
    stored = json.loads(json.dumps(heal.dump_messages(load_messages(native))))
    assert dump_messages(heal.load_messages(stored)) == native


@PROPERTY
@given(gemini_histories(flavor="json") | gemini_histories(flavor="python"))
def test_dumped_contents_validate_against_the_sdk(native: Any) -> None:
    sdk_validate(native)  # the strategy itself draws SDK-valid contents
    sdk_validate(dump_messages(load_messages(native)))


@PROPERTY
@given(gemini_histories(flavor="python", wrapped=False))
def test_sdk_objects_round_trip(native: list[dict[str, Any]]) -> None:
    objects = [types.Content.model_validate(content) for content in native]
    messages = load_messages(objects)
    assert dump_messages(messages, sdk=True) == objects
    # As dicts they come back in the Python SDK's spelling, with base64 strings for bytes.
    for content in dump_messages(messages):
        assert types.Content.model_validate(content) in objects


@PROPERTY
@given(gemini_histories())
def test_source_map_points_at_the_parts(native: Any) -> None:
    loaded = load(native)
    contents = contents_of(native)
    assert loaded.part_origins is not None
    for m, message in enumerate(loaded.messages):
        origin = loaded.origins[m]
        if isinstance(message, SystemMessage):
            assert origin == SYSTEM_INDEX
            continue
        assert 0 <= origin < len(contents)
        parts = contents[origin].get("parts", [])
        for p in range(len(message.content)):
            index, sub = loaded.native_location(m, p)
            assert index == origin
            assert sub is not None and 0 <= sub < len(parts)


# --- healing ---------------------------------------------------------------------------------


@PROPERTY
@given(valid_gemini_histories(flavor="json") | valid_gemini_histories(flavor="python"))
def test_valid_history_comes_back_identical(native: Any) -> None:
    sdk_validate(native)
    result = heal_gemini(native)
    assert result.repairs == (), [r.describe() for r in result.repairs]
    assert result.messages is native
    assert validate_messages(load_messages(native), provider=PROVIDER).valid


@PROPERTY
@given(broken_gemini_histories())
def test_broken_history_heals_to_a_valid_one(case: tuple[Any, list[str]]) -> None:
    native, _ = case
    before = copy.deepcopy(native)
    result = heal_gemini(native)
    assert native == before, "healing mutated its input"
    assert type(result.messages) is type(native)
    report = validate_messages(load_messages(result.messages), provider=PROVIDER)
    assert report.valid, report.report()
    sdk_validate(result.messages)
    count = len(contents_of(native))
    for repair in result.repairs:
        if repair.message_index is not None:
            assert repair.message_index == SYSTEM_INDEX or 0 <= repair.message_index < count
    again = heal_gemini(result.messages)
    assert not again.changed, [r.describe() for r in again.repairs]


def _user(text: str) -> dict[str, Any]:
    return {"role": "user", "parts": [{"text": text}]}


def _model_call(name: str = "get_weather", **call: Any) -> dict[str, Any]:
    return {
        "role": "model",
        "parts": [
            {"function_call": {"name": name, "args": {"city": "Paris"}, **call}},
        ],
    }


def _response(name: str = "get_weather", **response: Any) -> dict[str, Any]:
    return {"function_response": {"name": name, "response": {"temp": 20}, **response}}


def _heal(native: Any) -> tuple[Any, list[tuple[str, int | None, int | None]]]:
    result = heal_gemini(native)
    report = validate_messages(load_messages(result.messages), provider=PROVIDER)
    assert report.valid, report.report()
    sdk_validate(result.messages)
    return result.messages, [(r.rule, r.message_index, r.part_index) for r in result.repairs]


def test_call_without_response_gets_a_placeholder_response() -> None:
    native = [_user("weather?"), _model_call(), _user("hurry")]
    out, repairs = _heal(native)
    assert ("orphan-tool-call", None, None) in repairs
    assert out[0] == native[0]
    assert out[2]["role"] == "user"
    (response,) = out[2]["parts"]
    # No id: the call had none, and Gemini pairs them by position.
    assert response["function_response"]["name"] == "get_weather"
    assert "id" not in response["function_response"]
    assert "unavailable" in json.dumps(response)
    assert out[3] == native[2]


def test_response_without_call_is_removed() -> None:
    native = [_user("hi"), {"role": "user", "parts": [_response()]}, _user("again")]
    out, repairs = _heal(native)
    assert repairs[0] == ("orphan-tool-result", 1, 0)
    assert out == [native[0], native[2]]


def test_args_that_are_not_an_object_are_repaired() -> None:
    native = [
        _user("hi"),
        {"role": "model", "parts": [{"function_call": {"name": "f", "args": "[1]"}}]},
        {"role": "user", "parts": [{"function_response": {"name": "f", "response": {}}}]},
    ]
    out, repairs = _heal(native)
    assert ("invalid-tool-input", 1, 0) in repairs
    assert out[1]["parts"][0]["function_call"]["args"] == {"raw": "[1]"}


def test_invalid_tool_name_is_renamed_in_call_and_response() -> None:
    native = [
        _user("hi"),
        _model_call("web search"),
        {"role": "user", "parts": [_response("web search")]},
    ]
    out, repairs = _heal(native)
    assert ("invalid-tool-name", 1, 0) in repairs
    assert ("invalid-tool-name", 2, 0) in repairs
    assert out[1]["parts"][0]["function_call"]["name"] == "web_search"
    assert out[2]["parts"][0]["function_response"]["name"] == "web_search"


def test_empty_text_is_removed_at_its_part_index() -> None:
    native = [
        {"role": "user", "parts": [{"text": "hi"}, {"text": ""}]},
        {"role": "model", "parts": [{"text": "hello"}]},
    ]
    out, repairs = _heal(native)
    assert repairs == [("empty-text", 0, 1)]
    assert out == [_user("hi"), native[1]]


def test_ids_pair_calls_and_responses_when_present() -> None:
    native = [
        _user("weather in two cities?"),
        {
            "role": "model",
            "parts": [
                {"function_call": {"name": "get_weather", "id": "a", "args": {}}},
                {"function_call": {"name": "get_weather", "id": "b", "args": {}}},
            ],
        },
        {
            "role": "user",
            "parts": [_response(id="b"), _response(id="a")],
        },
        {"role": "model", "parts": [{"text": "done"}]},
    ]
    messages = load_messages(native)
    calls = [p.tool_call_id for p in messages[1].content if isinstance(p, ToolCallPart)]
    results = [p.tool_call_id for p in messages[2].content if isinstance(p, ToolResultPart)]
    assert calls == ["a", "b"] and results == ["b", "a"]
    assert dump_messages(messages) == native


def test_responses_without_ids_pair_by_name_in_order() -> None:
    native = [
        _user("weather?"),
        {
            "role": "model",
            "parts": [
                {
                    "function_call": {"name": "get_weather", "args": {"city": "Paris"}},
                    "thought_signature": "c2ln",
                },
                {"function_call": {"name": "get_time", "args": {}}},
                {"function_call": {"name": "get_weather", "args": {"city": "Rome"}}},
            ],
        },
        {
            "role": "user",
            "parts": [_response("get_weather"), _response("get_time"), _response("get_weather")],
        },
    ]
    messages = load_messages(native)
    calls = [p.tool_call_id for p in messages[1].content if isinstance(p, ToolCallPart)]
    results = [p.tool_call_id for p in messages[2].content if isinstance(p, ToolResultPart)]
    assert calls == ["c0001p000", "c0001p001", "c0001p002"]
    assert results == calls
    result = heal_gemini(native)
    assert result.repairs == () and result.messages is native


def test_a_made_up_id_is_one_mistral_takes() -> None:
    # An id heal makes up is never written back (the native call has none), so a rule that
    # renamed it would rename it again on every heal: it is nine letters and digits, the one
    # form Mistral takes, and every provider's id rules take it as it is.
    native = [
        _user("weather?"),
        {"role": "model", "parts": [{"function_call": {"name": "get_weather", "args": {}}}]},
        {"role": "user", "parts": [_response("get_weather")]},
        {"role": "model", "parts": [{"text": "Sunny."}]},
    ]
    messages = load_messages(native)
    call = messages[1].content[0]
    assert isinstance(call, ToolCallPart)
    for provider in PROVIDERS:
        assert get_profile(provider).accepts_tool_call_id(call.tool_call_id), provider
    result = heal_gemini(native, provider="mistral")
    assert result.repairs == () and result.messages is native
    # Far into a long history the id grows past nine characters, still unique.
    far = [_user("hi"), {"role": "model", "parts": [{"text": "hello"}]}] * 5000 + native
    ids = []
    for m in load_messages(far)[-3:-1]:
        for p in m.content:
            assert isinstance(p, (ToolCallPart, ToolResultPart))
            ids.append(p.tool_call_id)
    assert ids == ["c10001p000", "c10001p000"]


# --- mapping ---------------------------------------------------------------------------------


def test_ai_sdk_conventions() -> None:
    native = {
        "systemInstruction": {"parts": [{"text": "be brief"}]},
        "contents": [
            {
                "role": "user",
                "parts": [
                    {"text": "hi"},
                    {"inlineData": {"mimeType": "image/png", "data": "aGk="}},
                ],
            },
            {
                "role": "model",
                "parts": [
                    {"text": "thinking", "thought": True, "thoughtSignature": "c2ln"},
                    {
                        "functionCall": {"name": "f", "args": {"a": 1}},
                        "thoughtSignature": "c2lnMg==",
                    },
                ],
            },
            {"role": "user", "parts": [{"functionResponse": {"name": "f", "response": {"ok": 1}}}]},
        ],
    }
    system, user, assistant, tool = load_messages(native)
    assert isinstance(system, SystemMessage) and system.content == "be brief"
    assert isinstance(user, UserMessage)
    image = user.content[1]
    assert isinstance(image, FilePart) and image.media_type == "image/png"
    assert isinstance(assistant, AssistantMessage)
    thought, call = parts_of(assistant)
    assert isinstance(thought, ReasoningPart) and thought.text == "thinking"
    assert thought.provider_options is not None
    assert thought.provider_options["google"] == {"thoughtSignature": "c2ln"}
    assert thought.provider_options["heal"] == {"gemini": {"camel": True}}  # the spelling
    assert isinstance(call, ToolCallPart) and call.input == {"a": 1}
    assert call.provider_options is not None
    assert call.provider_options["google"] == {"thoughtSignature": "c2lnMg=="}
    assert isinstance(tool, ToolMessage)
    assert dump_messages([system, user, assistant, tool]) == native


def test_user_content_mixing_responses_and_text_is_written_back_as_one() -> None:
    native = [
        _user("weather?"),
        _model_call(),
        {"role": "user", "parts": [_response(), {"text": "and tomorrow?"}]},
    ]
    messages = load_messages(native)
    assert [m.role for m in messages] == ["user", "assistant", "tool", "user"]
    assert load(native).origins == [0, 1, 2, 2]
    assert dump_messages(messages) == native
    assert heal_gemini(native).messages is native


def test_bytes_signatures_come_back_as_bytes() -> None:
    native = [
        _user("hi"),
        {"role": "model", "parts": [{"text": "ok", "thought_signature": b"\x00\xff"}]},
    ]
    (part,) = parts_of(load_messages(native)[1])
    assert part.provider_options is not None
    assert part.provider_options["google"] == {"thoughtSignature": "AP8="}
    assert dump_messages(load_messages(native)) == native


def test_sdk_objects_come_back_as_sdk_objects() -> None:
    native = [
        types.Content(role="user", parts=[types.Part(text="hi")]),
        types.Content(
            role="model",
            parts=[
                types.Part(
                    function_call=types.FunctionCall(name="f", args={}),
                    thought_signature=b"sig",
                )
            ],
        ),
    ]
    result = heal_gemini(native)
    assert all(isinstance(c, types.Content) for c in result.messages)
    placeholder = result.messages[2].parts
    assert placeholder is not None and placeholder[0].function_response is not None
    assert placeholder[0].function_response.name == "f"
    assert result.messages[1] == native[1]


def test_code_execution_is_provider_executed() -> None:
    native = [
        _user("compute"),
        {
            "role": "model",
            "parts": [
                {"executable_code": {"language": "PYTHON", "code": "print(1)"}},
                {"code_execution_result": {"outcome": "OUTCOME_OK", "output": "1"}},
                {"text": "1"},
            ],
        },
    ]
    call, result, _ = parts_of(load_messages(native)[1])
    assert isinstance(call, ToolCallPart) and call.provider_executed
    assert isinstance(result, ToolResultPart) and result.tool_call_id == call.tool_call_id
    assert heal_gemini(native).repairs == ()


def test_dumps_canonical_messages_from_elsewhere() -> None:
    messages = heal.load_messages(
        [
            {"role": "system", "content": "be brief"},
            {"role": "user", "content": "hi"},
            {
                "role": "assistant",
                "content": [
                    {
                        "type": "reasoning",
                        "text": "hmm",
                        "providerOptions": {"anthropic": {"signature": "not gemini's"}},
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
                        "output": {"type": "text", "value": "ok"},
                    }
                ],
            },
        ]
    )
    out = dump_messages(messages)
    assert out == {
        "system_instruction": {"parts": [{"text": "be brief"}]},
        "contents": [
            {"role": "user", "parts": [{"text": "hi"}]},
            {
                "role": "model",
                "parts": [
                    # Another provider's signature never becomes a thought_signature.
                    {"text": "hmm", "thought": True},
                    {"function_call": {"name": "f", "id": "c1", "args": {"x": 1}}},
                ],
            },
            {
                "role": "user",
                "parts": [
                    {
                        "function_response": {
                            "id": "c1",
                            "name": "f",
                            "response": {"name": "f", "content": "ok"},
                        }
                    }
                ],
            },
        ],
    }
    sdk_validate(out)


def test_system_message_after_contents_cannot_be_dumped() -> None:
    messages = heal.load_messages(
        [{"role": "user", "content": "hi"}, {"role": "system", "content": "late"}]
    )
    with pytest.raises(InputError) as info:
        dump_messages(messages)
    assert info.value.path == "messages[1]"


def test_heal_keeps_other_request_fields() -> None:
    native = {
        "contents": [_user("hi"), {"role": "model", "parts": [{"text": ""}, {"text": "ok"}]}],
        "system_instruction": "be brief",
        "tools": [{"function_declarations": []}],
    }
    result = heal_gemini(native)
    assert result.messages == {
        "contents": [_user("hi"), {"role": "model", "parts": [{"text": "ok"}]}],
        "system_instruction": "be brief",
        "tools": [{"function_declarations": []}],
    }


# --- malformed input -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("native", "path"),
    [
        ("hello", "contents"),
        ({"messages": []}, "contents"),
        ([42], "contents[0]"),
        ([{"role": "assistant", "parts": []}], "contents[0].role"),
        ([{"role": "user", "parts": {"text": "x"}}], "contents[0].parts"),
        ([{"role": "user", "parts": [{"thought": True}]}], "contents[0].parts[0]"),
        ([{"role": "user", "parts": [{"text": "a", "inline_data": {}}]}], "contents[0].parts[0]"),
        ([{"role": "user", "parts": [{"text": 3}]}], "contents[0].parts[0].text"),
        (
            [{"role": "user", "parts": [{"text": "a", "text_": 1, "thought_signature": 5}]}],
            "contents[0].parts[0].thought_signature",
        ),
        (
            [{"role": "user", "parts": [{"function_call": {"name": "f"}}]}],
            "contents[0].parts[0].function_call",
        ),
        (
            [{"role": "model", "parts": [{"functionResponse": {"name": "f"}}]}],
            "contents[0].parts[0].functionResponse",
        ),
        (
            [{"role": "model", "parts": [{"function_call": {"args": {}}}]}],
            "contents[0].parts[0].function_call",
        ),
        (
            [{"role": "user", "parts": [{"function_response": {"response": {}}}]}],
            "contents[0].parts[0].function_response",
        ),
        (
            [{"role": "user", "parts": [{"inline_data": {"mime_type": "image/png"}}]}],
            "contents[0].parts[0].inline_data",
        ),
        (
            [
                {
                    "role": "user",
                    "parts": [{"text": "a", "thoughtSignature": "x", "thought_signature": "y"}],
                }
            ],
            "contents[0].parts[0]",
        ),
        (
            {"contents": [], "system_instruction": {"parts": [{"inline_data": {}}]}},
            "system_instruction.parts[0]",
        ),
        ({"contents": [], "system_instruction": 5}, "system_instruction"),
    ],
)
def test_malformed_input_names_the_place(native: Any, path: str) -> None:
    with pytest.raises(InputError) as info:
        load(native)
    assert info.value.path == path, str(info.value)
    assert str(info.value).startswith(f"{path}: ")


def test_a_single_sdk_content_is_not_a_history() -> None:
    with pytest.raises(InputError) as info:
        load(types.Content(role="user", parts=[types.Part(text="hi")]))
    assert info.value.path == "contents"


def test_a_null_system_instruction_is_no_system_instruction() -> None:
    native = {"contents": [_user("hi")], "system_instruction": None}
    assert [m.role for m in load_messages(native)] == ["user"]
    assert heal_gemini(native).messages is native


# --- the target --------------------------------------------------------------------------------

UNSIGNED_CALL: list[Any] = [
    {"role": "user", "parts": [{"text": "weather?"}]},
    {
        "role": "model",
        "parts": [{"function_call": {"id": "c1", "name": "get_weather", "args": {}}}],
    },
    {
        "role": "user",
        "parts": [{"function_response": {"id": "c1", "name": "get_weather", "response": {}}}],
    },
]


def test_the_model_of_the_request_decides_and_a_keyword_wins() -> None:
    request = {"model": "gemini-3-pro-preview", "contents": UNSIGNED_CALL}
    healed = heal_gemini(request)
    assert [(r.rule, r.message_index, r.part_index) for r in healed.repairs] == [
        ("google-missing-thought-signature", 1, 0)
    ]
    assert heal_gemini({**request, "model": "gemini-2.5-flash"}).repairs == ()
    assert heal_gemini(request, model="gemini-2.5-flash").repairs == ()


def test_tools_and_thinking_of_the_request() -> None:
    def get_weather(city: str) -> str:
        return "sunny"

    get_time = types.Tool(function_declarations=[types.FunctionDeclaration(name="get_time")])
    request = {"model": "gemini-2.5-flash", "contents": UNSIGNED_CALL, "tools": [get_time]}
    assert [(r.rule, r.action.value, r.tool_call_id) for r in heal_gemini(request).repairs] == [
        ("tool-not-offered", "keep", "c1")
    ]
    by_function = {**request, "tools": None, "config": {"tools": [get_weather, get_time]}}
    assert heal_gemini(by_function).repairs == ()
    assert read_request({**request, "tools": [{"googleSearch": {}}]}).tools == ()

    def thinking(config: Any) -> bool | None:
        return read_request({"contents": [], "generationConfig": config}).thinking

    assert thinking({"thinkingConfig": {"thinkingBudget": 0}}) is False
    assert thinking({"thinkingConfig": {"thinkingBudget": -1}}) is True
    assert thinking({"thinkingConfig": {"thinkingLevel": "low"}}) is True
    assert thinking({"thinkingConfig": {"includeThoughts": True}}) is None
    sdk = types.GenerateContentConfig(thinking_config=types.ThinkingConfig(thinking_budget=0))
    assert read_request({"contents": [], "config": sdk}).thinking is False
