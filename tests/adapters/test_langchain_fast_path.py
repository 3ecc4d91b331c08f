"""LangChain's verdict: heal_langchain hands a plainly clean history back as it is, without
building canonical models (issue "Speed", item 4), exactly as the other native verdicts do
(``tests/adapters/test_native_fast_path.py``, whose checks these reuse): when it says clean, the
full path (load, heal_messages, write back) returns no repair and the caller's own list; on
every input the adapter gives what the full path gives.

The histories: the plain AI SDK histories of ``tests/test_json.py`` written as LangChain
messages by the adapter, each maybe with one edge a LangChain history carries (a model's
metadata, a cut-off turn, a tool's error or artifact, reasoning in ``additional_kwargs``...);
and the format's own strategies.
"""

from __future__ import annotations

import copy
from datetime import datetime
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, ToolMessage

from heal import InputError
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


@st.composite
def plain_langchain(draw: st.DrawFn) -> list[BaseMessage]:
    """A plain AI SDK history written as LangChain messages by the adapter, maybe with one
    LangChain edge."""
    history = draw(plain_histories())
    try:
        native = langchain.dump_messages(history)
    except InputError:  # a value nested deeper than the models take
        native = [HumanMessage("hi")]
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
