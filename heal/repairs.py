"""Repair records: the audit trail of every change heal makes (or would make).

A :class:`Repair` is frozen and JSON-serializable (``repair.model_dump(mode="json")``). Its
locations are indices into the CALLER'S input, whatever intermediate edits happened, and it
carries the content it removed or replaced, so an audit can show exactly what changed and nothing
is ever lost silently.
"""

from __future__ import annotations

from enum import Enum

from pydantic import BaseModel, ConfigDict, JsonValue

__all__ = ["Action", "Repair", "Scope"]


class Action(str, Enum):
    """What a repair did."""

    REMOVE = "remove"
    """Removed a part or message (``removed`` holds it)."""
    INSERT = "insert"
    """Inserted a part or message (``added`` holds it, ``anchor_index`` says where)."""
    REPLACE = "replace"
    """Replaced a part or message, or one of its fields (``removed`` old, ``added`` new)."""
    MOVE = "move"
    """Moved a part to another place (``anchor_index`` says where); nothing was lost."""
    KEEP = "keep"
    """Found a problem and left it, because the policy chose ``keep``. Does not fail validation."""
    REPORT = "report"
    """Found a problem that no edit can fix safely; the reason says what to do. Fails validation."""


class Scope(str, Enum):
    """Where a rule's change belongs."""

    HISTORY = "history"
    """The change fixes the stored history itself: a migration may write it back."""
    REQUEST = "request"
    """The change only suits one request to one provider (such as stripping another provider's
    reasoning): send it, but never write it back to storage."""


class Repair(BaseModel):
    """One change heal made, or, from ``validate_messages``, one problem it found."""

    model_config = ConfigDict(frozen=True)

    rule: str
    """The id of the rule that found the problem, such as ``orphan-tool-call``."""
    action: Action
    """What was done."""
    message_index: int | None
    """Index of the affected message in the caller's input (None for inserted items)."""
    part_index: int | None
    """Index of the affected part in that message's content (None for whole messages)."""
    anchor_index: int | None = None
    """For inserts and moves: the input index of the message the item was put into or after."""
    tool_call_id: str | None = None
    """The tool call concerned, where one applies."""
    reason: str
    """One line saying what was wrong and what was done."""
    removed: JsonValue = None
    """What was removed or replaced, as AI SDK JSON (None when nothing was)."""
    added: JsonValue = None
    """What was inserted or put in its place, as AI SDK JSON (None when nothing was)."""
    scope: Scope = Scope.HISTORY
    """Whether this change belongs in stored history or only in the outgoing request."""

    @property
    def changed(self) -> bool:
        """True when the repair changed the history (not a kept or reported finding)."""
        return self.action not in (Action.KEEP, Action.REPORT)

    def describe(self) -> str:
        """A one-line, human-readable summary: location, rule and reason."""
        where = "messages"
        if self.message_index is not None:
            where = f"messages[{self.message_index}]"
            if self.part_index is not None:
                where += f".content[{self.part_index}]"
        elif self.anchor_index is not None:
            where = f"after messages[{self.anchor_index}]"
        return f"{where}: {self.rule}: {self.reason}"
