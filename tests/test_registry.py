"""The registry: every rule is declared completely, documented, and covered by case files."""

from __future__ import annotations

import json
import re
from collections import Counter
from pathlib import Path

import pytest

from heal import dump_messages, heal_messages
from heal.errors import ConfigError
from heal.reactive import ERROR_PATTERNS
from heal.rules import BUILTIN_RULES, Rule, RuleRegistry, default_registry
from heal.rules._base import Context, Finding
from heal.rules._errors import CATALOGUE

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
def test_every_rejection_is_recognised_by_its_pattern(rule: Rule) -> None:
    # What heal_after_error knows is derived from these citations: a rejection without a pattern,
    # or whose pattern does not find its own text, would be an error heal prevents but cannot
    # recognise when a provider returns it.
    for rejection in rule.rejections:
        pattern = rejection.pattern
        assert pattern is not None, f"{rule.id}: {rejection.error!r} names no pattern"
        assert pattern.regex.search(rejection.error), (pattern.id, rejection.error)
        # One text, one pattern: ``matched`` for a cited text is the pattern it is cited under.
        others = [p.id for p in CATALOGUE if p is not pattern and p.regex.search(rejection.error)]
        assert others == [], (rejection.error, others)


def test_every_rule_is_named_by_a_pattern_and_every_pattern_by_a_rule() -> None:
    named = {rule_id for pattern in ERROR_PATTERNS for rule_id in pattern.rules}
    # No exemptions: every built-in rule cites at least one rejection (test_rule_is_documented)
    # and every rejection names its pattern (above).
    assert [rule.id for rule in BUILTIN_RULES if rule.id not in named] == []
    # Every declared pattern is cited, so the derived catalogue is the declared one, in order.
    assert [p.id for p in ERROR_PATTERNS] == [p.id for p in CATALOGUE]
    assert len({p.id for p in CATALOGUE}) == len(CATALOGUE)
    for pattern in ERROR_PATTERNS:
        citing = [
            rule.id
            for rule in BUILTIN_RULES
            if any(r.pattern is not None and r.pattern.id == pattern.id for r in rule.rejections)
        ]
        assert list(pattern.rules) == citing, pattern.id


@pytest.mark.parametrize("rule", BUILTIN_RULES, ids=lambda r: r.id)
def test_example_heals_as_documented(rule: Rule) -> None:
    example = rule.example
    assert example is not None
    policy = dict(example.policy or {})
    if example.choice:
        policy[rule.id] = example.choice
    from heal import Policy
    from heal.targets import Target

    target = Target.of(
        example.provider, example.model, thinking=example.thinking, tools=example.tools
    )
    by_target = rule.enabled_for(target)
    enable = [] if (rule.default_enabled if by_target is None else by_target) else [rule.id]
    result = heal_messages(
        example.before, target=target, policy=Policy(policy or {}, enable=enable)
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
