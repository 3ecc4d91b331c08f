"""The Anthropic pack: its case files (``tests/cases/anthropic``), the vercel/ai scenarios 13.3,
13.4, 13.8 and 13.9 of the provider-rules report, and the real AI SDK judging the healed
histories down to the request body.

Its cases run in ``tests/test_cases.py``; :func:`judge_pack` here is shared with the Bedrock and
Google pack tests. A case may carry ``"enable": [rule ids]`` to turn on rules
that are off by default. A case whose repairs include a ``report`` (a problem no edit can fix)
expects exactly those reports when its output is validated again.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any

import pytest

from heal import Action, Scope, dump_messages, heal_messages, validate_messages
from heal.rules import PACKS, default_registry
from tests.case_runner import healed_or_ok, pack_cases
from tests.case_runner import short as _short

Message = dict[str, Any]


# --- the AI SDK judges the healed output -----------------------------------------------------

JUDGE_TARGET = {"anthropic": "anthropic", "bedrock": "bedrock", "google": "google"}


def judge_pack(
    cases: list[Any], wire_problems: Callable[[Any], list[str]], *, model: str | None = None
) -> tuple[list[str], int]:
    """Judge every case's healed output (and ok history) with the real AI SDK: the schema, ai
    core and the provider's own package, and then ``wire_problems`` on the request body the
    package built (what the provider itself would reject). Cases that keep a problem on
    purpose (``keep``, reports) are only judged on the schema."""
    from tests.interop.judge import judge

    batch: list[dict[str, Any]] = []
    for param in cases:
        rule, case = param.values
        healed = healed_or_ok(case)
        if not healed:
            continue
        # "server": the case is for another server speaking this wire format (DeepSeek's
        # /anthropic endpoint), whose rules differ from the provider's own.
        deliberate = (
            "keep" in (case.get("policy") or {}).values()
            or any(r["action"] == "report" for r in case.get("repairs", ()))
            or "server" in case
        )
        targets = ["schema"] if deliberate else ["schema", "core", JUDGE_TARGET[case["provider"]]]
        for target in targets:
            item: dict[str, Any] = {
                "id": f"{rule}: {case['name']} [{target}]",
                "target": target,
                "messages": healed,
            }
            # The request is built for the model the case names (its target), unless the
            # caller overrides it for every case.
            chosen = model if model is not None else case.get("model")
            if chosen is not None and target == JUDGE_TARGET[case["provider"]]:
                item["model"] = chosen
            batch.append(item)
    results = judge(batch)
    failures = []
    for item, result in zip(batch, results, strict=True):
        if not result["ok"]:
            failures.append(f"{item['id']}: {result['stage']}: {result['error']}")
        elif item["target"] in JUDGE_TARGET.values():
            failures += [f"{item['id']}: {p}" for p in wire_problems(result["body"])]
    return failures, len(batch)


def anthropic_wire_problems(body: Any) -> list[str]:
    """What the Anthropic Messages API rejects in a request body, per the provider-rules report
    §1: no messages, pairing, text after tool_use, unsigned thinking, thinking not first, final
    thinking, blank text, final trailing whitespace, empty messages."""
    problems: list[str] = []
    messages = body["messages"]
    if not messages:
        problems.append("messages: at least one message is required")
    for i, message in enumerate(messages):
        if message["role"] == "system":
            continue  # mid-conversation system messages (Opus 4.8+); effort-only ones are empty
        content = message["content"]
        if isinstance(content, str):
            content = [{"type": "text", "text": content}]
        if not content:
            problems.append(f"messages.{i}: all messages must have non-empty content")
        kinds = [block["type"] for block in content]
        for j, block in enumerate(content):
            if block["type"] == "text" and not block["text"].strip():
                problems.append(f"messages.{i}.content.{j}: text content blocks must be non-empty")
            if block["type"] == "thinking" and not block.get("signature"):
                problems.append(f"messages.{i}.content.{j}.thinking.signature: Field required")
            if block["type"] == "server_tool_use" and not re.fullmatch(
                r"srvtoolu_[a-zA-Z0-9_]+", block["id"]
            ):
                problems.append(f"messages.{i}.content.{j}.server_tool_use.id: pattern")
            if block["type"] == "tool_result":
                nested = block.get("content")
                items = (
                    [{"type": "text", "text": nested}] if isinstance(nested, str) else nested or []
                )
                if any(item.get("type") == "text" and not item["text"].strip() for item in items):
                    problems.append(
                        f"messages.{i}.content.{j}: text content blocks must be non-empty"
                    )
        if message["role"] != "assistant":
            continue
        # The latest message with thinking too: Anthropic rejects thinking after other blocks
        # wherever it is (heal fixes that message as well, its blocks unchanged).
        thinking = [k in ("thinking", "redacted_thinking") for k in kinds]
        if any(thinking) and not thinking[0]:
            problems.append(f"messages.{i}.content.0: the first block must be thinking")
        uses = [j for j, k in enumerate(kinds) if k == "tool_use"]
        if uses and any(k == "text" for k in kinds[uses[0] :]):
            problems.append(f"messages.{i}: text after tool_use")
        ids = {content[j]["id"] for j in uses}
        following = messages[i + 1]["content"] if i + 1 < len(messages) else []
        answered = {
            block.get("tool_use_id")
            for block in following
            if isinstance(block, dict) and block.get("type") == "tool_result"
        }
        if ids - answered:
            problems.append(f"messages.{i}: `tool_use` ids were found without `tool_result`")
        if i == len(messages) - 1:
            if kinds and kinds[-1] in ("thinking", "redacted_thinking"):
                problems.append(f"messages.{i}: The final block cannot be `thinking`")
            if (
                kinds
                and kinds[-1] == "text"
                and content[-1]["text"] != content[-1]["text"].rstrip()
            ):
                problems.append("messages: final assistant content ends with whitespace")
    return problems


# --- the Anthropic cases ---------------------------------------------------------------------

ANTHROPIC_CASES = pack_cases("anthropic")


def test_anthropic_pack_has_cases() -> None:
    rules = {param.values[0] for param in ANTHROPIC_CASES}
    assert {rule.id for rule in PACKS["anthropic"]} <= rules


def test_anthropic_rules_declarations() -> None:
    declared = {rule.id: rule for rule in PACKS["anthropic"]}
    assert all(rule_id in default_registry for rule_id in declared)
    assert all(rule.providers == frozenset({"anthropic"}) for rule in PACKS["anthropic"])
    history_scoped = {rule_id for rule_id, rule in declared.items() if rule.scope is Scope.HISTORY}
    assert history_scoped == {
        "anthropic-reasoning-not-first",
        "anthropic-text-after-tool-call",
        "anthropic-empty-tool-result",
    }
    off = {rule.id for rule in PACKS["anthropic"] if not rule.default_enabled}
    assert off == {"anthropic-assistant-prefill", "anthropic-mid-conversation-system"}
    assert "anthropic-strip-foreign-reasoning-content" in declared
    assert "anthropic-tool-id-format" in declared


# --- scenarios (provider-rules report §13) ---------------------------------------------------

SIGNED = {"anthropic": {"signature": "EqQBCkYIBxgCKkA"}}


def _call(cid: str, name: str = "getWeather", **extra: Any) -> dict[str, Any]:
    return {"type": "tool-call", "toolCallId": cid, "toolName": name, "input": {}, **extra}


def _result(cid: str, name: str = "getWeather", output: Any = None) -> dict[str, Any]:
    return {
        "type": "tool-result",
        "toolCallId": cid,
        "toolName": name,
        "output": output or {"type": "json", "value": {"tempC": 18}},
    }


def _heal(history: list[Message], **kwargs: Any) -> tuple[list[Message], list[tuple[Any, ...]]]:
    result = heal_messages(history, provider="anthropic", **kwargs)
    return dump_messages(result.messages), _short(result.repairs)


def test_scenario_13_3_unsigned_reasoning_is_dropped() -> None:
    # vercel/ai#11602, first shape: reasoning persisted without its signature.
    history: list[Message] = [
        {"role": "user", "content": "think about this"},
        {
            "role": "assistant",
            "content": [
                {"type": "reasoning", "text": "hmm the user wants..."},
                {"type": "text", "text": "here you go"},
            ],
        },
    ]
    healed, repairs = _heal(history)
    assert healed == [
        history[0],
        {"role": "assistant", "content": [{"type": "text", "text": "here you go"}]},
    ]
    assert repairs == [("anthropic-unsigned-reasoning", "remove", 1, 0)]
    assert validate_messages(healed, provider="anthropic").valid


TOOL_LOOP_13_3: list[Message] = [
    {"role": "user", "content": "What's the weather in Paris? Use the tool."},
    {
        "role": "assistant",
        "content": [
            {"type": "reasoning", "text": "I should call getWeather."},
            _call("toolu_01A", input={"city": "Paris"}),
        ],
    },
    {"role": "tool", "content": [_result("toolu_01A")]},
]


def test_scenario_13_3_tool_loop_without_evidence_of_thinking_is_healed() -> None:
    # Nothing signed in the history: heal cannot know thinking is on, drops the unsigned
    # block, and the request is valid when thinking is off.
    healed, repairs = _heal(TOOL_LOOP_13_3)
    assert healed[1] == {"role": "assistant", "content": [TOOL_LOOP_13_3[1]["content"][1]]}
    assert repairs == [("anthropic-unsigned-reasoning", "remove", 1, 0)]


def test_scenario_13_3_tool_loop_with_thinking_in_use_is_reported() -> None:
    # With signed thinking earlier, thinking is in use: the loop cannot be healed by editing.
    earlier: list[Message] = [
        {"role": "user", "content": "hi"},
        {
            "role": "assistant",
            "content": [
                {"type": "reasoning", "text": "greet", "providerOptions": SIGNED},
                {"type": "text", "text": "Hello."},
            ],
        },
    ]
    history = earlier + TOOL_LOOP_13_3
    result = heal_messages(history, provider="anthropic")
    assert _short(result.repairs) == [
        ("anthropic-unsigned-reasoning", "remove", 3, 0),
        ("anthropic-tool-loop-thinking", "report", 3, None),
    ]
    report = result.repairs[-1]
    assert "disable thinking" in report.reason and "cannot" in report.reason
    check = validate_messages(history, provider="anthropic")
    assert not check.valid
    # keep: the problem is acknowledged, validation passes.
    kept = heal_messages(
        history, provider="anthropic", policy={"anthropic-tool-loop-thinking": "keep"}
    )
    assert kept.repairs[-1].action is Action.KEEP


def test_scenario_13_4_reasoning_only_message_is_dropped() -> None:
    # vercel/ai#13430: pruneMessages left an assistant message of only (signed) reasoning.
    history: list[Message] = [
        {"role": "user", "content": "what's broken?"},
        {
            "role": "assistant",
            "content": [
                {
                    "type": "reasoning",
                    "text": "Let me check for errors...",
                    "providerOptions": {"anthropic": {"signature": "abc"}},
                }
            ],
        },
        {"role": "user", "content": "anything?"},
    ]
    healed, repairs = _heal(history)
    assert healed == [history[0], history[2]]
    assert repairs == [("anthropic-reasoning-only-message", "remove", 1, None)]
    # In stored history the message stays: the drop is request-scoped.
    assert heal_messages(history, provider="anthropic", scope="history").repairs == ()


def test_each_removed_foreign_reasoning_says_its_namespaces_and_its_place() -> None:
    """The reason of each removed part names its own namespaces, and says so when the part sat
    beside signed thinking, whichever part came first (the texts are made once and kept)."""
    from heal.rules.reasoning import BESIDE_SIGNED

    def foreign(*namespaces: str) -> dict[str, Any]:
        options = {ns: {"itemId": f"rs_{ns}"} for ns in namespaces}
        return {"type": "reasoning", "text": "thought", "providerOptions": options}

    signed = {
        "type": "reasoning",
        "text": "mine",
        "providerOptions": {"anthropic": {"signature": "s"}},
    }
    history: list[Message] = [
        {"role": "user", "content": "q1"},
        {"role": "assistant", "content": [foreign("openai"), {"type": "text", "text": "a1"}]},
        {"role": "user", "content": "q2"},
        {
            "role": "assistant",
            "content": [foreign("openai", "google"), {"type": "text", "text": "a2"}],
        },
        {"role": "user", "content": "q3"},
        {
            "role": "assistant",
            "content": [signed, foreign("openai"), {"type": "text", "text": "a3"}],
        },
        {"role": "user", "content": "q4"},
    ]
    for order in (history, [*history[:1], *history[4:], *history[1:4]]):
        reasons = {
            r.message_index: r.reason
            for r in heal_messages(order, provider="anthropic").repairs
            if r.rule == "anthropic-strip-foreign-reasoning-content"
        }
        plain, both, beside = (reasons[order.index(history[k])] for k in (1, 3, 5))
        assert "openai" in plain and "google" not in plain and BESIDE_SIGNED not in plain
        assert "google, openai" in both and BESIDE_SIGNED not in both
        assert beside.endswith(BESIDE_SIGNED) and beside.startswith(plain)


def test_scenario_13_8_foreign_reasoning_is_dropped_not_turned_into_text() -> None:
    # vercel/ai#7729: OpenAI reasoning replayed to Anthropic.
    history: list[Message] = [
        {"role": "user", "content": "Plan a trip"},
        {
            "role": "assistant",
            "content": [
                {
                    "type": "reasoning",
                    "text": "The user wants a plan...",
                    "providerOptions": {
                        "openai": {"itemId": "rs_X", "reasoningEncryptedContent": "gAAAA..."}
                    },
                },
                {"type": "text", "text": "Here is a 3-day plan."},
            ],
        },
        {"role": "user", "content": "Make it 5 days"},
    ]
    healed, repairs = _heal(history)
    assert healed[1] == {
        "role": "assistant",
        "content": [{"type": "text", "text": "Here is a 3-day plan."}],
    }
    assert repairs == [("anthropic-strip-foreign-reasoning-content", "remove", 1, 0)]
    assert "The user wants a plan" not in json.dumps(healed)
    # Request scope: a migration for storage leaves the OpenAI reasoning in place.
    assert heal_messages(history, provider="anthropic", scope="history").repairs == ()
    # The same history goes to OpenAI untouched by the Anthropic pack.
    assert not any(
        r.rule.startswith("anthropic-")
        for r in heal_messages(history, provider="openai-responses").repairs
    )


def test_scenario_13_9_orphan_caller_reference_is_removed() -> None:
    # vercel/ai#12504: the server code-execution call was pruned; its dependent call remains.
    caller = {"type": "code_execution_20250825", "toolId": "srvtoolu_ABC"}
    history: list[Message] = [
        {"role": "user", "content": "Look up orders 1-3 and total them"},
        {
            "role": "assistant",
            "content": [
                _call(
                    "toolu_XYZ",
                    "lookup",
                    input={"orderId": 1},
                    providerOptions={"anthropic": {"caller": caller}},
                )
            ],
        },
        {
            "role": "tool",
            "content": [_result("toolu_XYZ", "lookup", {"type": "json", "value": {"total": 42}})],
        },
        {"role": "user", "content": "thanks, now summarize"},
    ]
    healed, repairs = _heal(history)
    assert healed[1] == {
        "role": "assistant",
        "content": [_call("toolu_XYZ", "lookup", input={"orderId": 1})],
    }
    assert repairs == [("anthropic-orphan-caller-reference", "replace", 1, 0)]
    dropped, repairs = _heal(history, policy={"anthropic-orphan-caller-reference": "drop-pair"})
    assert dropped == [history[0], history[3]]
    assert [r[0] for r in repairs] == ["anthropic-orphan-caller-reference"] * 2 + [
        "empty-message"
    ] * 2
    # With the server call present, the reference is kept.
    server = _call("srvtoolu_ABC", "code_execution", providerExecuted=True)
    whole = [history[0], {"role": "assistant", "content": [server]}, *history[1:]]
    assert not any(
        r.rule == "anthropic-orphan-caller-reference"
        for r in heal_messages(whole, provider="anthropic").repairs
    )


# --- guards and details ----------------------------------------------------------------------


def test_latest_signed_message_is_protected_from_shared_and_pack_rules() -> None:
    latest = {
        "role": "assistant",
        "content": [
            {"type": "reasoning", "text": "", "providerOptions": SIGNED},
            {"type": "text", "text": " "},
            {"type": "reasoning", "text": "more", "providerOptions": SIGNED},
            {"type": "text", "text": "Answer "},
        ],
    }
    earlier = {
        "role": "assistant",
        "content": [
            {"type": "text", "text": "Hello."},
            {"type": "reasoning", "text": "", "providerOptions": SIGNED},
            {"type": "text", "text": " "},
        ],
    }
    history: list[Message] = [
        {"role": "user", "content": "a"},
        earlier,
        {"role": "user", "content": "b"},
        latest,
    ]
    result = heal_messages(history, provider="anthropic")
    assert result.messages[3] is not None
    assert dump_messages(result.messages)[3] == latest
    assert {r.message_index for r in result.repairs} == {1}
    # Without the Anthropic pack the whitespace text of the latest message is removed.
    assert any(r.message_index == 3 for r in heal_messages(history).repairs)


def test_signed_empty_thinking_is_kept_and_signature_elsewhere_does_not_count() -> None:
    history: list[Message] = [
        {"role": "user", "content": "a"},
        {
            "role": "assistant",
            "content": [
                {"type": "reasoning", "text": "", "providerOptions": SIGNED},
                {"type": "reasoning", "text": "x", "providerMetadata": SIGNED},
                {"type": "text", "text": "ok"},
            ],
        },
        {"role": "user", "content": "b"},
        # the latest signed message (protected) comes later
        {
            "role": "assistant",
            "content": [
                {"type": "reasoning", "text": "", "providerOptions": SIGNED},
                {"type": "text", "text": "c"},
            ],
        },
        {"role": "user", "content": "d"},
    ]
    result = heal_messages(history, provider="anthropic")
    assert _short(result.repairs) == [("anthropic-unsigned-reasoning", "remove", 1, 1)]
    assert "providerMetadata" in result.repairs[0].reason


def test_anthropic_tool_id_format_is_collision_free_and_request_only() -> None:
    history: list[Message] = [
        {"role": "user", "content": "a"},
        {"role": "assistant", "content": [_call("call:1/x"), _call("call.1:x")]},
        {"role": "tool", "content": [_result("call:1/x"), _result("call.1:x")]},
    ]
    policy = {"invalid-tool-call-id": "keep"}
    result = heal_messages(history, provider="anthropic", policy=policy)
    ids = [part["toolCallId"] for part in dump_messages(result.messages)[1]["content"]]
    assert len(set(ids)) == 2 and all(re.fullmatch(r"[a-zA-Z0-9_-]+", i) for i in ids)
    assert {r.rule for r in result.repairs if r.changed} == {"anthropic-tool-id-format"}
    assert all(r.scope is Scope.REQUEST for r in result.repairs if r.changed)
    # For storage (history scope) with the shared rule kept, ids stay as they are.
    stored = heal_messages(history, provider="anthropic", policy=policy, scope="history")
    assert not stored.changed


# --- interop: the real AI SDK ----------------------------------------------------------------


@pytest.mark.interop
def test_anthropic_healed_cases_pass_the_ai_sdk_and_the_wire_rules() -> None:
    from tests.interop.judge import ensure_node_modules

    if ensure_node_modules() is None:
        pytest.skip("node and npm are not installed; the interop judge cannot run")
    failures, judged = judge_pack(ANTHROPIC_CASES, anthropic_wire_problems)
    assert judged >= 60
    assert failures == []


@pytest.mark.interop
def test_anthropic_wire_check_is_discriminating() -> None:
    """The broken inputs reach the wire broken, except where the adapter fixes them itself."""
    from tests.interop.judge import ensure_node_modules, judge

    if ensure_node_modules() is None:
        pytest.skip("node and npm are not installed; the interop judge cannot run")
    inputs = {
        case["name"]: case["input"]
        for rule, case in (param.values for param in ANTHROPIC_CASES)
        if "input" in case and not case.get("policy") and not case.get("enable")
    }
    results = judge(
        [{"id": name, "target": "anthropic", "messages": h} for name, h in inputs.items()]
    )
    flagged = {r["id"] for r in results if not r["ok"] or anthropic_wire_problems(r["body"])}
    for name in (
        "anthropic: the first block must be thinking (merged turns)",
        "the latest message with signed thinking is reordered too (Anthropic rejects it in "
        "this order either way)",
        "anthropic: The final block in an assistant message cannot be thinking (thinking "
        "stored after the text)",
        "removal left thinking last: a reasoning-only message after it was removed",
        "anthropic: If an assistant message contains any thinking blocks, the first block must "
        "be thinking (a turn stored step by step, joined by the AI SDK)",
        "vercel/ai#8516: text after an unanswered call",
        "anthropic: The final block in an assistant message cannot be thinking",
        "anthropic: server_tool_use.id should match pattern (OpenAI web search replayed)",
        "anthropic: all messages must have non-empty content (the adapter would drop everything)",
        "anthropic: text content blocks must be non-empty (empty tool_result text)",
    ):
        assert name in flagged, name
    # @ai-sdk/anthropic 3.0.138 moves tool_use blocks last, trims a final text and drops
    # unsigned reasoning itself; heal's rules are for every other client (and for storage).
    for name in (
        "anthropic: tool_use ids were found without tool_result blocks (opencode cassette)",
        "anthropic: final assistant content cannot end with trailing whitespace",
        "anthropic: thinking.signature: Field required (vercel/ai#11602)",
    ):
        assert name not in flagged, name
