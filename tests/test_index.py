"""The history index decides pairing during its scan for ordinary histories; it must agree with
the plain definition (``HistoryIndex._check_paired``) on every history."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given

from heal import load_messages
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
