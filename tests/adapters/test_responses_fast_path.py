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

from benchmarks.corpus import corpus
from heal import InputError, load_messages
from heal._verdict import provider_terms
from heal.adapters import openai_responses
from heal.adapters.openai_responses import heal_openai_responses
from tests.test_json import PLAIN, plain_histories

from . import strategies_openai_responses as s_responses
from .test_native_fast_path import (
    _LOADERS,
    ALL_PROVIDERS,
    PROPERTY,
    _counted,
    _fast,
    _full_path,
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
                "reasoning-turns",
                "reasoning-turns",
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
    elif edge == "reasoning-turns":
        _reason_every_turn(draw, items)
    elif edge == "item-reference":
        items.insert(where, {"type": "item_reference", "id": f"msg_{where}"})
    elif edge == "namespace" and item.get("type") == "function_call":
        item["namespace"] = "tools"


def _assistant_side(item: Item) -> bool:
    return item.get("type") == "function_call" or item.get("role") == "assistant"


def _reasoning_item(draw: st.DrawFn, n: int) -> Item:
    """A reasoning item as ``response.output`` gives it (an id, a summary, maybe encrypted
    content, maybe the SDK's ``model_dump()`` with its nulls), maybe with one flaw."""
    item: Item = {
        "type": "reasoning",
        "id": f"rs_{n}",
        "summary": [
            {"type": "summary_text", "text": text}
            for text in draw(st.lists(st.sampled_from(("Think.", "", "Then act. ")), max_size=2))
        ],
    }
    if draw(st.booleans()):
        item["encrypted_content"] = "gAAAAB" + "x" * n
    if draw(st.booleans()):
        item = ResponseReasoningItem.model_validate(item).model_dump()
    flaw = draw(
        st.sampled_from(
            (None, None, None, "status", "no-id", "empty-id", "surrogate", "entry-key", "content")
        )
    )
    if flaw == "status":
        item["status"] = draw(st.sampled_from(("incomplete", "in_progress", "completed")))
    elif flaw == "no-id":
        del item["id"]
    elif flaw == "empty-id":
        item["id"] = ""
    elif flaw == "surrogate":
        item["summary"] = [{"type": "summary_text", "text": "a\ud800"}]
    elif flaw == "entry-key":
        item["summary"] = [{"type": "summary_text", "text": "x", "extra": 1}]
    elif flaw == "content":
        item["content"] = [{"type": "reasoning_text", "text": "raw"}]
    return item


def _reason_every_turn(draw: st.DrawFn, items: list[Item]) -> None:
    """Reasoning items where a reasoning model puts them (before the first message or call of
    each assistant turn), or, now and then, where it does not: after a call, at the end, twice
    in a row, with a repeated id."""
    starts = [
        n
        for n, item in enumerate(items)
        if _assistant_side(item) and (n == 0 or not _assistant_side(items[n - 1]))
    ]
    for n in reversed(starts):
        items.insert(n, _reasoning_item(draw, n))
    place = draw(st.sampled_from((None, None, "after-call", "end", "twice", "same-id")))
    if place == "after-call":
        at = next((n for n, it in enumerate(items) if it.get("type") == "function_call"), None)
        if at is not None:
            items.insert(at + 1, _reasoning_item(draw, 1000))
    elif place == "end":
        items.append(_reasoning_item(draw, 1001))
    elif place == "twice" and starts:
        items.insert(starts[0], _reasoning_item(draw, 1002))
    elif place == "same-id" and len(starts) > 1:
        for item in items:
            if item.get("type") == "reasoning":
                item["id"] = "rs_same"


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


_IMAGES: list[tuple[Item, bool]] = [
    ({"type": "input_image", "image_url": "https://example.com/a.png", "detail": "auto"}, True),
    ({"type": "input_image", "image_url": "data:image/png;base64,iVBORw0KGgo="}, True),
    ({"type": "input_image", "file_id": "file-6F2ksmvXxt4Vdo", "detail": "auto"}, False),
    ({"type": "input_image", "image_url": "iVBORw0KGgo=", "detail": "auto"}, False),
    ({"type": "input_image", "image_url": "https://example.com/a.png", "x": 1}, False),
    ({"type": "input_file", "file_url": "https://example.com/a.pdf"}, False),
    ({"type": "input_file", "image_url": "https://example.com/a.png"}, False),
]
"""A user's images, and whether the walk takes each: a URL (a data URL too), maybe with its
detail, loads as a plain image; a stored file, raw base64, an unknown key and a file do not."""


@pytest.mark.parametrize(("element", "plain"), _IMAGES, ids=lambda v: json.dumps(v)[:50])
def test_a_users_plain_image_comes_back_without_loading(element: Item, plain: bool) -> None:
    native: list[Item] = [
        {"role": "user", "content": [{"type": "input_text", "text": "What is it?"}, element]},
        {"role": "assistant", "content": "A cat."},
        {"role": "user", "content": "Thanks."},
    ]
    assert openai_responses._plainly_clean(native, "openai-responses") == plain
    taken = _same_as_full_path(openai_responses, heal_openai_responses, native)
    assert taken == (set(ALL_PROVIDERS) if plain else set())


@pytest.mark.parametrize("role", [[], {}, ["user"], {"role": "user"}])
def test_a_role_that_is_no_string_goes_the_full_path(role: Any) -> None:
    # The verdict looked an unhashable role up in a frozenset, a TypeError (found by the fuzz
    # tests' mutated-native target under the deep profile); the full path names the bad role.
    for native in (
        [{"role": role, "content": "hi"}],
        [*RESPONSES_PLAIN[:1], {"role": role, "content": "ok"}],
    ):
        assert not openai_responses._plainly_clean(native, "openai-responses")
        with pytest.raises(InputError, match="role"):
            heal_openai_responses(native)


def _reasoning(n: int, **fields: Any) -> Item:
    summary = [{"type": "summary_text", "text": "Look it up."}]
    return {"type": "reasoning", "id": f"rs_{n}", "summary": summary, **fields}


def _reasoned() -> list[Item]:
    """STORED as a reasoning model's turns store it: a reasoning item before each assistant
    turn (one with encrypted content, as ``include=["reasoning.encrypted_content"]`` gives)."""
    items = copy.deepcopy(STORED)
    items.insert(7, _reasoning(7))
    items.insert(2, _reasoning(2, encrypted_content="gAAAAB"))
    return items


def test_a_reasoning_models_history_comes_back_as_it_was_without_loading() -> None:
    dumped = _reasoned()
    dumped[2] = ResponseReasoningItem.model_validate(dumped[2]).model_dump()
    assert dumped[2]["status"] is None and dumped[2]["content"] is None  # the SDK's nulls
    for native in (_reasoned(), dumped):
        plain = _same_as_full_path(openai_responses, heal_openai_responses, native)
        # Only the Responses API reads OpenAI's reasoning items (the item rules); the other
        # plans read reasoning their own ways and take the full path.
        assert "openai-responses" in plain and "anthropic" not in plain
        with mock.patch.object(openai_responses, "_Reader", _refuse_to_load):
            assert heal_openai_responses(native).messages is native


def _at_end(items: list[Item]) -> None:
    items.append(_reasoning(99))


def _same_id(items: list[Item]) -> None:
    items[2]["id"] = items[9]["id"] = "rs_same"


def _no_id(items: list[Item]) -> None:
    del items[2]["id"]


def _empty_id(items: list[Item]) -> None:
    items[2]["id"] = ""


def _twice(items: list[Item]) -> None:
    items.insert(2, _reasoning(50))


def _before_output(items: list[Item]) -> None:
    items.insert(7, _reasoning(51))


def _lone_surrogate(items: list[Item]) -> None:
    items[2]["summary"][0]["text"] = "a\ud800"


def _after_call(items: list[Item]) -> None:
    items.insert(5, _reasoning(52))


def _cut_off(items: list[Item]) -> None:
    items[2]["status"] = "incomplete"


@pytest.mark.parametrize(
    ("edit", "rule"),
    [
        (_at_end, "reasoning-without-following-item"),
        (_same_id, "duplicate-item-id"),
        (_no_id, "encrypted-reasoning-without-item-id"),
        (_empty_id, "encrypted-reasoning-without-item-id"),
        (_twice, "reasoning-without-following-item"),
        (_before_output, "reasoning-without-following-item"),
        (_lone_surrogate, "lone-surrogate"),
        (_after_call, None),  # between calls of one turn: no rule reads it, a verdict does not
        (_cut_off, None),  # a cut-off turn: its calls are aborted, a verdict does not read it
    ],
)
def test_reasoning_the_verdict_does_not_take_goes_the_full_path(
    edit: Any, rule: str | None
) -> None:
    terms = provider_terms("openai-responses")
    assert terms is not None and terms.items
    native = _reasoned()
    assert openai_responses._plainly_clean(native, "openai-responses", terms)
    edit(native)
    assert not openai_responses._plainly_clean(native, "openai-responses", terms)
    _same_as_full_path(openai_responses, heal_openai_responses, native)
    if rule is not None:
        assert rule in {r.rule for r in heal_openai_responses(native).repairs}


def _as_string(native: list[Item], at: int, **keys: Any) -> list[Item]:
    """``native`` with its assistant message ``at`` written as a string of its text, with the
    item's ``keys``, as the adapter writes an assistant text with an item id."""
    out = copy.deepcopy(native)
    out[at] = {"role": "assistant", **keys, "content": out[at]["content"][0]["text"]}
    return out


@pytest.mark.parametrize(
    ("native", "taken"),
    [
        pytest.param(_as_string(STORED, 7, id="msg_7"), True, id="an item id"),
        pytest.param(_as_string(STORED, 7, id="msg_7", type="message"), True, id="typed"),
        pytest.param(_as_string(STORED, 7, id=""), True, id="an empty id"),
        pytest.param(_as_string(STORED, 7, id="msg_2"), False, id="another item's id"),
        pytest.param(_as_string(STORED, 7, id=7), False, id="an id not a string"),
        pytest.param(_as_string(STORED, 7, id="msg_7", status="completed"), False, id="status"),
    ],
)
def test_an_assistant_string_with_an_item_id(native: list[Item], taken: bool) -> None:
    """What ``dump_messages`` writes for an assistant text with an OpenAI item id: a string
    content beside the id, which loads as list content's does (the id as the text's item id,
    which the item rules read): plain for the Responses API but for a duplicated id."""
    terms = provider_terms("openai-responses")
    assert terms is not None
    assert openai_responses._plainly_clean(native, "openai-responses", terms) is taken
    plain = _same_as_full_path(openai_responses, heal_openai_responses, native)
    assert ("openai-responses" in plain) is taken


def test_kimi_ids_in_a_reasoning_models_history_are_renamed_without_loading() -> None:
    """The reasoning corpus as Responses items (reasoning items with encrypted content, item
    ids on texts and calls, half the ids Kimi's): the adapter renames the ids in copies of the
    caller's items, without loading the unbroken histories, and gives what the full path
    gives."""
    natives = []
    for raw in corpus(conversations=40, length=30, shape="reasoning"):
        try:
            natives.append(openai_responses.dump_messages(load_messages(raw)))
        except InputError:
            continue  # a signature the Responses API has no field for
    renamed = 0
    for native in natives:
        given = copy.deepcopy(native)
        fast, skipped = _fast(openai_responses, partial(heal_openai_responses, native))
        with _full_path(openai_responses):
            slow = heal_openai_responses(native)
        assert native == given
        assert fast.repairs == slow.repairs
        assert fast.messages == slow.messages
        renamed += skipped and bool(fast.repairs)
    assert renamed >= 0.8 * len(natives) > 0
