"""Histories in another format are never read as AI SDK messages (issue 11, item 1).

The AI SDK models keep unknown keys, so before this an OpenAI Chat assistant message
``{"content": "", "tool_calls": [...]}`` loaded as an empty assistant message and healing removed
it with its calls. Each case is one mark of a foreign format; the reader must refuse it, name
the format and say what to use instead.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from langchain_core.messages import messages_to_dict

from heal import InputError, heal_json, heal_messages, load_messages, validate_messages
from heal._detect import detect_format
from heal._formats import healer, native_input, resolve_format
from heal.adapters import anthropic, gemini, langchain, openai_chat, openai_responses, pydantic_ai

USER = {"role": "user", "content": "weather in Paris?"}

FOREIGN: list[tuple[str, list[dict[str, Any]], str, str]] = [
    # (case, history, format named, path named)
    (
        "openai-chat tool_calls on an empty assistant message",
        [
            USER,
            {
                "role": "assistant",
                "content": "",
                "tool_calls": [
                    {"id": "c1", "type": "function", "function": {"name": "f", "arguments": "{}"}}
                ],
            },
        ],
        "openai-chat",
        "messages[1]",
    ),
    (
        "openai-chat tool message",
        [USER, {"role": "tool", "tool_call_id": "c1", "content": [{"type": "text", "text": "x"}]}],
        "openai-chat",
        "messages[1]",
    ),
    (
        "openai-chat legacy function_call",
        [USER, {"role": "assistant", "content": None, "function_call": {"name": "f"}}],
        "openai-chat",
        "messages[1]",
    ),
    (
        "openai-chat image_url part",
        [{"role": "user", "content": [{"type": "image_url", "image_url": {"url": "x"}}]}],
        "openai-chat",
        "messages[0]",
    ),
    (
        "deepseek reasoning_content",
        [USER, {"role": "assistant", "content": "hi", "reasoning_content": "because"}],
        "openai-chat",
        "messages[1]",
    ),
    (
        "responses function_call item",
        [USER, {"type": "function_call", "call_id": "c1", "name": "f", "arguments": "{}"}],
        "openai-responses",
        "messages[1]",
    ),
    (
        "responses input_text part",
        [{"role": "user", "content": [{"type": "input_text", "text": "hi"}]}],
        "openai-responses",
        "messages[0]",
    ),
    (
        "anthropic tool_use block",
        [USER, {"role": "assistant", "content": [{"type": "tool_use", "id": "t", "name": "f"}]}],
        "anthropic",
        "messages[1]",
    ),
    (
        "anthropic tool_result block",
        [{"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t"}]}],
        "anthropic",
        "messages[0]",
    ),
    (
        "gemini model role",
        [{"role": "user", "parts": [{"text": "hi"}]}, {"role": "model", "parts": [{"text": "x"}]}],
        "gemini",
        "messages[0]",
    ),
    (
        "pydantic-ai kind and parts",
        [{"kind": "request", "parts": [{"part_kind": "user-prompt", "content": "hi"}]}],
        "pydantic-ai",
        "messages[0]",
    ),
    (
        "langchain messages_to_dict",
        [{"type": "human", "data": {"content": "hi", "type": "human"}}],
        "langchain",
        "messages[0]",
    ),
]


@pytest.mark.parametrize(
    ("history", "fmt", "path"),
    [pytest.param(h, f, p, id=case) for case, h, f, p in FOREIGN],
)
def test_foreign_message_is_refused_with_the_format_named(
    history: list[dict[str, Any]], fmt: str, path: str
) -> None:
    for given in (history, json.dumps(history)):
        with pytest.raises(InputError) as err:
            load_messages(given)
        assert err.value.path == path
        assert f"--format {fmt}" in err.value.reason
    with pytest.raises(InputError):
        validate_messages(history)


def test_openai_chat_call_is_not_healed_away() -> None:
    # The data-loss case: heal used to remove the assistant message and its tool call.
    _, history, _, _ = FOREIGN[0]
    with pytest.raises(InputError, match=r"heal_openai_chat"):
        heal_messages(history)


@pytest.mark.parametrize(
    ("history", "path"),
    [pytest.param(h, p, id=case) for case, h, _, p in FOREIGN],
)
def test_foreign_message_in_text_with_a_lone_surrogate_is_refused(
    history: list[dict[str, Any]], path: str
) -> None:
    # A lone surrogate escape (which the lone-surrogate rule mends) sends JSON text down the
    # slow reader; it refused another format's messages only when the text was clean, and
    # heal_json then removed the OpenAI Chat call as an empty message.
    text = json.dumps([{"role": "user", "content": "hi \udc80"}, *history])
    shifted = f"messages[{int(path[9:-1]) + 1}]"
    for read in (load_messages, heal_json):
        with pytest.raises(InputError) as err:
            read(text)
        assert err.value.path == shifted


def test_unknown_keys_of_no_format_still_load() -> None:
    # Application metadata beside AI SDK fields is kept, not refused: no false alarm.
    history = [
        {"role": "user", "content": "hi", "id": "m1", "createdAt": "2025-01-01"},
        {"role": "assistant", "content": [{"type": "text", "text": "hello", "x": 1}], "id": "m2"},
    ]
    result = heal_messages(history)
    assert not result.repairs
    assert load_messages(history)[0].model_extra == {"id": "m1", "createdAt": "2025-01-01"}


def test_ai_sdk_ui_message_is_named() -> None:
    with pytest.raises(InputError, match="convertToModelMessages"):
        load_messages([{"id": "1", "role": "user", "parts": [{"type": "text", "text": "hi"}]}])


# --- detect_format on what each adapter writes ---------------------------------------------

CANONICAL: list[dict[str, Any]] = [
    {"role": "system", "content": "be brief"},
    USER,
    {
        "role": "assistant",
        "content": [
            {"type": "text", "text": "checking"},
            {"type": "tool-call", "toolCallId": "call_1", "toolName": "weather", "input": {}},
        ],
    },
    {
        "role": "tool",
        "content": [
            {
                "type": "tool-result",
                "toolCallId": "call_1",
                "toolName": "weather",
                "output": {"type": "text", "value": "sunny"},
            }
        ],
    },
    {"role": "assistant", "content": "sunny"},
]


def _native(fmt: str) -> Any:
    messages = load_messages(CANONICAL)
    if fmt == "openai-chat":
        return openai_chat.dump_messages(messages)
    if fmt == "openai-responses":
        return openai_responses.dump_messages(messages)
    if fmt == "anthropic":
        return anthropic.dump_messages(messages)
    if fmt == "gemini":
        return gemini.dump_messages(messages)
    if fmt == "pydantic-ai":
        return json.loads(pydantic_ai.dump_messages(messages, as_json=True))
    if fmt == "langchain":
        return messages_to_dict(langchain.dump_messages(messages))
    assert fmt == "ai-sdk"
    return CANONICAL


ALL_FORMATS = [
    "ai-sdk",
    "openai-chat",
    "openai-responses",
    "anthropic",
    "gemini",
    "pydantic-ai",
    "langchain",
]


@pytest.mark.parametrize("fmt", ALL_FORMATS)
def test_detect_format_reads_each_adapters_output(fmt: str) -> None:
    native = json.loads(json.dumps(_native(fmt), default=str))
    assert detect_format(native) == fmt
    assert resolve_format("auto", native) == fmt
    assert resolve_format(fmt, native) == fmt
    # The detected format's healer reads it, and nothing in it needs a stored change.
    given = native_input(fmt, native)
    healed = healer(fmt)(given, scope="history")
    assert not healed.repairs
    assert healed.messages is given


def test_detect_format_of_requests() -> None:
    assert detect_format({"model": "m", "messages": CANONICAL}) == "ai-sdk"
    assert detect_format({"model": "m", "contents": []}) == "gemini"
    assert detect_format({"model": "m", "input": []}) == "openai-responses"
    assert detect_format({"system": "s", "messages": [USER]}) == "anthropic"
    assert detect_format({"chat": {"messages": _native("openai-chat")}}, key="chat") == (
        "openai-chat"
    )


def test_an_ai_sdk_request_with_a_system_field_is_read_as_ai_sdk() -> None:
    # generateText takes ``system`` beside ``messages``, as Anthropic's request does: the parts
    # tell them apart.
    assert detect_format({"system": "be brief", "messages": CANONICAL[1:]}) == "ai-sdk"
    assert detect_format(json.loads(json.dumps(_native("anthropic")))) == "anthropic"
    # A text-only Anthropic request reads the same either way, and stays Anthropic's.
    assert detect_format({"system": "be brief", "messages": [USER]}) == "anthropic"


def test_a_kind_field_beside_a_role_is_an_applications_own() -> None:
    history = [{"role": "user", "content": "hi", "kind": "note"}]
    assert load_messages(history)[0].model_extra == {"kind": "note"}
    assert detect_format(history) == "ai-sdk"


def test_detect_format_refuses_a_mixed_history() -> None:
    mixed = [*FOREIGN[0][1], *FOREIGN[7][1]]
    with pytest.raises(ValueError, match=r"mixes formats: anthropic .*openai-chat"):
        detect_format(mixed)
