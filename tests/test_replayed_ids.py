"""A history that replays one tool call id in every turn (``duplicate-tool-call-id``).

Each call after the first gets a new id (``<id>_2``, ``<id>_3``, ...) and its own result follows
it. These tests pin what heal makes of such histories, and check that the ownership of results
and approval requests (found by bisection, so that a long replayed history heals in linear
time) is exactly the plain definition's.
"""

from __future__ import annotations

import random
from typing import Any

import pytest

from heal import PROVIDERS, Action, dump_messages, heal_messages, load_messages, validate_messages
from heal.messages import ToolApprovalRequest, ToolResultPart
from heal.providers import get_profile
from heal.rules import Context
from heal.rules._index import HistoryIndex
from heal.rules.tool_shape import _assign_owners


def _call(tid: str, *, provider_executed: bool = False) -> dict[str, Any]:
    call: dict[str, Any] = {"type": "tool-call", "toolCallId": tid, "toolName": "f", "input": {}}
    if provider_executed:
        call["providerExecuted"] = True
    return call


def _result(tid: str, value: str = "r") -> dict[str, Any]:
    return {
        "type": "tool-result",
        "toolCallId": tid,
        "toolName": "f",
        "output": {"type": "text", "value": value},
    }


def _request(approval_id: str, tid: str) -> dict[str, Any]:
    return {"type": "tool-approval-request", "approvalId": approval_id, "toolCallId": tid}


def _response(approval_id: str) -> dict[str, Any]:
    return {"type": "tool-approval-response", "approvalId": approval_id, "approved": True}


def replayed(pairs: int, tid: str = "call_1") -> list[dict[str, Any]]:
    """``pairs`` turns of user question, assistant call with id ``tid``, tool result."""
    history: list[dict[str, Any]] = []
    for _ in range(pairs):
        history.append({"role": "user", "content": "q"})
        history.append({"role": "assistant", "content": [_call(tid)]})
        history.append({"role": "tool", "content": [_result(tid)]})
    return history


def _renames(pairs: int) -> list[tuple[str, Action, int, int, str | None, Any, Any, str]]:
    """The duplicate-tool-call-id records of ``replayed(pairs)``, in order."""
    expected: list[tuple[str, Action, int, int, str | None, Any, Any, str]] = []
    for turn in range(1, pairs):
        new = f"call_1_{turn + 1}"
        for m, kind, why in (
            (3 * turn + 1, "tool-call", "was already used by an earlier call"),
            (3 * turn + 2, "tool-result", "followed its renamed call"),
        ):
            expected.append(
                (
                    "duplicate-tool-call-id",
                    Action.REPLACE,
                    m,
                    0,
                    "call_1",
                    {"toolCallId": "call_1"},
                    {"toolCallId": new},
                    f"{kind} id 'call_1' {why}; now {new!r}",
                )
            )
    return expected


def _records(repairs: Any) -> list[tuple[str, Action, int, int, str | None, Any, Any, str]]:
    return [
        (
            r.rule,
            r.action,
            r.message_index,
            r.part_index,
            r.tool_call_id,
            r.removed,
            r.added,
            r.reason,
        )
        for r in repairs
    ]


def test_each_replayed_call_and_its_result_get_a_new_id() -> None:
    result = heal_messages(replayed(5))
    ids = ["call_1", "call_1_2", "call_1_3", "call_1_4", "call_1_5"]
    expected: list[dict[str, Any]] = []
    for tid in ids:
        expected.append({"role": "user", "content": "q"})
        expected.append({"role": "assistant", "content": [_call(tid)]})
        expected.append({"role": "tool", "content": [_result(tid)]})
    assert dump_messages(result.messages) == expected
    assert _records(result.repairs) == _renames(5)
    assert all(r.anchor_index is None for r in result.repairs)
    assert validate_messages(result.messages).valid


@pytest.mark.parametrize("provider", PROVIDERS)
def test_every_provider_renames_a_replayed_id_the_same_way(provider: Any) -> None:
    result = heal_messages(replayed(5), provider=provider)
    renames = [r for r in result.repairs if r.rule == "duplicate-tool-call-id"]
    assert _records(renames) == _renames(5)
    assert result.repairs[: len(renames)] == tuple(renames)  # the renaming comes first
    healed = heal_messages(result.messages, provider=provider)
    assert dump_messages(healed.messages) == dump_messages(result.messages)
    assert not healed.changed


def test_results_and_requests_follow_the_call_they_answer() -> None:
    """Two calls of one message share the id; an approval request; a provider-executed call
    with its result in the assistant message; a result after an intervening user message."""
    history = [
        {"role": "user", "content": "go"},
        {"role": "assistant", "content": [_call("c"), _call("c")]},
        {"role": "tool", "content": [_result("c", "first")]},
        {"role": "tool", "content": [_result("c", "second")]},
        {"role": "user", "content": "again"},
        {"role": "assistant", "content": [_call("c"), _request("a1", "c")]},
        {"role": "tool", "content": [_response("a1"), _result("c", "third")]},
        {"role": "user", "content": "and again"},
        {
            "role": "assistant",
            "content": [_call("c", provider_executed=True), _result("c", "server")],
        },
        {"role": "assistant", "content": [_call("c")]},
        {"role": "user", "content": "late"},
        {"role": "tool", "content": [_result("c", "late")]},
    ]
    result = heal_messages(history)
    assert dump_messages(result.messages) == [
        {"role": "user", "content": "go"},
        {"role": "assistant", "content": [_call("c"), _call("c_2")]},
        {"role": "tool", "content": [_result("c", "first")]},
        {"role": "tool", "content": [_result("c_2", "second")]},
        {"role": "user", "content": "again"},
        {"role": "assistant", "content": [_call("c_3"), _request("a1", "c_3")]},
        {"role": "tool", "content": [_response("a1"), _result("c_3", "third")]},
        {"role": "user", "content": "and again"},
        {
            "role": "assistant",
            "content": [_call("c_4", provider_executed=True), _result("c_4", "server")],
        },
        {"role": "assistant", "content": [_call("c_5")]},
        {"role": "tool", "content": [_result("c_5", "late")]},
        {"role": "user", "content": "late"},
    ]
    assert [
        (r.rule, r.action, r.message_index, r.part_index, r.anchor_index, r.reason)
        for r in result.repairs
    ] == [
        (
            "duplicate-tool-call-id",
            Action.REPLACE,
            1,
            1,
            None,
            "tool-call id 'c' was already used by an earlier call; now 'c_2'",
        ),
        (
            "duplicate-tool-call-id",
            Action.REPLACE,
            3,
            0,
            None,
            "tool-result id 'c' followed its renamed call; now 'c_2'",
        ),
        (
            "duplicate-tool-call-id",
            Action.REPLACE,
            5,
            0,
            None,
            "tool-call id 'c' was already used by an earlier call; now 'c_3'",
        ),
        (
            "duplicate-tool-call-id",
            Action.REPLACE,
            6,
            1,
            None,
            "tool-result id 'c' followed its renamed call; now 'c_3'",
        ),
        (
            "duplicate-tool-call-id",
            Action.REPLACE,
            5,
            1,
            None,
            "tool-approval-request id 'c' followed its renamed call; now 'c_3'",
        ),
        (
            "duplicate-tool-call-id",
            Action.REPLACE,
            8,
            0,
            None,
            "tool-call id 'c' was already used by an earlier call; now 'c_4'",
        ),
        (
            "duplicate-tool-call-id",
            Action.REPLACE,
            8,
            1,
            None,
            "tool-result id 'c' followed its renamed call; now 'c_4'",
        ),
        (
            "duplicate-tool-call-id",
            Action.REPLACE,
            9,
            0,
            None,
            "tool-call id 'c' was already used by an earlier call; now 'c_5'",
        ),
        (
            "duplicate-tool-call-id",
            Action.REPLACE,
            11,
            0,
            None,
            "tool-result id 'c' followed its renamed call; now 'c_5'",
        ),
        (
            "misplaced-tool-result",
            Action.MOVE,
            11,
            0,
            9,
            "result for tool call 'c_5' was not right after its call; moved there (the tool "
            "message it was in held nothing else)",
        ),
    ]


# --- the ownership of results and requests, against its plain definition -------------------


def _plain_owners(ctx: Context, dupes: dict[str, list[Any]]) -> dict[tuple[int, int], list[Any]]:
    """``_assign_owners`` as its docstring defines it: every candidate call scanned for each
    result and request (quadratic in the calls sharing an id; fine for small histories)."""
    block_end = ctx.index.pairing.block_end
    roles = ctx.index.roles
    owners: dict[tuple[int, int], list[Any]] = {}
    seen: dict[tuple[int, str, str], int] = {}
    refs: list[tuple[int, int, ToolResultPart | ToolApprovalRequest]] = [
        *ctx.index.results,
        *ctx.index.requests,
    ]
    for ref in refs:
        m, p, part = ref
        tid = part.tool_call_id
        calls = dupes.get(tid)
        if calls is None:
            continue
        in_tool = roles[m] == "tool"
        if isinstance(part, ToolApprovalRequest):
            group = [c for c in calls if c[0] == m]
        elif in_tool:
            group = [c for c in calls if not c[2].provider_executed and c[0] < m < block_end[c[0]]]
        else:
            group = []
        if group:
            key = (group[0][0], tid, part.type)
            k = seen.get(key, 0)
            seen[key] = k + 1
            owner = group[min(k, len(group) - 1)]
        else:
            kind = [c for c in calls if bool(c[2].provider_executed) != in_tool] or calls
            before = [c for c in kind if (c[0], c[1]) < (m, p)]
            owner = before[-1] if before else kind[0]
        owners.setdefault((owner[0], owner[1]), []).append(ref)
    return owners


def _random_history(rng: random.Random, length: int, ids: list[str]) -> list[dict[str, Any]]:
    """Messages of every role holding calls (some provider-executed), results and approval
    parts, all drawn from a few ids: calls share ids, results sit anywhere."""
    history: list[dict[str, Any]] = []
    approvals = 0
    for _ in range(length):
        roll = rng.random()
        if roll < 0.25:
            history.append({"role": "user", "content": "u"})
        elif roll < 0.6:
            parts: list[dict[str, Any]] = []
            for _ in range(rng.randint(0, 3)):
                kind, tid = rng.random(), rng.choice(ids)
                if kind < 0.55:
                    parts.append(_call(tid, provider_executed=rng.random() < 0.15))
                elif kind < 0.7:
                    parts.append(_result(tid))
                elif kind < 0.85:
                    approvals += 1
                    parts.append(_request(f"a{approvals}", tid))
                else:
                    parts.append({"type": "text", "text": "t"})
            history.append({"role": "assistant", "content": parts or "ok"})
        else:
            tool_parts = [
                _result(rng.choice(ids))
                if rng.random() < 0.8
                else _response(f"a{rng.randint(1, max(approvals, 1))}")
                for _ in range(rng.randint(0, 3))
            ]
            history.append({"role": "tool", "content": tool_parts})
    return history


def test_owners_are_those_of_the_plain_definition() -> None:
    rng = random.Random(20_260_101)
    compared = 0
    for _ in range(600):
        ids = ["a", "b", "c"][: rng.randint(1, 3)]
        messages = load_messages(_random_history(rng, rng.randint(1, 30), ids))
        index = HistoryIndex(messages)
        by_id: dict[str, list[Any]] = {}
        for ref in index.calls:
            by_id.setdefault(ref[2].tool_call_id, []).append(ref)
        dupes = {tid: refs for tid, refs in by_id.items() if len(refs) > 1}
        if not dupes:
            continue
        ctx = Context(messages, index, None, get_profile(None))
        expected = _plain_owners(ctx, dupes)
        compared += bool(expected)
        assert list(_assign_owners(ctx, dupes).items()) == list(expected.items())
    assert compared > 300  # the generator does make shared ids with results to assign
