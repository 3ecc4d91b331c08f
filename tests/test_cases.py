"""Run every rule case file under tests/cases/ (shared rules and provider packs alike).

A case file is ``{"rule": id, "cases": [...]}``. Each case is either
``{"name", "ok": history}`` (no finding, returned unchanged) or
``{"name", "input", "healed", "repairs"}``, with optional ``provider``, ``policy``, ``enable``
(rules that are off by default) and ``server`` (the case is for another server speaking the
provider's wire format, so the provider's own wire rules do not judge it).

For every failing case the runner checks the declared output and repairs, then the guarantees:
the output re-validates clean, the input was not mutated, a second heal changes nothing, and
``validate_messages`` flags the input under the case's rule.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from heal import Action, Policy, Repair, dump_messages, heal_messages, validate_messages

CASES_DIR = Path(__file__).parent / "cases"
_REPAIR_KEYS = ("rule", "action", "message_index", "part_index")


def _load_cases() -> list[Any]:
    params = []
    for path in sorted(CASES_DIR.rglob("*.json")):
        data = json.loads(path.read_text(encoding="utf-8"))
        for case in data["cases"]:
            case_id = f"{path.parent.name}/{data['rule']}: {case['name']}"
            params.append(pytest.param(data["rule"], case, id=case_id))
    return params


CASES = _load_cases()


def test_case_files_exist() -> None:
    assert len(CASES) >= 50


@pytest.mark.parametrize(("rule", "case"), CASES)
def test_case(rule: str, case: dict[str, Any]) -> None:
    provider = case.get("provider")
    # "enable" turns on rules that are off by default (as heal_after_error does).
    policy = Policy(case.get("policy") or {}, enable=case.get("enable", ()))
    if "ok" in case:
        history = case["ok"]
        before = copy.deepcopy(history)
        result = heal_messages(history, provider=provider, policy=policy)
        assert result.repairs == (), [r.describe() for r in result.repairs]
        assert dump_messages(result.messages) == history
        assert validate_messages(history, provider=provider, policy=policy).valid
        assert history == before
        return

    history = case["input"]
    before = copy.deepcopy(history)
    result = heal_messages(history, provider=provider, policy=policy)
    healed = dump_messages(result.messages)

    assert healed == case["healed"]
    got = [{k: r.model_dump(mode="json")[k] for k in _REPAIR_KEYS} for r in result.repairs]
    want = [{k: r[k] for k in _REPAIR_KEYS} for r in case["repairs"]]
    assert got == want, "\n".join(r.describe() for r in result.repairs)
    # Built-in rules' records are built without validation: each must be a valid Repair.
    for repair in result.repairs:
        assert Repair.model_validate(repair.model_dump()) == repair, repair.describe()
    # Optional details a case may pin down: tool call id, anchor, removed content.
    for got_repair, want_repair in zip(result.repairs, case["repairs"], strict=False):
        dumped = got_repair.model_dump(mode="json")
        for key in ("tool_call_id", "anchor_index", "removed", "added"):
            if key in want_repair:
                assert dumped[key] == want_repair[key], (key, got_repair.describe())

    assert history == before, "the input was mutated"
    again = heal_messages(result.messages, provider=provider, policy=policy)
    assert not any(r.changed for r in again.repairs), [r.describe() for r in again.repairs]
    assert dump_messages(again.messages) == healed
    # The output re-validates clean, but for problems no edit can fix (reported, not changed):
    # those are reported again, exactly as by the heal.
    recheck = validate_messages(result.messages, provider=provider, policy=policy)
    # (Compared by rule and reason: the re-check locates them in the healed history.)
    reported = [(r.rule, r.reason) for r in result.repairs if r.action is Action.REPORT]
    assert [(r.rule, r.reason) for r in recheck.issues if r.action is Action.REPORT] == reported
    assert recheck.valid or reported

    check = validate_messages(history, provider=provider, policy=policy)
    flagged = {issue.rule for issue in check.issues}
    assert rule in flagged
    only_kept = all(r.action is Action.KEEP for r in result.repairs)
    assert check.valid is only_kept
