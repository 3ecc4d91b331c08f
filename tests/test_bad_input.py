"""Hostile input never escapes as a bare exception: deep JSON, odd content items, characters and
bytes JSON cannot carry, numbers Python will not print. Each is either repaired the way the rule
repairs its ordinary bad input, or refused with an InputError naming the place."""

from __future__ import annotations

import base64
import json
import sys
from typing import Any

import pytest

from heal import InputError, Policy, dump_messages, heal_messages, load_messages
from heal.messages import (
    AssistantMessage,
    TextOutput,
    TextPart,
    ToolCallPart,
    ToolResultPart,
    UserMessage,
)
from heal.reactive import error_text, heal_after_error
from heal.repairs import Action, Repair

BIG = 7 * 10**4999
"""A 5,000-digit integer: more digits than Python converts to text by default (4,300)."""


def nested(depth: int, leaf: Any = 1) -> Any:
    """``leaf`` inside ``depth`` objects (built without recursion)."""
    value = leaf
    for _ in range(depth):
        value = {"a": value}
    return value


def nested_text(depth: int, *, kind: str) -> str:
    """JSON text of ``depth`` nested arrays or objects."""
    if kind == "array":
        return "[" * depth + "]" * depth
    return '{"a":' * depth + "1" + "}" * depth


def call_history(tool_input: Any, name: str = "f") -> list[dict[str, Any]]:
    return [
        {"role": "user", "content": "hi"},
        {
            "role": "assistant",
            "content": [
                {"type": "tool-call", "toolCallId": "c1", "toolName": name, "input": tool_input}
            ],
        },
        {
            "role": "tool",
            "content": [
                {
                    "type": "tool-result",
                    "toolCallId": "c1",
                    "toolName": name,
                    "output": {"type": "text", "value": "ok"},
                }
            ],
        },
    ]


def all_json(result: Any) -> None:
    """The healed history and every record survive a trip through JSON text."""
    dumped = dump_messages(result.messages)
    assert load_messages(json.dumps(dumped)) == load_messages(dumped)
    for repair in result.repairs:
        json.loads(repair.model_dump_json())


# --- 1. a tool input string nested too deeply -----------------------------------------------


@pytest.mark.parametrize(
    ("depth", "kind"),
    [(1_000, "array"), (1_000, "object"), (100_000, "array"), (300, "object"), (253, "object")],
)
@pytest.mark.parametrize("choice", ["coerce-object", "empty-object"])
def test_tool_input_string_nested_too_deeply_is_not_parsed(
    depth: int, kind: str, choice: str
) -> None:
    # 300 levels parse, but no message model takes a value nested that deeply: a parsed input
    # would make a history that cannot be dumped or loaded again. So it is kept as the rule
    # keeps any string it cannot use. (The repair record holds the input two levels deeper, as
    # pydantic's JSON writer counts them: that is why 253 is too deep here, though a tool input
    # may be nested 254 levels.)
    text = nested_text(depth, kind=kind)
    result = heal_messages(call_history(text), policy={"invalid-tool-input": choice})
    call = result.messages[1].content[0]
    assert isinstance(call, ToolCallPart)
    assert call.input == ({"raw": text} if choice == "coerce-object" else {})
    [repair] = result.repairs
    assert repair.rule == "invalid-tool-input"
    assert repair.removed == {"input": text}
    all_json(result)


def test_tool_input_string_nested_within_the_limit_is_parsed() -> None:
    text = nested_text(252, kind="object")
    result = heal_messages(call_history(text))
    call = result.messages[1].content[0]
    assert isinstance(call, ToolCallPart)
    assert call.input == nested(252)
    all_json(result)


# --- 2. a provider error nested too deeply ---------------------------------------------------

REJECTION = (
    "messages.1: `tool_use` ids were found without `tool_result` blocks immediately after: c1. "
    "Each `tool_use` block must have a corresponding `tool_result` block in the next message."
)


def deep_error_body() -> str:
    depth = 100_000
    return '{"error":' * depth + json.dumps(REJECTION) + "}" * depth


@pytest.mark.parametrize("as_bytes", [False, True])
def test_error_body_nested_too_deeply_is_searched_as_text(as_bytes: bool) -> None:
    body = deep_error_body()
    history = [
        {"role": "user", "content": "hi"},
        {
            "role": "assistant",
            "content": [{"type": "tool-call", "toolCallId": "c1", "toolName": "f", "input": {}}],
        },
        {"role": "user", "content": "go on"},
    ]
    result = heal_after_error(history, body.encode() if as_bytes else body, provider="anthropic")
    assert result.matched == ("anthropic-tool-use-without-result",)
    assert result.retry


def test_error_text_of_a_body_nested_too_deeply_is_the_body() -> None:
    body = "[" * 100_000 + "]" * 100_000
    assert error_text(body) == body
    assert error_text(ValueError(body)) == body


# --- 3. a content item whose type is not a string --------------------------------------------


@pytest.mark.parametrize("item_type", [["file-id"], {"a": 1}])
@pytest.mark.parametrize("provider", ["anthropic", "google", "bedrock", "mistral"])
def test_content_item_with_a_type_that_is_not_a_string_is_left_alone(
    item_type: Any, provider: str
) -> None:
    odd = {"type": item_type, "fileId": "file-abc"}
    history = call_history("unused")
    history[1]["content"][0]["input"] = {}
    history[2]["content"][0]["output"] = {
        "type": "content",
        "value": [odd, {"type": "file-id", "fileId": "file-def"}, {"type": "text", "text": "x"}],
    }
    result = heal_messages(history, provider=provider)  # type: ignore[arg-type]
    output = dump_messages(result.messages)[2]["content"][0]["output"]
    # The odd item is not a file-id item: the rule keeps it, and still drops the real one.
    assert output["value"] == [odd, {"type": "text", "text": "x"}]
    assert "openai-file-id" in {r.rule for r in result.repairs}


# --- 4. removed content JSON cannot hold as it is --------------------------------------------


def blank_part_history(**extra: Any) -> list[dict[str, Any]]:
    """A user message whose blank first part ``empty-text`` removes, carrying ``extra``."""
    blank = {"type": "text", "text": "  ", **extra}
    return [{"role": "user", "content": [blank, {"type": "text", "text": "a"}]}]


def removed_by(result: Any, rule: str) -> Any:
    [repair] = [r for r in result.repairs if r.rule == rule]
    json.loads(repair.model_dump_json())  # the record encodes
    return repair.removed


def test_removed_part_with_a_lone_surrogate_in_a_key_is_recorded_escaped() -> None:
    result = heal_messages(blank_part_history(note={"\ud800": "\udc00", "ok": 1}))
    removed = removed_by(result, "empty-text")
    assert removed == {"type": "text", "text": "  ", "note": {"\\ud800": "\\udc00", "ok": 1}}


def test_removed_part_with_bytes_that_are_not_utf8_is_recorded_as_base64() -> None:
    raw = b"\xff\xfe\x00z"
    result = heal_messages(blank_part_history(blob=raw))
    removed = removed_by(result, "empty-text")
    assert removed == {"type": "text", "text": "  ", "blob": base64.b64encode(raw).decode()}


def test_removed_tool_input_with_a_lone_surrogate_in_a_key_keeps_the_key() -> None:
    # pydantic's JSON dump writes such a key as three U+FFFD: the record must not.
    policy = Policy({"invalid-tool-name": "drop-pair"})
    result = heal_messages(call_history({"\ud800": 1}, name="bad name"), policy=policy)
    removed = [r.removed for r in result.repairs if r.rule == "invalid-tool-name"]
    assert removed[0]["input"] == {"\\ud800": 1}  # type: ignore[index,call-overload]


def test_removed_call_with_a_5000_digit_integer_is_recorded() -> None:
    policy = Policy({"invalid-tool-name": "drop-pair"})
    result = heal_messages(call_history({"n": BIG}, name="bad name"), policy=policy)
    removed = [r.removed for r in result.repairs if r.rule == "invalid-tool-name"]
    assert removed[0]["input"] == {"n": BIG}  # type: ignore[index,call-overload]


@pytest.mark.parametrize(
    "part",
    [
        TextPart(text="hi", provider_options={"anthropic": {"cacheControl": {"type": "x"}}}),
        ToolCallPart(tool_call_id="c", tool_name="f", input={"a": [1, 2.5, None, "\u00e9"]}),
        *load_messages(
            [
                {
                    "role": "user",
                    "content": [
                        {"type": "image", "image": b"\x89PNG", "mediaType": "image/png"},
                        {"type": "file", "data": "aGk=", "mediaType": "text/plain", "x": [1]},
                    ],
                }
            ]
        )[0].content,
        *load_messages(call_history({}))[2].content,
        UserMessage(content="hi", customField={"k": (1, 2)}),
    ],
)
def test_record_json_matches_the_json_dump_of_valid_models(part: Any) -> None:
    from heal.repairs import record_json

    assert record_json(part) == part.model_dump(mode="json", exclude_unset=True)


def test_record_json_takes_what_the_json_dump_refuses() -> None:
    from heal.repairs import record_json

    part = TextPart(
        text="\ud83d",
        blob=b"\xff",
        keys={"\udfff": [BIG, (1, 2)]},
        numbers={BIG: 1, 2: 3},
        deep=nested(2_000),
    )
    record = record_json(AssistantMessage(content=(part,)))
    assert isinstance(record, dict)
    content = record["content"]
    assert isinstance(content, list)
    [dumped] = content
    assert isinstance(dumped, dict)
    assert dumped["text"] == "\\ud83d"
    assert dumped["blob"] == "/w=="
    assert dumped["keys"] == {"\\udfff": [BIG, [1, 2]]}
    assert dumped["numbers"] == {"7" + "0" * 4999: 1, "2": 3}
    # Below the depth a record can hold as JSON values, kept as JSON text: nothing is lost.
    deep, levels = dumped["deep"], 3  # in a message, its content and a part
    while isinstance(deep, dict):
        deep, levels = deep["a"], levels + 1
    assert levels == 253
    assert deep == nested_text(2_000 - (253 - 3), kind="object")
    repair = Repair(
        rule="r", action=Action.REMOVE, message_index=0, part_index=None, reason="x", removed=record
    )
    text = repair.model_dump_json()  # pydantic writes it all, the 5,000-digit integer too
    assert f"[{'7' + '0' * 4999},[1,2]]" in text


def test_record_json_writes_a_cycle_as_a_marker() -> None:
    from heal.repairs import record_json

    loop: list[Any] = [1]
    loop.append(loop)
    box: list[Any] = []
    part = TextPart(text="a", loop=loop, box=box)
    box.append(part)  # the part holds itself
    record = record_json(part)
    assert record["loop"] == [1, "[circular reference]"]  # type: ignore[index,call-overload]
    assert record["box"] == ["[circular reference]"]  # type: ignore[index,call-overload]
    with pytest.raises(InputError) as info:
        dump_messages([UserMessage(content=(part,))])
    assert info.value.path == "messages[0].content[0].loop"
    assert "Circular reference" in str(info.value)


# --- 5. dump_messages ------------------------------------------------------------------------


def test_dump_messages_keeps_a_5000_digit_integer() -> None:
    # pydantic passes the int through: nothing to refuse, nothing lost. (Python's json module
    # refuses to write it by default; pydantic's JSON writer does not.)
    messages = load_messages(call_history({"n": BIG}))
    assert dump_messages(messages)[1]["content"][0]["input"] == {"n": BIG}


def assistant(part: Any) -> AssistantMessage:
    return AssistantMessage(content=(TextPart(text="a"), part))


@pytest.mark.parametrize(
    ("message", "path", "reason"),
    [
        (
            assistant(TextPart(text="a", blob=b"\xff")),
            "messages[1].content[1].blob",
            "invalid utf-8",
        ),
        (
            assistant(TextPart(text="a", note={"\ud800": 1})),
            "messages[1].content[1].note",
            "surrogates not allowed",
        ),
        (
            assistant(TextPart(text="a", note={BIG: 1})),
            "messages[1].content[1].note",
            "Exceeds the limit (4300 digits)",
        ),
        (
            assistant(
                ToolCallPart(tool_call_id="c", tool_name="f").model_copy(
                    update={"input": nested(300)}
                )
            ),
            "messages[1].content[1].input",
            "nested more than 254 levels",
        ),
        (
            assistant(
                ToolResultPart(
                    tool_call_id="c", tool_name="f", output=TextOutput(value="x", blob=b"\xff")
                )
            ),
            "messages[1].content[1].output.blob",
            "invalid utf-8",
        ),
        (
            UserMessage(content="hi", note=object()),
            "messages[1].note",
            "Unable to serialize unknown type",
        ),
    ],
)
def test_dump_messages_names_what_it_cannot_dump(message: Any, path: str, reason: str) -> None:
    messages = [UserMessage(content="first"), message]
    with pytest.raises(InputError) as info:
        dump_messages(messages)
    assert info.value.path == path
    assert reason in str(info.value)
    str(info.value).encode("utf-8")  # the message itself prints anywhere


# --- 6. a JSON value nested deeper than the models take --------------------------------------


def test_tool_input_nested_within_the_limit_loads() -> None:
    assert load_messages(call_history(nested(254)))[1].content[0].input == nested(254)  # type: ignore[union-attr]


@pytest.mark.parametrize("as_json", [False, True])
def test_tool_input_nested_too_deeply_names_the_input(as_json: bool) -> None:
    # Fails until heal.messages._diagnose (or _validate) calls _depth_problem.
    history = call_history(nested(255))
    with pytest.raises(InputError) as info:
        load_messages(json.dumps(history) if as_json else history)
    assert info.value.path == "messages[1].content[0].input"
    assert "nested more than 254 levels" in str(info.value)


def test_depth_problem_names_each_deep_value() -> None:
    from heal.messages import _depth_problem

    def part_history(part: dict[str, Any]) -> list[Any]:
        return [{"role": "tool", "content": [part]}]

    def result(output: dict[str, Any]) -> dict[str, Any]:
        return {"type": "tool-result", "toolCallId": "c", "toolName": "f", "output": output}

    assert _depth_problem(call_history(nested(254))) is None
    assert _depth_problem(call_history(nested(255))) == (
        "messages[1].content[0].input",
        "tool-call input is nested more than 254 levels deep, the most heal reads",
    )
    assert _depth_problem(call_history([[nested(254)]])) is not None
    # An empty array or object at the bottom adds no level (as pydantic counts).
    assert _depth_problem(call_history(nested(254, leaf=[]))) is None
    json_output = part_history(result({"type": "json", "value": nested(255)}))
    assert _depth_problem(json_output)[0] == "messages[0].content[0].output.value"  # type: ignore[index]
    fine_item = part_history(result({"type": "content", "value": [{"x": nested(254)}]}))
    assert _depth_problem(fine_item) is None
    deep_item = part_history(result({"type": "content", "value": [{}, {"x": nested(255)}]}))
    assert _depth_problem(deep_item)[0] == "messages[0].content[0].output.value[1]"  # type: ignore[index]
    fine_options = [{"role": "user", "content": "a", "providerOptions": {"p": nested(254)}}]
    assert _depth_problem(fine_options) is None
    deep_options = [
        {"role": "user", "content": [{"type": "text", "text": "a"}]},
        {"role": "user", "content": "a", "providerOptions": {"p": {"q": nested(255)}}},
    ]
    assert _depth_problem(deep_options)[0] == "messages[1].providerOptions"  # type: ignore[index]
    # Anything else (not a list, models, odd parts) is _diagnose's business, not a depth problem.
    assert _depth_problem([UserMessage(content="a"), "x", {"role": "user", "content": [7]}]) is None
    cyclic: list[Any] = []
    cyclic.append(cyclic)
    assert _depth_problem(call_history(cyclic)) is not None


# --- found by the fuzz target (tests/test_fuzz.py, benchmarks/fuzz.py) --------------------------


def _nested_list(depth: int, leaf: Any) -> Any:
    value = leaf
    for _ in range(depth):
        value = [value]
    return value


def _readers() -> list[Any]:
    from heal.adapters import anthropic, openai_chat, openai_responses

    return [
        load_messages,
        openai_chat.load_messages,
        anthropic.load_messages,
        openai_responses.load_messages,
    ]


@pytest.mark.parametrize(
    "reader", range(4), ids=["ai-sdk", "openai-chat", "anthropic", "responses"]
)
@pytest.mark.parametrize(
    "bad",
    [BIG, _nested_list(2000, "user")],
    ids=["5000-digit number", "list nested 2000 deep"],
)
def test_a_role_or_type_that_cannot_be_printed_is_named_not_printed(
    reader: int, bad: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    # pydantic-core itself reports, as unraisable (an "Exception ignored" line on stderr), that
    # it failed to repr such a role in its own error for the AI SDK reader's discriminator. The
    # caller still gets the InputError below; avoiding the print would cost a Python check per
    # message on the hot path.
    monkeypatch.setattr(sys, "unraisablehook", lambda args: None)
    # Error messages quoted the bad value with repr(), which itself raised (ValueError past the
    # digit limit, RecursionError for deep lists).
    read = _readers()[reader]
    with pytest.raises(InputError) as err:
        read([{"role": bad, "content": "hi"}])
    assert err.value.path.endswith(".role") or err.value.path.startswith("messages[0]")
    with pytest.raises(InputError) as err:
        read([{"role": "user", "content": [{"type": bad, "text": "hi"}]}])
    assert "content[0]" in err.value.path


def test_a_lone_surrogate_in_a_call_id_is_escaped_in_the_record() -> None:
    history = [
        {"role": "user", "content": "hi"},
        {
            "role": "tool",
            "content": [
                {
                    "type": "tool-result",
                    "toolCallId": "\ud800",
                    "toolName": "f",
                    "output": {"type": "text", "value": "x"},
                }
            ],
        },
    ]
    result = heal_messages(history)
    assert result.repairs
    text = json.dumps([r.model_dump(mode="json") for r in result.repairs], ensure_ascii=False)
    text.encode("utf-8")  # raised UnicodeEncodeError: the id was kept raw
    assert any(r.tool_call_id == "\\ud800" for r in result.repairs)


def test_pydantic_ai_json_dump_names_a_lone_surrogate() -> None:
    from heal.adapters import pydantic_ai

    messages = load_messages([{"role": "user", "content": "\ud83dhi"}])
    with pytest.raises(InputError, match="lone-surrogate"):
        pydantic_ai.dump_messages(messages, as_json=True)


@pytest.mark.parametrize("bad", [BIG, _nested_list(2000, "user")], ids=["number", "deep list"])
def test_a_gemini_role_that_cannot_be_printed_is_named_not_printed(bad: Any) -> None:
    from heal.adapters import gemini

    with pytest.raises(InputError) as err:
        gemini.load_messages([{"role": bad, "parts": [{"text": "hi"}]}])
    assert err.value.path == "contents[0].role"
