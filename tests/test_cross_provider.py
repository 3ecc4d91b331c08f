"""Cross-provider properties: heal's guarantees hold for every provider pack, and a history
healed for one provider can be healed again for another.

* For each provider id in :data:`heal.PROVIDERS`: healing a broken history is idempotent and
  its output validates for that provider.
* A clean history (from ``valid_histories()``) that already validates for a provider is
  returned unchanged, with no repairs.
* Switching providers mid-conversation: a history healed for A, then healed for B, validates
  for B, and healing it again for B changes nothing. Every ordered pair of distinct providers is
  tested (the 30 pairs of the six main wire formats, and every pair with an OpenAI-compatible
  server): the test is parametrized by A and heals each drawn history for every B.

Drawing a history costs about fifty times more than healing it, so example counts are kept
small per test (there are 33 tests) and the file runs in seconds in the ``ci`` profile;
hypothesis still shrinks a failure to a minimal history.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

import pytest
from hypothesis import HealthCheck, assume, given, settings

from heal import (
    PROVIDERS,
    Action,
    ProviderId,
    Repair,
    dump_messages,
    heal_messages,
    validate_messages,
)
from tests.strategies import broken_histories, histories, valid_histories

History = list[dict[str, Any]]

_HEALTH = [HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much]
_ONE = settings(max_examples=15, deadline=None, suppress_health_check=_HEALTH)
_CLEAN = settings(max_examples=10, deadline=None, suppress_health_check=_HEALTH)
_PAIRS = settings(max_examples=20, deadline=None, suppress_health_check=_HEALTH)


def _changing(repairs: Sequence[Repair]) -> list[str]:
    return [r.describe() for r in repairs if r.changed]


def _show(history: Any) -> str:
    return json.dumps(history, ensure_ascii=True, indent=None)


# --- one provider ------------------------------------------------------------------------------


@pytest.mark.parametrize("provider", PROVIDERS)
@_ONE
@given(x=broken_histories())
def test_heal_is_idempotent_and_validates(provider: ProviderId, x: History) -> None:
    first = heal_messages(x, provider=provider)
    healed = dump_messages(first.messages)
    check = validate_messages(first.messages, provider=provider)
    assert _only_reports(check.issues), f"healed for {provider}:\n{_show(healed)}\n{check.report()}"
    second = heal_messages(first.messages, provider=provider)
    assert dump_messages(second.messages) == healed, f"second heal changed {_show(healed)}"
    assert not _changing(second.repairs), _changing(second.repairs)


@pytest.mark.parametrize("provider", PROVIDERS)
@_CLEAN
@given(x=valid_histories())
def test_clean_history_for_provider_is_untouched(provider: ProviderId, x: History) -> None:
    # Only histories that need no provider-specific repair (Mistral ids, Bedrock's first
    # message, ...); from 22% (bedrock) to 61% (anthropic) of valid_histories() qualify.
    assume(validate_messages(x, provider=provider).valid)
    result = heal_messages(x, provider=provider)
    assert result.repairs == (), [r.describe() for r in result.repairs]
    assert not result.changed
    assert dump_messages(result.messages) == x


def _only_reports(issues: tuple[Repair, ...]) -> bool:
    """Valid apart from problems no edit can fix, which heal reports (Action.REPORT)."""
    return all(issue.action in (Action.KEEP, Action.REPORT) for issue in issues)


# --- switching providers -----------------------------------------------------------------------


def _heal_for_a_then_b(source: ProviderId, target: ProviderId, for_a: Any) -> str | None:
    """None when the history healed for ``source`` heals cleanly for ``target``, else why not."""
    for_b = heal_messages(for_a, provider=target)
    check = validate_messages(for_b.messages, provider=target)
    healed = dump_messages(for_b.messages)
    if not _only_reports(check.issues):
        return f"{source} -> {target}: {_show(healed)}\ndoes not validate:\n{check.report()}"
    again = heal_messages(for_b.messages, provider=target)
    if dump_messages(again.messages) != healed or _changing(again.repairs):
        return (
            f"{source} -> {target}: healing {_show(healed)} for {target} again changed it: "
            f"{_changing(again.repairs)}"
        )
    return None


@pytest.mark.parametrize("source", PROVIDERS)
@_PAIRS
@given(x=histories())
def test_healed_for_one_provider_then_another(source: ProviderId, x: History) -> None:
    """Every ordered pair (source, target) of distinct providers: all 30 pairs of the six main
    wire formats and every pair involving the OpenAI-compatible servers. Generating a history
    costs far more than healing it, so each drawn history is healed for every target."""
    for_a = heal_messages(x, provider=source).messages
    failures = [
        problem
        for target in PROVIDERS
        if target != source and (problem := _heal_for_a_then_b(source, target, for_a)) is not None
    ]
    assert not failures, f"input {_show(x)}\n" + "\n\n".join(failures)
