"""What the integrations share: lazy imports, option checks, reporting, endpoint providers."""

from __future__ import annotations

import logging
import subprocess
import sys

import pytest

from heal import ConfigError, Policy, ProviderId, Repair, Target
from heal.integrations._common import (
    HealOptions,
    effort_thinking,
    log_repair,
    openai_endpoint_provider,
    request_target,
)
from heal.repairs import Action

FRAMEWORKS = (
    "pydantic_ai",
    "langchain",
    "langchain_core",
    "langgraph",
    "agents",
    "openai",
    "anthropic",
)


@pytest.mark.parametrize("module", ["heal", "heal.integrations"])
def test_importing_heal_imports_no_framework(module: str) -> None:
    code = f"import sys, {module}; print(sorted(m for m in {FRAMEWORKS!r} if m in sys.modules))"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]"


@pytest.mark.parametrize(
    ("module", "imports"),
    [
        ("pydantic_ai", "pydantic_ai"),
        ("langchain", "langchain"),
        ("openai_agents", "agents"),
        ("clients", "openai"),
    ],
)
def test_each_integration_imports_its_framework_only_when_imported(
    module: str, imports: str
) -> None:
    code = f"import sys, heal.integrations.{module}; print({imports!r} in sys.modules)"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "True"


@pytest.mark.parametrize(
    ("base_url", "api", "expected"),
    [
        (None, "chat", "openai-chat"),
        (None, "responses", "openai-responses"),
        ("https://api.openai.com/v1/", "chat", "openai-chat"),
        (
            "https://my-resource.openai.azure.com/openai/deployments/x",
            "responses",
            "openai-responses",
        ),
        ("https://api.deepseek.com/v1", "chat", "deepseek"),
        ("https://api.groq.com/openai/v1", "chat", "groq"),
        ("https://api.mistral.ai/v1", "chat", "mistral"),
        ("https://api.cerebras.ai/v1", "chat", "cerebras"),
        ("https://api.x.ai/v1", "chat", "xai"),
        ("https://api.x.ai/v1", "responses", "xai"),
        ("https://openrouter.ai/api/v1", "chat", "openai-compatible"),
        ("http://localhost:8000/v1", "chat", "openai-compatible"),
        ("http://localhost:8000/v1", "responses", None),
    ],
)
def test_openai_endpoint_provider(
    base_url: str | None, api: str, expected: ProviderId | None
) -> None:
    assert openai_endpoint_provider(base_url, api) == expected  # type: ignore[arg-type]


def test_options_are_checked_when_built() -> None:
    with pytest.raises(ConfigError, match="unknown provider"):
        HealOptions(provider="nope")  # type: ignore[arg-type]
    with pytest.raises(ConfigError, match="unknown rule"):
        HealOptions(policy={"no-such-rule": "fix"})
    with pytest.raises(ConfigError, match="valid choices"):
        HealOptions(policy={"orphan-tool-call": "nope"})
    assert HealOptions(provider=None).choose(lambda: "anthropic") is None
    assert HealOptions().choose(lambda: "anthropic") == "anthropic"


def test_partial_history_keeps_orphan_results_unless_the_policy_chose() -> None:
    assert HealOptions().for_partial_history().policy == Policy({"orphan-tool-result": "keep"})
    chosen = Policy({"orphan-tool-result": "fix"}, disable=["empty-text"])
    assert HealOptions(policy=chosen).for_partial_history().policy == chosen


_REMOVED = Repair(
    rule="orphan-tool-result", action=Action.REMOVE, message_index=3, part_index=0, reason="gone"
)
"""A repair to log."""


def test_repairs_go_to_the_callback_or_the_heal_logger(caplog: pytest.LogCaptureFixture) -> None:
    seen: list[Repair] = []
    assert HealOptions(on_repair=seen.append).report == seen.append
    assert HealOptions().report is log_repair
    repair = _REMOVED
    with caplog.at_level(logging.INFO, logger="heal"):
        log_repair(repair)
    (record,) = caplog.records
    assert (record.name, record.levelno) == ("heal", logging.INFO)
    assert record.getMessage() == "healed request: messages[3].content[0]: orphan-tool-result: gone"
    assert getattr(record, "heal_repair") is repair  # noqa: B009


def test_a_repair_is_not_described_when_the_heal_logger_drops_info(
    caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every request an integration heals reports its repairs here: under Python's default
    logging (WARNING and up) nothing is formatted for a line nobody keeps."""
    described: list[Repair] = []
    real = Repair.describe

    def counted(self: Repair) -> str:
        described.append(self)
        return real(self)

    monkeypatch.setattr(Repair, "describe", counted)
    repair = _REMOVED
    with caplog.at_level(logging.WARNING, logger="heal"):
        log_repair(repair)
    assert described == [] and caplog.records == []
    with caplog.at_level(logging.INFO, logger="heal"):
        log_repair(repair)
    assert described == [repair] and len(caplog.records) == 1


# --- the target of a request ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("effort", "thinking"),
    [("none", False), ("minimal", True), ("low", True), ("xhigh", True), (None, None), ("", None)],
)
def test_effort_thinking(effort: object, thinking: bool | None) -> None:
    assert effort_thinking(effort) is thinking


def test_request_target_takes_what_it_can_read_and_infers_nothing() -> None:
    assert request_target(None, model="claude-sonnet-4-6") == Target(None, "claude-sonnet-4-6")
    target = request_target(
        "anthropic", model="  ", thinking=True, tools=[{"name": 3}], prefix_mismatch_behavior=1
    )
    assert target == Target("anthropic", None, True, None, None)
    assert request_target("openai-chat", tools=["a", {"name": "b"}]).tools == frozenset({"a", "b"})
