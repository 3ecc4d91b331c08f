"""Smoke tests of the interop judge itself (``judge.mjs`` + ``judge.py``).

They check that the judge really drives the pinned AI SDK packages, and they record a few
facts about ai core's own prompt validation that heal's repair rules rely on (see
``test_ai_core_facts``). They need node and npm; without them they are skipped.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from tests.interop.judge import (
    ALL_TARGETS,
    PROVIDER_TARGETS,
    JudgeResult,
    ensure_node_modules,
    judge,
)

pytestmark = pytest.mark.interop

Message = dict[str, Any]


@pytest.fixture(scope="module", autouse=True)
def _node_modules() -> Iterator[None]:
    if ensure_node_modules() is None:
        pytest.skip("node and npm are not installed; the interop judge cannot run")
    yield


# --------------------------------------------------------------------------- histories


def user(text: str) -> Message:
    return {"role": "user", "content": [{"type": "text", "text": text}]}


def call(call_id: str, name: str = "weather") -> dict[str, Any]:
    return {
        "type": "tool-call",
        "toolCallId": call_id,
        "toolName": name,
        "input": {"city": "Paris"},
    }


def result(call_id: str, name: str = "weather", value: str = "sunny") -> dict[str, Any]:
    return {
        "type": "tool-result",
        "toolCallId": call_id,
        "toolName": name,
        "output": {"type": "text", "value": value},
    }


SIMPLE: list[Message] = [{"role": "user", "content": "hi"}]

TOOL_ROUND_TRIP: list[Message] = [
    {"role": "system", "content": "be brief"},
    user("weather?"),
    {"role": "assistant", "content": [{"type": "text", "text": "checking"}, call("call_1")]},
    {"role": "tool", "content": [result("call_1")]},
    {"role": "assistant", "content": "It is sunny."},
    user("thanks"),
]

# Assistant tool call without a result, followed by a user message.
ORPHAN_CALL: list[Message] = [
    user("weather?"),
    {"role": "assistant", "content": [call("call_1")]},
    user("hello?"),
]


def _one(case: dict[str, Any]) -> JudgeResult:
    [res] = judge([case])
    return res


# --------------------------------------------------------------------------- (a)


def test_simple_history_is_ok_for_every_target() -> None:
    results = judge([{"id": t, "target": t, "messages": SIMPLE} for t in ALL_TARGETS])
    assert [r["id"] for r in results] == list(ALL_TARGETS)
    for res in results:
        assert res["ok"], res
        assert res["stage"] is None
        assert res["error"] is None
        # No "judge: ..." self-check warning (canned response parsed as expected) and no
        # SDK warning for a plain history.
        assert res["warnings"] == [], res
        if res["id"] == "schema":
            assert res["body"] is None
        else:
            assert res["body"], res


def test_core_body_is_the_prompt_the_model_received() -> None:
    res = _one({"id": "c", "target": "core", "messages": SIMPLE})
    assert res["body"] == [{"role": "user", "content": [{"type": "text", "text": "hi"}]}]


# --------------------------------------------------------------------------- (b)


def test_orphan_tool_call_fails_in_core() -> None:
    res = _one({"id": "orphan", "target": "core", "messages": ORPHAN_CALL})
    assert not res["ok"]
    assert res["stage"] == "convert"
    assert res["error"] is not None
    assert res["error"].startswith("AI_MissingToolResultsError")
    assert "Tool result is missing for tool call call_1" in res["error"]


def test_orphan_tool_call_fails_before_any_provider_request() -> None:
    # ai core validates the prompt before the provider converts it: no request is made.
    results = judge([{"id": t, "target": t, "messages": ORPHAN_CALL} for t in PROVIDER_TARGETS])
    for res in results:
        assert not res["ok"], res
        assert res["stage"] == "convert"
        assert res["body"] is None
        assert "AI_MissingToolResultsError" in (res["error"] or "")


# --------------------------------------------------------------------------- (c)


def test_invalid_model_message_fails_at_schema_stage() -> None:
    no_call_id = [
        user("weather?"),
        {
            "role": "assistant",
            "content": [{"type": "tool-call", "toolName": "weather", "input": {}}],
        },
    ]
    results = judge(
        [{"id": t, "target": t, "messages": no_call_id} for t in ("schema", "core", "anthropic")]
    )
    for res in results:
        assert not res["ok"]
        assert res["stage"] == "schema"
        # The zod error is narrowed to the offending field: message 1, part 0.
        assert res["error"] == (
            "ZodError: 1.content.0.toolCallId: Invalid input: expected string, received undefined"
        )


def test_bad_cases_do_not_stop_the_batch() -> None:
    results = judge(
        [
            {"id": 1, "target": "no-such-target", "messages": SIMPLE},
            {"id": 2, "target": "core"},  # no messages
            {"id": 3, "target": "core", "messages": []},
            {"id": 4, "target": "core", "messages": SIMPLE},
        ]
    )
    assert [r["id"] for r in results] == [1, 2, 3, 4]
    assert results[0]["stage"] is None
    assert "unknown target" in (results[0]["error"] or "")
    assert results[1]["stage"] == "schema"
    assert results[2]["stage"] == "convert"
    assert "messages must not be empty" in (results[2]["error"] or "")
    assert results[3]["ok"]


# --------------------------------------------------------------------------- (d)


def _anthropic(body: dict[str, Any]) -> None:
    blocks = [b for m in body["messages"] if isinstance(m["content"], list) for b in m["content"]]
    tool_use = next(b for b in blocks if b["type"] == "tool_use")
    tool_result = next(b for b in blocks if b["type"] == "tool_result")
    assert tool_use["id"] == tool_result["tool_use_id"] == "call_1"
    assert body["system"] == [{"type": "text", "text": "be brief"}]


def _openai_chat(body: dict[str, Any]) -> None:
    [assistant] = [m for m in body["messages"] if m.get("tool_calls")]
    assert assistant["tool_calls"][0]["id"] == "call_1"
    assert assistant["tool_calls"][0]["function"]["name"] == "weather"
    [tool_msg] = [m for m in body["messages"] if m["role"] == "tool"]
    assert tool_msg["tool_call_id"] == "call_1"


def _openai_responses(body: dict[str, Any]) -> None:
    items = body["input"]
    [fc] = [i for i in items if i.get("type") == "function_call"]
    [fco] = [i for i in items if i.get("type") == "function_call_output"]
    assert fc["call_id"] == fco["call_id"] == "call_1"
    assert items.index(fc) < items.index(fco)


def _google(body: dict[str, Any]) -> None:
    parts = [p for c in body["contents"] for p in c["parts"]]
    assert any(p.get("functionCall", {}).get("name") == "weather" for p in parts)
    assert any(p.get("functionResponse", {}).get("name") == "weather" for p in parts)
    assert body["systemInstruction"] == {"parts": [{"text": "be brief"}]}


def _bedrock(body: dict[str, Any]) -> None:
    blocks = [b for m in body["messages"] for b in m["content"]]
    assert any(b.get("toolUse", {}).get("toolUseId") == "call_1" for b in blocks)
    assert any(b.get("toolResult", {}).get("toolUseId") == "call_1" for b in blocks)
    # The tools we pass make Bedrock keep tool content (it drops it without toolConfig).
    assert body["toolConfig"]["tools"][0]["toolSpec"]["name"] == "weather"


def _mistral(body: dict[str, Any]) -> None:
    [assistant] = [m for m in body["messages"] if m.get("tool_calls")]
    assert assistant["tool_calls"][0]["id"] == "call_1"
    [tool_msg] = [m for m in body["messages"] if m["role"] == "tool"]
    assert tool_msg["tool_call_id"] == "call_1"


WIRE_CHECKS: dict[str, Callable[[dict[str, Any]], None]] = {
    "anthropic": _anthropic,
    "openai-chat": _openai_chat,
    "openai-responses": _openai_responses,
    "google": _google,
    "bedrock": _bedrock,
    "mistral": _mistral,
}


@pytest.fixture(scope="module")
def tool_round_trip_results() -> dict[str, JudgeResult]:
    results = judge([{"id": t, "target": t, "messages": TOOL_ROUND_TRIP} for t in WIRE_CHECKS])
    return {str(r["id"]): r for r in results}


@pytest.mark.parametrize("target", list(WIRE_CHECKS))
def test_tool_round_trip_reaches_the_provider_wire_format(
    target: str, tool_round_trip_results: dict[str, JudgeResult]
) -> None:
    res = tool_round_trip_results[target]
    assert res["ok"], res
    assert res["warnings"] == []
    WIRE_CHECKS[target](res["body"])


# --------------------------------------------------------------------------- (e)


def approval_request(approval_id: str, call_id: str) -> dict[str, Any]:
    return {"type": "tool-approval-request", "approvalId": approval_id, "toolCallId": call_id}


def approval_response(approval_id: str, approved: bool) -> dict[str, Any]:
    return {"type": "tool-approval-response", "approvalId": approval_id, "approved": approved}


def test_ai_core_facts() -> None:
    """What ai core (ai 6.0.x, convertToLanguageModelPrompt + generateText) accepts.

    Observed with the pinned packages:
    - Two CONSECUTIVE tool messages, each with one of two parallel results: ACCEPTED. ai
      core merges consecutive tool messages into one before validating, so the model
      sees a single tool message with both results.
    - A tool result placed AFTER an intervening user message: REJECTED with
      AI_MissingToolResultsError ("Tool result is missing for tool call c1."). The check
      runs message by message: any user/system message while a call is still open fails,
      even if its result turns up later.
    - An assistant message ending with a tool call plus its `tool-approval-request`, with
      no response, at the END of the history: REJECTED with AI_MissingToolResultsError.
      ai core strips approval requests from assistant content and then sees an open call;
      a pending approval is a state that waits for the user, not a sendable prompt.
    - The same with a `tool-approval-response` in a final tool message: ACCEPTED. Denied
      -> ai core adds a tool-result with output {"type": "execution-denied"}; approved ->
      generateText executes the tool (the judge's stub, see judge.mjs) and adds its
      result. The approval-response part itself is dropped from the prompt.
    - An approval response that is NOT in the last message (a user message follows) and
      no tool result: REJECTED with AI_MissingToolResultsError (approvals are only
      collected from the final tool message).
    """
    histories: dict[str, list[Message]] = {
        "consecutive_tool_messages": [
            user("weather in two cities?"),
            {"role": "assistant", "content": [call("c1"), call("c2")]},
            {"role": "tool", "content": [result("c1")]},
            {"role": "tool", "content": [result("c2", value="rainy")]},
            user("thanks"),
        ],
        "result_after_user_message": [
            user("weather?"),
            {"role": "assistant", "content": [call("c1")]},
            user("hurry up"),
            {"role": "tool", "content": [result("c1")]},
        ],
        "pending_approval_at_end": [
            user("weather?"),
            {"role": "assistant", "content": [call("c1"), approval_request("a1", "c1")]},
        ],
        "denied_approval_at_end": [
            user("weather?"),
            {"role": "assistant", "content": [call("c1"), approval_request("a1", "c1")]},
            {"role": "tool", "content": [approval_response("a1", approved=False)]},
        ],
        "approved_approval_at_end": [
            user("weather?"),
            {"role": "assistant", "content": [call("c1"), approval_request("a1", "c1")]},
            {"role": "tool", "content": [approval_response("a1", approved=True)]},
        ],
        "approval_response_then_user": [
            user("weather?"),
            {"role": "assistant", "content": [call("c1"), approval_request("a1", "c1")]},
            {"role": "tool", "content": [approval_response("a1", approved=True)]},
            user("well?"),
        ],
    }
    results = {
        str(r["id"]): r
        for r in judge([{"id": k, "target": "core", "messages": v} for k, v in histories.items()])
    }
    missing_c1 = "AI_MissingToolResultsError: Tool result is missing for tool call c1."

    consecutive = results["consecutive_tool_messages"]
    assert consecutive["ok"], consecutive
    tool_messages = [m for m in consecutive["body"] if m["role"] == "tool"]
    assert len(tool_messages) == 1  # merged
    assert [p["toolCallId"] for p in tool_messages[0]["content"]] == ["c1", "c2"]

    after_user = results["result_after_user_message"]
    assert not after_user["ok"]
    assert (after_user["stage"], after_user["error"]) == ("convert", missing_c1)

    pending = results["pending_approval_at_end"]
    assert not pending["ok"]
    assert (pending["stage"], pending["error"]) == ("convert", missing_c1)

    denied = results["denied_approval_at_end"]
    assert denied["ok"], denied
    assert denied["body"][-1] == {
        "role": "tool",
        "content": [
            {
                "type": "tool-result",
                "toolCallId": "c1",
                "toolName": "weather",
                "output": {"type": "execution-denied"},
            }
        ],
    }
    # The approval request never reaches the model either.
    assert denied["body"][1]["content"] == [call("c1")]

    approved = results["approved_approval_at_end"]
    assert approved["ok"], approved
    [executed] = approved["body"][-1]["content"]
    assert executed["type"] == "tool-result"
    assert executed["toolCallId"] == "c1"

    then_user = results["approval_response_then_user"]
    assert not then_user["ok"]
    assert (then_user["stage"], then_user["error"]) == ("convert", missing_c1)


# --------------------------------------------------------------------------- batch size


def test_a_batch_of_200_cases_runs_in_one_process_quickly() -> None:
    cases = [
        {
            "id": i,
            "target": ALL_TARGETS[i % len(ALL_TARGETS)],
            "messages": TOOL_ROUND_TRIP if i % 2 else SIMPLE,
        }
        for i in range(200)
    ]
    start = time.monotonic()
    results = judge(cases)
    elapsed = time.monotonic() - start
    assert [r["id"] for r in results] == list(range(200))
    assert all(r["ok"] for r in results)
    # About half a second on a laptop; the bound only catches a pathological slowdown.
    assert elapsed < 30, elapsed
