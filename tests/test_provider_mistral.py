"""The Mistral pack: its case files (``tests/cases/mistral``), its id mapping, and the real
``@ai-sdk/mistral`` judging the healed histories down to the request body."""

from __future__ import annotations

import hashlib
import re
import string
from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from heal import Policy, Scope, dump_messages, heal_messages, validate_messages
from heal.providers import get_profile
from heal.rules import PACKS
from heal.rules.mistral import BRIDGE_TEXT, mistral_tool_call_id
from tests.case_runner import pack_cases
from tests.test_provider_openai import judge_pack, wire_problems

MISTRAL_CASES = pack_cases("mistral")


def test_mistral_pack_has_cases() -> None:
    rules = {param.values[0] for param in MISTRAL_CASES}
    assert {rule.id for rule in PACKS["mistral"]} <= rules


def test_mistral_rules_are_request_scoped() -> None:
    assert all(rule.scope is Scope.REQUEST for rule in PACKS["mistral"])
    assert [rule.id for rule in PACKS["mistral"] if not rule.default_enabled] == [
        "mistral-reasoning-input"
    ]


def test_generated_ids_satisfy_the_mistral_profile() -> None:
    profile = get_profile("mistral")
    for source in ("call_1", "toolu_01ABC", "", "x" * 500, "functions.search:0", "é"):
        new = mistral_tool_call_id(source)
        assert re.fullmatch(r"[a-zA-Z0-9]{9}", new)
        assert profile.accepts_tool_call_id(new)
        assert new == mistral_tool_call_id(source)  # deterministic
        assert new != mistral_tool_call_id(source, 1)


@pytest.mark.parametrize(
    ("source", "attempt", "expected"),
    [
        ("call_1", 0, "8CWErRCEs"),
        ("toolu_01ABC", 0, "5O959dAo8"),
        ("", 0, "QPZlouDi4"),
        ("\u00e9", 0, "8E2ylcjlD"),
        ("call_1", 1, "NinAPsP1A"),
        ("x" * 500, 3, "cQd6H9sw3"),
        ("\udc80", 0, "NaHdEWgBX"),
    ],
)
def test_generated_ids_never_change(source: str, attempt: int, expected: str) -> None:
    # A stored history healed by one version and sent again by the next must get the same ids;
    # these are the ids heal has always given (64 bits of blake2s, nine base62 digits, least
    # significant first).
    assert mistral_tool_call_id(source, attempt) == expected
    assert _spelled(source, attempt) == expected


def _spelled(source: str, attempt: int) -> str:
    """The id by its definition: the digest's 64 bits as nine base62 digits, least significant
    first, one division at a time."""
    text = source if attempt == 0 else f"{source}\x00{attempt}"
    raw = hashlib.blake2s(text.encode("utf-8", "surrogatepass"), digest_size=8).digest()
    value = int.from_bytes(raw, "big")
    alphabet = string.digits + string.ascii_uppercase + string.ascii_lowercase
    spelled = ""
    for _ in range(9):
        value, digit = divmod(value, 62)
        spelled += alphabet[digit]
    return spelled


@given(st.text(), st.integers(min_value=0, max_value=2**70))
def test_generated_ids_are_the_digest_spelled_in_base62(source: str, attempt: int) -> None:
    # The function writes the digits two at a time from the value's parts; every id is still
    # the definition's.
    assert mistral_tool_call_id(source, attempt) == _spelled(source, attempt)


def _call(cid: str) -> dict[str, Any]:
    return {"type": "tool-call", "toolCallId": cid, "toolName": "f", "input": {}}


def _result(cid: str) -> dict[str, Any]:
    return {
        "type": "tool-result",
        "toolCallId": cid,
        "toolName": "f",
        "output": {"type": "text", "value": "ok"},
    }


def test_many_ids_map_to_distinct_ids_whatever_their_order() -> None:
    ids = [f"call_00_{i:06d}" for i in range(300)]
    history: list[dict[str, Any]] = [{"role": "user", "content": "go"}]
    history.append({"role": "assistant", "content": [_call(i) for i in ids]})
    history.append({"role": "tool", "content": [_result(i) for i in ids]})
    healed = dump_messages(heal_messages(history, provider="mistral").messages)
    new_ids = [part["toolCallId"] for part in healed[1]["content"]]
    assert len(set(new_ids)) == 300
    assert [part["toolCallId"] for part in healed[2]["content"]] == new_ids
    reordered = [history[0], {"role": "assistant", "content": history[1]["content"][::-1]}]
    reordered.append({"role": "tool", "content": history[2]["content"][::-1]})
    again = dump_messages(heal_messages(reordered, provider="mistral").messages)
    assert [part["toolCallId"] for part in again[1]["content"]] == new_ids[::-1]


def test_orphan_call_then_user_gets_placeholder_and_bridge() -> None:
    # The shared orphan-tool-call adds a tool message; the bridge then separates it from the
    # user message. Both together are what Mistral needs.
    history = [
        {"role": "user", "content": "weather?"},
        {"role": "assistant", "content": [_call("abcDEF123")]},
        {"role": "user", "content": "hello?"},
    ]
    result = heal_messages(history, provider="mistral")
    healed = dump_messages(result.messages)
    assert [m["role"] for m in healed] == ["user", "assistant", "tool", "assistant", "user"]
    assert healed[3]["content"] == BRIDGE_TEXT
    assert [r.rule for r in result.repairs] == ["orphan-tool-call", "mistral-user-after-tool"]
    assert validate_messages(result.messages, provider="mistral").valid


def test_bridge_is_not_written_back_in_history_scope() -> None:
    history = [
        {"role": "user", "content": "weather?"},
        {"role": "assistant", "content": [_call("call_1")]},
        {"role": "tool", "content": [_result("call_1")]},
        {"role": "user", "content": "thanks"},
    ]
    result = heal_messages(history, provider="mistral", scope="history")
    assert result.repairs == ()
    enabled = heal_messages(
        history, provider="mistral", policy=Policy(enable=["mistral-reasoning-input"])
    )
    assert {r.rule for r in enabled.repairs} == {"mistral-tool-call-id", "mistral-user-after-tool"}


@pytest.fixture(scope="module")
def _node() -> Iterator[None]:
    from tests.interop.judge import ensure_node_modules

    if ensure_node_modules() is None:
        pytest.skip("node and npm are not installed; the interop judge cannot run")
    yield


@pytest.mark.interop
@pytest.mark.usefixtures("_node")
def test_interop_mistral_cases_pass_the_ai_sdk() -> None:
    failures, judged = judge_pack(MISTRAL_CASES)
    assert judged >= 30
    assert failures == []


@pytest.mark.interop
@pytest.mark.usefixtures("_node")
def test_interop_mistral_inputs_are_rejected_on_the_wire() -> None:
    from tests.interop.judge import judge

    inputs = [case["input"] for _, case in (p.values for p in MISTRAL_CASES) if "input" in case]
    results = judge(
        [{"id": i, "target": "mistral", "messages": history} for i, history in enumerate(inputs)]
    )
    flagged = [wire_problems("mistral", r["body"]) for r in results if r["ok"]]
    # every broken id or bridge input is visible on the wire (reasoning input is not: it is
    # a model capability the wire format cannot show)
    assert sum(1 for problems in flagged if problems) == len(inputs) - 1
