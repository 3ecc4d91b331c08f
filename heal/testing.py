"""Test helpers: fail a test (or a CI build) on a conversation history providers would reject.

    from heal.testing import assert_valid_history

    def test_golden_conversations():
        for path in Path("fixtures/conversations").glob("*.json"):
            assert_valid_history(json.loads(path.read_text()), provider="anthropic")

The installed pytest plugin (``heal-messages`` registers it under the ``pytest11`` entry point)
shows the issues of a failing history as a short, readable list instead of a traceback.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from heal.policy import Policy
from heal.repairs import Action, Repair

__all__ = ["HistoryAssertionError", "assert_valid_history"]


class HistoryAssertionError(AssertionError):
    """A history is not valid; ``issues`` lists why, located in the history as given."""

    def __init__(self, issues: tuple[Repair, ...], *, provider: str | None, label: str | None):
        self.issues = issues
        self.provider = provider
        self.label = label
        target = f"provider {provider!r}" if provider else "the shared rules"
        head = f"{label}: " if label else ""
        lines = [f"{head}history is not valid for {target}: {len(issues)} issue(s)"]
        lines += [f"  {issue.describe()}" for issue in issues]
        super().__init__("\n".join(lines))


def assert_valid_history(
    messages: Any,
    *,
    provider: str | None = None,
    format: str = "ai-sdk",
    policy: Policy | Mapping[str, str] | None = None,
    label: str | None = None,
) -> None:
    """Raise :class:`HistoryAssertionError` (an ``AssertionError``) listing every issue when
    ``messages`` would be repaired for ``provider``. ``format`` names the native format
    (``openai-chat``, ``anthropic``, ...; see ``heal-messages check --help``); issue locations
    are in that format."""
    from heal._formats import healer  # the same reading as `heal-messages check`

    issues = healer(format)(messages, provider=provider, policy=policy).repairs
    if any(issue.action is not Action.KEEP for issue in issues):
        raise HistoryAssertionError(issues, provider=provider, label=label)
