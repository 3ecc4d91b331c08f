"""Exceptions raised by heal.

Every exception heal raises on purpose derives from :class:`HealError`::

    HealError
     ├── InputError        (also ValueError)  the messages cannot be read; names the place
     ├── ConfigError       (also ValueError)  a provider, policy or rule set is wrong
     ├── HealingError                          strict=True and at least one repair was made
     └── ConvergenceError  (also RuntimeError) the rules kept changing the history: a bug in a rule
          └── ProtectedEditError                a rule edited a protected message: a bug in a rule

Catch ``HealError`` to handle all of them; catch ``ValueError`` if you only care that the caller
passed something wrong.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from heal.repairs import Repair

__all__ = [
    "ConfigError",
    "ConvergenceError",
    "HealError",
    "HealingError",
    "InputError",
    "ProtectedEditError",
]


class HealError(Exception):
    """Base class of every error heal raises on purpose."""


class InputError(HealError, ValueError):
    """The input cannot be read as a conversation history.

    ``path`` names the place, such as ``messages[3].content[1]``; the message starts with it.
    """

    def __init__(self, message: str, *, path: str = "messages") -> None:
        super().__init__(f"{path}: {message}")
        self.path = path
        self.reason = message


class ConfigError(HealError, ValueError):
    """A provider id, policy entry or rule is not valid. The message lists the valid values."""


class HealingError(HealError):
    """Raised by ``heal_messages(..., strict=True)`` when the history needed repairs."""

    def __init__(self, repairs: Sequence[Repair]) -> None:
        self.repairs = tuple(repairs)
        lines = [f"history needed {len(self.repairs)} repair(s):"]
        lines += [f"  {r.describe()}" for r in self.repairs[:20]]
        if len(self.repairs) > 20:
            lines.append(f"  ... and {len(self.repairs) - 20} more")
        super().__init__("\n".join(lines))


class ConvergenceError(HealError, RuntimeError):
    """The rules did not reach a fixed point within the pass limit.

    This is always a bug in a rule (two rules undoing each other's work); please report it with
    the history that caused it.
    """


class ProtectedEditError(ConvergenceError):
    """A rule's fix edits a message the plan protects (see ``Context.protected``) without the rule
    declaring ``edits_protected``.

    This is always a bug in a rule: the engine enforces the contract rather than drop the fix
    silently; please report it with the history that caused it.
    """
