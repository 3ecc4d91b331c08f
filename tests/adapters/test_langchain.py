"""The LangChain adapter: lossless round trips, LangChain-valid output, native repairs."""

from __future__ import annotations

import json
import re
from datetime import datetime
from decimal import Decimal
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from langchain_core.messages import (
    AIMessage,
    AIMessageChunk,
    BaseMessage,
    ChatMessage,
    HumanMessage,
    SystemMessage,
    ToolMessage,
    messages_from_dict,
    messages_to_dict,
)

import heal
import heal.adapters.langchain as lc_adapter
from heal import Action, InputError, Scope, heal_messages, validate_messages
from heal.adapters.langchain import (
    UNKNOWN_TOOL_NAME,
    dump_messages,
    heal_langchain,
    infer_provider,
    load,
    load_messages,
)
from heal.messages import (
    AssistantMessage,
    ModelMessage,
    ReasoningPart,
    TextPart,
    ToolApprovalResponse,
    ToolCallPart,
    ToolResultPart,
    UserMessage,
)
from heal.messages import (
    ToolMessage as CanonicalToolMessage,
)
from heal.providers import PROVIDERS

from .strategies_langchain import histories

PROPERTY = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
# LangChain holds one tool result per ToolMessage, so a fix that merges tool messages into one
# (Gemini's single function-response turn, Bedrock's alternating roles) cannot be written back;
# langchain-google-genai and langchain-aws merge consecutive ToolMessages themselves when sending.
_MERGES_TOOL_MESSAGES = frozenset({"google-split-tool-results", "bedrock-role-alternation"})


def _left_to_fix(repairs: Any) -> list[str]:
    return [
        r.describe()
        for r in repairs
        if r.action not in (Action.REPORT, Action.KEEP)
        and not (r.rule in _MERGES_TOOL_MESSAGES and r.action is Action.MOVE)
    ]


def sdk_validate(history: list[BaseMessage]) -> None:
    """LangChain's own serialization reads the dumped history back to equal messages."""
    assert messages_from_dict(messages_to_dict(history)) == history
    for message in history:
        assert type(message).model_validate(message.model_dump()) == message


# --- round trips -----------------------------------------------------------------------------


@PROPERTY
@given(histories())
def test_round_trip_is_lossless(native: list[BaseMessage]) -> None:
    back = dump_messages(load_messages(native))
    assert back == native
    assert messages_to_dict(back) == messages_to_dict(native)


def test_an_image_blocks_file_name_survives_the_round_trip() -> None:
    """An image part has no file name: the block keeps it, as it keeps its other keys (it was
    dropped, and a heal that wrote the message again lost it)."""
    image = {"type": "image", "url": "https://e.com/a.jpg", "mime_type": "image/jpeg"}
    native: list[BaseMessage] = [
        HumanMessage(content=[{**image, "filename": "a.jpg"}, "what is it?"]),
        AIMessage(content="a cat"),
        HumanMessage(content=[{**image, "filename": "b.jpg"}, {"type": "text", "text": " "}]),
    ]
    assert dump_messages(load_messages(native)) == native
    healed = heal_langchain(native, provider="anthropic")  # the blank text goes
    assert healed.repairs
    assert [m.content[0] for m in healed.messages[::2]] == [m.content[0] for m in native[::2]]


@PROPERTY
@given(histories())
def test_dumped_histories_validate_against_langchain(native: list[BaseMessage]) -> None:
    sdk_validate(dump_messages(load_messages(native)))


@PROPERTY
@given(histories())
def test_healed_histories_are_valid_langchain_valid_and_stable(native: list[BaseMessage]) -> None:
    for provider in (None, *PROVIDERS):
        result = heal_langchain(native, provider=provider)
        sdk_validate(result.messages)
        issues = validate_messages(load_messages(result.messages), provider=provider).issues
        assert not _left_to_fix(issues)
        assert not _left_to_fix(heal_langchain(result.messages, provider=provider).repairs)


def test_field_defaults_are_read_once_per_message_class() -> None:
    # pydantic inspects a default factory's signature each time its value is asked for (for
    # dict or list, by parsing a text signature): asked per message, that was three quarters
    # of healing a LangChain history. A heal asks it of no class already read.
    from unittest import mock

    from pydantic.fields import FieldInfo

    native = [
        HumanMessage("weather in Paris?"),
        AIMessage(
            "", tool_calls=[{"name": "weather", "args": {}, "id": "c1", "type": "tool_call"}]
        ),
        ToolMessage("sunny", tool_call_id="c1"),
        AIMessage("Sunny."),
        HumanMessage("thanks"),
    ]
    heal_langchain(native)
    real = FieldInfo.get_default
    with mock.patch.object(FieldInfo, "get_default", autospec=True, side_effect=real) as asked:
        assert heal_langchain(native).messages is native
    assert asked.call_count == 0


def test_valid_history_comes_back_identical() -> None:
    native: list[BaseMessage] = [
        SystemMessage("Be brief."),
        HumanMessage("hi"),
        AIMessage("", tool_calls=[{"name": "f", "args": {"a": 1}, "id": "c1"}]),
        ToolMessage("ok", tool_call_id="c1"),
        AIMessage("done"),
    ]
    result = heal_langchain(native)
    assert result.messages is native
    assert result.repairs == ()


@PROPERTY
@given(histories())
def test_histories_heal_finds_valid_come_back_identical(native: list[BaseMessage]) -> None:
    # The valid history is the drawn one when heal changes nothing in it, else the one healing
    # gives. Healing it again returns that very object with no repairs, except findings no edit
    # can fix (Action.REPORT), which make a history invalid and come back with it unchanged.
    for provider in (None, "anthropic"):
        first = heal_langchain(native, provider=provider)
        if not first.changed:
            assert first.messages is native
        valid = first.messages
        result = heal_langchain(valid, provider=provider)
        described = [r.describe() for r in result.repairs]
        assert result.messages is valid, described
        assert all(r.action is Action.REPORT for r in result.repairs), described
        if not result.repairs:
            assert validate_messages(load_messages(valid), provider=provider).valid


# --- mapping ---------------------------------------------------------------------------------


def test_mapping_of_a_full_ai_message() -> None:
    message = AIMessage(
        content=[
            {"type": "thinking", "thinking": "hmm", "signature": "sig"},
            {"type": "text", "text": "calling"},
            {"type": "tool_use", "id": "c1", "name": "f", "input": {"a": 1}},
        ],
        tool_calls=[
            {"name": "f", "args": {"a": 1}, "id": "c1"},
            {"name": "g", "args": {}, "id": "c2"},
        ],
        invalid_tool_calls=[{"name": "h", "args": '{"a": ', "id": "c3", "error": "bad json"}],
        additional_kwargs={"reasoning_content": "first"},
        response_metadata={"model_provider": "anthropic"},
        usage_metadata={"input_tokens": 1, "output_tokens": 2, "total_tokens": 3},
        id="run-1",
    )
    loaded = load([HumanMessage("hi"), message])
    canonical = loaded.messages[1]
    assert isinstance(canonical, AssistantMessage) and not isinstance(canonical.content, str)
    kinds = [
        (p.type, getattr(p, "text", None) or getattr(p, "tool_call_id", None))
        for p in canonical.content
    ]
    assert kinds == [
        ("reasoning", "first"),
        ("reasoning", "hmm"),
        ("text", "calling"),
        ("tool-call", "c1"),
        ("tool-call", "c2"),
        ("tool-call", "c3"),
    ]
    assert canonical.content[1].provider_options["anthropic"] == {"signature": "sig"}  # type: ignore[index]
    assert canonical.content[5].input == '{"a": '  # type: ignore[union-attr]
    assert loaded.part_origins is not None and loaded.part_origins[1] == (None, 0, 1, 2, 4, 5)
    assert dump_messages(loaded.messages)[1] == message


def test_heal_follows_the_call_into_its_block_and_raw_copy() -> None:
    raw = [
        {
            "id": "c1",
            "type": "function",
            "function": {"name": "get weather", "arguments": '{"city": "Paris"}'},
        }
    ]
    native: list[BaseMessage] = [
        HumanMessage("weather?"),
        AIMessage(
            content=[
                {"type": "tool_use", "id": "c1", "name": "get weather", "input": {"city": "Paris"}}
            ],
            tool_calls=[{"name": "get weather", "args": {"city": "Paris"}, "id": "c1"}],
            additional_kwargs={"tool_calls": raw},
        ),
        ToolMessage("sunny", tool_call_id="c1", name="get weather"),
    ]
    result = heal_langchain(native, provider=None)
    assert [(r.rule, r.message_index, r.part_index) for r in result.repairs] == [
        ("invalid-tool-name", 1, 0),
        ("invalid-tool-name", 2, 0),
    ]
    ai = result.messages[1]
    assert isinstance(ai, AIMessage)
    assert ai.tool_calls[0]["name"] == "get_weather"
    assert ai.content == [
        {"type": "tool_use", "id": "c1", "name": "get_weather", "input": {"city": "Paris"}}
    ]
    assert ai.additional_kwargs["tool_calls"][0]["function"] == {
        "name": "get_weather",
        "arguments": '{"city": "Paris"}',
    }
    assert result.messages[2].name == "get_weather"


def test_a_removed_call_takes_its_block_and_raw_copy_along() -> None:
    raw = [{"id": "c1", "type": "function", "function": {"name": "f", "arguments": "{}"}}]
    native: list[BaseMessage] = [
        HumanMessage("hi"),
        AIMessage(
            content=[
                {"type": "text", "text": "x"},
                {"type": "tool_use", "id": "c1", "name": "f", "input": {}},
            ],
            tool_calls=[{"name": "f", "args": {}, "id": "c1"}],
            additional_kwargs={"tool_calls": raw},
        ),
        HumanMessage("next"),
    ]
    result = heal_langchain(native, provider=None, policy={"orphan-tool-call": "drop-call"})
    ai = result.messages[1]
    assert isinstance(ai, AIMessage)
    assert ai.tool_calls == [] and ai.content == [{"type": "text", "text": "x"}]
    assert ai.additional_kwargs["tool_calls"] == []
    assert [(r.rule, r.message_index, r.part_index) for r in result.repairs] == [
        ("orphan-tool-call", 1, 1)
    ]


def test_invalid_tool_call_becomes_a_tool_call_once_healed() -> None:
    native: list[BaseMessage] = [
        HumanMessage("hi"),
        AIMessage(
            "", invalid_tool_calls=[{"name": "f", "args": "oops", "id": "c1", "error": "bad"}]
        ),
        ToolMessage("r", tool_call_id="c1"),
    ]
    result = heal_langchain(native, provider=None)
    assert [(r.rule, r.message_index, r.part_index) for r in result.repairs] == [
        ("invalid-tool-input", 1, 1)
    ]
    ai = result.messages[1]
    assert isinstance(ai, AIMessage)
    assert ai.invalid_tool_calls == []
    assert ai.tool_calls == [
        {"name": "f", "args": {"raw": "oops"}, "id": "c1", "type": "tool_call"}
    ]


def test_tool_messages() -> None:
    native: list[BaseMessage] = [
        HumanMessage("hi"),
        AIMessage(
            "",
            tool_calls=[
                {"name": "f", "args": {}, "id": "c1"},
                {"name": "g", "args": {}, "id": "c2"},
            ],
        ),
        ToolMessage("boom", tool_call_id="c1", status="error", artifact={"trace": [1, 2]}),
        ToolMessage(
            [
                {"type": "text", "text": "see"},
                {"type": "image", "base64": "iVBORw==", "mime_type": "image/png"},
            ],
            tool_call_id="c2",
        ),
        ToolMessage([{"rows": 2}], tool_call_id="zz"),
    ]
    loaded = load_messages(native)
    outputs = []
    for message in loaded[2:]:
        assert isinstance(message, CanonicalToolMessage)
        part = message.content[0]
        assert isinstance(part, ToolResultPart)
        outputs.append((part.tool_name, part.output.type))
    assert outputs == [("f", "error-text"), ("g", "content"), (UNKNOWN_TOOL_NAME, "json")]
    assert dump_messages(loaded) == native


def test_reasoning_from_elsewhere() -> None:
    canonical: list[ModelMessage] = [
        UserMessage(content="hi"),
        AssistantMessage(
            content=(
                ReasoningPart(text="a", provider_options={"anthropic": {"signature": "S"}}),
                ReasoningPart(
                    text="b",
                    provider_options={
                        "openai": {"itemId": "rs_1", "reasoningEncryptedContent": "E"}
                    },
                ),
                TextPart(text="answer"),
            )
        ),
        AssistantMessage(content=(ReasoningPart(text="plain"), TextPart(text="x"))),
    ]
    out = dump_messages(canonical)
    assert out[1].content == [
        {"type": "thinking", "thinking": "a", "signature": "S"},
        {
            "type": "reasoning",
            "summary": [{"type": "summary_text", "text": "b"}],
            "id": "rs_1",
            "encrypted_content": "E",
        },
        {"type": "text", "text": "answer"},
    ]
    assert out[2].content == "x" and out[2].additional_kwargs == {"reasoning_content": "plain"}


def test_gemini_signatures_are_googles() -> None:
    native: list[BaseMessage] = [
        HumanMessage("hi"),
        AIMessage(
            "",
            tool_calls=[{"name": "f", "args": {}, "id": "c1"}],
            additional_kwargs={"__gemini_function_call_thought_signatures__": {"c1": "U0lH"}},
            response_metadata={"model_provider": "google_genai"},
        ),
        ToolMessage("r", tool_call_id="c1"),
    ]
    call = load_messages(native)[1].content[0]
    assert isinstance(call, ToolCallPart)
    assert call.provider_options is not None and call.provider_options["google"] == {
        "thoughtSignature": "U0lH"
    }
    assert dump_messages(load_messages(native)) == native
    # heal's Google rule adds the documented dummy to an unsigned call: it lands in the map.
    unsigned = [
        native[0],
        AIMessage("", tool_calls=[{"name": "f", "args": {}, "id": "c1"}]),
        native[2],
    ]
    healed = heal_langchain(unsigned, provider="google").messages
    assert healed[1].additional_kwargs == {
        "__gemini_function_call_thought_signatures__": {"c1": "skip_thought_signature_validator"}
    }
    assert not heal_langchain(healed, provider="google").changed


def test_one_tool_message_per_result_is_left_to_the_gemini_integrations() -> None:
    # LangChain holds one result per ToolMessage, and both Gemini integrations send the results
    # of one AIMessage as one function-response turn, so google-split-tool-results has nothing
    # to fix here (and its merge could not be written back).
    native: list[BaseMessage] = [
        HumanMessage("weather in Paris and Rome?"),
        AIMessage(
            "",
            tool_calls=[
                {"id": "c1", "name": "get_weather", "args": {"city": "Paris"}},
                {"id": "c2", "name": "get_weather", "args": {"city": "Rome"}},
            ],
            additional_kwargs={
                "__gemini_function_call_thought_signatures__": {"c1": "U0lH"},
            },
        ),
        ToolMessage("sunny", tool_call_id="c1"),
        ToolMessage("rain", tool_call_id="c2"),
        AIMessage("Sunny in Paris, rain in Rome."),
    ]
    result = heal_langchain(native, provider="google")
    assert result.repairs == ()
    assert result.messages is native
    # The canonical history still has the problem, for a client that sends each turn apart.
    assert [r.rule for r in heal_messages(load_messages(native), provider="google").repairs] == [
        "google-split-tool-results"
    ]
    # The caller's policy cannot bring the merge back: no choice of it can be written.
    policy = {"google-split-tool-results": "merge"}
    assert heal_langchain(native, provider="google", policy=policy).repairs == ()


# --- heal ------------------------------------------------------------------------------------

_BROKEN: dict[
    str, tuple[list[BaseMessage], list[tuple[str, int | None, int | None, int | None]]]
] = {
    "orphan call": (
        [
            HumanMessage("hi"),
            AIMessage("", tool_calls=[{"name": "f", "args": {}, "id": "c1"}]),
            HumanMessage("next"),
        ],
        [("orphan-tool-call", None, None, 1)],
    ),
    "orphan result": (
        [HumanMessage("hi"), AIMessage("yo"), ToolMessage("r", tool_call_id="gone")],
        [("orphan-tool-result", 2, 0, None), ("empty-message", 2, None, None)],
    ),
    "invalid tool name": (
        [
            HumanMessage("hi"),
            AIMessage("x", tool_calls=[{"name": "my tool!", "args": {}, "id": "c1"}]),
            ToolMessage("r", tool_call_id="c1"),
        ],
        [("invalid-tool-name", 1, 1, None), ("invalid-tool-name", 2, 0, None)],
    ),
    "string args": (
        [
            HumanMessage("hi"),
            AIMessage(
                "",
                invalid_tool_calls=[{"name": "f", "args": "not json", "id": "c1", "error": None}],
            ),
            ToolMessage("r", tool_call_id="c1"),
        ],
        [("invalid-tool-input", 1, 1, None)],
    ),
    "empty text": (
        [
            HumanMessage(["", "hi"]),
            AIMessage([{"type": "text", "text": ""}, {"type": "text", "text": "yo"}]),
        ],
        [("empty-text", 0, 0, None), ("empty-text", 1, 0, None)],
    ),
}


@pytest.mark.parametrize("case", sorted(_BROKEN))
def test_heal_repairs_at_native_indices(case: str) -> None:
    native, expected = _BROKEN[case]
    result = heal_langchain(native, provider=None)
    assert [
        (r.rule, r.message_index, r.part_index, r.anchor_index) for r in result.repairs
    ] == expected
    sdk_validate(result.messages)
    assert validate_messages(load_messages(result.messages)).valid
    assert heal_langchain(result.messages, provider=None).repairs == ()


@pytest.mark.parametrize(
    ("case", "places"),
    [
        ("orphan call", ["after messages[1]"]),
        ("orphan result", ["messages[2]", "messages[2]"]),
        ("invalid tool name", ["messages[1].tool_calls[0]", "messages[2]"]),
        ("string args", ["messages[1].invalid_tool_calls[0]"]),
        ("empty text", ["messages[0].content[0]", "messages[1].content[0]"]),
    ],
)
def test_repairs_name_the_native_place(case: str, places: list[str]) -> None:
    # A tool call is an entry of ``tool_calls`` (not a content index past the blocks), and a
    # tool result is its whole ToolMessage.
    native, _ = _BROKEN[case]
    result = heal_langchain(native, provider=None)
    assert [r.describe() for r in result.repairs] == [
        f"{place}: {r.rule}: {r.reason}" for place, r in zip(places, result.repairs, strict=True)
    ]


def test_repairs_name_a_call_by_its_tool_calls_entry_and_reasoning_by_its_kwarg() -> None:
    # The second call has a tool_use block at content[1]: still named by tool_calls[1].
    calls = [
        {"name": "f", "args": {}, "id": "c1", "type": "tool_call"},
        {"name": "g", "args": {}, "id": "c2", "type": "tool_call"},
    ]
    native: list[BaseMessage] = [
        HumanMessage("hi"),
        AIMessage(
            [
                {"type": "text", "text": "x"},
                {"type": "tool_use", "id": "c2", "name": "g", "input": {}},
            ],
            tool_calls=calls,
            additional_kwargs={"reasoning_content": "hmm"},
            response_metadata={"model_provider": "anthropic"},
        ),
        HumanMessage("next"),
    ]
    result = heal_langchain(native, provider="anthropic", policy={"orphan-tool-call": "drop-call"})
    places = {(r.rule, r.describe().split(": ")[0]) for r in result.repairs}
    assert ("orphan-tool-call", "messages[1].tool_calls[0]") in places
    assert ("orphan-tool-call", "messages[1].tool_calls[1]") in places
    assert any(place == "messages[1].additional_kwargs.reasoning_content" for _, place in places)


def test_orphan_call_gets_a_placeholder_tool_message() -> None:
    native, _ = _BROKEN["orphan call"]
    healed = heal_langchain(native, provider=None).messages
    placeholder = healed[2]
    assert isinstance(placeholder, ToolMessage)
    assert (placeholder.tool_call_id, placeholder.name, placeholder.status) == ("c1", "f", "error")


_WEB_SEARCH_CALL = {"type": "web_search_call", "id": "ws_1", "status": "completed"}


def _server_search_then_hidden() -> list[Any]:
    return [
        {"type": "server_tool_use", "id": "srv_1", "name": "web_search", "input": {"q": "x"}},
        {"type": "web_search_tool_result", "tool_use_id": "srv_1", "content": [{"u": 1}]},
        dict(_WEB_SEARCH_CALL),
    ]


@pytest.mark.parametrize("provider", [None, *PROVIDERS])
def test_passthrough_blocks_left_alone_by_healing_are_removed_with_a_repair(
    provider: str | None,
) -> None:
    # Found by the property test: removing a foreign server tool pair left an AI message of a
    # passthrough block alone, which heal refused to read back.
    native: list[BaseMessage] = [AIMessage(content=_server_search_then_hidden())]
    result = heal_langchain(native, provider=provider)  # type: ignore[arg-type]
    sdk_validate(result.messages)
    again = heal_langchain(result.messages, provider=provider)  # type: ignore[arg-type]
    assert not again.changed and again.messages is result.messages
    # Bedrock puts a placeholder user turn in front of a history that starts with the model.
    ai = [m for m in result.messages if isinstance(m, AIMessage)]
    kept = ai[0].content if ai else []
    removed = {(r.part_index, json.dumps(r.removed)) for r in result.repairs if r.changed}
    # A block leaves either on its own record, or inside the record of its removed message.
    recorded = json.dumps([r.removed for r in result.repairs if r.changed])
    for k, block in enumerate(native[0].content):
        assert block in kept or any(at == k for at, _ in removed) or json.dumps(block) in recorded
    if _WEB_SEARCH_CALL not in kept:
        assert kept == []
        assert (2, json.dumps(_WEB_SEARCH_CALL)) in removed or (
            not ai and json.dumps(_WEB_SEARCH_CALL) in recorded
        )


def test_passthrough_blocks_go_with_an_emptied_message_the_policy_keeps() -> None:
    native: list[BaseMessage] = [
        HumanMessage("hi"),
        AIMessage(content=_server_search_then_hidden(), id="a1"),
        HumanMessage("next"),
    ]
    result = heal_langchain(native, provider="anthropic", policy={"empty-message": "keep"})
    assert [type(m) for m in result.messages] == [HumanMessage, AIMessage, HumanMessage]
    assert result.messages[1] == AIMessage(content=[], id="a1")
    stranded = result.repairs[-1]
    assert (stranded.rule, stranded.action, stranded.message_index, stranded.part_index) == (
        "anthropic-foreign-server-tool",
        Action.REMOVE,
        1,
        2,
    )
    assert stranded.removed == _WEB_SEARCH_CALL and stranded.scope is Scope.REQUEST
    again = heal_langchain(result.messages, provider="anthropic", policy={"empty-message": "keep"})
    assert not again.changed and again.messages is result.messages
    # Reading such a message on its own is still refused: heal would take it for an empty one.
    with pytest.raises(InputError, match="only content blocks"):
        load_messages([AIMessage(content=[_WEB_SEARCH_CALL])])


def test_provider_is_inferred_only_when_every_ai_message_agrees() -> None:
    def ai(provider: str | None, rid: str | None = None) -> AIMessage:
        metadata: dict[str, Any] = {}
        if provider is not None:
            metadata["model_provider"] = provider
        if rid is not None:
            metadata["id"] = rid
        return AIMessage("x", response_metadata=metadata)

    assert infer_provider([HumanMessage("a"), ai("anthropic"), ai("anthropic")]) == "anthropic"
    assert infer_provider([ai("anthropic"), ai(None)]) is None
    assert infer_provider([ai("anthropic"), ai("google_genai")]) is None
    assert infer_provider([ai("openai", "resp_1")]) == "openai-responses"
    assert infer_provider([ai("openai", "chatcmpl-1")]) == "openai-chat"
    assert infer_provider([ai("openai")]) is None
    assert infer_provider([ai("bedrock_converse")]) == "bedrock"
    assert infer_provider([HumanMessage("a")]) is None


# --- cross-format ----------------------------------------------------------------------------


def test_langchain_history_healed_for_anthropic_is_valid_canonical_json() -> None:
    native: list[BaseMessage] = [
        SystemMessage("Be brief."),
        HumanMessage("weather?"),
        AIMessage(
            [
                {"type": "thinking", "thinking": "look", "signature": "sig"},
                {"type": "text", "text": "checking"},
            ],
            tool_calls=[{"name": "get weather", "args": {"city": "Paris"}, "id": "call-1"}],
        ),
        HumanMessage("and tomorrow?"),
    ]
    healed = heal_messages(load_messages(native), provider="anthropic")
    data = heal.dump_messages(healed.messages)
    json.dumps(data)
    assert validate_messages(data, provider="anthropic").valid


# --- input errors ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("native", "path", "words"),
    [
        ("hi", "messages", "got a string"),
        ({"messages": []}, "messages", "got a dict"),
        (
            [HumanMessage("hi"), AIMessageChunk(content="x")],
            "messages[1]",
            "message_chunk_to_message",
        ),
        ([ChatMessage(content="x", role="critic")], "messages[0]", "got ChatMessage"),
        ([HumanMessage("hi"), {"role": "user"}], "messages[1]", "got a dict"),
        (
            [HumanMessage(["hi", {"type": "mystery"}])],
            "messages[0].content[1]",
            "'mystery' has no AI SDK",
        ),
        (
            [HumanMessage([{"type": "file", "file_id": "file-1"}])],
            "messages[0].content[0]",
            "provider file id",
        ),
        (
            [SystemMessage([{"type": "image", "url": "https://x"}])],
            "messages[0].content[0]",
            "must be text",
        ),
        (
            [ToolMessage("r", tool_call_id="c1", artifact=object())],
            "messages[0].artifact",
            "not a JSON value",
        ),
        (
            [HumanMessage("hi", additional_kwargs={"t": (1, 2)})],
            "messages[0].additional_kwargs.t",
            "not a JSON",
        ),
        (
            [AIMessage([{"type": "web_search_call", "id": "ws"}])],
            "messages[0].content[0]",
            "only content blocks",
        ),
        (
            [HumanMessage("hi"), AIMessage([{"type": ["x"], "text": "hi"}])],
            "messages[1].content[0].type",
            "block type must be a string, got a list",
        ),
        (
            [AIMessage(["ok", {"type": {"a": 1}}])],
            "messages[0].content[1].type",
            "block type must be a string, got a dict",
        ),
        (
            [HumanMessage([{"type": ["x"], "text": "hi"}])],
            "messages[0].content[0].type",
            "block type must be a string, got a list",
        ),
    ],
)
def test_malformed_input_names_the_native_place(native: Any, path: str, words: str) -> None:
    with pytest.raises(InputError) as caught:
        load_messages(native)
    assert caught.value.path == path
    assert words in str(caught.value)


def test_what_langchain_cannot_hold_is_refused_on_dump() -> None:
    approval: list[ModelMessage] = [
        UserMessage(content="hi"),
        CanonicalToolMessage(content=(ToolApprovalResponse(approval_id="a1", approved=True),)),
    ]
    with pytest.raises(InputError) as caught:
        dump_messages(approval)
    assert caught.value.path == "messages[1].content[0]"
    cached: list[ModelMessage] = [
        UserMessage(
            content="hi", provider_options={"anthropic": {"cacheControl": {"type": "ephemeral"}}}
        )
    ]
    with pytest.raises(InputError) as caught:
        dump_messages(cached)
    assert caught.value.path == "messages[0].providerOptions.anthropic.cacheControl"


# --- the target --------------------------------------------------------------------------------


def test_the_model_keyword_decides_and_names_the_provider() -> None:
    from langchain_core.tools import tool

    history: list[Any] = [
        HumanMessage("hi"),
        AIMessage(
            [{"type": "reasoning", "reasoning": "greet back"}, {"type": "text", "text": "hello"}]
        ),
        HumanMessage("bye"),
    ]
    # "auto" follows the model id: Mistral, whose non-Magistral models take no reasoning input.
    healed = heal_langchain(history, model="mistral-large-latest")
    assert [(r.rule, r.message_index) for r in healed.repairs] == [("mistral-reasoning-input", 1)]
    assert heal_langchain(history, model="magistral-medium-latest").repairs == ()

    @tool
    def get_time() -> str:
        """The time."""
        return "noon"

    calls: list[Any] = [
        HumanMessage("weather?"),
        AIMessage("", tool_calls=[{"id": "c1", "name": "get_weather", "args": {}}]),
        ToolMessage("sunny", tool_call_id="c1"),
    ]
    repairs = heal_langchain(calls, provider="openai-chat", tools=[get_time]).repairs
    assert [(r.rule, r.action.value, r.tool_call_id) for r in repairs] == [
        ("tool-not-offered", "keep", "c1")
    ]


# --- aborted turns ---------------------------------------------------------------------------


def _cut_off_turn(metadata: dict[str, Any]) -> list[BaseMessage]:
    return [
        HumanMessage("list the files"),
        AIMessage(
            "Listing.",
            tool_calls=[{"id": "c1", "name": "ls", "args": {"path": "/tmp"}}],
            invalid_tool_calls=[
                {
                    "id": "c2",
                    "name": "ls",
                    "args": '{"pa',
                    "error": None,
                    "type": "invalid_tool_call",
                }
            ],
            response_metadata=metadata,
        ),
        HumanMessage("go on"),
    ]


@pytest.mark.parametrize(
    "metadata",
    [
        {"finish_reason": "length", "model_provider": "openai"},
        {"stop_reason": "max_tokens", "model_provider": "anthropic"},
        {"finish_reason": "MAX_TOKENS", "model_provider": "google_genai"},
        {"stopReason": "max_tokens", "model_provider": "bedrock_converse"},
    ],
    ids=["openai", "anthropic", "google", "bedrock"],
)
def test_a_cut_off_ai_messages_unanswered_calls_are_removed(metadata: dict[str, Any]) -> None:
    # Cut off by the token limit, its calls may be partial (the invalid one is): removed rather
    # than answered (openclaw/openclaw#14322: a placeholder after a partial call drew a 400).
    native = _cut_off_turn(metadata)
    messages = load_messages(native)
    assert messages[1].provider_options["heal"]["aborted"] is True  # type: ignore[index]
    assert dump_messages(messages) == native  # the marker is never written back
    result = heal_langchain(native, provider=None)
    assert [(r.rule, r.message_index) for r in result.repairs if r.rule == "orphan-tool-call"] == [
        ("orphan-tool-call", 1),
        ("orphan-tool-call", 1),
    ]
    healed = result.messages
    sdk_validate(healed)
    assert len(healed) == 3
    ai = healed[1]
    assert isinstance(ai, AIMessage)
    assert (ai.content, ai.tool_calls, ai.invalid_tool_calls) == ("Listing.", [], [])
    assert ai.response_metadata == metadata
    assert not heal_langchain(healed, provider=None).changed
    every = heal_langchain(
        native, provider=None, policy={"orphan-tool-call": "placeholder-every-call"}
    )
    assert [type(m).__name__ for m in every.messages] == [
        "HumanMessage",
        "AIMessage",
        "ToolMessage",
        "ToolMessage",
        "HumanMessage",
    ]


def test_a_finished_ai_messages_unanswered_call_gets_a_placeholder() -> None:
    native = _cut_off_turn({"finish_reason": "tool_calls"})
    assert "aborted" not in (load_messages(native)[1].provider_options or {}).get("heal", {})
    healed = heal_langchain(native, provider=None).messages
    assert [type(m).__name__ for m in healed].count("ToolMessage") == 2


_DEEP = "[" * 50_000 + "]" * 50_000
"""Argument text nested deeper than Python's json reader goes."""


def test_arguments_nested_deeper_than_json_reads_are_text_to_heal() -> None:
    # Both raised a bare RecursionError (found beside the same bug in the pydantic-ai adapter).
    # A call block's argument text that holds no JSON object is healed as in every format: the
    # input becomes {"raw": text}, the record keeps the text.
    in_content = [
        HumanMessage("go"),
        AIMessage(
            [
                {
                    "type": "function_call",
                    "call_id": "c1",
                    "name": "f",
                    "arguments": _DEEP,
                    "id": "fc_1",
                }
            ]
        ),
        ToolMessage("ok", tool_call_id="c1"),
    ]
    result = heal_langchain(in_content)
    assert [r.rule for r in result.repairs] == ["invalid-tool-input"]
    assert result.repairs[0].removed == {"input": _DEEP}
    # The OpenAI Chat spelling kept beside the parsed calls: it is compared, not trusted, and
    # stays as it was.
    call = {"id": "c1", "type": "function", "function": {"name": "f", "arguments": _DEEP}}
    in_kwargs = [
        HumanMessage("go"),
        AIMessage(
            "",
            additional_kwargs={"tool_calls": [call]},
            tool_calls=[{"name": "f", "args": {}, "id": "c1"}],
        ),
        ToolMessage("ok", tool_call_id="c1"),
    ]
    kept = heal_langchain(in_kwargs)
    assert not kept.repairs
    assert kept.messages[1].additional_kwargs["tool_calls"][0]["function"]["arguments"] == _DEEP


@pytest.mark.parametrize(
    ("field", "value", "what"),
    [
        ("response_metadata", {"at": datetime(2026, 1, 1)}, "response_metadata.at: a datetime"),
        ("additional_kwargs", {"x": Decimal(1)}, "additional_kwargs.x: a Decimal"),
        ("additional_kwargs", {"k": float("nan")}, "additional_kwargs.k: a float"),
    ],
)
def test_a_value_heal_cannot_carry_is_an_input_error_the_walk_does_not_skip(
    field: str, value: dict[str, Any], what: str
) -> None:
    """The plain walk judges every message's ``additional_kwargs`` and ``response_metadata``
    (it skips empty ones alone): one holding a value JSON cannot hold is not plainly clean, and
    healing it is the loader's error, naming the message and the field."""
    history = [HumanMessage("hi"), AIMessage("ok", **{field: value}), HumanMessage("more")]
    assert not lc_adapter._plainly_clean(history, None)
    with pytest.raises(InputError, match=re.escape(f"messages[1].{what}")):
        heal_langchain(history)


@pytest.mark.parametrize(
    "call",
    [
        {"name": "f", "args": {}, "id": "c1", "type": "tool_call", "index": 0},
        {"name": "f", "args": {}, "id": "c1"},
        {"name": "f", "args": {}, "id": "c1", "kind": "tool_call"},
    ],
    ids=["a fifth key", "three keys", "another fourth key"],
)
def test_a_call_entry_of_other_keys_is_not_plain(call: dict[str, Any]) -> None:
    """A ``tool_calls`` entry holds exactly name, args, id and type when LangChain validates
    it; one set otherwise afterwards is not plainly clean: the full path reads it."""
    history = [
        HumanMessage("hi"),
        AIMessage("", tool_calls=[{"name": "f", "args": {}, "id": "c1", "type": "tool_call"}]),
        ToolMessage("done", tool_call_id="c1"),
        AIMessage("ok"),
    ]
    assert lc_adapter._plainly_clean(history, None)
    object.__setattr__(history[1], "tool_calls", [call])
    assert not lc_adapter._plainly_clean(history, None)


@pytest.mark.parametrize("content", ["ok", [{"type": "text", "text": "ok"}]])
def test_metadata_set_to_none_after_validation_is_read_or_refused_by_name(content: Any) -> None:
    """A caller may set ``additional_kwargs`` or ``response_metadata`` to None after
    validation. Such kwargs read as none, as the general path reads them, whether the history
    is plain or needs a repair. Such metadata passes in a plain history, which comes back as
    it is; one that must be written back is LangChain's error, located (not a bare
    AttributeError from reading the provider out of it)."""
    call = {"name": "f", "args": {}, "id": "c1", "type": "tool_call"}
    for field in ("additional_kwargs", "response_metadata"):
        plain = [HumanMessage("hi"), AIMessage(content), HumanMessage("more")]
        object.__setattr__(plain[1], field, None)
        result = heal_langchain(plain)
        assert result.messages is plain
        assert result.repairs == ()
    kwargs = [HumanMessage("hi"), AIMessage(content, tool_calls=[call]), HumanMessage("more")]
    object.__setattr__(kwargs[1], "additional_kwargs", None)
    assert [r.rule for r in heal_langchain(kwargs).repairs] == ["orphan-tool-call"]
    metadata = [HumanMessage("hi"), AIMessage(content, tool_calls=[call]), HumanMessage("more")]
    object.__setattr__(metadata[1], "response_metadata", None)
    with pytest.raises(InputError, match=r"^messages\[1\]: LangChain rejects(.|\n)*response_meta"):
        heal_langchain(metadata)


@pytest.mark.parametrize(
    ("at", "field", "value"),
    [
        (1, "usage_metadata", {"input_tokens": 1, "output_tokens": Decimal(1), "total_tokens": 2}),
        (2, "artifact", {"rows": float("inf")}),
    ],
)
def test_a_value_heal_cannot_carry_in_usage_or_an_artifact_is_judged_too(
    at: int, field: str, value: dict[str, Any]
) -> None:
    """The walk skips a message's absent usage and artifact alone: one set (after
    validation, as a caller may) to a value JSON cannot hold is not plainly clean, so the
    history is not handed back as it is."""
    call = {"name": "f", "args": {}, "id": "c1", "type": "tool_call"}
    history = [
        HumanMessage("hi"),
        AIMessage("", tool_calls=[call]),
        ToolMessage("done", tool_call_id="c1"),
        AIMessage("ok"),
    ]
    assert lc_adapter._plainly_clean(history, None)
    object.__setattr__(history[at], field, value)
    assert not lc_adapter._plainly_clean(history, None)
