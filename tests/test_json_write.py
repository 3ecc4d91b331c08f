"""heal_json's unclean path (heal/_json.py): the decoded text stands in for the text, and the
messages heal leaves alone are written from their decoded dicts.

Both are shortcuts of the same output: heal_json must give exactly what heal_messages gives on
the text (the same repairs, and :func:`heal._json.dumps` of the same history as str or UTF-8
bytes), or the same error. The histories here are made to find a difference between the
shortcut and the long way: dicts out of the models' order, fields by their Python names,
booleans given as strings or numbers, unknown keys anywhere, floats a dump or orjson writes
otherwise, integers past 64 bits (orjson reads them as floats), values nested near the depths
the readers stop at, and keys given twice.
"""

from __future__ import annotations

import copy
import json
import types
import typing
from functools import partial
from typing import Any, get_args, get_origin

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import JsonValue

import heal._json as heal_json_module
import heal.messages as models
from heal import JsonHealResult, heal_json, heal_messages, load_messages
from heal._json import clean_verdict, dumps
from tests.test_json import (
    ALL_PROVIDERS,
    PLAIN,
    _heal_json,
    _nested,
    _outcome,
    _standard_library_only,
    _texts,
    any_history,
)

History = list[dict[str, Any]]

# --- the layout tables against the models ------------------------------------------------------

_PARTS: dict[str, type[models._Model]] = {
    "text": models.TextPart,
    "reasoning": models.ReasoningPart,
    "image": models.ImagePart,
    "file": models.FilePart,
    "tool-call": models.ToolCallPart,
    "tool-result": models.ToolResultPart,
    "tool-approval-request": models.ToolApprovalRequest,
    "tool-approval-response": models.ToolApprovalResponse,
}
_OUTPUTS: dict[str, type[models._Model]] = {
    "text": models.TextOutput,
    "error-text": models.ErrorTextOutput,
    "json": models.JsonOutput,
    "error-json": models.ErrorJsonOutput,
    "execution-denied": models.ExecutionDeniedOutput,
    "content": models.ContentOutput,
}


def _longest(orders: dict[tuple[str, ...], tuple[str, ...]]) -> tuple[str, ...]:
    return max(orders, key=len)


def _is_bool(annotation: Any) -> bool:
    return annotation is bool or (
        get_origin(annotation) in (typing.Union, types.UnionType)
        and set(get_args(annotation)) == {bool, type(None)}
    )


_TAKEN_AS_GIVEN = (
    str,
    str | None,
    JsonValue,
    models.ProviderOptions | None,
    tuple[dict[str, JsonValue], ...],
    models.DataContent,
)
"""Field types whose decoded JSON a dump gives back as it was (a layout needs no check of
them); a field of another type must be looked at before it joins this list."""


def _fields_are_known(model: type[models._Model], skip: set[str]) -> None:
    for name, field in model.model_fields.items():
        if name in skip or _is_bool(field.annotation):
            continue
        assert (
            field.annotation in _TAKEN_AS_GIVEN or get_origin(field.annotation) is typing.Literal
        ), (
            model.__name__,
            name,
            field.annotation,
        )


def test_layouts_are_the_models_fields_in_order() -> None:
    # A field added, renamed or moved in heal/messages.py must be added to heal/_json.py's
    # tables, or a message written from its decoded dict would differ from its dump.
    assert set(heal_json_module._PART_LAYOUTS) == set(_PARTS)
    assert set(heal_json_module._OUTPUT_LAYOUTS) == set(_OUTPUTS)
    for message in models._MESSAGE_TYPES:
        aliases = tuple(f.alias for f in message.model_fields.values())
        assert aliases == _longest(heal_json_module._MESSAGE_ORDERS)
        _fields_are_known(message, {"content"})
    for kind, part in _PARTS.items():
        layout = heal_json_module._PART_LAYOUTS[kind]
        fields = part.model_fields
        assert tuple(f.alias for f in fields.values()) == _longest(layout), kind
        booleans = {f.alias for f in fields.values() if _is_bool(f.annotation)}
        for order, checked in layout.items():
            assert checked == tuple(name for name in order if name in booleans), (kind, order)
        _fields_are_known(part, {"output"})
    for kind, output in _OUTPUTS.items():
        fields = output.model_fields
        assert tuple(f.alias for f in fields.values()) == _longest(
            heal_json_module._OUTPUT_LAYOUTS[kind]
        )
        assert not any(_is_bool(f.annotation) for f in fields.values())
        _fields_are_known(output, set())


# --- histories made to tell the shortcuts from the long way -----------------------------------

_PYTHON_NAMES = {
    "providerOptions": "provider_options",
    "toolCallId": "tool_call_id",
    "toolName": "tool_name",
    "providerExecuted": "provider_executed",
    "approvalId": "approval_id",
    "mediaType": "media_type",
}
_NUMBERS = (
    2**64,
    2**64 - 1,
    -(2**63) - 1,
    -(2**63),
    2**63,
    10**19 - 1,
    123456789012345678,
    -0.0,
    1.5,
    0.1,
    1e-05,
    1.5e-07,
    1e16,
    1e22,
    float(2**63),
    1e300,
    5e-324,
)
"""Integers around 64 bits (orjson reads those past it as floats), and floats a dump, the
standard library and orjson may write differently."""


def _dicts(value: Any) -> list[dict[str, Any]]:
    """Every dict in a history (messages, parts, outputs, JSON values), outermost first."""
    found: list[dict[str, Any]] = []
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            found.append(item)
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return found


def _shuffle(draw: st.DrawFn, target: dict[str, Any]) -> None:
    items = draw(st.permutations(list(target.items())))
    target.clear()
    target.update(items)


def _python_name(draw: st.DrawFn, target: dict[str, Any]) -> None:
    names = [key for key in target if key in _PYTHON_NAMES]
    if names:
        key = draw(st.sampled_from(names))
        target[_PYTHON_NAMES[key]] = target.pop(key)


def _loose_boolean(draw: st.DrawFn, target: dict[str, Any]) -> None:
    for key in ("providerExecuted", "approved"):
        if isinstance(target.get(key), bool):
            given_as = draw(st.sampled_from(("true", "false", 1, 0, "yes", None)))
            target[key] = given_as


def _unknown_key(draw: st.DrawFn, target: dict[str, Any]) -> None:
    items = list(target.items())
    at = draw(st.integers(0, len(items)))
    items.insert(at, ("customField", draw(st.sampled_from((1, "x", {"a": [1.5]}, None)))))
    target.clear()
    target.update(items)


def _number(draw: st.DrawFn, target: dict[str, Any]) -> None:
    key = draw(st.sampled_from(["n", *target]))
    if key in ("role", "type", "content", "text", "toolCallId", "toolName", "output"):
        key = "n"
    target[key] = draw(st.sampled_from(_NUMBERS))


def _deep(draw: st.DrawFn, target: dict[str, Any]) -> None:
    target["deep"] = _nested(
        draw(st.sampled_from((62, 63, 64, 65, 66, 197, 200, 252, 253, 254, 255)))
    )


_CHANGES = (_shuffle, _python_name, _loose_boolean, _unknown_key, _number, _deep)


@st.composite
def odd_histories(draw: st.DrawFn) -> History:
    """A history with one to three odd changes, each on a dict anywhere in it."""
    history: History = copy.deepcopy(draw(any_history))
    for _ in range(draw(st.integers(1, 3))):
        targets = _dicts(history)
        if not targets:
            break
        target = draw(st.sampled_from(targets))
        draw(st.sampled_from(_CHANGES))(draw, target)
    return history


def _long_way(data: str | bytes, provider: Any) -> tuple[Any, str | bytes]:
    """What heal_json gave for a history that needs healing before these shortcuts: the text
    healed by heal_messages, dumped whole and written by :func:`dumps` (the dump may raise,
    which heal_messages alone does not)."""
    result = heal_messages(data, provider=provider)
    text = dumps(result.messages)
    return result.repairs, (text if isinstance(data, str) else heal_json_module._utf8(text))


def _heals_the_long_way(history: History) -> None:
    for data in _texts(history):
        for provider in ALL_PROVIDERS:
            _same_outcome(data, provider)


def _same_outcome(data: str | bytes, provider: Any) -> None:
    expected = _outcome(partial(_long_way, data, provider))
    got = _outcome(partial(_heal_json, data, provider=provider))
    if isinstance(got, JsonHealResult) and got.data is data:
        # Plainly clean: the long way changes nothing (tests/test_json.py holds the verdict).
        assert clean_verdict(json.loads(data), provider)
        return
    if isinstance(expected, tuple) and isinstance(expected[0], type):
        assert got == expected
        return
    assert isinstance(got, JsonHealResult)
    assert (got.repairs, got.data) == expected
    assert type(got.data) is type(data)


@settings(max_examples=150, deadline=None)
@given(odd_histories())
def test_odd_histories_heal_as_heal_messages_heals_them(history: History) -> None:
    _heals_the_long_way(history)


@settings(max_examples=40, deadline=None)
@given(odd_histories())
def test_odd_histories_without_orjson_heal_as_heal_messages_heals_them(history: History) -> None:
    with _standard_library_only():
        _heals_the_long_way(history)


@settings(max_examples=60, deadline=None)
@given(any_history, st.sampled_from(_NUMBERS))
def test_numbers_in_a_broken_history_are_written_as_heal_messages_reads_them(
    history: History, number: Any
) -> None:
    # The number sits in a message heal leaves alone, in a history that needs a repair.
    history = copy.deepcopy(history)
    history.append({"role": "user", "content": " ", "customField": [number, {"n": number}]})
    history.append({"role": "user", "content": "last", "providerOptions": {"x": {"n": number}}})
    _heals_the_long_way(history)


# --- texts the decoders may read differently ---------------------------------------------------

_BROKEN_TURN = (
    '{"role": "user", "content": "q"}, '
    '{"role": "assistant", "content": [{"type": "tool-call", "toolCallId": "c1", '
    '"toolName": "t", "input": {}}]}, {"role": "user", "content": "next"}'
)
"""A call without its result: every provider repairs it."""

_ANSWERED = (
    '[{"role": "user", "content": "q0"}, {"role": "assistant", "content": [{"type": '
    '"tool-call", "toolCallId": "c0", "toolName": "t", "input": {}}]}, {"role": "tool", '
    '"content": [{"type": "tool-result", "toolCallId": "c0", "toolName": "t", "output": %s}]}, '
    '{"role": "assistant", "content": "a0"}, @]'
)
"""A call answered by a result whose output is given as the parameter, then a broken turn."""

ODD_TEXTS = [
    pytest.param('[{"role": "user", "content": "a", "content": "b"}, @]', id="key-twice"),
    pytest.param(
        '[{"role": "user", "content": [{"type": "text", "text": "a", "text": "b"}]}, @]',
        id="part-key-twice",
    ),
    pytest.param(
        '[{"role": "user", "content": "a", "customField": 1, "customField": 2}, @]',
        id="unknown-key-twice",
    ),
    pytest.param('[{"role": "user", "content": "a", "n": 18446744073709551616}, @]', id="u64+1"),
    pytest.param(
        '[{"role": "user", "content": "a", "n": [-9223372036854775809, 1e16, 1e-05]}, @]',
        id="i64-1",
    ),
    pytest.param('[{"role": "user", "content": "a", "n": 1e400}, @]', id="overflow"),
    pytest.param('[{"role": "user", "content": "a", "n": 1E2}, @]', id="exponent"),
    pytest.param('[{"role": "user", "content": "a \\ud800"}, @]', id="lone-surrogate"),
    pytest.param(
        '[{"role": "assistant", "content": "", "tool_calls": []}, {"role": "user", '
        '"content": "\\udfff"}, @]',
        id="foreign-key-and-lone-surrogate",
    ),
    pytest.param(
        '[{"role": "user", "content": "a", "n": ' + json.dumps(_nested(230)) + "}, @]",
        id="deeper-than-pydantic-parses",
    ),
    pytest.param(
        '[{"role": "assistant", "content": [{"type": "tool-call", "toolCallId": "c0", '
        '"toolName": "t", "input": {}, "providerExecuted": "true"}]}, @]',
        id="boolean-as-string",
    ),
    pytest.param('[{"content": "a", "role": "user"}, @]', id="out-of-order"),
    pytest.param(
        '[{"role": "user", "content": "q0"}, {"role": "assistant", "content": [{"type": '
        '"tool-call", "toolCallId": "c0", "toolName": "t", "input": "{\\"a\\": \\u0031e-05}"}]}, '
        '{"role": "tool", "content": [{"type": "tool-result", "toolCallId": "c0", "toolName": '
        '"t", "output": {"type": "text", "value": "x"}}]}, @]',
        id="float-parsed-by-a-repair",
    ),
    pytest.param(_ANSWERED % '{"value": "x", "type": "text"}', id="output-out-of-order"),
    pytest.param(_ANSWERED % '{"type": "json", "n": 1, "value": [1]}', id="output-unknown-key"),
    pytest.param(
        _ANSWERED % '{"type": "text", "value": "x", "provider_options": {"a": {}}}',
        id="output-python-name",
    ),
]


@pytest.mark.parametrize("text", ODD_TEXTS)
@pytest.mark.parametrize("orjson", [True, False])
def test_odd_texts_heal_as_heal_messages_heals_them(text: str, orjson: bool) -> None:
    text = text.replace("@", _BROKEN_TURN)
    for data in (text, text.encode("utf-8", "surrogatepass")):
        for provider in ALL_PROVIDERS:
            if orjson:
                _same_outcome(data, provider)
            else:
                with _standard_library_only():
                    _same_outcome(data, provider)


class _CountingParts:
    """Stands in for heal/_json.py's part dumper, counting what it dumps."""

    def __init__(self) -> None:
        self.dumped: list[str] = []
        self.real = heal_json_module._PARTS

    def dump_python(self, parts: list[Any], **options: Any) -> Any:
        self.dumped += [part.type for part in parts]
        return self.real.dump_python(parts, **options)


def test_messages_heal_leaves_alone_are_not_dumped_again() -> None:
    # The point of the shortcut: only what heal changed goes through a dump. The results are
    # gone: heal puts a tool message of two made-up results after the calls, dumped part by
    # part; every other message is written from its decoded dict. A changed message with
    # options of its own is dumped whole.
    history = copy.deepcopy(PLAIN)
    del history[3]
    with_options = copy.deepcopy(PLAIN)
    with_options[2]["providerOptions"] = {"x": {"n": 1}}
    with_options[2]["content"][1]["toolCallId"] = "call 1"  # renamed: the message changes
    with_options[3]["content"][1]["toolCallId"] = "call 1"
    for source, whole, parts in ((history, [], ["tool-result"] * 2), (with_options, [1], [])):
        dumped: list[int] = []
        real = models.dump_messages  # the function heal._json imports

        def spy(messages: Any, dumped: list[int] = dumped, real: Any = real) -> Any:
            messages = list(messages)
            dumped.append(len(messages))
            return real(messages)

        counting = _CountingParts()
        text = json.dumps(source)
        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(heal_json_module, "dump_messages", spy)
            patch.setattr(heal_json_module, "_PARTS", counting)
            result = heal_json(text)
        assert result.changed
        assert (dumped, counting.dumped) == (whole, parts)
        assert result.data == dumps(heal_messages(text).messages)


def test_parts_heal_leaves_alone_in_a_changed_message_are_not_dumped_again() -> None:
    history = copy.deepcopy(PLAIN)
    history[2]["content"].insert(0, {"type": "reasoning", "text": "r", "providerOptions": {}})
    for message in history[2:4]:  # an id every provider refuses: the call and result renamed
        for part in message["content"]:
            if "toolCallId" in part and part["toolCallId"] == "call_1":
                part["toolCallId"] = "call 1"
    counting = _CountingParts()
    text = json.dumps(history)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(heal_json_module, "_PARTS", counting)
        result = heal_json(text)
    assert {r.rule for r in result.repairs} == {"invalid-tool-call-id"}
    # The renamed call and result are their decoded dicts with the new id: nothing is dumped.
    assert counting.dumped == []
    assert result.data == dumps(heal_messages(text).messages)


def test_a_part_renamed_and_changed_otherwise_is_dumped() -> None:
    # The call's id is renamed and its input, stored as a string, parsed: it is dumped; its
    # result, renamed alone, is written from its decoded dict.
    history = copy.deepcopy(PLAIN)
    for message in history[2:4]:
        for part in message["content"]:
            if part.get("toolCallId") == "call_1":
                part["toolCallId"] = "call 1"
                if part["type"] == "tool-call":
                    part["input"] = json.dumps(part["input"])
    counting = _CountingParts()
    text = json.dumps(history)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(heal_json_module, "_PARTS", counting)
        result = heal_json(text)
    assert {r.rule for r in result.repairs} == {"invalid-tool-call-id", "invalid-tool-input"}
    assert counting.dumped == ["tool-call"]
    assert result.data == dumps(heal_messages(text).messages)


def test_a_rename_is_a_new_id_or_name_and_nothing_else() -> None:
    from heal._construct import replaced, with_field

    history = load_messages(PLAIN)
    call = next(
        p
        for m in history
        if not isinstance(m.content, str)
        for p in m.content
        if p.type == "tool-call"
    )
    renamed = with_field(with_field(call, "tool_call_id", "new"), "tool_name", "other")
    assert heal_json_module._renamed(renamed, call)
    # The same values, but one more field set (a dump writes it now) or other extras.
    assert not heal_json_module._renamed(replaced(renamed, {"provider_options": None}), call)
    other_extras = with_field(call, "tool_call_id", "new")
    object.__setattr__(other_extras, "__pydantic_extra__", {"customField": 1})
    assert not heal_json_module._renamed(other_extras, call)
    # Another value, or another class.
    assert not heal_json_module._renamed(with_field(renamed, "input", {"a": 1}), call)
    text = next(
        p for m in history if not isinstance(m.content, str) for p in m.content if p.type == "text"
    )
    assert not heal_json_module._renamed(text, text)


@st.composite
def renamed_histories(draw: st.DrawFn) -> History:
    """An odd history (see :func:`odd_histories`) whose calls and results may hold ids and tool
    names every provider renames, each call's result along with it."""
    history = draw(odd_histories())
    for found in _dicts(history):
        if found.get("type") not in ("tool-call", "tool-result"):
            continue
        for key, tail in (("toolCallId", ".x"), ("toolName", " x")):
            value = found.get(key)
            if isinstance(value, str) and draw(st.booleans()):
                for other in _dicts(history):
                    if other.get(key) == value and other.get("type") in (
                        "tool-call",
                        "tool-result",
                    ):
                        other[key] = value + tail
    return history


@settings(max_examples=100, deadline=None)
@given(renamed_histories())
def test_renamed_ids_and_names_heal_as_heal_messages_heals_them(history: History) -> None:
    # Renamed parts are written from their decoded dicts when those are canonical and the
    # part changed in nothing else: the same text as the long way, whatever the dicts are like.
    _heals_the_long_way(history)
