"""Partial conversion in the LangChain adapter (issue "Speed", item 4), held to the full
conversion as ``tests/adapters/test_partial_conversion.py`` holds the other adapters'.

A history that needs a repair is still loaded whole, but the common messages are built as
canonical models straight from the caller's objects (the loader's fast path), and after the heal
only the messages it changed are written back: the others are the caller's own objects, and a
message whose calls or result only got new ids or names is a copy of the caller's with those
replaced. With ``_PARTIAL`` switched off the adapter converts everything (``model_dump``, the AI
SDK dicts and their validation; every message written back): the two must load the same models
(values, fields counted as set and their order, origins), and under ``"auto"``, None and every
provider return the same repairs and the same messages (field by field, dict keys in order), or
the same error; the caller's untouched messages come back as the very objects, and the input is
never changed.

The histories: the format's strategies; the plain histories of ``test_langchain_fast_path``
with a defect; the edges of each fast shape (and values set past LangChain's validation, which
the writer must write as the full conversion does); the benchmark corpus, both shapes, every
conversation with one defect, written as LangChain messages.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from datetime import datetime
from functools import partial
from typing import Any
from unittest import mock

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage, ToolMessage
from pydantic import BaseModel

from benchmarks.spellings import _langchain, _without_first_result
from heal._verdict import MAX_DEPTH, plain_value
from heal.adapters import langchain
from heal.adapters._common import NativeHealResult

from . import strategies_langchain as s_langchain
from .test_langchain_fast_path import PROVIDERS, plain_langchain
from .test_partial_conversion import (
    CORPUS,
    PROPERTY,
    _full_conversion,
    _outcome,
    _same_load,
    _untouched_are_the_callers,
    _written,
)

_WRITTEN_IN_AN_ORDER_OF_THEIR_OWN = frozenset({"content", "additional_kwargs"})
"""Fields whose dicts the full conversion writes in an order of its own, where a message handed
back keeps the caller's: a block's keys, and ``additional_kwargs`` with the reasoning and
Gemini's signatures last."""


def _ordered(value: Any, *, in_order: bool = True) -> Any:
    """A value as compared between the two conversions: models field by field (without the
    fields counted as set: a message handed back keeps the caller's, one written has its own),
    each scalar with its type (``1`` is not ``1.0``), and dicts with their keys in order but in
    ``_WRITTEN_IN_AN_ORDER_OF_THEIR_OWN``."""
    if isinstance(value, BaseModel):
        fields = [
            (k, _ordered(v, in_order=in_order and k not in _WRITTEN_IN_AN_ORDER_OF_THEIR_OWN))
            for k, v in value.__dict__.items()
        ]
        return type(value).__name__, fields, _ordered(value.__pydantic_extra__)
    if isinstance(value, dict):
        items = {k: _ordered(v, in_order=in_order) for k, v in value.items()}
        return list(items.items()) if in_order else items
    if isinstance(value, (list, tuple)):
        return type(value).__name__, [_ordered(v, in_order=in_order) for v in value]
    return type(value).__name__, value


def _same_heal(native: list[BaseMessage], providers: list[Any] = PROVIDERS) -> None:
    """Under every provider: partial conversion gives what full conversion gives, the caller's
    messages it returns are the objects passed in (and unchanged), and the input is never
    changed."""
    before = copy.deepcopy(native)
    dumped = _ordered(native)
    given_ids = {id(m) for m in native}
    for provider in providers:
        fast = _outcome(partial(langchain.heal_langchain, native, provider=provider))
        with _full_conversion(langchain):
            slow = _outcome(partial(langchain.heal_langchain, native, provider=provider))
        if not isinstance(slow, NativeHealResult):
            assert fast == slow, provider
            continue
        assert isinstance(fast, NativeHealResult), (provider, fast)
        assert fast.repairs == slow.repairs, provider
        assert [r.describe() for r in fast.repairs] == [r.describe() for r in slow.repairs]
        assert (fast.messages is native) == (slow.messages is native), provider
        assert fast.messages == slow.messages, provider
        assert _ordered(fast.messages) == _ordered(slow.messages), provider
        if fast.messages is not native:
            # The caller's messages come back at most once each; the others are new objects.
            kept = [m for m in fast.messages if id(m) in given_ids]
            assert len({id(m) for m in kept}) == len(kept), provider
    assert native == before
    assert _ordered(native) == dumped


def _checked(native: list[BaseMessage]) -> None:
    _same_load(langchain, native)
    _same_heal(native)


# --- the format's strategies and its plain histories with a defect -------------------------------


@settings(PROPERTY, max_examples=200)
@given(s_langchain.histories())
def test_fast_load_is_the_full_load(native: list[BaseMessage]) -> None:
    _same_load(langchain, native)


@settings(PROPERTY, max_examples=60)
@given(s_langchain.histories())
def test_partial_conversion_is_the_full_conversion(native: list[BaseMessage]) -> None:
    _same_heal(native)


def test_a_repeated_call_id_leaves_gemini_signature_with_the_call_that_took_it() -> None:
    # Two calls of one id and one Gemini signature for it: the loader gives it to the first
    # call, and the duplicate rule renames the second. The signature stays under the first
    # call's id (as writing the healed message gives it); the renamed copy of the message
    # once moved it to the second call's new id (found by the property test above).
    native: list[BaseMessage] = [
        AIMessage(
            content=[
                {"type": "text", "text": "hi"},
                {"type": "tool_use", "id": "call_1", "name": "get_weather", "input": {}},
                {"type": "tool_use", "id": "call_1", "name": "get_weather", "input": {}},
            ],
            additional_kwargs={"__gemini_function_call_thought_signatures__": {"call_1": "c2ln"}},
            tool_calls=[
                {"name": "get_weather", "args": {}, "id": "call_1", "type": "tool_call"},
                {"name": "get_weather", "args": {}, "id": "call_1", "type": "tool_call"},
            ],
        )
    ]
    healed = langchain.heal_langchain(native, provider="anthropic").messages[0]
    assert healed.additional_kwargs == {
        "__gemini_function_call_thought_signatures__": {"call_1": "c2ln"}
    }
    assert [call["id"] for call in healed.tool_calls] == ["call_1", "call_1_2"]  # type: ignore[attr-defined]
    _same_heal(native)


def _call_ids(native: list[BaseMessage]) -> list[str]:
    return [c["id"] for m in native if isinstance(m, AIMessage) for c in m.tool_calls if c["id"]]


def _drop_result(native: list[BaseMessage], draw: st.DrawFn) -> None:
    spots = [i for i, m in enumerate(native) if isinstance(m, ToolMessage)]
    if spots:
        del native[draw(st.sampled_from(spots))]


def _drop_call_message(native: list[BaseMessage], draw: st.DrawFn) -> None:
    spots = [i for i, m in enumerate(native) if isinstance(m, AIMessage) and m.tool_calls]
    if spots:
        del native[draw(st.sampled_from(spots))]


def _blank_human(native: list[BaseMessage], draw: st.DrawFn) -> None:
    native.insert(draw(st.integers(0, len(native))), HumanMessage(" "))


def _repeat_result(native: list[BaseMessage], draw: st.DrawFn) -> None:
    spots = [i for i, m in enumerate(native) if isinstance(m, ToolMessage)]
    if spots:
        i = draw(st.sampled_from(spots))
        native.insert(i + 1, native[i].model_copy())


def _odd_ids(native: list[BaseMessage], draw: st.DrawFn) -> None:
    # Ids and a tool name some providers refuse: their calls and results are renamed (and the
    # tool_use blocks of list content with them, as ChatAnthropic would have given them).
    ids = {old: f"functions.{old}:0" for old in _call_ids(native)}
    renamed = draw(st.booleans())
    for i, m in enumerate(native):
        if isinstance(m, AIMessage) and m.tool_calls:
            calls = [
                {
                    **c,
                    "id": ids.get(c["id"] or "", c["id"]),
                    "name": "my tool!" if renamed else c["name"],
                }
                for c in m.tool_calls
            ]
            update: dict[str, Any] = {"tool_calls": calls}
            if isinstance(m.content, list):
                update["content"] = [
                    {
                        **b,
                        "id": ids.get(b["id"], b["id"]),
                        "name": "my tool!" if renamed else b["name"],
                    }
                    if isinstance(b, dict)
                    and b.get("type") == "tool_use"
                    and "id" in b
                    and "name" in b
                    else b
                    for b in m.content
                ]
            native[i] = m.model_copy(update=update)
        elif isinstance(m, ToolMessage):
            changes: dict[str, Any] = {"tool_call_id": ids.get(m.tool_call_id, m.tool_call_id)}
            if renamed and m.name is not None:
                changes["name"] = "my tool!"
            native[i] = m.model_copy(update=changes)


def _empty_ai(native: list[BaseMessage], draw: st.DrawFn) -> None:
    native.insert(draw(st.integers(0, len(native))), AIMessage(""))


def _system_late(native: list[BaseMessage], draw: st.DrawFn) -> None:
    native.insert(draw(st.integers(1, max(1, len(native)))), SystemMessage("late"))


_DEFECTS: list[Callable[[list[BaseMessage], st.DrawFn], None]] = [
    _drop_result,
    _drop_call_message,
    _blank_human,
    _repeat_result,
    _odd_ids,
    _empty_ai,
    _system_late,
]


@st.composite
def broken_langchain(draw: st.DrawFn) -> list[BaseMessage]:
    """A plain LangChain history (maybe with one LangChain edge) and one defect."""
    native = list(draw(plain_langchain()))
    draw(st.sampled_from(_DEFECTS))(native, draw)
    return native


@settings(PROPERTY, max_examples=150)
@given(broken_langchain())
def test_plain_histories_with_a_defect(native: list[BaseMessage]) -> None:
    _checked(native)


# --- the edges of the fast shapes ----------------------------------------------------------------


def _call(call_id: str = "call_1", name: str = "search", **args: Any) -> dict[str, Any]:
    return {"name": name, "args": args or {"q": 1}, "id": call_id}


_META = {"model_name": "gpt-4o", "finish_reason": "tool_calls"}
_USAGE = {
    "input_tokens": 4,
    "output_tokens": 2,
    "total_tokens": 6,
    "input_token_details": {"cache_read": 1},
    "output_token_details": {"reasoning": 1},
}

EDGES: list[list[BaseMessage]] = [
    # every fast shape, the last call unanswered
    [
        SystemMessage("sys", id="s1"),
        HumanMessage(["a", "b"], name="me"),
        AIMessage(
            "",
            tool_calls=[_call(), _call("call_2", "other")],
            response_metadata=_META,
            usage_metadata=_USAGE,
            additional_kwargs={"refusal": None},
            id="run-1",
        ),
        ToolMessage("ok", tool_call_id="call_1"),
        ToolMessage("bad", tool_call_id="call_2", name="other", status="error", artifact=[1]),
        AIMessage("text and a call", tool_calls=[_call("call_3")], name="bot"),
        HumanMessage("q"),
    ],
    # a cut-off turn: its unanswered calls are removed; an empty list of strings
    [
        HumanMessage([]),
        HumanMessage("q"),
        AIMessage("", tool_calls=[_call()], response_metadata={"finish_reason": "length"}),
        HumanMessage("go on"),
    ],
    # a result named otherwise, one whose call is nowhere, one before its call
    [
        HumanMessage("q"),
        ToolMessage("early", tool_call_id="call_9"),
        AIMessage("", tool_calls=[_call(), _call("call_9")]),
        ToolMessage("ok", tool_call_id="call_1", name="not search"),
        ToolMessage("ok", tool_call_id="nowhere"),
        ToolMessage("ok", tool_call_id="call_9"),
    ],
    # what the loader reads in additional_kwargs: the general path, beside a repair
    [
        HumanMessage("q"),
        AIMessage("a", additional_kwargs={"reasoning_content": "r"}),
        AIMessage(
            "",
            tool_calls=[_call()],
            additional_kwargs={
                "tool_calls": [
                    {
                        "id": "call_1",
                        "type": "function",
                        "function": {"name": "search", "arguments": '{"q": 1}'},
                    }
                ],
                "__gemini_function_call_thought_signatures__": {"call_1": "c2ln"},
            },
        ),
        HumanMessage(" "),
    ],
    # OpenAI's raw calls mirror the parsed ones: renamed (for Mistral), they follow, so the
    # message is written rather than patched
    [
        HumanMessage("q"),
        AIMessage(
            "a",
            tool_calls=[_call()],
            additional_kwargs={
                "tool_calls": [
                    {
                        "id": "call_1",
                        "type": "function",
                        "function": {"name": "search", "arguments": '{"q": 1}'},
                    }
                ],
            },
        ),
        ToolMessage("ok", tool_call_id="call_1"),
        AIMessage("", additional_kwargs={"reasoning_content": "r"}, tool_calls=[_call("call_2")]),
        ToolMessage("ok", tool_call_id="call_2"),
    ],
    # what the loader reads in additional_kwargs, beside a string content: reasoning (alone,
    # the kwargs then emptied; first; not a string), Gemini's signatures (one call's, another
    # id's), OpenAI's raw calls (arguments spelled otherwise, an id of no call)
    [
        HumanMessage("q"),
        AIMessage("a", additional_kwargs={"reasoning_content": "r"}),
        HumanMessage("q"),
        AIMessage("b", additional_kwargs={"reasoning_content": "r", "refusal": None}),
        HumanMessage("q"),
        AIMessage("c", additional_kwargs={"reasoning_content": None}),
        HumanMessage("q"),
        AIMessage(
            "",
            tool_calls=[_call(), _call("call_2")],
            additional_kwargs={
                "__gemini_function_call_thought_signatures__": {"call_2": "c2ln", "gone": "eA=="},
                "tool_calls": [
                    {
                        "id": "call_1",
                        "type": "function",
                        "function": {"name": "search", "arguments": '{"q":1}'},
                    },
                    {"id": "nowhere", "type": "function", "function": {"name": "s"}},
                ],
            },
        ),
        ToolMessage("ok", tool_call_id="call_2"),
        HumanMessage(" "),
    ],
    # invalid tool calls and list content beside fast messages
    [
        HumanMessage("q"),
        AIMessage(
            [{"type": "text", "text": "t"}],
            tool_calls=[_call()],
            invalid_tool_calls=[{"name": "f", "args": "{", "id": "x", "error": None}],
        ),
        ToolMessage("ok", tool_call_id="call_1"),
        HumanMessage("q"),
        AIMessage("", tool_calls=[_call("functions.search:0")]),
        ToolMessage("ok", tool_call_id="functions.search:0"),
    ],
    # ids and names providers refuse: renamed calls and results, the rest untouched
    [
        SystemMessage("sys"),
        HumanMessage("q"),
        AIMessage("let me look", tool_calls=[_call("a.b:1", "my tool!")], id="r1"),
        ToolMessage("ok", tool_call_id="a.b:1"),
        ToolMessage("ok", tool_call_id="a.b:1", name="my tool!"),
        AIMessage("done", response_metadata=_META),
        HumanMessage("thanks"),
    ],
]


def _tool_use(call_id: str = "call_1", name: str = "search", **keys: Any) -> dict[str, Any]:
    return {"type": "tool_use", "id": call_id, "name": name, "input": {"q": 1}, **keys}


_ANTHROPIC = {
    "model": "claude-sonnet-4-5",
    "stop_reason": "tool_use",
    "model_provider": "anthropic",
}

LIST_EDGES: list[list[BaseMessage]] = [
    # ChatAnthropic's list content: ids Mistral refuses and a name no provider takes, renamed in
    # tool_calls and in the blocks that matched (a block of another name keeps its own; a
    # block with cache_control keeps it; a call without a block; a string and text blocks with
    # keys of their own)
    [
        HumanMessage([{"type": "text", "text": "q", "cache_control": {"type": "ephemeral"}}]),
        AIMessage(
            [
                "Let me",
                {"type": "text", "text": " look.", "id": "t1"},
                _tool_use("a.b:1", "my tool!", cache_control={"type": "ephemeral"}),
                _tool_use("a.b:2", "other name"),
            ],
            tool_calls=[_call("a.b:1", "my tool!"), _call("a.b:2", "my tool!"), _call("a.b:3")],
            response_metadata=_ANTHROPIC,
            id="run-1",
        ),
        ToolMessage("ok", tool_call_id="a.b:1"),
        ToolMessage("ok", tool_call_id="a.b:2"),
        ToolMessage("ok", tool_call_id="a.b:3", name="search"),
        AIMessage([{"type": "text", "text": "done"}], response_metadata=_ANTHROPIC),
        HumanMessage(" "),
    ],
    # a block whose input is its call's with other types (written back as the call's): the
    # general path; a block twice, one with no call, one of no id, one of another input
    [
        HumanMessage("q"),
        AIMessage(
            [{**_tool_use(), "input": {"q": 1.0}}],
            tool_calls=[_call()],
            response_metadata=_ANTHROPIC,
        ),
        ToolMessage("ok", tool_call_id="call_1"),
        AIMessage(
            [_tool_use("call_2"), _tool_use("call_2"), _tool_use("only")],
            tool_calls=[_call("call_2")],
        ),
        ToolMessage("ok", tool_call_id="call_2"),
        AIMessage(
            [{"type": "tool_use", "name": "search", "input": {}}, {**_tool_use("c3"), "input": {}}],
            tool_calls=[_call("c3")],
        ),
        ToolMessage("ok", tool_call_id="c3"),
        HumanMessage(" "),
    ],
    # list content beside what the loader reads in additional_kwargs: reasoning, Gemini's
    # signatures (of a call with a block, and of one without), OpenAI's raw calls; a cut-off
    # turn of list content, its call unanswered
    [
        HumanMessage("q"),
        AIMessage(
            [{"type": "text", "text": "a"}, _tool_use()],
            tool_calls=[_call(), _call("call_2")],
            additional_kwargs={
                "reasoning_content": "r",
                "__gemini_function_call_thought_signatures__": {"call_1": "c2ln", "call_2": "eA=="},
                "tool_calls": [
                    {
                        "id": "call_1",
                        "type": "function",
                        "function": {"name": "search", "arguments": '{"q": 1}'},
                    }
                ],
            },
        ),
        ToolMessage("ok", tool_call_id="call_1"),
        ToolMessage("ok", tool_call_id="call_2"),
        AIMessage(
            [{"type": "text", "text": "more"}, _tool_use("call_3")],
            tool_calls=[_call("call_3")],
            response_metadata={"stop_reason": "max_tokens"},
        ),
        HumanMessage("go on"),
    ],
    # reasoning and other blocks beside a repair: the general path
    [
        HumanMessage("q"),
        AIMessage(
            [
                {"type": "thinking", "thinking": "hmm", "signature": "c2ln"},
                {"type": "text", "text": "a"},
                _tool_use(),
            ],
            tool_calls=[_call()],
            response_metadata=_ANTHROPIC,
        ),
        AIMessage([{"type": "text", "text": ""}, "b", {"type": "text", "text": None}]),
        HumanMessage(["x", {"type": "image", "url": "https://example.com/a.png"}]),
    ],
    # a block twice, alone; LangChain's own tool_call block and OpenAI's function_call block
    # (the general path), their ids renamed for Mistral
    [
        HumanMessage("q"),
        AIMessage([_tool_use("call_2"), _tool_use("call_2")], tool_calls=[_call("call_2")]),
        ToolMessage("ok", tool_call_id="call_2"),
        AIMessage(
            [{"type": "tool_call", "id": "call_1", "name": "search", "args": {"q": 1}}],
            tool_calls=[_call()],
        ),
        ToolMessage("ok", tool_call_id="call_1"),
        AIMessage(
            [
                {
                    "type": "function_call",
                    "call_id": "call_3",
                    "name": "search",
                    "arguments": '{"q": 1}',
                    "id": "fc_1",
                }
            ],
            tool_calls=[_call("call_3")],
        ),
        ToolMessage("ok", tool_call_id="call_3"),
        HumanMessage("thanks"),
    ],
    # blocks the loader refuses, beside a repair: a text block of no text, one of a type of
    # its own, blocks holding a value JSON has not
    [HumanMessage(["x", {"type": "text", "text": None}]), HumanMessage(" ")],
    [HumanMessage(["x", {"type": "custom", "text": "y"}]), HumanMessage(" ")],
    [HumanMessage([{"type": "text", "text": "x", "at": datetime(2026, 1, 1)}]), HumanMessage(" ")],
    [
        HumanMessage("q"),
        AIMessage([{"type": "text", "text": "x", "at": datetime(2026, 1, 1)}]),
        HumanMessage(" "),
    ],
    [
        HumanMessage("q"),
        AIMessage([{**_tool_use(), "at": datetime(2026, 1, 1)}], tool_calls=[_call()]),
        HumanMessage(" "),
    ],
]
"""List content (``ChatAnthropic``'s and its flaws) beside a repair."""


@pytest.mark.parametrize("native", LIST_EDGES)
def test_list_edges(native: list[BaseMessage]) -> None:
    _checked(native)


def _past_validation() -> list[list[BaseMessage]]:
    """Histories holding values set past LangChain's validation (``model_copy`` with an
    update), each beside a repair: what writing a message would change or refuse."""
    base: list[BaseMessage] = [
        HumanMessage("q"),
        AIMessage("", tool_calls=[_call()], usage_metadata=_USAGE, id="r1"),
        ToolMessage("ok", tool_call_id="call_1"),
        AIMessage("a", response_metadata=_META),
        HumanMessage(" "),
    ]
    updates: list[tuple[int, dict[str, Any]]] = [
        (1, {"usage_metadata": dict(reversed(list(_USAGE.items())))}),
        (1, {"usage_metadata": {**_USAGE, "input_tokens": 4.0}}),
        (1, {"usage_metadata": {**_USAGE, "input_token_details": {"x": 1, "audio": 1}}}),
        (1, {"tool_calls": [{"id": "call_1", "name": "search", "args": {"q": 1}}]}),
        (1, {"tool_calls": [{**_call(), "type": "function"}]}),
        (1, {"type": "human"}),
        (1, {"name": 5}),
        (2, {"status": "weird"}),
        (2, {"type": "ai"}),
        (3, {"response_metadata": {"nested": [[[[{"deep": (1, 2)}]]]]}}),
        (3, {"additional_kwargs": {"when": {1, 2}}}),
    ]
    out = []
    for at, update in updates:
        native = list(base)
        native[at] = native[at].model_copy(update=update)
        out.append(native)
    return out


@pytest.mark.parametrize("native", EDGES)
def test_edges(native: list[BaseMessage]) -> None:
    _checked(native)


@pytest.mark.filterwarnings("ignore::UserWarning")  # pydantic warns of the values it dumps
@pytest.mark.parametrize("native", _past_validation())
def test_values_set_past_validation(native: list[BaseMessage]) -> None:
    _checked(native)


# --- the benchmark corpus: one defect in every conversation --------------------------------------

LANGCHAIN_CORPUS = [
    native for shape in CORPUS for native in _written(langchain.dump_messages, CORPUS[shape])
]


@pytest.mark.parametrize("native", LANGCHAIN_CORPUS)
def test_corpus_partial_conversion(native: list[BaseMessage]) -> None:
    _checked(native)
    for provider in ("auto", None, "anthropic"):
        result = langchain.heal_langchain(native, provider=provider)
        if result.messages is not native:
            _untouched_are_the_callers(langchain, native, result)


# --- what the speed rests on ---------------------------------------------------------------------


def _taken(native: list[BaseMessage]) -> list[bool]:
    """Whether the fast path read each message."""
    taken: list[bool] = []
    fast = langchain._Loader._fast

    def spy(loader: Any, *args: Any) -> bool:
        found: bool = fast(loader, *args)
        taken.append(found)
        return found

    with mock.patch.object(langchain._Loader, "_fast", spy):
        langchain.load(native)
    return taken


def test_a_chat_models_history_takes_the_fast_path() -> None:
    native = _without_first_result(_langchain())
    assert all(_taken(native))
    _checked(native)


def test_what_the_loader_reads_in_additional_kwargs_takes_the_fast_path() -> None:
    native = next(n for n in EDGES if any("gone" in str(m.additional_kwargs) for m in n))
    assert all(_taken(native))


_REASONING_BLOCKS: list[Any] = [
    # (block, whether the fast path reads it)
    pytest.param({"type": "thinking", "thinking": "hmm", "signature": "c2ln"}, True, id="signed"),
    pytest.param({"type": "thinking", "thinking": "hmm"}, True, id="unsigned"),
    pytest.param(
        {"type": "thinking", "thinking": "", "signature": "c2ln", "k": 1}, True, id="keys"
    ),
    pytest.param({"type": "thinking", "thinking": "hmm", "signature": 5}, True, id="odd-sig"),
    pytest.param({"type": "reasoning", "reasoning": "hmm"}, True, id="v1"),
    pytest.param(
        {"type": "reasoning", "reasoning": "hmm", "extras": {"signature": "c2ln", "k": 1}},
        True,
        id="v1-signed",
    ),
    pytest.param(
        {"type": "reasoning", "reasoning": "hmm", "extras": {"signature": 1}}, True, id="v1-odd"
    ),
    pytest.param({"type": "reasoning", "reasoning": "hmm", "extras": "x"}, True, id="v1-extras"),
    pytest.param({"type": "reasoning"}, False, id="v1-no-text"),
    pytest.param(
        {"type": "reasoning", "id": "rs_1", "summary": [{"type": "summary_text", "text": "s"}]},
        False,
        id="summary",
    ),
    pytest.param(
        {"type": "reasoning", "reasoning": "hmm", "summary": "s"}, False, id="odd-summary"
    ),
    pytest.param({"type": "redacted_thinking", "data": "cmVkYWN0ZWQ="}, False, id="redacted"),
]


@pytest.mark.parametrize("provider", [None, "anthropic", "google_genai", "bedrock", "openai"])
@pytest.mark.parametrize(("block", "fast"), _REASONING_BLOCKS)
def test_reasoning_blocks_load_and_heal_as_the_general_path_reads_them(
    block: dict[str, Any], fast: bool, provider: str | None
) -> None:
    """A ``thinking`` block and a ``reasoning`` block without a summary, as ``ChatAnthropic``
    and LangChain's standard content write them, are read by the fast path (the signature moved
    to the options of the provider ``response_metadata`` names); the others by the general
    path, as before: the same models, and the same heal beside a repair, either way."""
    metadata = {} if provider is None else {"model_provider": provider}
    native: list[BaseMessage] = [
        HumanMessage("q"),
        AIMessage(
            [block, {"type": "text", "text": "a"}, _tool_use()],
            tool_calls=[_call()],
            response_metadata=metadata,
        ),
        ToolMessage("ok", tool_call_id="call_1"),
        AIMessage([block, "done"], response_metadata=metadata),
        HumanMessage(" "),
    ]
    assert _taken(native)[1] is fast
    assert _taken(native)[3] is fast
    _checked(native)


def _healed_and_written(native: Any, **options: Any) -> tuple[Any, list[Any]]:
    """heal_langchain's result on ``native``, and the lists of messages it wrote anew."""
    written: list[Any] = []
    dumper = langchain._Dumper

    def spy(messages: list[Any]) -> Any:
        written.append(messages)
        return dumper(messages)

    with mock.patch.object(langchain, "_Dumper", spy):
        result = langchain.heal_langchain(native, **options)
    return result, written


@pytest.mark.parametrize("style", ["metadata", "anthropic"], ids=["strings", "list-content"])
def test_one_repair_writes_only_what_it_changed(style: str) -> None:
    native = _without_first_result(_langchain(style))
    result, written = _healed_and_written(native)
    assert [r.rule for r in result.repairs] == ["orphan-tool-call"]
    # The placeholder result is written; every message of the caller's is the caller's own.
    assert [len(messages) for messages in written] == [1]
    assert written[0][0]["role"] == "tool"
    assert len(result.messages) == len(native) + 1
    for i, message in enumerate(native):
        assert any(out is message for out in result.messages), i


def test_chat_anthropics_history_takes_the_fast_path() -> None:
    native = _without_first_result(_langchain("anthropic"))
    assert all(_taken(native))
    _checked(native)


def test_renamed_calls_of_list_content_are_patched_in_their_blocks() -> None:
    native = _langchain("anthropic")
    result, written = _healed_and_written(native, provider="mistral")  # nine-character ids
    assert result.changed and not written
    renamed = [m for m in result.messages if isinstance(m, AIMessage) and m.tool_calls]
    assert renamed and not any(any(m is n for n in native) for m in renamed)
    for message in renamed:
        assert isinstance(message.content, list)
        blocks = [b for b in message.content if isinstance(b, dict) and b["type"] == "tool_use"]
        assert [b["id"] for b in blocks] == [c["id"] for c in message.tool_calls]
    _same_heal(native, ["mistral"])


def test_renamed_calls_and_results_are_patched_copies() -> None:
    native = _langchain()
    result, written = _healed_and_written(native, provider="mistral")  # nine-character ids
    assert result.changed and not written
    renamed = [m for m in result.messages if not any(m is n for n in native)]
    assert renamed and all(isinstance(m, (AIMessage, ToolMessage)) for m in renamed)
    _same_heal(native, ["mistral"])


# --- the loader's helpers, held to the plainer forms they replaced -------------------------------


def _plain_usage_by_parts(value: Any) -> bool:
    """What ``langchain._plain_usage`` judges, each condition apart: plain JSON, the keys of the
    usage and of its details in the order validation puts them, the counts integers."""

    def in_order(found: dict[str, Any], order: dict[str, int]) -> bool:
        places = [order.get(key, len(order)) for key in found]
        return places == sorted(places)

    if type(value) is not dict or not plain_value(value):
        return False
    if not in_order(value, langchain._USAGE_ORDER):
        return False
    if any(type(value[key]) is not int for key in langchain._TOKEN_COUNTS if key in value):
        return False
    for key, order in langchain._DETAILS_ORDER.items():
        if key in value:
            details = value[key]
            if type(details) is not dict or not in_order(details, order):
                return False
            if any(type(count) is not int for count in details.values()):
                return False
    return True


_USAGE_KEYS = [*langchain._USAGE_ORDER, "cost", 1]
_DETAIL_KEYS = [*{k for order in langchain._DETAILS_ORDER.values() for k in order}, "x", 2]
_counts = st.one_of(
    st.integers(0, 9),
    st.integers(0, 9),
    st.booleans(),
    st.floats(allow_nan=True),
    st.none(),
    st.text(max_size=1),
)
_details = st.dictionaries(st.sampled_from(_DETAIL_KEYS), _counts, max_size=4)
_usages = st.dictionaries(
    st.sampled_from(_USAGE_KEYS),
    st.one_of(
        _counts,
        _details,
        _details,
        st.lists(_counts, max_size=2),
        st.dictionaries(st.text(max_size=1), st.dictionaries(st.text(max_size=1), _counts)),
        st.tuples(st.integers()),
    ),
    max_size=5,
)
"""Usages of the declared keys and others (``1`` too), in any order, holding counts of every
JSON type and a few others, details of declared keys and others, and other JSON values."""


@settings(PROPERTY, max_examples=1000)
@given(st.one_of(_usages, _usages, _usages, _counts, _details))
@example({"input_tokens": 1, "output_tokens": True})
@example({"input_tokens": 1, "input_token_details": {"audio": 1, 2: 1}})
@example({"output_token_details": {"reasoning": 1, "audio": 1}, 1: 1})
def test_a_usage_is_judged_in_one_pass_as_by_its_parts(value: Any) -> None:
    assert langchain._plain_usage(value) == _plain_usage_by_parts(value)


def test_a_usage_nested_to_the_limit_is_plain_and_past_it_not() -> None:
    deep: Any = 1
    for _ in range(MAX_DEPTH - 1):  # the usage itself is the first level
        deep = [deep]
    for value, plain in (({"cost": deep}, True), ({"cost": [deep]}, False)):
        assert langchain._plain_usage(value) is plain
        assert _plain_usage_by_parts(value) is plain


@given(
    st.lists(st.tuples(st.integers(0, 6), st.sampled_from(["", "a", "b"]))).map(sorted),
    st.integers(0, 6),
)
def test_the_nearest_call_is_the_last_before_else_the_first_after(
    found: list[tuple[int, str]], i: int
) -> None:
    before = [name for j, name in found if j < i]
    after = [name for j, name in found if j > i]
    expected = before[-1] if before else after[0] if after else None
    assert langchain._nearest(found, i) == expected
