"""The registry: every rule is declared completely, documented, and covered by case files."""

from __future__ import annotations

import json
import re
from collections import Counter
from pathlib import Path

import pytest

from heal import dump_messages, heal_messages
from heal.errors import ConfigError
from heal.rules import BUILTIN_RULES, Rule, RuleRegistry, default_registry
from heal.rules._base import Context, Finding

CASES_DIR = Path(__file__).parent / "cases"
KEBAB = re.compile(r"[a-z0-9]+(?:-[a-z0-9]+)*")


def _cases_by_rule() -> dict[str, Counter[str]]:
    found: dict[str, Counter[str]] = {}
    for path in CASES_DIR.rglob("*.json"):
        data = json.loads(path.read_text(encoding="utf-8"))
        kinds = found.setdefault(data["rule"], Counter())
        for case in data["cases"]:
            kinds["ok" if "ok" in case else "fail"] += 1
    return found


def test_ids_are_unique_kebab_case() -> None:
    ids = [rule.id for rule in default_registry]
    assert len(ids) == len(set(ids))
    assert all(KEBAB.fullmatch(rule_id) for rule_id in ids), ids


@pytest.mark.parametrize("rule", BUILTIN_RULES, ids=lambda r: r.id)
def test_rule_is_documented(rule: Rule) -> None:
    assert rule.summary and rule.__doc__
    assert rule.choices and "keep" not in rule.choices
    assert set(rule.choice_docs) == set(rule.choices), "every choice says what it does and loses"
    assert rule.rejections, "every rule cites the provider error it prevents"
    assert all(r.error and r.source and r.provider for r in rule.rejections)
    assert rule.example is not None


@pytest.mark.parametrize("rule", BUILTIN_RULES, ids=lambda r: r.id)
def test_example_heals_as_documented(rule: Rule) -> None:
    example = rule.example
    assert example is not None
    policy = dict(example.policy or {})
    if example.choice:
        policy[rule.id] = example.choice
    enable = None if rule.default_enabled else [rule.id]
    from heal import Policy

    result = heal_messages(
        example.before,
        provider=example.provider,  # type: ignore[arg-type]
        policy=Policy(policy or {}, enable=enable or ()),
    )
    assert dump_messages(result.messages) == example.after
    assert any(r.rule == rule.id for r in result.repairs)


@pytest.mark.parametrize("rule", BUILTIN_RULES, ids=lambda r: r.id)
def test_rule_has_ok_and_failing_cases(rule: Rule) -> None:
    kinds = _cases_by_rule().get(rule.id, Counter())
    assert kinds["ok"] >= 1 and kinds["fail"] >= 1, f"{rule.id}: {dict(kinds)}"


class _Noop(Rule):
    """A rule that finds nothing."""

    id = "noop"
    summary = "finds nothing"

    def check(self, ctx: Context, choice: str) -> list[Finding]:
        return []


def test_registry_rejects_duplicate_and_bad_rules() -> None:
    registry = RuleRegistry([_Noop()])
    with pytest.raises(ConfigError, match="already registered"):
        registry.register(_Noop())
    with pytest.raises(ConfigError, match="Rule instances"):
        registry.register("not a rule")  # type: ignore[arg-type]
    with pytest.raises(ConfigError, match="known rules: noop"):
        registry.get("nope")
    registry.unregister("noop")
    assert "noop" not in registry and len(registry) == 0
