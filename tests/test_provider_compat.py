"""The compat pack (DeepSeek, Cerebras, Groq, xAI): its case files (``tests/cases/compat``) and
what the AI SDK's own conversion makes of the healed histories."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from heal import Policy, Scope, dump_messages, heal_messages
from heal.rules import PACKS
from tests.case_runner import pack_cases
from tests.test_provider_openai import judge_pack

COMPAT_CASES = pack_cases("compat")


def test_compat_pack_has_cases() -> None:
    rules = {param.values[0] for param in COMPAT_CASES}
    assert {rule.id for rule in PACKS["compat"]} <= rules


def test_mastra_id_and_scopes() -> None:
    ids = [rule.id for rule in PACKS["compat"]]
    assert "cerebras-strip-reasoning-content" in ids
    assert all(rule.scope is Scope.REQUEST for rule in PACKS["compat"])
    assert [rule.id for rule in PACKS["compat"] if not rule.default_enabled] == [
        "xai-encrypted-reasoning"
    ]


THINKING: list[dict[str, Any]] = [
    {"role": "user", "content": "weather?"},
    {
        "role": "assistant",
        "content": [
            {"type": "reasoning", "text": "call weather"},
            {"type": "tool-call", "toolCallId": "call_1", "toolName": "w", "input": {}},
        ],
    },
    {
        "role": "tool",
        "content": [
            {
                "type": "tool-result",
                "toolCallId": "call_1",
                "toolName": "w",
                "output": {"type": "text", "value": "sunny"},
            }
        ],
    },
]


@pytest.mark.parametrize("provider", ["cerebras", "groq"])
def test_strip_is_request_only(provider: str) -> None:
    assert heal_messages(THINKING, provider=provider, scope="history").repairs == ()  # type: ignore[arg-type]
    assert len(heal_messages(THINKING, provider=provider).repairs) == 1  # type: ignore[arg-type]


def test_deepseek_choices_are_interchangeable() -> None:
    bare = [THINKING[0], {"role": "assistant", "content": [THINKING[1]["content"][1]]}, THINKING[2]]
    for choice in ("empty-reasoning", "compat-field"):
        healed = heal_messages(
            bare, provider="deepseek", policy={"missing-reasoning-content": choice}
        ).messages
        for other in ("empty-reasoning", "compat-field"):
            again = heal_messages(
                healed, provider="deepseek", policy={"missing-reasoning-content": other}
            )
            assert again.repairs == ()


def test_keep_reports_without_changing() -> None:
    bare = [THINKING[0], {"role": "assistant", "content": [THINKING[1]["content"][1]]}, THINKING[2]]
    result = heal_messages(bare, provider="deepseek", policy={"missing-reasoning-content": "keep"})
    assert dump_messages(result.messages) == bare
    assert [r.action.value for r in result.repairs] == ["keep"]


def test_xai_rule_needs_enabling() -> None:
    history = [
        {"role": "user", "content": "hi"},
        {
            "role": "assistant",
            "content": [
                {
                    "type": "reasoning",
                    "text": "",
                    "providerOptions": {"xai": {"reasoningEncryptedContent": "enc"}},
                },
                {"type": "text", "text": "hello"},
            ],
        },
    ]
    assert heal_messages(history, provider="xai").repairs == ()
    enabled = heal_messages(
        history, provider="xai", policy=Policy(enable=["xai-encrypted-reasoning"])
    )
    assert [r.rule for r in enabled.repairs] == ["xai-encrypted-reasoning"]


@pytest.fixture(scope="module")
def _node() -> Iterator[None]:
    from tests.interop.judge import ensure_node_modules

    if ensure_node_modules() is None:
        pytest.skip("node and npm are not installed; the interop judge cannot run")
    yield


@pytest.mark.interop
@pytest.mark.usefixtures("_node")
def test_interop_compat_cases_pass_ai_core() -> None:
    # The judge has no DeepSeek, Cerebras, Groq or xAI package; ai core and the message schema
    # still check every healed history (the synthesized empty reasoning part included).
    failures, judged = judge_pack(COMPAT_CASES)
    assert judged >= 25
    assert failures == []
