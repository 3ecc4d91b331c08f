"""The one runner of the rule case files under ``tests/cases/`` (shared rules and provider packs).

A case file is ``{"rule": id, "cases": [...]}``. Each case is either ``{"name", "ok": history}``
(no finding, returned unchanged) or ``{"name", "input", "healed", "repairs"}``, with optional
``provider``, the target's ``model``, ``thinking`` and ``tools`` (:class:`heal.targets.Target`),
``policy``, ``enable`` (rules that are off by default, turned on as
``heal_after_error`` does) and ``server`` (the case is for another server speaking the provider's
wire format, so the provider's own wire rules do not judge it).

:func:`check_case` is the contract every case is held to; ``tests/test_cases.py`` runs it on every
case once. The provider test modules use :func:`pack_cases` and :func:`healed_or_ok` to hand
their pack's cases to the real AI SDK, and keep only what a case cannot express.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import pytest

from heal import Action, Policy, Repair, dump_messages, heal_messages, validate_messages
from heal.targets import Target

__all__ = [
    "CASES_DIR",
    "all_cases",
    "check_case",
    "healed_or_ok",
    "pack_cases",
    "policy_of",
    "short",
    "target_of",
]

CASES_DIR = Path(__file__).parent / "cases"
_REPAIR_KEYS = ("rule", "action", "message_index", "part_index")
_OPTIONAL_KEYS = ("tool_call_id", "anchor_index", "removed", "added")

Message = dict[str, Any]


def _params(paths: Iterable[Path], *, with_pack: bool) -> list[Any]:
    params: list[Any] = []
    for path in sorted(paths):
        data = json.loads(path.read_text(encoding="utf-8"))
        rule = data["rule"]
        prefix = f"{path.parent.name}/" if with_pack else ""
        params += [
            pytest.param(rule, case, id=f"{prefix}{rule}: {case['name']}") for case in data["cases"]
        ]
    return params


def all_cases() -> list[Any]:
    """Every case of every pack, as pytest params of (rule id, case)."""
    return _params(CASES_DIR.rglob("*.json"), with_pack=True)


def pack_cases(pack: str) -> list[Any]:
    """Every case of one pack (a folder of ``tests/cases``), as pytest params of (rule id, case)."""
    return _params((CASES_DIR / pack).glob("*.json"), with_pack=False)


def policy_of(case: dict[str, Any]) -> Policy:
    return Policy(case.get("policy") or {}, enable=case.get("enable", ()))


def target_of(case: dict[str, Any]) -> Target:
    """The case's target: its ``provider`` and, when it names them, ``model``, ``thinking`` and
    ``tools`` (a case without them heals for the provider alone, as before targets)."""
    return Target.of(
        case.get("provider"),
        case.get("model"),
        thinking=case.get("thinking"),
        tools=case.get("tools"),
        prefix_mismatch_behavior=case.get("prefix_mismatch_behavior"),
    )


def short(repairs: Iterable[Repair]) -> list[tuple[str, str, int | None, int | None]]:
    """(rule, action, message index, part index) of each repair: what a case declares."""
    return [(r.rule, r.action.value, r.message_index, r.part_index) for r in repairs]


def healed_or_ok(case: dict[str, Any]) -> list[Message]:
    """The history a case sends: its ``ok`` history, or its input healed."""
    if "ok" in case:
        return list(case["ok"])
    result = heal_messages(case["input"], target=target_of(case), policy=policy_of(case))
    return dump_messages(result.messages)


def check_case(rule: str, case: dict[str, Any]) -> None:
    """The case-file contract.

    An ``ok`` case: no repair, returned unchanged, valid, input untouched. A failing case: the
    declared output and repairs (and any optional details it pins down: tool call id, anchor,
    removed and added content); every record a valid, JSON-serializable ``Repair``; the input
    untouched; a second heal changes nothing and finds exactly the problems no edit can fix
    (reports) and the ones the policy keeps; the output valid but for those reports; and the
    input flagged by the case's rule, invalid unless every finding is kept.
    """
    target = target_of(case)
    policy = policy_of(case)
    if "ok" in case:
        history = case["ok"]
        before = copy.deepcopy(history)
        result = heal_messages(history, target=target, policy=policy)
        assert result.repairs == (), [r.describe() for r in result.repairs]
        assert dump_messages(result.messages) == history
        assert validate_messages(history, target=target, policy=policy).valid
        assert history == before, "the input was mutated"
        return

    history = case["input"]
    before = copy.deepcopy(history)
    result = heal_messages(history, target=target, policy=policy)
    healed = dump_messages(result.messages)
    assert healed == case["healed"]
    got = [{k: r.model_dump(mode="json")[k] for k in _REPAIR_KEYS} for r in result.repairs]
    want = [{k: r[k] for k in _REPAIR_KEYS} for r in case["repairs"]]
    assert got == want, "\n".join(r.describe() for r in result.repairs)
    for got_repair, want_repair in zip(result.repairs, case["repairs"], strict=True):
        # Built-in rules build their records without validation: each must be a valid Repair.
        assert Repair.model_validate(got_repair.model_dump()) == got_repair, got_repair.describe()
        dumped = got_repair.model_dump(mode="json")
        json.dumps(dumped)
        for key in _OPTIONAL_KEYS:
            if key in want_repair:
                assert dumped[key] == want_repair[key], (key, got_repair.describe())
    assert history == before, "the input was mutated"

    again = heal_messages(result.messages, target=target, policy=policy)
    assert not any(r.changed for r in again.repairs), [r.describe() for r in again.repairs]
    assert dump_messages(again.messages) == healed
    reports = [r for r in result.repairs if r.action is Action.REPORT]
    kept = [r for r in result.repairs if r.action is Action.KEEP]
    assert short(again.repairs) in (short(kept + reports), short(reports + kept)), [
        r.describe() for r in again.repairs
    ]
    # The output re-validates clean, but for the reports, which come again with the same reasons
    # (compared by rule and reason: the re-check locates them in the healed history).
    recheck = validate_messages(result.messages, target=target, policy=policy)
    assert recheck.valid is (not reports)
    assert [(r.rule, r.reason) for r in recheck.issues if r.action is Action.REPORT] == [
        (r.rule, r.reason) for r in reports
    ]

    check = validate_messages(history, target=target, policy=policy)
    assert rule in {issue.rule for issue in check.issues}
    assert check.valid is all(r.action is Action.KEEP for r in result.repairs)
