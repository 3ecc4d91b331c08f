"""The Bedrock Converse pack: its case files (``tests/cases/bedrock``), and the real AI SDK
bedrock package judging the healed histories down to the Converse request body."""

from __future__ import annotations

import re
from typing import Any

import pytest

from heal import Scope, dump_messages, heal_messages, validate_messages
from heal.providers import get_profile
from heal.rules import PACKS, default_registry
from tests.case_runner import pack_cases
from tests.test_provider_anthropic import judge_pack

BEDROCK_CASES = pack_cases("bedrock")
_NAME_OR_ID = re.compile(r"[a-zA-Z0-9_-]{1,64}")


def test_bedrock_pack_has_cases() -> None:
    rules = {param.values[0] for param in BEDROCK_CASES}
    assert {rule.id for rule in PACKS["bedrock"]} <= rules


def test_bedrock_rules_declarations() -> None:
    declared = {rule.id: rule for rule in PACKS["bedrock"]}
    assert all(rule_id in default_registry for rule_id in declared)
    assert all(rule.providers == frozenset({"bedrock"}) for rule in PACKS["bedrock"])
    history_scoped = {r for r, rule in declared.items() if rule.scope is Scope.HISTORY}
    assert history_scoped == {"bedrock-empty-tool-result", "bedrock-reasoning-not-first"}
    assert all(rule.default_enabled for rule in PACKS["bedrock"])


def test_bedrock_profile_limits_ids_and_names_to_64() -> None:
    profile = get_profile("bedrock")
    assert profile.valid_tool_call_id("a" * 64) and not profile.valid_tool_call_id("a" * 65)
    assert profile.valid_tool_name("n" * 64) and not profile.valid_tool_name("n" * 65)


def test_latest_bedrock_signed_message_is_protected() -> None:
    latest = {
        "role": "assistant",
        "content": [
            {
                "type": "reasoning",
                "text": "x",
                "providerOptions": {"bedrock": {"signature": "sig"}},
            },
            {"type": "text", "text": " "},
            {"type": "reasoning", "text": "unsigned"},
            {"type": "text", "text": "Answer."},
        ],
    }
    history: list[dict[str, Any]] = [
        {"role": "user", "content": "a"},
        latest,
        {"role": "user", "content": "b"},
    ]
    result = heal_messages(history, provider="bedrock")
    # The unsigned reasoning goes (it cannot be sent as a signed block), and so does the blank
    # text: Bedrock rejects a blank text block even there (bedrock-blank-text-beside-signed-
    # thinking). The signed block is untouched.
    assert [(r.rule, r.message_index, r.part_index) for r in result.repairs] == [
        ("bedrock-unsigned-reasoning", 1, 2),
        ("bedrock-blank-text-beside-signed-thinking", 1, 1),
    ]
    kept = [latest["content"][0], latest["content"][3]]
    assert dump_messages(result.messages) == [history[0], {**latest, "content": kept}, history[2]]


def test_placement_rules_are_anthropics_instanced_for_bedrock_after_the_merge() -> None:
    # One implementation per problem: the Bedrock rules are instances of the families the
    # Anthropic ones are, and run after the merge that can make their shapes.
    anthropic = {type(rule): rule for rule in PACKS["anthropic"]}
    order = [rule.id for rule in PACKS["bedrock"]]
    for rule_id in (
        "bedrock-reasoning-only-message",
        "bedrock-reasoning-not-first",
        "bedrock-trailing-reasoning",
    ):
        rule = default_registry.get(rule_id)
        twin = anthropic[type(rule)]
        assert twin.id == rule_id.replace("bedrock-", "anthropic-")
        assert order.index(rule_id) > order.index("bedrock-role-alternation")
        assert order.index(rule_id) > order.index("bedrock-blank-text-beside-signed-thinking")


def test_a_lone_reasoning_only_message_is_kept_and_reported() -> None:
    # heal gives the message back and says why the history cannot be sent, instead of healing
    # it down to nothing; no placeholder user turn goes in front of a message that cannot be sent.
    signed = {
        "type": "reasoning",
        "text": "x",
        "providerOptions": {"bedrock": {"signature": "sig"}},
    }
    history: list[dict[str, Any]] = [{"role": "assistant", "content": [signed]}]
    result = heal_messages(history, provider="bedrock")
    assert dump_messages(result.messages) == history
    assert [(r.rule, r.action.value, r.message_index) for r in result.repairs] == [
        ("bedrock-reasoning-only-message", "report", 0),
    ]
    assert "nothing" in result.repairs[-1].reason
    assert not validate_messages(history, provider="bedrock").valid
    assert not validate_messages(result.messages, provider="bedrock").valid


def test_unsigned_reasoning_drop_is_request_only() -> None:
    history: list[dict[str, Any]] = [
        {"role": "user", "content": "a"},
        {
            "role": "assistant",
            "content": [{"type": "reasoning", "text": "x"}, {"type": "text", "text": "y"}],
        },
        {"role": "user", "content": "b"},
    ]
    assert heal_messages(history, provider="bedrock", scope="history").repairs == ()
    assert not validate_messages(history, provider="bedrock").valid


# --- interop: the real AI SDK ----------------------------------------------------------------


def bedrock_wire_problems(body: Any) -> list[str]:
    """What Converse rejects in a request body (provider-rules report §5): no messages, first
    turn, role alternation, one toolResult per toolUse of the previous turn, blank text, empty
    content, unsigned reasoning, reasoning not first or alone, the final message ending with
    reasoning (Claude's layout rules), name and id patterns."""
    problems: list[str] = []
    messages = body["messages"]
    if not messages or messages[0]["role"] != "user":
        problems.append("A conversation must start with a user message.")
    for i, message in enumerate(messages):
        if i and message["role"] == messages[i - 1]["role"]:
            problems.append(
                f"messages.{i}: A conversation must alternate between user and assistant roles."
            )
        content = message["content"]
        if not content:
            problems.append(f"messages.{i}: The content field in the Message object is empty.")
        for j, block in enumerate(content):
            if "text" in block and not block["text"].strip():
                problems.append(
                    f"messages.{i}.content.{j}: The text field in the ContentBlock object is blank."
                )
            reasoning = block.get("reasoningContent")
            if (
                reasoning is not None
                and "reasoningText" in reasoning
                and not reasoning["reasoningText"].get("signature")
            ):
                problems.append(f"messages.{i}.content.{j}: unsigned reasoning")
            if "toolUse" in block:
                use = block["toolUse"]
                if not _NAME_OR_ID.fullmatch(use["toolUseId"]) or not _NAME_OR_ID.fullmatch(
                    use["name"]
                ):
                    problems.append(f"messages.{i}.content.{j}: toolUse name or id pattern")
            if "document" in block and not any("text" in b for b in content):
                problems.append(
                    f"messages.{i}.content.{j}: A text block must be included when using documents."
                )
            if "toolResult" in block:
                result_content = block["toolResult"]["content"]
                if not result_content or any(
                    "text" in c and not c["text"].strip() for c in result_content
                ):
                    problems.append(f"messages.{i}.content.{j}: toolResult content is empty")
        thinking = ["reasoningContent" in block for block in content]
        if message["role"] == "assistant" and any(thinking):
            if not thinking[0]:
                problems.append(
                    f"messages.{i}.content.0: If an assistant message contains any thinking "
                    "blocks, the first block must be thinking."
                )
            if all(thinking):
                problems.append(f"messages.{i}: an assistant turn of reasoning alone (prefill)")
            elif i == len(messages) - 1 and thinking[-1]:
                problems.append(
                    f"messages.{i}: The final block in an assistant message cannot be thinking."
                )
        uses = [b["toolUse"]["toolUseId"] for b in content if "toolUse" in b]
        if message["role"] == "assistant":
            following = messages[i + 1]["content"] if i + 1 < len(messages) else []
            results = [b["toolResult"]["toolUseId"] for b in following if "toolResult" in b]
            if uses and sorted(uses) != sorted(results):
                problems.append(
                    f"messages.{i + 1}: toolResult blocks do not match the toolUse blocks of the previous turn"
                )
    return problems


@pytest.mark.interop
def test_bedrock_healed_cases_pass_the_ai_sdk_and_the_wire_rules() -> None:
    from tests.interop.judge import ensure_node_modules

    if ensure_node_modules() is None:
        pytest.skip("node and npm are not installed; the interop judge cannot run")
    failures, judged = judge_pack(BEDROCK_CASES, bedrock_wire_problems)
    assert judged >= 40
    assert failures == []


@pytest.mark.interop
def test_bedrock_broken_inputs_are_rejected_by_the_adapter_or_the_wire_rules() -> None:
    from tests.interop.judge import ensure_node_modules, judge

    if ensure_node_modules() is None:
        pytest.skip("node and npm are not installed; the interop judge cannot run")
    broken = [
        case
        for rule, case in (param.values for param in BEDROCK_CASES)
        if "input" in case
        and rule
        in (
            "bedrock-mid-conversation-system",
            "bedrock-first-message",
            "bedrock-tool-result-count",
            "bedrock-document-without-text",
            "bedrock-empty-tool-result",
            "bedrock-reasoning-only-message",
            "bedrock-reasoning-not-first",
            "bedrock-trailing-reasoning",
        )
        and not case.get("policy")
    ]
    results = judge(
        [{"id": c["name"], "target": "bedrock", "messages": c["input"]} for c in broken]
    )
    rejected = [r["id"] for r in results if not r["ok"] or bedrock_wire_problems(r["body"])]
    assert len(rejected) == len(broken), [r["id"] for r in results if r["id"] not in rejected]
