"""Partial conversion in the OpenAI Responses adapter (issue "Speed", item 4), held to the full
conversion it replaces as ``test_partial_conversion`` holds the other adapters (whose checks
these reuse): the reader's fast path builds exactly the models validation builds (values,
fields set and their order, origins and indices inside items), and for every provider
:func:`heal_openai_responses` gives the same repairs and an equal history, or the same error;
the items of canonical messages the heal left alone come back as the caller's own objects, and
the input is never changed.

The histories: the format's strategies, the plain histories of ``test_responses_fast_path``
with a defect, the edges of each fast shape, the previous response of delta mode, and the
benchmark corpus written as input items, every conversation with one defect. Last, the fast
path is held to the shapes it is for (the benchmark's spellings), and the writer to what it
does not write (untouched runs, and ids renamed alone).
"""

from __future__ import annotations

import copy
from collections.abc import Iterator
from contextlib import contextmanager
from functools import partial
from typing import Any
from unittest import mock

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from openai.types.responses import (
    ResponseFunctionToolCall,
    ResponseOutputMessage,
    ResponseReasoningItem,
)
from pydantic import BaseModel, ValidationError

from benchmarks.spellings import _responses, _without_first_result
from heal import InputError
from heal.adapters import openai_responses
from heal.adapters._common import NativeHealResult
from heal.adapters.openai_responses import heal_openai_responses

from . import strategies_openai_responses as s_responses
from .test_partial_conversion import (
    CORPUS,
    PROPERTY,
    _full_conversion,
    _outcome,
    _same_heal,
    _same_load,
    _written,
)
from .test_responses_fast_path import RESPONSES_PLAIN, STORED, plain_responses

Item = dict[str, Any]


def _same_responses_load(native: Any) -> None:
    """:func:`_same_load`, and the same index inside each item of every part, and the same
    types throughout (validation makes a string of a ``str`` subclass, which ``==`` hides)."""
    _same_load(openai_responses, native)
    fast = _outcome(partial(openai_responses.load, native))
    with _full_conversion(openai_responses):
        slow = _outcome(partial(openai_responses.load, native))
    if isinstance(slow, openai_responses.ResponsesLoaded):
        assert isinstance(fast, openai_responses.ResponsesLoaded)
        assert fast.sub_origins == slow.sub_origins
        assert _types(fast.messages) == _types(slow.messages)


def _types(value: Any) -> Any:
    """The type of every value in ``value``, models, dicts and lists walked."""
    if isinstance(value, BaseModel):
        return type(value), [(k, _types(v)) for k, v in value.__dict__.items()]
    if isinstance(value, dict):
        return dict, [(k, _types(v)) for k, v in value.items()]
    if isinstance(value, (list, tuple)):
        return type(value), [_types(v) for v in value]
    return type(value)


def _same(native: Any) -> None:
    _same_responses_load(native)
    _same_heal(openai_responses, heal_openai_responses, native)


def _sdk_objects(items: list[Any]) -> list[Any]:
    """``items`` with the assistant messages, calls and reasoning as the SDK's own objects
    (``response.output`` stored as it came), where the SDK takes them."""
    out: list[Any] = []
    for item in items:
        kind = item.get("type") if isinstance(item, dict) else None
        sdk: Any = None
        if kind == "function_call":
            sdk = ResponseFunctionToolCall
        elif kind == "reasoning":
            sdk = ResponseReasoningItem
        elif kind == "message" and item.get("role") == "assistant":
            sdk = ResponseOutputMessage
        try:
            out.append(item if sdk is None else sdk.model_validate(item))
        except ValidationError:
            out.append(item)
    return out


# --- defects ---------------------------------------------------------------------------------


def _drop_output(items: list[Item], k: int) -> None:
    outputs = [i for i, it in enumerate(items) if it.get("type") == "function_call_output"]
    if outputs:
        del items[outputs[k % len(outputs)]]


def _drop_call(items: list[Item], k: int) -> None:
    calls = [i for i, it in enumerate(items) if it.get("type") == "function_call"]
    if calls:
        del items[calls[k % len(calls)]]


def _bad_name(items: list[Item], k: int) -> None:
    calls = [it for it in items if it.get("type") == "function_call"]
    if calls:
        calls[k % len(calls)]["name"] = "web search!"


def _bad_arguments(items: list[Item], k: int) -> None:
    calls = [it for it in items if it.get("type") == "function_call"]
    if calls:
        calls[k % len(calls)]["arguments"] = ("[1]", "{", "", '{"a": NaN}')[k % 4]


def _blank(items: list[Item], k: int) -> None:
    items.insert(k % (len(items) + 1), {"role": "user", "content": " "})


def _late_text(items: list[Item], k: int) -> None:
    calls = [i for i, it in enumerate(items) if it.get("type") == "function_call"]
    if calls:
        items.insert(calls[k % len(calls)] + 1, {"role": "assistant", "content": "And now?"})


def _long_id(items: list[Item], k: int) -> None:
    for item in items:
        if item.get("type") in ("function_call", "function_call_output"):
            item["call_id"] = f"call_{'x' * 70}_{item['call_id']}"


def _swap_turns(items: list[Item], k: int) -> None:
    users = [i for i, it in enumerate(items) if it.get("role") == "user"]
    if len(users) > 1:
        del items[users[k % len(users)]]


DEFECTS = {
    f.__name__[1:]: f
    for f in (
        _drop_output,
        _drop_call,
        _bad_name,
        _bad_arguments,
        _blank,
        _late_text,
        _long_id,
        _swap_turns,
    )
}


@st.composite
def plain_with_a_defect(draw: st.DrawFn) -> list[Any]:
    """A plain history of ``test_responses_fast_path`` with one defect, maybe with the SDK's
    objects for ``response.output`` items."""
    items = draw(plain_responses())
    defect = draw(st.sampled_from(sorted(DEFECTS)))
    DEFECTS[defect](items, draw(st.integers(0, 7)))
    return _sdk_objects(items) if draw(st.integers(0, 4)) == 0 else items


responses_strategies = st.one_of(
    s_responses.input_items(),
    s_responses.valid_input_items(),
    s_responses.broken_input_items().map(lambda drawn: drawn[0]),
    plain_with_a_defect(),
)


# --- the reader and the writer against the full conversion ---------------------------------------


@PROPERTY
@given(responses_strategies)
def test_responses_fast_load_is_the_validated_load(native: Any) -> None:
    _same_responses_load(native)


@settings(PROPERTY, max_examples=80)
@given(responses_strategies)
def test_responses_partial_conversion_is_the_full_conversion(native: Any) -> None:
    _same_heal(openai_responses, heal_openai_responses, native)


@settings(PROPERTY, max_examples=40)
@given(responses_strategies, st.integers(0, 12))
def test_responses_delta_mode_reads_as_the_full_conversion(native: Any, cut: int) -> None:
    # The previous response's items before the cut, the new ones after it.
    previous, new = native[:cut], native[cut:]
    heal = partial(heal_openai_responses, previous=previous)
    _same_heal(openai_responses, heal, new, ["openai-responses", None])


@pytest.mark.parametrize("defect", sorted(DEFECTS))
@pytest.mark.parametrize("spelling", ["plain", "stored", "sdk"])
def test_responses_defects(defect: str, spelling: str) -> None:
    native = copy.deepcopy(RESPONSES_PLAIN if spelling == "plain" else STORED)
    DEFECTS[defect](native, 1)
    _same(_sdk_objects(native) if spelling == "sdk" else native)


# --- the edges of the fast shapes, one at a time -------------------------------------------------


def _call(call_id: str = "call_1", arguments: str = '{"q":1}', **extra: Any) -> Item:
    return {
        "type": "function_call",
        "call_id": call_id,
        "name": "search",
        "arguments": arguments,
        **extra,
    }


def _output(call_id: str = "call_1", output: Any = "ok", **extra: Any) -> Item:
    return {"type": "function_call_output", "call_id": call_id, "output": output, **extra}


def _answer(content: Any = None, **extra: Any) -> Item:
    element = {"type": "output_text", "text": "done", "annotations": []}
    return {
        "type": "message",
        "id": "msg_1",
        "role": "assistant",
        "status": "completed",
        "content": [element] if content is None else content,
        **extra,
    }


def _thought(**extra: Any) -> Item:
    summary = [{"type": "summary_text", "text": "Look it up."}]
    return {"type": "reasoning", "id": "rs_1", "summary": summary, **extra}


_ASK: Item = {"role": "user", "content": "q"}


class _Text(str):
    """A string of a subclass: the general path takes it as a string."""


def _turn(*assistant: Item, outputs: tuple[Item, ...] = (_output(),)) -> list[Item]:
    """A turn around some assistant-side items: the question, the items, the outputs, an answer
    and the next question; heal finds nothing in it for ``openai-responses`` but what the
    items bring."""
    return [_ASK, *assistant, *outputs, _answer(), {"role": "user", "content": "next"}]


RESPONSES_EDGES: list[Any] = [
    # users, systems and developers: typed, with more keys, lists of text, other elements
    [
        {"type": "message", "role": "developer", "content": "s"},
        {"role": "developer", "type": "message", "content": "s"},
        {"role": "system", "content": "s"},
        {"type": "message", "role": "system", "content": "s"},
        {"role": "user", "content": [{"type": "input_text", "text": "a"}]},
        {"type": "message", "role": "user", "content": []},
        {"role": "user", "content": [{"type": "input_text", "text": "a", "x": 1}]},
        {"role": "user", "content": "q", "status": "completed"},
        {"role": "user", "content": "q", "id": None},
        {"role": "system", "content": [{"type": "input_text", "text": "s"}]},
        {"role": "user", "content": [{"type": "input_image", "image_url": "https://x.y/a.png"}]},
        {"role": "user", "content": ""},
    ],
    # assistant messages: string content, phase, null fields, annotations, logprobs, refusal
    [
        _ASK,
        {"role": "assistant", "content": "a"},
        {"role": "assistant", "content": "a", "phase": "commentary"},
        {"role": "assistant", "content": "a", "phase": None, "type": "message"},
        _answer(phase="final_answer"),
        _answer(phase=None, extra=None),
        _answer([{"type": "output_text", "text": "t", "annotations": [], "logprobs": []}]),
        _answer([{"type": "output_text", "text": "t", "annotations": None, "logprobs": None}]),
        _answer([{"type": "output_text", "text": "t", "annotations": [{"type": "x"}]}]),
        _answer([{"type": "output_text", "text": "t", "logprobs": [{"token": "t"}]}]),
        _answer([{"type": "output_text", "text": "t", "prompt_cache_breakpoint": {"a": 1}}]),
        _answer([{"type": "output_text", "text": "t"}, {"type": "output_text", "text": "u"}]),
        _answer([{"type": "refusal", "refusal": "no"}]),
        _answer([]),
        _answer(status="incomplete"),
        _answer(status="in_progress"),
        _answer(id=None),
        _answer(id=7),
        {"role": "user", "content": "q"},
    ],
    # function calls: ids, namespaces, async, statuses, nulls, arguments of every spelling
    _turn(_call(id="fc_1", status="completed", namespace="tools", caller=None)),
    _turn({**_call(id=None, namespace=None, status="completed"), "async": True}),
    _turn(_call(arguments='{"q": 1}')),
    _turn(_call(arguments='{"q": 1.5, "r": [1, {"s": null}], "t": "\\u00e9"}')),
    _turn(_call(arguments="[1]")),
    _turn(_call(arguments="")),
    _turn(_call(arguments='{"x": 1e400}')),
    _turn(_call(arguments='{"a": NaN}')),
    _turn(_call(arguments="\ufeff{}")),
    _turn(_call(arguments="[" * 200 + "]" * 200)),
    _turn(_call(arguments='{"a":' * 70 + "1" + "}" * 70)),
    _turn(_call(arguments='{"a":' * 300 + "1" + "}" * 300)),  # deeper than the models take
    _turn(_call(status="incomplete")),
    _turn(_call(status="in_progress"), outputs=()),
    _turn(_call(caller={"type": "direct"})),
    _turn({**_call(), "async": "yes"}),
    _turn(_call(caller=(1, 2))),  # not JSON: validation refuses it
    [_ASK, _answer(extra={1, 2})],
    [_ASK, _answer([{"type": "output_text", "text": "t", "annotations": (1,)}])],
    _turn(_call(), outputs=(_output(status=1.5),)),
    _turn(_thought(status=[]), _call()),
    # outputs: named, nameless, null names, lists, ids and statuses
    _turn(_call(), outputs=(_output(name="search"),)),
    _turn(_call(), outputs=(_output(name=None, id="fco_1", status="completed"),)),
    _turn(_call(), outputs=(_output(output=[{"type": "input_text", "text": "ok"}]),)),
    _turn(_call(), outputs=(_output(status="incomplete"),)),
    _turn(_call(), outputs=(_output("call_elsewhere"),)),
    # reasoning: encrypted or not, null or absent fields, empty or missing summary, cut off
    _turn(_thought(), _call()),
    _turn(_thought(encrypted_content="gAAAAB"), _call()),
    _turn(_thought(encrypted_content=None, status=None, content=None), _call()),
    _turn(_thought(content=[{"type": "reasoning_text", "text": "raw"}]), _call()),
    _turn({"type": "reasoning", "id": "rs_1", "summary": []}, _call()),
    _turn({"type": "reasoning", "id": "rs_1"}, _call()),
    _turn({"type": "reasoning", "summary": []}, _call()),
    _turn(_thought(status="incomplete"), _call()),
    _turn(_thought(encrypted_content=3), _call()),
    _turn(
        {
            "type": "reasoning",
            "id": "rs_1",
            "summary": [
                {"type": "summary_text", "text": "a"},
                {"type": "summary_text", "text": "b", "x": None},
            ],
        },
        _call(),
    ),
    _turn(_thought(), _thought(), _call()),
    _turn(_call(), _thought()),
    # items the fast path leaves to the general one, beside fast ones; a history they are in
    # is written whole (their output kinds and server results depend on them)
    _turn(
        _call(),
        {"type": "custom_tool_call", "call_id": "ct_1", "name": "patch", "input": "x"},
        outputs=(_output(),),
    ),
    _turn({"type": "web_search_call", "id": "ws_1", "status": "completed", "action": {}}, _call()),
    _turn({"type": "item_reference", "id": "rs_9"}, _call()),
    _turn({"id": "msg_9"}, _call()),
    # values only the general path takes as strings, and keys that are not strings
    _turn(_call(_Text("call_1"))),
    _turn(_call(id=_Text("fc_1"))),
    _turn(_call(), outputs=(_output(name=_Text("search")),)),
    _turn(_thought(encrypted_content=_Text("gAAAAB")), _call()),
    [_ASK, _answer(phase=_Text("commentary"))],
    [{"role": "user", "content": "q", 1: None}, {"role": "user", "content": " "}],
    _turn({**_call(id="fc_1"), 2: "x"}),  # type: ignore[dict-item]
    # a renamed tool and ids a provider refuses, beside untouched turns
    [
        _ASK,
        _call("c1", name="my tool!"),
        _call("c2", name="my tool!"),
        _output("c1", name="my tool!"),
        _output("c2", name="other"),
        _answer(),
        {"role": "user", "content": "next"},
    ],
    [*_turn(_call("call.1"), outputs=(_output("call.1"),)), *_turn(_thought(), _call("c2"))],
    # errors, in the fast items' neighbourhood
    [_ASK, _call(), {"type": "function_call", "call_id": "c", "name": "x"}],
    [_ASK, {"role": "assistant", "content": 3}],
    [_ASK, {"role": "robot", "content": "x"}],
    [_ASK, "not an item"],
]


@pytest.mark.parametrize("native", RESPONSES_EDGES)
def test_responses_edges(native: Any) -> None:
    _same(native)


# --- the benchmark corpus: one defect in every conversation --------------------------------------

RESPONSES_CORPUS = [
    native for shape in CORPUS for native in _written(openai_responses.dump_messages, CORPUS[shape])
]


def _runs(loaded: openai_responses.ResponsesLoaded, size: int) -> list[range]:
    """The items of each loaded canonical message."""
    ends = [*loaded.origins[1:], size]
    return [range(start, end) for start, end in zip(loaded.origins, ends, strict=True)]


def _untouched_runs_are_the_callers(native: list[Any], result: NativeHealResult[Any]) -> None:
    """Every item of a canonical message no repair names (nor one next to it) is the caller's
    own object."""
    runs = _runs(openai_responses.load(native), len(native))
    near: set[int] = set()
    for repair in result.repairs:
        for index in (repair.message_index, repair.anchor_index):
            if index is not None:
                k = next(k for k, run in enumerate(runs) if index in run)
                near.update((k - 1, k, k + 1))
    kept = {id(item) for item in result.messages}
    for k, run in enumerate(runs):
        if k not in near:
            for i in run:
                assert id(native[i]) in kept, i


def test_the_corpus_is_written_as_input_items() -> None:
    assert len(RESPONSES_CORPUS) > 30
    kinds = {item.get("type") for native in RESPONSES_CORPUS for item in native}
    assert {"function_call", "function_call_output", "reasoning"} <= kinds


@pytest.mark.parametrize("native", RESPONSES_CORPUS)
def test_responses_corpus_partial_conversion(native: Any) -> None:
    _same(native)
    for provider in ("openai-responses", None):
        result = heal_openai_responses(native, provider=provider)
        if result.messages is not native:
            _untouched_runs_are_the_callers(native, result)


# --- what the fast path and the writer take ------------------------------------------------------


@contextmanager
def _writes() -> Iterator[list[Any]]:
    """The canonical messages the writer writes (rather than hands back or patches)."""
    written: list[Any] = []
    dump = openai_responses._dump_message

    def spy(message: Any, *args: Any) -> Any:
        written.append(message)
        return dump(message, *args)

    with mock.patch.object(openai_responses, "_dump_message", spy):
        yield written


@pytest.mark.parametrize("style", ["dicts", "model_dump()", "reasoning"])
def test_the_benchmark_spellings_take_the_fast_path(style: str) -> None:
    # Every item of the stored histories of benchmarks.spellings is built directly, and after
    # one repair only the turn of the repaired call is written.
    native = _without_first_result(_responses(style))
    taken: list[bool] = []
    fast = openai_responses._Reader._fast

    def spy(reader: Any, *args: Any) -> bool:
        found: bool = fast(reader, *args)
        taken.append(found)
        return found

    with mock.patch.object(openai_responses._Reader, "_fast", spy), _writes() as written:
        result = heal_openai_responses(native)
    assert taken == [True] * len(native)
    assert [r.rule for r in result.repairs] == ["orphan-tool-call"]
    assert len(written) == 1  # the call's turn, its call removed
    _untouched_runs_are_the_callers(native, result)
    _same(native)


def test_ids_renamed_alone_are_patched_on_copies() -> None:
    # Mistral takes nine-character ids only: every call and output is renamed and nothing
    # else changes, so nothing is written; the copies have the new ids, the caller's items
    # keep theirs.
    native = copy.deepcopy(STORED)
    with _writes() as written:
        result = heal_openai_responses(native, provider="mistral")
    assert {r.rule for r in result.repairs} == {"mistral-tool-call-id"}
    assert written == []
    before = copy.deepcopy(native)
    for item, theirs in zip(result.messages, native, strict=True):
        if theirs.get("type") in ("function_call", "function_call_output"):
            assert item is not theirs and item["call_id"] != theirs["call_id"]
            assert {k: v for k, v in item.items() if k != "call_id"} == {
                k: v for k, v in theirs.items() if k != "call_id"
            }
        else:
            assert item is theirs
    assert native == before
    _same(native)


def test_ids_renamed_alone_are_patched_after_a_message_heal_removed() -> None:
    # A blank user message removed before the renamed turn: the turn is still found (the run
    # after the next), and patched rather than written.
    native = copy.deepcopy(STORED)
    native.insert(2, {"role": "user", "content": " "})
    with _writes() as written:
        result = heal_openai_responses(native, provider="mistral")
    assert {r.rule for r in result.repairs} == {"mistral-tool-call-id", "empty-message"}
    assert written == []
    assert len(result.messages) == len(native) - 1
    _same(native)


def test_a_run_of_sdk_objects_is_written_as_dicts() -> None:
    # The full conversion writes an SDK object as its JSON: so does the partial one, untouched
    # or not; the caller's dicts beside it come back as they are.
    native = _sdk_objects(_without_first_result(copy.deepcopy(STORED)))
    assert any(not isinstance(item, dict) for item in native)
    result = heal_openai_responses(native)
    assert result.changed
    assert all(type(item) is dict for item in result.messages)
    given = {id(item) for item in native}
    assert any(id(item) in given for item in result.messages)
    _same(native)


def test_a_history_with_a_paired_call_is_written_whole() -> None:
    # A result heal makes up is written as its call's output kind: the writer must know every
    # call before it, so such a history is written as the full conversion writes it.
    native = [
        _ASK,
        {"type": "custom_tool_call", "call_id": "ct_1", "name": "patch", "input": "x"},
        {"role": "user", "content": "next"},
        _call(),
        _output(),
        {"role": "user", "content": " "},
    ]
    result = heal_openai_responses(native)
    assert result.changed
    kinds = [item.get("type") for item in result.messages]
    assert "custom_tool_call_output" in kinds
    assert all(item is not given for item in result.messages for given in native)
    _same(native)


def test_an_item_stays_unchanged_when_its_run_is_written() -> None:
    native = copy.deepcopy(STORED)
    before = copy.deepcopy(native)
    for provider in ("openai-responses", "anthropic", "mistral", None):
        heal_openai_responses(_without_first_result(native), provider=provider)
    assert native == before


def test_load_errors_name_the_same_item_either_way() -> None:
    native = [_ASK, _call(), _output(), {"type": "function_call", "call_id": "c", "name": "x"}]
    fast = _outcome(partial(openai_responses.load, native))
    with _full_conversion(openai_responses):
        slow = _outcome(partial(openai_responses.load, native))
    assert fast == slow
    assert slow[0] is InputError and "input[3]" in slow[1]
