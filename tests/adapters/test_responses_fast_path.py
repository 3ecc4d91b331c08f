"""The OpenAI Responses verdict: heal_openai_responses hands plainly clean input items back as
they are, without building canonical models (issue "Speed", item 4), exactly as the other native
verdicts do (``tests/adapters/test_native_fast_path.py``, whose checks these reuse): when it says
clean, the full path (load, heal_messages, write back) returns no repair and the caller's own
list; on every input the adapter gives what the full path gives.

The histories: the plain AI SDK histories of ``tests/test_json.py`` written as input items by
the adapter, each maybe with one edge a stored Responses history carries (the ids, statuses and
empty annotations of ``response.output`` items, a cut-off item, reasoning, an item reference, a
duplicated id...); and the format's own strategies.
"""

from __future__ import annotations

import copy
import json
from typing import Any
from unittest import mock

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from openai.types.responses import ResponseFunctionToolCall, ResponseOutputMessage

from heal import InputError
from heal.adapters import openai_responses
from heal.adapters.openai_responses import heal_openai_responses
from tests.test_json import PLAIN, plain_histories

from . import strategies_openai_responses as s_responses
from .test_native_fast_path import (
    _LOADERS,
    ALL_PROVIDERS,
    PROPERTY,
    _counted,
    _refuse_to_load,
    _same_as_full_path,
    some_targets,
)

_LOADERS[openai_responses] = "_Reader"

Item = dict[str, Any]


def _stored(item: Item, n: int) -> Item:
    """An assistant message or call item as ``response.output`` gives it (its ``model_dump()``,
    without the nulls): an id, a status, an ``output_text`` element with empty annotations."""
    if item.get("type") == "function_call":
        return {**item, "id": f"fc_{n}", "status": "completed"}
    if item.get("role") == "assistant" and isinstance(item["content"], str):
        element = {"type": "output_text", "text": item["content"], "annotations": []}
        if n % 2:
            element["logprobs"] = []
        return {
            "type": "message",
            "id": f"msg_{n}",
            "role": "assistant",
            "status": "completed",
            "content": [element],
        }
    return item


def _dumped(item: Item, n: int) -> Item:
    """An assistant message or call item as ``response.output[k].model_dump()`` stores it: the
    SDK's own type, dumped with its nulls (``phase``, ``logprobs``, ``namespace``...)."""
    stored = _stored(item, n)
    if stored.get("type") == "function_call":
        return ResponseFunctionToolCall.model_validate(stored).model_dump()
    if stored.get("role") == "assistant":
        return ResponseOutputMessage.model_validate(stored).model_dump()
    return item


def _edit(draw: st.DrawFn, items: list[Item]) -> None:
    """One edge of a stored Responses history, on one of its items (or the whole list)."""
    where = draw(st.integers(0, max(len(items) - 1, 0)))
    item = items[where] if items else {}
    edge = draw(
        st.sampled_from(
            (
                "stored",
                "stored-all",
                "dumped-all",
                "status",
                "duplicate-id",
                "annotation",
                "two-texts",
                "refusal",
                "phase",
                "developer",
                "typed-user",
                "system-list",
                "arguments",
                "output-list",
                "output-id",
                "reasoning",
                "item-reference",
                "namespace",
            )
        )
    )
    if edge == "stored":
        items[where] = _stored(item, where)
    elif edge == "stored-all":
        items[:] = [_stored(it, n) for n, it in enumerate(items)]
    elif edge == "dumped-all":
        items[:] = [_dumped(it, n) for n, it in enumerate(items)]
    elif edge == "status":
        stored = _stored(item, where)
        if "status" in stored:
            stored["status"] = draw(st.sampled_from(("incomplete", "in_progress")))
        items[where] = stored
    elif edge == "duplicate-id":
        items[:] = [_stored(it, 0) for it in items]  # every item id the same
    elif edge == "annotation" and item.get("role") == "assistant":
        stored = _stored(item, where)
        stored["content"][0]["annotations"] = [{"type": "url_citation", "url": "https://x.y"}]
        items[where] = stored
    elif edge == "two-texts" and item.get("role") == "assistant":
        stored = _stored(item, where)
        stored["content"].append({"type": "output_text", "text": "More.", "annotations": []})
        items[where] = stored
    elif edge == "refusal" and item.get("role") == "assistant":
        items[where] = {
            "type": "message",
            "role": "assistant",
            "content": [{"type": "refusal", "refusal": "No."}],
        }
    elif edge == "phase" and item.get("role") == "assistant":
        items[where] = {**_stored(item, where), "phase": "final_answer"}
    elif edge == "developer" and item.get("role") == "system":
        item["role"] = "developer"
    elif edge == "typed-user" and item.get("role") in ("user", "system"):
        item["type"] = "message"
    elif edge == "system-list" and item.get("role") == "system":
        item["content"] = [{"type": "input_text", "text": item["content"]}]
    elif edge == "arguments" and item.get("type") == "function_call":
        args = json.loads(item["arguments"])
        item["arguments"] = draw(
            st.sampled_from(
                (json.dumps(args), json.dumps(args, indent=2), "[1]", "{bad", '{"a": NaN}', "")
            )
        )
    elif edge == "output-list" and item.get("type") == "function_call_output":
        item["output"] = [{"type": "input_text", "text": item["output"] or "x"}]
    elif edge == "output-id" and item.get("type") == "function_call_output":
        item.update(id=f"fco_{where}", status=draw(st.sampled_from(("completed", "incomplete"))))
    elif edge == "reasoning":
        items.insert(where, {"type": "reasoning", "id": f"rs_{where}", "summary": []})
    elif edge == "item-reference":
        items.insert(where, {"type": "item_reference", "id": f"msg_{where}"})
    elif edge == "namespace" and item.get("type") == "function_call":
        item["namespace"] = "tools"


@st.composite
def plain_responses(draw: st.DrawFn) -> list[Item]:
    """A plain AI SDK history written as input items by the adapter, maybe with one edge of a
    stored Responses history."""
    history = draw(plain_histories())
    try:
        items = openai_responses.dump_messages(history)
    except InputError:  # a value nested deeper than the models take
        items = [{"role": "user", "content": "hi"}]
    if draw(st.integers(0, 2)) != 0:
        _edit(draw, items)
    return items


@settings(PROPERTY, max_examples=300)
@given(plain_responses(), some_targets)
def test_responses_verdict_holds_on_plain_histories(native: list[Item], targets: list[Any]) -> None:
    _same_as_full_path(
        openai_responses, heal_openai_responses, _counted(openai_responses, native), targets=targets
    )


@PROPERTY
@given(st.one_of(s_responses.input_items(), s_responses.valid_input_items()), some_targets)
def test_responses_verdict_holds_on_the_formats_strategies(
    native: list[Item], targets: list[Any]
) -> None:
    _same_as_full_path(
        openai_responses, heal_openai_responses, _counted(openai_responses, native), targets=targets
    )


RESPONSES_PLAIN = openai_responses.dump_messages(PLAIN)
STORED = [_stored(item, n) for n, item in enumerate(RESPONSES_PLAIN)]
DUMPED = [_dumped(item, n) for n, item in enumerate(RESPONSES_PLAIN)]


def test_a_stored_history_comes_back_as_it_was_without_loading() -> None:
    assert DUMPED[3]["namespace"] is None and DUMPED[2]["phase"] is None  # the SDK's nulls
    for native in (RESPONSES_PLAIN, STORED, DUMPED):
        plain = _same_as_full_path(openai_responses, heal_openai_responses, native)
        # Mistral wants nine-character ids, DeepSeek reasoning beside every call.
        assert plain == set(ALL_PROVIDERS) - {"mistral", "deepseek"}
        with mock.patch.object(openai_responses, "_Reader", _refuse_to_load):
            assert heal_openai_responses(native).messages is native


def _status(items: list[Item]) -> None:
    next(it for it in items if it.get("type") == "function_call")["status"] = "incomplete"


def _duplicate(items: list[Item]) -> None:
    calls = [it for it in items if it.get("type") == "function_call"]
    calls[1]["id"] = calls[0]["id"]


def _late_text(items: list[Item]) -> None:
    i = next(i for i, it in enumerate(items) if it.get("type") == "function_call")
    items.insert(i + 1, {"role": "assistant", "content": "And now?"})


@pytest.mark.parametrize(
    ("edit", "rule"),
    [
        (_status, None),  # a cut-off call (orphan-tool-call drops it when it has no output)
        (_duplicate, "duplicate-item-id"),
        (_late_text, None),  # text after a call: moved for Anthropic, a verdict does not read it
    ],
)
def test_what_the_verdict_does_not_take_goes_the_full_path(edit: Any, rule: str | None) -> None:
    native = copy.deepcopy(STORED)
    edit(native)
    assert not openai_responses._plainly_clean(native, "openai-responses")
    _same_as_full_path(openai_responses, heal_openai_responses, native)
    if rule is not None:
        repairs = heal_openai_responses(native).repairs
        assert rule in {r.rule for r in repairs}
