"""``orphan-tool-result`` = ``as-text``, judged by the real AI SDK: every case of the shared case
file that chooses it is healed for its provider and passes the schema, ai core and the
provider's own package, and the request body that package builds passes the provider's body
check (``BODY_CHECKS``). A case without a provider is judged on the schema and ai core.

The same inputs under the default choice are judged too (both choices must give a sendable
history), and the judge is discriminating here: each input, sent as it is, fails its provider.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from heal import dump_messages, heal_messages
from heal.providers import get_profile
from tests.case_runner import CASES_DIR
from tests.interop.judge import judge
from tests.interop.test_provider_interop import BODY_CHECKS

pytestmark = pytest.mark.interop

AS_TEXT = {"orphan-tool-result": "as-text"}


def _as_text_cases() -> list[dict[str, Any]]:
    data = json.loads((CASES_DIR / "shared" / "orphan-tool-result.json").read_text("utf-8"))
    return [case for case in data["cases"] if case.get("policy") == AS_TEXT]


def _judged(policy: dict[str, str] | None) -> tuple[list[str], int]:
    """Heal every as-text case's input under ``policy``, judge it, check the body."""
    batch: list[dict[str, Any]] = []
    for case in _as_text_cases():
        provider = case.get("provider")
        healed = dump_messages(
            heal_messages(case["input"], provider=provider, policy=policy).messages
        )
        batch.extend(
            {"id": f"{case['name']} [{target}]", "target": target, "messages": healed}
            | {"provider": provider}
            for target in ("schema", "core", *([provider] if provider else []))
        )
    results = judge([{k: v for k, v in item.items() if k != "provider"} for item in batch])
    failures: list[str] = []
    for item, result in zip(batch, results, strict=True):
        if not result["ok"]:
            failures.append(f"{item['id']}: {result['stage']}: {result['error']}")
        elif item["target"] == item["provider"]:
            check = BODY_CHECKS[item["provider"]]
            profile = get_profile(item["provider"])
            failures += [f"{item['id']}: {p}" for p in check(result["body"], profile)]
    return failures, len(batch)


def test_as_text_cases_cover_every_judged_provider() -> None:
    providers = {case.get("provider") for case in _as_text_cases()}
    assert set(BODY_CHECKS) <= providers


def test_as_text_output_passes_the_ai_sdk_and_the_provider() -> None:
    failures, judged = _judged(AS_TEXT)
    assert judged >= 3 * len(BODY_CHECKS)
    assert failures == []


def test_the_default_choice_passes_on_the_same_inputs() -> None:
    failures, _ = _judged(None)
    assert failures == []


def test_the_inputs_are_rejected_as_they_are() -> None:
    """Sent unhealed, every input fails its provider: the judge can tell."""
    cases = [case for case in _as_text_cases() if case.get("provider")]
    batch = [
        {"id": case["name"], "target": case["provider"], "messages": case["input"]}
        for case in cases
    ]
    results = judge(batch)
    accepted = []
    for case, result in zip(cases, results, strict=True):
        if result["ok"]:
            provider = case["provider"]
            problems = list(BODY_CHECKS[provider](result["body"], get_profile(provider)))
            if not problems:
                accepted.append(case["name"])
    assert accepted == []
