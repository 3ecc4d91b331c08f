"""What each built-in rule needs to find anything, for the clean verdict (``Rule.needs``).

A rule declares its needs as a class attribute, beside its ``triggers``. The built-in rules
below are declared here, by id, until their modules carry the declaration themselves: the
engine reads a rule's own ``needs`` first, then this table for a built-in rule, then its
``triggers``. Each entry is read off the rule's ``check``: the rule returns before finding
anything when none of the facts holds (``tests/test_verdict.py`` runs every rule on histories
the verdict calls clean, for every provider, and expects no finding).
"""

from __future__ import annotations

__all__ = ["BUILTIN_NEEDS"]

_PAIRING = frozenset({"unpaired"})
"""The pairing rules return at once when :attr:`HistoryIndex.paired` holds."""

BUILTIN_NEEDS: dict[str, frozenset[str]] = {
    # tool_shape
    "invalid-tool-input": frozenset({"unusual_inputs"}),
    "invalid-tool-call-id": frozenset({"invalid_tool_call_ids"}),
    "duplicate-tool-call-id": frozenset({"duplicate_call_ids"}),
    "invalid-tool-name": frozenset({"invalid_tool_names"}),
    # tool_pairing
    "orphan-tool-result": _PAIRING,
    "duplicate-tool-result": _PAIRING,
    "misplaced-tool-result": _PAIRING,
    "orphan-tool-call": _PAIRING,
    # anthropic: the shared id check under Mastra's id; callers named in provider options;
    # a prefill's trailing whitespace
    "anthropic-tool-id-format": frozenset({"invalid_tool_call_ids"}),
    "anthropic-orphan-caller-reference": frozenset({"tool_options"}),
    "anthropic-trailing-whitespace": frozenset({"final_assistant"}),
    # server_tools (ForeignServerTool): only provider-executed calls
    "anthropic-foreign-server-tool": frozenset({"provider_executed"}),
    "google-foreign-server-tool": frozenset({"provider_executed"}),
    "openai-foreign-server-tool": frozenset({"provider_executed"}),
    "bedrock-tool-result-count": frozenset({"provider_executed"}),
    "anthropic-assistant-prefill": frozenset({"final_assistant"}),
    # openai: provider-executed calls; item ids, which only provider options carry
    "provider-executed-tool-call": frozenset({"provider_executed"}),
    "duplicate-item-id": frozenset({"assistant_options"}),
    # bedrock: a head that is not a user turn, behind blank messages too; or heal's placeholder
    # user message in front of nothing to send (marked text, or blank text and messages)
    "bedrock-first-message": frozenset({"head_not_user", "strings", "empty", "texts"}),
    # google: signatures in provider options; a model turn split in two, or at the head; calls
    # of the current turn; parts without data (images, files), reasoning, approvals
    "google-foreign-thought-signature": frozenset({"assistant_options"}),
    "google-function-call-turn": frozenset({"same_role_runs", "head_not_user"}),
    "google-missing-thought-signature": frozenset({"calls_after_last_user"}),
    "google-empty-part": frozenset({"reasoning", "responses", "files", "images"}),
    # roles (SameRoleRun): only runs of one role
    "anthropic-split-thinking-turn": frozenset({"same_role_runs"}),
    "bedrock-role-alternation": frozenset({"same_role_runs"}),
    "google-split-tool-results": frozenset({"same_role_runs"}),
    # system (MidConversationSystem): only a system message after the first turn
    "anthropic-mid-conversation-system": frozenset({"late_system"}),
    "google-mid-conversation-system": frozenset({"late_system"}),
    "bedrock-mid-conversation-system": frozenset({"late_system"}),
    # mistral
    "mistral-user-after-tool": frozenset({"user_after_tool"}),
    # target
    "tool-not-offered": frozenset({"unoffered_tools"}),
    # content
    "empty-history": frozenset({"only_system"}),
}
"""Built-in rule id -> the facts of :data:`heal.rules._base.NEEDS` it needs."""
