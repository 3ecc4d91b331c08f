"""LangChain's verdict: heal_langchain hands a plainly clean history back as it is, without
building canonical models (issue "Speed", item 4), exactly as the other native verdicts do
(``tests/adapters/test_native_fast_path.py``, whose checks these reuse): when it says clean, the
full path (load, heal_messages, write back) returns no repair and the caller's own list; on
every input the adapter gives what the full path gives.

The histories: the plain AI SDK histories of ``tests/test_json.py`` written as LangChain
messages by the adapter, maybe with the AI messages' content as ``ChatAnthropic`` returns it (one
of them maybe with a flaw: ``strategies_langchain.LIST_FLAWS``) and the human messages' as text
blocks, each maybe with one edge a LangChain history carries (a model's metadata, a cut-off
turn, a tool's error or artifact, reasoning in ``additional_kwargs``...); and the format's own
strategies.
"""

from __future__ import annotations

import copy
from datetime import datetime
from decimal import Decimal
from typing import Any, cast

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage, ToolMessage

from heal import InputError
from heal._verdict import provider_terms
from heal.adapters import langchain
from tests.test_json import PLAIN, plain_histories

from . import strategies_langchain as s_langchain
from .test_native_fast_path import (
    _LOADERS,
    ALL_PROVIDERS,
    PROPERTY,
    _counted,
    _same_as_full_path,
    some_targets,
)

_LOADERS[langchain] = "_Loader"

PROVIDERS: list[Any] = ["auto", *ALL_PROVIDERS]
"""heal_langchain's own default, ``"auto"``, and every provider id and None."""


def _edit(draw: st.DrawFn, native: list[BaseMessage]) -> None:
    """One edge of a LangChain history, on one of its messages (a copy replaces it)."""
    edits: list[tuple[str, dict[str, Any]]] = [
        ("ai", {"response_metadata": {"model_name": "gpt-4o", "finish_reason": "stop"}}),
        ("ai", {"response_metadata": {"finish_reason": "length"}}),
        ("ai", {"response_metadata": {"stop_reason": "max_tokens"}}),
        ("ai", {"usage_metadata": {"input_tokens": 3, "output_tokens": 2, "total_tokens": 5}}),
        ("ai", {"additional_kwargs": {"refusal": None}}),
        ("ai", {"additional_kwargs": {"reasoning_content": "thought"}}),
        ("ai", {"additional_kwargs": {"tool_calls": []}}),
        ("ai", {"id": "run-1", "name": "bot"}),
        ("ai", {"invalid_tool_calls": [{"name": "f", "args": "{", "id": "x", "error": None}]}),
        ("ai", {"content": [{"type": "text", "text": "listed"}]}),
        ("ai", {"content": "  "}),
        ("human", {"response_metadata": {"at": 1}, "id": "h1"}),
        ("human", {"additional_kwargs": {"when": [1, 2]}}),
        ("human", {"response_metadata": {"when": datetime(2026, 1, 1)}}),
        ("human", {"content": ["a", {"type": "text", "text": "b"}]}),
        ("human", {"content": ["a", " "]}),
        ("human", {"content": []}),
        ("tool", {"status": "error"}),
        ("tool", {"artifact": {"rows": 3}}),
        ("tool", {"name": "other"}),
        ("tool", {"content": ""}),
    ]
    kind, update = draw(st.sampled_from(edits))
    spots = [i for i, message in enumerate(native) if message.type == kind]
    if not spots:
        return
    i = draw(st.sampled_from(spots))
    native[i] = native[i].model_copy(update=copy.deepcopy(update))


def _listed(draw: st.DrawFn, native: list[BaseMessage]) -> None:
    """The AI messages of string content as ``ChatAnthropic`` returns them (one maybe with a
    flaw), and maybe the human messages' as a text block each (some with ``cache_control``)."""
    spots = [i for i, m in enumerate(native) if type(m) is AIMessage and isinstance(m.content, str)]
    flawed: int | None = None
    if draw(st.booleans()) and spots:
        flawed = draw(st.sampled_from(spots))
    flaw = draw(st.sampled_from(s_langchain.LIST_FLAWS)) if flawed is not None else None
    for i in spots:
        ai = cast(AIMessage, native[i])
        calls = [dict(call) for call in ai.tool_calls]
        content, calls = s_langchain.anthropic_content(
            draw, cast(str, ai.content), calls, flaw if i == flawed else None
        )
        native[i] = ai.model_copy(update={"content": content, "tool_calls": calls})
    if draw(st.booleans()):
        for i, message in enumerate(native):
            if isinstance(message, HumanMessage) and isinstance(message.content, str):
                block: dict[str, Any] = {"type": "text", "text": message.content}
                if draw(st.booleans()):
                    block["cache_control"] = {"type": "ephemeral"}
                native[i] = message.model_copy(update={"content": [block]})


@st.composite
def plain_langchain(draw: st.DrawFn) -> list[BaseMessage]:
    """A plain AI SDK history written as LangChain messages by the adapter, maybe with list
    content (:func:`_listed`) and one LangChain edge."""
    history = draw(plain_histories())
    try:
        native = langchain.dump_messages(history)
    except InputError:  # a value nested deeper than the models take
        native = [HumanMessage("hi")]
    if draw(st.booleans()):
        _listed(draw, native)
    if draw(st.integers(0, 2)) == 0:
        _edit(draw, native)
    return native


@settings(PROPERTY, max_examples=300)
@given(plain_langchain(), some_targets)
def test_langchain_verdict_holds_on_plain_histories(
    native: list[BaseMessage], targets: list[Any]
) -> None:
    _same_as_full_path(
        langchain, langchain.heal_langchain, _counted(langchain, native), PROVIDERS, targets
    )


@PROPERTY
@given(s_langchain.histories(), some_targets)
def test_langchain_verdict_holds_on_the_formats_strategies(
    native: list[BaseMessage], targets: list[Any]
) -> None:
    _same_as_full_path(
        langchain, langchain.heal_langchain, _counted(langchain, native), PROVIDERS, targets
    )


LANGCHAIN_PLAIN = langchain.dump_messages(PLAIN)


def test_a_plain_history_comes_back_as_it_was_without_loading() -> None:
    native = [
        *LANGCHAIN_PLAIN[:2],
        LANGCHAIN_PLAIN[2].model_copy(
            update={
                "response_metadata": {"model_name": "gpt-4o", "finish_reason": "tool_calls"},
                "usage_metadata": {"input_tokens": 9, "output_tokens": 4, "total_tokens": 13},
                "id": "run-1",
            }
        ),
        *LANGCHAIN_PLAIN[3:],
    ]
    plain = _same_as_full_path(langchain, langchain.heal_langchain, native, PROVIDERS)
    # Mistral wants nine-character ids, DeepSeek reasoning beside every call.
    assert "auto" in plain and "anthropic" in plain and "mistral" not in plain


@pytest.mark.parametrize(
    ("update", "kind"),
    [
        ({"response_metadata": {"finish_reason": "length"}}, AIMessage),  # cut off
        ({"additional_kwargs": {"reasoning_content": "r"}}, AIMessage),  # read as reasoning
        ({"invalid_tool_calls": [{"name": "f", "args": "{", "id": "x", "error": None}]}, AIMessage),
        ({"response_metadata": {"created": datetime(2026, 1, 1)}}, AIMessage),  # not JSON
        ({"status": "error"}, ToolMessage),
        ({"name": "other"}, ToolMessage),  # not the call's name
        ({"artifact": {1, 2}}, ToolMessage),  # not JSON
    ],
)
def test_what_the_loader_reads_takes_the_full_path(update: dict[str, Any], kind: type) -> None:
    i = next(k for k, m in enumerate(LANGCHAIN_PLAIN) if type(m) is kind)
    native = list(LANGCHAIN_PLAIN)
    native[i] = native[i].model_copy(update=update)
    assert not langchain._plainly_clean(native, "anthropic")
    _same_as_full_path(langchain, langchain.heal_langchain, native, PROVIDERS)


# --- list content, as ChatAnthropic returns it ---------------------------------------------------

_ANTHROPIC_META = {
    "model": "claude-sonnet-4-5",
    "stop_reason": "tool_use",
    "model_name": "claude-sonnet-4-5",
    "model_provider": "anthropic",
}


def _turns() -> list[BaseMessage]:
    """Two turns as ``ChatAnthropic`` returns them: a text and a ``tool_use`` block beside the
    calls they mirror (the second turn's block with ``cache_control``), the answer a text
    block; the user's last message a text block."""
    return [
        SystemMessage("Be brief."),
        HumanMessage("Weather?", id="h1"),
        AIMessage(
            [
                {"type": "text", "text": "Let me look."},
                {"type": "tool_use", "id": "toolu_1", "name": "search", "input": {"q": 1}},
            ],
            tool_calls=[{"name": "search", "args": {"q": 1}, "id": "toolu_1"}],
            response_metadata=_ANTHROPIC_META,
            id="run-1",
        ),
        ToolMessage("sunny", tool_call_id="toolu_1", name="search"),
        AIMessage([{"type": "text", "text": "Sunny."}], response_metadata=_ANTHROPIC_META),
        HumanMessage("And tomorrow?"),
        AIMessage(
            [
                {
                    "type": "tool_use",
                    "id": "toolu_2",
                    "name": "search",
                    "input": {"q": 2, "deep": {"a": [1, 2.5]}},
                    "cache_control": {"type": "ephemeral"},
                },
            ],
            tool_calls=[
                {"name": "search", "args": {"q": 2, "deep": {"a": [1, 2.5]}}, "id": "toolu_2"}
            ],
            response_metadata=_ANTHROPIC_META,
        ),
        ToolMessage("rain", tool_call_id="toolu_2"),
        AIMessage(["Rain ", {"type": "text", "text": "tomorrow."}]),
        HumanMessage([{"type": "text", "text": "Thanks.", "cache_control": {"type": "ephemeral"}}]),
    ]


TURNS = _turns()


def test_chat_anthropics_list_content_comes_back_without_loading() -> None:
    plain = _same_as_full_path(langchain, langchain.heal_langchain, TURNS, PROVIDERS)
    assert "auto" in plain and "anthropic" in plain and "openai-chat" in plain


def _ai(native: list[BaseMessage], at: int) -> tuple[list[Any], list[Any]]:
    message = native[at]
    assert isinstance(message, AIMessage) and isinstance(message.content, list)
    return message.content, message.tool_calls


def _changed(at: int, **update: Any) -> list[BaseMessage]:
    native = list(TURNS)
    native[at] = native[at].model_copy(update=copy.deepcopy(update))
    return native


_TOOL_USE = {"type": "tool_use", "id": "toolu_1", "name": "search", "input": {"q": 1}}
_URL_PNG = "https://example.com/a.png"
_DATA_PNG = "data:image/png;base64,iVBORw0KGgo="
_DATA_TIFF = "data:image/tiff;base64,iVBORw0KGgo="
_CALL = {"name": "search", "args": {"q": 1}, "id": "toolu_1", "type": "tool_call"}

TAKEN: dict[str, list[BaseMessage]] = {
    # the loader links the block to the call and no rule reads either otherwise
    "a call without its block": _changed(2, content=[{"type": "text", "text": "Look."}]),
    "only calls, no text": _changed(2, content=[_TOOL_USE]),
    "an empty list beside the calls": _changed(2, content=[]),
    "an input equal but for its types": _changed(2, content=[{**_TOOL_USE, "input": {"q": 1.0}}]),
    "strings and text blocks with keys of their own": _changed(
        4, content=["Sunny", {"type": "text", "text": ".", "annotations": [], "id": "t1"}]
    ),
    "a last answer": [*TURNS, AIMessage([{"type": "text", "text": "welcome. "}, "Bye."])],
    # A user's plain images, in each of LangChain's spellings.
    "a human image": _changed(
        5, content=["See", {"type": "image", "url": "https://example.com/a.png"}]
    ),
    "a human image of base64": _changed(
        5, content=["See", {"type": "image", "base64": "iVBORw0KGgo=", "mime_type": "image/png"}]
    ),
    "a human image of a legacy source type": _changed(
        5,
        content=[
            "See",
            {"type": "image", "source_type": "base64", "data": "/9j/", "mime_type": "image/jpeg"},
        ],
    ),
    "a human image_url with its detail": _changed(
        5,
        content=[
            "See",
            {"type": "image_url", "image_url": {"url": _DATA_PNG, "detail": "high"}},
        ],
    ),
}
"""List content the verdict takes: the full path finds nothing in it either."""


@pytest.mark.parametrize("native", TAKEN.values(), ids=TAKEN.keys())
def test_list_content_the_verdict_takes(native: list[BaseMessage]) -> None:
    assert langchain._plainly_clean(native, "anthropic")
    assert "anthropic" in _same_as_full_path(langchain, langchain.heal_langchain, native, PROVIDERS)


REFUSED: dict[str, list[BaseMessage]] = {
    "a text after a call": _changed(2, content=[_TOOL_USE, {"type": "text", "text": "Then."}]),
    "a string after a call": _changed(2, content=[_TOOL_USE, "Then."]),
    "a block of another name": _changed(2, content=[{**_TOOL_USE, "name": "other"}]),
    "a block of another input": _changed(2, content=[{**_TOOL_USE, "input": {"q": 2}}]),
    "a block without its name": _changed(
        2, content=[{k: v for k, v in _TOOL_USE.items() if k != "name"}]
    ),
    "a block no call answers": _changed(2, content=[{**_TOOL_USE, "id": "toolu_9"}]),
    "a block with no call at all": _changed(2, tool_calls=[]),
    "a block twice": _changed(2, content=[_TOOL_USE, _TOOL_USE]),
    "a block of a list id": _changed(2, content=[{**_TOOL_USE, "id": ["toolu_1"]}]),
    "LangChain's own tool_call block": _changed(
        2, content=[{"type": "tool_call", "id": "toolu_1", "name": "search", "args": {"q": 1}}]
    ),
    "a thinking block": _changed(
        2, content=[{"type": "thinking", "thinking": "hmm", "signature": "c2ln"}, _TOOL_USE]
    ),
    "a redacted thinking block": _changed(
        2, content=[{"type": "redacted_thinking", "data": "cmVk"}, _TOOL_USE]
    ),
    "an image": _changed(4, content=[{"type": "image", "url": "https://example.com/a.png"}]),
    "a blank text block": _changed(4, content=[{"type": "text", "text": "Sunny."}, " "]),
    "an empty text block": _changed(2, content=[{"type": "text", "text": ""}, _TOOL_USE]),
    "a text block of no text": _changed(4, content=[{"type": "text", "text": None}]),
    "a block of no type": _changed(4, content=[{"text": "Sunny."}]),
    "a block holding a value JSON has not": _changed(
        4, content=[{"type": "text", "text": "Sunny.", "at": datetime(2026, 1, 1)}]
    ),
    "a block input JSON has not, equal to its call's": _changed(
        2, content=[{**_TOOL_USE, "input": {"q": Decimal(1)}}]
    ),
    "an empty list and no calls": _changed(4, content=[]),
    "a last answer ending with whitespace": [
        *TURNS,
        AIMessage(["You are", {"type": "text", "text": "welcome. "}]),
    ],
    "a human image of a type Anthropic refuses": _changed(
        5, content=["See", {"type": "image", "base64": "iVBORw0KGgo=", "mime_type": "image/tiff"}]
    ),
    "a human image_url of a TIFF data URL": _changed(
        5, content=["See", {"type": "image_url", "image_url": {"url": _DATA_TIFF}}]
    ),
    "a human image of no data": _changed(
        5, content=["See", {"type": "image", "base64": "", "mime_type": "image/png"}]
    ),
    "a human image holding a value JSON has not": _changed(
        5, content=["See", {"type": "image", "url": _URL_PNG, "at": datetime(2026, 1, 1)}]
    ),
    "a blank human text block": _changed(5, content=[{"type": "text", "text": " "}]),
    "a human block holding a value JSON has not": _changed(
        5, content=[{"type": "text", "text": "Hi", "at": datetime(2026, 1, 1)}]
    ),
    "a human block of no type": _changed(5, content=[{"text": "Hi"}]),
    "a system message of blocks": _changed(0, content=[{"type": "text", "text": "Be brief."}]),
    "an id Anthropic refuses": [
        *TURNS[:2],
        TURNS[2].model_copy(
            update={
                "content": [{"type": "text", "text": "Look."}, {**_TOOL_USE, "id": "a.b:1"}],
                "tool_calls": [{**_CALL, "id": "a.b:1"}],
            }
        ),
        TURNS[3].model_copy(update={"tool_call_id": "a.b:1"}),
        *TURNS[4:],
    ],
}
"""The shapes of list content the verdict leaves to the full path (under Anthropic's rules),
each in an otherwise plainly clean history."""


@pytest.mark.parametrize("native", REFUSED.values(), ids=REFUSED.keys())
def test_list_content_the_verdict_leaves_to_the_full_path(native: list[BaseMessage]) -> None:
    assert langchain._plainly_clean(TURNS, "anthropic")
    assert not langchain._plainly_clean(native, "anthropic")
    _same_as_full_path(langchain, langchain.heal_langchain, native, PROVIDERS)


# --- reasoning, for a target whose rules read none -----------------------------------------------

_THINKING = {"type": "thinking", "thinking": "hmm", "signature": "c2ln"}
_LOOK = {"type": "text", "text": "Look."}

RICH: dict[str, tuple[list[BaseMessage], bool]] = {
    "a thinking block first": (_changed(2, content=[_THINKING, _TOOL_USE]), True),
    "a signed reasoning block first": (
        _changed(
            2,
            content=[
                {"type": "reasoning", "reasoning": "hmm", "extras": {"signature": "c2ln"}},
                _LOOK,
                _TOOL_USE,
            ],
        ),
        True,
    ),
    "two thinking blocks, then a call alone": (
        _changed(2, content=[_THINKING, {**_THINKING, "thinking": ""}]),
        True,
    ),
    "reasoning_content": (_changed(2, additional_kwargs={"reasoning_content": "hmm"}), True),
    "Gemini's signature map": (
        _changed(
            2, additional_kwargs={"__gemini_function_call_thought_signatures__": {"toolu_1": "x"}}
        ),
        True,
    ),
    "a thinking block after a text": (_changed(2, content=[_LOOK, _THINKING, _TOOL_USE]), False),
    "a thinking block after a call": (_changed(2, content=[_TOOL_USE, _THINKING]), False),
    "thinking alone": (_changed(4, content=[_THINKING]), False),
    "reasoning_content alone": (
        _changed(4, content="", additional_kwargs={"reasoning_content": "hmm"}),
        False,
    ),
    "a summary beside the text": (
        _changed(
            2,
            content=[
                {"type": "reasoning", "reasoning": "hmm", "summary": [{"type": "summary_text"}]},
                _TOOL_USE,
            ],
        ),
        False,
    ),
    "a thinking block of no text": (
        _changed(2, content=[{"type": "thinking", "thinking": None}, _TOOL_USE]),
        False,
    ),
    "a reasoning block of no text": (
        _changed(2, content=[{"type": "reasoning"}, _TOOL_USE]),
        False,
    ),
    "a redacted thinking block": (
        _changed(2, content=[{"type": "redacted_thinking", "data": "cmVk"}, _TOOL_USE]),
        False,
    ),
    "a lone surrogate in the thinking": (
        _changed(2, content=[{**_THINKING, "thinking": "a\ud800"}, _TOOL_USE]),
        False,
    ),
    "a signature JSON has not": (
        _changed(2, content=[{**_THINKING, "signature": {1, 2}}, _TOOL_USE]),
        False,
    ),
    "OpenAI's raw calls": (
        _changed(
            2,
            additional_kwargs={
                "tool_calls": [
                    {
                        "id": "toolu_1",
                        "type": "function",
                        "function": {"name": "search", "arguments": '{"q": 1}'},
                    }
                ]
            },
        ),
        False,
    ),
}
"""Reasoning in an otherwise plainly clean history (``TURNS``, its responses naming no
provider): what the verdict takes for provider None, whose rules read neither reasoning nor
provider options (True), and what it leaves to the full path even so (False)."""


@pytest.mark.parametrize(("native", "taken"), RICH.values(), ids=RICH.keys())
def test_reasoning_the_verdict_takes_for_a_target_whose_rules_read_none(
    native: list[BaseMessage], taken: bool
) -> None:
    native = [
        m.model_copy(update={"response_metadata": {}}) if isinstance(m, AIMessage) else m
        for m in native
    ]
    terms = provider_terms(None)
    assert terms is not None and terms.rich
    assert langchain._plainly_clean(native, None, terms) is taken
    assert not langchain._plainly_clean(native, "anthropic")  # whose rules read reasoning
    plain = _same_as_full_path(langchain, langchain.heal_langchain, native, PROVIDERS)
    assert ("auto" in plain) is taken
