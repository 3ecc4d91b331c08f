"""``Rule.triggers`` is a speed hint the engine trusts: a rule whose trigger lists are all empty
in the history index is not called. A wrong hint would hide problems silently, so these tests
check every built-in hint: wherever the engine would skip a rule, running the rule anyway finds
nothing, for every choice it offers.

The histories are every rule case file and documented example (which between them hold every
kind of part and every provider's quirks) and generated histories, valid and broken.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given

from heal import PROVIDERS, load_messages
from heal._engine import _plan_for
from heal.providers import ProviderId, get_profile
from heal.rules import BUILTIN_RULES, Rule
from heal.rules._base import TRIGGERS, Context
from heal.rules._index import HistoryIndex
from heal.targets import Target
from tests.strategies import histories

CASES_DIR = Path(__file__).parent / "cases"
ALL_PROVIDERS: list[Any] = [None, *PROVIDERS]
HINTED = [rule for rule in BUILTIN_RULES if rule.triggers is not None]


def _case_histories() -> Iterator[list[dict[str, Any]]]:
    for path in sorted(CASES_DIR.rglob("*.json")):
        for case in json.loads(path.read_text(encoding="utf-8"))["cases"]:
            yield case.get("ok") or case["input"]
            if "healed" in case:
                yield case["healed"]
    for rule in BUILTIN_RULES:
        if rule.example is not None:
            yield rule.example.before
            yield rule.example.after


def _skipped_rules_find_nothing(history: Any, provider: ProviderId | None) -> list[str]:
    """The rules the engine would skip on ``history`` that do find something (should be none)."""
    messages = load_messages(history)
    index = HistoryIndex(messages)
    guards = _plan_for(Target(provider), None, None, "request").guards
    ctx = Context(messages, index, provider, get_profile(provider), guards)
    wrong = []
    for rule in HINTED:
        assert rule.triggers is not None
        if not rule.applies_to(provider) or not rule.triggers.isdisjoint(index.present):
            continue
        for choice in rule.choices:
            findings = list(rule.check(ctx, choice))
            if findings:
                wrong.append(f"{rule.id} ({choice}): {findings[0].reason}")
    return wrong


@pytest.mark.parametrize("rule", HINTED, ids=lambda r: r.id)
def test_triggers_name_index_lists(rule: Rule) -> None:
    assert rule.triggers, "an empty hint would skip the rule always"
    assert rule.triggers <= TRIGGERS, rule.triggers - TRIGGERS


@pytest.mark.parametrize("provider", ALL_PROVIDERS, ids=str)
def test_skipped_rules_find_nothing_in_the_case_files(provider: ProviderId | None) -> None:
    checked = 0
    for history in _case_histories():
        assert _skipped_rules_find_nothing(history, provider) == []
        checked += 1
    assert checked > 100  # the case files were found


@pytest.mark.parametrize("provider", ALL_PROVIDERS, ids=str)
@given(history=histories())
def test_skipped_rules_find_nothing_in_generated_histories(
    provider: ProviderId | None, history: list[dict[str, Any]]
) -> None:
    assert _skipped_rules_find_nothing(history, provider) == []


class _Gated(Rule):
    """A rule whose hint is deliberately wrong: it finds a problem the hint says cannot exist."""

    id = "gated-by-reasoning"
    summary = "reports every history"
    triggers = frozenset({"reasoning"})

    def check(self, ctx: Context, choice: str) -> Iterator[Any]:
        from heal.repairs import Action
        from heal.rules import Finding

        yield Finding(Action.REPORT, None, None, "always")


def test_the_engine_skips_a_rule_whose_triggers_are_absent() -> None:
    from heal import validate_messages

    plain = [{"role": "user", "content": "hi"}]
    thinking = [
        {"role": "user", "content": "hi"},
        {"role": "assistant", "content": [{"type": "reasoning", "text": "hmm"}]},
    ]
    assert validate_messages(plain, rules=[_Gated()]).issues == ()
    assert [i.reason for i in validate_messages(thinking, rules=[_Gated()]).issues] == ["always"]
