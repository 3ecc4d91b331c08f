"""The nine vercel/ai scenarios (provider-rules.md §13, the histories quoted there): each heals
for its provider, and what heal sends passes the real AI SDK provider package. A history heal
cannot fix by editing must be reported (Action.REPORT), never passed off as healed."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from heal import Action, dump_messages, heal_messages, validate_messages
from heal.providers import get_profile
from tests.interop.judge import judge
from tests.interop.test_provider_interop import BODY_CHECKS

pytestmark = pytest.mark.interop

SCENARIOS: list[dict[str, Any]] = json.loads(
    (Path(__file__).parent.parent / "scenarios" / "vercel_ai.json").read_text(encoding="utf-8")
)


def test_all_nine_scenarios_are_covered() -> None:
    assert sorted({s["scenario"] for s in SCENARIOS}) == [f"13.{n}" for n in range(1, 10)]


def test_scenarios_heal_and_pass_the_real_provider() -> None:
    cases, reported = [], []
    for s in SCENARIOS:
        name = f"{s['scenario']} {s['issue']} #{s['variant']} ({s['provider']})"
        broken = validate_messages(s["input"], provider=s["provider"])
        assert not broken.valid, f"{name}: heal finds nothing wrong"
        outcome = heal_messages(s["input"], provider=s["provider"])
        validation = validate_messages(outcome.messages, provider=s["provider"])
        if any(r.action is Action.REPORT for r in outcome.repairs):
            reported.append(name)
            assert not validation.valid  # and it says so
            continue
        assert validation.valid, f"{name}: {validation.report()}"
        cases.append(
            {"id": name, "target": s["provider"], "messages": dump_messages(outcome.messages)}
        )
    results = judge(cases)
    assert [f"{r['id']}: {r['error']}" for r in results if not r["ok"]] == []
    # The AI SDK converts some broken histories without complaint (it drops what it cannot
    # send): the captured body must also satisfy the provider's rules from the reference.
    violations = []
    for case, result in zip(cases, results, strict=True):
        check = BODY_CHECKS.get(case["target"])
        if check is not None:
            found = list(check(result["body"], get_profile(case["target"])))
            violations += [f"{case['id']}: {v}" for v in found]
    assert violations == []
    assert len(cases) >= 9
    # Only the lost-signature shape of 13.3 cannot be fixed by editing (§1(e)).
    assert all(name.startswith("13.3") for name in reported), reported


def test_unsigned_thinking_goes_out_with_an_empty_signature_when_asked() -> None:
    # DeepSeek's /anthropic endpoint does not sign thinking but requires it back (§7): the
    # empty-signature choice must reach the wire as a thinking block, not be dropped by the SDK.
    history = [
        {"role": "user", "content": "think"},
        {
            "role": "assistant",
            "content": [{"type": "reasoning", "text": "hmm"}, {"type": "text", "text": "ok"}],
        },
        {"role": "user", "content": "and?"},
    ]
    policy = {"anthropic-unsigned-reasoning": "empty-signature"}
    healed = heal_messages(history, provider="anthropic", policy=policy)
    [result] = judge(
        [{"id": "x", "target": "anthropic", "messages": dump_messages(healed.messages)}]
    )
    assert result["ok"], result["error"]
    assert result["body"]["messages"][1]["content"][0] == {
        "type": "thinking",
        "thinking": "hmm",
        "signature": "",
    }
    dropped = heal_messages(history, provider="anthropic")
    [result] = judge(
        [{"id": "y", "target": "anthropic", "messages": dump_messages(dropped.messages)}]
    )
    assert result["body"]["messages"][1]["content"] == [{"type": "text", "text": "ok"}]
