"""The history index decides pairing during its scan for ordinary histories; it must agree with
the plain definition (``HistoryIndex._check_paired``) on every history."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings

from heal import dump_messages, heal_messages, load_messages
from heal.rules._index import HistoryIndex
from tests.strategies import histories
from tests.test_cases import CASES


def _call(cid: str) -> dict[str, Any]:
    return {"type": "tool-call", "toolCallId": cid, "toolName": "f", "input": {}}


def _result(cid: str) -> dict[str, Any]:
    return {
        "type": "tool-result",
        "toolCallId": cid,
        "toolName": "f",
        "output": {"type": "text", "value": "ok"},
    }


def _agree(history: Any) -> bool:
    index = HistoryIndex(load_messages(history))
    assert index.paired == index._check_paired()
    return index.paired


USER = {"role": "user", "content": "go"}
EXAMPLES = [
    pytest.param([USER, {"role": "assistant", "content": [_call("a")]}], False, id="orphan call"),
    pytest.param([{"role": "tool", "content": [_result("a")]}, USER], False, id="result first"),
    pytest.param(
        [
            USER,
            {"role": "assistant", "content": [_call("a"), _call("b")]},
            {"role": "tool", "content": [_result("b")]},
            {"role": "tool", "content": [_result("a")]},
        ],
        True,
        id="parallel results in two tool messages",
    ),
    pytest.param(
        [
            USER,
            {"role": "assistant", "content": [_call("a")]},
            USER,
            {"role": "tool", "content": [_result("a")]},
        ],
        False,
        id="user turn between call and result",
    ),
    pytest.param(
        [
            USER,
            {"role": "assistant", "content": [_call("a")]},
            {"role": "tool", "content": [_result("a")]},
            {"role": "assistant", "content": [_call("a")]},
            {"role": "tool", "content": [_result("a")]},
        ],
        False,
        id="one id used twice",
    ),
    pytest.param(
        [
            USER,
            {"role": "assistant", "content": [_call("a")]},
            {"role": "tool", "content": [_result("a"), _result("a")]},
        ],
        False,
        id="result twice",
    ),
]


@pytest.mark.parametrize(("history", "paired"), EXAMPLES)
def test_pairing_examples(history: Any, paired: bool) -> None:
    assert _agree(history) is paired


@pytest.mark.parametrize(
    "history",
    [p.values[1].get("input", p.values[1].get("ok")) for p in CASES],
    ids=[p.id for p in CASES],
)
def test_the_scan_agrees_with_the_definition_on_every_case(history: Any) -> None:
    _agree(history)


@given(histories())
def test_the_scan_agrees_with_the_definition(history: Any) -> None:
    _agree(history)


# --- parts and messages of subclassed models -------------------------------------------------

_FACTS = (
    "roles", "strings", "empty", "texts", "texts_after_calls", "calls", "call_ids", "tool_names",
    "unusual_inputs", "results", "outputs", "content_outputs", "reasoning", "requests",
    "responses", "files", "images", "present",
)  # fmt: skip
_SUBCLASSES: dict[type, type] = {}


def _subclassed(model: Any) -> Any:
    """The same model as an instance of a subclass of its class (as a caller's own models are):
    the scan's ``type(x) is`` fast path does not see it, the index's slower path must."""
    cls = type(model)
    sub = _SUBCLASSES.setdefault(cls, type(f"My{cls.__name__}", (cls,), {}))
    values = dict(model)
    content = values.get("content")
    if isinstance(content, tuple):
        values["content"] = tuple(_subclassed(part) for part in content)
    return sub.model_construct(_fields_set=model.model_fields_set, **values)


def _shown(item: Any) -> str:
    # References hold the parts themselves: show them by their dumps.
    if isinstance(item, tuple):
        return repr(tuple(x.model_dump() if hasattr(x, "model_dump") else x for x in item))
    return repr(item)


def _facts(index: HistoryIndex) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for name in _FACTS:
        value = getattr(index, name)
        out[name] = [_shown(x) for x in value] if isinstance(value, list) else sorted(value)
    out["paired"] = index.paired
    return out


@settings(max_examples=60)
@given(histories())
def test_subclassed_parts_give_the_same_facts(history: Any) -> None:
    plain = load_messages(history)
    mine = [_subclassed(message) for message in plain]
    assert all(type(m) is not type(p) for m, p in zip(mine, plain, strict=True))
    got, want = _facts(HistoryIndex(mine)), _facts(HistoryIndex(plain))
    # The scan lists only the parts a rule may act on (blank or non-ASCII texts, content
    # outputs...); the path for subclassed parts may list more, which is safe: these lists are
    # triggers, hints that a rule then checks. Everything else must be the same.
    for loose in ("texts", "texts_after_calls", "outputs", "content_outputs", "present"):
        assert set(want.pop(loose)) <= set(got.pop(loose)), loose
    assert got == want
    healed_mine, healed_plain = heal_messages(mine), heal_messages(plain)
    assert dump_messages(healed_mine.messages) == dump_messages(healed_plain.messages)
    assert healed_mine.repairs == healed_plain.repairs
